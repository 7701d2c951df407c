package search

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func tokens(s string) []string {
	var out []string
	forEachToken(s, nil, func(tok []byte) { out = append(out, string(tok)) })
	return out
}

func TestTokenize(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"createIssue", []string{"create", "issue"}},
		{"create_issue", []string{"create", "issue"}},
		{"list-pull-requests", []string{"list", "pull", "requests"}},
		{"HTTPServer", []string{"http", "server"}},
		{"getHTTPResponseCode", []string{"get", "http", "response", "code"}},
		{"parseJSON", []string{"parse", "json"}},
		{"base64Encode", []string{"base", "64", "encode"}},
		{"list_v2_items", []string{"list", "v", "2", "items"}},
		{"s3", []string{"s", "3"}},
		{"GitHub.createIssue(owner, repo)", []string{"git", "hub", "create", "issue", "owner", "repo"}},
		{"Read the file's contents.", []string{"read", "the", "file", "s", "contents"}},
		{"  --__  ", nil},
		{"", nil},
		{"ÜberCoolTool", []string{"uber", "cool", "tool"}},
		{"naïveCafé", []string{"naive", "cafe"}},
		{"ÉTATGénéral", []string{"etat", "general"}},
		{"Crème brûlée", []string{"creme", "brulee"}},
		{"一覧表示", []string{"一覧", "覧表", "表示"}},
		{"プルリクエストの一覧", []string{"プル", "ルリ", "リク", "クエ", "エス", "スト", "トの", "の一", "一覧"}},
		{"GitHubの課題", []string{"git", "hub", "の課", "課題"}},
		{"issue 作成", []string{"issue", "作成"}},
		{"猫", []string{"猫"}},
		{"저장소 목록", []string{"저장", "장소", "목록"}},
		{"データー", []string{"デー", "ータ", "ター"}},
		{"ABC", []string{"abc"}},
		{"perPage", []string{"per", "page"}},
		{"sequentialthinking", []string{"sequentialthinking"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tokens(tt.in)); diff != "" {
			t.Errorf("tokens(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestStem(t *testing.T) {
	// Groups of words that must share a stem.
	same := [][]string{
		{"create", "creates", "created", "creating", "creation"},
		{"directory", "directories"},
		{"file", "files", "filing"},
		{"list", "lists", "listing", "listed"},
		{"delete", "deletes", "deleted", "deleting", "deletion"},
		{"commit", "commits", "committed", "committing"},
		{"query", "queries", "queried"},
		{"change", "changes", "changed", "changing"},
		{"branch", "branches"},
		{"relation", "relations", "relationship", "relationships"},
		{"member", "members", "membership", "memberships"},
		{"owner", "ownership"},
		{"modify", "modified", "modifies"},
		{"recursive", "recursively"},
		{"add", "adds", "added", "adding"},
		{"stage", "staged", "staging"},
		{"difference", "differences", "differ"},
		{"process", "processes"},
		// A verb in -ate and its -ation.
		{"validate", "validates", "validated", "validating", "validation", "valid"},
		{"activate", "activation", "active"},
		{"template", "templates"},
		// A verb in -scribe and its -scription.
		{"subscribe", "subscribed", "subscription", "subscriptions"},
		{"describe", "description", "descriptions"},
		// Plurals in -is.
		{"emoji", "emojis"},
		{"api", "apis"},
		{"wiki", "wikis"},
		{"uri", "uris"},
		{"use", "uses", "used", "using"},
		{"need", "needs", "needed", "needing"},
		{"exceed", "exceeds", "exceeded", "exceeding"},
		{"agree", "agreed", "agrees"},
		{"owe", "owed", "owing"},
		{"one", "ones"},
		// British and American spellings.
		{"organization", "organisation", "organise", "organized", "organisations"},
		{"authorize", "authorise", "authorisation", "authorised"},
		{"analyze", "analyse", "analysed"},
		{"color", "colour", "colours"},
		{"favorite", "favourite", "favourites"},
		{"behavior", "behaviour"},
		{"license", "licence", "licences"},
		{"catalog", "catalogue", "catalogues"},
		{"center", "centre", "centres"},
		{"fiber", "fibre"},
		{"canceled", "cancelled", "cancelling", "cancel"},
		{"labeled", "labelled", "labelling", "label"},
		{"neighborhood", "neighbourhood"},
	}
	for _, g := range same {
		want := string(stem([]byte(g[0])))
		for _, w := range g[1:] {
			if got := string(stem([]byte(w))); got != want {
				t.Errorf("stem(%q) = %q, want %q (as %q)", w, got, want, g[0])
			}
		}
	}
	// Words that must be left alone or kept apart.
	tests := []struct{ in, want string }{
		{"git", "git"},
		{"status", "status"},
		{"class", "class"},
		{"bring", "bring"},
		{"string", "string"},
		{"base64", "base64"},
		{"über", "über"},
		{"read", "read"},
		{"write", "writ"},
		{"hour", "hour"},
		{"tour", "tour"},
		{"your", "your"},
		{"spell", "spell"},
		{"redis", "redi"},
		{"basis", "basis"},
		{"axis", "axis"},
		{"advise", "advis"},
		{"substring", "substr"},
		{"source", "sourc"},
		{"update", "updat"},
		{"private", "privat"},
		{"heartbeat", "heartbeat"},
	}
	for _, tt := range tests {
		if got := string(stem([]byte(tt.in))); got != tt.want {
			t.Errorf("stem(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// After a short word, -ship is a ship, not a state: a starship is
	// no star, a warship no war, a hardship nothing hard.
	for _, pair := range [][2]string{{"starship", "star"}, {"warships", "war"}, {"hardship", "hard"}, {"worship", "wor"}} {
		if a, b := string(stem([]byte(pair[0]))), string(stem([]byte(pair[1]))); a == b {
			t.Errorf("stem(%q) = stem(%q) = %q", pair[0], pair[1], a)
		}
	}
}

func TestSynonymsAreSymmetric(t *testing.T) {
	for s, syns := range synonyms {
		for _, o := range syns {
			if !contains(synonyms[o], s) {
				t.Errorf("%q expands to %q but not back", s, o)
			}
		}
	}
	if !contains(synonyms[string(stem([]byte("folder")))], string(stem([]byte("directory")))) {
		t.Error("folder does not expand to directory")
	}
}

// TestBritishSpellings: a request in British spelling finds a tool
// written in American, and the other way round.
func TestBritishSpellings(t *testing.T) {
	docs := []Doc{
		{Namespace: "gh", Name: "orgsListMembers", Title: "List organization members", Method: "GET", Path: "/orgs/{org}/members"},
		{Namespace: "gh", Name: "reposListMembers", Title: "List repository members", Method: "GET", Path: "/repos/{owner}/{repo}/members"},
		{Namespace: "gh", Name: "issuesUpdateLabel", Title: "Update a label", Description: "Changes the name or color of a label.", Method: "PATCH", Path: "/repos/{owner}/{repo}/labels/{name}"},
		{Namespace: "gh", Name: "issuesCreateLabel", Title: "Create a label", Method: "POST", Path: "/repos/{owner}/{repo}/labels"},
		{Namespace: "jira", Name: "getFavouriteFilters", Description: "Returns the visible favourite filters of the user."},
		{Namespace: "jira", Name: "getFilters", Description: "Returns all filters."},
	}
	ix := Build(docs, nil)
	wantFirst(t, ix, docs, "list the organisation's members", "gh.orgsListMembers")
	wantFirst(t, ix, docs, "change the colour of the label", "gh.issuesUpdateLabel")
	wantFirst(t, ix, docs, "my favorite filters", "jira.getFavouriteFilters")
}
