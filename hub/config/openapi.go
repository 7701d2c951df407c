package config

import (
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"capabilities.sh/capabilities/hub/secrets"
)

// validateOpenAPISource checks the keys of an OpenAPI source: "openapi" is
// an http(s) URL or an absolute file path (or one under ~/), "baseUrl" an
// http(s) URL, and the MCP transport keys are not mixed in. Connections
// take headers, query and cookies, not env.
func validateOpenAPISource(s *Source, at string, add func(string, string, ...any)) {
	switch {
	case s.OpenAPI == "":
		add(at+".baseUrl", "belongs to OpenAPI sources; add \"openapi\" with the document's file or URL")
	case strings.HasPrefix(s.OpenAPI, "http://") || strings.HasPrefix(s.OpenAPI, "https://"):
		if u, err := url.Parse(s.OpenAPI); err != nil || u.Host == "" {
			add(at+".openapi", "not a valid URL")
		}
	case strings.Contains(s.OpenAPI, "://"):
		add(at+".openapi", "must be an http:// or https:// URL or a file path")
	case !filepath.IsAbs(s.OpenAPI) && !strings.HasPrefix(s.OpenAPI, "~/"):
		add(at+".openapi", "a file path must be absolute (or start with ~/), so it means the same to the hub and the CLI")
	}
	if s.BaseURL != "" {
		if problem := refPlaceProblem(s.BaseURL); problem != "" {
			add(at+".baseUrl", "%s", problem)
		} else if u, err := url.Parse(s.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			add(at+".baseUrl", "must be an http:// or https:// URL")
		}
	}
	for i, o := range s.Origins {
		if problem := originProblem(o); problem != "" {
			add(fmt.Sprintf("%s.origins[%d]", at, i), "%s", problem)
		}
	}
	if s.Command != "" || s.URL != "" {
		add(at, "has \"openapi\" and \"command\" or \"url\"; a source is an MCP server or a REST API, not both")
	}
	if len(s.Args) > 0 || s.Cwd != "" || len(s.Env) > 0 {
		add(at, "\"args\", \"cwd\" and \"env\" belong to stdio sources; this one is an OpenAPI source")
	}
	for _, name := range sortedKeys(s.Connections) {
		if len(s.Connections[name].Env) > 0 {
			add(at+".connections."+name+".env", "env belongs to stdio sources; OpenAPI connections take \"headers\", \"query\" and \"cookies\"")
		}
	}
}

// originProblem says why o is not an origin a source's "origins" may
// list: an http(s) scheme and a host, with a port or not, and nothing
// after ("https://uploads.github.com"); "" when it is one.
func originProblem(o string) string {
	u, err := url.Parse(o)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "":
		return fmt.Sprintf("%q is not an origin: write its scheme and host, such as \"https://uploads.example.com\"", o)
	case u.User != nil || strings.Trim(u.Path, "/") != "" || u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return fmt.Sprintf("%q is more than an origin: write its scheme, host and port only (%s); the operations' paths come from the document", o, secrets.ShownOrigin(secrets.OriginOf(u)))
	}
	return ""
}

// AllowsOrigin reports whether the source's "origins" lists origin (as
// secrets.OriginOf writes it).
func (s *Source) AllowsOrigin(origin string) bool {
	for _, o := range s.Origins {
		if origin != "" && secrets.OriginOfURL(o) == origin {
			return true
		}
	}
	return false
}

// AddOrigin adds origin to the source's "origins", as shown
// (secrets.ShownOrigin); false when it lists it already.
func (s *Source) AddOrigin(origin string) bool {
	if s.AllowsOrigin(secrets.OriginOfURL(origin)) {
		return false
	}
	s.Origins = append(s.Origins, secrets.ShownOrigin(secrets.OriginOfURL(origin)))
	return true
}

// RemoveOrigin takes origin off the source's "origins"; false when it
// does not list it.
func (s *Source) RemoveOrigin(origin string) bool {
	n := len(s.Origins)
	s.Origins = slices.DeleteFunc(s.Origins, func(o string) bool { return secrets.OriginOfURL(o) == secrets.OriginOfURL(origin) })
	return len(s.Origins) != n
}
