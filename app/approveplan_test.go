package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/upstream"
)

// TestApprovePlan: `hub approve` shows a run's plan once (each call with
// its arguments, a placeholder as <result of call N>.path, the marks, the
// calls policy denied and where planning stopped) and one answer decides
// every call; "c" decides call by call instead.
func TestApprovePlan(t *testing.T) {
	info := func(seq, pos int, missing bool) *hub.PlanInfo {
		return &hub.PlanInfo{Seq: seq, Position: pos, Of: 2, Missing: missing,
			Stop:   "what follows depends on the result of call 3, line 5: the code uses <result of call 3>.entities.length as a number",
			Denied: []hub.PlanDenied{{Seq: 2, Address: "memory.deleteEntities", Preview: "{}", Reason: "denied by config"}}}
	}
	plan := []hub.Approval{
		{ID: "p1", RunID: "r_1", Seq: 1, Kind: hub.KindApproval, Address: "memory.createEntities", Connection: "", DefaultConnection: true, Reason: "policy asks", Preview: `{"entities": [{"name": "Ada"}]}`, Plan: info(1, 1, false)},
		{ID: "p3", RunID: "r_1", Seq: 3, Kind: hub.KindApproval, Address: "memory.addObservations", Connection: "work", Reason: "policy asks", Change: "description changed",
			Preview: `{"observations": [{"entityName": <result of call 1>.entities[0].name}]}`, Plan: info(3, 2, true)},
	}
	for _, tc := range []struct {
		name, input string
		want        []string
	}{
		{"allow all", "y\n", []string{"p1=" + hub.AllowOnce, "p3=" + hub.AllowOnce}},
		{"always deny all", "x\nN\n", []string{"p1=" + hub.DenyAlways, "p3=" + hub.DenyAlways}},
		{"call by call", "c\ny\nn\n", []string{"p1=" + hub.AllowOnce, "p3=" + hub.DenyOnce}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			var decided []string
			err := approveLoop(&env{Stdout: &out, Stdin: strings.NewReader(tc.input), StdinIsTerminal: true}, "r_1", plan, false, false, false, func(id, d string) error {
				decided = append(decided, id+"="+d)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(decided, ",") != strings.Join(tc.want, ",") {
				t.Errorf("decided %v, want %v", decided, tc.want)
			}
			o := out.String()
			for _, want := range []string{
				"Plan of run r_1: 2 calls",
				"1. memory.createEntities (call 1)\n   connection: none (the source has no connections)\n",
				"2. memory.addObservations (call 3)\n   connection: work\n",
				"2. memory.addObservations (call 3)",
				`"entityName": <result of call 1>.entities[0].name`,
				"changed:    description changed",
				"missing:    the connection needs a secret",
				"Denied by policy, never runs: memory.deleteEntities (call 2)",
				"Planning stopped: what follows depends on the result of call 3, line 5",
				"Allow these 2 calls?",
			} {
				if !strings.Contains(o, want) {
					t.Errorf("output lacks %q:\n%s", want, o)
				}
			}
			if strings.Count(o, "Allow these 2 calls?") != strings.Count(tc.input, "\n") && tc.name != "call by call" {
				t.Errorf("asked %d times for %d answers:\n%s", strings.Count(o, "Allow these"), strings.Count(tc.input, "\n"), o)
			}
		})
	}
}

// TestApproveShowsTheRequest: `hub approve` shows an OpenAPI call's method
// and URL, with the path parameters its arguments give, and that its API
// deprecates the operation, alone and in a plan; an MCP tool's call has no
// request line.
func TestApproveShowsTheRequest(t *testing.T) {
	legacy := &upstream.RESTRequest{Method: "PUT", Path: "/teams/{team_id}/members/{username}", Server: "https://api.github.com", Deprecated: true}
	live := &upstream.RESTRequest{Method: "DELETE", Path: "/items/{id}", Server: "https://api.example.com"}
	pend := []hub.Approval{
		{ID: "p1", RunID: "r_1", Seq: 1, Kind: hub.KindApproval, Address: "gh.teamsAddMemberLegacy", Reason: "policy asks", Preview: `{"team_id": 7}`, Request: legacy},
		{ID: "p2", RunID: "r_1", Seq: 2, Kind: hub.KindApproval, Address: "api.removeItem", Reason: "policy asks", Preview: `{"id": "1"}`, Request: live},
		{ID: "p3", RunID: "r_1", Seq: 3, Kind: hub.KindApproval, Address: "memory.readGraph", Reason: "policy asks", Preview: `{}`},
	}
	wantLines := []string{
		"request:    PUT https://api.github.com/teams/7/members/{username} (deprecated by its API)\n",
		"request:    DELETE https://api.example.com/items/1\n",
	}
	check := func(name, o string) {
		for _, want := range wantLines {
			if !strings.Contains(o, want) {
				t.Errorf("%s: output lacks %q:\n%s", name, want, o)
			}
		}
		if n := strings.Count(o, "request:"); n != 2 {
			t.Errorf("%s: %d request lines, want 2 (none for the MCP tool):\n%s", name, n, o)
		}
	}
	var out bytes.Buffer
	if err := approveLoop(&env{Stdout: &out, Stdin: strings.NewReader("")}, "r_1", pend, true, false, false, func(id, d string) error { return nil }); err != nil {
		t.Fatal(err)
	}
	check("alone", out.String())

	plan := slices.Clone(pend)
	for i := range plan {
		plan[i].Plan = &hub.PlanInfo{Seq: i + 1, Position: i + 1, Of: 3}
	}
	out.Reset()
	if err := approveLoop(&env{Stdout: &out, Stdin: strings.NewReader("y\n"), StdinIsTerminal: true}, "r_1", plan, false, false, false, func(id, d string) error { return nil }); err != nil {
		t.Fatal(err)
	}
	check("a plan", out.String())
}
