package search

import (
	"slices"
	"strings"
	"testing"
)

// fuzzDocs hold what the request rules read: titles that start with a
// verb, "re-" words, paths with items, parameter values, acronyms, a
// search in two forms, a read of one by an id in its query and a title in
// Japanese.
var fuzzDocs = []Doc{
	{Namespace: "gh", Name: "pullsGet", Title: "Get a pull request (PR)", Description: "Gets one pull request.", Method: "GET", Path: "/repos/{owner}/{repo}/pulls/{pull_number}", Params: []string{"pull_number"}},
	{Namespace: "gh", Name: "pullsList", Title: "List pull requests", Description: "Lists pull requests.", Method: "GET", Path: "/repos/{owner}/{repo}/pulls", Params: []string{"state"}, Values: []string{"open", "closed"}},
	{Namespace: "gh", Name: "actionsReRunWorkflow", Title: "Re-run a workflow", Method: "POST", Path: "/repos/{owner}/{repo}/actions/runs/{run_id}/rerun"},
	{Namespace: "gh", Name: "issuesRemoveLabel", Title: "Remove a label from an issue", Method: "DELETE", Path: "/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}"},
	{Namespace: "gh", Name: "usersBlock", Title: "Block a user", Method: "PUT", Path: "/user/blocks/{username}"},
	{Namespace: "gh", Name: "usersGetAuthenticated", Title: "Get the authenticated user", Method: "GET", Path: "/user"},
	{Namespace: "jira", Name: "getIssue", Description: "Returns an issue by its key.", Params: []string{"issueIdOrKey"}},
	{Namespace: "memo", Name: "createNote", OrigName: "create_note", Description: "メモを作成します。"},
	{Namespace: "st", Name: "postCharacterSearch", Description: "Searching characters", Method: "POST", Path: "/character/search", Params: []string{"name", "hologram"}},
	{Namespace: "st", Name: "getCharacterSearch", Description: "Pagination over characters", Method: "GET", Path: "/character/search", Params: []string{"pageNumber"}},
	{Namespace: "st", Name: "getCharacter", Description: "Retrival of a single character", Method: "GET", Path: "/character", Params: []string{"uid"}},
}

// FuzzSearch: any request, as a model may write it, is answered without
// a panic, within the limit, with hits in order and the same twice, and
// the same as by an index that answered nothing before: no search leaves
// anything behind for the next.
func FuzzSearch(f *testing.F) {
	for _, q := range []string{
		"show me PR 3", "take the wontfix label off", "kick frank out of the organization",
		"rerun the workflow", "Rerun", "re", "comment on commit 7c1d2e", "block the spammer",
		"users that have the auditor role", `create a filter named "my open bugs"`, "move PROJ-7 to Done",
		"get src/main.go from acme/app", "メモを作成", "ｓｈｏｗ ＰＲ ３", "turn the nightly workflow off again",
		"show", "off", "\xff\xfe", "who am I", "open a PR from my branch", "set it up", "   ",
		"summarize https://github.com/acme/app/pull/12?tab=files#r1", "https://x/issues/", "commit it with the message",
		"comment saying", "at 9am or 14:00", "read a.json and b/c.json", "show me photo.png", "jot down the note that x",
		"print .env.example and (.gitignore)", ". .. ...", "holograms", "add bob to the acme team", "the bob",
		"character CHMA0000215045", "carol's", "to", "turn off", "called",
	} {
		f.Add(q)
	}
	ix := Build(fuzzDocs, nil)
	f.Fuzz(func(t *testing.T, q string) {
		hits, total := ix.Search(q, "", 5)
		if len(hits) > 5 || total < 0 {
			t.Fatalf("Search(%q) = %d hits, total %d", q, len(hits), total)
		}
		for i, h := range hits {
			if h.Doc < 0 || h.Doc >= len(fuzzDocs) {
				t.Fatalf("Search(%q) hit %d is doc %d", q, i, h.Doc)
			}
			if i > 0 && h.Score > hits[i-1].Score {
				t.Fatalf("Search(%q) hits out of order: %v", q, hits)
			}
		}
		again, _ := ix.Search(q, "", 5)
		if !slices.Equal(hits, again) {
			t.Fatalf("Search(%q) = %v, then %v", q, hits, again)
		}
		if first, _ := Build(fuzzDocs, nil).Search(q, "", 5); !slices.Equal(hits, first) {
			t.Fatalf("Search(%q) = %v after other searches, %v on a fresh index", q, hits, first)
		}
		// The words no tool uses are words of the request, lower-case
		// letters, each once.
		unknown := ix.Unknown(q, "gh")
		lower := strings.ToLower(q)
		for i, w := range unknown {
			if !asciiLetters(w) || strings.ToLower(w) != w || len(w) > maxUnknownLen || !strings.Contains(lower, w) || slices.Contains(unknown[:i], w) {
				t.Fatalf("Unknown(%q) = %q", q, unknown)
			}
		}
	})
}
