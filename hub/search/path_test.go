package search

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPathPrefixes(t *testing.T) {
	docs := []Doc{
		{Namespace: "jira", Path: "/rest/api/3/issue"},
		{Namespace: "jira", Path: "/rest/api/3/issue/{key}"},
		{Namespace: "jira", Path: "/rest/api/3/myself"},
		{Namespace: "jira", Path: "/rest/api/3/field"},
		{Namespace: "jira", Path: "/rest/api/3/field/{id}"},
		{Namespace: "jira", Path: "/rest/api/3/filter"},
		{Namespace: "jira", Path: "/rest/api/3/filter/my"},
		{Namespace: "jira", Path: "/rest/api/3/group"},
		{Namespace: "jira", Path: "/rest/api/3/user"},
		{Namespace: "jira", Path: "/rest/connect/1/addons"},
		{Namespace: "gh", Path: "/repos/{owner}/{repo}"},
		{Namespace: "gh", Path: "/user/repos"},
		{Namespace: "gh", Path: "/orgs/{org}"},
		{Namespace: "mcp", Name: "read_file"},
	}
	got := pathPrefixes(docs)
	want := map[string]pathPrefix{"jira": {"rest", "api", "3"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pathPrefixes mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"issue"}, pathFixed("/rest/api/3/issue/{key}", got["jira"], nil)); diff != "" {
		t.Errorf("pathFixed past the prefix (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"rest", "connect", "1", "addons"}, pathFixed("/rest/connect/1/addons", got["jira"], nil)); diff != "" {
		t.Errorf("pathFixed of a path outside the prefix (-want +got):\n%s", diff)
	}
	for path, want := range map[string]bool{"/repos/{owner}/{repo}": true, "/user/repos": false, "/characters/:id/": true, "/": false} {
		if got := pathItem(path); got != want {
			t.Errorf("pathItem(%q) = %v, want %v", path, got, want)
		}
	}
}

// TestSelfSegments: a first segment marks the caller's tools when it is
// me, self or myself, or when most tools under it say they act for the
// caller; Jira's /user takes anyone's account id, GitHub's is the
// caller's.
func TestSelfSegments(t *testing.T) {
	docs := []Doc{
		{Namespace: "gh", Path: "/user/repos", Title: "List repositories for the authenticated user"},
		{Namespace: "gh", Path: "/user/emails", Title: "List email addresses for the authenticated user"},
		{Namespace: "gh", Path: "/user/following/{username}", Title: "Follow a user"},
		{Namespace: "gh", Path: "/user/keys", Title: "Create a public SSH key for the authenticated user"},
		{Namespace: "gh", Path: "/repos/{owner}/{repo}", Title: "Get a repository"},
		{Namespace: "gh", Path: "/orgs/{org}", Title: "Get an organization"},
		{Namespace: "jira", Path: "/user", Title: "Get user"},
		{Namespace: "jira", Path: "/user/groups", Title: "Get user groups"},
		{Namespace: "jira", Path: "/user/search", Title: "Find users"},
		{Namespace: "jira", Path: "/myself", Title: "Get current user"},
	}
	ix := Build(docs, nil)
	for i, want := range []bool{true, true, true, true, false, false, false, false, false, true} {
		if got := ix.feat[i].self; got != want {
			t.Errorf("%s %q: self = %v, want %v", docs[i].Namespace, docs[i].Path, got, want)
		}
	}
}

// TestMaxScoreExact: the words scored past the point where new docs could
// no longer make the best k change nothing in the best k.
func TestMaxScoreExact(t *testing.T) {
	docs := SyntheticCatalog(3000, 11)
	ix := Build(docs, nil)
	for _, q := range SyntheticQueries(40, 11) {
		all, total := ix.Search(q, "", len(docs))
		for _, limit := range []int{1, 8, 60} {
			hits, n := ix.Search(q, "", limit)
			if n != total {
				t.Errorf("%q limit %d: total %d, want %d", q, limit, n, total)
			}
			if diff := cmp.Diff(all[:min(limit, len(all))], hits); diff != "" {
				t.Errorf("%q limit %d: not the full ranking's first hits (-want +got):\n%s", q, limit, diff)
			}
		}
	}
}

// TestScopeTwins: an operation under a smaller container (/orgs/{org},
// /enterprises/{enterprise}) with a twin under the main one (/repos) comes
// after that twin unless the request names its container.
func TestScopeTwins(t *testing.T) {
	for _, tt := range []struct {
		path, first string
		want        bool
	}{
		{"/orgs/{org}/dependabot/alerts", "orgs", true},
		{"/repos/{owner}/{repo}/hooks", "repos", true},
		{"/api/v3/orgs/{org}/hooks", "orgs", false}, // the prefix is not skipped here
		{"/user/repos", "user", false},
		{"/orgs", "orgs", false},
	} {
		if got := containerFirst(tt.path, nil, tt.first); got != tt.want {
			t.Errorf("containerFirst(%q, %q) = %v, want %v", tt.path, tt.first, got, tt.want)
		}
	}
	if !containerFirst("/api/v3/orgs/{org}/hooks", pathPrefix{"api", "v3"}, "orgs") {
		t.Errorf("containerFirst after the prefix /api/v3: false, want true")
	}
	op := func(name, title, desc, method, path string) Doc {
		return Doc{Namespace: "gh", Name: name, Title: title, Description: title + ". " + desc, Method: method, Path: path}
	}
	// The descriptions are GitHub's, shortened: the organization's says
	// more about its alerts than the repository's.
	docs := []Doc{
		op("alertsForRepo", "List Dependabot alerts for a repository", "OAuth app tokens need the security_events scope to use this endpoint.", "GET", "/repos/{owner}/{repo}/dependabot/alerts"),
		op("alertsForOrg", "List Dependabot alerts for an organization", "Lists Dependabot alerts for an organization. Only owners and security managers see the alerts.", "GET", "/orgs/{org}/dependabot/alerts"),
		op("alertsForEnterprise", "List Dependabot alerts for an enterprise", "Lists Dependabot alerts for repositories owned by an enterprise.", "GET", "/enterprises/{enterprise}/dependabot/alerts"),
		op("getAlert", "Get a Dependabot alert", "", "GET", "/repos/{owner}/{repo}/dependabot/alerts/{alert_number}"),
		op("listIssues", "List repository issues", "", "GET", "/repos/{owner}/{repo}/issues"),
		op("listOrgMembers", "List organization members", "", "GET", "/orgs/{org}/members"),
	}
	ix := Build(docs, nil)
	wantFirst(t, ix, docs, "list dependabot alerts", "gh.alertsForRepo")
	wantFirst(t, ix, docs, "list the org's dependabot alerts", "gh.alertsForOrg")
	wantFirst(t, ix, docs, "list dependabot alerts of the enterprise", "gh.alertsForEnterprise")
	// A container without a twin under the main one loses nothing.
	wantFirst(t, ix, docs, "list members", "gh.listOrgMembers")
}

// TestNameTwins: tools without a path whose names differ only in the name
// of a container's parameter are twins as operations under two containers
// are; a word that is no container's (key, taken by one tool) makes none.
// A parameter most tools name (enterprise) is a container when enough
// tools take it.
func TestNameTwins(t *testing.T) {
	tool := func(name, desc string, params ...string) Doc {
		return Doc{Namespace: "gh", Name: name, Description: desc, Params: params}
	}
	docs := []Doc{
		tool("list_alerts_for_repo", "List secret scanning alerts for a repository. Needs the repo scope.", "owner", "repo", "state"),
		tool("list_alerts_for_org", "List secret scanning alerts for an organization. Lists secret scanning alerts for the repositories of an organization.", "org", "state"),
		tool("create_issue", "Create an issue.", "owner", "repo", "title", "labels"),
		tool("list_issues", "List issues.", "owner", "repo", "state", "labels"),
		tool("update_issue", "Update an issue.", "owner", "repo", "issue_number", "labels"),
		// Labels, which three tools take without naming them, are
		// no second container that would make these no twins.
		tool("add_labels_to_runner_for_repo", "Add custom labels to a self-hosted runner of a repository.", "owner", "repo", "runner_id", "labels"),
		tool("add_labels_to_runner_for_org", "Add custom labels to a self-hosted runner of an organization.", "org", "runner_id", "labels"),
		tool("list_members", "List organization members.", "org"),
		tool("list_teams", "List teams.", "org"),
		tool("list_projects", "List projects.", "org"),
		tool("delete_cache_by_key", "Delete caches by key.", "owner", "repo", "key"),
		tool("delete_cache_by_id", "Delete a cache by its id. Deletes a cache.", "owner", "repo", "cache_id"),
		// Most tools that take an enterprise name it; it is a
		// container all the same.
		tool("list_alerts_for_enterprise", "List secret scanning alerts for an enterprise.", "enterprise", "state"),
		tool("get_enterprise_settings", "Get the settings of an enterprise.", "enterprise"),
		tool("list_enterprise_teams", "List the teams of an enterprise.", "enterprise"),
		tool("get_license_usage", "Get the license usage.", "enterprise"),
		// A name may say a container's long form, which the catalog
		// writes for the short one (repository for repo).
		tool("list_repo_topics", "List the topics of a repository.", "owner", "repo"),
		tool("list_org_hooks", "List the webhooks of an organization.", "org"),
		tool("get_retention_settings_organization", "Get the retention settings of an organization.", "org"),
		tool("get_retention_settings_repository", "Get the retention settings of a repository.", "owner", "repo"),
	}
	ix := Build(docs, nil)
	wantFirst(t, ix, docs, "list secret scanning alerts", "gh.list_alerts_for_repo")
	wantFirst(t, ix, docs, "secret scanning alerts of the org", "gh.list_alerts_for_org")
	wantFirst(t, ix, docs, "secret scanning alerts of the enterprise", "gh.list_alerts_for_enterprise")
	wantFirst(t, ix, docs, "add a label to runner 14", "gh.add_labels_to_runner_for_repo")
	wantFirst(t, ix, docs, "get the retention settings", "gh.get_retention_settings_repository")
	for d := range docs {
		switch docs[d].Name {
		case "list_alerts_for_org", "list_alerts_for_enterprise", "add_labels_to_runner_for_org", "get_retention_settings_organization":
		default:
			if ix.feat[d].scope >= 0 {
				t.Errorf("%s has a scope, want none", docs[d].Name)
			}
			continue
		}
		if ix.feat[d].scope < 0 {
			t.Errorf("%s has no scope", docs[d].Name)
		}
	}
}
