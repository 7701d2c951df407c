package mcpserver

import (
	"context"
	"encoding/json"
	"net"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/policy"
	"capabilities.sh/capabilities/hub/secrets"
)

// legacyClient is a 2025-11-25 go-sdk client of h whose elicitation
// handler records each form's message and answers it with the next of
// answers (the last one again once they run out).
func legacyClient(t *testing.T, h Hub, forms *[]string, answers ...*mcp.ElicitResult) *mcp.ClientSession {
	t.Helper()
	return connect(t, h, "2025-11-25", &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			*forms = append(*forms, req.Params.Message)
			return answers[min(len(*forms), len(answers))-1], nil
		},
	})
}

func answer(decision string) *mcp.ElicitResult {
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": decision}}
}

// threeWrites creates three entities, one write each, and returns how many
// entities each write created.
const threeWrites = `const made = []; for (const name of ["A", "B", "C"]) made.push((await memory.createEntities({ entities: [{ name, entityType: "t", observations: [] }] })).entities.length); return made;`

// TestLegacyElicitationAsksForThePlan: a 2025-11-25 client that declared
// elicitation gets one elicitation/create request for a plan of three
// writes, listing them in order; its one answer allows each, the run
// resumes in the same call, and each write runs once.
func TestLegacyElicitationAsksForThePlan(t *testing.T) {
	h := e2eNewHub(t, hub.Options{}, nil)
	var forms []string
	cs := legacyClient(t, h.Hub, &forms, answer(hub.AllowOnce))
	env := clientExec(t, cs, threeWrites)
	if len(forms) != 1 {
		t.Fatalf("the client was asked %d times, want once: %q", len(forms), forms)
	}
	form := forms[0]
	a, b, c := strings.Index(form, `"name": "A"`), strings.Index(form, `"name": "B"`), strings.Index(form, `"name": "C"`)
	if !strings.Contains(form, "Allow these 3 calls") || a < 0 || b < a || c < b {
		t.Errorf("the form does not list the three writes in order:\n%s", form)
	}
	if env.Status != hub.StatusCompleted || string(env.Result) != "[1,1,1]" || len(env.Calls) != 3 {
		t.Fatalf("after one answer: %s", env.Line())
	}
	if n := h.entities(t); n != 3 {
		t.Fatalf("entities on the upstream = %d, want 3", n)
	}
	hist, err := h.History(context.Background(), 20)
	if err != nil {
		t.Fatal(err)
	}
	allows := 0
	for _, e := range hist {
		if e.RunID == env.RunID && e.Decision == "allow" && e.Channel == policy.ChannelClient {
			allows++
		}
	}
	if allows != 3 {
		t.Errorf("the audit holds %d allows through the client for the run, want 3: %+v", allows, hist)
	}
	// Resuming the finished run asks nothing and sends nothing again.
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute", Arguments: map[string]any{"resume": env.RunID}})
	if err != nil || !strings.Contains(resultText(res), `"status":"completed"`) || len(forms) != 1 || h.entities(t) != 3 {
		t.Fatalf("resume: %v %s, asked %d times, %d entities", err, resultText(res), len(forms), h.entities(t))
	}
}

// TestElicitationShowsWhatALookAlikeHides: the client's form for a write
// whose name has a Cyrillic а and a zero-width space shows the space as
// an escape and warns of the mixed word; denied, nothing is written.
func TestElicitationShowsWhatALookAlikeHides(t *testing.T) {
	h := e2eNewHub(t, hub.Options{}, nil)
	var forms []string
	cs := legacyClient(t, h.Hub, &forms, answer(hub.DenyOnce))
	env := clientExec(t, cs, `return await memory.createEntities({ entities: [{ name: "\u0430lice\u200b", entityType: "t", observations: [] }] });`)
	if len(forms) != 1 {
		t.Fatalf("the client was asked %d times, want once: %q", len(forms), forms)
	}
	for _, want := range []string{`"name": "аlice\u200b"`, `! "аlice" mixes Latin and Cyrillic letters that look alike`} {
		if !strings.Contains(forms[0], want) {
			t.Errorf("the form does not show %s:\n%s", want, forms[0])
		}
	}
	if env.Status == hub.StatusCompleted || h.entities(t) != 0 {
		t.Fatalf("denied, yet: %s, %d entities", env.Line(), h.entities(t))
	}
}

// TestLegacyElicitationAsksAgainAfterThePlan: a write that only an earlier
// write's result decides is asked about after that write ran, in a second
// elicitation of the same execute call.
func TestLegacyElicitationAsksAgainAfterThePlan(t *testing.T) {
	h := e2eNewHub(t, hub.Options{}, nil)
	var forms []string
	cs := legacyClient(t, h.Hub, &forms, answer(hub.AllowOnce))
	env := clientExec(t, cs, `
		const r = await memory.createEntities({ entities: [{ name: "Ada", entityType: "person", observations: [] }] });
		if (r.entities.length === 1) await memory.createEntities({ entities: [{ name: "Grace", entityType: "person", observations: [] }] });
		return "ok";`)
	if len(forms) != 2 || !strings.Contains(forms[0], `"name": "Ada"`) || !strings.Contains(forms[1], `"name": "Grace"`) {
		t.Fatalf("forms %q; want one for Ada, then one for Grace", forms)
	}
	if env.Status != hub.StatusCompleted || h.entities(t) != 2 {
		t.Fatalf("%s, %d entities", env.Line(), h.entities(t))
	}
}

// TestLegacyElicitationDismissed: a declined plan leaves each of its calls
// pending and the client gets the envelope, without a second form in the
// same call; the model's resume asks again, and a denial decides each call,
// none of which runs.
func TestLegacyElicitationDismissed(t *testing.T) {
	h := e2eNewHub(t, hub.Options{}, nil)
	var forms []string
	cs := legacyClient(t, h.Hub, &forms, &mcp.ElicitResult{Action: "decline"}, &mcp.ElicitResult{Action: "cancel"}, answer(hub.DenyOnce))
	env := clientExec(t, cs, threeWrites)
	ctx := context.Background()
	for i, action := range []string{"decline", "cancel"} {
		if len(forms) != i+1 || env.Status != hub.StatusAwaitingApproval || len(env.Pending) != 3 {
			t.Fatalf("after %s: asked %d times, %s", action, len(forms), env.Line())
		}
		if pend, err := h.Pending(ctx, env.RunID); err != nil || len(pend) != 3 || h.entities(t) != 0 {
			t.Fatalf("after %s: %d pending (%v), %d entities; want 3 and none", action, len(pend), err, h.entities(t))
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute", Arguments: map[string]any{"resume": env.RunID}})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res.StructuredContent)
		env = &hub.Envelope{}
		if err := json.Unmarshal(b, env); err != nil {
			t.Fatalf("not an envelope: %s", resultText(res))
		}
	}
	if len(forms) != 3 || env.Status != hub.StatusFailed || env.Error == nil || env.Error.Code != hub.CodeDenied || h.entities(t) != 0 {
		t.Fatalf("after a denial: asked %d times, %s, %d entities", len(forms), env.Line(), h.entities(t))
	}
	if pend, _ := h.Pending(ctx, env.RunID); len(pend) != 0 {
		t.Fatalf("after a denial, pending %+v", pend)
	}
}

// TestLegacyElicitationTypeScriptClient: the TypeScript SDK's client, at
// its 2025-11-25, with an elicitation handler, over a line-delimited
// stream as the hub's socket serves one: a plan of three writes is one
// elicitation, and the call returns the completed run.
func TestLegacyElicitationTypeScriptClient(t *testing.T) {
	h := e2eNewHub(t, hub.Options{}, nil)
	sock := filepath.Join(t.TempDir(), "mcp.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	srv := New(h.Hub, Options{Version: "test"})
	protocol := make(chan string, 1)
	go func() {
		defer close(protocol)
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		ss, err := srv.Connect(context.Background(), &mcp.IOTransport{Reader: conn, Writer: conn}, nil)
		if err != nil {
			return
		}
		ss.Wait()
		if p := ss.InitializeParams(); p != nil {
			protocol <- p.ProtocolVersion
		}
	}()
	var got struct {
		Forms   []string        `json:"forms"`
		Execute json.RawMessage `json:"execute"`
	}
	runTSClient(t, `
import net from "node:net";
import { Client } from "$SDK/client/index.js";
import { ReadBuffer, serializeMessage } from "$SDK/shared/stdio.js";
import { ElicitRequestSchema } from "$SDK/types.js";

// A transport over the hub's kind of socket: one JSON-RPC message a line.
class SocketTransport {
	constructor(path) { this.path = path; this.buf = new ReadBuffer(); }
	async start() {
		this.sock = net.connect(this.path);
		await new Promise((resolve, reject) => { this.sock.once("connect", resolve); this.sock.once("error", reject); });
		this.sock.on("data", (chunk) => {
			this.buf.append(chunk);
			for (let m; (m = this.buf.readMessage()) !== null; ) this.onmessage?.(m);
		});
		this.sock.on("close", () => this.onclose?.());
	}
	async send(message) { this.sock.write(serializeMessage(message)); }
	async close() { this.sock.end(); }
}

const forms = [];
const client = new Client({ name: "ts-client", version: "0.0.1" }, { capabilities: { elicitation: {} } });
client.setRequestHandler(ElicitRequestSchema, async (req) => {
	forms.push(req.params.message);
	return { action: "accept", content: { decision: "allow_once" } };
});
const transport = new SocketTransport(process.env.HUB_SOCKET);
await client.connect(transport);
const res = await client.callTool({ name: "execute", arguments: { code: process.env.CODE } });
console.log(JSON.stringify({ forms, execute: res.structuredContent }));
await client.close();
`, []string{"HUB_SOCKET=" + sock, "CODE=" + threeWrites}, &got)
	if len(got.Forms) != 1 || !strings.Contains(got.Forms[0], "Allow these 3 calls") {
		t.Fatalf("the TypeScript client was asked %q; want one form for the plan", got.Forms)
	}
	var env hub.Envelope
	if err := json.Unmarshal(got.Execute, &env); err != nil || env.Status != hub.StatusCompleted || string(env.Result) != "[1,1,1]" {
		t.Fatalf("execute returned %s (%v)", got.Execute, err)
	}
	if n := h.entities(t); n != 3 {
		t.Fatalf("entities on the upstream = %d, want 3", n)
	}
	if p := <-protocol; p != "2025-11-25" {
		t.Errorf("the TypeScript client negotiated %q, want 2025-11-25", p)
	}
}

// TestDirectProfileAsksByElicitation: a direct-mode tool that asks, called
// by a 2025-11-25 client that declared elicitation, is asked about by
// elicitation/create; a declined form leaves the write unsent and the
// result names the run, and calling again with "allow once" runs it once.
func TestDirectProfileAsksByElicitation(t *testing.T) {
	var writes atomic.Int32
	h := directHub(t, &writes)
	s := NewServers(h, Options{Version: "test"})
	t.Cleanup(s.Close)
	srv, err := s.Server("d")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	var forms []string
	answers := []*mcp.ElicitResult{{Action: "decline"}, answer(hub.AllowOnce)}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "legacy-client", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			forms = append(forms, req.Params.Message)
			return answers[min(len(forms), len(answers))-1], nil
		},
	}).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	out, _ := callText(t, cs, "up__write", map[string]any{"i": 1})
	if len(forms) != 1 || !strings.Contains(forms[0], "up.write") || writes.Load() != 0 || !strings.Contains(out, "r_") {
		t.Fatalf("declined: %q, forms %q, %d writes", out, forms, writes.Load())
	}
	out, isErr := callText(t, cs, "up__write", map[string]any{"i": 1})
	if isErr || out != "written 1" || len(forms) != 2 || writes.Load() != 1 {
		t.Fatalf("allowed: %q, asked %d times, %d writes", out, len(forms), writes.Load())
	}
}

// TestLegacyElicitationWithdrawnWhenDecidedElsewhere: while the client's
// form about a plan is open, the person approves the run elsewhere
// (`capabilities hub approve`); the hub withdraws the form (the client's
// handler sees its request cancelled), records no answer through the
// client, and the run resumes and finishes in the same call.
func TestLegacyElicitationWithdrawnWhenDecidedElsewhere(t *testing.T) {
	h := e2eNewHub(t, hub.Options{}, nil)
	asked := make(chan string, 1)
	withdrawn := make(chan error, 1)
	cs := connect(t, h.Hub, "2025-11-25", &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			_, rest, _ := strings.Cut(req.Params.Message, " of run ")
			run, _, _ := strings.Cut(rest, "?")
			asked <- run
			<-ctx.Done() // the person never answers the form
			withdrawn <- ctx.Err()
			return nil, ctx.Err()
		},
	})
	type called struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan called, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute", Arguments: map[string]any{"code": threeWrites}})
		done <- called{res, err}
	}()
	run := <-asked
	if run == "" {
		t.Fatal("the form does not name its run")
	}
	decided, err := h.ApproveRun(context.Background(), run, hub.AllowOnce, policy.ChannelCLI, "test")
	if err != nil || len(decided) != 3 {
		t.Fatalf("approving the run: %d decided, %v", len(decided), err)
	}
	if err := <-withdrawn; err == nil {
		t.Fatal("the form was not withdrawn")
	}
	c := <-done
	if c.err != nil {
		t.Fatal(c.err)
	}
	var env hub.Envelope
	if b, err := json.Marshal(c.res.StructuredContent); err != nil || json.Unmarshal(b, &env) != nil {
		t.Fatalf("not an envelope: %s", resultText(c.res))
	}
	if env.Status != hub.StatusCompleted || string(env.Result) != "[1,1,1]" || h.entities(t) != 3 {
		t.Fatalf("after the approval elsewhere: %s, %d entities", env.Line(), h.entities(t))
	}
	hist, err := h.History(context.Background(), 20)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range hist {
		if e.RunID == env.RunID && e.Decision != "" && e.Channel != policy.ChannelCLI {
			t.Errorf("a decision through %s, want only the CLI's: %+v", e.Channel, e)
		}
	}
}

// TestPlanFormIsBounded: a plan of forty calls, each with a preview as
// large as the hub keeps one (a file written each), is one form of about
// one preview's size, each call shortened and saying where more is shown;
// a plan of small calls is whole.
func TestPlanFormIsBounded(t *testing.T) {
	plan := func(n, size int) []hub.Approval {
		var out []hub.Approval
		for i := range n {
			out = append(out, hub.Approval{ID: "p", RunID: "r_1", Address: "fs.write", Reason: "policy ask",
				Preview: `{"content": "` + strings.Repeat("é", size/2) + `"}`, Plan: &hub.PlanInfo{Seq: i + 1, Position: i + 1, Of: n}})
		}
		return out
	}
	form := planForm(plan(40, secrets.MaxPreviewBytes))
	if len(form) > 2*secrets.MaxPreviewBytes || !utf8.ValidString(form) {
		t.Errorf("a plan of 40 large calls is a form of %d KB (valid UTF-8: %v)", len(form)>>10, utf8.ValidString(form))
	}
	if n := strings.Count(form, "(shortened to fit this form; the hub's dialog and 'capabilities hub approve r_1' show more)"); n != 40 {
		t.Errorf("%d of 40 calls say they were shortened", n)
	}
	if small := planForm(plan(3, 100)); strings.Contains(small, "shortened") || strings.Count(small, strings.Repeat("é", 50)) != 3 {
		t.Errorf("a plan of small calls is not whole:\n%s", small)
	}
}
