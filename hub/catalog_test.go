package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/catalog"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/naming"
	"capabilities.sh/capabilities/hub/upstream"
)

func addresses(s *catalog.Snapshot) []string {
	var out []string
	for _, t := range s.Tools {
		out = append(out, t.Address)
	}
	return out
}

// toolNamed finds the tool of source by its upstream MCP name; nil when the
// catalog has none.
func toolNamed(s *catalog.Snapshot, source, name string) *catalog.Tool {
	for _, t := range s.BySource(source) {
		if t.Name == name {
			return t
		}
	}
	return nil
}

func changedAddresses(t *testing.T, c *catalog.Catalog) []string {
	t.Helper()
	chs, err := c.Changes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ch := range chs {
		out = append(out, ch.Address)
	}
	slices.Sort(out)
	return out
}

func TestCatalogRefreshReferenceServers(t *testing.T) {
	ctx := context.Background()
	cfg := testConfig(map[string]*config.Source{
		"everything":   everythingSource(t),
		"memory":       memorySource(t),
		"my-files":     filesystemSource(t, t.TempDir()),
		"switched-off": {Command: "true", Disabled: true},
	})
	u := newTestUpstreams(t, upstream.Options{}, cfg)
	db := openTestStore(t)
	c := catalog.New(db, u, nil)
	defer c.Close()
	var mu sync.Mutex
	var seen []uint64
	cancel := c.Subscribe(func(s *catalog.Snapshot) {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, s.Version)
	})
	defer cancel()

	if errs := c.Refresh(ctx, cfg); len(errs) > 0 {
		t.Fatalf("Refresh: %v", errs)
	}
	snap := c.Snapshot()
	if got, want := snap.Namespaces(), []string{"everything", "memory", "myFiles"}; !slices.Equal(got, want) {
		t.Errorf("Namespaces = %v, want %v", got, want)
	}
	addrs := addresses(snap)
	if !slices.IsSorted(addrs) {
		t.Errorf("Tools are not sorted by address: %v", addrs)
	}
	for _, want := range []string{"everything.echo", "everything.getSum", "memory.createEntities", "memory.readGraph", "myFiles.readTextFile", "myFiles.writeFile"} {
		if !slices.Contains(addrs, want) {
			t.Errorf("the catalog lacks %s", want)
		}
	}
	sum, ok := snap.Lookup("everything.getSum")
	if !ok {
		t.Fatal("Lookup(everything.getSum) failed")
	}
	if sum.Source != "everything" || sum.Name != "get-sum" || sum.JSName != "getSum" || sum.Namespace != "everything" || len(sum.Hash) != 64 {
		t.Errorf("get-sum = %+v", sum)
	}
	var schema struct {
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(sum.InputSchema, &schema); err != nil || !slices.Equal(schema.Required, []string{"a", "b"}) {
		t.Errorf("get-sum input schema %s: %v", sum.InputSchema, err)
	}
	files := snap.BySource("my-files")
	if len(files) == 0 || files[0].Namespace != "myFiles" {
		t.Errorf("BySource(my-files) = %v", files)
	}
	if len(snap.BySource("switched-off")) != 0 {
		t.Error("a disabled source has tools")
	}

	// The first listing pins every tool where it is: nothing is changed.
	if got := changedAddresses(t, c); len(got) != 0 {
		t.Errorf("open changes after the first listing = %v, want none", got)
	}
	for _, tool := range snap.Tools {
		if tool.Pinned != tool.Hash || tool.Changed() {
			t.Fatalf("%s pinned to %q, want its own hash %q", tool.Address, tool.Pinned, tool.Hash)
		}
	}
	if acc, err := c.Accept(ctx, "everything.echo"); err != nil || len(acc) != 0 {
		t.Fatalf("Accept of an unchanged tool = %v, %v", acc, err)
	}
	if _, err := c.Accept(ctx, "memory"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Accept(ctx, "everything.noSuchTool"); err == nil {
		t.Error("Accept of an unknown address succeeded")
	}

	// Nothing changed upstream: same version, no new changes.
	before := len(changedAddresses(t, c))
	if errs := c.Refresh(ctx, cfg); len(errs) > 0 {
		t.Fatal(errs)
	}
	if c.Snapshot() != snap {
		t.Error("a refresh without changes swapped the snapshot")
	}
	if after := len(changedAddresses(t, c)); after != before {
		t.Errorf("open changes went from %d to %d without a change", before, after)
	}
	mu.Lock()
	defer mu.Unlock()
	// One new snapshot per source as its listing arrived, none for the
	// refresh without changes.
	if !slices.Equal(seen, []uint64{1, 2, 3}) {
		t.Errorf("subscriber saw versions %v, want [1 2 3]", seen)
	}
}

func TestCatalogLoadsFromStoreWithUpstreamsDown(t *testing.T) {
	ctx := context.Background()
	dbFile := filepath.Join(t.TempDir(), "capabilities.db")
	cfg := testConfig(map[string]*config.Source{"everything": everythingSource(t)})
	u := newTestUpstreams(t, upstream.Options{}, cfg)
	db := openTestStoreFile(t, dbFile)
	c := catalog.New(db, u, nil)
	if errs := c.Refresh(ctx, cfg); len(errs) > 0 {
		t.Fatal(errs)
	}
	want := addresses(c.Snapshot())
	c.Close()
	u.Close()
	db.Close()

	// A new hub whose upstream cannot start.
	broken := testConfig(map[string]*config.Source{"everything": {Command: filepath.Join(t.TempDir(), "gone")}})
	u2 := newTestUpstreams(t, upstream.Options{}, broken)
	db2 := openTestStoreFile(t, dbFile)
	c2 := catalog.New(db2, u2, nil)
	defer c2.Close()
	if err := c2.Load(ctx, broken); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, addresses(c2.Snapshot())); diff != "" {
		t.Fatalf("loaded catalog differs (-want +got):\n%s", diff)
	}
	if c2.Snapshot().Version == 0 {
		t.Error("Load did not bump the version")
	}
	// Refresh fails for the source and keeps its tools.
	errs := c2.Refresh(ctx, broken)
	if errs["everything"] == nil {
		t.Fatal("Refresh of a broken source reported no error")
	}
	if diff := cmp.Diff(want, addresses(c2.Snapshot())); diff != "" {
		t.Fatalf("a failed refresh changed the catalog (-want +got):\n%s", diff)
	}
}

// listChangedServer is a go-sdk server over HTTP whose tools the test
// changes at runtime; the server sends notifications/tools/list_changed.
func listChangedServer(t *testing.T) (*mcp.Server, string) {
	server := mcp.NewServer(&mcp.Implementation{Name: "live", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{Name: "get_weather", Description: "Weather for a city.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sunny"}}}, nil
		})
	ts := httpUpstream(t, server, "", "")
	return server, ts.URL
}

func TestCatalogListChangedRecordsChanges(t *testing.T) {
	ctx := context.Background()
	server, url := listChangedServer(t)
	cfg := testConfig(map[string]*config.Source{"live": {URL: url}})
	notified := make(chan string, 16)
	u := newTestUpstreams(t, upstream.Options{OnToolsChanged: func(s string) { notified <- s }}, cfg)
	c := catalog.New(openTestStore(t), u, &catalog.Options{Debounce: 20 * time.Millisecond})
	defer c.Close()
	snaps := make(chan *catalog.Snapshot, 16)
	defer c.Subscribe(func(s *catalog.Snapshot) { snaps <- s })()

	if errs := c.Refresh(ctx, cfg); len(errs) > 0 {
		t.Fatal(errs)
	}
	first := <-snaps
	old, ok := first.Lookup("live.getWeather")
	if !ok {
		t.Fatalf("catalog = %v", addresses(first))
	}
	if _, err := c.Accept(ctx, "live.getWeather"); err != nil {
		t.Fatal(err)
	}

	// The server changes a definition and adds a tool at runtime.
	server.AddTool(&mcp.Tool{Name: "get_weather", Description: "Weather for a city, in Celsius.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	server.AddTool(&mcp.Tool{Name: "get_forecast", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	select {
	case s := <-notified:
		if s != "live" {
			t.Fatalf("OnToolsChanged(%q), want live", s)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no notifications/tools/list_changed reached OnToolsChanged")
	}

	var snap *catalog.Snapshot
	deadline := time.After(10 * time.Second)
	for snap == nil {
		select {
		case s := <-snaps:
			if _, ok := s.Lookup("live.getForecast"); ok {
				if w, _ := s.Lookup("live.getWeather"); w.Description == "Weather for a city, in Celsius." {
					snap = s
				}
			}
		case <-deadline:
			t.Fatalf("the catalog was not refreshed after list_changed; it has %v", addresses(c.Snapshot()))
		}
	}
	if snap.Version <= first.Version {
		t.Errorf("Version went from %d to %d", first.Version, snap.Version)
	}
	weather, _ := snap.Lookup("live.getWeather")
	forecast, _ := snap.Lookup("live.getForecast")
	chs, err := c.Changes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][2]string{}
	for _, ch := range chs {
		got[ch.Address] = [2]string{ch.OldHash, ch.NewHash}
	}
	// The changed tool is open, with what changed; the new one is pinned
	// where it is.
	want := map[string][2]string{"live.getWeather": {old.Hash, weather.Hash}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("open changes (-want +got):\n%s", diff)
	}
	if chs[0].Change != "description changed" {
		t.Errorf("change = %q, want %q", chs[0].Change, "description changed")
	}
	if forecast.Changed() || forecast.Pinned != forecast.Hash {
		t.Errorf("a new tool is changed: %+v", forecast)
	}
	acc, err := c.Accept(ctx, "live.get_weather") // the MCP name
	if err != nil || len(acc) != 1 || acc[0].Address != "live.getWeather" {
		t.Fatalf("Accept = %+v, %v", acc, err)
	}
	if got := changedAddresses(t, c); len(got) != 0 {
		t.Errorf("open changes after Accept = %v", got)
	}

	// A tool that goes away and comes back with another definition is
	// changed: its pin outlives it.
	server.RemoveTools("get_forecast")
	waitFor(t, 10*time.Second, "the removed tool to leave the catalog", func() bool {
		_, ok := c.Snapshot().Lookup("live.getForecast")
		return !ok
	})
	server.AddTool(&mcp.Tool{Name: "get_forecast", Description: "Now it deletes things.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	waitFor(t, 10*time.Second, "the tool to come back", func() bool {
		_, ok := c.Snapshot().Lookup("live.getForecast")
		return ok
	})
	if got := changedAddresses(t, c); !slices.Equal(got, []string{"live.getForecast"}) {
		t.Errorf("a tool added back with another definition: open changes %v", got)
	}
}

func TestCatalogSurvivesMalformedSchemas(t *testing.T) {
	ctx := context.Background()
	cfg := testConfig(map[string]*config.Source{"odd": fakeSource("malformed", nil)})
	u := newTestUpstreams(t, upstream.Options{}, cfg)
	db := openTestStore(t)
	c := catalog.New(db, u, nil)
	defer c.Close()
	if errs := c.Refresh(ctx, cfg); len(errs) > 0 {
		t.Fatalf("Refresh: %v", errs)
	}
	want := []string{"odd.badTypes", "odd.crash", "odd.danglingRef", "odd.echo", "odd.noSchema", "odd.stringSchema"}
	if diff := cmp.Diff(want, addresses(c.Snapshot())); diff != "" {
		t.Fatalf("catalog (-want +got):\n%s", diff)
	}
	for addr, schema := range map[string]string{
		"odd.stringSchema": `"object"`,
		"odd.badTypes":     `{"type":7,"properties":[{"name":"x"}],"required":"x"}`,
		"odd.danglingRef":  `{"$ref":"#/definitions/nowhere"}`,
	} {
		tool, _ := c.Snapshot().Lookup(addr)
		if string(tool.InputSchema) != schema {
			t.Errorf("%s input schema = %s, want %s kept as sent", addr, tool.InputSchema, schema)
		}
	}
	if tool, _ := c.Snapshot().Lookup("odd.noSchema"); len(tool.InputSchema) != 0 && string(tool.InputSchema) != "null" {
		t.Errorf("a tool without a schema got %s", tool.InputSchema)
	}
	if tool, _ := c.Snapshot().Lookup("odd.danglingRef"); string(tool.OutputSchema) != `[1,2,3]` {
		t.Errorf("output schema = %s", tool.OutputSchema)
	}
	// The same tools load back from the store.
	c2 := catalog.New(db, nil, nil)
	if err := c2.Load(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(c.Snapshot().Tools, c2.Snapshot().Tools); diff != "" {
		t.Errorf("loaded tools differ (-refreshed +loaded):\n%s", diff)
	}
}

func TestCatalogFailingSourceKeepsItsTools(t *testing.T) {
	ctx := context.Background()
	cfg := testConfig(map[string]*config.Source{
		"good":  fakeSource("crash", nil),
		"flaky": fakeSource("crash", nil),
	})
	u := newTestUpstreams(t, upstream.Options{CallTimeout: 300 * time.Millisecond}, cfg)
	c := catalog.New(openTestStore(t), u, nil)
	defer c.Close()
	if errs := c.Refresh(ctx, cfg); len(errs) > 0 {
		t.Fatal(errs)
	}
	before := c.Snapshot()

	// flaky now hangs in tools/list.
	hanging := testConfig(map[string]*config.Source{
		"good":  fakeSource("crash", nil),
		"flaky": fakeSource("hang-list", nil),
	})
	u.SetConfig(hanging)
	start := time.Now()
	errs := c.Refresh(ctx, hanging)
	if len(errs) != 1 || errs["flaky"] == nil {
		t.Fatalf("Refresh errors = %v, want one for flaky", errs)
	}
	if ue := (*upstream.Error)(nil); !errors.As(errs["flaky"], &ue) || ue.Kind != upstream.KindTimeout {
		t.Fatalf("flaky's error = %v (%T), want an *upstream.Error of kind %s", errs["flaky"], errs["flaky"], upstream.KindTimeout)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("the refresh took %v", took)
	}
	if c.Snapshot() != before {
		t.Errorf("the catalog changed: %v", addresses(c.Snapshot()))
	}
	if errs := c.Refresh(ctx, hanging, "nosuch"); errs["nosuch"] == nil {
		t.Error("Refresh of an unknown source reported no error")
	}
}

func TestCatalogDropsRemovedAndDisabledSources(t *testing.T) {
	ctx := context.Background()
	cfg := testConfig(map[string]*config.Source{
		"a": fakeSource("crash", nil),
		"b": fakeSource("crash", nil),
	})
	u := newTestUpstreams(t, upstream.Options{}, cfg)
	db := openTestStore(t)
	c := catalog.New(db, u, nil)
	defer c.Close()
	if errs := c.Refresh(ctx, cfg); len(errs) > 0 {
		t.Fatal(errs)
	}
	if got := c.Snapshot().Namespaces(); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("Namespaces = %v", got)
	}
	// b is disabled: its tools leave the catalog but stay stored, so
	// enabling it again is no change to accept.
	disabled := testConfig(map[string]*config.Source{"a": fakeSource("crash", nil), "b": fakeSource("crash", nil)})
	disabled.Sources["b"].Disabled = true
	u.SetConfig(disabled)
	if errs := c.Refresh(ctx, disabled); len(errs) > 0 {
		t.Fatal(errs)
	}
	if got := c.Snapshot().Namespaces(); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("Namespaces with b disabled = %v", got)
	}
	if _, err := c.Accept(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Accept(ctx, "b.echo"); err == nil {
		t.Error("Accept of a disabled source's tool succeeded")
	}
	// a is removed: its tools and open changes leave the store.
	removed := testConfig(map[string]*config.Source{"b": fakeSource("crash", nil)})
	u.SetConfig(removed)
	if errs := c.Refresh(ctx, removed); len(errs) > 0 {
		t.Fatal(errs)
	}
	stored, err := db.Tools(ctx)
	n := 0
	for _, st := range stored {
		if st.Source == "a" {
			n++
		}
	}
	if err != nil || n != 0 {
		t.Errorf("%d tools of the removed source remain (%v)", n, err)
	}
	if got := c.Snapshot().Namespaces(); !slices.Equal(got, []string{"b"}) {
		t.Errorf("Namespaces = %v", got)
	}
	for _, a := range changedAddresses(t, c) {
		if !strings.HasPrefix(a, "b.") {
			t.Errorf("open change %s of a removed source", a)
		}
	}
}

// The secret of an HTTP connection never reaches the database, even after
// the catalog stored the source's tools.
func TestCatalogSecretNotInDatabase(t *testing.T) {
	kc := requireTestKeychain(t)
	ctx := context.Background()
	src := uniqueName("vault")
	secret := "vault_" + strconv.FormatInt(time.Now().UnixNano(), 36) + "Qz3"
	storeTestSecret(t, kc, config.SecretKey(src, "main", "KEY"), secret)
	server := mcp.NewServer(&mcp.Implementation{Name: "vault", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{Name: "list_items", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	ts := httpUpstream(t, server, "X-Api-Key", secret)
	cfg := testConfig(map[string]*config.Source{src: {URL: ts.URL, Connections: map[string]*config.Connection{
		"main": {Headers: map[string]string{"X-Api-Key": "${secret:KEY}"}},
	}}})
	logger, logs := debugLogger()
	u := newTestUpstreams(t, upstream.Options{Keychain: kc, Logger: logger}, cfg)
	db := openTestStore(t)
	c := catalog.New(db, u, &catalog.Options{Logger: logger})
	defer c.Close()
	if errs := c.Refresh(ctx, cfg); len(errs) > 0 {
		t.Fatal(errs)
	}
	if _, ok := c.Snapshot().Lookup(naming.Namespace(src) + ".listItems"); !ok {
		t.Fatalf("catalog = %v", addresses(c.Snapshot()))
	}
	if _, err := u.Call(ctx, src, "", "list_items", nil); err != nil {
		t.Fatal(err)
	}
	if err := rawExec(t, db, `PRAGMA wal_checkpoint(FULL)`); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{db.Path(), db.Path() + "-wal", db.Path() + "-shm"} {
		b, err := os.ReadFile(f)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(secret)) {
			t.Errorf("the secret is in %s", filepath.Base(f))
		}
	}
	if strings.Contains(logs.String(), secret) {
		t.Error("the secret is in the log")
	}
}
