package hub

// Direct mode: a profile whose every tool policy allows or asks about is an
// MCP tool of its own (hub/mcpserver names and lists them). A call of one
// is a run whose code is that one call, so it passes the same gate,
// journal, approvals and channels as execute; the run's result is the
// upstream's result as sent (content, structuredContent, isError),
// scrubbed of secrets like every journaled outcome.

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"capabilities.sh/capabilities/hub/catalog"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/exactjson"
	"capabilities.sh/capabilities/hub/policy"
	"capabilities.sh/capabilities/hub/skills"
	"capabilities.sh/capabilities/hub/store"
	"capabilities.sh/capabilities/sandbox"
)

// DirectTool is one tool a profile serves in direct mode, on one
// connection.
type DirectTool struct {
	Tool *catalog.Tool
	// Connection is the connection its calls use: "" (the source's
	// default) when the source has one connection, or none, in the
	// profile; else each of them is a tool of its own.
	Connection string
	// Asks says the gate asks the person before a call runs.
	Asks bool
}

// DirectTools lists the tools of profile that policy does not deny, by
// address, each on each of its source's connections in the profile. It
// fails with *UnknownProfileError for a profile the config does not have.
func (h *Hub) DirectTools(profile string) ([]DirectTool, error) {
	sc, err := h.scope(profile)
	if err != nil {
		return nil, err
	}
	cfg := sc.Config(h.Config())
	pol := h.currentPolicy()
	var out []DirectTool
	for _, t := range sc.Snapshot(h.catalog.Snapshot()).Tools {
		src := cfg.Sources[t.Source]
		if src == nil || src.Disabled {
			continue
		}
		conns := []string{""}
		if names := src.ConnectionNames(); len(names) > 1 {
			conns = names
		}
		for _, conn := range conns {
			d := sc.Gate(pol, policy.InputFor(t, cmp.Or(conn, src.DefaultConnection()), cfg))
			if d.Mode != config.Deny {
				out = append(out, DirectTool{Tool: t, Connection: conn, Asks: d.Mode == config.Ask})
			}
		}
	}
	return out, nil
}

// ToolCall is one call of a tool served in direct mode.
type ToolCall struct {
	Profile string // the profile the client selected
	Client  string // the client's name, as ExecuteRequest.Client
	Address string // the tool's address (DirectTool.Tool.Address)
	// Connection is DirectTool.Connection: "" for the source's default.
	Connection string
	Args       json.RawMessage // the arguments object; empty for {}
}

// CallTool makes one call of a tool as a run of its own and returns the
// run's envelope: completed with the upstream's result as sent, failed, or
// waiting for a person. The arguments are checked against the tool's
// stored schema and the size of a call (Limits.ArgsBytes) first; bad ones
// fail with *InputError and nothing runs. A
// call that repeats one waiting in the profile (the same tool, connection
// and arguments) resumes that run instead, so a call the person approved
// runs once, when the model calls it again.
//
// Concurrency: safe for concurrent use; equal calls are serialised.
func (h *Hub) CallTool(ctx context.Context, c ToolCall) (*Envelope, error) {
	sc, err := h.scope(c.Profile)
	if err != nil {
		return nil, err
	}
	snap := sc.Snapshot(h.catalog.Snapshot())
	t, ok := snap.Lookup(c.Address)
	if !ok {
		return nil, &InputError{"name", "no tool " + c.Address + " in this profile now; list the tools again"}
	}
	args := []byte(c.Args)
	if len(args) == 0 || string(args) == "null" {
		args = []byte("{}")
	}
	v, ok := exactjson.Decode(args)
	if _, isObj := v.(map[string]any); !ok || !isObj {
		return nil, &InputError{"arguments", "must be a JSON object"}
	}
	canon, _ := json.Marshal(v) // keys sorted, numbers as written
	if n := sandbox.ArgsSize(v); n > h.limits.ArgsBytes {
		return nil, &InputError{"arguments", fmt.Sprintf("are %s as JSON, above the %s one call may send; send less at once", config.HumanBytes(int64(n)), config.HumanBytes(int64(h.limits.ArgsBytes)))}
	}
	if rs := snap.InputSchema(t); rs != nil {
		var inst any
		_ = json.Unmarshal(canon, &inst)
		if err := rs.Validate(inst); err != nil {
			return nil, &InputError{"arguments", strings.TrimPrefix(err.Error(), "validating root: ")}
		}
	}
	code := sandbox.CallCode(t.Namespace, t.JSName, canon, c.Connection)
	sum := sha256.Sum256([]byte(c.Profile + "\x00" + code))
	unlock := h.lockRun("call " + hex.EncodeToString(sum[:16]))
	defer unlock()
	waiting, err := h.db.RunsWithCode(ctx, code, StatusAwaitingApproval, StatusAwaitingConnection)
	if err != nil {
		return nil, err
	}
	for _, r := range waiting {
		if sc.HoldsRun(r.Client) {
			return h.Execute(ctx, ExecuteRequest{Resume: r.ID, Client: c.Client, Profile: c.Profile})
		}
	}
	return h.Execute(ctx, ExecuteRequest{Code: code, Client: c.Client, Profile: c.Profile, direct: true})
}

// AwaitSources waits, as search does, for the sources of a profile ("" for
// the whole hub) that are being listed for the first time, until the
// request's start-up deadline or ctx ends: a direct-mode client's first
// tools/list then holds their tools, where a client that lists its tools
// once would otherwise see none of them.
func (h *Hub) AwaitSources(ctx context.Context, profile string) error {
	sc, err := h.scope(profile)
	if err != nil {
		return err
	}
	h.awaitSources(ctx, sc.Config(h.Config()).EnabledSources(""), false)
	return nil
}

// DirectSkills lists the skills profile's search and describe show, in
// address order: the person's own, and those of its sources that policy
// does not deny. A direct-mode profile serves each as a tool.
func (h *Hub) DirectSkills(profile string) ([]*skills.Skill, error) {
	sc, err := h.scope(profile)
	if err != nil {
		return nil, err
	}
	v := h.view(sc)
	var out []*skills.Skill
	for i, sk := range v.skills.All() {
		if !v.skillHidden[i] {
			out = append(out, sk)
		}
	}
	return out, nil
}

// Limits are the limits of the hub's runs.
func (h *Hub) Limits() sandbox.Limits { return h.limits }

// HandleRead is a read of a handle by a client of a direct-mode profile:
// the text of the handle's value (a string's own text, else its JSON
// text), or of the value at Path, from byte Offset, Length bytes of it
// or to its end.
type HandleRead struct {
	Profile string
	Handle  string
	Path    []string
	Offset  int64
	Length  int64 // 0: to the end
}

// HandleText is what a HandleRead read: Text is bytes Offset to End (as
// asked: slices in a row join into the whole) of a text of Total bytes.
type HandleText struct {
	Text               string
	Offset, End, Total int64
}

// ReadHandle reads r within hub.read's bounds, and returns at most the
// inline limit's bytes (Limits().InlineResultBytes): a longer length, or a
// slice or whole value of more, fails with *InputError before its bytes
// are read (a read by path first walks to the value, as hub.read does), as
// does a handle no run of the profile gave out.
func (h *Hub) ReadHandle(ctx context.Context, r HandleRead) (*HandleText, error) {
	sc, err := h.scope(r.Profile)
	if err != nil {
		return nil, err
	}
	most := int64(h.limits.InlineResultBytes)
	switch {
	case r.Offset < 0 || r.Length < 0:
		return nil, &InputError{"offset", "offset and length are bytes, 0 or more"}
	case r.Length > most:
		return nil, &InputError{"length", fmt.Sprintf("%d bytes is above the %d bytes one read returns", r.Length, most)}
	}
	info, err := h.handleIn(ctx, r.Handle, sc)
	if errors.Is(err, store.ErrNoHandle) {
		return nil, &InputError{"handle", fmt.Sprintf("no handle %q here: a handle comes from a result of this profile's tools and lasts as long as its run is kept", r.Handle)}
	}
	if err != nil {
		return nil, err
	}
	// span is the part of a text of total bytes the read asks for, or why
	// it is too much.
	span := func(total int64) (int64, int64, error) {
		off := min(r.Offset, total)
		n := total - off
		if r.Length > 0 {
			n = min(n, r.Length)
		}
		if n > most {
			return 0, 0, &InputError{"length", fmt.Sprintf("the text is %d bytes, and from byte %d on it is %d, above the %d bytes one read returns; read it in slices with offset and length", total, off, total-off, most)}
		}
		return off, n, nil
	}
	rd := sandbox.Read{Handle: r.Handle, Path: r.Path}
	if len(r.Path) == 0 {
		off, n, err := span(info.Bytes)
		if err != nil {
			return nil, err
		}
		// A read at the end reads "" (Length 0 would read to the end).
		rd.Slice, rd.Offset, rd.Length = true, off, n
	}
	v, te, err := h.readHandle(ctx, rd, sc)
	if err != nil {
		return nil, err
	}
	if te != nil {
		field := "handle"
		if len(r.Path) > 0 {
			field = "path"
		}
		return nil, &InputError{field, te.Message}
	}
	text := []byte(v)
	var s string
	if len(v) > 0 && v[0] == '"' && json.Unmarshal(v, &s) == nil {
		text = []byte(s)
	}
	if len(r.Path) == 0 {
		return &HandleText{Text: string(text), Offset: rd.Offset, End: rd.Offset + rd.Length, Total: info.Bytes}, nil
	}
	total := int64(len(text))
	off, n, err := span(total)
	if err != nil {
		return nil, err
	}
	return &HandleText{Text: string(runeSlice(text[off:], n)), Offset: off, End: off + n, Total: total}, nil
}
