package search

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var testDocs = []Doc{
	{Namespace: "github", Name: "createIssue", OrigName: "create_issue", Description: "Create an issue in a repository.", Params: []string{"owner", "repo", "title", "body"}},
	{Namespace: "github", Name: "searchIssues", OrigName: "search_issues", Description: "Search issues and pull requests.", Params: []string{"q", "perPage", "page"}},
	{Namespace: "github", Name: "listPullRequests", OrigName: "list_pull_requests", Description: "List pull requests of a repository.", Params: []string{"owner", "repo", "state"}},
	{Namespace: "github", Name: "addComment", OrigName: "add_issue_comment", Description: "Comment on an issue.", Params: []string{"owner", "repo", "issueNumber", "body"}},
	{Namespace: "slack", Name: "postMessage", OrigName: "post_message", Description: "Send a message to a channel.", Params: []string{"channel", "text"}},
	{Namespace: "slack", Name: "listChannels", OrigName: "list_channels", Description: "List public channels of the workspace.", Params: []string{"limit", "cursor"}},
	{Namespace: "slack", Name: "getHistory", OrigName: "conversations_history", Description: "Recent messages of a channel.", Params: []string{"channel", "oldest"}},
	{Namespace: "filesystem", Name: "readFile", OrigName: "read_file", Description: "Read the contents of a file.", Params: []string{"path"}},
	{Namespace: "filesystem", Name: "removeFile", OrigName: "remove_file", Description: "Remove a file from disk.", Params: []string{"path"}},
	{Namespace: "filesystem", Name: "createDirectory", OrigName: "create_directory", Description: "Make a new directory.", Params: []string{"path"}},
}

// names renders hits as "namespace.name" for readable diffs.
func names(docs []Doc, hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, docs[h.Doc].Namespace+"."+docs[h.Doc].Name)
	}
	return out
}

func TestSearchRanking(t *testing.T) {
	ix := Build(testDocs, nil)
	tests := []struct {
		query, namespace string
		limit            int
		want             []string
		total            int
	}{
		// createIssue, searchIssues and addComment say "issue";
		// createDirectory says "create".
		{"create a GitHub issue", "", 1, []string{"github.createIssue"}, 4},
		// "slack" matches every slack tool through the namespace field.
		{"slack message history", "", 2, []string{"slack.getHistory", "slack.postMessage"}, 3},
		{"create_issue", "", 1, []string{"github.createIssue"}, 4},
		// The original name (conversations_history) says it first; a
		// channel is a conversation, so the other channel tools follow.
		{"conversations history", "", 1, []string{"slack.getHistory"}, 3},
		{"delete a file", "", 1, []string{"filesystem.removeFile"}, 2},
		{"new folder", "", 1, []string{"filesystem.createDirectory"}, 3},
		{"issue", "github", 10, []string{"github.createIssue", "github.searchIssues", "github.addComment"}, 3},
		{"channel", "slack", 10, []string{"slack.listChannels", "slack.getHistory", "slack.postMessage"}, 3},
		{"channel", "github", 10, nil, 0},
		{"issue", "nosuch", 10, nil, 0},
		{"xyzzy", "", 10, nil, 0},
		{"the of and", "", 10, nil, 0},
	}
	for _, tt := range tests {
		hits, total := ix.Search(tt.query, tt.namespace, tt.limit)
		if diff := cmp.Diff(tt.want, names(testDocs, hits)); diff != "" {
			t.Errorf("Search(%q, %q, %d) mismatch (-want +got):\n%s", tt.query, tt.namespace, tt.limit, diff)
		}
		if total != tt.total {
			t.Errorf("Search(%q, %q) total = %d, want %d", tt.query, tt.namespace, total, tt.total)
		}
	}
}

func TestSearchEmptyQueryLists(t *testing.T) {
	ix := Build(testDocs, nil)
	tests := []struct {
		query, namespace string
		limit            int
		want             []string
		total            int
	}{
		{"", "slack", 10, []string{"slack.getHistory", "slack.listChannels", "slack.postMessage"}, 3},
		{"   ", "slack", 2, []string{"slack.getHistory", "slack.listChannels"}, 3},
		{"", "filesystem", 0, []string{}, 3},
		{"", "nosuch", 10, nil, 0},
		{"", "", 3, []string{"filesystem.createDirectory", "filesystem.readFile", "filesystem.removeFile"}, 10},
	}
	for _, tt := range tests {
		hits, total := ix.Search(tt.query, tt.namespace, tt.limit)
		got := names(testDocs, hits)
		if got == nil && hits != nil {
			got = []string{}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Search(%q, %q, %d) mismatch (-want +got):\n%s", tt.query, tt.namespace, tt.limit, diff)
		}
		if total != tt.total {
			t.Errorf("Search(%q, %q) total = %d, want %d", tt.query, tt.namespace, total, tt.total)
		}
		for _, h := range hits {
			if h.Score != 0 {
				t.Errorf("listing hit %v has a score", h)
			}
		}
	}
}

func TestSearchLimit(t *testing.T) {
	docs := SyntheticCatalog(500, 7)
	ix := Build(docs, nil)
	all, total := ix.Search("list issues", "", len(docs))
	if len(all) != total || total == 0 {
		t.Fatalf("full search: %d hits, total %d", len(all), total)
	}
	for _, limit := range []int{-1, 0, 1, 3, 8, 25, total, total + 10} {
		hits, n := ix.Search("list issues", "", limit)
		if n != total {
			t.Errorf("limit %d: total = %d, want %d", limit, n, total)
		}
		want := all[:min(max(limit, 0), total)]
		if len(want) == 0 {
			want = nil
		}
		if diff := cmp.Diff(want, hits); diff != "" {
			t.Errorf("limit %d: hits are not a prefix of the full ranking (-want +got):\n%s", limit, diff)
		}
	}
	for i := 1; i < len(all); i++ {
		a, b := all[i-1], all[i]
		if a.Score < b.Score {
			t.Fatalf("hits %d and %d out of order: %v then %v", i-1, i, a, b)
		}
	}
}

func TestSearchTieBreak(t *testing.T) {
	// Identical text in every doc: scores tie, order is namespace, name.
	docs := []Doc{
		{Namespace: "b", Name: "zeta", Description: "export report"},
		{Namespace: "a", Name: "omega", Description: "export report"},
		{Namespace: "b", Name: "alpha", Description: "export report"},
		{Namespace: "a", Name: "beta", Description: "export report"},
	}
	ix := Build(docs, nil)
	hits, total := ix.Search("export", "", 10)
	want := []string{"a.beta", "a.omega", "b.alpha", "b.zeta"}
	if diff := cmp.Diff(want, names(docs, hits)); diff != "" || total != 4 {
		t.Errorf("tie order mismatch (total %d) (-want +got):\n%s", total, diff)
	}
}

func TestSearchDeterministic(t *testing.T) {
	docs := SyntheticCatalog(2000, 3)
	queries := SyntheticQueries(20, 3)
	first := Build(docs, nil)
	second := Build(SyntheticCatalog(2000, 3), nil)
	for _, q := range queries {
		a, na := first.Search(q, "", 25)
		b, nb := second.Search(q, "", 25)
		c, nc := first.Search(q, "", 25)
		if diff := cmp.Diff(a, b); diff != "" || na != nb {
			t.Errorf("%q: two builds disagree (-first +second):\n%s", q, diff)
		}
		if diff := cmp.Diff(a, c); diff != "" || na != nc {
			t.Errorf("%q: repeated search disagrees (-first +again):\n%s", q, diff)
		}
	}
}

func TestSearchConcurrent(t *testing.T) {
	docs := SyntheticCatalog(1000, 5)
	ix := Build(docs, nil)
	queries := SyntheticQueries(16, 5)
	want := make([][]Hit, len(queries))
	for i, q := range queries {
		want[i], _ = ix.Search(q, "", 8)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8*len(queries))
	for g := range 8 {
		wg.Go(func() {
			for i := range queries {
				q := queries[(i+g)%len(queries)]
				got, _ := ix.Search(q, "", 8)
				if diff := cmp.Diff(want[(i+g)%len(queries)], got); diff != "" {
					errs <- fmt.Sprintf("%q: %s", q, diff)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestOptions(t *testing.T) {
	def := DefaultOptions()
	a, _ := Build(testDocs, nil).Search("remove a directory", "", 10)
	b, _ := Build(testDocs, &def).Search("remove a directory", "", 10)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("nil options differ from DefaultOptions (-nil +default):\n%s", diff)
	}

	// Without expansion "folder" finds nothing; with it, the directory tool.
	off := DefaultOptions()
	off.Expansion = 0
	if hits, total := Build(testDocs, &off).Search("folder", "", 10); total != 0 {
		t.Errorf("expansion off: folder matched %v", names(testDocs, hits))
	}
	hits, _ := Build(testDocs, nil).Search("folder", "", 10)
	if diff := cmp.Diff([]string{"filesystem.createDirectory"}, names(testDocs, hits)); diff != "" {
		t.Errorf("expansion on (-want +got):\n%s", diff)
	}

	// A zero-weight field is not searched. A tool without a title has the
	// first sentence of its description as title.
	noDesc := DefaultOptions()
	noDesc.Description.Weight = 0
	noDesc.Title.Weight = 0
	if hits, total := Build(testDocs, &noDesc).Search("workspace", "", 10); total != 0 {
		t.Errorf("description weight 0: workspace matched %v", names(testDocs, hits))
	}
}

func TestSearchAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool is randomised under the race detector")
	}
	ix := Build(SyntheticCatalog(1000, 1), nil)
	ix.Search("list open issues", "", 8) // warm the pool
	allocs := testing.AllocsPerRun(100, func() { ix.Search("list open issues", "", 8) })
	if allocs > 2 {
		t.Errorf("Search allocates %.0f times per call, want <= 2", allocs)
	}
}

// TestSearchEveryScript: requests meet tools in Japanese, Chinese and
// Korean through pairs of characters, and accented words meet their
// unaccented spelling.
func TestSearchEveryScript(t *testing.T) {
	docs := []Doc{
		{Namespace: "tasks", Name: "createTask", Description: "新しいタスクを作成します。"},
		{Namespace: "tasks", Name: "listTasks", Description: "タスクの一覧を取得します。"},
		{Namespace: "tasks", Name: "deleteTask", Description: "タスクを削除します。"},
		{Namespace: "tasks", Name: "listProjects", Description: "プロジェクトの一覧を取得します。"},
		{Namespace: "docs", Name: "uploadFile", Description: "上传文件到云存储。"},
		{Namespace: "docs", Name: "shareFile", Description: "与团队成员共享文件。"},
		{Namespace: "repo", Name: "listRepos", Description: "저장소 목록을 가져옵니다."},
		{Namespace: "repo", Name: "deleteRepo", Description: "저장소를 삭제합니다."},
		{Namespace: "menu", Name: "getMenu", Description: "Le menu du café, crème brûlée comprise."},
		{Namespace: "menu", Name: "getHours", Description: "Opening hours of the shop."},
	}
	ix := Build(docs, nil)
	for _, tt := range []struct{ query, want string }{
		{"タスクを削除して", "tasks.deleteTask"},
		{"プロジェクト一覧", "tasks.listProjects"},
		{"新しいタスクを作りたい", "tasks.createTask"},
		{"共享文件", "docs.shareFile"},
		{"上传一个文件", "docs.uploadFile"},
		{"저장소 삭제", "repo.deleteRepo"},
		{"cafe creme brulee", "menu.getMenu"},
		{"Café", "menu.getMenu"},
	} {
		hits, _ := ix.Search(tt.query, "", 3)
		if got := names(docs, hits); len(got) == 0 || got[0] != tt.want {
			t.Errorf("Search(%q) = %v, want %s first", tt.query, got, tt.want)
		}
	}
}

// TestSearchReadingVerbAfterFirst: a verb of reading widens to the other
// verbs of reading only as the request's first word; after it, it names a
// thing ("pull requests and their views"), and a tool that says only
// "read" or "get" of the request's words does not match it.
func TestSearchReadingVerbAfterFirst(t *testing.T) {
	ix := Build(testDocs, nil)
	for _, tt := range []struct {
		query string
		want  bool // readFile and getHistory match
	}{
		{"view pull requests", true},
		{"pull requests and their views", false},
	} {
		hits, _ := ix.Search(tt.query, "", len(testDocs))
		got := names(testDocs, hits)
		for _, name := range []string{"filesystem.readFile", "slack.getHistory"} {
			if in := slices.Contains(got, name); in != tt.want {
				t.Errorf("Search(%q) = %v: %s in the hits %v, want %v", tt.query, got, name, in, tt.want)
			}
		}
	}
}

// TestDeprecatedRanksAfter: of two operations a request fits alike, the
// one its API deprecates comes second, and first when it is the only one
// that fits; a request that fits it better still finds it first.
func TestDeprecatedRanksAfter(t *testing.T) {
	docs := []Doc{
		{Namespace: "api", Name: "removeItem", Title: "Remove an item.", Method: "DELETE", Path: "/items/{id}", Params: []string{"id"}, Deprecated: true},
		{Namespace: "api", Name: "listItems", Title: "List items.", Method: "GET", Path: "/items"},
		{Namespace: "api", Name: "removeAnItem", Title: "Remove an item.", Method: "DELETE", Path: "/item/{id}", Params: []string{"id"}},
		{Namespace: "api", Name: "archiveItem", Title: "Archive an item.", Method: "POST", Path: "/items/{id}/archive", Params: []string{"id"}, Deprecated: true},
	}
	ix := Build(docs, nil)
	for _, c := range []struct{ query, first string }{
		{"remove an item", "removeAnItem"},
		{"remove item 7", "removeAnItem"},
		{"archive item 7", "archiveItem"},
	} {
		hits, _ := ix.Search(c.query, "", 5)
		if len(hits) == 0 || docs[hits[0].Doc].Name != c.first {
			t.Errorf("%q: %v, want %s first", c.query, hitNames(docs, hits), c.first)
		}
	}
	docs[0].Deprecated = false
	ix = Build(docs, nil)
	if hits, _ := ix.Search("remove an item", "", 5); len(hits) == 0 || docs[hits[0].Doc].Name != "removeItem" {
		t.Errorf("without the mark: %v, want removeItem first", hitNames(docs, hits))
	}
}

// hitNames are the names of hits' docs, in order.
func hitNames(docs []Doc, hits []Hit) []string {
	names := make([]string, len(hits))
	for i, h := range hits {
		names[i] = docs[h.Doc].Name
	}
	return names
}

// TestSearchForms: a request that a search's form of criteria answers
// (stuntPerformer) brings in the same search without them, which pages
// through the same things, though it says none of the request's words.
func TestSearchForms(t *testing.T) {
	docs := []Doc{
		{Namespace: "st", Name: "postPerformerSearch", Description: "Searching performers", Method: "POST", Path: "/performer/search", Params: []string{"name", "stuntPerformer", "voicePerformer"}},
		{Namespace: "st", Name: "getPerformerSearch", Description: "Pagination over performers", Method: "GET", Path: "/performer/search", Params: []string{"pageNumber", "pageSize"}},
		{Namespace: "st", Name: "getPerformer", Description: "Retrieval of a single performer", Method: "GET", Path: "/performer", Params: []string{"uid"}},
		{Namespace: "st", Name: "postStaffSearch", Description: "Searching staff", Method: "POST", Path: "/staff/search", Params: []string{"name", "stuntCoordinator"}},
		{Namespace: "st", Name: "getStaffSearch", Description: "Pagination over staff", Method: "GET", Path: "/staff/search", Params: []string{"pageNumber", "pageSize"}},
	}
	ix := Build(docs, nil)
	hits, _ := ix.Search("stunt performers in the show", "", 5)
	var got []string
	for _, h := range hits {
		got = append(got, docs[h.Doc].Name)
	}
	if len(got) < 2 || got[0] != "postPerformerSearch" || !slices.Contains(got, "getPerformerSearch") {
		t.Errorf("stunt performers: %v", got)
	}
	hits, _ = ix.Search("stunt doubles", "", 5)
	got = got[:0]
	for _, h := range hits {
		got = append(got, docs[h.Doc].Name)
	}
	if !slices.Contains(got, "getPerformerSearch") || !slices.Contains(got, "getStaffSearch") {
		t.Errorf("stunt doubles: %v, want both searches' pages", got)
	}
	if ix.sibling[1] != 0 || ix.sibling[0] != 1 || ix.sibling[2] != 2 {
		t.Errorf("siblings %v", ix.sibling)
	}
	if Build(docs[2:3], nil).sibling != nil {
		t.Error("a catalog without two operations on a path keeps a ring")
	}
}

// TestSearchLeavesNothingBehind: a search that brings in a doc its words
// did not match (the other form of a search, withSiblings) reads what
// that doc matched in this search, not in the one before: the request
// after "my search" ranks as on a fresh index.
func TestSearchLeavesNothingBehind(t *testing.T) {
	const q = "am filter called get auditor"
	ix := Build(fuzzDocs, nil)
	ix.Search("my search", "", 5)
	got, _ := ix.Search(q, "", 5)
	want, _ := Build(fuzzDocs, nil).Search(q, "", 5)
	if !slices.Equal(got, want) || len(want) < 2 {
		t.Errorf("Search(%q) after another = %v, on a fresh index %v", q, got, want)
	}
}
