package search

import (
	"testing"
)

// TestAcronymsOfGitHub: GitHub's description says "PR" beside "pull
// request" and "SBOM" beside "software bill of materials"; "API" and "ID",
// said everywhere, pair with nothing. A request that says "PRs" then finds
// the pull requests.
func TestAcronymsOfGitHub(t *testing.T) {
	ops, ix := githubIndex(t, false)
	t.Logf("acronyms: %q", ix.acronyms)
	for acr, want := range map[string]string{"pr": "pull request", "sbom": "software bill of materials"} {
		if got := ix.acronyms[acr]; got != want {
			t.Errorf("acronym %q = %q, want %q", acr, got, want)
		}
	}
	for _, acr := range []string{"api", "id", "get", "url"} {
		if got, ok := ix.acronyms[acr]; ok {
			t.Errorf("acronym %q = %q, want none", acr, got)
		}
	}
	for q, want := range map[string]string{"list PRs": "pulls/list", "merge the pr": "pulls/merge"} {
		hits, _ := ix.Search(q, "", 1)
		if len(hits) == 0 || ops[hits[0].Doc].id != want {
			got := ""
			if len(hits) > 0 {
				got = ops[hits[0].Doc].id
			}
			t.Errorf("Search(%q) first = %q, want %s", q, got, want)
		}
	}
}

// TestAcronymEvidence: an acronym pairs with a run of words when at least
// two tools say both, and a third of the tools that say it; a request's
// word reads as the long form in any case, its plural too, and a request
// without one is returned as it is.
func TestAcronymEvidence(t *testing.T) {
	docs := []Doc{
		{Name: "a", Description: "Runs the CI pipeline (continuous integration) for a branch."},
		{Name: "b", Description: "Cancels a CI job of the continuous integration server."},
		{Name: "c", Description: "Reads a pull request. PR numbers are global."},
		{Name: "d", Description: "Lists tags of the CI system."},
		{Name: "e", Description: "The HTTP client sends headers."},
		{Name: "f", Description: "HTTP over TCP."},
	}
	ix := Build(docs, nil)
	if got := ix.acronyms["ci"]; got != "continuous integration" {
		t.Errorf("ci = %q, want continuous integration", got)
	}
	for _, acr := range []string{"pr", "http", "tcp"} {
		if got, ok := ix.acronyms[acr]; ok {
			t.Errorf("%s = %q, want none: one tool or no run of words says it", acr, got)
		}
	}
	for q, want := range map[string]string{
		"rerun CI":         "rerun continuous integration",
		"the ci jobs":      "the continuous integration jobs",
		"two CIs, please":  "two continuous integrations, please",
		"cilantro and CIA": "cilantro and CIA",
	} {
		if got, _ := ix.expandAcronyms(nil, q); got != want {
			t.Errorf("expandAcronyms(%q) = %q, want %q", q, got, want)
		}
	}
}
