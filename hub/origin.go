package hub

// Where a request may go.
//
// A source's credentials belong to one origin (scheme, host and port): the
// REST API's server, or the MCP server's URL. Nothing the hub sends with
// them may reach another origin: a redirect there is not followed, a built
// URL must keep its base's origin, and no Referer header carries a URL
// (with a query API key in it) anywhere. Plain http carries them only to
// the machine itself, unless the person opts in per source.

import (
	"cmp"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// originOf is the origin of u as "scheme://host:port", the host lowercase
// and the port explicit; "" when u has no http(s) scheme or no host.
func originOf(u *url.URL) string {
	if u == nil || u.Host == "" {
		return ""
	}
	if scheme := strings.ToLower(u.Scheme); scheme != "http" && scheme != "https" {
		return ""
	}
	return urlOrigin(u)
}

// shownOrigin is an origin as a person writes it: without the scheme's
// default port.
func shownOrigin(origin string) string {
	switch {
	case strings.HasPrefix(origin, "https://"):
		return strings.TrimSuffix(origin, ":443")
	case strings.HasPrefix(origin, "http://"):
		return strings.TrimSuffix(origin, ":80")
	}
	return origin
}

// originOfURL is originOf of the URL in s; "" when it does not parse.
func originOfURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return ""
	}
	return originOf(u)
}

// noReferer is an http.Client's CheckRedirect for requests that carry no
// credential (an OpenAPI document's fetch): it follows redirects anywhere,
// without a Referer.
func noReferer(req *http.Request, via []*http.Request) error {
	req.Header.Del("Referer")
	if len(via) >= 10 {
		return fmt.Errorf("stopped after %d redirects", len(via))
	}
	return nil
}

// isLoopbackHost reports whether host (a URL's host name, without port)
// is this machine: "localhost" or a loopback address.
func isLoopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// insecureHTTP says why credentials may not go to rawURL: a plain http://
// URL whose host is not this machine, when the source does not allow it.
// It returns "" when they may.
func insecureHTTP(rawURL string, allow bool) string {
	u, err := url.Parse(rawURL)
	if err != nil || !strings.EqualFold(u.Scheme, "http") || allow || isLoopbackHost(u.Hostname()) {
		return ""
	}
	return fmt.Sprintf("%s is plain http on another machine, where anyone on the way can read the credentials; use https, or set \"allowInsecureHttp\": true on the source to send them anyway", shownOrigin(originOf(u)))
}

// PlainHTTPNote says, in words for a person, whether the credentials of
// source name (s) travel over plain http to another machine: server is
// where an OpenAPI source's calls go when it has no baseUrl (the
// document's server; CheckOpenAPI returns it). It returns "" when they do
// not: https, this machine, or a stdio source.
func PlainHTTPNote(name string, s *Source, server string) string {
	target := s.URL
	if s.OpenAPI != "" {
		target = cmp.Or(s.BaseURL, server)
	}
	if target == "" || insecureHTTP(target, false) == "" {
		return ""
	}
	origin := shownOrigin(originOfURL(target))
	if s.AllowInsecureHTTP {
		return fmt.Sprintf("%s is plain http on another machine, and %s sets \"allowInsecureHttp\": its credentials go there unencrypted, readable by anyone on the way", origin, name)
	}
	return fmt.Sprintf("%s is plain http on another machine: the hub sends %s's credentials there only over https, or with \"allowInsecureHttp\": true on the source in config.json", origin, name)
}
