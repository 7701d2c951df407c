package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub"
)

// tsResult is what testdata/tscalls.mjs prints for one tool call.
type tsResult struct {
	Structured json.RawMessage
	Text       string
	IsError    bool
}

// tsCalls makes calls through `capabilities mcp` with the TypeScript SDK
// client, in one session.
func (w *world) tsCalls(calls ...map[string]any) []tsResult {
	w.t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		w.t.Skip("no node")
	}
	sdk, _ := filepath.Abs(filepath.Join("..", "testdata", "npm", "node_modules", "@modelcontextprotocol", "sdk"))
	if _, err := os.Stat(sdk); err != nil {
		w.t.Fatalf("TypeScript SDK not installed: %v", err)
	}
	arg, _ := json.Marshal(calls)
	cmd := exec.Command("node", "testdata/tscalls.mjs", sdk, w.bin, string(arg))
	cmd.Env = w.env()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		w.t.Fatalf("TypeScript client: %v\n%s", err, stderr.String())
	}
	var res []tsResult
	if err := json.Unmarshal(out, &res); err != nil || len(res) != len(calls) {
		w.t.Fatalf("TypeScript client printed %.500q: %v", out, err)
	}
	return res
}

func execute(code string) map[string]any {
	return map[string]any{"name": "execute", "arguments": map[string]any{"code": code}}
}

// envelope reads an execute result, failing unless its text is its
// structured content on one line.
func (r tsResult) envelope(t *testing.T) hub.Envelope {
	t.Helper()
	var env, fromText hub.Envelope
	if err := json.Unmarshal(r.Structured, &env); err != nil || r.IsError {
		t.Fatalf("execute returned %.500s (isError %v): %v", r.Structured, r.IsError, err)
	}
	if err := json.Unmarshal([]byte(r.Text), &fromText); err != nil || fromText.Line() != env.Line() {
		t.Fatalf("the text is not the structured envelope:\n%.300s\n%.300s", r.Text, env.Line())
	}
	return env
}

// The test's large values: a 200 KB string of 1- to 4-byte characters, and
// 5,000 rows.
const (
	genString = `const gen = () => Array.from({ length: 15000 }, (_, i) => i + "é€😀|").join("");`
	genRows   = `const rows = () => ({ rows: Array.from({ length: 5000 }, (_, i) => ({ id: i, name: "row " + i, tags: ["t" + (i % 7)] })) });`
)

// TestHandlesThroughTheTypeScriptClient: over the TypeScript SDK client, a
// 200 KB string and a 5,000-row result come back as handles within the
// inline budget, with a notice on hub.read; slices reassemble them, a path
// reads one row, an unknown handle is a ToolError that names it, and the
// handles read back after the hub restarted.
func TestHandlesThroughTheTypeScriptClient(t *testing.T) {
	w := newWorld(t, 0)
	w.startHub()
	made := w.tsCalls(
		execute(genString+` return gen();`),
		execute(genRows+` return rows();`),
		map[string]any{"name": "describe", "arguments": map[string]any{"targets": []string{"hub"}}},
	)
	var handles [2]hub.HandleResult
	for i, kind := range []string{hub.HandleString, hub.HandleJSON} {
		env := made[i].envelope(t)
		if err := json.Unmarshal(env.Result, &handles[i]); err != nil || !strings.HasPrefix(handles[i].Handle, "h_") || handles[i].Kind != kind || handles[i].Preview == "" {
			t.Fatalf("not a %s handle: %.500s", kind, env.Result)
		}
		if env.Truncated == nil || !env.Truncated.Result {
			t.Errorf("truncated.result not set: %.300s", env.Line())
		}
		if n := len(made[i].Text); n > 24<<10 {
			t.Errorf("the envelope with a handle is %d bytes", n)
		}
		if len(env.Notices) == 0 || !strings.Contains(env.Notices[len(env.Notices)-1], `await hub.read("`+handles[i].Handle+`"`) {
			t.Errorf("no notice on hub.read: %q", env.Notices)
		}
	}
	str, rows := handles[0], handles[1]
	if str.Bytes < 200_000 || rows.Bytes < 5000*30 {
		t.Errorf("handle sizes %d and %d", str.Bytes, rows.Bytes)
	}
	if !strings.Contains(made[2].Text, "read(handle: string") || made[2].IsError {
		t.Errorf("describe hub: %s", made[2].Text)
	}

	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	reads := func() []tsResult {
		return w.tsCalls(
			execute(genString+`
				const parts = [];
				for (let o = 0; o < `+strconv.FormatInt(str.Bytes, 10)+`; o += 9999) parts.push(await hub.read(`+q(str.Handle)+`, { offset: o, length: 9999 }));
				return [parts.length, parts.join("") === gen(), (await hub.read(`+q(str.Handle)+`)) === gen()];`),
			execute(genRows+`
				const h = `+q(rows.Handle)+`;
				let text = "";
				for (let o = 0; o < `+strconv.FormatInt(rows.Bytes, 10)+`; o += 20000) text += await hub.read(h, { offset: o, length: 20000 });
				const whole = await hub.read(h);
				return [await hub.read(h, { path: "rows.4321" }), await hub.read(h, { path: ["rows", 17, "tags", 0] }),
					text === JSON.stringify(rows()), JSON.stringify(whole) === JSON.stringify(rows())];`),
			execute(`try { await hub.read("h_doesnotexist", { path: "rows.0" }); return "read"; } catch (e) { return [e instanceof ToolError, e.code, e.message]; }`),
		)
	}
	want := []string{
		`[` + strconv.FormatInt((str.Bytes+9998)/9999, 10) + `,true,true]`,
		`[{"id":4321,"name":"row 4321","tags":["t2"]},"t3",true,true]`,
		`[true,"unknown_handle","no handle \"h_doesnotexist\" here: a handle comes from the result of an earlier execute and lasts as long as its run is kept"]`,
	}
	check := func(when string, got []tsResult) {
		t.Helper()
		for i, r := range got {
			if env := r.envelope(t); env.Status != hub.StatusCompleted || string(env.Result) != want[i] {
				t.Errorf("%s, read %d: %.500s\nwant %s", when, i, env.Line(), want[i])
			}
		}
	}
	check("before a restart", reads())

	w.stopHub()
	w.startHub()
	check("after a restart", reads())
}
