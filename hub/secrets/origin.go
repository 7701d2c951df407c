package secrets

// Where a credential may go.
//
// A source's credentials belong to one origin (scheme, host and port): the
// MCP server's URL or the REST API's server. An HTTP client that carries
// them follows a redirect only within that origin.

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
