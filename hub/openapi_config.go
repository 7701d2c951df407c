package hub

import (
	"context"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
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
		if u, err := url.Parse(s.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			add(at+".baseUrl", "must be an http:// or https:// URL")
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

// restNeed is what the OpenAPI operation at address needs from connection
// conn of source that it does not have; "" when nothing (or not an
// OpenAPI operation).
func (h *Hub) restNeed(address, source, conn string) string {
	if s := h.Config().Sources[source]; s == nil || s.OpenAPI == "" {
		return ""
	}
	t, ok := h.catalog.Snapshot().Lookup(address)
	if !ok || t.Source != source {
		return ""
	}
	return h.openapi.AuthNeed(source, t.Name, conn)
}

// CheckOpenAPI reads and parses the OpenAPI document at loc (a file or an
// http(s) URL) as the hub would, and returns how many operations it serves,
// the lines of those it skips and its server ("" when it names none). The
// error names the file or URL, the place and the problem.
func CheckOpenAPI(ctx context.Context, loc string) (operations int, skipped []string, server string, err error) {
	client := &http.Client{CheckRedirect: noReferer}
	data, err := readOpenAPI(ctx, client, loc)
	if err != nil {
		return 0, nil, "", err
	}
	doc, err := parseOpenAPI(loc, data)
	if err != nil {
		return 0, nil, "", err
	}
	return len(doc.tools), doc.skipped, doc.server, nil
}
