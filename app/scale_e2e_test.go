package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub/config"
)

// The headless hub's memory with GitHub's REST description (13 MB, 1,222
// operations served) as its only source: its peak (VmHWM) while it loads
// the description, and its RSS after a search and two describes, one of a
// tool and one of the whole namespace. Issue 25 asks for 150 MB and 100
// MB. The description is parsed in a child process, whose peak is its
// own: about 340 MB, bounded below with room. The hub peaks at the first
// describe, which names the types of the namespace's 1,222 operations from
// every schema (about 100 MB at the load, 115-120 MB then); that describe
// returns what it used to the system when it ends, and the hub holds about
// 80 MB after the two describes (a live heap near 25 MB: the catalog's
// schemas, the tokenizer's vocabulary, the search index and the kept type
// names). Measured with two other busy processes on two cores: 117 and 82
// MB.
const (
	githubPeakRSS     = 150 << 20
	githubSteadyRSS   = 100 << 20
	githubChildPeakMB = 512
)

// TestGitHubInTheRealHub starts the headless hub with GitHub's description,
// searches and describes it from the CLI, and reads the hub's peak RSS and
// RSS from /proc.
func TestGitHubInTheRealHub(t *testing.T) {
	gh, err := filepath.Abs(filepath.Join("..", "testdata", "npm", "node_modules", "@octokit", "openapi", "generated", "api.github.com.json"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(gh); err != nil {
		t.Skipf("GitHub's description (make test runs npm ci): %v", err)
	}
	w := newWorld(t, 0)
	cfg := &config.Config{Sources: map[string]*config.Source{"gh": {OpenAPI: gh}}}
	if err := cfg.Save(filepath.Join(w.home, "config.json")); err != nil {
		t.Fatal(err)
	}
	w.startHub()
	pid := w.hubPID()

	found, errOut, code := w.cli("", "search", "list pull requests")
	if code != 0 || !strings.Contains(found, "gh.pullsList(") {
		t.Fatalf("search: exit %d\n%s%s", code, found, errOut)
	}
	decl, errOut, code := w.cli("", "describe", "gh.pullsList")
	if code != 0 || !strings.Contains(decl, "pullsList(") {
		t.Fatalf("describe gh.pullsList: exit %d\n%s%s", code, decl, errOut)
	}
	decl, errOut, code = w.cli("", "describe", "gh")
	if code != 0 || !strings.Contains(decl, "declare namespace gh") {
		t.Fatalf("describe gh: exit %d\n%s%s", code, decl, errOut)
	}

	peak, rss := peakRSS(t, pid), procStatus(t, pid, "VmRSS:")
	t.Logf("the hub with GitHub's description: peak RSS %.1f MB, RSS after a search and two describes %.1f MB", float64(peak)/(1<<20), float64(rss)/(1<<20))
	// The description was parsed in a child process, which says its peak.
	m := regexp.MustCompile(`parsed in a child process" source=gh child_peak_rss_mb=(\d+)`).FindStringSubmatch(w.hubOut.String())
	if m == nil {
		t.Fatalf("the hub did not parse GitHub's description in a child process:\n%s", w.hubOut)
	}
	childPeak, _ := strconv.Atoi(m[1])
	t.Logf("the child that parsed it: peak RSS %d MB", childPeak)
	if childPeak > githubChildPeakMB {
		t.Errorf("the parser child's peak RSS is %d MB, above %d MB", childPeak, githubChildPeakMB)
	}
	if peak > githubPeakRSS {
		t.Errorf("the hub's peak RSS is %.1f MB, above %d MB", float64(peak)/(1<<20), githubPeakRSS>>20)
	}
	if rss > githubSteadyRSS {
		t.Errorf("the hub's RSS after a search and two describes is %.1f MB, above %d MB", float64(rss)/(1<<20), githubSteadyRSS>>20)
	}
}

// procStatus is a size field of the process's /proc status, in bytes.
func procStatus(t *testing.T, pid int, field string) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc status for the hub: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field); ok {
			var kb int64
			fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(v), " kB"), &kb)
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}
