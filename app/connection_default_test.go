package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"capabilities.sh/capabilities/hub/config"
)

// TestExplicitDefaultConnectionStays: a connection added with --default
// stays the default when more connections are added without it, and so
// does a first connection that was the default only by being alone; only
// --default moves the mark.
func TestExplicitDefaultConnectionStays(t *testing.T) {
	requireKeychain(t)
	home := t.TempDir()
	homeKeychain(t, home)
	src := fmt.Sprintf("gh%d", time.Now().UnixNano()%1e9)
	if r := cli(t, home, "", "source", "add", src, "--", "npx", "-y", "server-github"); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	marked := func() []string {
		t.Helper()
		cfg, err := config.Load(filepath.Join(home, "config.json"))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, n := range cfg.Sources[src].ConnectionNames() {
			if cfg.Sources[src].Connections[n].Default {
				out = append(out, n)
			}
		}
		return out
	}
	listDefault := func() string {
		t.Helper()
		r := cli(t, home, "", "connection", "list", src)
		for _, line := range strings.Split(r.stdout, "\n") {
			if f := strings.Fields(line); len(f) >= 3 && f[0] == src && f[2] == "yes" {
				return f[1]
			}
		}
		t.Fatalf("connection list names no default:\n%+v", r)
		return ""
	}
	steps := []struct {
		args       []string
		want       string // the default afterwards
		stdoutHas  string
		stdoutLack string
	}{
		{[]string{"personal", "--env", "GITHUB_TOKEN", "--default"}, "personal", "Added connection personal", "stays the default"},
		{[]string{"work", "--env", "GITHUB_TOKEN"}, "personal", "personal stays the default connection of " + src + "; pass --default to make it work", ""},
		{[]string{"ci", "--env", "GITHUB_TOKEN"}, "personal", "personal stays the default", ""},
		{[]string{"work", "--env", "GITHUB_TOKEN"}, "personal", "Updated connection work", ""},
		{[]string{"ci", "--default"}, "ci", "Updated connection ci", "stays the default"},
	}
	for i, st := range steps {
		args := append([]string{"connection", "add", src}, st.args...)
		r := cli(t, home, fmt.Sprintf("secret-%d-%d", i, time.Now().UnixNano()), args...)
		if r.code != 0 || !strings.Contains(r.stdout, st.stdoutHas) || st.stdoutLack != "" && strings.Contains(r.stdout, st.stdoutLack) {
			t.Fatalf("step %d, %v: %+v", i, args, r)
		}
		if got := marked(); len(got) != 1 || got[0] != st.want {
			t.Fatalf("step %d, %v: marked default %v, want only %s", i, args, got, st.want)
		}
		if got := listDefault(); got != st.want {
			t.Fatalf("step %d, %v: connection list shows %s as the default, want %s", i, args, got, st.want)
		}
	}

	// A first connection added without --default is the default by being
	// alone; a second one leaves it so, now marked.
	other := src + "b"
	if r := cli(t, home, "", "source", "add", other, "--", "npx", "-y", "server-github"); r.code != 0 {
		t.Fatalf("%+v", r)
	}
	for _, name := range []string{"personal", "work"} {
		if r := cli(t, home, "s-"+name, "connection", "add", other, name, "--env", "GITHUB_TOKEN"); r.code != 0 {
			t.Fatalf("add %s: %+v", name, r)
		}
	}
	cfg, _ := config.Load(filepath.Join(home, "config.json"))
	if s := cfg.Sources[other]; !s.Connections["personal"].Default || s.Connections["work"].Default {
		t.Errorf("after adding work to a source whose only connection was personal: personal %+v, work %+v", s.Connections["personal"], s.Connections["work"])
	}
}
