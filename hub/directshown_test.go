package hub

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub/config"
)

// TestDirectCallIsShownWithoutItsArguments: a direct-mode call's run holds
// the client's arguments in its code, a megabyte here. What a person reads
// of that code (beside the approval, in the runs listed, in the run's
// details) is the call with a comment in the arguments' place: they read
// the arguments apart, redacted and cut to size. Each held the megabyte.
func TestDirectCallIsShownWithoutItsArguments(t *testing.T) {
	ctx := context.Background()
	h, call := directBlobs(t, func(cfg *config.Config) { cfg.Policy["blobs.*"] = config.Ask })
	env, err := call(1 << 20)
	if err != nil || env.Status != StatusAwaitingApproval {
		t.Fatalf("%v %s", err, env.Line())
	}
	// The lists read the code's first 64 KB: the call, up to its
	// arguments; the details read all of it.
	shown := func(where, code, want string) {
		t.Helper()
		if len(code) > 200 || !strings.HasSuffix(code, "\nreturn await blobs[\"getBlob\"](JSON.parse(/* the call's arguments */"+want) {
			t.Errorf("%s: %d bytes of code: %.200q", where, len(code), code)
		}
	}
	pending, err := h.Pending(ctx, "")
	if err != nil || len(pending) != 1 {
		t.Fatalf("pending: %v %v", pending, err)
	}
	shown("beside the approval", pending[0].Code, " …")
	runs, err := h.Runs(ctx, 10, false)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs: %v %v", runs, err)
	}
	shown("in the runs listed", runs[0].Code, " …")
	run, err := h.Run(ctx, env.RunID)
	if err != nil {
		t.Fatal(err)
	}
	shown("in the run's details", run.Code, "));")
}

// directBlobs is a hub over blobServer(1) with profile "d" serving it in
// direct mode, its config set by edit too, and a func that calls its one
// tool as a direct-mode client would, with a text of n bytes.
func directBlobs(t *testing.T, edit func(*config.Config)) (*Hub, func(n int) (*Envelope, error)) {
	t.Helper()
	h := hubOver(t, "blobs", blobServer(1))
	cfg := testConfig(h.Config().Sources)
	cfg.Profiles = map[string]*config.Profile{"d": {Sources: []string{"blobs"}, Mode: config.ProfileDirect}}
	edit(cfg)
	if err := h.SaveConfig(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	tools, err := h.DirectTools("d")
	if err != nil || len(tools) != 1 {
		t.Fatalf("direct tools: %v %v", tools, err)
	}
	return h, func(n int) (*Envelope, error) {
		args, _ := json.Marshal(map[string]string{"text": strings.Repeat("a", n)})
		return h.CallTool(context.Background(), ToolCall{Profile: "d", Address: tools[0].Tool.Address, Args: args})
	}
}
