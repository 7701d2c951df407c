package hub

import (
	"context"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub/policy"
	"capabilities.sh/capabilities/hub/secrets"
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
	if err := h.Decide(ctx, p.ID, DenyOnce, policy.ChannelCLI, "test"); err != nil {
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

// TestPendingCodeHidesCredentials: the run's code beside an approval, and
// in the run's details, hides a secret the hub holds and a credential of a
// well-known shape, as the preview of the arguments does; the rest of the
// code shows as it ran.
func TestPendingCodeHidesCredentials(t *testing.T) {
	const known = "kn0wn-Conn3ction-S3cret-4242"
	const shaped = "ghp_Sh4p3dT0k3nInTh3C0d3xxxxxxxxxxxx"
	sec := secrets.New()
	sec.Set(secrets.ConnectionOwner("memory", "default"), known)
	h := e2eNewHub(t, Options{Secrets: sec}, nil)
	ctx := context.Background()
	code := `const note = "` + known + `";
const gh = "` + shaped + `";
await memory.createEntities({ entities: [{ name: "Ada", entityType: "person", observations: [note.length + gh.length + ""] }] });
return 1;`
	env := h.exec(t, code)
	if env.Status != StatusAwaitingApproval {
		t.Fatalf("envelope %s", env.Line())
	}
	pend, err := h.Pending(ctx, "")
	if err != nil || len(pend) != 1 {
		t.Fatalf("Pending = %+v, %v", pend, err)
	}
	runs, err := h.Runs(ctx, 20, false)
	if err != nil || len(runs) == 0 {
		t.Fatalf("Runs = %+v, %v", runs, err)
	}
	for what, got := range map[string]string{"pending": pend[0].Code, "run": runs[0].Code} {
		if strings.Contains(got, known) || strings.Contains(got, shaped) {
			t.Errorf("the %s code shows a credential:\n%s", what, got)
		}
		if !strings.Contains(got, `const note = "[secret]";`) || !strings.Contains(got, `const gh = "[redacted]";`) || !strings.Contains(got, "await memory.createEntities(") {
			t.Errorf("the %s code is not the run's with the credentials hidden:\n%s", what, got)
		}
	}
}
