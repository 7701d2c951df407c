//go:build !headless

package ui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/clients"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/internal/hubtest"
	"capabilities.sh/capabilities/keychain"
)

// TestAdapterReportsHubErrors: with the hub's store closed under it, every
// read the UI makes fails with the store's error instead of returning an
// empty list, and the window and the tray say so.
func TestAdapterReportsHubErrors(t *testing.T) {
	home := t.TempDir()
	cfg := &config.Config{Sources: map[string]*config.Source{}, Policy: map[string]config.Mode{}}
	if err := cfg.Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	h, err := hub.New(ctx, hub.Options{Home: home, ConfigPoll: -1})
	if err != nil {
		t.Fatal(err)
	}
	u := FromHub(ctx, h)
	if _, err := u.Pending(); err != nil {
		t.Fatalf("open hub: %v", err)
	}
	h.Close()

	reads := map[string]func() error{
		"Pending": func() error { _, err := u.Pending(); return err },
		"Status":  func() error { _, err := u.Status(); return err },
		"Runs":    func() error { _, err := u.Runs(5); return err },
		"History": func() error { _, err := u.History(5); return err },
	}
	for name, read := range reads {
		if err := read(); err == nil {
			t.Errorf("%s on a closed store: no error", name)
		}
	}

	c := newController(test.NewTempApp(t), u, Options{Logf: t.Logf}, false)
	c.step()
	if !c.main.problems.Visible() || !strings.Contains(c.main.problems.Text, "reading the waiting calls") {
		t.Errorf("window problems %q (visible %v)", c.main.problems.Text, c.main.problems.Visible())
	}
	if got := statusLine(c.last); !strings.HasPrefix(got, "Hub problem: reading the waiting calls") {
		t.Errorf("status line %q", got)
	}
}

// TestFailedReadKeepsQueue: a read that fails does not empty the queue of
// waiting calls; once the hub answers again the problem goes away.
func TestFailedReadKeepsQueue(t *testing.T) {
	h := newFakeHub()
	h.populate()
	c := newTestController(t, h, t0)
	a, raw := sampleApproval("ap_1", t0)
	h.add(a, raw)
	c.step()
	h.failReads(errors.New("database is locked"))
	c.step()
	if len(c.dialog.items) != 1 || !c.dialog.shown {
		t.Errorf("after a failed read the dialog holds %d calls (shown %v)", len(c.dialog.items), c.dialog.shown)
	}
	if !c.main.problems.Visible() || !strings.Contains(c.main.problems.Text, "database is locked") {
		t.Errorf("problems %q", c.main.problems.Text)
	}
	if len(c.main.snap.policies) == 0 {
		t.Error("the policy list emptied on a failed read")
	}
	h.failReads(nil)
	c.step()
	if c.main.problems.Visible() {
		t.Errorf("problems still shown: %q", c.main.problems.Text)
	}
}

// TestAdapterImportOfferAndSignIns: the status the UI reads from a real hub
// carries the open import offer and each OAuth connection's sign-in
// state, and the tray offers both.
func TestAdapterImportOfferAndSignIns(t *testing.T) {
	home := t.TempDir()
	cfg := &config.Config{Sources: map[string]*config.Source{
		"linear": {URL: "http://127.0.0.1:1/mcp", Connections: map[string]*config.Connection{"work": {Default: true, OAuth: &config.OAuthConfig{}}}},
	}, Policy: map[string]config.Mode{}}
	if err := cfg.Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}
	paths := config.Paths{Home: home}
	if err := clients.SaveImportOffer(paths, clients.NewImportOffer([]clients.Found{{Name: "everything"}, {Name: "memory"}}, time.Now())); err != nil {
		t.Fatal(err)
	}
	kc, err := keychain.ForHome(keychain.System{}, fmt.Sprintf("ui-adapter-%d", time.Now().UnixNano()))
	if err != nil {
		t.Skipf("no keychain: %v", err)
	}
	ctx := context.Background()
	h, err := hub.New(ctx, hub.Options{Home: home, Keychain: kc, ConfigPoll: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	st, err := FromHub(ctx, h).Status()
	if err != nil {
		t.Fatal(err)
	}
	if st.ImportOffer != 2 {
		t.Errorf("ImportOffer = %d, want 2", st.ImportOffer)
	}
	if len(st.Sources) != 1 || len(st.Sources[0].SignIns) != 1 {
		t.Fatalf("sources %+v, want linear with one sign-in", st.Sources)
	}
	if si := st.Sources[0].SignIns[0]; si.Connection != "work" || si.SignedIn || !strings.HasPrefix(si.Summary, "needs sign-in") {
		t.Errorf("sign-in %+v, want work needing sign-in", si)
	}
	var labels []string
	for _, e := range trayMenuModel(snapshot{loaded: true, canImport: true, status: st}, time.Now()) {
		labels = append(labels, e.label)
		for _, c := range e.children {
			labels = append(labels, c.label)
		}
	}
	all := strings.Join(labels, "\n")
	for _, want := range []string{"Import 2 servers from your clients…", "Sign in to linear (work)…"} {
		if !strings.Contains(all, want) {
			t.Errorf("tray menu lacks %q:\n%s", want, all)
		}
	}
	if err := clients.CloseImportOffer(paths); err != nil {
		t.Fatal(err)
	}
	if st, err = FromHub(ctx, h).Status(); err != nil || st.ImportOffer != 0 {
		t.Errorf("after the offer closed: ImportOffer %d, %v", st.ImportOffer, err)
	}
}

// A call policy allowed shows the arguments its journal kept, and a
// secret of its connection typed into the code as a literal is scrubbed
// from them, in the run's calls and in the Calls view.
func TestAdapterRunCallsScrubArgs(t *testing.T) {
	home := t.TempDir()
	const secret = "key-5e1c-Wq7-runargs"
	url := hubtest.HTTPUpstream(t, hubtest.ServiceServer(nil), "", "").URL
	cfg := &config.Config{Sources: map[string]*config.Source{"svc": {URL: url,
		Connections: map[string]*config.Connection{"main": {Default: true, Headers: map[string]string{"X-Api-Key": "${secret:KEY}"}}}}},
		Policy: map[string]config.Mode{"svc.echo": config.Allow}}
	if err := cfg.Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}
	kc := &hubtest.MemKeychain{}
	if err := kc.Set(config.SecretKey("svc", "main", "KEY"), secret); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	h, err := hub.New(ctx, hub.Options{Home: home, Keychain: kc, ConfigPoll: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if errs := h.Refresh(ctx); len(errs) > 0 {
		t.Fatal(errs)
	}
	env, err := h.Execute(ctx, hub.ExecuteRequest{Code: `return await svc.echo({ text: "sent with ` + secret + `" });`, Client: "test"})
	if err != nil || env.Status != hub.StatusCompleted {
		t.Fatalf("execute: %v %+v", err, env)
	}
	calls, err := FromHub(ctx, h).RunCalls(env.RunID)
	if err != nil || len(calls) != 1 {
		t.Fatalf("calls: %v %+v", err, calls)
	}
	c := calls[0]
	if want := `{"text":"sent with [secret]"}`; c.Args != want || c.Decision != "" {
		t.Errorf("the call's arguments: %q, want %q", c.Args, want)
	}
	if text := callsText(calls); strings.Contains(text, secret) || !strings.Contains(text, `  arguments: {"text":"sent with [secret]"}`) {
		t.Errorf("the Calls view:\n%s", text)
	}
}

// TestAdapterSourcesAndRunCalls: through a real hub, the Sources tab's
// actions change config.json, the status carries each source's tools with
// what policy does with them and the profiles, and a run's calls carry the
// arguments the approval showed and who allowed them.
func TestAdapterSourcesAndRunCalls(t *testing.T) {
	url := hubtest.HTTPUpstream(t, hubtest.ServiceServer(nil), "", "").URL
	h := listedHub(t, &config.Config{Sources: map[string]*config.Source{"svc": {URL: url}},
		Policy:   map[string]config.Mode{"svc.echo": config.Ask, "svc.block": config.Deny},
		Profiles: map[string]*config.Profile{"work": {Sources: []string{"svc"}}}})
	ctx := context.Background()
	u := FromHub(ctx, h)
	st, err := u.Status()
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Sources) != 1 || len(st.Profiles) != 1 || st.Profiles[0] != "work" {
		t.Fatalf("status: %+v", st)
	}
	modes := map[string]string{}
	for _, tl := range st.Sources[0].ToolList {
		modes[tl.Address] = tl.Mode
	}
	if modes["svc.echo"] != PolicyAsk || modes["svc.block"] != PolicyDeny || len(modes) != 3 {
		t.Errorf("tools and modes: %v", modes)
	}

	env, err := h.Execute(ctx, hub.ExecuteRequest{Code: `return await svc.echo({ text: "hello adapter" });`, Client: "test"})
	if err != nil || env.Status != hub.StatusAwaitingApproval {
		t.Fatalf("execute: %v %+v", err, env)
	}
	pend, err := u.Pending()
	if err != nil || len(pend) != 1 {
		t.Fatalf("pending: %v %+v", err, pend)
	}
	if err := u.Decide(pend[0].ID, AllowOnce); err != nil {
		t.Fatal(err)
	}
	if env, err = h.Execute(ctx, hub.ExecuteRequest{Resume: env.RunID, Client: "test"}); err != nil || env.Status != hub.StatusCompleted {
		t.Fatalf("resume: %v %+v", err, env)
	}
	runs, err := u.Runs(5)
	if err != nil || len(runs) != 1 || len(runs[0].Calls) != 1 || runs[0].Calls[0].Address != "svc.echo" || !runs[0].Calls[0].OK {
		t.Fatalf("runs: %v %+v", err, runs)
	}
	calls, err := u.RunCalls(runs[0].ID)
	if err != nil || len(calls) != 1 {
		t.Fatalf("calls: %v %+v", err, calls)
	}
	c := calls[0]
	if c.Address != "svc.echo" || c.State != "ok" || !c.OK || !strings.Contains(c.Args, "hello adapter") || !strings.Contains(c.Result, "hello adapter") ||
		c.Decision != "allow" || c.Channel != "dialog" || c.Always {
		t.Errorf("the call: %+v", c)
	}
	if text := callBlock(c); !strings.Contains(text, "allowed once in the approval dialog") {
		t.Errorf("the call as shown:\n%s", text)
	}

	if err := u.SetSourceEnabled("svc", false); err != nil {
		t.Fatal(err)
	}
	if st, _ := u.Status(); !st.Sources[0].Disabled || st.Sources[0].State != SourceDisabled {
		t.Errorf("after disabling: %+v", st.Sources[0])
	}
	if err := u.SetSourceEnabled("svc", true); err != nil {
		t.Fatal(err)
	}
	if err := u.RestartSource("svc"); err != nil {
		t.Fatal(err)
	}
	if err := u.AddSource(SourceSpec{Name: "other", URL: url}); err != nil {
		t.Fatal(err)
	}
	// The hub runs the program it is given from its own PATH: one it
	// cannot find is refused, named, and nothing is added.
	if err := u.AddSource(SourceSpec{Name: "tool", Command: []string{"no-such-server-here", "--flag"}}); err == nil || !strings.Contains(err.Error(), `"no-such-server-here": no such program on PATH`) {
		t.Errorf("a program the hub cannot find: %v", err)
	}
	if _, ok := h.Config().Sources["tool"]; ok {
		t.Error("a source whose program is missing was added")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := u.AddSource(SourceSpec{Name: "tool", Command: []string{exe, "--flag"}}); err != nil {
		t.Fatal(err)
	}
	if s := h.Config().Sources["tool"]; s == nil || s.Command != exe || len(s.Args) != 1 || s.Args[0] != "--flag" {
		t.Errorf("the command source in the config: %+v", s)
	}
	if err := u.RemoveSource("svc"); err == nil || !strings.Contains(err.Error(), "profile work") {
		t.Errorf("removing a source a profile uses: %v", err)
	}
	if err := u.RemoveSource("other"); err != nil {
		t.Fatal(err)
	}
	if _, ok := h.Config().Sources["other"]; ok {
		t.Error("the removed source is still configured")
	}
}

// TestAdapterOpenAPISource: the window sees where an OpenAPI source's
// calls go and what it leaves on another origin, and changes both: its
// base URL (a key in it refused, as the Add form moves one and an edit
// has no connection to store it in) and its origins. The window's Add
// gives a base URL too.
func TestAdapterOpenAPISource(t *testing.T) {
	doc := filepath.Join(t.TempDir(), "api.json")
	if err := os.WriteFile(doc, []byte(`{"openapi":"3.1.0","info":{"title":"t","version":"1"},"servers":[{"url":"https://your-domain.example.net"}],
		"paths":{"/items":{"get":{"operationId":"list","responses":{"200":{"description":"ok"}}}},
		"/upload":{"post":{"operationId":"upload","servers":[{"url":"https://uploads.example.net"}],"responses":{"200":{"description":"ok"}}}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	h := listedHub(t, &config.Config{Sources: map[string]*config.Source{"api": {OpenAPI: doc}}})
	u := FromHub(context.Background(), h)
	source := func() SourceStatus {
		t.Helper()
		st, err := u.Status()
		if err != nil || len(st.Sources) != 1 {
			t.Fatalf("status: %+v %v", st, err)
		}
		return st.Sources[0]
	}
	if s := source(); !s.OpenAPI || s.API != "https://your-domain.example.net" || s.BaseURL != "" || strings.Join(s.Elsewhere, " ") != "https://uploads.example.net" || s.Tools != 1 {
		t.Errorf("status: %+v", s)
	}
	if err := u.SetBaseURL("api", " https://acme.example.net/api "); err != nil {
		t.Fatal(err)
	}
	if s := source(); s.API != "https://acme.example.net/api" || s.BaseURL != "https://acme.example.net/api" {
		t.Errorf("after setting the base URL: %+v", s)
	}
	err := u.SetBaseURL("api", "https://api.example.net/bot123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw")
	if err == nil || !strings.Contains(err.Error(), "https://api.example.net/${secret:url_path}") || h.Config().Sources["api"].BaseURL != "https://acme.example.net/api" {
		t.Errorf("a key in the base URL: %v, config %q", err, h.Config().Sources["api"].BaseURL)
	}
	if err := u.AllowOrigin("api", "https://uploads.example.net"); err != nil {
		t.Fatal(err)
	}
	h.Refresh(context.Background())
	if s := source(); len(s.Elsewhere) != 0 || s.Tools != 2 || strings.Join(s.Origins, " ") != "https://uploads.example.net" {
		t.Errorf("after allowing the origin: %+v", s)
	}
	if err := u.RemoveOrigin("api", "https://uploads.example.net:443"); err != nil {
		t.Fatal(err)
	}
	h.Refresh(context.Background())
	if s := source(); strings.Join(s.Elsewhere, " ") != "https://uploads.example.net" || s.Tools != 1 || len(s.Origins) != 0 {
		t.Errorf("after removing the origin: %+v", s)
	}
	if err := u.SetBaseURL("api", ""); err != nil || source().API != "https://your-domain.example.net" {
		t.Errorf("back to the document's server: %v %+v", err, source())
	}
	if err := u.AddSource(SourceSpec{Name: "other", OpenAPI: doc, BaseURL: "http://127.0.0.1:4010"}); err != nil || h.Config().Sources["other"].BaseURL != "http://127.0.0.1:4010" {
		t.Errorf("added with a base URL: %v %+v", err, h.Config().Sources["other"])
	}
	// A program's environment and a server's headers: a secret among
	// them moves to the keychain, the rest stays as written.
	if err := u.AddSource(SourceSpec{Name: "prog", Command: []string{"/bin/true"}, Env: map[string]string{"PROG_DIR": "/srv", "PROG_TOKEN": "ghp_" + strings.Repeat("a1B2", 9)}}); err != nil {
		t.Fatal(err)
	}
	if s := h.Config().Sources["prog"]; s.Env["PROG_DIR"] != "/srv" || s.Env["PROG_TOKEN"] != "" || s.Connections["default"] == nil || !h.HasSecrets("prog", "default") {
		t.Errorf("the program: %+v, connections %+v", s, s.Connections)
	}
	if err := u.AddSource(SourceSpec{Name: "web", URL: "https://mcp.example.net/mcp", Headers: map[string]string{"X-Region": "eu", "Authorization": "Bearer " + strings.Repeat("Zx9", 12)}}); err != nil {
		t.Fatal(err)
	}
	if s := h.Config().Sources["web"]; s.Headers["X-Region"] != "eu" || s.Headers["Authorization"] != "" || !h.HasSecrets("web", "default") {
		t.Errorf("the server: %+v, connections %+v", s, s.Connections)
	}
}

// TestAdapterProfilePins: a profile added in the window pins the
// connection picked for a source and keeps its own rules; a pin to a
// connection the source lacks is refused.
func TestAdapterProfilePins(t *testing.T) {
	url := hubtest.HTTPUpstream(t, hubtest.ServiceServer(nil), "", "").URL
	h := listedHub(t, &config.Config{Sources: map[string]*config.Source{"svc": {URL: url,
		Connections: map[string]*config.Connection{"work": {Default: true}, "personal": {}}}}})
	u := FromHub(context.Background(), h)
	if err := u.AddProfile(ProfileSpec{Name: "home", Sources: []string{"svc"}, Connections: map[string]string{"svc": "personal"}, Rules: map[string]string{"svc.echo": "ask"}}); err != nil {
		t.Fatal(err)
	}
	if p := h.Config().Profiles["home"]; p == nil || p.Connections["svc"] != "personal" || p.Policy["svc.echo"] != config.Ask {
		t.Errorf("the profile in config.json: %+v", p)
	}
	st, err := u.Status()
	if err != nil || len(st.ProfileList) != 1 || strings.Join(st.ProfileList[0].Sources, " ") != "svc:personal" {
		t.Errorf("the profile as listed: %+v %v", st.ProfileList, err)
	}
	if err := u.AddProfile(ProfileSpec{Name: "other", Sources: []string{"svc"}, Connections: map[string]string{"svc": "nope"}}); err == nil {
		t.Error("a pin to a connection svc lacks was added")
	}
}

// TestAdapterSecretIn: where an MCP server's connection references no
// secret, the window hears that the person says where it goes, and the
// secret is kept there: a header of an HTTP server (a bearer token), an
// environment variable of a program.
func TestAdapterSecretIn(t *testing.T) {
	url := hubtest.HTTPUpstream(t, hubtest.ServiceServer(nil), "", "").URL
	h := listedHub(t, &config.Config{Sources: map[string]*config.Source{"svc": {URL: url}, "prog": {Command: "/bin/true", Disabled: true}}})
	u := FromHub(context.Background(), h)
	for source, env := range map[string]bool{"svc": false, "prog": true} {
		_, _, err := u.SecretPlace(source, "")
		var np *NoSecretPlace
		if !errors.As(err, &np) || np.Env != env {
			t.Errorf("%s: %v", source, err)
		}
	}
	if err := u.SetSecretIn("svc", "", "X Api Key", false, "tok-123"); err == nil || !strings.Contains(err.Error(), `"X Api Key" is not a header name`) {
		t.Errorf("a header name with blanks: %v", err)
	}
	if err := u.SetSecretIn("prog", "", "PROG-TOKEN", false, "prog-456"); err == nil || !strings.Contains(err.Error(), "not a valid environment variable name") {
		t.Errorf("a variable name with a dash: %v", err)
	}
	if err := u.SetSecretIn("svc", "", "Authorization", true, "tok-123"); err != nil {
		t.Fatal(err)
	}
	if err := u.SetSecretIn("prog", "work", "PROG_TOKEN", false, "prog-456"); err != nil {
		t.Fatal(err)
	}
	cfg := h.Config()
	if c := cfg.Sources["svc"].Connections["default"]; c == nil || c.Headers["Authorization"] != "Bearer ${secret:Authorization}" {
		t.Errorf("svc's connection: %+v", c)
	}
	if c := cfg.Sources["prog"].Connections["work"]; c == nil || c.Env["PROG_TOKEN"] != "${secret:PROG_TOKEN}" {
		t.Errorf("prog's connection: %+v", c)
	}
	for source, want := range map[string]string{"svc": "header Authorization", "prog": "environment variable PROG_TOKEN"} {
		if where, _, err := u.SecretPlace(source, ""); err != nil || where != want {
			t.Errorf("%s now: %q %v", source, where, err)
		}
	}
	if !h.HasSecrets("svc", "default") || !h.HasSecrets("prog", "work") {
		t.Error("a secret is not in the keychain")
	}
}

// A REST API whose client gets its tokens on its own reaches the window
// as ErrNeedsClientCredentials until its client is given (not as
// ErrNeedsClient, whose form asks for a redirect port).
func TestAdapterNeedsClientCredentials(t *testing.T) {
	doc := filepath.Join(t.TempDir(), "api.json")
	if err := os.WriteFile(doc, []byte(`{"openapi":"3.0.3","info":{"title":"Billing","version":"1"},
"servers":[{"url":"http://127.0.0.1:1"}],
"components":{"securitySchemes":{"svc":{"type":"oauth2","flows":{"clientCredentials":{"tokenUrl":"http://127.0.0.1:1/token","scopes":{"read":"read"}}}}}},
"security":[{"svc":["read"]}],
"paths":{"/invoices":{"get":{"operationId":"listInvoices","summary":"List invoices","responses":{"200":{"description":"ok"}}}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	h := listedHub(t, &config.Config{Sources: map[string]*config.Source{"billing": {OpenAPI: doc}}, Policy: map[string]config.Mode{}})
	ctx := context.Background()
	err := FromHub(ctx, h).Login("billing", "", nil)
	if !errors.Is(err, ErrNeedsClientCredentials) || errors.Is(err, ErrNeedsClient) || !strings.Contains(err.Error(), "client credentials") {
		t.Fatalf("Login of an API with a client credentials flow and no client: %v", err)
	}
}

// TestAdapterRunsReadsNoCallDetails: the window reads the runs on every
// event of the hub; over runs of many calls with results of some
// kilobytes, that read allocates a fraction of the results' bytes (their
// details are read for the run shown only, with RunCalls), where reading
// and redacting every call's result took seconds and gigabytes.
func TestAdapterRunsReadsNoCallDetails(t *testing.T) {
	url := hubtest.HTTPUpstream(t, hubtest.EchoServer(), "", "").URL
	h := listedHub(t, &config.Config{Sources: map[string]*config.Source{"svc": {URL: url}}, Policy: map[string]config.Mode{"svc.echo": config.Allow}})
	ctx := context.Background()
	const runs, calls, size = 20, 40, 6000
	for range runs {
		env, err := h.Execute(ctx, hub.ExecuteRequest{Client: "test", Code: fmt.Sprintf(
			`const big = "x".repeat(%d); for (let i = 0; i < %d; i++) await svc.echo({ text: big + i }); return 1;`, size, calls)})
		if err != nil || env.Status != hub.StatusCompleted {
			t.Fatalf("execute: %v %+v", err, env)
		}
	}
	u := FromHub(ctx, h)
	var got []RunSummary
	var err error
	alloc := hubtest.Allocated(func() { got, err = u.Runs(loadRuns) })
	if err != nil || len(got) != runs || len(got[0].Calls) != calls {
		t.Fatalf("runs: %v, %d runs", err, len(got))
	}
	if results := uint64(runs * calls * size); alloc > results/2 {
		t.Errorf("reading %d runs of %d calls allocated %d bytes, over half of their results' %d", runs, calls, alloc, results)
	}
	detail, err := u.RunCalls(got[0].ID)
	if err != nil || len(detail) != calls || !strings.Contains(detail[0].Result, strings.Repeat("x", 100)) {
		t.Fatalf("the calls of the run shown: %v, %d calls", err, len(detail))
	}
}

// listedHub is a hub over cfg in a home of its own, its sources listed;
// the test closes it.
func listedHub(t *testing.T, cfg *config.Config) *hub.Hub {
	t.Helper()
	home := t.TempDir()
	if err := cfg.Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	h, err := hub.New(ctx, hub.Options{Home: home, Keychain: &hubtest.MemKeychain{}, ConfigPoll: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	if errs := h.Refresh(ctx); len(errs) > 0 {
		t.Fatal(errs)
	}
	return h
}

// TestAdapterRevealsTheClientsWords: a client names itself; what the
// window shows of that name (beside an approval, in the runs) shows a
// character that reorders or hides text as its escape: a right-to-left
// override (U+202E) made "claude<U+202E>edoc" read as "claudecode".
func TestAdapterRevealsTheClientsWords(t *testing.T) {
	url := hubtest.HTTPUpstream(t, hubtest.ServiceServer(nil), "", "").URL
	h := listedHub(t, &config.Config{Sources: map[string]*config.Source{"svc": {URL: url}}, Policy: map[string]config.Mode{"svc.echo": config.Ask}})
	ctx := context.Background()
	env, err := h.Execute(ctx, hub.ExecuteRequest{Code: `return await svc.echo({ text: "x" });`, Client: "claude\u202eedoc 1"})
	if err != nil || env.Status != hub.StatusAwaitingApproval {
		t.Fatalf("execute: %v %+v", err, env)
	}
	a := FromHub(ctx, h)
	want := `claude\u202eedoc 1`
	pending, err := a.Pending()
	if err != nil || len(pending) != 1 || pending[0].Client != want {
		t.Errorf("the approval's client: %v %+v", err, pending)
	}
	runs, err := a.Runs(10)
	if err != nil || len(runs) != 1 || runs[0].Client != want {
		t.Errorf("the run's client: %v %+v", err, runs)
	}
}
