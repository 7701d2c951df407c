// Package mcpserver is the hub's MCP surface: the three tools (search,
// describe and execute) every client sees, approvals asked in the client's
// own form as input requests with a signed state (or, for a client of an
// earlier protocol, as elicitation requests, elicit.go), and the Skills
// extension serving the person's local skills.
//
// It sits above the heart (package hub) and knows it only through [Hub],
// the few methods it needs; *hub.Hub satisfies it. The wording of the
// surface (the tools' descriptions and schemas, the server instructions)
// lives here and changes only with evidence: every byte of it is a cost
// each client pays at every session.
//
// One server from [New] serves every client session, over the local API's
// socket (hub/localapi) and the optional HTTP endpoint alike. [Servers]
// adds one server per profile a client selects, whose every request the
// heart makes in that profile; a direct-mode profile's server lists each
// of its tools as an MCP tool of its own (direct.go).
package mcpserver

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/inputstate"
	"capabilities.sh/capabilities/hub/secrets"
	"capabilities.sh/capabilities/hub/skills"
	"capabilities.sh/capabilities/internal/hiddentext"
)

// Hub is what the MCP surface needs of the heart. *hub.Hub satisfies it.
type Hub interface {
	// Search, Describe and Execute are the three tools.
	Search(ctx context.Context, req hub.SearchRequest) (string, error)
	Describe(ctx context.Context, req hub.DescribeRequest) (string, error)
	Execute(ctx context.Context, req hub.ExecuteRequest) (*hub.Envelope, error)
	// Pending lists a run's open approvals and connection inputs.
	Pending(ctx context.Context, runID string) ([]hub.Approval, error)
	// SignInputs signs the state of an input request asking about open
	// approvals of a run; RedeemInputs checks a state it signed and
	// records the client's answers.
	SignInputs(ctx context.Context, runID string, pendingIDs []string) (string, error)
	// SignPlan signs the state of one input request asking about all the
	// open calls of a run's plan at once, keyed by the first.
	SignPlan(ctx context.Context, runID string, pendingIDs []string) (string, error)
	RedeemInputs(ctx context.Context, state string, answers map[string]string, actor string) (runID string, asked []string, err error)
	// Subscribe calls fn for each of the hub's events until cancel: a
	// form asking about calls decided elsewhere is withdrawn.
	Subscribe(fn func(hub.Event)) (cancel func())
	// ServedSkills are the skills the Skills extension serves, in address
	// order; ReadSkillFile reads one of their files.
	ServedSkills() []*skills.Skill
	ReadSkillFile(sk *skills.Skill, rel string) ([]byte, error)
}

var _ Hub = (*hub.Hub)(nil)

// Options configure [New].
type Options struct {
	// Version is the hub's version, as the server's implementation says it.
	Version string
	// Logger receives the server's logs (each client that connects, among
	// them); nil discards them.
	Logger *slog.Logger
	// Sessions records the clients connected now; nil records nothing.
	Sessions *Sessions
}

// The model-facing wording of the surface. It changes only with evidence.
const (
	instructions = `Your tools live behind three tools. search finds tools by what you want to do and shows one-line TypeScript signatures; describe gives exact types; execute runs JavaScript where each source is a global object of async functions. Search, describe what you will call, then execute. If execute says a call awaits approval, tell the user and resume the run after they decide.`

	searchDescription = "Find the user's tools and skills by what you want to do, for example \"create a GitHub issue\" or \"recent Slack messages\". Returns tool addresses with one-line TypeScript signatures, best match first. Read full types with `describe` before writing code. Pass `namespace` to search or list one source."

	describeDescription = "Get exact TypeScript declarations for tools: an address (`github.createIssue`), a whole namespace (`github`, budget permitting), a type named in an earlier declaration (`github.Issue`), or a skill search found (`skill:name`: its instructions; `skill:name#file` one of its files). Write `execute` code against these types."

	executeDescription = "Run JavaScript in a sandbox where each of the user's sources is a global object of async functions: `await github.createIssue({ owner, repo, title })`. TypeScript annotations are allowed and stripped. Write the body of an async function and `return` what you need; run independent calls in parallel with `Promise.all` (calls that change data go to each source one at a time, in the order issued), and await every call whose effect you need: calls still in flight when the code returns are cancelled. There is no network or filesystem besides these functions. If a call needs the user's approval or a connection, the result says so and the user is asked on their screen or in this client; tell the user, then continue with `{ \"resume\": \"<runId>\" }` after they decide. Never ask the user for passwords or tokens in chat."
)

var (
	searchSchema = json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","maxLength":200,"description":"What you want to do. Empty lists a namespace."},"namespace":{"type":"string","description":"Search or list one source."},"limit":{"type":"integer","minimum":1,"maximum":25,"default":8}},"required":["query"]}`)

	describeSchema = json.RawMessage(`{"type":"object","properties":{"targets":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":10,"description":"Addresses, namespaces or type names."}},"required":["targets"]}`)

	executeSchema = json.RawMessage(`{"type":"object","properties":{"code":{"type":"string","maxLength":65536,"description":"JavaScript: the body of an async function."},"resume":{"type":"string","description":"A runId to continue."}}}`)

	// executeOutputSchema is the envelope, compact: the fixed cost of the
	// surface counts every byte of it.
	executeOutputSchema = json.RawMessage(`{"type":"object","properties":{"runId":{"type":"string"},"status":{"enum":["completed","failed","awaiting_approval","awaiting_connection","cancelled"]},"result":{},"error":{"type":"object","properties":{"code":{"type":"string"},"message":{"type":"string"},"hint":{"type":"string"}},"required":["code","message"]},"logs":{"type":"array","items":{"type":"string"}},"calls":{"type":"array","items":{"type":"object","properties":{"address":{"type":"string"},"ok":{"type":"boolean"},"ms":{"type":"number"}},"required":["address","ok","ms"]}},"pending":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"},"kind":{"enum":["approval","connection"]},"address":{"type":"string"},"summary":{"type":"string"},"message":{"type":"string"}},"required":["id","kind","summary"]}},"truncated":{"type":"object","properties":{"result":{"type":"boolean"},"logs":{"type":"boolean"}}},"notices":{"type":"array","items":{"type":"string"}}},"required":["runId","status","calls"]}`)
)

func boolPtr(b bool) *bool { return &b }

// Tools returns the definitions of the three tools, as tools/list shows them.
func Tools() []*mcp.Tool {
	return []*mcp.Tool{
		{
			Name:        "search",
			Description: searchDescription,
			InputSchema: searchSchema,
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: boolPtr(false)},
		},
		{
			Name:        "describe",
			Description: describeDescription,
			InputSchema: describeSchema,
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: boolPtr(false)},
		},
		{
			Name:         "execute",
			Description:  executeDescription,
			InputSchema:  executeSchema,
			OutputSchema: executeOutputSchema,
			Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: false, OpenWorldHint: boolPtr(true)},
		},
	}
}

// Instructions are the server instructions clients receive at initialize.
func Instructions() string { return instructions }

// server holds what the handlers of one MCP server use.
type server struct {
	hub Hub
	log *slog.Logger
	// profile is the profile every request of the server is made in; ""
	// is the whole hub.
	profile  string
	sessions *Sessions
	mode     string // the sessions' mode in the registry; "" is code mode
}

// New returns the MCP server of the code-mode surface over h: exactly three
// tools, and the Skills extension. One server serves every client session.
func New(h Hub, opts Options) *mcp.Server {
	return newServer(h, opts, "", instructions)
}

func newServer(h Hub, opts Options, profile, instructions string) *mcp.Server {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	m := &server{hub: h, log: log, profile: profile, sessions: opts.Sessions}
	s := mcp.NewServer(&mcp.Implementation{Name: "capabilities", Title: "capabilities", Version: opts.Version}, &mcp.ServerOptions{
		Instructions: instructions,
		Logger:       log,
		SetCacheable: setCacheable,
		Capabilities: skillsCapabilities(),
	})
	s.AddReceivingMiddleware(m.logInitialize)
	tools := Tools()
	s.AddTool(tools[0], m.handleSearch)
	s.AddTool(tools[1], m.handleDescribe)
	s.AddTool(tools[2], m.handleExecute)
	m.addSkillsExtension(s)
	return s
}

// listTTL is how long a client may cache tools/list (and server/discover):
// the three tools are fixed for the life of this binary, whatever the
// person's sources do, so an hour is safe.
const listTTL = time.Hour

// setCacheable marks the list results of MCP 2026-07-28 cacheable: for an
// hour, and only by the person's own client, since a hub serves one person.
func setCacheable(_ context.Context, req mcp.Request, c *mcp.Cacheable) {
	if _, ok := req.(*mcp.ReadResourceRequest); ok {
		// Skill files (hub/skills) change when the person edits them.
		c.TTLMs, c.CacheScope = int(skillTTL/time.Millisecond), "private"
		return
	}
	c.TTLMs = int(listTTL / time.Millisecond)
	c.CacheScope = "private"
}

func textResult(s string, isErr bool) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}, IsError: isErr}
}

// inputErrorResult reports bad input as a tool error the model can read.
func inputErrorResult(err error) (*mcp.CallToolResult, error) {
	var ie *hub.InputError
	if errors.As(err, &ie) {
		return textResult("Invalid input: "+ie.Error(), true), nil
	}
	return textResult(err.Error(), true), nil
}

func decodeArgs(raw json.RawMessage, v any) error {
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			return &hub.InputError{Field: ute.Field, Problem: fmt.Sprintf("must be %s", ute.Type.Kind())}
		}
		if strings.HasPrefix(err.Error(), "json: unknown field ") {
			return &hub.InputError{Field: strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`), Problem: "unknown field"}
		}
		return &hub.InputError{Field: "arguments", Problem: err.Error()}
	}
	return nil
}

func (m *server) handleSearch(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		Query     *string `json:"query"`
		Namespace string  `json:"namespace"`
		Limit     *int    `json:"limit"`
	}
	if err := decodeArgs(req.Params.Arguments, &in); err != nil {
		return inputErrorResult(err)
	}
	if in.Query == nil {
		return inputErrorResult(&hub.InputError{Field: "query", Problem: "required (a string up to 200 characters; empty lists the namespace)"})
	}
	sr := hub.SearchRequest{Query: *in.Query, Namespace: in.Namespace, Profile: m.profile}
	if in.Limit != nil {
		if *in.Limit == 0 {
			return inputErrorResult(&hub.InputError{Field: "limit", Problem: fmt.Sprintf("0 is out of range; must be %d to %d (default %d)", hub.SearchLimitMin, hub.SearchLimitMax, hub.SearchLimitDefault)})
		}
		sr.Limit = *in.Limit
	}
	out, err := m.hub.Search(ctx, sr)
	if err != nil {
		return inputErrorResult(err)
	}
	return textResult(out, false), nil
}

func (m *server) handleDescribe(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in hub.DescribeRequest
	if err := decodeArgs(req.Params.Arguments, &in); err != nil {
		return inputErrorResult(err)
	}
	in.Profile = m.profile
	out, err := m.hub.Describe(ctx, in)
	if err != nil {
		return inputErrorResult(err)
	}
	return textResult(out, false), nil
}

// logInitialize logs each client that starts a session (initialize, or
// server/discover for a 2026-07-28 client), by the name and version it
// gives.
func (m *server) logInitialize(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method != "initialize" && method != "server/discover" || err != nil {
			return res, err
		}
		if ss, ok := req.GetSession().(*mcp.ServerSession); ok {
			protocol := ""
			if p := ss.InitializeParams(); p != nil {
				protocol = p.ProtocolVersion
			}
			m.log.Info("client connected", "client", SessionClient(ss), "protocol", protocol, "session", ss.ID())
			m.sessions.add(ss, m.profile, cmp.Or(m.mode, modeCode))
		}
		return res, err
	}
}

// SessionClient is the name and version a client gave at initialize, or
// "unknown": how the hub's logs name the client of a session.
func SessionClient(ss *mcp.ServerSession) string {
	if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil {
		if n := clientLabel(p.ClientInfo.Name, p.ClientInfo.Version); n != "" {
			return n
		}
	}
	return "unknown"
}

// maxClientWords bounds what the hub keeps of a client's name and of its
// version: the client's own words, kept with each of its runs and shown
// to the person beside each call it asks for.
const maxClientWords = 100

// clientWords is s trimmed and cut to maxClientWords bytes at a
// character, "…" marking the cut.
func clientWords(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > maxClientWords {
		s = secrets.Shorten(s, maxClientWords) + "…"
	}
	return s
}

// clientLabel is a client's name and version as the hub names the client.
func clientLabel(name, version string) string {
	return strings.TrimSpace(clientWords(name) + " " + clientWords(version))
}

func clientName(req *mcp.CallToolRequest) string {
	// Clients of 2026-07-28 send clientInfo with every request, as a JSON
	// object once decoded. Read its two strings here: ClientInfo decodes
	// the whole value again (and its JSON decoder allocates 32 KB) on every
	// call.
	if m := req.Params.GetMeta(); m != nil {
		if ci, ok := m[mcp.MetaKeyClientInfo].(map[string]any); ok {
			name, _ := ci["name"].(string)
			version, _ := ci["version"].(string)
			return clientLabel(name, version)
		}
	}
	if ci := req.ClientInfo(); ci != nil {
		return clientLabel(ci.Name, ci.Version)
	}
	return ""
}

// canAskInForm reports whether the client negotiated 2026-07-28 and
// declared form elicitation, so approvals can travel as input requests.
func canAskInForm(req *mcp.CallToolRequest) bool {
	if req.ProtocolVersion() < "2026-07-28" {
		return false
	}
	caps := req.ClientCapabilities()
	if caps == nil || caps.Elicitation == nil {
		return false
	}
	e := caps.Elicitation
	return e.Form != nil || e.URL == nil // an empty elicitation capability means form
}

// resumeAnswered records a client's answers to the input requests this hub
// signed (state) and resumes their run. refused is why the answers were
// not taken (a state not signed here, or spent). dismissed says a call
// asked about got no decision (dismissed, declined or not a valid choice):
// it stays pending, and the caller answers with where the run stands, not
// the same form again at once.
func (m *server) resumeAnswered(ctx context.Context, req *mcp.CallToolRequest, state, client string) (env *hub.Envelope, dismissed bool, refused, err error) {
	answers := map[string]string{}
	for id, resp := range req.Params.InputResponses {
		if er, ok := resp.(*mcp.ElicitResult); ok {
			answers[id] = elicitDecision(er)
		}
	}
	runID, asked, refused := m.hub.RedeemInputs(ctx, state, answers, client)
	if refused != nil {
		return nil, false, refused, nil
	}
	env, err = m.hub.Execute(ctx, hub.ExecuteRequest{Resume: runID, Client: client, Profile: m.profile})
	for _, id := range asked {
		if answers[id] == "" {
			dismissed = true
		}
	}
	return env, dismissed, nil, err
}

func (m *server) handleExecute(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in struct {
		Code   string `json:"code"`
		Resume string `json:"resume"`
	}
	if err := decodeArgs(req.Params.Arguments, &in); err != nil {
		return inputErrorResult(err)
	}
	client := clientName(req)
	var env *hub.Envelope
	var err error
	if state := req.Params.RequestState; state != "" {
		// The client answers input requests this hub signed.
		var dismissed bool
		var refused error
		env, dismissed, refused, err = m.resumeAnswered(ctx, req, state, client)
		if refused != nil {
			return textResult("The approval answer was refused: "+refused.Error()+". Call execute again with { \"resume\": \"<runId>\" } to get a fresh request.", true), nil
		}
		if dismissed && err == nil {
			// The next resume asks in the form anew.
			return envelopeResult(env), nil
		}
	} else {
		env, err = m.hub.Execute(ctx, hub.ExecuteRequest{Code: in.Code, Resume: in.Resume, Client: client, Profile: m.profile})
	}
	if err != nil {
		return inputErrorResult(err)
	}
	if env.Status == hub.StatusAwaitingApproval && canAskInForm(req) {
		if res, ok := m.inputRequests(ctx, env); ok {
			return res, nil
		}
	}
	if env.Status == hub.StatusAwaitingApproval && canElicit(req) {
		runID := env.RunID
		if env, err = m.elicitConsent(ctx, req.Session, env, client); errors.Is(err, inputstate.ErrBadState) {
			return textResult(fmt.Sprintf("The approval answer was refused: %v. Call execute again with { \"resume\": %q } to be asked again.", err, runID), true), nil
		} else if err != nil {
			return inputErrorResult(err)
		}
	}
	return envelopeResult(env), nil
}

func envelopeResult(env *hub.Envelope) *mcp.CallToolResult {
	line := env.Line()
	return &mcp.CallToolResult{
		Content: []mcp.Content{&mcp.TextContent{Text: line}},
		// The same JSON, marshalled once (an envelope holds a record per
		// call); the SDK does the same for the tools it types.
		StructuredContent: json.RawMessage(line),
		IsError:           env.Status == hub.StatusFailed,
	}
}

// elicitDecision maps a form answer to a decision. Only an accepted form
// with one of the four choices decides; a declined or cancelled form, or an
// answer that is not a valid choice, leaves the call pending ("") and the
// next resume asks again.
func elicitDecision(er *mcp.ElicitResult) string {
	if er.Action != "accept" {
		return ""
	}
	if d, ok := er.Content["decision"].(string); ok {
		if _, _, err := hub.ParseDecision(d); err == nil {
			return d
		}
	}
	return ""
}

// approvalSchema is the form a client shows: one choice of four.
var approvalSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"decision": map[string]any{
			"type":      "string",
			"title":     "Decision",
			"enum":      []string{hub.AllowOnce, hub.AllowAlways, hub.DenyOnce, hub.DenyAlways},
			"enumNames": []string{"Allow once", "Always allow", "Deny", "Always deny"},
			"default":   hub.DenyOnce,
		},
	},
	"required": []string{"decision"},
}

// question is one form a client is asked about open approvals of a run:
// its message, and the pending call its answer is keyed by.
type question struct {
	id      string
	message string
}

// questions are the forms that ask about a run's open approvals, from its
// pending items: one per call, or, for a run's plan, one for all its calls
// (whole). open lists every open approval, in order; none leaves questions
// empty.
func questions(pend []hub.Approval) (open []string, qs []question, whole bool) {
	var plan []hub.Approval
	for _, a := range pend {
		if a.Kind != hub.KindApproval || a.Decision != "" {
			continue
		}
		open = append(open, a.ID)
		if a.Plan != nil {
			plan = append(plan, a)
		}
		conn := a.Connection
		if a.DefaultConnection {
			conn += " (default)"
		}
		msg := fmt.Sprintf("Allow %s?\nConnection: %s\nReason: %s\nRun: %s\nArguments (secrets hidden):\n%s%s", a.Address, conn, a.Reason, a.RunID, a.Preview, lookAlikes(a.Preview))
		qs = append(qs, question{id: a.ID, message: msg})
	}
	if len(plan) > 1 && len(plan) == len(open) {
		// A plan is asked about once: one form for all its calls.
		return open, []question{{id: open[0], message: planForm(plan)}}, true
	}
	return open, qs, false
}

// sign signs the state of the questions about open, the open approvals of
// run runID: a state for one question about them all when whole.
func (m *server) sign(ctx context.Context, runID string, open []string, whole bool) (string, error) {
	if whole {
		return m.hub.SignPlan(ctx, runID, open)
	}
	return m.hub.SignInputs(ctx, runID, open)
}

// inputRequests turns a run's open approvals into MCP input requests with a
// signed state.
func (m *server) inputRequests(ctx context.Context, env *hub.Envelope) (*mcp.CallToolResult, bool) {
	pend, err := m.hub.Pending(ctx, env.RunID)
	if err != nil {
		return nil, false
	}
	open, qs, whole := questions(pend)
	if len(open) == 0 {
		return nil, false
	}
	reqs := mcp.InputRequestMap{}
	for _, q := range qs {
		reqs[q.id] = &mcp.ElicitParams{Mode: "form", Message: q.message, RequestedSchema: approvalSchema}
	}
	state, err := m.sign(ctx, env.RunID, open, whole)
	if err != nil {
		m.log.Warn("signing an input request failed; the client gets the envelope", "run", env.RunID, "err", err)
		return nil, false
	}
	return &mcp.CallToolResult{InputRequests: reqs, RequestState: state}, true
}

// lookAlikes warns of each word of preview whose letters mix Latin, Greek
// or Cyrillic ones, which look alike ("аlice42" with a Cyrillic а), one
// line each, as the dialog does.
func lookAlikes(preview string) string {
	var b strings.Builder
	for _, m := range hiddentext.MixedScripts(preview) {
		fmt.Fprintf(&b, "\n! %s", m)
	}
	return b.String()
}

// planFormPreviews bounds what a plan's one form holds of its calls'
// arguments together, as one call's preview is bounded: a plan of many
// large calls (a file written each) would otherwise be a message of
// megabytes for the client to show. Each call gets its share, 1 KB at the
// least.
const planFormPreviews = secrets.MaxPreviewBytes

// planForm is the one question a client shows for a run's plan: every
// call in order, with its connection, reason, arguments and marks, the
// calls policy denied, and where planning stopped.
func planForm(plan []hub.Approval) string {
	share := max(planFormPreviews/len(plan), 1<<10)
	var b strings.Builder
	fmt.Fprintf(&b, "Allow these %d calls of run %s? The decision holds for each call, and each runs once, only as shown.\n", len(plan), plan[0].RunID)
	for _, a := range plan {
		conn := a.Connection
		if a.DefaultConnection {
			conn += " (default)"
		}
		fmt.Fprintf(&b, "\n%d. %s (call %d)\nConnection: %s\nReason: %s\n", a.Plan.Position, a.Address, a.Plan.Seq, conn, a.Reason)
		if a.Change != "" {
			fmt.Fprintf(&b, "Changed: %s\n", a.Change)
		}
		if a.Plan.Missing {
			b.WriteString("The connection needs a secret or a sign-in first.\n")
		}
		preview := a.Preview
		if len(preview) > share {
			preview = secrets.Shorten(preview, share) + "…\n(shortened to fit this form; the hub's dialog and 'capabilities hub approve " + a.RunID + "' show more)"
		}
		fmt.Fprintf(&b, "Arguments (secrets hidden):\n%s%s\n", preview, lookAlikes(a.Preview))
	}
	last := plan[len(plan)-1].Plan
	for _, d := range last.Denied {
		fmt.Fprintf(&b, "\nDenied by policy, never runs: %s (call %d)\n", d.Address, d.Seq)
	}
	if last.Stop != "" {
		fmt.Fprintf(&b, "\nPlanning stopped: %s. Calls after that are asked about separately.\n", last.Stop)
	}
	return strings.TrimRight(b.String(), "\n")
}
