package scope

import (
	"testing"

	"capabilities.sh/capabilities/hub/config"
)

func testConfig() *config.Config {
	return &config.Config{
		Sources: map[string]*config.Source{
			"acct": {URL: "http://127.0.0.1:1/mcp", Connections: map[string]*config.Connection{
				"personal": {Default: true},
				"work":     {},
			}},
			"mail": {URL: "http://127.0.0.1:2/mcp"},
		},
		Profiles: map[string]*config.Profile{
			"work": {Sources: []string{"acct"}, Connections: map[string]string{"acct": "work"}, ReadOnly: true},
		},
	}
}

func TestCache(t *testing.T) {
	cfg := testConfig()
	var c Cache
	if sc, ok := c.Get(cfg, "nope"); ok || sc != nil {
		t.Fatalf("Get of a profile the config has not = %v, %v", sc, ok)
	}
	sc, ok := c.Get(cfg, "work")
	if !ok || sc.Name() != "work" || !sc.Profile().ReadOnly {
		t.Fatalf("Get(work) = %+v, %v", sc, ok)
	}
	if again, _ := c.Get(cfg, "work"); again != sc {
		t.Fatal("a second Get under the same config made a new scope")
	}
	if other, _ := c.Get(testConfig(), "work"); other == sc {
		t.Fatal("a new config kept the old scope")
	}
}

func TestConfigAndSources(t *testing.T) {
	cfg := testConfig()
	var c Cache
	sc, _ := c.Get(cfg, "work")

	seen := sc.Config(cfg)
	if seen != sc.ProfileConfig() || len(seen.Sources) != 1 || seen.Sources["acct"] == nil {
		t.Fatalf("the profile sees sources %v, want acct only", seen.Sources)
	}
	if conns := seen.Sources["acct"].Connections; len(conns) != 1 || conns["work"] == nil {
		t.Fatalf("the profile sees connections %v of acct, want the pinned work only", conns)
	}
	if !sc.Has("acct") || sc.Has("mail") {
		t.Fatal("Has disagrees with the profile's sources")
	}

	// A config whose profile lists other sources now: the scope sees none.
	changed := testConfig()
	changed.Profiles["work"].Sources = []string{"mail"}
	if got := sc.Config(changed); len(got.Sources) != 0 {
		t.Fatalf("a scope of a changed profile sees %v, want nothing", got.Sources)
	}

	// The nil scope is the whole hub.
	var whole *Scope
	if whole.Config(cfg) != cfg || !whole.Has("mail") || whole.Name() != "" || whole.Profile() != nil {
		t.Fatal("the nil scope is not the whole hub")
	}
}

func TestRunsOfAProfile(t *testing.T) {
	var c Cache
	sc, _ := c.Get(testConfig(), "work")
	var whole *Scope

	in := Client("claude", sc)
	if in != "claude [profile work]" || !MadeInProfile(in) || !sc.HoldsRun(in) {
		t.Fatalf("Client in work = %q (made in a profile %v, held %v)", in, MadeInProfile(in), sc.HoldsRun(in))
	}
	// A client's own name never reads as a profile's mark.
	out := Client("evil [profile work]", whole)
	if out != "evil (profile work]" || MadeInProfile(out) || sc.HoldsRun(out) {
		t.Fatalf("Client outside = %q (made in a profile %v, held by work %v)", out, MadeInProfile(out), sc.HoldsRun(out))
	}
	if !whole.HoldsRun(in) || !whole.HoldsRun(out) {
		t.Fatal("the whole hub does not hold every run")
	}
}
