//go:build !headless

package ui

import (
	"errors"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"github.com/google/go-cmp/cmp"
)

func TestTrayStateOf(t *testing.T) {
	up := SourceStatus{Name: "a", State: SourceUp}
	down := SourceStatus{Name: "b", State: SourceDown}
	starting := SourceStatus{Name: "c", State: SourceStarting}
	tests := []struct {
		name string
		st   Status
		want trayState
	}{
		{"nothing", Status{}, trayIdle},
		{"all up", Status{Sources: []SourceStatus{up, starting}}, trayIdle},
		{"one down", Status{Sources: []SourceStatus{up, down}}, trayDown},
		{"paused", Status{Paused: true, Sources: []SourceStatus{up}}, trayPaused},
		{"pending wins over down and paused", Status{Pending: 2, Paused: true, Sources: []SourceStatus{down}}, trayPending},
		{"down wins over paused", Status{Paused: true, Sources: []SourceStatus{down}}, trayDown},
	}
	for _, tt := range tests {
		if got := trayStateOf(tt.st); got != tt.want {
			t.Errorf("%s: trayStateOf = %v, want %v", tt.name, got, tt.want)
		}
	}
	// Each state has its own icon.
	seen := map[fyne.Resource]trayState{}
	for _, s := range []trayState{trayIdle, trayPending, trayDown, trayPaused} {
		if other, ok := seen[trayIcon(s)]; ok {
			t.Errorf("%v and %v share an icon", s, other)
		}
		seen[trayIcon(s)] = s
	}
}

func TestLabels(t *testing.T) {
	tests := []struct{ got, want string }{
		{pendingMenuLabel(0), "No pending approvals"},
		{pendingMenuLabel(1), "1 pending approval…"},
		{pendingMenuLabel(3), "3 pending approvals…"},
		{pauseMenuLabel(false), "Pause hub"},
		{pauseMenuLabel(true), "Resume hub"},
		{sourceLabel(SourceStatus{Name: "github", State: SourceUp, Tools: 12}), "github: up, 12 tools"},
		{sourceLabel(SourceStatus{Name: "github", State: SourceUp, Tools: 1}), "github: up, 1 tool"},
		{sourceLabel(SourceStatus{Name: "slack", State: SourceDown, Error: "connection refused"}), "slack: down (connection refused)"},
		{sourceLabel(SourceStatus{Name: "slack", State: SourceDown}), "slack: down"},
		{sourceLabel(SourceStatus{Name: "mem", State: SourceStarting}), "mem: starting"},
		{sourceLabel(SourceStatus{Name: "mem", State: SourceIdle, Tools: 9}), "mem: idle, 9 tools"},
		{sourceLabel(SourceStatus{Name: "gh", State: SourceNeedsSecret, Error: `secret "TOKEN" is not in the keychain`}), `gh: needs a secret (secret "TOKEN" is not in the keychain)`},
		{sourceLabel(SourceStatus{Name: "off", State: SourceDisabled}), "off: disabled"},
		{connectionText("work", true), "work (default)"},
		{connectionText("work", false), "work"},
		{connectionText("", true), "default connection"},
		{connectionText("default", true), "default"},
		{queueLabel(0, 3), "1 of 3"},
		{queueLabel(2, 3), "3 of 3"},
		{queueLabel(-1, 0), ""},
		{statusLine(snapshot{}), "Starting…"},
		{statusLine(snapshot{loaded: true}), "Running · 0 sources · 0 tools"},
		{statusLine(snapshot{loaded: true, status: Status{Pending: 1, Tools: 62, Sources: make([]SourceStatus, 4)}}), "Running · 4 sources · 62 tools · 1 waiting"},
		{statusLine(snapshot{loaded: true, status: Status{Paused: true, Pending: 2, Tools: 1, Sources: []SourceStatus{{State: SourceDown}}}}), "Paused · 1 source · 1 tool · 1 down · 2 waiting"},
		{statusLine(snapshot{loaded: true, errs: []string{"reading the waiting calls: sql: database is closed"}}), "Hub problem: reading the waiting calls: sql: database is closed"},
		{trayTooltip(snapshot{loaded: true, status: Status{Tools: 3, Sources: make([]SourceStatus, 1)}}), "capabilities: Running · 1 source · 3 tools"},
		{askedByText(Approval{Client: "claude-code 1.2", RunID: "run_1", Seq: 3}), "claude-code 1.2, run run_1, call #3"},
		{askedByText(Approval{RunID: "run_1", Seq: 1}), "unknown client, run run_1, call #1"},
		{callLine(CallSummary{Seq: 2, Address: "a.b", OK: true, Duration: 1500 * time.Microsecond}), "#2  a.b  ok  (2ms)"},
		{callLine(CallSummary{Seq: 3, Address: "a.c", Error: "boom"}), "#3  a.c  failed: boom  (0s)"},
		{decisionText(DenyAlways), "always denied"},
		{connectionsText(nil), "no connections"},
		{connectionsText([]ConnectionStatus{{"work", true, true}, {"me", false, false}}), "work (default); me, no secret stored"},
		{truncate("abcdef", 4), "abc…"},
		{truncate("abc", 4), "abc"},
	}
	for i, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("case %d: got %q, want %q", i, tt.got, tt.want)
		}
	}
}

func TestClockAndExpiry(t *testing.T) {
	now := time.Date(2026, 3, 14, 12, 0, 0, 0, time.Local)
	tests := []struct {
		expires time.Time
		want    string
		expired bool
	}{
		{time.Time{}, "waits until decided", false},
		{now.Add(4*time.Minute + 12*time.Second), "in 4m12s (at 12:04:12)", false},
		{now.Add(300 * time.Millisecond), "in 1s (at 12:00:00)", false},
		{now, "expired at 12:00:00", true},
		{now.Add(-time.Minute), "expired at 11:59:00", true},
	}
	if got := itemExpiryText(queueItem{a: Approval{Expires: now.Add(time.Minute)}, expired: true}, now); got != "expired" {
		t.Errorf("itemExpiryText of a call the hub expired = %q", got)
	}
	for _, tt := range tests {
		a := Approval{Expires: tt.expires}
		if got := expiryText(a, now); got != tt.want {
			t.Errorf("expiryText(%v) = %q, want %q", tt.expires, got, tt.want)
		}
		if got := expired(a, now); got != tt.expired {
			t.Errorf("expired(%v) = %v, want %v", tt.expires, got, tt.expired)
		}
	}
	if got := clock(now.AddDate(0, 0, -1), now); got != "Mar 13 12:00" {
		t.Errorf("clock yesterday = %q", got)
	}
	if got := clock(time.Time{}, now); got != "--:--" {
		t.Errorf("clock zero = %q", got)
	}
}

func ids(items []queueItem) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, it.a.ID)
	}
	return out
}

func TestMergeQueue(t *testing.T) {
	now := time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)
	ap := func(id string, ageMin int, expiresMin int) Approval {
		return Approval{ID: id, Created: now.Add(-time.Duration(ageMin) * time.Minute), Expires: now.Add(time.Duration(expiresMin) * time.Minute)}
	}
	tests := []struct {
		name        string
		items       []queueItem
		pending     []Approval
		want        []string
		wantExpired []string
	}{
		{
			name:    "new calls join oldest first",
			pending: []Approval{ap("b", 1, 5), ap("a", 3, 5), ap("c", 0, 5)},
			want:    []string{"a", "b", "c"},
		},
		{
			name:    "a call decided elsewhere leaves",
			items:   []queueItem{{a: ap("a", 3, 5)}, {a: ap("b", 1, 5)}},
			pending: []Approval{ap("b", 1, 5)},
			want:    []string{"b"},
		},
		{
			name:        "an expired call stays so the person sees it",
			items:       []queueItem{{a: ap("a", 3, 5), expired: true, busy: true}, {a: ap("b", 1, 5)}},
			pending:     []Approval{ap("b", 1, 5)},
			want:        []string{"a", "b"},
			wantExpired: []string{"a"},
		},
		{
			name:        "a call past its deadline is expired",
			items:       []queueItem{{a: ap("a", 6, -1)}},
			pending:     nil,
			want:        []string{"a"},
			wantExpired: []string{"a"},
		},
		{
			name:        "the hub may still list an expired call",
			pending:     []Approval{ap("a", 6, -1), ap("b", 1, 5)},
			want:        []string{"a", "b"},
			wantExpired: []string{"a"},
		},
		{
			name:    "same creation time orders by id",
			pending: []Approval{ap("z", 1, 5), ap("y", 1, 5)},
			want:    []string{"y", "z"},
		},
		{
			name:    "nothing pending",
			items:   []queueItem{{a: ap("a", 1, 5)}},
			pending: nil,
			want:    []string{},
		},
	}
	for _, tt := range tests {
		got := mergeQueue(tt.items, tt.pending, now)
		if diff := cmp.Diff(tt.want, ids(got)); diff != "" {
			t.Errorf("%s: ids (-want +got):\n%s", tt.name, diff)
		}
		var exp []string
		for _, it := range got {
			if it.expired {
				exp = append(exp, it.a.ID)
				if it.busy {
					t.Errorf("%s: expired %s still busy", tt.name, it.a.ID)
				}
			}
		}
		if diff := cmp.Diff(tt.wantExpired, exp); diff != "" {
			t.Errorf("%s: expired (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestMergeQueueKeepsState(t *testing.T) {
	now := time.Now()
	a := Approval{ID: "a", Created: now, Expires: now.Add(time.Minute), Reason: "old"}
	items := []queueItem{{a: a, busy: true, err: "x"}}
	a.Reason = "new"
	got := mergeQueue(items, []Approval{a}, now)
	if len(got) != 1 || !got[0].busy || got[0].err != "x" || got[0].a.Reason != "new" {
		t.Errorf("merge lost the item's state or kept stale data: %+v", got)
	}
}

func TestSelectAfter(t *testing.T) {
	q := func(ids ...string) []queueItem {
		var out []queueItem
		for _, id := range ids {
			out = append(out, queueItem{a: Approval{ID: id}})
		}
		return out
	}
	tests := []struct {
		name   string
		before []queueItem
		cur    int
		after  []queueItem
		want   int
	}{
		{"first call arrives", nil, -1, q("a"), 0},
		{"shown call stays shown when others arrive", q("b"), 0, q("a", "b", "c"), 1},
		{"decided first: the next is shown", q("a", "b", "c"), 0, q("b", "c"), 0},
		{"decided middle: the next is shown", q("a", "b", "c"), 1, q("a", "c"), 1},
		{"decided last: the previous is shown", q("a", "b", "c"), 2, q("a", "b"), 1},
		{"shown and next both left", q("a", "b", "c", "d"), 1, q("a", "d"), 1},
		{"queue empties", q("a"), 0, nil, -1},
		{"out of range cur", q("a"), 5, q("a", "b"), 1},
	}
	for _, tt := range tests {
		if got := selectAfter(tt.before, tt.cur, tt.after); got != tt.want {
			t.Errorf("%s: selectAfter = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestRemoveItemDoesNotAlias(t *testing.T) {
	items := []queueItem{{a: Approval{ID: "a"}}, {a: Approval{ID: "b"}}}
	got := removeItem(items, "a")
	if diff := cmp.Diff([]string{"b"}, ids(got)); diff != "" {
		t.Error(diff)
	}
	if items[0].a.ID != "a" {
		t.Error("removeItem changed its input")
	}
}

func TestCanDecideAndStatus(t *testing.T) {
	now := time.Now()
	live := Approval{ID: "a", Expires: now.Add(time.Minute)}
	late := Approval{ID: "a", Expires: now.Add(-time.Second)}
	tests := []struct {
		name   string
		it     queueItem
		can    bool
		status string
	}{
		{"waiting", queueItem{a: live}, true, ""},
		{"no deadline", queueItem{a: Approval{ID: "a"}}, true, ""},
		{"sending", queueItem{a: live, busy: true}, false, "Sending"},
		{"hub said expired", queueItem{a: live, expired: true}, false, "expired"},
		{"deadline passed", queueItem{a: late}, false, "expired"},
		{"refused", queueItem{a: live, err: "already decided"}, true, "already decided"},
	}
	for _, tt := range tests {
		if got := canDecide(tt.it, now); got != tt.can {
			t.Errorf("%s: canDecide = %v, want %v", tt.name, got, tt.can)
		}
		got := statusText(tt.it, now)
		if (tt.status == "") != (got == "") || !strings.Contains(got, tt.status) {
			t.Errorf("%s: statusText = %q, want it to contain %q", tt.name, got, tt.status)
		}
	}
}

func TestKeyDecision(t *testing.T) {
	tests := []struct {
		key  fyne.KeyName
		want Decision
		ok   bool
	}{
		{fyne.KeyEscape, Deny, true},
		{fyne.KeyReturn, AllowOnce, true},
		{fyne.KeyEnter, AllowOnce, true},
		{fyne.KeySpace, "", false},
		{fyne.KeyA, "", false},
	}
	for _, tt := range tests {
		got, ok := keyDecision(tt.key)
		if got != tt.want || ok != tt.ok {
			t.Errorf("keyDecision(%s) = %q, %v; want %q, %v", tt.key, got, ok, tt.want, tt.ok)
		}
	}
}

func TestFoldPreview(t *testing.T) {
	long := strings.Repeat("x", 500)
	var many []string
	for i := range 25 {
		many = append(many, string(rune('a'+i)))
	}
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", "(no arguments)"},
		{"keeps key order and indents", `{"b":1,"a":{"c":[true,null]}}`, "{\n  \"b\": 1,\n  \"a\": {\n    \"c\": [true, null]\n  }\n}"},
		{"empty containers", `{"a":{},"b":[]}`, "{\n  \"a\": {},\n  \"b\": []\n}"},
		{"long string folded", `{"s":"` + long + `"}`, "{\n  \"s\": \"" + strings.Repeat("x", foldKeep) + "… (428 more characters)\"\n}"},
		{"small values on one line", `{"a":{"id":1,"name":"row"},"b":["x","y"],"c":[{"d":1}]}`, "{\n  \"a\": {\"id\": 1, \"name\": \"row\"},\n  \"b\": [\"x\", \"y\"],\n  \"c\": [\n    {\"d\": 1}\n  ]\n}"},
		{"secret keys masked", `{"token":"abc","user":"ana","auth":{"password":"p","n":1},"max_tokens":5}`,
			"{\n  \"token\": \"[redacted]\",\n  \"user\": \"ana\",\n  \"auth\": {\"password\": \"[redacted]\", \"n\": \"[redacted]\"},\n  \"max_tokens\": 5\n}"},
		{"redaction marks kept", `{"apiKey":"***"}`, "{\n  \"apiKey\": \"***\"\n}"},
		{"numbers kept exact", `{"n":12345678901234567890}`, "{\n  \"n\": 12345678901234567890\n}"},
		{"not JSON", "plain text", "plain text"},
		{"trailing data is not JSON", `{"a":1} x`, `{"a":1} x`},
	}
	for _, tt := range tests {
		if got := foldPreview(tt.in); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}

	arr := `["` + strings.Join(many, `","`) + `"]`
	got := foldPreview(arr)
	if !strings.Contains(got, "… 5 more items") || strings.Contains(got, `"y"`) {
		t.Errorf("long array not folded:\n%s", got)
	}
	deep := strings.Repeat(`{"a":`, 20) + "1" + strings.Repeat("}", 20)
	if got := foldPreview(deep); !strings.Contains(got, "{… 1 key}") {
		t.Errorf("deep nesting not folded:\n%s", got)
	}
	text := strings.Repeat("y", 1000)
	if got := foldPreview(text); len(got) > foldLine+40 || !strings.Contains(got, "more characters") {
		t.Errorf("long text line not folded: %d bytes", len(got))
	}
}

func TestCheckForms(t *testing.T) {
	policies := []struct {
		pattern, mode string
		ok            bool
	}{
		{"github.createIssue", PolicyAllow, true},
		{"github.*", PolicyAsk, true},
		{"*", PolicyDeny, true},
		{"my-server.tool_name", PolicyAsk, true},
		{"", PolicyAsk, false},
		{"github createIssue", PolicyAsk, false},
		{"github.createIssue", "maybe", false},
		{"github.createIssue", "", false},
	}
	for _, tt := range policies {
		if err := checkPolicy(tt.pattern, tt.mode); (err == nil) != tt.ok {
			t.Errorf("checkPolicy(%q, %q) = %v, want ok=%v", tt.pattern, tt.mode, err, tt.ok)
		}
	}
	secrets := []struct {
		src, conn, secret string
		ok                bool
	}{
		{"github", "work", "s3cret", true},
		{"", "work", "s3cret", false},
		{"github", " ", "s3cret", false},
		{"github", "work", "", false},
	}
	for _, tt := range secrets {
		if err := checkSecret(tt.src, tt.conn, tt.secret); (err == nil) != tt.ok {
			t.Errorf("checkSecret(%q, %q, _) = %v, want ok=%v", tt.src, tt.conn, err, tt.ok)
		}
	}
}

func TestTrayMenuModel(t *testing.T) {
	now := time.Date(2026, 3, 14, 12, 0, 0, 0, time.Local)
	labels := func(es []menuEntry) []string {
		var out []string
		for _, e := range es {
			if e.separator {
				out = append(out, "---")
			} else {
				out = append(out, e.label)
			}
		}
		return out
	}

	empty := trayMenuModel(snapshot{loaded: true}, now)
	want := []string{"Running · 0 sources · 0 tools", "---", "Sources", "Recent runs", "---",
		"Open window…", "Connect a client…", "Open logs", "Open config folder", "---", "Pause hub", "---", "Quit"}
	if diff := cmp.Diff(want, labels(empty)); diff != "" {
		t.Errorf("empty menu (-want +got):\n%s", diff)
	}
	if !empty[0].disabled || empty[0].action != "" {
		t.Error("the status line is an action")
	}
	if diff := cmp.Diff([]string{"No runs yet", "---", "All runs…"}, labels(empty[3].children)); diff != "" {
		t.Errorf("runs submenu (-want +got):\n%s", diff)
	}

	var runs []RunSummary
	for i := range 7 {
		runs = append(runs, RunSummary{ID: string(rune('a' + i)), Status: "ok", Client: "c", Started: now})
	}
	s := snapshot{
		pending:        []Approval{{ID: "1"}, {ID: "2"}},
		changed:        []ToolChange{{Address: "gh.pullsList"}, {Address: "gh.pullsMerge"}},
		status:         Status{Paused: true, Pending: 2, Sources: []SourceStatus{{Name: "gh", State: SourceUp, Tools: 3}, {Name: "sl", State: SourceDown}}},
		runs:           runs,
		autostart:      true,
		autostartKnown: true,
	}
	s.loaded = true
	s.status.Tools = 3
	full := trayMenuModel(s, now)
	want = []string{"Paused · 2 sources · 3 tools · 1 down · 2 waiting", "2 pending approvals…", "2 tool definitions changed…", "---", "Sources (some down)", "Recent runs", "---",
		"Open window…", "Connect a client…", "Open logs", "Open config folder", "---", "Resume hub", "Start at login", "---", "Quit"}
	if diff := cmp.Diff(want, labels(full)); diff != "" {
		t.Errorf("full menu (-want +got):\n%s", diff)
	}
	if full[1].disabled || full[1].action != actQueue {
		t.Errorf("pending item: %+v", full[1])
	}
	if full[2].action != actChanges {
		t.Errorf("changes item: %+v", full[2])
	}
	if got := len(full[5].children); got != recentRuns+2 {
		t.Errorf("runs submenu has %d entries, want %d runs + separator + all", got, recentRuns)
	}
	if full[5].children[0].action != actRun+"a" {
		t.Errorf("first run action = %q", full[5].children[0].action)
	}
	if diff := cmp.Diff([]string{"gh: up, 3 tools", "sl: down", "---", "Manage sources…"}, labels(full[4].children)); diff != "" {
		t.Errorf("sources submenu (-want +got):\n%s", diff)
	}
	for _, e := range full[4].children[:2] {
		if e.action != actSources {
			t.Errorf("source item %q opens %q, not the Sources tab (where its error shows)", e.label, e.action)
		}
	}
	if !full[13].checked || full[13].action != actAutostart {
		t.Errorf("autostart item: %+v", full[13])
	}
	if full[len(full)-1].action != actQuit {
		t.Error("Quit is not last")
	}
}

func TestTrayMenuImportAndSignIn(t *testing.T) {
	now := time.Date(2026, 3, 14, 12, 0, 0, 0, time.Local)
	gh := SourceStatus{Name: "github", State: SourceUp, Tools: 3, SignIns: []SignInStatus{
		{Connection: "work", SignedIn: true, Summary: "signed in until 2026-03-14 13:00 UTC"},
		{Connection: "personal", Summary: "needs sign-in: token expired"},
	}}
	tests := []struct {
		name        string
		snap        snapshot
		wantTop     []string // the entries between the status line and the first separator
		wantSources []string
		signIn      map[string][2]string // label: source, connection its action signs in
	}{
		{"no offer", snapshot{loaded: true, canImport: true}, nil, []string{"No sources configured", "---", "Manage sources…"}, nil},
		{"offer of one", snapshot{loaded: true, canImport: true, status: Status{ImportOffer: 1}},
			[]string{"Import 1 server from your clients…"}, []string{"No sources configured", "---", "Manage sources…"}, nil},
		{"offer of three", snapshot{loaded: true, canImport: true, status: Status{ImportOffer: 3}},
			[]string{"Import 3 servers from your clients…"}, []string{"No sources configured", "---", "Manage sources…"}, nil},
		{"offer but no window to take it up", snapshot{loaded: true, status: Status{ImportOffer: 3}}, nil, []string{"No sources configured", "---", "Manage sources…"}, nil},
		{"after the pending item", snapshot{loaded: true, canImport: true, pending: []Approval{{ID: "1"}}, status: Status{Pending: 1, ImportOffer: 2}},
			[]string{"1 pending approval…", "Import 2 servers from your clients…"}, []string{"No sources configured", "---", "Manage sources…"}, nil},
		{"needs sign-in", snapshot{loaded: true, status: Status{Sources: []SourceStatus{gh}}}, nil,
			[]string{"github: up, 3 tools", "Sign in to github (personal)…", "---", "Manage sources…"},
			map[string][2]string{"Sign in to github (personal)…": {"github", "personal"}}},
		{"every connection signed in", snapshot{loaded: true, status: Status{Sources: []SourceStatus{{Name: "linear", State: SourceUp,
			SignIns: []SignInStatus{{Connection: "default", SignedIn: true}}}}}}, nil,
			[]string{"linear: up, 0 tools", "---", "Manage sources…"}, nil},
		{"signing in still offers it", snapshot{loaded: true, status: Status{Sources: []SourceStatus{{Name: "linear", State: SourceIdle,
			SignIns: []SignInStatus{{Connection: "default", SigningIn: true}}}}}}, nil,
			[]string{"linear: idle, 0 tools", "Sign in to linear (default)…", "---", "Manage sources…"},
			map[string][2]string{"Sign in to linear (default)…": {"linear", "default"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := trayMenuModel(tt.snap, now)
			var top []string
			for _, e := range m[1:] {
				if e.separator {
					break
				}
				top = append(top, e.label)
				if strings.HasPrefix(e.label, "Import ") && e.action != actImport {
					t.Errorf("%q runs %q, not the import", e.label, e.action)
				}
			}
			if diff := cmp.Diff(tt.wantTop, top); diff != "" {
				t.Errorf("top of the menu (-want +got):\n%s", diff)
			}
			var sources []menuEntry
			for _, e := range m {
				if strings.HasPrefix(e.label, "Sources") {
					sources = e.children
				}
			}
			var labels []string
			for _, e := range sources {
				if e.separator {
					labels = append(labels, "---")
					continue
				}
				labels = append(labels, e.label)
				want, isSignIn := tt.signIn[e.label]
				src, conn, ok := parseSignInAction(e.action)
				if ok != isSignIn || (ok && [2]string{src, conn} != want) {
					t.Errorf("%q runs %q: sign-in %v %s/%s, want %v %v", e.label, e.action, ok, src, conn, isSignIn, want)
				}
			}
			if diff := cmp.Diff(tt.wantSources, labels); diff != "" {
				t.Errorf("sources submenu (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSignInText(t *testing.T) {
	tests := []struct {
		si   SignInStatus
		want string
	}{
		{SignInStatus{Connection: "work", SignedIn: true, Summary: "signed in until 2026-03-14 13:00 UTC"}, "work: signed in until 2026-03-14 13:00 UTC"},
		{SignInStatus{Connection: "personal", Summary: "needs sign-in: token expired"}, "personal: needs sign-in: token expired"},
		{SignInStatus{Connection: "default"}, "default: needs sign-in"},
		{SignInStatus{Connection: "", SigningIn: true, Summary: "needs sign-in"}, "default connection: needs sign-in (a sign-in page is open in the browser)"},
	}
	for _, tt := range tests {
		if got := signInText(tt.si); got != tt.want {
			t.Errorf("signInText(%+v) = %q, want %q", tt.si, got, tt.want)
		}
	}
	// The action names the source and the whole connection name.
	if src, conn, ok := parseSignInAction(signInAction("git", "hub\nwork")); !ok || src != "git" || conn != "hub\nwork" {
		t.Errorf("round trip: %q %q %v", src, conn, ok)
	}
}

func TestSecretOwner(t *testing.T) {
	base := Approval{ID: "ap_1", Source: "slack", Connection: "personal", NeedsSecret: true}
	other := func(f func(*Approval)) Approval { a := base; f(&a); return a }
	for _, tc := range []struct {
		name string
		a    Approval
		same bool // the same owner as base
	}{
		{"the same request", base, true},
		{"another request", other(func(a *Approval) { a.ID = "ap_2" }), false},
		{"another source", other(func(a *Approval) { a.Source = "github" }), false},
		{"another connection", other(func(a *Approval) { a.Connection = "work" }), false},
	} {
		if got := secretOwner(tc.a) == secretOwner(base); got != tc.same {
			t.Errorf("%s: same owner %v, want %v", tc.name, got, tc.same)
		}
	}
	if secretOwner(Approval{ID: "ap_1", Source: "slack"}) != "" {
		t.Error("a call that waits for no secret has an owner")
	}
}

// TestGroupTextOfAPlan: the calls of a run's plan are shown as one plan,
// with the marks, the calls policy denied and where planning stopped; a
// lone call outside a plan shows no group, as before.
func TestGroupTextOfAPlan(t *testing.T) {
	plan := &PlanInfo{Stop: "what follows depends on the result of call 1, line 5", Denied: []string{"memory.deleteEntities (#2)"}}
	item := func(seq int, address string, p *PlanInfo) queueItem {
		return queueItem{a: Approval{RunID: "r", Seq: seq, Address: address, Plan: p}}
	}
	missing := *plan
	missing.Missing = true
	for _, tc := range []struct {
		name  string
		items []queueItem
		want  string
	}{
		{"lone call", []queueItem{item(3, "github.createIssue", nil)}, ""},
		{"two calls of a run", []queueItem{item(3, "github.createIssue", nil), item(4, "slack.postMessage", nil)},
			"This run waits on 2 calls: github.createIssue (#3), slack.postMessage (#4)."},
		{"plan of one that stopped", []queueItem{item(1, "memory.createEntities", plan)},
			"This run's plan: 1 call, collected before the first of them runs; each runs once, and only as shown: memory.createEntities (#1). Denied by policy, never runs: memory.deleteEntities (#2). Planning stopped: what follows depends on the result of call 1, line 5; what follows is asked about when the run gets there."},
		{"plan of two", []queueItem{item(1, "memory.createEntities", plan), item(3, "memory.addObservations", &missing)},
			"This run's plan: 2 calls, collected before the first of them runs; each runs once, and only as shown below. Planning stopped: what follows depends on the result of call 1, line 5; what follows is asked about when the run gets there."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			group := make([]int, len(tc.items))
			for i := range group {
				group[i] = i
			}
			if got := groupText(tc.items, group); got != tc.want {
				t.Errorf("groupText =\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

func TestApprovalsTabHints(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{pendingHint(0), "Nothing waits for you. A call that needs your consent opens a dialog and is listed here until you decide."},
		{pendingHint(1), "1 call waits for you: pick one to review it in the approval window."},
		{pendingHint(3), "3 calls wait for you: pick one to review it in the approval window."},
		{historyHint(0), "No decisions yet. Each one you make (or a rule makes for you) is listed here, newest first."},
		{historyHint(2), `Newest first; the rules "Always allow" and "Always deny" set are in the Policy tab.`},
		{runsHint(0), "No runs yet. Each execute a client (or 'capabilities execute') starts is listed here with its calls, code and result."},
		{runsHint(4), "Pick a run"},
		{policyHint(0), "No rules yet. Without one, a read-only tool (an MCP tool marked read-only, a GET of a REST API) runs and every other call asks you."},
		{policyHint(1), "Without a matching rule, a read-only tool runs and every other call asks you. Pick a rule to change it."},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func TestSecretPlaceText(t *testing.T) {
	for _, tc := range []struct {
		source, where string
		signIn        bool
		err           error
		want          string
	}{
		{"", "", false, nil, "Pick a source to see where its secret goes."},
		{"petstore", "header api_key", false, nil, "the header api_key of petstore's requests (stored in the OS keychain, never in config.json)"},
		{"github", "", true, nil, "github signs in with OAuth: use its Sign in button above; there is no secret to enter."},
		{"fs", "", false, errors.New("source fs references no secret yet"), "source fs references no secret yet"},
		{"fs", "", false, nil, "The hub cannot tell yet."},
	} {
		if got := secretPlaceText(tc.source, tc.where, tc.signIn, tc.err); got != tc.want {
			t.Errorf("secretPlaceText(%q, %q, %v, %v) = %q, want %q", tc.source, tc.where, tc.signIn, tc.err, got, tc.want)
		}
	}
}

// TestDialogDescription: the dialog gives the description as one paragraph
// and leaves out a first paragraph that repeats the title.
func TestDialogDescription(t *testing.T) {
	for _, tc := range []struct{ title, desc, want string }{
		{"Create a label", "Create a label.\n\nCreates a label for the specified repository.\n\nThe color must be hex.", "Creates a label for the specified repository. The color must be hex."},
		{"Create a label", "Create a label.", "Create a label."},
		{"", "Create a label.\n\nCreates one.", "Create a label. Creates one."},
		{"Delete", "Deletes an issue\r\n\r\nfor good.", "Deletes an issue for good."},
		{"List", "Lists things,\n  one per line.", "Lists things, one per line."},
	} {
		if got := dialogDescription(tc.title, tc.desc, 400); got != tc.want {
			t.Errorf("dialogDescription(%q, %q) = %q, want %q", tc.title, tc.desc, got, tc.want)
		}
	}
	if got := dialogDescription("T", strings.Repeat("word ", 200), 20); got != "word word word word…" {
		t.Errorf("cut: %q", got)
	}
	// GitHub's description of PUT /repos/{owner}/{repo}/contents/{path},
	// as its document writes it.
	gh := "Create or update file contents\n\nCreates a new file or replaces an existing file in a repository.\n\n> [!NOTE]\n> If you use this endpoint and the \"[Delete a file](https://docs.github.com/rest/repos/contents/#delete-a-file)\" endpoint in parallel, the requests conflict. Use `sha` to **avoid** it.\n\n<details><summary>More</summary>text</details>"
	want := `Creates a new file or replaces an existing file in a repository. If you use this endpoint and the "Delete a file" endpoint in parallel, the requests conflict. Use sha to avoid it.`
	if got := dialogDescription("Create or update file contents", gh, 400); !strings.HasPrefix(got, want) || strings.Contains(got, "https://") || strings.Contains(got, "<") {
		t.Errorf("dialogDescription of GitHub's Markdown:\n%s\nwant it to start with\n%s", got, want)
	}
}

func TestPendingRowText(t *testing.T) {
	now := time.Date(2026, 12, 4, 19, 20, 0, 0, time.Local)
	a := Approval{Address: "gh.reposCreateOrUpdateFileContents", Reason: "policy ask (the tool is not marked read-only)", Client: "capabilities cli", Expires: now.Add(90 * time.Minute)}
	if got, want := pendingRowText(a, now), "gh.reposCreateOrUpdateFileContents · policy ask (the tool is not marked read-only) · capabilities cli · expires in 1h30m0s (at 20:50:00)"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	a.Client, a.Expires = "", time.Time{}
	if got, want := pendingRowText(a, now), "gh.reposCreateOrUpdateFileContents · policy ask (the tool is not marked read-only) · waits until decided"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestMarkdownText(t *testing.T) {
	for _, tc := range []struct{ md, want string }{
		{"plain words, one line", "plain words, one line"},
		{"# Heading\n\n- one\n- two <b>bold</b>", "Heading one two bold"},
		{"see <https://example.com/x> and [the docs](https://example.com/d \"title\")", "see https://example.com/x and the docs"},
		{"```js\nawait gh.pullsList({})\n```\nthen", "await gh.pullsList({}) then"},
		{"> [!WARNING]\n> Destroys the repository.", "Destroys the repository."},
		{"a\\*b\\* &amp; c", "a*b* & c"},
	} {
		if got := markdownText(tc.md); got != tc.want {
			t.Errorf("markdownText(%q) = %q, want %q", tc.md, got, tc.want)
		}
	}
}
