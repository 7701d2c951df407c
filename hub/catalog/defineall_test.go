package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/upstream"
)

// TestDefineAllInOrder: the definitions computed side by side are each
// tool's own, in the tools' order, with none for a nil or unnamed tool,
// and the same as one Definition at a time.
func TestDefineAllInOrder(t *testing.T) {
	var tools []*mcp.Tool
	for i := range 500 {
		switch i % 97 {
		case 13:
			tools = append(tools, nil)
			continue
		case 14:
			tools = append(tools, &mcp.Tool{Description: "no name"})
			continue
		}
		tl := &mcp.Tool{
			Name:        fmt.Sprintf("op%d", i),
			Description: fmt.Sprintf("Operation %d.", i),
			InputSchema: json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"n%d":{"type":"integer","maximum":%d}}}`, i, i)),
		}
		if i%2 == 0 {
			tl.Meta = mcp.Meta{upstream.RequestMeta: &upstream.RESTRequest{Method: "GET", Server: "https://api.example.com", Path: fmt.Sprintf("/ops/%d", i)}}
		}
		tools = append(tools, tl)
	}
	for _, rest := range []bool{false, true} {
		got := defineAll(tools, rest, nil)
		if len(got) != len(tools) {
			t.Fatalf("%d definitions for %d tools", len(got), len(tools))
		}
		for i, tl := range tools {
			d := got[i]
			if tl == nil || tl.Name == "" {
				if d.def != nil || d.hash != "" || d.req != nil {
					t.Errorf("tool %d (nil or unnamed) got a definition: %+v", i, d)
				}
				continue
			}
			var req *upstream.RESTRequest
			if rest {
				req = restRequestOf(tl)
			}
			def, hash, err := Definition(tl, req)
			if err != nil || d.err != nil || hash != d.hash || !bytes.Equal(def, d.def) {
				t.Fatalf("rest=%v tool %s: got %s %s %v, want %s %s %v", rest, tl.Name, d.def, d.hash, d.err, def, hash, err)
			}
			if (d.req != nil) != (rest && i%2 == 0) {
				t.Errorf("rest=%v tool %s: request %+v", rest, tl.Name, d.req)
			}
		}
	}
}

// TestDefineAllKnownDigests: a tool listed with the digest known for it
// gets the known hash and no definition to store; any change to what its
// definition is made of (its description, a schema's bytes, its request)
// is another digest, and a tool whose schemas came decoded has none.
func TestDefineAllKnownDigests(t *testing.T) {
	base := func() *mcp.Tool {
		return &mcp.Tool{Name: "op", Description: "An operation.", InputSchema: json.RawMessage(`{"type":"object"}`),
			Meta: mcp.Meta{upstream.RequestMeta: &upstream.RESTRequest{Method: "GET", Server: "https://api.example.com", Path: "/op"}}}
	}
	first := defineAll([]*mcp.Tool{base()}, true, nil)[0]
	if first.def == nil || first.digest == (listedDigest{}) {
		t.Fatalf("first listing: %+v", first)
	}
	known := map[string]knownDigest{"op": {first.digest, first.hash}}
	if again := defineAll([]*mcp.Tool{base()}, true, known)[0]; again.def != nil || again.hash != first.hash || again.digest != first.digest {
		t.Errorf("listed again unchanged: %+v", again)
	}
	changes := map[string]func(*mcp.Tool){
		"description":   func(tl *mcp.Tool) { tl.Description = "An operation, changed." },
		"input schema":  func(tl *mcp.Tool) { tl.InputSchema = json.RawMessage(`{"type":"object","properties":{}}`) },
		"output schema": func(tl *mcp.Tool) { tl.OutputSchema = json.RawMessage(`{"type":"object"}`) },
		"server": func(tl *mcp.Tool) {
			tl.Meta = mcp.Meta{upstream.RequestMeta: &upstream.RESTRequest{Method: "GET", Server: "https://evil.example.com", Path: "/op"}}
		},
		"annotations": func(tl *mcp.Tool) { tl.Annotations = &mcp.ToolAnnotations{ReadOnlyHint: true} },
	}
	for what, change := range changes {
		tl := base()
		change(tl)
		d := defineAll([]*mcp.Tool{tl}, true, known)[0]
		def, hash, _ := Definition(tl, restRequestOf(tl))
		if d.def == nil || d.hash == first.hash || d.hash != hash || !bytes.Equal(d.def, def) {
			t.Errorf("%s changed: %+v, want the new definition %s", what, d, hash)
		}
	}
	decoded := base()
	decoded.InputSchema = map[string]any{"type": "object"}
	if d := defineAll([]*mcp.Tool{decoded}, true, known)[0]; d.def == nil || d.digest != (listedDigest{}) {
		t.Errorf("a decoded schema: %+v", d)
	}
}
