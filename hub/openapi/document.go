package openapi

// OpenAPI documents: from a file or URL to tools and operations.
//
// The document is parsed with libopenapi, which reads OpenAPI 3.0, 3.1 and
// 3.2 natively and loads GitHub's 13 MB description in about a second and a
// half with a fraction of the memory other parsers need. What the hub keeps
// of it is small: per operation, the method, the path template, how each
// parameter is sent and which security schemes it needs (openapiOp), and
// the tool the catalog lists for it. The parsed document itself is dropped
// once these are built; the hub parses in a child process (child.go), so
// the model, some 300 MB for GitHub's description, is never in its heap.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pb33f/go-yaml"
	"github.com/pb33f/libopenapi"
	"github.com/pb33f/libopenapi/datamodel"
	highbase "github.com/pb33f/libopenapi/datamodel/high/base"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/naming"
	"capabilities.sh/capabilities/hub/secrets"
)

// Bounds of one OpenAPI document, each checked before the work it bounds:
// its size before it is read (GitHub's whole description is 13 MB), its
// nesting before the model is built (the model's cost grows faster than
// the depth: 2,000 levels cost seconds), and the JSON Schemas written for
// its operations, where a shared schema is written into every operation
// that reaches it (GitHub's 1,223 operations take 7.5 MB, at most 84 KB
// one). A result whose types pass maxOpenAPIResult is declared in part,
// its nearest components within maxOpenAPIResultPart (Stripe's expandable
// objects reach 660 KB each, 166 MB over its 451 operations, for the
// return types alone); one whose own schema passes it is left out, the
// operation served without it. All that is written, kept or not, stays
// within maxOpenAPIBuilt, and so do the properties a schema leaves out
// (readOnly ones of a request), each counted by its name.
const (
	maxOpenAPIDocument    = 32 << 20
	maxOpenAPIDepth       = 100
	maxOpenAPIOpSchemas   = 1 << 20
	maxOpenAPIDocSchemas  = 32 << 20
	maxOpenAPIResult      = 128 << 10
	maxOpenAPIResultPart  = 16 << 10
	openAPIBuiltWords     = "the limit of the schemas written for one document, kept or left out"
	openAPIDocLimitWords  = "the limit of an OpenAPI document's size"
	openAPIDepthWords     = "the limit of an OpenAPI document's nesting"
	openAPIOpSchemaWords  = "the limit of one operation's schemas"
	openAPIDocSchemaWords = "the limit of one document's schemas, where a shared schema counts in each operation that uses it"
)

// maxOpenAPIBuilt bounds the schemas written for one document, kept or
// left out (a variable so that a test can reach it cheaply).
var maxOpenAPIBuilt int64 = 256 << 20

// openapiDoc is what the hub keeps of one OpenAPI document.
type openapiDoc struct {
	hash  string // hex SHA-256 of the document's bytes
	tools []*mcp.Tool
	// packed holds the tools, compressed, once Sources loaded the document
	// (packed.go); tools is then nil and count says how many.
	packed  []byte
	count   int
	size    int                   // the packed tools' bytes once unpacked
	ops     map[string]*openapiOp // by tool name
	schemes map[string]*openapiScheme
	// server is the base URL of the document's first server, its variables
	// at their defaults; "" when it has none. serverProblem says why a
	// server could not be used.
	server        string
	serverProblem string
	skipped       []string // one line per operation left out
	// untyped is how many operations are served without their result's
	// schema, above maxOpenAPIResult.
	untyped int
}

// openapiOp is one operation, as a call needs it.
type openapiOp struct {
	method string
	path   string // the path template, "/pets/{petId}"
	server string // the operation's or path's own server, when it has one
	// deprecated is the operation's own mark: the API keeps it for
	// older callers and says to use another.
	deprecated bool
	params     []openapiParam
	// body is how the request body (JSON, or a URL-encoded form) is
	// formed from the arguments: bodyArg names the argument that holds it
	// whole; else bodyProps are the arguments that are its properties
	// (a readOnly one among them, which no schema lists but which goes
	// when given). hasBody is false when the operation takes none.
	hasBody      bool
	bodyRequired bool
	bodyArg      string
	bodyProps    []string
	bodyType     string // the media type sent
	// form is how each of bodyProps is written into a URL-encoded form
	// or a multipart body (bodyType formMedia, multipartMedia): its style and explode from the media
	// type's encoding, form and exploded by default. Without bodyProps the
	// bodyArg object's keys are written that default way.
	form []openapiParam
	// security lists the alternatives, each the names of the schemes that
	// must all be present; nil when the operation needs none. An empty
	// alternative means anonymous access is allowed.
	security [][]string
}

// openapiParam is one parameter: where it goes and how it is written.
type openapiParam struct {
	name    string // as the API knows it
	arg     string // the input property that carries it
	in      string // path, query, header, cookie
	style   string
	explode bool
	json    bool // the parameter's content is application/json: sent as JSON text
	// A multipart body's field (bodyType multipartMedia): file when it is
	// a file (or a list of files), given as fileArgSchema says;
	// contentType the part's media type from the encoding; styled when
	// the encoding gives a style, its pairs then sent as parts.
	file        bool
	contentType string
	styled      bool
}

// openapiScheme is one security scheme of the document.
type openapiScheme struct {
	name string // the scheme's key in components.securitySchemes
	typ  string // apiKey, http, oauth2, openIdConnect, mutualTLS
	in   string // apiKey: header, query, cookie
	key  string // apiKey: the header, query or cookie name
	http string // http: bearer, basic, ...
	// An oauth2 scheme's authorization code flow (its absolute URLs, or
	// empty), an openIdConnect scheme's discovery URL, and the scopes the
	// operations' requirements name for the scheme, in first use order.
	authURL, tokenURL string
	oidcURL           string
	scopes            []string
	// clientTokenURL is an oauth2 scheme's client credentials flow's
	// token URL: the connection's client gets tokens there on its own.
	clientTokenURL string
}

// readOpenAPI reads the document of def: a file path or an http(s) URL.
func readOpenAPI(ctx context.Context, client *http.Client, loc string) ([]byte, error) {
	if strings.HasPrefix(loc, "http://") || strings.HasPrefix(loc, "https://") {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, loc, nil)
		if err != nil {
			return nil, fmt.Errorf("fetching %s: %w", loc, err)
		}
		req.Header.Set("Accept", "application/json, application/yaml;q=0.9, */*;q=0.1")
		resp, err := client.Do(req)
		if err != nil {
			return nil, fmt.Errorf("fetching %s: %w", loc, err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("fetching %s: HTTP %s", loc, resp.Status)
		}
		if resp.ContentLength > maxOpenAPIDocument {
			return nil, openAPITooLarge(loc, resp.ContentLength)
		}
		return readDocument(resp.Body, loc, resp.ContentLength)
	}
	f, err := os.Open(expandHome(loc))
	if err != nil {
		return nil, fmt.Errorf("reading the OpenAPI document: %w", err)
	}
	defer f.Close()
	size := int64(-1)
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		if fi.Size() > maxOpenAPIDocument {
			return nil, openAPITooLarge(loc, fi.Size())
		}
		size = fi.Size()
	}
	return readDocument(f, loc, size)
}

// readDocument reads a document of at most maxOpenAPIDocument bytes; one
// that turns out longer (a file that grew, an answer without a length) is
// refused at that point.
//
// size is its length when known (a file's size, an answer's
// Content-Length), else -1: the buffer then holds it from the start
// instead of growing as io.ReadAll's does, which for GitHub's 13 MB
// copies and clears several times as much memory.
func readDocument(r io.Reader, loc string, size int64) ([]byte, error) {
	lr := io.LimitReader(r, maxOpenAPIDocument+1)
	if size < 0 || size > maxOpenAPIDocument {
		b, err := io.ReadAll(lr)
		return checkDocument(b, err, loc)
	}
	b := make([]byte, 0, size+1) // one more byte to see the end
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)] // longer than it said
		}
		n, err := lr.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return checkDocument(b, nil, loc)
		}
		if err != nil {
			return checkDocument(b, err, loc)
		}
	}
}

func checkDocument(b []byte, err error, loc string) ([]byte, error) {
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", loc, err)
	}
	if int64(len(b)) > maxOpenAPIDocument {
		return nil, &openapiDocError{Loc: loc, Problem: fmt.Sprintf("it is longer than %d MB, %s", maxOpenAPIDocument>>20, openAPIDocLimitWords)}
	}
	return b, nil
}

func openAPITooLarge(loc string, size int64) error {
	return &openapiDocError{Loc: loc, Problem: fmt.Sprintf("it is %s, above %d MB, %s; nothing of it was read", config.HumanBytes(size), maxOpenAPIDocument>>20, openAPIDocLimitWords)}
}

func readBounded(r io.Reader, max int64, what string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", what, err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is larger than %d MB", what, max>>20)
	}
	return b, nil
}

// expandHome turns a leading "~/" into the home folder.
func expandHome(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return p
}

// openapiDocError is a document that cannot be served, with where and why.
type openapiDocError struct {
	Loc     string // the file or URL
	Problem string
}

func (e *openapiDocError) Error() string { return e.Loc + ": " + e.Problem }

// parseOpenAPI builds the tools and operations of the document data, read
// from loc (named in errors; a URL also resolves relative server URLs).
func parseOpenAPI(loc string, data []byte) (*openapiDoc, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '{' {
		// Checked whole before anything is decoded; nothing of it is
		// copied.
		if err := json.Unmarshal(trimmed, &struct{}{}); err != nil {
			return nil, &openapiDocError{Loc: loc, Problem: "not valid JSON: " + config.JSONProblem(trimmed, err)}
		}
	}
	cfg := datamodel.NewDocumentConfiguration()
	cfg.SkipExternalRefResolution = true
	// The index's diagnostics (every description, summary and enum of
	// the document, gathered for linters) are never read here; without
	// them GitHub's description parses in a tenth less time and memory.
	cfg.SkipMetadataCollection = true
	doc, err := libopenapi.NewDocumentWithConfiguration(data, cfg)
	if err != nil {
		return nil, &openapiDocError{Loc: loc, Problem: "not an OpenAPI document: " + oneLineErr(err)}
	}
	info := doc.GetSpecInfo()
	if problem := nestedTooDeep(info.RootNode); problem != "" {
		doc.Release()
		return nil, &openapiDocError{Loc: loc, Problem: problem}
	}
	if info.SpecFormat == datamodel.OAS2 || strings.HasPrefix(info.Version, "2") {
		return nil, &openapiDocError{Loc: loc, Problem: fmt.Sprintf("Swagger %s (OpenAPI 2) is not served; convert it to OpenAPI 3 (for example with npx swagger2openapi) and point the source at the result", info.Version)}
	}
	model, err := doc.BuildV3Model()
	if model == nil {
		return nil, &openapiDocError{Loc: loc, Problem: "not a usable OpenAPI 3 document: " + oneLineErr(err)}
	}
	// Other build errors (circular references among them) leave a usable
	// model; operations that cannot be served are skipped one by one.
	v30 := strings.HasPrefix(info.Version, "3.0")
	out := &openapiDoc{hash: hashOf(data), ops: map[string]*openapiOp{}, schemes: map[string]*openapiScheme{}}
	m := &model.Model
	components := map[string]*yaml.Node{}
	if m.Components != nil {
		if m.Components.Schemas != nil {
			for name, sp := range m.Components.Schemas.FromOldest() {
				if sp != nil && sp.GoLow() != nil {
					components[name] = sp.GoLow().GetValueNode()
				}
			}
		}
		if m.Components.SecuritySchemes != nil {
			for name, ss := range m.Components.SecuritySchemes.FromOldest() {
				if ss == nil {
					continue
				}
				sc := &openapiScheme{name: name, typ: ss.Type, in: ss.In, key: ss.Name, http: strings.ToLower(ss.Scheme)}
				if f := ss.Flows; f != nil && f.AuthorizationCode != nil {
					sc.authURL, sc.tokenURL = absoluteURL(f.AuthorizationCode.AuthorizationUrl), absoluteURL(f.AuthorizationCode.TokenUrl)
				}
				if f := ss.Flows; f != nil && f.ClientCredentials != nil {
					sc.clientTokenURL = absoluteURL(f.ClientCredentials.TokenUrl)
				}
				sc.oidcURL = absoluteURL(ss.OpenIdConnectUrl)
				out.schemes[name] = sc
			}
		}
	}
	out.server, out.serverProblem = serverURL(loc, m.Servers)
	w := newSchemaWriter(components, v30)
	names := map[string]bool{}
	var written int64 // bytes of the schemas kept so far
	var built int64   // and written, kept or not
	if m.Paths != nil && m.Paths.PathItems != nil {
		for path, item := range m.Paths.PathItems.FromOldest() {
			if item == nil {
				continue
			}
			for method, op := range item.GetOperations().FromOldest() {
				if op == nil {
					continue
				}
				method = strings.ToUpper(method)
				name := op.OperationId
				if name == "" || names[name] {
					name = method + " " + path
				}
				if names[name] {
					out.skipped = append(out.skipped, fmt.Sprintf("skipped %s %s: its operationId %q is used twice", method, path, op.OperationId))
					continue
				}
				tool, o, problem := buildOperation(w, m, out.schemes, loc, path, method, item, op)
				if problem != "" {
					out.skipped = append(out.skipped, fmt.Sprintf("skipped %s %s: %s", method, path, problem))
					continue
				}
				if built += schemaBytes(tool) + w.takeUnwritten(); built > maxOpenAPIBuilt {
					doc.Release()
					return nil, &openapiDocError{Loc: loc, Problem: fmt.Sprintf("the schemas written for its operations pass %d MB at %s %s (%s); nothing of it is served", maxOpenAPIBuilt>>20, method, path, openAPIBuiltWords)}
				}
				if res, ok := tool.OutputSchema.(json.RawMessage); ok && len(res) > maxOpenAPIResult {
					// Calls need the input; the result's type only
					// describes what comes back.
					tool.OutputSchema = nil
					out.untyped++
				}
				n := schemaBytes(tool)
				if n > maxOpenAPIOpSchemas {
					out.skipped = append(out.skipped, fmt.Sprintf("skipped %s %s: its schemas are %s, above %s, %s", method, path, config.HumanBytes(n), config.HumanBytes(maxOpenAPIOpSchemas), openAPIOpSchemaWords))
					continue
				}
				written += n
				if written > maxOpenAPIDocSchemas {
					doc.Release()
					return nil, &openapiDocError{Loc: loc, Problem: fmt.Sprintf("the schemas of its operations pass %d MB at %s %s (%s); nothing of it is served", maxOpenAPIDocSchemas>>20, method, path, openAPIDocSchemaWords)}
				}
				tool.Name = name
				names[name] = true
				out.tools = append(out.tools, tool)
				out.ops[name] = o
				_, scopes := securityScopes(m.Security, op)
				for scheme, want := range scopes {
					if sc := out.schemes[scheme]; sc != nil {
						for _, w := range want {
							if !slices.Contains(sc.scopes, w) && len(sc.scopes) < maxSchemeScopes {
								sc.scopes = append(sc.scopes, w)
							}
						}
					}
				}
			}
		}
	}
	doc.Release()
	return out, nil
}

// schemeKey reports whether a parameter in in named name sits where an
// apiKey security scheme of the document puts its key. Some documents
// list the key as a parameter of every operation as well (Trello's key
// and token, the FEC's api_key): served as one, it would ask the model
// for a secret it must not hold, and the hub refuses a call that sets
// what the connection's credentials set. The connection fills it.
func schemeKey(schemes map[string]*openapiScheme, in, name string) bool {
	for _, s := range schemes {
		if s.typ != "apiKey" || !strings.EqualFold(s.in, in) {
			continue
		}
		if s.key == name || in == "header" && strings.EqualFold(s.key, name) {
			return true
		}
	}
	return false
}

// oneLineErr is err's message on one line, at most 500 bytes.
func oneLineErr(err error) string {
	if err == nil {
		return "unknown problem"
	}
	msg := strings.Join(strings.Fields(err.Error()), " ")
	return secrets.Cap(msg, 500)
}

// serverURL is the base URL of the first server, variables at their
// defaults, resolved against the document's URL when relative.
func serverURL(loc string, servers []*v3.Server) (string, string) {
	if len(servers) == 0 {
		if strings.HasPrefix(loc, "http://") || strings.HasPrefix(loc, "https://") {
			u, err := url.Parse(loc)
			if err == nil {
				return u.Scheme + "://" + u.Host, ""
			}
		}
		return "", "the document names no server; set \"baseUrl\" on the source"
	}
	s := servers[0]
	raw := s.URL
	if s.Variables != nil {
		for name, v := range s.Variables.FromOldest() {
			if v != nil {
				raw = strings.ReplaceAll(raw, "{"+name+"}", v.Default)
			}
		}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Sprintf("its server URL %q does not parse; set \"baseUrl\" on the source", s.URL)
	}
	if !u.IsAbs() {
		base, berr := url.Parse(loc)
		if berr != nil || (base.Scheme != "http" && base.Scheme != "https") {
			return "", fmt.Sprintf("its server URL %q is relative; set \"baseUrl\" on the source", s.URL)
		}
		u = base.ResolveReference(u)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Sprintf("its server URL %q is not http or https; set \"baseUrl\" on the source", s.URL)
	}
	return strings.TrimRight(u.String(), "/"), ""
}

// buildOperation makes the tool and the call plan of one operation, or
// says why it cannot be served: among others a path that does not start
// with "/" or has a "." or ".." segment. A parameter
// where one of the document's API key schemes puts its key is left out
// (schemeKey), and one that says it authenticates the operation
// (authParam), and so is a body property marked readOnly (schema.go),
// though it goes in the body when given.
func buildOperation(w *schemaWriter, m *v3.Document, schemes map[string]*openapiScheme, loc, path, method string, item *v3.PathItem, op *v3.Operation) (*mcp.Tool, *openapiOp, string) {
	o := &openapiOp{method: method, path: path, deprecated: op.Deprecated != nil && *op.Deprecated}
	if problem := pathTemplateProblem(path); problem != "" {
		return nil, nil, "its path " + problem
	}
	switch {
	case len(op.Servers) > 0:
		o.server, _ = serverURL(loc, op.Servers)
	case len(item.Servers) > 0:
		o.server, _ = serverURL(loc, item.Servers)
	}
	// One whose server is on another origin than the document's is served
	// only to a source whose "origins" lists it (servedTools).
	// Parameters: the path item's, overridden by the operation's of the
	// same name and place.
	var params []*v3.Parameter
	idx := map[[2]string]int{}
	for _, list := range [][]*v3.Parameter{item.Parameters, op.Parameters} {
		for _, p := range list {
			if p == nil || p.Name == "" {
				continue
			}
			k := [2]string{p.In, p.Name}
			if i, ok := idx[k]; ok {
				params[i] = p
				continue
			}
			idx[k] = len(params)
			params = append(params, p)
		}
	}
	w.reset(sideRequest)
	var props bytes.Buffer
	var required []string
	taken := map[string]bool{}
	addProp := func(name string, schema []byte) {
		if props.Len() > 0 {
			props.WriteByte(',')
		}
		writeJSONString(&props, name)
		props.WriteByte(':')
		props.Write(schema)
		taken[name] = true
	}
	// Whether the operation declares how it is authenticated (authParam).
	secured := slices.ContainsFunc(securityOf(m.Security, op), func(alt []string) bool { return len(alt) > 0 })
	for _, p := range params {
		in := strings.ToLower(p.In)
		switch in {
		case "path", "query", "header", "cookie":
		default:
			return nil, nil, fmt.Sprintf("parameter %q is in %q", p.Name, p.In)
		}
		if in == "header" && (strings.EqualFold(p.Name, "Accept") || strings.EqualFold(p.Name, "Content-Type") || strings.EqualFold(p.Name, "Authorization")) {
			continue // the hub sets these (OpenAPI says they are ignored)
		}
		if schemeKey(schemes, in, p.Name) || authParam(in, p.Name, p.Description, secured) {
			continue // the connection's credential, never the model's
		}
		arg := p.Name
		if taken[arg] {
			arg = p.Name + "_" + in
			if taken[arg] {
				return nil, nil, fmt.Sprintf("parameter %q is defined twice", p.Name)
			}
		}
		param := openapiParam{name: p.Name, arg: arg, in: in, style: p.Style}
		if param.style == "" {
			param.style = map[string]string{"path": "simple", "query": "form", "header": "simple", "cookie": "form"}[in]
		}
		param.explode = param.style == "form"
		if p.Explode != nil {
			param.explode = *p.Explode
		}
		var node *yaml.Node
		ref := ""
		if p.Schema != nil && p.Schema.GoLow() != nil {
			node, ref = p.Schema.GoLow().GetValueNode(), p.Schema.GetReference()
		} else if p.Content != nil {
			for mt, media := range p.Content.FromOldest() {
				if isJSONMedia(mt) && media != nil && media.Schema != nil && media.Schema.GoLow() != nil {
					node = media.Schema.GoLow().GetValueNode()
					param.json = true
					break
				}
			}
			if !param.json {
				return nil, nil, fmt.Sprintf("parameter %q has no schema and no JSON content", p.Name)
			}
		}
		schema := withDescription(w.schemaOrRef(node, ref), p.Description)
		if p.Deprecated {
			schema = markDeprecated(schema)
		}
		addProp(arg, schema)
		if in == "path" || (p.Required != nil && *p.Required) {
			required = append(required, arg)
		}
		o.params = append(o.params, param)
	}
	if rb := op.RequestBody; rb != nil && rb.Content != nil && rb.Content.Len() > 0 {
		o.bodyRequired = rb.Required != nil && *rb.Required
		var node *yaml.Node
		bodyRef := ""
		// JSON first; a URL-encoded form when the operation takes no JSON.
		var chosen *v3.MediaType
		for mt, media := range rb.Content.FromOldest() {
			if isJSONMedia(mt) && media != nil {
				o.bodyType, chosen = mt, media
				break
			}
		}
		if o.bodyType == "" {
			for mt, media := range rb.Content.FromOldest() {
				if isFormMedia(mt) && media != nil {
					o.bodyType, chosen = formMedia, media
					break
				}
			}
		}
		if o.bodyType == "" {
			// Then multipart/form-data of an object's properties: each
			// a part, a file given as its name and base64 bytes. A
			// schema of no properties names no part (Jira's attachments
			// declare one string).
			for mt, media := range rb.Content.FromOldest() {
				if isMultipartMedia(mt) && media != nil && media.Schema != nil && media.Schema.GoLow() != nil && objectProperties(w.resolve(media.Schema.GoLow().GetValueNode())) != nil {
					o.bodyType, chosen = multipartMedia, media
					break
				}
			}
		}
		if o.bodyType == "" {
			// Text (GitHub's markdown/render-raw takes text/plain): one
			// string, sent as it is.
			for mt, media := range rb.Content.FromOldest() {
				if t := textMedia(mt); t != "" && media != nil {
					o.bodyType = t
					break
				}
			}
		}
		if o.bodyType == "" {
			// Bytes (GitHub's release assets take
			// application/octet-stream): one string of base64, sent
			// decoded.
			for mt, media := range rb.Content.FromOldest() {
				if t := binaryMedia(mt); t != "" && media != nil {
					o.bodyType = t
					break
				}
			}
		}
		if chosen != nil && chosen.Schema != nil && chosen.Schema.GoLow() != nil {
			node = chosen.Schema.GoLow().GetValueNode()
			bodyRef = chosen.Schema.GetReference()
		}
		// bodyArgument makes the body one argument, "body" or, when a
		// parameter has that name, "requestBody"; false when both are
		// taken. The document's description of the body wins over desc.
		bodyArgument := func(schema []byte, desc string) bool {
			o.bodyArg = "body"
			if taken[o.bodyArg] {
				o.bodyArg = "requestBody"
			}
			if taken[o.bodyArg] {
				return false
			}
			if rb.Description != "" {
				desc = rb.Description
			}
			addProp(o.bodyArg, withDescription(schema, desc))
			if o.bodyRequired {
				required = append(required, o.bodyArg)
			}
			return true
		}
		switch {
		case textMedia(o.bodyType) != "":
			o.hasBody = true
			if !bodyArgument([]byte(`{"type":"string"}`), "The request body, as "+o.bodyType+".") {
				return nil, nil, "the request body's name collides with its parameters"
			}
		case binaryMedia(o.bodyType) != "":
			o.hasBody = true
			if !bodyArgument([]byte(`{"type":"string","contentEncoding":"base64","contentMediaType":`+strconv.Quote(o.bodyType)+`}`), "The request body's bytes, as "+o.bodyType+", base64-encoded.") {
				return nil, nil, "the request body's name collides with its parameters"
			}
		case o.bodyType != "":
			o.hasBody = true
			switch obj := w.resolve(node); {
			case closedEmpty(obj):
				// An object that may hold nothing (Stripe's GETs declare
				// such a form): no argument; a required one goes empty.
			case objectProperties(obj) != nil && !w.collides(objectProperties(obj), taken):
				pr := objectProperties(obj)
				req := map[string]bool{}
				if o.bodyRequired {
					if r := mappingGet(obj, "required"); r != nil && r.Kind == yaml.SequenceNode {
						for _, c := range r.Content {
							req[c.Value] = true
						}
					}
				}
				for i := 0; i+1 < len(pr.Content); i += 2 {
					name := pr.Content[i].Value
					// A readOnly property is no argument, but one given
					// still goes in the body as before, unless a
					// parameter takes its name.
					hidden := w.leftOut(pr.Content[i+1])
					if hidden {
						w.skip(name)
						if taken[name] {
							continue
						}
					}
					var schema json.RawMessage
					if !hidden {
						schema = w.schema(pr.Content[i+1])
					}
					var field openapiParam
					switch o.bodyType {
					case formMedia:
						field = formField(name, chosen)
					case multipartMedia:
						field = multipartField(name, chosen)
						if many, ok := w.fileSchema(pr.Content[i+1]); ok {
							field.file = true
							desc := ""
							if d := mappingGet(w.resolve(pr.Content[i+1]), "description"); d != nil {
								desc = d.Value
							}
							schema = withDescription(fileArgSchema(many), desc)
						}
					}
					o.bodyProps = append(o.bodyProps, name)
					if o.bodyType == formMedia || o.bodyType == multipartMedia {
						o.form = append(o.form, field)
					}
					if hidden {
						continue
					}
					addProp(name, schema)
					if req[name] {
						required = append(required, name)
					}
				}
			default:
				if !bodyArgument(w.schemaOrRef(node, bodyRef), "The request body.") {
					return nil, nil, "the request body's name collides with its parameters"
				}
			}
		case o.bodyRequired:
			var types []string
			for mt := range rb.Content.KeysFromOldest() {
				types = append(types, mt)
			}
			return nil, nil, "its request body is " + strings.Join(types, ", ") + ", neither JSON, a form, text nor bytes of one type"
		}
	}
	var in bytes.Buffer
	in.WriteString(`{"type":"object","properties":{`)
	in.Write(props.Bytes())
	in.WriteString("}")
	if len(required) > 0 {
		r, _ := json.Marshal(required)
		in.WriteString(`,"required":`)
		in.Write(r)
	}
	if d := w.defs(); d != nil {
		in.WriteString(`,"$defs":`)
		in.Write(d)
	}
	in.WriteString("}")

	tool := &mcp.Tool{
		Title:       strings.TrimSpace(op.Summary),
		Description: operationDescription(op),
		InputSchema: json.RawMessage(in.Bytes()),
		Annotations: methodAnnotations(method),
	}
	if out := responseSchema(w, op); out != nil {
		tool.OutputSchema = out
	}
	o.security = securityOf(m.Security, op)
	return tool, o, ""
}

// responseSchema is the JSON Schema of the first 2xx JSON response, with
// its own $defs; nil when there is none.
func responseSchema(w *schemaWriter, op *v3.Operation) json.RawMessage {
	if op.Responses == nil || op.Responses.Codes == nil {
		return nil
	}
	var codes []string
	for code := range op.Responses.Codes.KeysFromOldest() {
		if strings.HasPrefix(code, "2") {
			codes = append(codes, code)
		}
	}
	sort.Strings(codes) // 200 before 201 before 2XX
	for _, code := range codes {
		r := op.Responses.Codes.GetOrZero(code)
		if r == nil || r.Content == nil {
			continue
		}
		for mt, media := range r.Content.FromOldest() {
			if !isJSONMedia(mt) || media == nil || media.Schema == nil || media.Schema.GoLow() == nil {
				continue
			}
			node := media.Schema.GoLow().GetValueNode()
			write := func(budget int) (json.RawMessage, bool) {
				w.reset(sideResult)
				var s json.RawMessage
				// libopenapi hands a top-level reference resolved; its
				// name is kept beside it.
				if name := w.componentOf(node, media.Schema.GetReference()); name != "" {
					// A component's own name names the result type.
					s = w.schema(w.components[name])
					if mappingGet(w.components[name], "title") == nil {
						if title := pascal(name); title != "" {
							s = appendKey(s, "title", mustJSON(title))
						}
					}
				} else {
					s = w.schema(node)
				}
				d, partial := w.defsWithin(budget - len(s) - len(`,"$defs":`))
				if d != nil {
					s = appendKey(s, "$defs", d)
				}
				return s, partial
			}
			// A result whose types pass maxOpenAPIResult (Stripe's
			// expandable objects reach most of the API) is declared in
			// part, its nearest components within maxOpenAPIResultPart:
			// describe could show no more in its budget.
			s, partial := write(maxOpenAPIResult)
			if partial {
				w.unwritten += int64(len(s))
				s, _ = write(maxOpenAPIResultPart)
			}
			return s
		}
	}
	return nil
}

// appendKey adds "key": val to the JSON object s (a schema). A schema that
// is not an object ({"$ref"} is one) is wrapped in allOf.
func appendKey(s json.RawMessage, key string, val json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(s)
	if len(t) < 2 || t[0] != '{' {
		return s
	}
	var b bytes.Buffer
	b.Write(t[:len(t)-1])
	if len(bytes.TrimSpace(t[1:len(t)-1])) > 0 {
		b.WriteByte(',')
	}
	writeJSONString(&b, key)
	b.WriteByte(':')
	b.Write(val)
	b.WriteByte('}')
	return b.Bytes()
}

// withDescription puts desc first in schema s, so a description the schema
// has itself wins.
func withDescription(s json.RawMessage, desc string) json.RawMessage {
	desc = strings.TrimSpace(desc)
	t := bytes.TrimSpace(s)
	if desc == "" || len(t) < 2 || t[0] != '{' {
		return s
	}
	var b bytes.Buffer
	b.WriteString(`{"description":`)
	writeJSONString(&b, desc)
	if rest := bytes.TrimSpace(t[1 : len(t)-1]); len(rest) > 0 {
		b.WriteByte(',')
		b.Write(rest)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// markDeprecated adds JSON Schema's "deprecated": true to the object
// schema s (a parameter the document marks deprecated, which describe then
// marks @deprecated), unless s says deprecated itself.
func markDeprecated(s json.RawMessage) json.RawMessage {
	var keys map[string]json.RawMessage
	if json.Unmarshal(s, &keys) != nil || keys == nil || keys["deprecated"] != nil {
		return s
	}
	return appendKey(s, "deprecated", json.RawMessage("true"))
}

// resolve follows component references from n, a few at most.
func (w *schemaWriter) resolve(n *yaml.Node) *yaml.Node {
	for range 8 {
		r := mappingGet(n, "$ref")
		if r == nil {
			return n
		}
		name, ok := strings.CutPrefix(r.Value, componentSchemaPrefix)
		if !ok {
			return nil
		}
		n = w.components[unescapePointer(name)]
	}
	return nil
}

// objectProperties returns the properties of a plain object schema (one
// without combinators), or nil.
func objectProperties(n *yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf", "$ref"} {
		if mappingGet(n, k) != nil {
			return nil
		}
	}
	if t := mappingGet(n, "type"); t != nil && t.Value != "object" {
		return nil
	}
	p := mappingGet(n, "properties")
	if p == nil || p.Kind != yaml.MappingNode || len(p.Content) == 0 {
		return nil
	}
	return p
}

// closedEmpty reports whether schema n is an object with no properties
// that allows no others: {"type":"object","properties":{},
// "additionalProperties":false}.
func closedEmpty(n *yaml.Node) bool {
	if n == nil || n.Kind != yaml.MappingNode {
		return false
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf", "$ref", "patternProperties"} {
		if mappingGet(n, k) != nil {
			return false
		}
	}
	if t := mappingGet(n, "type"); t == nil || t.Value != "object" {
		return false
	}
	if p := mappingGet(n, "properties"); p != nil && (p.Kind != yaml.MappingNode || len(p.Content) > 0) {
		return false
	}
	a := mappingGet(n, "additionalProperties")
	return a != nil && a.Kind == yaml.ScalarNode && a.Value == "false"
}

// collides reports whether a property of props, one not left out of the
// arguments, is named as an argument already taken.
func (w *schemaWriter) collides(props *yaml.Node, taken map[string]bool) bool {
	for i := 0; i+1 < len(props.Content); i += 2 {
		if taken[props.Content[i].Value] && !w.leftOut(props.Content[i+1]) {
			return true
		}
	}
	return false
}

// formMedia is the media type of a URL-encoded form body.
const formMedia = "application/x-www-form-urlencoded"

// isFormMedia reports whether a media type is a URL-encoded form.
func isFormMedia(mt string) bool {
	mt, _, _ = strings.Cut(strings.ToLower(strings.TrimSpace(mt)), ";")
	return strings.TrimSpace(mt) == formMedia
}

// textMedia is mt, lower-cased and without its parameters, when it is a
// text type (text/plain, text/markdown, text/csv...); "" otherwise.
func textMedia(mt string) string {
	mt, _, _ = strings.Cut(strings.ToLower(strings.TrimSpace(mt)), ";")
	mt = strings.TrimSpace(mt)
	if rest, ok := strings.CutPrefix(mt, "text/"); ok && rest != "" && !strings.ContainsAny(rest, "*/ ") {
		return mt
	}
	return ""
}

// multipartMedia is the media type of a multipart form body.
const multipartMedia = "multipart/form-data"

// isMultipartMedia reports whether a media type is a multipart form.
func isMultipartMedia(mt string) bool {
	t, _, err := mime.ParseMediaType(mt)
	return err == nil && t == multipartMedia
}

// multipartField is how the multipart body's property name is sent: a
// part of its own, a file when fileSchema says so, with the media type
// the encoding gives it; an encoding's style (Stripe's deepObject) sends
// the pairs a form would write, each a part.
func multipartField(name string, media *v3.MediaType) openapiParam {
	p := formField(name, media)
	p.in = "multipart"
	if media == nil || media.Encoding == nil {
		return p
	}
	if e, ok := media.Encoding.Get(name); ok && e != nil {
		p.styled = e.Style != ""
		if ct, _, _ := strings.Cut(e.ContentType, ","); ct != "" {
			if t, _, err := mime.ParseMediaType(strings.TrimSpace(ct)); err == nil && !strings.Contains(t, "*") {
				p.contentType = t
			}
		}
	}
	return p
}

// fileSchema reports whether a multipart property is a file, and whether
// a list of them: a string of format binary, or with a contentMediaType
// (OpenAPI 3.1), or an array of such.
func (w *schemaWriter) fileSchema(n *yaml.Node) (many, ok bool) {
	n = w.resolve(n)
	if t := mappingGet(n, "type"); t != nil && t.Value == "array" {
		_, ok := w.fileSchema(mappingGet(n, "items"))
		return true, ok
	}
	if f := mappingGet(n, "format"); f != nil && f.Value == "binary" {
		return false, true
	}
	if mappingGet(n, "contentMediaType") != nil && mappingGet(n, "contentEncoding") == nil {
		return false, true
	}
	return false, false
}

// fileArgSchema is the argument a multipart file takes, or a list of them.
func fileArgSchema(many bool) json.RawMessage {
	const file = `{"type":"object","properties":{"filename":{"type":"string","description":"The file's name, as the API will know it."},"base64":{"type":"string","contentEncoding":"base64","description":"The file's bytes, base64-encoded."},"contentType":{"type":"string","description":"Its media type; application/octet-stream when left out."}},"required":["filename","base64"],"additionalProperties":false}`
	if many {
		return json.RawMessage(`{"type":"array","items":` + file + `}`)
	}
	return json.RawMessage(file)
}

// binaryMedia is mt, lower-cased and without its parameters, when a body
// of that type is bytes given whole (application/octet-stream, image/png,
// application/zip...); "" for JSON, a form, text, multipart, XML, a
// wildcard or what does not parse as a media type.
func binaryMedia(mt string) string {
	t, _, err := mime.ParseMediaType(mt)
	if err != nil || isJSONMedia(t) || isFormMedia(t) || textMedia(t) != "" {
		return ""
	}
	typ, sub, _ := strings.Cut(t, "/")
	if typ == "multipart" || typ == "*" || sub == "*" || sub == "xml" || strings.HasSuffix(sub, "+xml") {
		return ""
	}
	return t
}

// formField is how the form body property name is written: as a query
// parameter of style form, exploded, unless the media type's encoding for
// it says another style or explode (OpenAPI 3's Encoding Object); a
// property whose encoding's content type is JSON goes as JSON text.
func formField(name string, media *v3.MediaType) openapiParam {
	p := openapiParam{name: name, arg: name, in: "form", style: "form", explode: true}
	if media == nil || media.Encoding == nil {
		return p
	}
	e, ok := media.Encoding.Get(name)
	if !ok || e == nil {
		return p
	}
	switch e.Style {
	case "form", "spaceDelimited", "pipeDelimited", "deepObject":
		p.style = e.Style
		p.explode = p.style == "form"
	}
	if e.Explode != nil {
		p.explode = *e.Explode
	}
	if ct, _, _ := strings.Cut(e.ContentType, ","); isJSONMedia(ct) && !strings.Contains(ct, "*") {
		p.json = true
	}
	return p
}

// isJSONMedia reports whether a media type is JSON (application/json,
// application/vnd.github+json, application/problem+json...).
func isJSONMedia(mt string) bool {
	mt, _, _ = strings.Cut(strings.ToLower(strings.TrimSpace(mt)), ";")
	mt = strings.TrimSpace(mt)
	return mt == "application/json" || strings.HasSuffix(mt, "+json") || mt == "*/*" || mt == "application/*"
}

// operationDescription is the summary and the description (HTML made
// plain text), the summary first so search's one-line view shows it. A description that starts
// with the summary already says it first ("List public gists" and "List
// public gists sorted by most recently updated...") and is kept whole.
func operationDescription(op *v3.Operation) string {
	sum, desc := strings.TrimSpace(plainText(op.Summary)), strings.TrimSpace(plainText(op.Description))
	switch {
	case sum == "" || strings.HasPrefix(desc, sum):
		return desc
	case desc == "":
		return sum
	}
	if !strings.HasSuffix(sum, ".") {
		sum += "."
	}
	return sum + "\n\n" + desc
}

// methodAnnotations says what the method promises: GET and HEAD read and
// may be repeated, PUT and DELETE may be repeated, DELETE destroys.
func methodAnnotations(method string) *mcp.ToolAnnotations {
	no, yes := false, true
	a := &mcp.ToolAnnotations{OpenWorldHint: &yes, DestructiveHint: &no}
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		a.ReadOnlyHint, a.IdempotentHint, a.DestructiveHint = true, true, nil
	case http.MethodPut:
		a.IdempotentHint = true
	case http.MethodDelete:
		a.IdempotentHint, a.DestructiveHint = true, &yes
	}
	return a
}

// securityOf is the operation's security requirement (the document's when
// it has none of its own), as alternatives of scheme names.
func securityOf(docLevel []*highbase.SecurityRequirement, op *v3.Operation) [][]string {
	alts, _ := securityScopes(docLevel, op)
	return alts
}

// securityScopes is securityOf with the scopes each scheme of it names.
func securityScopes(docLevel []*highbase.SecurityRequirement, op *v3.Operation) ([][]string, map[string][]string) {
	reqs := docLevel
	if op.Security != nil {
		reqs = op.Security
	}
	if len(reqs) == 0 {
		return nil, nil
	}
	var alts [][]string
	var scopes map[string][]string
	for _, r := range reqs {
		if r == nil {
			continue
		}
		alt := []string{}
		if r.Requirements != nil {
			for name, sc := range r.Requirements.FromOldest() {
				alt = append(alt, name)
				if len(sc) > 0 {
					if scopes == nil {
						scopes = map[string][]string{}
					}
					scopes[name] = append(scopes[name], sc...)
				}
			}
		}
		alts = append(alts, alt)
	}
	return alts, scopes
}

// maxSchemeScopes bounds the scopes kept of one scheme: a sign-in asks
// for them all.
const maxSchemeScopes = 64

// absoluteURL is u when it is an absolute http(s) URL, else "": a flow's
// URL the hub would have to guess the base of is not used.
func absoluteURL(u string) string {
	p, err := url.Parse(strings.TrimSpace(u))
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return ""
	}
	return p.String()
}

// errNoOperation is a call of a tool the document no longer has.
var errNoOperation = errors.New("the OpenAPI document has no such operation (it may have changed); search again")

// componentOf is the component a schema node refers to, or "".
func (w *schemaWriter) componentOf(n *yaml.Node, ref string) string {
	if r := mappingGet(n, "$ref"); r != nil {
		ref = r.Value
	}
	esc, ok := strings.CutPrefix(ref, componentSchemaPrefix)
	if !ok || strings.Contains(esc, "/") {
		return ""
	}
	name := unescapePointer(esc)
	if w.components[name] == nil {
		return ""
	}
	return name
}

// pascal is a component name as a type name: "full-repository" ->
// "FullRepository".
func pascal(name string) string {
	c := naming.Camel(name)
	if c == "" || c[0] < 'a' || c[0] > 'z' {
		return c
	}
	return strings.ToUpper(c[:1]) + c[1:]
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// schemaOrRef writes a schema libopenapi handed over resolved, as the
// reference to its component when it was one (ref), so describe names it.
func (w *schemaWriter) schemaOrRef(n *yaml.Node, ref string) json.RawMessage {
	if ref != "" && w.componentOf(nil, ref) != "" {
		if r := w.ref(ref); r != "" {
			return mustJSON(map[string]string{"$ref": r})
		}
	}
	return w.schema(n)
}

// schemaBytes is the size of a tool's input and output schemas.
func schemaBytes(t *mcp.Tool) int64 {
	n := 0
	if in, ok := t.InputSchema.(json.RawMessage); ok {
		n += len(in)
	}
	if out, ok := t.OutputSchema.(json.RawMessage); ok {
		n += len(out)
	}
	return int64(n)
}

// nestedTooDeep says where the document nests past maxOpenAPIDepth levels
// of objects and arrays, or "". It looks no deeper than the limit, so its
// cost is bounded by the document's size; the place is spelled out only
// when there is one.
func nestedTooDeep(root *yaml.Node) string {
	var walk func(n *yaml.Node, depth int) (*yaml.Node, []string)
	walk = func(n *yaml.Node, depth int) (*yaml.Node, []string) {
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				if at, path := walk(c, depth); at != nil {
					return at, path
				}
			}
			return nil, nil
		case yaml.MappingNode, yaml.SequenceNode:
		default:
			return nil, nil
		}
		if depth >= maxOpenAPIDepth {
			return n, nil
		}
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				if at, path := walk(n.Content[i+1], depth+1); at != nil {
					return at, append(path, n.Content[i].Value)
				}
			}
			return nil, nil
		}
		for i, c := range n.Content {
			if at, path := walk(c, depth+1); at != nil {
				return at, append(path, strconv.Itoa(i))
			}
		}
		return nil, nil
	}
	if root == nil {
		return ""
	}
	at, path := walk(root, 0)
	if at == nil {
		return ""
	}
	var b strings.Builder
	esc := strings.NewReplacer("~", "~0", "/", "~1")
	for i := len(path) - 1; i >= 0; i-- {
		b.WriteString("/" + esc.Replace(path[i]))
	}
	where := b.String()
	if len(where) > 200 {
		where = strings.ToValidUTF8(where[:200], "") + "..."
	}
	return fmt.Sprintf("it nests objects and arrays more than %d levels deep at %s (line %d), %s", maxOpenAPIDepth, where, at.Line, openAPIDepthWords)
}
