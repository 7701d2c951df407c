package config

import (
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
		if problem := refPlaceProblem(s.BaseURL); problem != "" {
			add(at+".baseUrl", "%s", problem)
		} else if u, err := url.Parse(s.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
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
