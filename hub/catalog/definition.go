package catalog

// A tool's definition: what the store keeps of it, the hash the pins name,
// and, when a pinned definition differs from the current one, what
// changed, in one line.

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/store"
	"capabilities.sh/capabilities/hub/upstream"
	"capabilities.sh/capabilities/internal/jsonstr"
)

// toolDefinition is what the store keeps of a tool, and what its hash
// covers.
type toolDefinition struct {
	Name         string               `json:"name"`
	Title        string               `json:"title,omitempty"`
	Description  string               `json:"description,omitempty"`
	InputSchema  json.RawMessage      `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage      `json:"outputSchema,omitempty"`
	Annotations  *mcp.ToolAnnotations `json:"annotations,omitempty"`
	// Request is an OpenAPI operation's; an MCP tool has none, so its
	// definition and hash are what they were before requests were kept.
	Request *upstream.RESTRequest `json:"request,omitempty"`
}

// Definition is a listed tool's definition, as the store keeps it, and its
// hash, as pins name it. req is an OpenAPI operation's request, which the
// hash then covers too: a call that would go elsewhere, by another method
// or to another path is another definition. A schema that does not marshal
// is kept as null rather than dropping the tool.
//
// The hash is of the canonical form (keys sorted at every depth), so that
// the same definition listed with its keys in another order is the same;
// def keeps the schemas' members in the order they were listed, which is
// the order their authors mean them to be read in (an operation's
// parameters as its description lists them), and declarations follow it.
func Definition(t *mcp.Tool, req *upstream.RESTRequest) (def []byte, hash string, err error) {
	d := toolDefinition{Name: t.Name, Title: t.Title, Description: t.Description, Annotations: t.Annotations, Request: req}
	d.InputSchema = rawSchema(t.InputSchema)
	d.OutputSchema = rawSchema(t.OutputSchema)
	def, unsorted, err := d.encode(false)
	canon := def
	if err == nil && unsorted {
		canon, _, err = d.encode(true)
	}
	if err != nil {
		return nil, "", fmt.Errorf("tool %q: %w", t.Name, err)
	}
	sum := sha256.Sum256(canon)
	return def, hex.EncodeToString(sum[:]), nil
}

// canonical is canonicalJSON(d).
func (d *toolDefinition) canonical() ([]byte, error) {
	b, _, err := d.encode(true)
	return b, err
}

// encode writes d member by member in key order, so that the schemas, most
// of its bytes, are read once: as canonicalJSON(d) when sorted, else with
// the schemas' members in the order they came. unsorted reports whether
// some object of theirs came out of key order: when none did, both ways
// write the same bytes.
func (d *toolDefinition) encode(sorted bool) (b []byte, unsorted bool, err error) {
	c := canonicalizer{out: make([]byte, 0, 256+len(d.Description)+len(d.InputSchema)+len(d.OutputSchema)), listed: !sorted}
	sep := byte('{')
	key := func(k string) {
		c.out = append(c.out, sep, '"')
		c.out = append(c.out, k...)
		c.out = append(c.out, '"', ':')
		sep = ','
	}
	raw := func(k string, doc []byte) {
		key(k)
		c.in, c.pos = doc, 0
		c.value()
	}
	str := func(k, s string) {
		key(k)
		c.out = jsonstr.Append(c.out, s)
	}
	marshalled := func(k string, v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		raw(k, b)
		return nil
	}
	if d.Annotations != nil {
		if err := marshalled("annotations", d.Annotations); err != nil {
			return nil, false, err
		}
	}
	if d.Description != "" {
		str("description", d.Description)
	}
	if len(d.InputSchema) > 0 {
		raw("inputSchema", d.InputSchema)
	}
	str("name", d.Name)
	if len(d.OutputSchema) > 0 {
		raw("outputSchema", d.OutputSchema)
	}
	if d.Request != nil {
		if err := marshalled("request", d.Request); err != nil {
			return nil, false, err
		}
	}
	if d.Title != "" {
		str("title", d.Title)
	}
	return append(c.out, '}'), c.unsorted, nil
}

// definedTool is a listed tool's definition (Definition), with the
// request it carries when its source is an OpenAPI one. def is nil when
// the tool's listed digest says it is the definition with hash listed
// before (defineAll), and the caller computes it only if it needs it.
type definedTool struct {
	req    *upstream.RESTRequest
	def    []byte
	hash   string
	err    error
	digest listedDigest
}

// listedDigest is a SHA-256 over what a listed tool's definition is made
// of, as listed: its name, title, description, annotations and request,
// and its schemas' bytes as they came. Definition is a function of those,
// so the same digest is the same definition; it is cheap where computing
// the canonical form is not (GitHub's 7 MB of schemas). Zero for a tool
// whose schemas did not come as bytes (a page of an MCP listing whose
// bytes the transport did not keep is decoded into maps: listExact).
type listedDigest [sha256.Size]byte

// knownDigest is the digest of a tool's listing and the hash of its
// definition.
type knownDigest struct {
	digest listedDigest
	hash   string
}

func digestOf(t *mcp.Tool, req *upstream.RESTRequest) (listedDigest, bool) {
	raw := func(v any) ([]byte, bool) {
		switch s := v.(type) {
		case nil:
			return nil, true
		case json.RawMessage:
			return s, true
		}
		return nil, false
	}
	in, ok1 := raw(t.InputSchema)
	out, ok2 := raw(t.OutputSchema)
	ann, err1 := json.Marshal(t.Annotations)
	rq, err2 := json.Marshal(req)
	if !ok1 || !ok2 || err1 != nil || err2 != nil {
		return listedDigest{}, false
	}
	h := sha256.New()
	for _, part := range [][]byte{[]byte(t.Name), []byte(t.Title), []byte(t.Description), in, out, ann, rq} {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(part)))
		h.Write(n[:])
		h.Write(part)
	}
	var d listedDigest
	h.Sum(d[:0])
	return d, true
}

// defineAll is the definition of each of tools, in their order; none for
// a nil or unnamed tool. Encoding and hashing them is most of the time a
// large catalog takes to be stored (GitHub's 1,222 operations), and each
// is its own, so they are shared among as many goroutines as the process
// runs at once, each taking the next tool. A tool listed as it was before
// (known, by name) gets the hash it had and no def.
func defineAll(tools []*mcp.Tool, rest bool, known map[string]knownDigest) []definedTool {
	out := make([]definedTool, len(tools))
	eachAtOnce(len(tools), func(i int) {
		t, d := tools[i], &out[i]
		if t == nil || t.Name == "" {
			return
		}
		if rest {
			d.req = restRequestOf(t)
		}
		if dg, ok := digestOf(t, d.req); ok {
			d.digest = dg
			if k, ok := known[t.Name]; ok && k.digest == dg {
				d.hash = k.hash
				return
			}
		}
		d.def, d.hash, d.err = Definition(t, d.req)
	})
	return out
}

// eachAtOnce calls fn for each of 0..n-1, shared among as many goroutines
// as the process runs at once (one for fewer than 128), each taking the
// next; it returns when all are done.
func eachAtOnce(n int, fn func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, min(runtime.GOMAXPROCS(0), n/64)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				fn(i)
			}
		}()
	}
	wg.Wait()
}

// DefinitionJSON is the tool's current definition in canonical form (the
// form its hash is of), for a person to compare with PinnedDefinition.
func (t *Tool) DefinitionJSON() (json.RawMessage, error) {
	return canonicalJSON(toolDefinition{Name: t.Name, Title: t.Title, Description: t.Description,
		InputSchema: t.InputSchema, OutputSchema: t.OutputSchema, Annotations: t.Annotations, Request: t.Request})
}

func rawSchema(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	if raw, ok := v.(json.RawMessage); ok && raw != nil && json.Valid(raw) {
		return raw // json.Marshal would only check and compact it
	}
	b, err := json.Marshal(v)
	if err != nil || !json.Valid(b) {
		return json.RawMessage("null")
	}
	return b
}

// pinnedChange says, in one line, what differs between the pinned
// definition (pinnedDef, its JSON, when it was kept) and cur; "" when the
// tool is pinned to cur or to nothing.
func pinnedChange(pinned, hash string, pinnedDef []byte, cur *toolDefinition) string {
	if pinned == "" || pinned == hash {
		return ""
	}
	pinned, moved := strings.CutPrefix(pinned, store.MovedPin)
	switch {
	case pinned == store.UnseenPin:
		return "its pin was dropped with its source's oldest (the source retired more tools than the hub keeps pins of)"
	case moved && pinned == hash:
		return "its source's server or program changed"
	case moved:
		return "its source's server or program changed, and " + pinnedChange(pinned, hash, pinnedDef, cur)
	}
	var old toolDefinition
	if pinnedDef == nil || json.Unmarshal(pinnedDef, &old) != nil {
		return "its definition changed (the accepted one was not kept)"
	}
	var parts []string
	if old.Title != cur.Title {
		parts = append(parts, "title")
	}
	if old.Description != cur.Description {
		parts = append(parts, "description")
	}
	if a := annotationsChange(old.Annotations, cur.Annotations); a != "" {
		parts = append(parts, a)
	}
	if !sameJSON(old.InputSchema, cur.InputSchema) {
		parts = append(parts, "input schema")
	}
	if !sameJSON(old.OutputSchema, cur.OutputSchema) {
		parts = append(parts, "output schema")
	}
	if o, c := old.Request, cur.Request; o != nil && c != nil {
		for _, f := range []struct{ name, was, is string }{{"method", o.Method, c.Method}, {"path", o.Path, c.Path}, {"server", o.Server, c.Server}} {
			if f.was != f.is {
				parts = append(parts, fmt.Sprintf("%s (%s to %s)", f.name, f.was, f.is))
			}
		}
	}
	mark := ""
	if o, c := old.Request, cur.Request; o != nil && c != nil && o.Deprecated != c.Deprecated {
		// Never alone: a pin that differs only by the mark moves to the
		// new definition (migrateRESTPin).
		mark = " (no longer deprecated)"
		if c.Deprecated {
			mark = " (now deprecated)"
		}
	}
	if len(parts) == 0 {
		return "its definition changed" + mark
	}
	return strings.Join(parts, ", ") + " changed" + mark
}

// annotationsChange names what changed in a tool's annotations, with the
// hints that matter for consent spelled out: "annotations (no longer
// read-only, now destructive)".
func annotationsChange(a, b *mcp.ToolAnnotations) string {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if sameJSON(ja, jb) {
		return ""
	}
	var x, y mcp.ToolAnnotations
	if a != nil {
		x = *a
	}
	if b != nil {
		y = *b
	}
	var notes []string
	hint := func(was, is bool, name string) {
		switch {
		case was && !is:
			notes = append(notes, "no longer "+name)
		case !was && is:
			notes = append(notes, "now "+name)
		}
	}
	hint(x.ReadOnlyHint, y.ReadOnlyHint, "read-only")
	hint(x.DestructiveHint == nil || *x.DestructiveHint, y.DestructiveHint == nil || *y.DestructiveHint, "destructive")
	hint(x.IdempotentHint, y.IdempotentHint, "idempotent")
	hint(x.OpenWorldHint == nil || *x.OpenWorldHint, y.OpenWorldHint == nil || *y.OpenWorldHint, "open-world")
	if len(notes) == 0 {
		return "annotations"
	}
	return "annotations (" + strings.Join(notes, ", ") + ")"
}

// AnnotationWords says a tool's annotations in words, for a person:
// "read-only", "destructive" (unless read-only), "idempotent", "open world",
// each only where the annotation says so.
func AnnotationWords(a *mcp.ToolAnnotations) []string {
	if a == nil {
		return nil
	}
	var out []string
	if a.ReadOnlyHint {
		out = append(out, "read-only")
	}
	if a.DestructiveHint != nil && *a.DestructiveHint && !a.ReadOnlyHint {
		out = append(out, "destructive")
	}
	if a.IdempotentHint {
		out = append(out, "idempotent")
	}
	if a.OpenWorldHint != nil && *a.OpenWorldHint {
		out = append(out, "open world")
	}
	return out
}

// sameJSON compares two JSON documents by value.
func sameJSON(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	ca, err1 := canonicalJSON(a)
	cb, err2 := canonicalJSON(b)
	return err1 == nil && err2 == nil && bytes.Equal(ca, cb)
}
