package search

import (
	"fmt"
	"testing"
)

// TestNamespaceGates: a namespace's weight counts in proportion to how
// much smaller it is than the largest, nothing for the largest or for
// one less than four times smaller, in full from a hundred times smaller.
func TestNamespaceGates(t *testing.T) {
	docs := func(ns string, n int) []Doc {
		out := make([]Doc, n)
		for i := range out {
			out[i] = Doc{Namespace: ns, Name: fmt.Sprintf("tool%d", i), Description: "Does a thing."}
		}
		return out
	}
	like := Build(append(docs("a", 10), docs("b", 3)...), nil)
	if like.gated {
		t.Errorf("namespaces of like size are gated: %v", like.nsGate)
	}
	var mixed []Doc
	mixed = append(mixed, docs("big", 200)...)
	mixed = append(mixed, docs("mid", 20)...)
	mixed = append(mixed, docs("tiny", 2)...)
	ix := Build(mixed, nil)
	gate := func(ns string) float32 { return ix.nsGate[ix.nsIDs[ns]] }
	// mid: log(200/20/4) / log(25) = 0.285.
	if !ix.gated || gate("big") != 0 || gate("tiny") != 1 || gate("mid") < 0.28 || gate("mid") > 0.29 {
		t.Errorf("gates big %v, mid %v (want 0.285), tiny %v", gate("big"), gate("mid"), gate("tiny"))
	}
}

// TestNamespaceStatsBounded: over a gated catalog a small namespace's
// tool comes first for its request, a request of many words is answered,
// and the scratch is left as found.
func TestNamespaceStatsBounded(t *testing.T) {
	var docs []Doc
	for i := range 300 {
		docs = append(docs, Doc{Namespace: "big", Name: fmt.Sprintf("op%d", i), Description: fmt.Sprintf("Lists branch %d of the repository.", i)})
	}
	docs = append(docs, Doc{Namespace: "git", Name: "gitBranch", Description: "List the branches of a local repository."})
	ix := Build(docs, nil)
	long := "list the branches"
	for i := range 100 {
		long += fmt.Sprintf(" word%d", i)
	}
	if hits, _ := ix.Search("list the branches", "", 5); len(hits) == 0 || docs[hits[0].Doc].Name != "gitBranch" {
		t.Errorf("Search(list the branches) first = %v, want gitBranch", names(docs, hits))
	}
	// A long request is left to the first stage; its words past the
	// 32nd are counted by none.
	if hits, _ := ix.Search(long, "", 5); len(hits) != 5 {
		t.Errorf("Search of %d words: %d hits", 103, len(hits))
	}
	sc := ix.pool.Get().(*scratch)
	defer ix.pool.Put(sc)
	for ns, slot := range sc.nsSlot {
		if slot != -1 {
			t.Errorf("namespace %d keeps slot %d", ns, slot)
		}
	}
	if len(sc.nsCount) > 0 || len(sc.nsTouched) > 0 || sc.nsMax != 0 {
		t.Errorf("the scratch keeps %d counts, %d namespaces, max %v", len(sc.nsCount), len(sc.nsTouched), sc.nsMax)
	}
	for i, b := range sc.seen {
		if b != 0 {
			t.Fatalf("seen[%d] = %x after a search", i, b)
		}
	}
}

// TestNamespaceVerbAsVerb: the request's verb speaks for a namespace only
// through its tools that do it. "block that spammer" asks for the large
// namespace's "Block a user", not for the small one whose tool returns a
// "content block".
func TestNamespaceVerbAsVerb(t *testing.T) {
	var docs []Doc
	for i := range 300 {
		docs = append(docs, Doc{Namespace: "gh", Name: fmt.Sprintf("op%d", i), Title: fmt.Sprintf("Get widget %d", i), Description: fmt.Sprintf("Gets widget %d of the account.", i)})
	}
	docs = append(docs,
		Doc{Namespace: "gh", Name: "usersBlock", Title: "Block a user", Description: "Blocks the given user."},
		Doc{Namespace: "gh", Name: "usersUnblock", Title: "Unblock a user", Description: "Unblocks the given user."},
		Doc{Namespace: "gh", Name: "issuesBlockedBy", Title: "List dependencies an issue is blocked by", Description: "Lists the issues that block an issue."},
	)
	for i := range 3 {
		docs = append(docs, Doc{Namespace: "fs", Name: fmt.Sprintf("fsTool%d", i), Title: fmt.Sprintf("Read file kind %d", i), Description: "Reads a file."})
	}
	docs = append(docs, Doc{Namespace: "fs", Name: "readMedia", Description: "Read a file and return it as a base64-encoded content block with its MIME type."})
	ix := Build(docs, nil)
	if hits, _ := ix.Search("block that spammer", "", 5); len(hits) == 0 || docs[hits[0].Doc].Name != "usersBlock" {
		t.Errorf("Search(block that spammer) = %v, want usersBlock first", names(docs, hits))
	}
}

// TestURLValueAsksForAURL: a URL the request gives asks for a tool that
// takes one, not for the web page's synonyms: "summarize the page at
// https://news.example.com" is no request for a large catalog's Pages
// site or its paginated lists.
func TestURLValueAsksForAURL(t *testing.T) {
	var docs []Doc
	for i := range 300 {
		docs = append(docs, Doc{Namespace: "gh", Name: fmt.Sprintf("op%d", i), Title: fmt.Sprintf("List widgets %d", i), Description: "Lists widgets, one page at a time.",
			Params: []string{"page"}, ParamDocs: []string{"Page number of the results to fetch."}})
	}
	docs = append(docs,
		Doc{Namespace: "gh", Name: "createPagesSite", Title: "Create a GitHub Pages site", Description: "Configures a GitHub Pages site.", Params: []string{"source"}},
		Doc{Namespace: "gh", Name: "createPagesDeployment", Title: "Create a GitHub Pages deployment", Description: "Create a GitHub Pages deployment for a repository.", Params: []string{"artifact_url"}, ParamDocs: []string{"The URL of an artifact."}},
		Doc{Namespace: "fetch", Name: "fetch", Description: "Fetches a URL from the internet and optionally extracts its contents as markdown.", Params: []string{"url"}, ParamDocs: []string{"URL to fetch"}},
	)
	ix := Build(docs, nil)
	for _, q := range []string{"summarize the page at https://news.example.com", "what does https://example.com/docs say", "grab https://example.com/a.json"} {
		if hits, _ := ix.Search(q, "", 5); len(hits) == 0 || docs[hits[0].Doc].Name != "fetch" {
			t.Errorf("Search(%q) = %v, want fetch first", q, names(docs, hits))
		}
	}
	for q, want := range map[string]bool{
		"summarize https://example.com/a": true, "open example.org": true,
		"the url of https://example.com": false, "list the pages": false,
	} {
		if got, _ := urlsAndFiles(q); got != want {
			t.Errorf("urlsAndFiles(%q) = %v, want %v", q, got, want)
		}
	}
}

// TestNamespaceTakesWhatIsNamed: a request that names a thing by value
// gets no namespace weight for a namespace none of whose tools takes that
// thing by id nor a value of its kind. Beside the reference servers, "show
// the logs of job 42" asks for GitHub's job logs, not for git_log; "show
// commit 9fceb02" still asks for git_show, which takes a revision (a
// commit's hash). Nor does a request that names a file get weight from a
// namespace that takes none: "what's the last-modified time of
// index.html" is no request for the time server.
func TestNamespaceTakesWhatIsNamed(t *testing.T) {
	servers, ids := benchmarkDocs(t)
	ops := loadOpenAPI(t, npmFile(t, "@octokit", "openapi", "generated", "api.github.com.json"))
	docs := append(append([]Doc(nil), servers...), openapiDocs("gh", ops)...)
	for _, o := range ops {
		ids = append(ids, o.id)
	}
	ix := Build(docs, nil)
	for q, want := range map[string]string{
		"show the logs of job 42":                     "actions/download-job-logs-for-workflow-run",
		"show commit 9fceb02":                         "git:git_show",
		"what's the last-modified time of index.html": "filesystem:get_file_info",
	} {
		wantFirstID(t, ix, docs, ids, q, want)
	}
}
