package hub

// Handles: a run's result over the inline budget.
//
// The sandbox returns a result that does not fit inlineResultBytes whole,
// beside the preview it cut (sandbox.Outcome.Whole). The hub scrubs it of
// every known secret value, keeps it in the store and puts a handle in the
// envelope in its place, { handle, bytes, kind, preview }, with a notice
// that says how to read it: hub.read in a following execute, by slice,
// by path or whole. The handle costs no more of the budget than the
// preview it replaces, so the logs beside it still fit.
//
// A handle belongs to its run and its home: it is a row of the home's
// store, deleted with its run by retention, and any run that could resume
// its run may read it: any run of the whole hub, and in a profile the
// profile's own runs only (handleIn). A read is journaled like a tool
// call, under the call sequence's next seq and address hub.read, with its
// outcome: a resumed run gets the same bytes, or the same error, even
// when the handle was deleted since.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"capabilities.sh/capabilities/hub/exactjson"
	"capabilities.sh/capabilities/hub/scope"
	"capabilities.sh/capabilities/hub/store"
	"capabilities.sh/capabilities/sandbox"
)

// Handle kinds: a string result is read as its text; any other result as
// its JSON text, or by path.
const (
	HandleString = "string"
	HandleJSON   = "json"
)

// HandleResult is what the envelope's result holds for a result kept as a
// handle.
type HandleResult struct {
	Handle  string `json:"handle"`
	Bytes   int64  `json:"bytes"` // of the string's UTF-8 text, or of the JSON text
	Kind    string `json:"kind"`  // HandleString or HandleJSON
	Preview string `json:"preview"`
}

// keepResult puts a handle in env in place of a result the sandbox found
// over the inline budget, and keeps the whole result in the store. Without
// one (nothing over the budget, a budget too small for a handle, a store
// that failed) env keeps the sandbox's preview. The caller holds the run's
// lock; a fresh run is stored here, before its handle.
func (h *Hub) keepResult(ctx context.Context, run *runRow, host *runHost, env *Envelope, out sandbox.Outcome) {
	if env.Status != StatusCompleted || out.Whole == nil {
		return
	}
	whole := h.secrets.ScrubJSON(out.Whole)
	hr := HandleResult{Handle: newID("h_"), Kind: HandleJSON}
	value := []byte(whole)
	var s string
	if len(whole) > 0 && whole[0] == '"' && json.Unmarshal(whole, &s) == nil {
		hr.Kind, value = HandleString, []byte(s)
	}
	hr.Bytes = int64(len(value))
	empty, _ := json.Marshal(hr)
	// What the preview may cost: the sandbox's preview less the handle's
	// other fields (an empty string costs 6).
	room := sandbox.ResultCost(env.Result) - sandbox.ResultCost(empty) + 6
	preview, ok := sandbox.CutText(strings.ToValidUTF8(string(value[:min(len(value), 64<<10)]), "\uFFFD"), "…", room)
	if !ok {
		return
	}
	hr.Preview = preview
	b, _ := json.Marshal(hr)
	if sandbox.ResultCost(b) > sandbox.ResultCost(env.Result) {
		return
	}
	ctx = context.WithoutCancel(ctx)
	if host.runStored(ctx) != nil {
		return // the attempt reports it
	}
	if why := host.reserve(int64(len(value))); why != "" {
		env.Notices = append(slices.Clip(env.Notices), "The result is over the inline budget and could not be kept as a handle ("+why+"); result shows its start. Return less, or only what you need.")
		return
	}
	if err := h.db.PutHandle(ctx, store.Handle{ID: hr.Handle, RunID: run.ID, Kind: hr.Kind, Created: h.now()}, value); err != nil {
		h.log.Error("keeping a result as a handle failed", "run", run.ID, "err", err)
		return
	}
	env.Result = b
	env.Notices = append(slices.Clip(env.Notices), handleNotice(hr, whole))
}

// handleNotice tells the model what the handle holds and how to read it.
func handleNotice(hr HandleResult, whole json.RawMessage) string {
	q := strconv.Quote(hr.Handle)
	if hr.Kind == HandleString {
		return fmt.Sprintf("The result, a string of %d bytes, is over the inline budget: it is kept as handle %s, and result shows its start. "+
			"Read it with hub.read in a following execute: await hub.read(%s, { offset: 0, length: 20000 }) is a slice of its bytes (slices in a row join into the whole); await hub.read(%s) is all of it, to work on in code.",
			hr.Bytes, hr.Handle, q, q)
	}
	return fmt.Sprintf("The result, %d bytes of JSON, is over the inline budget: it is kept as handle %s, and result shows its start. "+
		"Read it with hub.read in a following execute: await hub.read(%s, { path: %s }) is the value at a path; await hub.read(%s) is all of it, parsed, to work on in code; await hub.read(%s, { offset: 0, length: 20000 }) is a slice of its JSON text.",
		hr.Bytes, hr.Handle, q, strconv.Quote(exactjson.ExamplePath(whole)), q, q)
}

// Read implements sandbox.Host: it answers hub.read from the journal when
// an earlier attempt made the same read, else from the store, and
// journals the outcome.
//
// A read that succeeds is journaled as a reference to what it read (the
// handle, and the size and digest of the bytes the guest got), not as a
// second copy of them: the handle is stored once. A resumed run reads the
// handle again and gets the same bytes; should the handle have changed or
// gone since (retention keeps the handles a waiting run read), the run
// stops as diverged rather than see other bytes.
func (r *runHost) Read(ctx context.Context, rd sandbox.Read) (json.RawMessage, error) {
	defer r.order.Settle(rd.Seq)
	if err := r.runStored(ctx); err != nil {
		return nil, err
	}
	args, _ := json.Marshal(struct {
		Handle string   `json:"handle"`
		Slice  bool     `json:"slice,omitempty"`
		Offset int64    `json:"offset,omitempty"`
		Length int64    `json:"length,omitempty"`
		Path   []string `json:"path,omitempty"`
	}{rd.Handle, rd.Slice, rd.Offset, rd.Length, rd.Path})
	c := sandbox.Call{Seq: rd.Seq, Address: sandbox.ReadAddress, Args: args}
	hash := exactjson.Hash(args)
	r.mu.Lock()
	je := r.journal[c.Seq]
	r.mu.Unlock()
	if je != nil && je.State == journalRead && je.Address == c.Address && je.ArgsHash == hash {
		return r.replayRead(ctx, c, rd, je)
	}
	if _, out, err, done := r.replay(c, hash); done {
		return out, err
	}
	start := time.Now()
	val, te, err := r.h.readHandle(ctx, rd, r.scope)
	ms := time.Since(start).Milliseconds()
	if err != nil {
		// The store failed, or the run ended: not journaled, so a resume
		// reads again.
		r.record(c.Seq, c.Address, false, ms)
		return nil, err
	}
	if te != nil {
		return r.finish(c, hash, nil, te, ms)
	}
	ref, _ := json.Marshal(readRef{Handle: rd.Handle, Bytes: int64(len(val)), Digest: digestOf(val)})
	e := &store.JournalEntry{Seq: c.Seq, Address: c.Address, ArgsHash: hash, State: journalRead, Outcome: ref, Ms: ms, Args: r.argsToKeep(c)}
	if err := r.h.journal.Put(r.run.ID, e, r.h.now().Add(-time.Duration(ms)*time.Millisecond)); err != nil {
		r.h.log.Error("journaling a read failed", "run", r.run.ID, "seq", c.Seq, "err", err)
		r.record(c.Seq, c.Address, false, ms)
		return nil, fmt.Errorf("the outcome of call %d (%s) could not be journaled, so it is withheld: %w", c.Seq, c.Address, err)
	}
	r.record(c.Seq, c.Address, true, ms)
	return val, nil
}

// handleIn is handle id's info when a run of scope sc gave it out; a
// handle of a run made in another profile is, to sc, no handle
// (store.ErrNoHandle), as the run is no run to its resume.
func (h *Hub) handleIn(ctx context.Context, id string, sc *scope.Scope) (store.Handle, error) {
	info, err := h.db.HandleInfo(ctx, id)
	if err != nil || sc == nil {
		return info, err
	}
	run, err := h.db.LoadRun(ctx, info.RunID)
	if errors.Is(err, store.ErrNoRun) || err == nil && !sc.HoldsRun(run.Client) {
		err = store.ErrNoHandle
	}
	return info, err
}

// readRef is the journal's record of a read that succeeded: what was read,
// not the bytes again.
type readRef struct {
	Handle string `json:"handle"`
	Bytes  int64  `json:"bytes"`
	Digest string `json:"digest"`
}

// replayRead answers a journaled read by reading its handle again, and
// stops the run when the bytes are not those the first attempt got.
func (r *runHost) replayRead(ctx context.Context, c sandbox.Call, rd sandbox.Read, je *store.JournalEntry) (json.RawMessage, error) {
	var ref readRef
	json.Unmarshal(je.Outcome, &ref)
	val, te, err := r.h.readHandle(ctx, rd, r.scope)
	if err != nil {
		return nil, err
	}
	if te != nil || int64(len(val)) != ref.Bytes || digestOf(val) != ref.Digest {
		why := "its bytes changed"
		if te != nil {
			why = te.Message
		}
		return nil, r.diverge(c, fmt.Sprintf("call %d of the resumed run read %s again, and it no longer holds what the first attempt read: %s", c.Seq, rd.Handle, why))
	}
	r.record(c.Seq, c.Address, true, je.Ms)
	return val, nil
}

// Bounds of a read by path, checked before the value is touched: how many
// keys and indexes the path may have, and how large a value it may walk
// (a multiple of the run's memory limit).
const (
	maxReadPath      = 100
	readScanPerLimit = 4
)

// readHandle reads what rd asks of its handle, as the JSON value the guest
// receives. A read the handle cannot answer is a ToolError; an error is
// the store's.
func (h *Hub) readHandle(ctx context.Context, rd sandbox.Read, sc *scope.Scope) (json.RawMessage, *sandbox.ToolError, error) {
	info, err := h.handleIn(ctx, rd.Handle, sc)
	if errors.Is(err, store.ErrNoHandle) {
		return nil, toolError(CodeUnknownHandle, sandbox.ReadAddress, "no handle %q here: a handle comes from the result of an earlier execute and lasts as long as its run is kept", rd.Handle), nil
	}
	if err != nil {
		return nil, nil, err
	}
	// The guest holds what it reads within its memory limit; a read that
	// cannot fit says so, rather than failing the reading run.
	tooLarge := func(n int64, what string) *sandbox.ToolError {
		return toolError(CodeReadTooLarge, sandbox.ReadAddress, "%s of %s is %d bytes, above the %d bytes this run may hold", what, rd.Handle, n, h.limits.MemoryBytes)
	}
	switch {
	case rd.Slice:
		if rd.Offset >= info.Bytes {
			return json.RawMessage(`""`), nil, nil
		}
		n := info.Bytes - rd.Offset
		if rd.Length > 0 && rd.Length < n {
			n = rd.Length
		}
		if n > h.limits.MemoryBytes {
			return nil, tooLarge(n, "the slice"), nil
		}
		// A slice holds the characters that start within it, so slices in
		// a row join into the whole: up to 3 more bytes complete its last.
		b, err := h.db.HandleBytes(ctx, rd.Handle, rd.Offset, n+utf8.UTFMax-1)
		if err != nil {
			return nil, nil, err
		}
		out, _ := json.Marshal(string(runeSlice(b, n)))
		return out, nil, nil
	case len(rd.Path) > 0:
		if info.Kind != HandleJSON {
			return nil, toolError(CodeInvalidPath, sandbox.ReadAddress, "handle %s holds a string, which has no path; read it with { offset, length } or whole", rd.Handle), nil
		}
		if len(rd.Path) > maxReadPath {
			return nil, toolError(CodeInvalidPath, sandbox.ReadAddress, "the path has %d keys and indexes, above the limit of %d a path may have", len(rd.Path), maxReadPath), nil
		}
		if scan := readScanPerLimit * h.limits.MemoryBytes; info.Bytes > scan {
			return nil, toolError(CodeReadTooLarge, sandbox.ReadAddress, "%s is %d bytes, above the %d bytes a read by path may walk (%d times the run's memory limit)", rd.Handle, info.Bytes, scan, readScanPerLimit), nil
		}
		v, err := h.db.HandleValue(ctx, rd.Handle)
		if err != nil {
			return nil, nil, err
		}
		sub, msg, err := exactjson.At(ctx, v, rd.Path)
		if err != nil {
			return nil, nil, err
		}
		if msg != "" {
			return nil, toolError(CodeInvalidPath, sandbox.ReadAddress, "path %s of %s: %s", strings.Join(rd.Path, "."), rd.Handle, msg), nil
		}
		if int64(len(sub)) > h.limits.MemoryBytes {
			return nil, tooLarge(int64(len(sub)), "the value at "+strings.Join(rd.Path, ".")), nil
		}
		return sub, nil, nil
	}
	if info.Bytes > h.limits.MemoryBytes {
		return nil, tooLarge(info.Bytes, "the value"), nil
	}
	v, err := h.db.HandleValue(ctx, rd.Handle)
	if err != nil {
		return nil, nil, err
	}
	if info.Kind == HandleString {
		out, _ := json.Marshal(string(v))
		return out, nil, nil
	}
	return v, nil, nil
}

// runeSlice is the first n bytes of b, a slice's bytes read with up to
// utf8.UTFMax-1 more: less a character that started before it, plus the
// rest of one that starts within it.
func runeSlice(b []byte, n int64) []byte {
	start, end := 0, int(min(n, int64(len(b))))
	for start < end && !utf8.RuneStart(b[start]) {
		start++
	}
	for end < len(b) && !utf8.RuneStart(b[end]) {
		end++
	}
	return b[start:end]
}

// digestOf is "sha256:" and the hex SHA-256 of data: how a read's journal
// entry names the bytes it read.
func digestOf(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}
