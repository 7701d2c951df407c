package hub

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/upstream"
	"capabilities.sh/capabilities/internal/hubtest"
)

// The window's source actions on a running hub: add (a value that looks
// like a secret is refused), status with the stderr tail, disable and
// enable, restart, and remove (refused while a profile uses the source).
func TestSourceActions(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	if err := testConfig(map[string]*config.Source{}).Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}
	kc := &hubtest.MemKeychain{}
	secret := "sk_live_4eC39HqLyjWDarjtT1zdp7dc"
	kc.Set(config.SecretKey("fake", "default", "TOKEN"), secret)
	h, err := New(ctx, Options{Home: home, ConfigPoll: -1, Keychain: kc})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	status := func(name string) SourceStatus {
		t.Helper()
		st, err := h.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range st.Sources {
			if s.Name == name {
				return s
			}
		}
		t.Fatalf("no source %s in the status: %+v", name, st.Sources)
		return SourceStatus{}
	}

	// What looks like a secret moves to the keychain, as an import's
	// does (a value of env, a key in the URL's path); a key in a
	// document's URL, which the hub fetches with no credential, is refused
	// before anything is fetched.
	const key = "NjA5ZmQ0YWItYTk0Zi00YjJjLTlkM2U"
	if err := h.AddSource(ctx, "leaky", fakeSource("crash", map[string]string{"API_TOKEN": "x"})); err != nil {
		t.Fatalf("a source with a secret-looking env: %v", err)
	}
	if err := h.AddSource(ctx, "zap", &config.Source{URL: "http://127.0.0.1:9/s/" + key + "/mcp"}); err != nil {
		t.Fatalf("a source whose URL's path holds a key: %v", err)
	}
	leaky, zap := h.Config().Sources["leaky"], h.Config().Sources["zap"]
	if leaky == nil || leaky.Env["API_TOKEN"] != "" || leaky.Connections["default"].Env["API_TOKEN"] != "${secret:API_TOKEN}" {
		t.Errorf("leaky as added: %+v", leaky)
	}
	if zap == nil || zap.URL != "http://127.0.0.1:9/s/${secret:url_path}/mcp" || zap.DefaultConnection() != "default" {
		t.Errorf("zap as added: %+v", zap)
	}
	for k, want := range map[string]string{config.SecretKey("leaky", "default", "API_TOKEN"): "x", config.SecretKey("zap", "default", "url_path"): key} {
		if v, err := kc.Get(k); v != want {
			t.Errorf("keychain %s = %q, %v; want %q", k, v, err, want)
		}
	}
	if err := h.AddSource(ctx, "doc", &config.Source{OpenAPI: "http://127.0.0.1:9/openapi.json?token=" + key}); err == nil || !strings.Contains(err.Error(), "the document's URL has token in its query") {
		t.Errorf("a document's URL with a key: %v", err)
	}
	// One in a program's arguments has no reference to take its place:
	// refused, config.json unchanged.
	if err := h.AddSource(ctx, "argued", &config.Source{Command: "npx", Args: []string{"-y", "server-slack", "--bot-token", "xoxb-1234567890-abcdefghij"}}); err == nil ||
		!strings.Contains(err.Error(), "its command's argument 4 (the value of --bot-token) looks like a secret") || h.Config().Sources["argued"] != nil {
		t.Errorf("a token in the arguments: %v", err)
	}
	for _, n := range []string{"leaky", "zap"} {
		if err := h.RemoveSource(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	withSecret := fakeSource("crash", nil)
	withSecret.Connections = map[string]*config.Connection{"default": {Env: map[string]string{"FAKE_TOKEN": "${secret:TOKEN}"}}}
	if err := h.AddSource(ctx, "fake", withSecret); err != nil {
		t.Fatal(err)
	}
	if err := h.AddSource(ctx, "fake", fakeSource("crash", nil)); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Fatalf("adding a source twice: %v", err)
	}
	if errs := h.Refresh(ctx, "fake"); errs["fake"] != nil {
		t.Fatal(errs["fake"])
	}
	st := status("fake")
	if st.State != upstream.SourceUp || st.Tools != 2 || len(st.Stderr) == 0 || !strings.Contains(strings.Join(st.Stderr, "\n"), "fake upstream crash ready") {
		t.Fatalf("status after adding: %+v", st)
	}
	if tail := strings.Join(st.Stderr, "\n"); strings.Contains(tail, secret) || !strings.Contains(tail, "starting with token") {
		t.Fatalf("the stderr tail shows the secret, or not the line: %q", tail)
	}

	tools := h.SourceTools("fake")
	if len(tools) != 2 || tools[0].Address != "fake.crash" || tools[1].Address != "fake.echo" || tools[1].Mode == "" {
		t.Fatalf("SourceTools: %+v", tools)
	}
	if err := h.SetPolicy(ctx, "fake.crash", config.Deny); err != nil {
		t.Fatal(err)
	}
	if tools := h.SourceTools("fake"); tools[0].Mode != config.Deny || tools[1].Mode == config.Deny {
		t.Fatalf("SourceTools after turning fake.crash off: %+v", tools)
	}
	if err := h.EditSource(ctx, "fake", func(s *config.Source) bool { return s.SetEnabled(false) }); err != nil {
		t.Fatal(err)
	}
	if st := status("fake"); !st.Disabled || st.State != upstream.SourceDisabled {
		t.Fatalf("status after disabling: %+v", st)
	}
	if err := h.RestartSource(ctx, "fake"); err == nil || !strings.Contains(err.Error(), "disabled") {
		t.Fatalf("restarting a disabled source: %v", err)
	}
	if err := h.EditSource(ctx, "fake", func(s *config.Source) bool { return s.SetEnabled(true) }); err != nil {
		t.Fatal(err)
	}
	if err := h.RestartSource(ctx, "fake"); err != nil {
		t.Fatal(err)
	}
	if st := status("fake"); st.Disabled || st.State != upstream.SourceUp || st.Tools != 2 {
		t.Fatalf("status after enabling and restarting: %+v", st)
	}
	if err := h.RestartSource(ctx, "ghost"); err == nil || !strings.Contains(err.Error(), `no source named "ghost"`) {
		t.Fatalf("restarting an unknown source: %v", err)
	}

	cfg, err := config.Load(h.Paths().Config())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Profiles = map[string]*config.Profile{"work": {Sources: []string{"fake"}}}
	if err := h.SaveConfig(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	if err := h.RemoveSource(ctx, "fake"); err == nil || !strings.Contains(err.Error(), "profile work") {
		t.Fatalf("removing a source a profile uses: %v", err)
	}
	cfg.Profiles = nil
	if err := h.SaveConfig(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	if err := h.RemoveSource(ctx, "fake"); err != nil {
		t.Fatal(err)
	}
	if _, ok := h.Config().Sources["fake"]; ok {
		t.Fatal("the removed source is still in the hub's config")
	}
	if _, err := kc.Get(config.SecretKey("fake", "default", "TOKEN")); err == nil {
		t.Fatal("the removed source's secret is still in the keychain")
	}
	if err := h.RemoveSource(ctx, "fake"); err == nil {
		t.Fatal("removing a removed source succeeded")
	}
}

// The window's connection actions: make one the default, and remove one
// with its secret (refused while a profile pins it); when the default
// goes, another takes its place.
func TestConnectionActions(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	src := fakeSource("crash", nil)
	src.Connections = map[string]*config.Connection{
		"default": {Default: true, Env: map[string]string{"FAKE_TOKEN": "${secret:TOKEN}"}},
		"work":    {Env: map[string]string{"FAKE_TOKEN": "${secret:TOKEN}"}},
	}
	if err := testConfig(map[string]*config.Source{"fake": src}).Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}
	kc := &hubtest.MemKeychain{}
	kc.Set(config.SecretKey("fake", "default", "TOKEN"), "t-default")
	kc.Set(config.SecretKey("fake", "work", "TOKEN"), "t-work")
	h, err := New(ctx, Options{Home: home, ConfigPoll: -1, Keychain: kc})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })

	if err := h.SetDefaultConnection(ctx, "fake", "work"); err != nil {
		t.Fatal(err)
	}
	if d := h.Config().Sources["fake"].DefaultConnection(); d != "work" {
		t.Fatalf("the default after making work it: %q", d)
	}
	if err := h.SetDefaultConnection(ctx, "fake", "home"); err == nil || !strings.Contains(err.Error(), "it has: work, default") {
		t.Fatalf("making an unknown connection the default: %v", err)
	}
	if err := h.PutProfile(ctx, "office", &config.Profile{Sources: []string{"fake"}, Connections: map[string]string{"fake": "work"}}, false); err != nil {
		t.Fatal(err)
	}
	if err := h.RemoveConnection(ctx, "fake", "work"); err == nil || !strings.Contains(err.Error(), "profile office") {
		t.Fatalf("removing a connection a profile pins: %v", err)
	}
	if _, err := kc.Get(config.SecretKey("fake", "work", "TOKEN")); err != nil {
		t.Fatalf("a refused removal deleted the secret: %v", err)
	}
	if err := h.RemoveProfile(ctx, "office"); err != nil {
		t.Fatal(err)
	}
	if err := h.RemoveConnection(ctx, "fake", "work"); err != nil {
		t.Fatal(err)
	}
	s := h.Config().Sources["fake"]
	if _, ok := s.Connections["work"]; ok || s.DefaultConnection() != "default" {
		t.Fatalf("after removing the default connection work: %v, default %q", s.ConnectionNames(), s.DefaultConnection())
	}
	if _, err := kc.Get(config.SecretKey("fake", "work", "TOKEN")); err == nil {
		t.Fatal("the removed connection's secret is still in the keychain")
	}
	if got, _ := kc.Get(config.SecretKey("fake", "default", "TOKEN")); got != "t-default" {
		t.Fatalf("the other connection's secret: %q", got)
	}
	if err := h.RemoveConnection(ctx, "fake", "work"); err == nil {
		t.Fatal("removing a removed connection succeeded")
	}
}
