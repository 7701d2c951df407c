package openapi

// The requests an OpenAPI source's listing carries.
//
// Each operation a source lists carries, in its _meta, the request its
// call sends (method, path template, server), so the catalog pins it with
// the operation's text and schemas (hub/catalog's rest.go says what that
// covers).

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/upstream"
)

// restEndpoint is the base URL the calls of op go to: the source's
// baseUrl, else the operation's own server (on the document's origin),
// else the document's server; "" when there is none.
func restEndpoint(baseURL string, doc *openapiDoc, op *openapiOp) string {
	switch {
	case baseURL != "":
		return baseURL
	case op.server != "":
		return op.server
	}
	return doc.server
}

// withRequests returns copies of tools with each operation's request in
// their _meta, for the catalog to pin.
func withRequests(tools []*mcp.Tool, doc *openapiDoc, baseURL string) []*mcp.Tool {
	out := make([]*mcp.Tool, 0, len(tools))
	for _, t := range tools {
		op := doc.ops[t.Name]
		if op == nil {
			continue
		}
		c := *t
		c.Meta = mcp.Meta{upstream.RequestMeta: &upstream.RESTRequest{Method: op.method, Path: op.path, Server: restEndpoint(baseURL, doc, op), Deprecated: op.deprecated}}
		out = append(out, &c)
	}
	return out
}
