package mcpserver

// Direct mode: a profile whose every tool policy does not deny is an MCP
// tool of its own, named source__tool (see directNames), with the
// upstream's description, input schema and annotations, except that a tool
// the person is asked about is never read-only and is destructive. A call
// is one run in the heart (hub.Hub.CallTool): the same gate, journal,
// approvals and channels as execute. Its result is the upstream's as sent,
// or, while it waits for the person, an input request where the client
// takes them, else a result naming the run and `capabilities hub approve`;
// the same call made again after the decision runs once. A changed catalog
// or policy changes the tools in place, and the SDK tells the profile's
// sessions (notifications/tools/list_changed); an edit that leaves the
// profile's tools as they were sends nothing. The skills in the profile's
// scope are tools too (directskills.go), and hub__read reads a result over
// the inline limit (directread.go).

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/inputstate"
	"capabilities.sh/capabilities/hub/skills"
	"capabilities.sh/capabilities/internal/hiddentext"
	"capabilities.sh/capabilities/sandbox"
)

// DirectHub is what serving direct-mode profiles needs of the heart
// besides [ProfileHub]. *hub.Hub satisfies it.
type DirectHub interface {
	ProfileHub
	// DirectTools lists the tools a profile serves in direct mode.
	DirectTools(profile string) ([]hub.DirectTool, error)
	// CallTool makes one call of one of them as a run of its own.
	CallTool(ctx context.Context, c hub.ToolCall) (*hub.Envelope, error)
	// DirectSkills lists the skills a profile serves as tools.
	DirectSkills(profile string) ([]*skills.Skill, error)
	// ReadHandle reads part of a result kept as a handle (hub__read), and
	// Limits bound it.
	ReadHandle(ctx context.Context, r hub.HandleRead) (*hub.HandleText, error)
	Limits() sandbox.Limits
	// Subscribe calls fn for each event of the hub until cancel.
	Subscribe(fn func(hub.Event)) (cancel func())
	// AwaitSources waits for the profile's sources being listed for the
	// first time, within the start-up deadline.
	AwaitSources(ctx context.Context, profile string) error
}

var _ DirectHub = (*hub.Hub)(nil)

// directInstructions are the server instructions of a direct-mode
// profile, before the profile's own line.
const directInstructions = `Each of the user's tools is a tool of its own here, named source__tool. A call that needs the user's approval or a connection returns without running and says so: tell the user, and after they decide call the tool again with the same arguments; it then runs once.`

// maxToolName is the longest tool name clients take everywhere.
const maxToolName = 64

// directProfile is the MCP server (servers, the newest last: sessions of
// an older one keep it) and the tools of one direct-mode profile.
//
// Safe for concurrent use.
type directProfile struct {
	hub  DirectHub
	opts Options
	log  *slog.Logger
	name string

	mu      sync.Mutex
	servers []profileServer
	synced  bool
	tools   map[string]directEntry // by MCP name
	// changes counts the syncs that changed the tools: each one tells
	// the sessions, and no other does.
	changes int
}

// directEntry is one MCP tool of the profile and what a call of it does:
// call the upstream tool call, read skill, or else read a handle.
type directEntry struct {
	call  hub.DirectTool
	skill *skills.Skill
	tool  *mcp.Tool
	id    string // what it is: a tool on a connection, a skill, the reader
	sig   string // the definition as JSON: a change is added again
}

// server returns the profile's server for instructions text, making one
// when they changed; tools are listed on first use.
func (d *directProfile) server(text string) *mcp.Server {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.synced {
		d.syncLocked()
	}
	if n := len(d.servers); n > 0 && d.servers[n-1].instructions == text {
		return d.servers[n-1].srv
	}
	// Older servers without a session are dropped; those with one keep
	// getting the profile's changes.
	d.servers = slices.DeleteFunc(d.servers, func(ps profileServer) bool {
		for range ps.srv.Sessions() {
			return false
		}
		return true
	})
	m := &server{hub: d.hub, log: d.log, profile: d.name, sessions: d.opts.Sessions, mode: config.ProfileDirect}
	srv := mcp.NewServer(&mcp.Implementation{Name: "capabilities", Title: "capabilities", Version: d.opts.Version}, &mcp.ServerOptions{
		Instructions: text,
		Logger:       m.log,
		// The tools change with the catalog and the policy, and the
		// sessions are told: a client keeps no list of them.
		SetCacheable: func(_ context.Context, _ mcp.Request, c *mcp.Cacheable) { c.CacheScope = "private" },
	})
	srv.AddReceivingMiddleware(m.logInitialize, d.awaitTools)
	for _, name := range slices.Sorted(maps.Keys(d.tools)) {
		e := d.tools[name]
		d.add(srv, e)
	}
	d.servers = append(d.servers, profileServer{instructions: text, srv: srv})
	return srv
}

// awaitTools makes tools/list wait for the profile's sources being listed
// for the first time (a hub a client's shim has just started), then brings
// the tools up to date before the SDK answers: clients that list tools
// once, at start, then see them. A wait that runs out answers with what
// there is; the rest follows as notifications/tools/list_changed.
func (d *directProfile) awaitTools(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "tools/list" {
			if err := d.hub.AwaitSources(ctx, d.name); err == nil {
				d.sync()
			}
		}
		return next(ctx, method, req)
	}
}

// sync brings the profile's tools up to the hub's catalog and policy.
func (d *directProfile) sync() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.syncLocked()
}

func (d *directProfile) syncLocked() {
	d.synced = true
	list, err := d.hub.DirectTools(d.name)
	sks, serr := d.hub.DirectSkills(d.name)
	next := directEntries(list, sks, d.hub.Limits().InlineResultBytes)
	if info, perr := d.hub.Profile(d.name); err != nil || serr != nil || perr != nil || info.Mode != config.ProfileDirect {
		// The profile is gone or changed mode: nothing of it exists.
		next = map[string]directEntry{}
	}
	var gone []string
	for name := range d.tools {
		if _, ok := next[name]; !ok {
			gone = append(gone, name)
		}
	}
	changed := len(gone) > 0
	if len(gone) > 0 {
		slices.Sort(gone)
		for _, ps := range d.servers {
			ps.srv.RemoveTools(gone...)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(next)) {
		e := next[name]
		if old, ok := d.tools[name]; ok && old.sig == e.sig && old.id == e.id {
			next[name] = old
			continue
		}
		changed = true
		for _, ps := range d.servers {
			d.add(ps.srv, e)
		}
	}
	if changed && d.tools != nil {
		d.changes++
	}
	d.tools = next
}

// add adds e to srv. A definition the SDK refuses (a schema it cannot
// take) is served with an open object schema; the heart validates the
// arguments against the stored one anyway.
func (d *directProfile) add(srv *mcp.Server, e directEntry) {
	var h mcp.ToolHandler
	switch {
	case e.skill != nil:
		h = d.skillHandler(e.skill)
	case e.call.Tool != nil:
		h = d.handler(e.call)
	default:
		h = d.readHandler()
	}
	defer func() {
		if r := recover(); r != nil {
			d.log.Warn("a tool's definition was refused; it is served with an open input schema", "tool", e.tool.Name, "err", r)
			t := *e.tool
			t.InputSchema = json.RawMessage(`{"type":"object"}`)
			srv.AddTool(&t, h)
		}
	}()
	srv.AddTool(e.tool, h)
}

// directEntries names the tools of list and the skills of sks and makes
// each one's MCP tool, and hub__read's, whose reads return at most
// readBytes.
func directEntries(list []hub.DirectTool, sks []*skills.Skill, readBytes int) map[string]directEntry {
	names := toolNames(append(toolNamesOf(list), skillNamesOf(sks)...))
	out := make(map[string]directEntry, len(list)+len(sks)+1)
	for i, sk := range sks {
		name := names[len(list)+i]
		tool := skillTool(name, sk)
		sig, _ := json.Marshal(tool)
		out[name] = directEntry{skill: sk, tool: tool, id: "skill\x00" + sk.Address, sig: string(sig)}
	}
	read := readTool(readBytes)
	sig, _ := json.Marshal(read)
	out[read.Name] = directEntry{tool: read, id: "read", sig: string(sig)}
	for i, dt := range list {
		t := dt.Tool
		desc := hiddentext.ForModel(t.Description)
		tool := &mcp.Tool{Name: names[i], Title: hiddentext.ForModel(t.Title), Description: desc, InputSchema: objectSchema(t.InputSchema)}
		if dt.Connection != "" {
			tool.Description = strings.TrimSpace(fmt.Sprintf("%s\n\n(Connection %s of %s.)", desc, dt.Connection, t.Source))
		}
		var ann mcp.ToolAnnotations
		if t.Annotations != nil {
			ann = *t.Annotations
			ann.Title = hiddentext.ForModel(ann.Title)
		}
		if dt.Asks {
			// The person is asked before it runs: never read-only to a
			// client that would skip its own confirmation for one.
			ann.ReadOnlyHint, ann.IdempotentHint = false, false
			ann.DestructiveHint = boolPtr(true)
		}
		if t.Annotations != nil || dt.Asks {
			tool.Annotations = &ann
		}
		sig, _ := json.Marshal(tool)
		out[names[i]] = directEntry{call: dt, tool: tool, id: "tool\x00" + dt.Tool.Address + "\x00" + dt.Connection, sig: string(sig)}
	}
	return out
}

// objectSchema is raw when it is a JSON object whose type is "object",
// else the open object schema: the SDK takes nothing else, and every MCP
// tool takes an object of arguments. Its titles and descriptions lose the
// characters the person does not see (hiddentext.ForModel), as search's
// and describe's do; its values (an enum, a default) keep them.
func objectSchema(raw json.RawMessage) json.RawMessage {
	var m map[string]any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if d.Decode(&m) != nil || m["type"] != "object" {
		return json.RawMessage(`{"type":"object"}`)
	}
	if !hiddentext.Has(string(raw)) {
		return raw
	}
	forModel(m)
	clean, err := json.Marshal(m)
	if err != nil {
		return raw // cannot happen: m was decoded from JSON
	}
	return clean
}

// forModel cleans the text of schema v in place: the "title" and
// "description" of it and of every schema in it. Values (an enum, a
// const, a default, examples) are left as they are.
func forModel(v any) {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			switch k {
			case "title", "description":
				if s, ok := e.(string); ok {
					t[k] = hiddentext.ForModel(s)
				}
			case "enum", "const", "default", "examples", "example":
			case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas":
				if named, ok := e.(map[string]any); ok {
					for _, sub := range named {
						forModel(sub)
					}
				}
			default:
				forModel(e)
			}
		}
	case []any:
		for _, e := range t {
			forModel(e)
		}
	}
}

// directNames names each tool of list for MCP: namespace__tool, with the
// connection between them where the source has several in the profile
// (namespace__connection__tool). See toolNames for the rest.
func directNames(list []hub.DirectTool) []string { return toolNames(toolNamesOf(list)) }

// toolName is what one MCP tool's name is made of: the parts its name
// joins with __, and its identity, which its hash suffix is of.
type toolName struct {
	parts []string
	id    string
}

func toolNamesOf(list []hub.DirectTool) []toolName {
	out := make([]toolName, len(list))
	for i, dt := range list {
		parts := []string{dt.Tool.Namespace}
		if dt.Connection != "" {
			parts = append(parts, dt.Connection)
		}
		out[i] = toolName{parts: append(parts, dt.Tool.Name), id: dt.Tool.Source + "\x00" + dt.Connection + "\x00" + dt.Tool.Name}
	}
	return out
}

// toolNames names each of list: its parts joined by __. Characters other
// than ASCII letters, digits, _ and - become _. A name that needed that,
// that is over maxToolName, or that two tools would share is cut to fit
// and ends in _ and eight hex digits of the SHA-256 of its identity. Names
// depend only on each tool's own identity and on which others share its
// name, not on the order of list, so they are the same across restarts.
func toolNames(list []toolName) []string {
	names := make([]string, len(list))
	plain := make([]bool, len(list))
	count := map[string]int{}
	for i, tn := range list {
		parts := make([]string, len(tn.parts))
		lossless := true
		for j, p := range tn.parts {
			clean := cleanNamePart(p)
			lossless = lossless && clean == p
			parts[j] = clean
		}
		names[i] = strings.Join(parts, "__")
		plain[i] = lossless && len(names[i]) <= maxToolName
		count[names[i]]++
	}
	for i, tn := range list {
		if plain[i] && count[names[i]] == 1 {
			continue
		}
		sum := sha256.Sum256([]byte(tn.id))
		suffix := "_" + hex.EncodeToString(sum[:4])
		names[i] = names[i][:min(len(names[i]), maxToolName-len(suffix))] + suffix
	}
	return names
}

// cleanNamePart keeps ASCII letters, digits, _ and -, and writes _ for any
// other character.
func cleanNamePart(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}

// handler is the MCP handler of tool dt of the profile.
func (d *directProfile) handler(dt hub.DirectTool) mcp.ToolHandler {
	m := &server{hub: d.hub, log: d.log, profile: d.name}
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		client := clientName(req)
		var env *hub.Envelope
		var err error
		if state := req.Params.RequestState; state != "" {
			// The client answers the input request this hub signed for the
			// call's run.
			var dismissed bool
			var refused error
			env, dismissed, refused, err = m.resumeAnswered(ctx, req, state, client)
			if refused != nil {
				return textResult("The approval answer was refused: "+refused.Error()+". Call the tool again with the same arguments to be asked anew.", true), nil
			}
			if err != nil {
				return inputErrorResult(err)
			}
			if dismissed {
				return directResult(env, d.hub.Limits().InlineResultBytes), nil
			}
		} else {
			env, err = d.hub.CallTool(ctx, hub.ToolCall{Profile: d.name, Client: client, Address: dt.Tool.Address, Connection: dt.Connection, Args: req.Params.Arguments})
			if err != nil {
				return inputErrorResult(err)
			}
		}
		if env.Status == hub.StatusAwaitingApproval && canAskInForm(req) {
			if res, ok := m.inputRequests(ctx, env); ok {
				return res, nil
			}
		}
		if env.Status == hub.StatusAwaitingApproval && canElicit(req) {
			// A client with legacy elicitation only is asked the way
			// execute asks it (elicit.go).
			if env, err = m.elicitConsent(ctx, req.Session, env, client); errors.Is(err, inputstate.ErrBadState) {
				return textResult("The approval answer was refused: "+err.Error()+". Call the tool again with the same arguments to be asked anew.", true), nil
			} else if err != nil {
				return inputErrorResult(err)
			}
		}
		return directResult(env, d.hub.Limits().InlineResultBytes), nil
	}
}

// directResult is what a client gets for a call's run: the upstream's
// result as sent when it completed (or, over the inline limit, the handle
// it is kept as, which hub__read reads in slices of readBytes), else what
// the call waits for or why it failed.
func directResult(env *hub.Envelope, readBytes int) *mcp.CallToolResult {
	switch env.Status {
	case hub.StatusCompleted:
		var probe map[string]json.RawMessage
		_ = json.Unmarshal(env.Result, &probe)
		if _, ok := probe["handle"]; ok && probe["content"] == nil {
			var hr hub.HandleResult
			_ = json.Unmarshal(env.Result, &hr)
			return textResult(fmt.Sprintf("The result is %d bytes of JSON, over the hub's inline limit, and is kept as handle %s (run %s). "+
				"Read it with the tool %s: {\"handle\": %q, \"path\": \"content.0.text\"} is the text of its first content item, and with \"offset\" and \"length\" a slice of it; "+
				"{\"handle\": %q, \"offset\": 0, \"length\": %d} is the first slice of its JSON text. One read returns at most %d bytes. Its start:\n%s",
				hr.Bytes, hr.Handle, env.RunID, readToolName, hr.Handle, hr.Handle, readBytes, readBytes, hr.Preview), false)
		}
		var res mcp.CallToolResult
		if err := json.Unmarshal(env.Result, &res); err != nil || probe["content"] == nil {
			return textResult(string(env.Result), false)
		}
		// Only the hub asks its own clients for input.
		res.InputRequests, res.RequestState = nil, ""
		if len(res.Content) == 0 && res.StructuredContent != nil {
			// A result with structured content only (an OpenAPI
			// operation's JSON body) also carries it as text, as MCP asks
			// of a tool that returns structured content, for clients that
			// read content alone.
			if b, err := json.Marshal(res.StructuredContent); err == nil {
				res.Content = []mcp.Content{&mcp.TextContent{Text: string(b)}}
			}
		}
		return &res
	case hub.StatusAwaitingApproval:
		return textResult(fmt.Sprintf("Not run yet: this call waits for the user's approval (run %s). Tell the user; they decide in the hub's dialog or with `capabilities hub approve %s`. Then call this tool again with the same arguments: it runs once.", env.RunID, env.RunID), false)
	case hub.StatusAwaitingConnection:
		var msgs []string
		for _, p := range env.Pending {
			msgs = append(msgs, strings.TrimSpace(p.Summary+": "+p.Message))
		}
		return textResult(fmt.Sprintf("Not run yet (run %s): %s Then call this tool again with the same arguments.", env.RunID, strings.Join(msgs, " ")), false)
	}
	if env.Error != nil {
		// The call's error, not the one-call run's: "Uncaught" is the
		// sandbox's word for an error the code did not catch.
		msg := strings.TrimPrefix(env.Error.Message, "Uncaught ")
		if env.Error.Hint != "" {
			msg += " (" + env.Error.Hint + ")"
		}
		return textResult(msg, true)
	}
	return textResult(env.Line(), true)
}
