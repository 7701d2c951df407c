package hub

import (
	"context"
	"strings"
	"testing"
)

// TestPendingForAPerson: a waiting call carries what a person needs to
// judge it: the run's code, the tool's source and description; the run is
// listed as waiting for a person until the person decided, not after.
func TestPendingForAPerson(t *testing.T) {
	h := e2eNewHub(t, Options{}, nil)
	ctx := context.Background()
	code := `await memory.createEntities({ entities: [{ name: "Ada", entityType: "person", observations: [] }] }); return 1;`
	env := h.exec(t, code)
	if env.Status != StatusAwaitingApproval {
		t.Fatalf("envelope %s", env.Line())
	}
	pend, err := h.Pending(ctx, "")
	if err != nil || len(pend) != 1 {
		t.Fatalf("Pending = %+v, %v", pend, err)
	}
	p := pend[0]
	if p.Code != code || p.Source != "memory" || p.Description == "" {
		t.Errorf("pending code %q, source %q, description %q", p.Code, p.Source, p.Description)
	}
	waiting := func() []string {
		t.Helper()
		runs, err := h.Runs(ctx, 20, true)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range runs {
			ids = append(ids, r.ID)
		}
		return ids
	}
	if got := waiting(); len(got) != 1 || got[0] != env.RunID {
		t.Fatalf("runs waiting before the decision: %v", got)
	}
	if err := h.Decide(ctx, p.ID, DenyOnce, ChannelCLI, "test"); err != nil {
		t.Fatal(err)
	}
	if got := waiting(); len(got) != 0 {
		t.Errorf("runs waiting after the person decided: %v", got)
	}

	// The model is told the person declined, not to fix its code.
	done := h.resumeRun(t, env.RunID)
	if done.Error == nil {
		t.Fatalf("after a denial: %s", done.Line())
	}
	if done.Error.Code != CodeDenied || !strings.Contains(done.Error.Message, "the person declined memory.createEntities when asked") ||
		!strings.Contains(done.Error.Hint, "A person declined this call") || strings.Contains(done.Error.Hint, "fix the code") {
		t.Errorf("after a denial the model reads %q / %q", done.Error.Message, done.Error.Hint)
	}
}
