package secrets

// Where a credential may go.
//
// A source's credentials belong to one origin (scheme, host and port): the
// MCP server's URL or the REST API's server, and the other origins a REST
// API's source lists for the operations its document puts there
// (config.Source.Origins). An HTTP client that carries
// them follows a redirect only within that origin, a URL built for them
// keeps its base's origin, and no Referer header carries a URL (with a
// query API key in it) anywhere. Plain http carries them only to the
// machine itself, unless the person opts in per source.

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// RedirectError is a redirect an HTTP client of the hub refused to follow
// because it leads to another origin (scheme, host or port) than the
// request it answered: the request's credentials and body are not sent
// there.
type RedirectError struct {
	From     string // the origin that answered with the redirect
	Location string // where it pointed, without any user info
	Status   int    // the redirect's HTTP status, when known
}

func (e *RedirectError) Error() string {
	status := ""
	if e.Status != 0 {
		status = fmt.Sprintf(" (HTTP %d)", e.Status)
	}
	return fmt.Sprintf("%s redirected to another origin, %s%s; the request was not sent there", e.From, e.Location, status)
}

// SameOriginRedirect is an http.Client's CheckRedirect that follows a
// redirect only within the origin of the first request, up to 10 times,
// and never sends a Referer (a URL's query may hold an API key).
func SameOriginRedirect(req *http.Request, via []*http.Request) error {
	req.Header.Del("Referer")
	if len(via) >= 10 {
		return fmt.Errorf("stopped after %d redirects", len(via))
	}
	if from := via[0].URL; Origin(from) != Origin(req.URL) {
		e := &RedirectError{From: Origin(from), Location: req.URL.Redacted()}
		if req.Response != nil {
			e.Status = req.Response.StatusCode
		}
		return e
	}
	return nil
}

// Origin is u's scheme, host and port, with the scheme's default port
// spelled out: "https://example.com:443".
func Origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// OriginOf is the origin of u as "scheme://host:port", the host lowercase
// and the port explicit; "" when u has no http(s) scheme or no host.
func OriginOf(u *url.URL) string {
	if u == nil || u.Host == "" {
		return ""
	}
	if scheme := strings.ToLower(u.Scheme); scheme != "http" && scheme != "https" {
		return ""
	}
	return Origin(u)
}

// ShownOrigin is an origin as a person writes it: without the scheme's
// default port.
func ShownOrigin(origin string) string {
	switch {
	case strings.HasPrefix(origin, "https://"):
		return strings.TrimSuffix(origin, ":443")
	case strings.HasPrefix(origin, "http://"):
		return strings.TrimSuffix(origin, ":80")
	}
	return origin
}

// OriginOfURL is OriginOf of the URL in s; "" when it does not parse.
func OriginOfURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return ""
	}
	return OriginOf(u)
}

// NoReferer is an http.Client's CheckRedirect for requests that carry no
// credential (an OpenAPI document's fetch): it follows redirects anywhere,
// without a Referer.
func NoReferer(req *http.Request, via []*http.Request) error {
	req.Header.Del("Referer")
	if len(via) >= 10 {
		return fmt.Errorf("stopped after %d redirects", len(via))
	}
	return nil
}

// IsLoopbackHost reports whether host (a URL's host name, without port)
// is this machine: "localhost" or a loopback address.
func IsLoopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// InsecureHTTP says why credentials may not go to rawURL: a plain http://
// URL whose host is not this machine, when the source does not allow it.
// It returns "" when they may.
func InsecureHTTP(rawURL string, allow bool) string {
	u, err := url.Parse(rawURL)
	if err != nil || !strings.EqualFold(u.Scheme, "http") || allow || IsLoopbackHost(u.Hostname()) {
		return ""
	}
	return fmt.Sprintf("%s is plain http on another machine, where anyone on the way can read the credentials; use https, or set \"allowInsecureHttp\": true on the source to send them anyway", ShownOrigin(OriginOf(u)))
}
