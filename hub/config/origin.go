package config

// Whether a source's credentials travel over plain http, in words for a
// person (hub/secrets' origin.go says where a credential may go).

import (
	"cmp"
	"fmt"

	"capabilities.sh/capabilities/hub/secrets"
)

// PlainHTTPNote says, in words for a person, whether the credentials of
// source name (s) travel over plain http to another machine: server is
// where an OpenAPI source's calls go when it has no baseUrl (the
// document's server; openapi.Check returns it). It returns "" when they do
// not: https, this machine, or a stdio source.
func (s *Source) PlainHTTPNote(name, server string) string {
	target := s.URL
	if s.OpenAPI != "" {
		target = cmp.Or(s.BaseURL, server)
	}
	if target == "" || secrets.InsecureHTTP(target, false) == "" {
		return ""
	}
	origin := secrets.ShownOrigin(secrets.OriginOfURL(target))
	if s.AllowInsecureHTTP {
		return fmt.Sprintf("%s is plain http on another machine, and %s sets \"allowInsecureHttp\": its credentials go there unencrypted, readable by anyone on the way", origin, name)
	}
	return fmt.Sprintf("%s is plain http on another machine: the hub sends %s's credentials there only over https, or with \"allowInsecureHttp\": true on the source in config.json", origin, name)
}
