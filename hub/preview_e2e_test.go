package hub

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/policy"
)

// TestApprovalPreviewIsTheWholeCall (issue 14 item 11): a call to a real
// upstream tool that asks shows the person every argument the upstream
// will receive: ordinary values under key names that sound like secrets,
// 30 items, 500 characters, 9 levels deep, all whole; only a value
// shaped like a credential is hidden.
func TestApprovalPreviewIsTheWholeCall(t *testing.T) {
	var got json.RawMessage
	s := mcp.NewServer(&mcp.Implementation{Name: "store", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "put_object", Description: "Store an object.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			got = append(json.RawMessage(nil), req.Params.Arguments...)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "stored"}}}, nil
		})
	h := hubOver(t, "store", s)
	ctx := context.Background()
	long := strings.Repeat("lorem ipsum ", 41) + "END"
	code := `const deep = [[[[[[[[{ leaf: "bottom-most" }]]]]]]]];
const items = Array.from({ length: 30 }, (_, i) => "item-" + i);
return await store.putObject({ Key: "photos/2024/cat.jpg", signature: "Ada Lovelace", sessionName: "standup",
	accessTokenCount: 3, long: ` + jsString(long) + `, items, deep,
	note: "my token is ghp_abcdefghijklmnopqrstuvwxyz0123456789, keep it" });`
	env := execOn(t, h, code)
	if env.Status != StatusAwaitingApproval {
		t.Fatalf("a tool that is not read-only: %s", env.Line())
	}
	pend, err := h.Pending(ctx, env.RunID)
	if err != nil || len(pend) != 1 {
		t.Fatalf("Pending = %+v, %v", pend, err)
	}
	preview := pend[0].Preview
	want := []string{`"Key": "photos/2024/cat.jpg"`, `"signature": "Ada Lovelace"`, `"sessionName": "standup"`,
		`"accessTokenCount": 3`, jsString(long), `"leaf": "bottom-most"`, `"note": "my token is [redacted], keep it"`}
	for i := range 30 {
		want = append(want, fmt.Sprintf(`"item-%d"`, i))
	}
	for _, w := range want {
		if !strings.Contains(preview, w) {
			t.Errorf("the preview lacks %s:\n%s", w, preview)
		}
	}
	if strings.Contains(preview, "ghp_") || strings.Contains(preview, "…") {
		t.Errorf("the preview shows the credential or cuts:\n%s", preview)
	}
	if err := h.Decide(ctx, pend[0].ID, AllowOnce, policy.ChannelCLI, "test"); err != nil {
		t.Fatal(err)
	}
	if done := resumeOn(t, h, env.RunID); done.Status != StatusCompleted {
		t.Fatalf("after allowing: %s", done.Line())
	}
	// The upstream received the same call, the credential included.
	var sent struct {
		Key, Long, Note string
		Items           []string
	}
	if err := json.Unmarshal(got, &sent); err != nil || sent.Key != "photos/2024/cat.jpg" || sent.Long != long || len(sent.Items) != 30 ||
		!strings.Contains(sent.Note, "ghp_abcdefghijklmnopqrstuvwxyz0123456789") {
		t.Fatalf("the upstream received %s (%v)", got, err)
	}
}
