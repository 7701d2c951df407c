package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/policy"
)

// blockingNotes is an upstream with one non-idempotent tool, send_note,
// that counts its calls, reports each arrival and answers only once
// release is closed.
type blockingNotes struct {
	server  *mcp.Server
	sent    atomic.Int32
	arrived chan struct{}
	release chan struct{}
	once    sync.Once
}

// answer lets every call in flight, and later ones, answer.
func (n *blockingNotes) answer() { n.once.Do(func() { close(n.release) }) }

func newBlockingNotes() *blockingNotes {
	n := &blockingNotes{arrived: make(chan struct{}, 8), release: make(chan struct{})}
	n.server = mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "1"}, nil)
	n.server.AddTool(&mcp.Tool{Name: "send_note", Description: "Send a note to everyone.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			n.sent.Add(1)
			n.arrived <- struct{}{}
			select {
			case <-n.release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sent"}}}, nil
		})
	return n
}

// twoHubsOnOneHome opens two hubs on one CAPABILITIES_HOME, as the tray hub
// and an embedded one would, over the notes upstream; b's clock is
// shifted by bAhead.
func twoHubsOnOneHome(t *testing.T, notes *blockingNotes, bAhead time.Duration) (a, b *Hub) {
	t.Helper()
	home := t.TempDir()
	cfg := testConfig(map[string]*config.Source{"notes": {URL: httpUpstream(t, notes.server, "", "").URL}})
	if err := cfg.Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}
	open := func(now func() time.Time) *Hub {
		h, err := New(context.Background(), Options{Home: home, ConfigPoll: -1, Now: now})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Close() })
		if errs := h.Refresh(context.Background()); len(errs) > 0 {
			t.Fatal(errs)
		}
		return h
	}
	a = open(nil)
	b = open(func() time.Time { return time.Now().Add(bAhead) })
	return a, b
}

// approvedRun starts a run that sends a note, on a, and allows the call.
func approvedRun(t *testing.T, a *Hub) string {
	t.Helper()
	ctx := context.Background()
	env, err := a.Execute(ctx, ExecuteRequest{Code: `return await notes.sendNote({ text: "hi" });`})
	if err != nil {
		t.Fatal(err)
	}
	if env.Status != StatusAwaitingApproval || len(env.Pending) != 1 {
		t.Fatalf("want the call to ask: %s", env.Line())
	}
	if err := a.Decide(ctx, env.Pending[0].ID, AllowOnce, policy.ChannelCLI, "test"); err != nil {
		t.Fatal(err)
	}
	return env.RunID
}

type resumed struct {
	env *Envelope
	err error
}

func resumeAsync(h *Hub, id string) <-chan resumed {
	ch := make(chan resumed, 1)
	go func() {
		env, err := h.Execute(context.Background(), ExecuteRequest{Resume: id})
		ch <- resumed{env, err}
	}()
	return ch
}

// TestTwoHubsOnOneHomeSendOnce: two hubs on one home resume the same
// approved run at once. The one that leases the run sends the call; the
// other is refused while that attempt runs, and the call is sent once.
func TestTwoHubsOnOneHomeSendOnce(t *testing.T) {
	notes := newBlockingNotes()
	a, b := twoHubsOnOneHome(t, notes, 0)
	t.Cleanup(notes.answer)
	id := approvedRun(t, a)

	ra, rb := resumeAsync(a, id), resumeAsync(b, id)
	<-notes.arrived // one attempt sent the call and waits for its answer
	var loser resumed
	var winner <-chan resumed
	select {
	case loser = <-ra:
		winner = rb
	case loser = <-rb:
		winner = ra
	}
	var busy *RunBusyError
	if !errors.As(loser.err, &busy) || busy.RunID != id {
		t.Fatalf("the second resume while the first attempt runs: %+v, %v; want a RunBusyError", loser.env, loser.err)
	}
	t.Logf("refused: %v", loser.err)
	notes.answer()
	won := <-winner
	if won.err != nil || won.env.Status != StatusCompleted || string(won.env.Result) != `"sent"` {
		t.Fatalf("the attempt that sent the call: %+v, %v", won.env, won.err)
	}
	// Resumed again from either hub: the finished envelope, nothing sent.
	for _, h := range []*Hub{a, b} {
		env, err := h.Execute(context.Background(), ExecuteRequest{Resume: id})
		if err != nil || env.Status != StatusCompleted {
			t.Fatalf("resume after the end: %+v, %v", env, err)
		}
	}
	if n := notes.sent.Load(); n != 1 {
		t.Fatalf("send_note was sent %d times, want 1", n)
	}
}

// TestApprovedCallIsClaimedOnce: even when a second hub takes over a run
// whose lease ended while the first hub's call is still in flight, the
// call the first attempt claimed (and journaled as issued) is not sent
// again.
func TestApprovedCallIsClaimedOnce(t *testing.T) {
	notes := newBlockingNotes()
	a, b := twoHubsOnOneHome(t, notes, time.Hour) // b sees a's lease as ended
	t.Cleanup(notes.answer)
	id := approvedRun(t, a)

	ra := resumeAsync(a, id)
	<-notes.arrived
	env, err := b.Execute(context.Background(), ExecuteRequest{Resume: id})
	if err != nil {
		t.Fatalf("resume on b: %v", err)
	}
	if env.Status != StatusFailed || env.Error == nil || !strings.Contains(env.Error.Message, "[code: "+CodeInterrupted) {
		t.Fatalf("b's attempt: %s; want the call refused as already sent", env.Line())
	}
	notes.answer()
	if r := <-ra; r.err != nil || r.env.Status != StatusCompleted {
		t.Fatalf("a's attempt: %+v, %v", r.env, r.err)
	}
	if n := notes.sent.Load(); n != 1 {
		t.Fatalf("send_note was sent %d times, want 1", n)
	}
}

// TestLeaseOfADeadHubIsTakenOver: a hub killed mid-attempt leaves its lease;
// its process is gone (or a zombie its parent has not reaped), so the next
// resume takes the lease over at once rather than when it ends.
func TestLeaseOfADeadHubIsTakenOver(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	waitFor(t, 30*time.Second, "the child to become a zombie", func() bool {
		b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
		i := strings.LastIndexByte(string(b), ')')
		return i > 0 && string(b)[i+2] == 'Z'
	})
	if ownerAlive(fmt.Sprintf("%d/x", pid)) {
		t.Error("a zombie hub counts as alive")
	}
	cmd.Wait()
	if ownerAlive(fmt.Sprintf("%d/x", pid)) {
		t.Error("a reaped hub counts as alive")
	}
	if !ownerAlive(fmt.Sprintf("%d/x", os.Getpid())) || !ownerAlive(fmt.Sprintf("%d/x", os.Getppid())) {
		t.Error("a live process counts as dead")
	}

	notes := newBlockingNotes()
	t.Cleanup(notes.answer)
	a, _ := twoHubsOnOneHome(t, notes, 0)
	id := approvedRun(t, a)
	if err := rawExec(t, a.db, `UPDATE runs SET owner = ?, lease = ? WHERE id = ?`, fmt.Sprintf("%d/x", pid), time.Now().Add(time.Hour).UnixMilli(), id); err != nil {
		t.Fatal(err)
	}
	notes.answer()
	env, err := a.Execute(context.Background(), ExecuteRequest{Resume: id})
	if err != nil || env.Status != StatusCompleted {
		t.Fatalf("resume after the lease holder died: %+v %v", env, err)
	}
	<-notes.arrived
	if n := notes.sent.Load(); n != 1 {
		t.Fatalf("sent %d times", n)
	}
}
