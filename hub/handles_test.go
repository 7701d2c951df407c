package hub

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/policy"
	"capabilities.sh/capabilities/hub/store"
	"capabilities.sh/capabilities/hub/tsgen"
	"capabilities.sh/capabilities/internal/hubtest"
	"capabilities.sh/capabilities/sandbox"
)

// openHome opens a hub on home with no sources, closed when the test ends.
func openHome(t *testing.T, home string, opts Options) *Hub {
	t.Helper()
	if err := testConfig(map[string]*config.Source{}).Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}
	opts.Home, opts.ConfigPoll = home, -1
	h, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

func execEnv(t *testing.T, h *Hub, code string) *Envelope {
	t.Helper()
	env, err := h.Execute(context.Background(), ExecuteRequest{Code: code})
	if err != nil {
		t.Fatal(err)
	}
	if env.Status != StatusCompleted {
		t.Fatalf("%.2000s", env.Line())
	}
	return env
}

// handleOf returns the handle an envelope carries, failing unless it is a
// handle of kind and size with truncated.result, a preview that starts
// the value and a notice on reading it with hub.read.
func handleOf(t *testing.T, env *Envelope, kind, value string) HandleResult {
	t.Helper()
	var hr HandleResult
	if err := json.Unmarshal(env.Result, &hr); err != nil || !strings.HasPrefix(hr.Handle, "h_") || hr.Kind != kind || hr.Bytes != int64(len(value)) {
		t.Fatalf("result is not a %s handle of %d bytes: %v %.500s", kind, len(value), err, env.Result)
	}
	if p := strings.TrimSuffix(hr.Preview, "…"); len(p) < 100 || !strings.HasPrefix(value, p) {
		t.Errorf("preview %.200q does not start the value", hr.Preview)
	}
	if env.Truncated == nil || !env.Truncated.Result {
		t.Errorf("truncated.result not set: %.300s", env.Line())
	}
	if len(env.Notices) == 0 || !strings.Contains(env.Notices[len(env.Notices)-1], `hub.read("`+hr.Handle+`"`) {
		t.Errorf("no notice on reading %s: %q", hr.Handle, env.Notices)
	}
	// The handle takes no more of the inline budget than a preview.
	if cost := sandbox.ResultCost(env.Result); cost > sandbox.DefaultLimits().InlineResultBytes*3/4 {
		t.Errorf("the handle costs %d of the inline budget", cost)
	}
	return hr
}

// bigString is JS that makes a string of 1-, 2-, 3- and 4-byte characters,
// so that slices of 7,777 bytes cut inside them, and the same string in Go.
func bigString(n int) (js, value string) {
	var b strings.Builder
	for i := range n {
		b.WriteString(strconv.Itoa(i) + "é€😀|")
	}
	return `const gen = () => Array.from({ length: ` + strconv.Itoa(n) + ` }, (_, i) => i + "é€😀|").join("");`, b.String()
}

// rowsJSON is JS that makes 5,000 rows, and their JSON text.
func rowsJSON() (js, value string) {
	type row struct {
		ID   int    `json:"id"`
		Name string `json:"name"`
	}
	rows := make([]row, 5000)
	for i := range rows {
		rows[i] = row{i, "row " + strconv.Itoa(i)}
	}
	b, _ := json.Marshal(map[string]any{"rows": rows})
	return `const gen = () => ({ rows: Array.from({ length: 5000 }, (_, i) => ({ id: i, name: "row " + i })) });`, string(b)
}

func quoteJS(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestHandleString: a 200 KB string comes back as a handle, beside the
// logs; slices in a row reassemble it, and it reads back whole.
func TestHandleString(t *testing.T) {
	h := openHome(t, t.TempDir(), Options{})
	gen, value := bigString(15000)
	if len(value) < 200_000 {
		t.Fatalf("the test string is %d bytes", len(value))
	}
	env := execEnv(t, h, gen+` console.log("made it"); return gen();`)
	hr := handleOf(t, env, HandleString, value)
	if len(env.Logs) != 1 || env.Logs[0] != "made it" {
		t.Errorf("logs beside the handle: %q", env.Logs)
	}
	n := strconv.Itoa(len(value))
	env = execEnv(t, h, gen+`
		const h = `+quoteJS(hr.Handle)+`;
		const parts = [];
		for (let o = 0; o < `+n+`; o += 7777) parts.push(await hub.read(h, { offset: o, length: 7777 }));
		const s = parts.join(""), g = gen();
		const whole = await hub.read(h);
		const tail = await hub.read(h, { offset: `+n+` - 6 }); // inside "€": from the next character
		const past = await hub.read(h, { offset: `+n+` + 10, length: 5 });
		const env = await hub.read({ handle: h, bytes: 0, kind: "string", preview: "" }, { length: 3 });
		return [s === g, whole === g, tail, past, env];`)
	if want := `[true,true,"😀|","","0é"]`; string(env.Result) != want {
		t.Fatalf("reading the string back: %s, want %s", env.Result, want)
	}
	if c := env.Calls; len(c) != (len(value)+7776)/7777+4 || c[0].Address != sandbox.ReadAddress || !c[0].OK {
		t.Errorf("the reads are not the run's calls: %.300s", env.Line())
	}
}

// TestHandleJSON: a 5,000-row result comes back as a handle; a path reads
// one field, slices of its JSON text reassemble it, and it reads back
// whole, parsed.
func TestHandleJSON(t *testing.T) {
	h := openHome(t, t.TempDir(), Options{})
	gen, value := rowsJSON()
	env := execEnv(t, h, gen+` return gen();`)
	hr := handleOf(t, env, HandleJSON, value)
	if notice := env.Notices[len(env.Notices)-1]; !strings.Contains(notice, `{ path: "rows.0" }`) {
		t.Errorf("the notice's path example: %q", notice)
	}
	env = execEnv(t, h, gen+`
		const h = `+quoteJS(hr.Handle)+`;
		const name = await hub.read(h, { path: "rows.4321.name" });
		const id = await hub.read(h, { path: ["rows", 4321, "id"] });
		const row = await hub.read(h, { path: "rows.17" });
		let text = "";
		for (let o = 0; o < `+strconv.Itoa(len(value))+`; o += 10000) text += await hub.read(h, { offset: o, length: 10000 });
		const whole = await hub.read(h);
		return [name, id, row, text === JSON.stringify(gen()), whole.rows.length, whole.rows[4999].name];`)
	if want := `["row 4321",4321,{"id":17,"name":"row 17"},true,5000,"row 4999"]`; string(env.Result) != want {
		t.Fatalf("reading the rows back: %s, want %s", env.Result, want)
	}
}

// TestHandleReadErrors: an unknown handle, a path that names nothing and a
// path into a string are ToolErrors that say what is wrong.
func TestHandleReadErrors(t *testing.T) {
	h := openHome(t, t.TempDir(), Options{})
	gen, _ := rowsJSON()
	rows := handleOf(t, execEnv(t, h, gen+` return gen();`), HandleJSON, mustValue(rowsJSON()))
	str := execEnv(t, h, `return "x".repeat(100000);`)
	var s HandleResult
	json.Unmarshal(str.Result, &s)
	for _, c := range []struct{ handle, opts, code, msg string }{
		{"h_nope", "undefined", CodeUnknownHandle, `no handle "h_nope" here`},
		{rows.Handle, `{ path: "rows.5000.name" }`, CodeInvalidPath, `path rows.5000.name of ` + rows.Handle + `: rows is an array of 5000 items, and "5000" is not one of its indexes`},
		{rows.Handle, `{ path: "rows.0.title" }`, CodeInvalidPath, `rows.0 has no key "title" (its keys: id, name)`},
		{rows.Handle, `{ path: "rows.0.id.x" }`, CodeInvalidPath, `rows.0.id is a number, not an object or an array`},
		{rows.Handle, `{ path: "cols" }`, CodeInvalidPath, `the value has no key "cols" (its keys: rows)`},
		{s.Handle, `{ path: "0" }`, CodeInvalidPath, `handle ` + s.Handle + ` holds a string, which has no path`},
	} {
		env := execEnv(t, h, `try { await hub.read(`+quoteJS(c.handle)+`, `+c.opts+`); return "read"; } catch (e) { return [e instanceof ToolError, e.code, e.address, e.message, e.hint]; }`)
		var got []any
		json.Unmarshal(env.Result, &got)
		if len(got) != 5 || got[0] != true || got[1] != c.code || got[2] != sandbox.ReadAddress || !strings.Contains(got[3].(string), c.msg) || got[4] != Hint(c.code) {
			t.Errorf("%s %s: %s, want %s %q", c.handle, c.opts, env.Result, c.code, c.msg)
		}
	}
}

func mustValue(_, value string) string { return value }

// TestHandleAfterRestart: a handle outlives its hub process and reads back
// in the next one, within that hub's own memory limit; retention deletes
// it with its run.
func TestHandleAfterRestart(t *testing.T) {
	home := t.TempDir()
	clock := &fakeClock{}
	h := openHome(t, home, Options{Now: clock.Now})
	gen, value := bigString(15000)
	hr := handleOf(t, execEnv(t, h, gen+` return gen();`), HandleString, value)
	big := handleOf(t, execEnv(t, h, `return "y".repeat(5 << 20);`), HandleString, strings.Repeat("y", 5<<20))
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}

	h = openHome(t, home, Options{Now: clock.Now, Limits: sandbox.Limits{MemoryBytes: 4 << 20}})
	env := execEnv(t, h, gen+`
		const parts = [];
		for (let o = 0; o < `+strconv.Itoa(len(value))+`; o += 50000) parts.push(await hub.read(`+quoteJS(hr.Handle)+`, { offset: o, length: 50000 }));
		const s = parts.join("");
		let e; try { await hub.read(`+quoteJS(big.Handle)+`) } catch (x) { e = x.code + ": " + x.message }
		const part = await hub.read(`+quoteJS(big.Handle)+`, { offset: 10, length: 4 });
		return [s === gen(), e, part];`)
	want := `[true,"read_too_large: the value of ` + big.Handle + ` is 5242880 bytes, above the 4194304 bytes this run may hold","yyyy"]`
	if string(env.Result) != want {
		t.Fatalf("after a restart: %s\nwant %s", env.Result, want)
	}

	clock.Advance(31 * 24 * time.Hour)
	if p, err := h.Prune(context.Background()); err != nil || p.Runs < 3 {
		t.Fatalf("prune: %+v %v", p, err)
	}
	env = execEnv(t, h, `try { await hub.read(`+quoteJS(hr.Handle)+`); return "read"; } catch (e) { return e.code; }`)
	if string(env.Result) != `"`+CodeUnknownHandle+`"` {
		t.Errorf("a handle of a deleted run: %s", env.Result)
	}
}

// TestHandleReadReplays: a read is journaled with its outcome, so a
// resumed run gets the same bytes although the handle was deleted since.
func TestHandleReadReplays(t *testing.T) {
	ctx := context.Background()
	h := hubOver(t, "blobs", blobServer(10))
	cfg := testConfig(h.Config().Sources)
	cfg.Policy["blobs.*"] = config.Ask
	if err := h.SaveConfig(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	made := execEnv(t, h, `return "0123456789".repeat(5000);`)
	var hr HandleResult
	json.Unmarshal(made.Result, &hr)
	env, err := h.Execute(ctx, ExecuteRequest{Code: `const a = await hub.read(` + quoteJS(hr.Handle) + `, { offset: 3, length: 4 }); const b = await blobs.getBlob({}); return [a, b.length];`})
	if err != nil || env.Status != StatusAwaitingApproval {
		t.Fatalf("%v %s", err, env.Line())
	}
	// The read is journaled as what it read, not as a copy of the bytes.
	journal, err := h.db.ReadJournal(ctx, env.RunID)
	if err != nil {
		t.Fatal(err)
	}
	var state, outcome string
	for _, seq := range slices.Sorted(maps.Keys(journal)) {
		if e := journal[seq]; e.Address == "hub.read" && state == "" {
			state, outcome = e.State, string(e.Outcome)
		}
	}
	if state == "" {
		t.Fatal("no journal entry of hub.read")
	}
	if state != journalRead || !strings.Contains(outcome, `"handle":"`+hr.Handle+`"`) || strings.Contains(outcome, "3456") {
		t.Errorf("the read is journaled as %s %s; want a reference to %s", state, outcome, hr.Handle)
	}
	// Retention keeps the handle's run while a run that read it waits,
	// whatever its budget.
	r := storeRetention(config.Retention{})
	r.MaxAge, r.MaxBytes = time.Minute, 1
	if _, err := h.db.Prune(ctx, r, h.now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := h.db.HandleInfo(ctx, hr.Handle); err != nil {
		t.Fatalf("retention deleted a handle a waiting run read: %v", err)
	}
	if err := h.Decide(ctx, env.Pending[0].ID, AllowOnce, policy.ChannelCLI, ""); err != nil {
		t.Fatal(err)
	}
	done, err := h.Execute(ctx, ExecuteRequest{Resume: env.RunID})
	if err != nil || done.Status != StatusCompleted || string(done.Result) != `["3456",10]` {
		t.Fatalf("resumed: %v %s", err, done.Line())
	}

	// A handle deleted by other means while its reader waits: the resume
	// stops as diverged, saying so, rather than see other bytes.
	env, err = h.Execute(ctx, ExecuteRequest{Code: `const a = await hub.read(` + quoteJS(hr.Handle) + `); const b = await blobs.getBlob({}); return [a.length, b.length];`})
	if err != nil || env.Status != StatusAwaitingApproval {
		t.Fatalf("%v %s", err, env.Line())
	}
	if err := rawExec(t, h.db, `DELETE FROM runs WHERE id = ?`, made.RunID); err != nil {
		t.Fatal(err)
	}
	if err := h.Decide(ctx, env.Pending[0].ID, AllowOnce, policy.ChannelCLI, ""); err != nil {
		t.Fatal(err)
	}
	gone, err := h.Execute(ctx, ExecuteRequest{Resume: env.RunID})
	if err != nil || gone.Status != StatusFailed || gone.Error == nil || gone.Error.Code != CodeReplayDiverged ||
		!strings.Contains(gone.Error.Message, "call 1 of the resumed run read "+hr.Handle+" again, and it no longer holds what the first attempt read: no handle") {
		t.Fatalf("resumed after the handle was deleted: %v %s", err, gone.Line())
	}
	env = execEnv(t, h, `try { await hub.read(`+quoteJS(hr.Handle)+`, { offset: 3, length: 4 }); return "read"; } catch (e) { return e.code; }`)
	if string(env.Result) != `"`+CodeUnknownHandle+`"` {
		t.Errorf("the handle was not deleted with its run: %s", env.Result)
	}
}

// TestHandleScrubbed: the value kept behind a handle went through the
// hub's secret scrubbing: neither a read nor the store holds the secret.
func TestHandleScrubbed(t *testing.T) {
	h := openHome(t, t.TempDir(), Options{})
	const secret = "handle-secret-9f3a7c"
	h.secrets.Set("test", secret)
	env := execEnv(t, h, `const s = "x".repeat(100000) + ["handle", "secret", "9f3a7c"].join("-"); return { s, n: [s] };`)
	var hr HandleResult
	json.Unmarshal(env.Result, &hr)
	if hr.Handle == "" || strings.Contains(env.Line(), secret) {
		t.Fatalf("%.300s", env.Line())
	}
	env = execEnv(t, h, `const v = await hub.read(`+quoteJS(hr.Handle)+`); return [v.s.includes(["handle", "secret", "9f3a7c"].join("-")), v.s.length > 100000];`)
	if string(env.Result) != `[false,true]` {
		t.Errorf("read back: %s", env.Result)
	}
	var n int
	if err := rawQueryRow(t, h.db, `SELECT count(*) FROM handles WHERE instr(value, ?) > 0`, []any{[]byte(secret)}, &n); err != nil || n != 0 {
		t.Errorf("%d handles hold the secret (%v)", n, err)
	}
}

// TestDescribeHub: describe("hub") declares the hub global, hub.read
// included, in the tool and in code, and the declaration compiles.
func TestDescribeHub(t *testing.T) {
	h := openHome(t, t.TempDir(), Options{})
	text, err := h.Describe(context.Background(), DescribeRequest{Targets: []string{"hub"}})
	if err != nil || text != tsgen.HubDeclaration || !strings.Contains(text, "read(handle: string") {
		t.Fatalf("describe hub: %v\n%s", err, text)
	}
	env := execEnv(t, h, `return await hub.describe("hub.read");`)
	var got string
	if json.Unmarshal(env.Result, &got); got != tsgen.HubDeclaration {
		t.Errorf("hub.describe: %s", env.Result)
	}

	tsc, err := filepath.Abs(filepath.Join("..", "testdata", "npm", "node_modules", ".bin", "tsc"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tsc); err != nil {
		t.Skipf("tsc not installed (%v)", err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node not installed")
	}
	dir := t.TempDir()
	usage := `async function main(): Promise<void> {
	const s: string = await hub.search("issues");
	const d: string = await hub.describe("github");
	const all: unknown = await hub.read("h_x");
	const part: unknown = await hub.read("h_x", { offset: 0, length: 100 });
	const at: unknown = await hub.read({ handle: "h_x" }, { path: ["rows", 4, "name"] });
	const by: unknown = await hub.read("h_x", { path: "rows.4.name" });
	console.log(s, d, all, part, at, by);
}
main();
`
	for name, text := range map[string]string{"hub.d.ts": tsgen.HubDeclaration, "usage.ts": usage, "console.d.ts": "declare const console: { log(...args: unknown[]): void };\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(tsc, "--noEmit", "--strict", "--target", "es2022", "--lib", "es2022", "hub.d.ts", "console.d.ts", "usage.ts")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Fatalf("tsc: %v\n%s", err, out)
	}
}

// TestHandleReadPathBounds: a read by path is bounded by its length and by
// the bytes it may walk, both checked before the value is read, walks the
// value once whatever its depth, and ends with its run.
func TestHandleReadPathBounds(t *testing.T) {
	ctx := context.Background()
	// The walk runs in a hub whose runs may hold 64 MB: the host's copy of
	// the 10 MB value is heap the sandbox's watcher sees too, and how much
	// of it the collector has freed by a sample depends on the machine's
	// load. The limits below are those of a hub whose runs may hold 8 MB;
	// each is checked before the value is loaded.
	h := openHome(t, t.TempDir(), Options{Limits: sandbox.Limits{MemoryBytes: 64 << 20}})
	small := openHome(t, t.TempDir(), Options{Limits: sandbox.Limits{MemoryBytes: 8 << 20}})
	putIn := func(h *Hub) func([]byte) string {
		made := execEnv(t, h, `return "0123456789".repeat(5000);`)
		return func(value []byte) string {
			id := newID("h_")
			if err := h.db.PutHandle(ctx, store.Handle{ID: id, RunID: made.RunID, Kind: HandleJSON, Created: h.now()}, value); err != nil {
				t.Fatal(err)
			}
			return id
		}
	}
	put, putSmall := putIn(h), putIn(small)
	// 100 levels of 100 KB: 10 MB. Parsing what is left at each level,
	// as a read once did, costs 100 times that.
	deep := hubtest.DeepPadded(100, 100)
	id := put(deep)
	path := strings.TrimSuffix(strings.Repeat("a.", 100), ".")
	var env *Envelope
	n := hubtest.Allocated(func() {
		env = execEnv(t, h, `return await hub.read(`+quoteJS(id)+`, { path: `+quoteJS(path)+` });`)
	})
	if string(env.Result) != `"end"` {
		t.Fatalf("read %s", env.Line())
	}
	if n > 4*uint64(len(deep)) {
		t.Errorf("a read by path of a %d MB value allocated %d MB; it must walk the value once", len(deep)>>20, n>>20)
	}

	cases := []struct{ code, want string }{
		{`return await hub.read(` + quoteJS(putSmall(deep)) + `, { path: ` + quoteJS(strings.TrimSuffix(strings.Repeat("a.", 101), ".")) + ` });`,
			`invalid_path: the path has 101 keys and indexes, above the limit of 100 a path may have`},
		{`return await hub.read(` + quoteJS(putSmall(hubtest.DeepPadded(40, 1024))) + `, { path: "a" });`,
			`read_too_large: h_`},
	}
	for _, c := range cases {
		env, err := small.Execute(ctx, ExecuteRequest{Code: `try { ` + c.code + ` } catch (e) { return e.code + ": " + e.message; }`})
		if err != nil || !strings.Contains(string(env.Result), c.want) {
			t.Errorf("%.80s: %v %s; want %q", c.code, err, env.Result, c.want)
		}
	}
	if env, _ := small.Execute(ctx, ExecuteRequest{Code: cases[1].code}); env == nil || env.Error == nil || !strings.Contains(env.Error.Message, "bytes, above the 33554432 bytes a read by path may walk (4 times the run's memory limit)") {
		t.Errorf("a value over what a path may walk: %+v", env)
	}
}
