package config

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const profileSources = `"sources": {
    "github": {"url": "https://gh.example/mcp", "connections": {"personal": {"default": true}, "work": {}}},
    "linear": {"url": "https://linear.example/mcp"},
    "my-mail": {"command": "mail-mcp"}
  }`

func TestProfilesRoundTrip(t *testing.T) {
	in := `{` + profileSources + `,
  "profiles": {
    "work": {"sources": ["github", "linear"], "connections": {"github": "work"}, "mode": "code",
      "readOnly": true, "policy": {"linear.*": "ask", "github.createIssue": "deny"}, "note": "kept"},
    "mail": {"sources": ["my-mail"], "mode": "direct", "policy": {"myMail": "ask"}}
  }
}`
	path := filepath.Join(t.TempDir(), "config.json")
	c, err := Parse(path, []byte(in))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	want := &Profile{
		Sources:     []string{"github", "linear"},
		Connections: map[string]string{"github": "work"},
		Mode:        ProfileCode,
		ReadOnly:    true,
		Policy:      map[string]Mode{"linear.*": Ask, "github.createIssue": Deny},
	}
	if diff := cmp.Diff(want, c.Profile("work"), cmp.AllowUnexported(Profile{}), cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".extra" }, cmp.Ignore())); diff != "" {
		t.Errorf("profile work (-want +got):\n%s", diff)
	}
	if got := c.Profile("mail").ModeOrDefault(); got != ProfileDirect {
		t.Errorf("mail mode = %q", got)
	}
	if got := c.ProfileNames(); !cmp.Equal(got, []string{"mail", "work"}) {
		t.Errorf("ProfileNames = %v", got)
	}
	if got := c.ProfilesUsing("github"); !cmp.Equal(got, []string{"work"}) {
		t.Errorf("ProfilesUsing(github) = %v", got)
	}
	if err := c.Save(path); err != nil {
		t.Fatal(err)
	}
	c2, err := Load(path)
	if err != nil {
		t.Fatalf("reload: %v", err)
	}
	before, _ := json.Marshal(c)
	after, _ := json.Marshal(c2)
	if string(before) != string(after) || !strings.Contains(string(after), `"note":"kept"`) {
		t.Errorf("round trip changed the profiles:\n%s\n%s", before, after)
	}
}

func TestProfileValidation(t *testing.T) {
	for _, tc := range []struct {
		name, profiles string
		want           []string
	}{
		{"not object", `[]`, []string{"profiles: must be an object of profiles keyed by name"}},
		{"bad name", `{"a b": {"sources": ["linear"]}}`, []string{"profiles.a b: profile name must"}},
		{"missing source", `{"w": {"sources": ["linear", "jira"]}}`, []string{`profiles.w.sources[1]: no source named "jira"; sources: github, linear, my-mail`}},
		{"no sources", `{"w": {"sources": []}}`, []string{"profiles.w.sources: empty"}},
		{"twice", `{"w": {"sources": ["linear", "linear"]}}`, []string{`profiles.w.sources[1]: source "linear" is listed twice`}},
		{"missing connection", `{"w": {"sources": ["github"], "connections": {"github": "team"}}}`, []string{`profiles.w.connections.github: source github has no connection "team"; connections: personal, work`}},
		{"pin outside", `{"w": {"sources": ["linear"], "connections": {"github": "work"}}}`, []string{`profiles.w.connections.github: source "github" is not one of the profile's sources`}},
		{"bad mode", `{"w": {"sources": ["linear"], "mode": "tools"}}`, []string{`profiles.w.mode: unknown mode "tools"`}},
		{"mode type", `{"w": {"sources": ["linear"], "mode": 1}}`, []string{`profiles.w.mode: must be "code" or "direct"`}},
		{"readOnly type", `{"w": {"sources": ["linear"], "readOnly": "yes"}}`, []string{"profiles.w.readOnly: must be true or false"}},
		{"policy mode", `{"w": {"sources": ["linear"], "policy": {"linear.x": "maybe"}}}`, []string{`profiles.w.policy.linear.x: mode "maybe"`}},
		{"policy key", `{"w": {"sources": ["linear"], "policy": {"a b": "ask"}}}`, []string{"profiles.w.policy.a b: not an address"}},
		{"policy outside", `{"w": {"sources": ["linear"], "policy": {"github.createIssue": "ask"}}}`, []string{"profiles.w.policy.github.createIssue: names github, which is not one of the profile's sources (linear)"}},
		{"typo", `{"w": {"sources": ["linear"], "readonly": true}}`, []string{`profiles.w.readonly: unknown key; did you mean "readOnly"?`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("/home/p/config.json", []byte(`{`+profileSources+`, "profiles": `+tc.profiles+`}`))
			if err == nil {
				t.Fatal("Parse accepted it")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), "/home/p/config.json: "+w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
	// The policy may name a source by its namespace or its config name.
	for _, key := range []string{"myMail.send", "my-mail.send", "myMail", "*.send"} {
		if _, err := Parse("c.json", []byte(`{`+profileSources+`, "profiles": {"m": {"sources": ["my-mail"], "policy": {"`+key+`": "deny"}}}}`)); err != nil {
			t.Errorf("policy %q: %v", key, err)
		}
	}
}

func TestPutProfile(t *testing.T) {
	c, err := Parse("c.json", []byte(`{`+profileSources+`}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.PutProfile("c.json", "w", &Profile{Sources: []string{"nope"}}, false); err == nil || !strings.Contains(err.Error(), `profiles.w.sources[0]: no source named "nope"`) {
		t.Errorf("PutProfile(missing source) = %v", err)
	}
	if c.Profile("w") != nil {
		t.Error("a refused profile was kept")
	}
	if err := c.PutProfile("c.json", "w", &Profile{Sources: []string{"linear"}}, false); err != nil {
		t.Fatal(err)
	}
	if err := c.PutProfile("c.json", "w", &Profile{Sources: []string{"github"}}, false); err == nil || !strings.Contains(err.Error(), "a profile with this name exists") {
		t.Errorf("PutProfile(existing) = %v", err)
	}
	if err := c.PutProfile("c.json", "w", &Profile{Sources: []string{"github"}}, true); err != nil {
		t.Errorf("PutProfile(replace) = %v", err)
	}
	if err := c.Validate("c.json"); err != nil {
		t.Errorf("Validate after PutProfile: %v", err)
	}
}

func TestForProfile(t *testing.T) {
	c, err := Parse("c.json", []byte(`{`+profileSources+`, "profiles": {"w": {"sources": ["github", "linear"], "connections": {"github": "work"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	v := c.ForProfile("w")
	if got := sortedKeys(v.Sources); !cmp.Equal(got, []string{"github", "linear"}) {
		t.Errorf("sources = %v", got)
	}
	if got := v.Sources["github"].ConnectionNames(); !cmp.Equal(got, []string{"work"}) || v.Sources["github"].DefaultConnection() != "work" {
		t.Errorf("github's connections = %v, default %q; want only the pinned work", got, v.Sources["github"].DefaultConnection())
	}
	// The person's config is left as it was.
	if got := c.Sources["github"].DefaultConnection(); got != "personal" || c.Sources["github"].Connections["work"].Default {
		t.Errorf("ForProfile changed the config: default %q", got)
	}
	if c.ForProfile("nope") != nil || c.ForProfile("") != nil {
		t.Error("ForProfile of no profile is not nil")
	}
}
