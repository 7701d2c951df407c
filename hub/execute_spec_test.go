package hub

import (
	"context"
	"testing"
	"time"

	"capabilities.sh/capabilities/hub/policy"
	"capabilities.sh/capabilities/sandbox"
)

// TestResumeDoesNotWaitAgain: setTimeout waits in a live run, and a resumed
// run does not wait again for the timers before the calls it replays. The
// first attempt sleeps 5 s of its 8 s wall limit before the call that asks,
// the resumed one 5 s after it; it would need 10 s if it slept them all.
func TestResumeDoesNotWaitAgain(t *testing.T) {
	h := e2eNewHub(t, Options{Limits: sandbox.Limits{Wall: 8 * time.Second}}, nil)
	code := `const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
		const t0 = Date.now();
		await memory.readGraph({});
		await sleep(2500);
		await sleep(2500);
		await memory.createEntities({ entities: [{ name: "Grace", entityType: "person", observations: ["found a moth"] }] });
		await sleep(2500);
		await sleep(2500);
		return Date.now() - t0;`
	start := time.Now()
	env := h.exec(t, code)
	if env.Status != StatusAwaitingApproval || len(env.Pending) != 1 {
		t.Fatalf("envelope %s", env.Line())
	}
	if took := time.Since(start); took < 5*time.Second {
		t.Fatalf("the first attempt took %s: its timers did not wait", took)
	}
	if err := h.Decide(context.Background(), env.Pending[0].ID, AllowOnce, policy.ChannelCLI, "test"); err != nil {
		t.Fatal(err)
	}
	start = time.Now()
	done := h.resumeRun(t, env.RunID)
	if done.Status != StatusCompleted || string(done.Result) != "10000" {
		t.Fatalf("resumed: %s", done.Line())
	}
	if took := time.Since(start); took < 5*time.Second {
		t.Errorf("the resumed attempt took %s: its live timers did not wait", took)
	}
}
