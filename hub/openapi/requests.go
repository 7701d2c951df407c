package openapi

// The requests an OpenAPI source's listing carries.
//
// Each operation a source lists carries, in its _meta, the request its
// call sends (method, path template, server), so the catalog pins it with
// the operation's text and schemas (hub/catalog's rest.go says what that
// covers).

import (
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/secrets"
	"capabilities.sh/capabilities/hub/upstream"
)

// restEndpoint is the base URL the calls of op go to: its own server
// when that is on another origin than the API's (elsewhere; served only
// where the source allows that origin), else the source's baseUrl, else
// the operation's own server (on the document's origin), else the
// document's server; "" when there is none.
func restEndpoint(baseURL string, doc *openapiDoc, op *openapiOp) string {
	switch {
	case doc.elsewhere(op) != "":
		return op.server
	case baseURL != "":
		return baseURL
	case op.server != "":
		return op.server
	}
	return doc.server
}

// elsewhere is the origin of op's own server (its operation's or its
// path's) when that is not the API's, the document's server's; "" when
// its calls go to the API's origin.
func (d *openapiDoc) elsewhere(op *openapiOp) string {
	if op.server == "" {
		return ""
	}
	if origin := secrets.OriginOfURL(op.server); origin != secrets.OriginOfURL(d.server) {
		return origin
	}
	return ""
}

// serves reports whether source def serves op: unless its own server is
// on another origin than the API's that def's "origins" does not list
// (def may be nil: it lists none).
func (d *openapiDoc) serves(def *config.Source, op *openapiOp) bool {
	origin := d.elsewhere(op)
	return origin == "" || def != nil && def.AllowsOrigin(origin)
}

// servedTools returns the tools of the document that source def serves:
// all but those whose own server is on another origin its "origins" does
// not list (def may be nil: then none of those), and a line for each left
// out, saying so.
func (d *openapiDoc) servedTools(tools []*mcp.Tool, def *config.Source) ([]*mcp.Tool, []string) {
	var left []string
	out := tools[:0:0]
	for _, t := range tools {
		op := d.ops[t.Name]
		if op == nil {
			continue
		}
		if !d.serves(def, op) {
			left = append(left, d.elsewhereLine(op, d.elsewhere(op)))
			continue
		}
		out = append(out, t)
	}
	return out, left
}

// elsewhereWhy says why an operation whose own server is on origin is
// not served, and how to serve it.
func (d *openapiDoc) elsewhereWhy(origin string) string {
	api := "none"
	if d.server != "" {
		api = secrets.ShownOrigin(secrets.OriginOfURL(d.server))
	}
	shown := secrets.ShownOrigin(origin)
	return fmt.Sprintf("its own server %s is not on the API's origin (%s), and a source's credentials go to that origin only; to serve it and send them there too, add \"origins\": [%q] to the source in config.json", shown, api, shown)
}

// elsewhereLine is the listing's line for op, left out as elsewhereWhy
// says.
func (d *openapiDoc) elsewhereLine(op *openapiOp, origin string) string {
	return fmt.Sprintf("skipped %s %s: %s", op.method, op.path, d.elsewhereWhy(origin))
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
		c.Meta = mcp.Meta{upstream.RequestMeta: &upstream.RESTRequest{Method: op.method, Path: op.path, Server: restEndpoint(baseURL, doc, op), Deprecated: op.deprecated,
			Elsewhere: doc.elsewhere(op) != ""}}
		out = append(out, &c)
	}
	return out
}
