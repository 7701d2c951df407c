package catalog

// What consent to an OpenAPI operation covers.
//
// An operation's definition, as the catalog pins it, holds what its call
// sends beside its text and schemas: the HTTP method, the path template and
// the server (the source's baseUrl, or the document's). A refreshed
// document that moves an operation to another path, gives it another method
// or sends it to another server changes its definition: it is marked
// changed and asks until the person accepts it, like an MCP tool whose
// definition changed. The call itself checks that the operation it is about
// to send is the one the catalog listed, so a document changed between the
// listing and the call sends nothing.
//
// Pins kept before requests were part of the definition are moved to the
// definition with its request, once, when the operation is listed with the
// same text and schemas: an upgrade does not ask again for every operation.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/naming"
	"capabilities.sh/capabilities/hub/secrets"
	"capabilities.sh/capabilities/hub/store"
	"capabilities.sh/capabilities/hub/upstream"
)

// restRequestOf reads the request an OpenAPI listing put in t's _meta; nil
// when there is none.
func restRequestOf(t *mcp.Tool) *upstream.RESTRequest {
	switch v := t.Meta[upstream.RequestMeta].(type) {
	case *upstream.RESTRequest:
		c := *v
		return &c
	case nil:
		return nil
	default:
		b, err := json.Marshal(v)
		var r upstream.RESTRequest
		if err != nil || json.Unmarshal(b, &r) != nil || r.Method == "" {
			return nil
		}
		return &r
	}
}

// pinnedOrigins are the origins of the servers a source's pinned operations
// go to.
type pinnedOrigins struct {
	server  string // the server of the newest pin with a request
	origins map[string]bool
}

// foreign reports whether server is on none of the pinned origins (and
// there are some).
func (p *pinnedOrigins) foreign(server string) bool {
	return p != nil && len(p.origins) > 0 && !p.origins[serverOrigin(server)]
}

// readPinnedOrigins reads the origins of the pinned operations of source.
func readPinnedOrigins(ctx context.Context, tx *store.CatalogTx, source string) (*pinnedOrigins, error) {
	servers, err := tx.PinnedServers(ctx, source)
	if err != nil {
		return nil, fmt.Errorf("reading pins: %w", err)
	}
	p := &pinnedOrigins{origins: map[string]bool{}}
	for _, server := range servers {
		if p.server == "" {
			p.server = server
		}
		p.origins[serverOrigin(server)] = true
	}
	return p, nil
}

// migrateRESTPin moves the pin of an OpenAPI operation kept before
// requests were part of definitions (its hash is that of the definition
// without req), or of the same definition with the other deprecation mark
// (the mark changes nothing a call sends: an operation the API deprecates,
// and one a store of an earlier version kept without the mark, keep their
// consent), to the definition with req, with the remembered allows given
// for it; it reports whether an allow moved. A pin of any other definition
// stays.
func migrateRESTPin(ctx context.Context, tx *store.CatalogTx, source string, t *mcp.Tool, req *upstream.RESTRequest, hash string, def []byte, now time.Time) (bool, error) {
	other := *req
	other.Deprecated = !req.Deprecated
	legacies := []*upstream.RESTRequest{nil, &other}
	var legacy string
	for _, r := range legacies {
		_, h, err := Definition(t, r)
		if err != nil || h == hash {
			continue
		}
		moved, err := tx.MovePin(ctx, source, t.Name, h, hash, def, now)
		if err != nil {
			return false, fmt.Errorf("moving the pin of %s of %s: %w", t.Name, source, err)
		}
		if moved {
			legacy = h
			break
		}
	}
	if legacy == "" {
		return false, nil
	}
	n, err := tx.MoveToolAllows(ctx, naming.Namespace(source), source, t.Name, legacy, hash)
	if err != nil {
		return false, fmt.Errorf("moving remembered allows of %s of %s: %w", t.Name, source, err)
	}
	return n > 0, nil
}

// serverOrigin is the origin of the server URL s, as secrets.Origin writes
// it; "" when s is not an http(s) URL with a host.
func serverOrigin(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return ""
	}
	if scheme := strings.ToLower(u.Scheme); scheme != "http" && scheme != "https" {
		return ""
	}
	return secrets.Origin(u)
}
