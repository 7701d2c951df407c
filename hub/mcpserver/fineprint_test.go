package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/internal/hubtest"
	"capabilities.sh/capabilities/sandbox"
)

// TestFinePrintThroughAClient: the spec's fine print as a go-sdk client
// sees it in execute's envelope, at both protocol versions: export default
// rewrites with their notices, an uncaught ToolError's own code and hint,
// the person's line in a syntax error, memoryBytes within one synchronous
// turn, setTimeout waiting in wall time with Date moving by the delay,
// calls listing the refused ones with ok false, and credentials in free
// text hidden from the pending call's summary.
func TestFinePrintThroughAClient(t *testing.T) {
	h := e2eNewHub(t, hub.Options{}, nil)
	for _, version := range clientVersions {
		t.Run(version, func(t *testing.T) {
			cs := connect(t, h.Hub, version, nil)

			t.Run("export default", func(t *testing.T) {
				for code, want := range map[string]string{
					"export default async function () {\n  return (await everything.getSum({ a: 1, b: 2 }));\n}": "Called the function after `export default`",
					"export default async () => 4":             "Called the function after `export default`",
					"const n = 2;\nexport default { n, m: 5 }": "Returned the value after `export default`",
					"export default 2 + 3":                     "Returned the value after `export default`",
				} {
					env := clientExec(t, cs, code)
					if env.Status != hub.StatusCompleted || len(env.Result) == 0 || string(env.Result) == "null" {
						t.Errorf("%q: %s", code, env.Line())
						continue
					}
					if !strings.Contains(strings.Join(env.Notices, "\n"), want) {
						t.Errorf("%q: notices %q, want one saying %q", code, env.Notices, want)
					}
				}
				if env := clientExec(t, cs, "export default async function () {\n  return (await everything.getSum({ a: 1, b: 2 }));\n}"); !strings.Contains(string(env.Result), "3") {
					t.Errorf("the anonymous default function's result: %s", env.Line())
				}
				if env := clientExec(t, cs, "export default 2 + 3"); string(env.Result) != "5" {
					t.Errorf("the default expression's value: %s", env.Line())
				}
			})

			t.Run("uncaught tool error", func(t *testing.T) {
				env := clientExec(t, cs, `await everything.echo({ message: "x" }, { connection: "nope" });`)
				if env.Status != hub.StatusFailed || env.Error == nil || env.Error.Code != "unknown_connection" || env.Error.Hint == "" {
					t.Errorf("an uncaught ToolError: %s; want its code unknown_connection and a hint", env.Line())
				}
			})

			t.Run("syntax error line", func(t *testing.T) {
				for code, line := range map[string]string{
					"const a = 1;\nconst b = ;":  "line 2:",
					"const a = 1;\n\nbreak;":     "line 3:",
					"const a = 1;\nlet a = 2;":   "line 2:",
					"const a = 1;\nreturn a +\n": "unexpected end of the code at line 3:1",
				} {
					env := clientExec(t, cs, code)
					if env.Status != hub.StatusFailed || env.Error == nil || env.Error.Code != "syntax_error" || !strings.Contains(env.Error.Message, line) {
						t.Errorf("%q: %s; want a syntax_error at %s", code, env.Line(), line)
					}
				}
			})

			t.Run("memory within one turn", func(t *testing.T) {
				// The limit (64 MB) counts from the process's live heap
				// when the run started, which garbage of the tests before
				// it can inflate by tens of MB: the code keeps allocating
				// until it is stopped, and 512 MB is far past any of that.
				env := clientExec(t, cs, `const a = []; for (let i = 0; i < 512; i++) a.push(new Uint8Array(1 << 20)); return a.length`)
				if env.Status != hub.StatusFailed || env.Error == nil || env.Error.Code != "memory_limit" {
					t.Errorf("up to 512 MB of typed arrays in one turn: %s; want memory_limit", env.Line())
				}
			})

			t.Run("setTimeout waits", func(t *testing.T) {
				start := time.Now()
				env := clientExec(t, cs, `const a = Date.now(); await new Promise(r => setTimeout(r, 400)); return Date.now() - a`)
				if took := time.Since(start); env.Status != hub.StatusCompleted || string(env.Result) != "400" || took < 400*time.Millisecond {
					t.Errorf("a 400 ms timer: %s after %v; want 400 after at least 400ms", env.Line(), took)
				}
			})

			t.Run("calls list refused ones", func(t *testing.T) {
				env := clientExec(t, cs, `const r = [];
for (const f of [
	() => everything.echo({ message: "ok" }),
	() => everything.echo({ message: "x" }, { connection: "nope" }),
	() => everything.getSum({ a: "one", b: 2 }),
]) { try { await f(); r.push("ok"); } catch (e) { r.push(e.code); } }
return r;`)
				if string(env.Result) != `["ok","unknown_connection","invalid_arguments"]` {
					t.Fatalf("%s", env.Line())
				}
				var got []string
				for _, c := range env.Calls {
					got = append(got, c.Address+" "+map[bool]string{true: "ok", false: "failed"}[c.OK])
				}
				if want := "everything.echo ok|everything.echo failed|everything.getSum failed"; strings.Join(got, "|") != want {
					t.Errorf("calls %q, want %q", got, want)
				}
			})

			t.Run("credentials in free text", func(t *testing.T) {
				env := clientExec(t, cs, `return await memory.createEntities({ entities: [{ name: "n", entityType: "Authorization: Bearer abc.DEF-123_456 sk_live_4eC39HqLyjWDarjtT1zdp7dc ghp_abcdefghijklmnopqrstuvwxyz0123456789", observations: [] }] });`)
				if env.Status != hub.StatusAwaitingApproval || len(env.Pending) != 1 {
					t.Fatalf("%s", env.Line())
				}
				s := env.Pending[0].Summary
				for _, secret := range []string{"abc.DEF-123_456", "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "ghp_abcdefghij"} {
					if strings.Contains(env.Line(), secret) {
						t.Errorf("the envelope shows %q: %s", secret, env.Line())
					}
				}
				if !regexp.MustCompile(`Authorization: Bearer \[redacted\]`).MatchString(s) {
					t.Errorf("the pending summary does not show the redacted header: %q", s)
				}
			})
		})
	}
}

// TestCallsListTheCallInFlightThroughAClient: a client's envelope lists the
// call that was in flight when the run hit its wall time, with ok false.
func TestCallsListTheCallInFlightThroughAClient(t *testing.T) {
	blocked := make(chan struct{}, 1)
	home := t.TempDir()
	cfg := &config.Config{Sources: map[string]*config.Source{"slow": {URL: hubtest.HTTPUpstream(t, hubtest.ServiceServer(blocked), "", "").URL}},
		Policy: map[string]config.Mode{"slow": config.Allow}}
	if err := cfg.Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}
	h, err := hub.New(context.Background(), hub.Options{Home: home, ConfigPoll: -1, Limits: sandbox.Limits{Wall: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	if errs := h.Refresh(context.Background()); len(errs) > 0 {
		t.Fatal(errs)
	}
	bothVersions(t, func(t *testing.T, version string) {
		env := clientExec(t, connect(t, h, version, nil), `await slow.echo({ text: "a" }); await slow.block({}); return 1;`)
		if env.Status != hub.StatusFailed || env.Error == nil || env.Error.Code != "wall_limit" {
			t.Fatalf("%s", env.Line())
		}
		if len(env.Calls) != 2 || !env.Calls[0].OK || env.Calls[1].Address != "slow.block" || env.Calls[1].OK {
			t.Fatalf("calls = %+v, want echo ok and the blocked call failed", env.Calls)
		}
	})
}

// TestNewlyAddedSourceIsWaitedFor: on a home whose catalog lists its
// sources, a source added while the hub runs was never listed: the first
// search and execute a client sends right after adding it wait for it to
// start and answer with its tools.
func TestNewlyAddedSourceIsWaitedFor(t *testing.T) {
	bothVersions(t, func(t *testing.T, version string) {
		home := t.TempDir()
		cfg := &config.Config{Sources: map[string]*config.Source{"memory": memorySource(t)}, Policy: map[string]config.Mode{}}
		if err := cfg.Save(filepath.Join(home, "config.json")); err != nil {
			t.Fatal(err)
		}
		h, err := hub.New(context.Background(), hub.Options{Home: home, ConfigPoll: -1, Keychain: &hubtest.MemKeychain{}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { h.Close() })
		if errs := h.Refresh(context.Background()); len(errs) > 0 {
			t.Fatal(errs)
		}
		cs := connect(t, h, version, nil)
		cfg.Sources["everything"] = &config.Source{Command: hubtest.NpmServer(t, "mcp-server-everything"), Args: []string{"stdio"}}
		if err := h.SaveConfig(context.Background(), cfg); err != nil {
			t.Fatal(err)
		}
		if out, _ := callText(t, cs, "search", map[string]any{"query": "echo back a message", "namespace": "everything"}); !strings.Contains(out, "everything.echo(") {
			t.Errorf("the first search after adding the source: %q", out)
		}
		if env := clientExec(t, cs, `return await everything.echo({ message: "hi" })`); env.Status != hub.StatusCompleted || !strings.Contains(string(env.Result), "hi") {
			t.Errorf("the first execute after adding the source: %s", env.Line())
		}
	})
}

// TestRefusedSourceNamesThroughAClient: sources named eval, arguments and
// parseInt are refused alone; a client's execute runs `return 1` and calls
// the rest of the config, and the prelude's globals are the sandbox's.
func TestRefusedSourceNamesThroughAClient(t *testing.T) {
	_, url := namedServer(t, "list_notes")
	home := t.TempDir()
	body := `{"sources": {"notes": {"url": "` + url + `"}, "eval": {"url": "` + url + `"}, "arguments": {"url": "` + url + `"}, "parseInt": {"url": "` + url + `"}}}`
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	h, err := hub.New(context.Background(), hub.Options{Home: home, ConfigPoll: -1, Keychain: &hubtest.MemKeychain{}})
	if err != nil {
		t.Fatalf("a config with badly named sources must still start the hub: %v", err)
	}
	t.Cleanup(func() { h.Close() })
	if errs := h.Refresh(context.Background()); len(errs) > 0 {
		t.Fatal(errs)
	}
	bothVersions(t, func(t *testing.T, version string) {
		cs := connect(t, h, version, nil)
		for code, want := range map[string]string{
			"return 1":                             "1",
			"return await notes.listNotes()":       `"list_notes"`,
			"return [typeof eval, parseInt('42')]": `["function",42]`,
		} {
			if env := clientExec(t, cs, code); env.Status != hub.StatusCompleted || string(env.Result) != want {
				t.Errorf("%q: %s; want %s", code, env.Line(), want)
			}
		}
	})
}
