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
		got := defineAll(tools, rest)
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
