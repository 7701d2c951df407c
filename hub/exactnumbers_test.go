package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/exactjson"
	"capabilities.sh/capabilities/hub/policy"
	"capabilities.sh/capabilities/internal/hubtest"
)

// Integers beyond 2^53 keep their exact value from the code to the
// upstream and back: the person approves the bytes the upstream receives,
// the journal hashes and keeps those bytes, and a result's integers reach
// the guest as BigInts and leave in the envelope as written. (A JS number
// cannot hold 9007199254740993: JSON.parse in the guest rounds it, and then
// every one of them sees the rounded value.)
func TestExactNumbersEndToEnd(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	cfg := &config.Config{Sources: map[string]*config.Source{"leaky": fakeSource("leaky", nil)},
		Policy: map[string]config.Mode{"leaky.echoRaw": config.Ask, "leaky.bigNumber": config.Allow}}
	if err := cfg.Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}
	h, err := New(ctx, Options{Home: home, ConfigPoll: -1, Keychain: &svcMemKeychain{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	if errs := h.Refresh(ctx); len(errs) > 0 {
		t.Fatal(errs)
	}
	code := `
const args = { n: 9007199254740993n, raw: JSON.rawJSON("-9007199254740995"), parsed: JSON.parse('{"v":9007199254740993}').v, s: "9007199254740993" };
const echoed = await leaky.echoRaw(args);
const big = await leaky.bigNumber();
return { echoed, big, types: [typeof echoed.n, typeof echoed.parsed, typeof big.id, typeof big.safe, typeof big.ratio], next: big.id + 1n };`
	const sent = `{"n":9007199254740993,"raw":-9007199254740995,"parsed":9007199254740992,"s":"9007199254740993"}`
	env, err := h.Execute(ctx, ExecuteRequest{Code: code})
	if err != nil || env.Status != StatusAwaitingApproval {
		t.Fatalf("run = %v, %v", env, err)
	}
	pend, err := h.Pending(ctx, env.RunID)
	if err != nil || len(pend) != 1 {
		t.Fatalf("pending = %v, %v", pend, err)
	}
	var want bytes.Buffer
	json.Indent(&want, []byte(sent), "", "  ")
	if pend[0].Preview != want.String() {
		t.Errorf("the person approves\n%s\nwant\n%s", pend[0].Preview, want.String())
	}
	if err := h.Decide(ctx, pend[0].ID, AllowOnce, policy.ChannelCLI, "test"); err != nil {
		t.Fatal(err)
	}
	done, err := h.Execute(ctx, ExecuteRequest{Resume: env.RunID})
	if err != nil || done.Status != StatusCompleted {
		t.Fatalf("resume = %v, %v", done.Line(), err)
	}
	wantResult := `{"echoed":` + sent + `,"big":` + hubtest.BigNumbers + `,"types":["bigint","bigint","bigint","number","number"],"next":9007199254740994}`
	if string(done.Result) != wantResult {
		t.Errorf("result\n%s\nwant\n%s", done.Result, wantResult)
	}
	// The journal holds the hash of the bytes sent and the exact result.
	journal, err := h.db.ReadJournal(ctx, env.RunID)
	if err != nil || journal[1] == nil {
		t.Fatalf("call 1 of the journal: %v", err)
	}
	hash, outcome := journal[1].ArgsHash, string(journal[1].Outcome)
	if hash != exactjson.Hash([]byte(sent)) || hash == exactjson.Hash([]byte(strings.ReplaceAll(sent, "9007199254740993", "9007199254740992"))) {
		t.Errorf("journaled hash %s is not the hash of the exact arguments", hash)
	}
	if outcome != sent {
		t.Errorf("journaled outcome %s, want %s", outcome, sent)
	}
}
