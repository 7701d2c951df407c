package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/internal/hubtest"
)

// A stdio server that stops reading its input (its one thread stuck in a
// tool) leaves the next call's write blocked in the pipe once the pipe is
// full, where no context reaches. The call still ends when its time is up
// and a grace after: the hub stops the server, whose session goes, saying
// why; the call fails as a timeout that was sent (it may have been read in
// part); and the next call reaches a new server.
func TestStuckServerIsStopped(t *testing.T) {
	u := newTestUpstreams(t, Options{CallTimeout: time.Second, RestartBackoff: time.Nanosecond}, hubtest.Config(map[string]*config.Source{
		"deaf": hubtest.FakeSource("deaf", nil),
	}))
	ctx := context.Background()
	call := func(args json.RawMessage) error {
		done := make(chan error, 1)
		go func() {
			_, err := u.Call(ctx, "deaf", "", "echo", args)
			done <- err
		}()
		// The call's second, the grace, and room for a loaded machine: a
		// hub without the rule waits here for good.
		select {
		case err := <-done:
			return err
		case <-time.After(time.Minute):
			t.Fatal("the call did not end")
			return nil
		}
	}
	// The server reads this call, then nothing more.
	if err := call(json.RawMessage(`{"message":"hi"}`)); err == nil || !strings.Contains(err.Error(), "no answer within 1s") {
		t.Fatalf("the call the server stops at: %v", err)
	}
	// 1 MiB is more than a pipe holds: the write blocks.
	err := call(json.RawMessage(`{"message":"` + strings.Repeat("a", 1<<20) + `"}`))
	var ue *Error
	if !errors.As(err, &ue) || ue.Kind != KindTimeout || !ue.Sent {
		t.Errorf("the call whose write blocked: %#v, want a timeout that was sent", err)
	}
	if st := u.State()["deaf"]; !strings.Contains(st.Err, "the server stopped reading what the hub sent, and the hub stopped it") {
		t.Errorf("the source's state after: %+v", st)
	}
	// A new server reads the next call (and stops there in its turn).
	if err := call(json.RawMessage(`{"message":"again"}`)); err == nil || !strings.Contains(err.Error(), "no answer within 1s") {
		t.Errorf("the next call: %v, want it read by a new server", err)
	}
}
