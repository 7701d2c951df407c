package hub

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/policy"
)

// accountServer is an upstream that records, for every call that reaches
// it, the tool and the account (the X-Account header its connection
// sends).
type accountServer struct {
	server *mcp.Server
	mu     sync.Mutex
	calls  []string // "tool@account"
}

func newAccountServer(tools map[string]bool) *accountServer {
	a := &accountServer{server: mcp.NewServer(&mcp.Implementation{Name: "acct", Version: "1"}, nil)}
	for name, readOnly := range tools {
		a.server.AddTool(&mcp.Tool{Name: name, Description: "Tool " + name + " of the account.",
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: readOnly},
			InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				account := ""
				if req.Extra != nil && req.Extra.Header != nil {
					account = req.Extra.Header.Get("X-Account")
				}
				a.mu.Lock()
				a.calls = append(a.calls, name+"@"+account)
				a.mu.Unlock()
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + " as " + account}}}, nil
			})
	}
	return a
}

func (a *accountServer) seen() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.calls...)
}

// profileHub opens a hub with two sources, acct (connections personal, the
// default, and work) and mail, and three profiles over them.
func profileHub(t *testing.T) (h *Hub, acct, mail *accountServer) {
	t.Helper()
	acct = newAccountServer(map[string]bool{"whoami": true, "post_note": false})
	mail = newAccountServer(map[string]bool{"list_mail": true, "send_mail": false})
	home := t.TempDir()
	cfg := &config.Config{
		Sources: map[string]*config.Source{
			"acct": {URL: httpUpstream(t, acct.server, "", "").URL, Connections: map[string]*config.Connection{
				"personal": {Default: true, Headers: map[string]string{"X-Account": "personal"}},
				"work":     {Headers: map[string]string{"X-Account": "work"}},
			}},
			"mail": {URL: httpUpstream(t, mail.server, "", "").URL, Headers: map[string]string{"X-Account": "mailbox"}},
		},
		Policy: map[string]config.Mode{"acct.postNote": config.Allow},
		Profiles: map[string]*config.Profile{
			"work":   {Sources: []string{"acct"}, Connections: map[string]string{"acct": "work"}, Policy: map[string]config.Mode{"acct.postNote": config.Ask}},
			"reader": {Sources: []string{"acct", "mail"}, ReadOnly: true},
			"tight":  {Sources: []string{"mail"}, Policy: map[string]config.Mode{"mail.listMail": config.Deny, "mail.sendMail": config.Allow}},
		},
	}
	if err := cfg.Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}
	h, err := New(context.Background(), Options{Home: home, ConfigPoll: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	if errs := h.Refresh(context.Background()); len(errs) > 0 {
		t.Fatal(errs)
	}
	return h, acct, mail
}

func execIn(t *testing.T, h *Hub, profile, code string) *Envelope {
	t.Helper()
	env, err := h.Execute(context.Background(), ExecuteRequest{Code: code, Client: "test", Profile: profile})
	if err != nil {
		t.Fatalf("Execute in %q: %v", profile, err)
	}
	return env
}

func TestProfileHidesEverythingOutside(t *testing.T) {
	h, acct, mail := profileHub(t)
	ctx := context.Background()

	all, err := h.Search(ctx, SearchRequest{Query: "tool"})
	if err != nil || !strings.Contains(all, "mail.sendMail") || !strings.Contains(all, "acct.whoami") {
		t.Fatalf("search without a profile = %q, %v; want both sources", all, err)
	}
	out, err := h.Search(ctx, SearchRequest{Query: "mail", Profile: "work"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "mail.") || strings.Contains(out, "hidden") || strings.Contains(out, "Namespaces: acct, mail") {
		t.Errorf("search in work shows the mail source or counts it as hidden:\n%s", out)
	}
	if _, err := h.Search(ctx, SearchRequest{Query: "x", Namespace: "mail", Profile: "work"}); err == nil || !strings.Contains(err.Error(), `unknown namespace "mail"; known: acct`) {
		t.Errorf("search namespace mail in work = %v", err)
	}
	for _, target := range []string{"mail.sendMail", "mail"} {
		if _, err := h.Describe(ctx, DescribeRequest{Targets: []string{target}, Profile: "work"}); err == nil || !strings.Contains(err.Error(), "unknown target") {
			t.Errorf("describe %s in work = %v, want unknown target", target, err)
		}
	}
	if d, err := h.Describe(ctx, DescribeRequest{Targets: []string{"acct.whoami"}, Profile: "work"}); err != nil || !strings.Contains(d, "whoami") {
		t.Errorf("describe acct.whoami in work = %q, %v", d, err)
	}

	env := execIn(t, h, "work", `return [typeof mail, typeof acct, Object.keys(globalThis).includes("mail")]`)
	if env.Status != StatusCompleted || string(env.Result) != `["undefined","object",false]` {
		t.Fatalf("globals in work: %s", env.Line())
	}
	// The code cannot reach a hidden source through the hub's own
	// functions either.
	env = execIn(t, h, "work", `return await hub.search("send mail")`)
	if env.Status != StatusCompleted || strings.Contains(string(env.Result), "mail.sendMail") {
		t.Errorf("hub.search in work: %s", env.Line())
	}
	if got := mail.seen(); len(got) != 0 {
		t.Errorf("the mail source got calls from the work profile: %v", got)
	}
	_ = acct
}

func TestProfilePinsItsConnection(t *testing.T) {
	h, acct, _ := profileHub(t)
	env := execIn(t, h, "work", `return await acct.whoami({})`)
	if env.Status != StatusCompleted || !strings.Contains(string(env.Result), "whoami as work") {
		t.Fatalf("whoami in work: %s", env.Line())
	}
	env = execIn(t, h, "work", `try { await acct.whoami({}, { connection: "personal" }); return "sent" } catch (e) { return e.code + ": " + e.message }`)
	if !strings.Contains(string(env.Result), `unknown_connection: source acct has no connection \"personal\" (it has: work)`) {
		t.Errorf("the personal connection from work: %s", env.Line())
	}
	if got := acct.seen(); len(got) != 1 || got[0] != "whoami@work" {
		t.Errorf("upstream saw %v; want only whoami@work", got)
	}
	// Without a profile the default connection is the person's.
	if env := execIn(t, h, "", `return await acct.whoami({})`); !strings.Contains(string(env.Result), "whoami as personal") {
		t.Errorf("whoami without a profile: %s", env.Line())
	}
}

func TestProfilePolicyOnlyTightens(t *testing.T) {
	h, acct, mail := profileHub(t)
	ctx := context.Background()

	// The person allows acct.postNote; work asks for it.
	if env := execIn(t, h, "", `return await acct.postNote({})`); env.Status != StatusCompleted {
		t.Fatalf("postNote without a profile: %s", env.Line())
	}
	env := execIn(t, h, "work", `return await acct.postNote({})`)
	if env.Status != StatusAwaitingApproval || !strings.Contains(env.Line(), "profile work") {
		t.Fatalf("postNote in work: %s", env.Line())
	}
	// tight's allow of mail.sendMail does not loosen the default ask, its
	// deny of mail.listMail applies, and only it counts as hidden.
	env = execIn(t, h, "tight", `return await mail.sendMail({})`)
	if env.Status != StatusAwaitingApproval {
		t.Fatalf("sendMail in tight: %s", env.Line())
	}
	env = execIn(t, h, "tight", `try { await mail.listMail({}); return "listed" } catch (e) { return e.code }`)
	if string(env.Result) != `"denied"` {
		t.Errorf("listMail in tight: %s", env.Line())
	}
	out, err := h.Search(ctx, SearchRequest{Query: "mail", Profile: "tight"})
	if err != nil || strings.Contains(out, "listMail") || !strings.Contains(out, "1 tool hidden by your policy") || !strings.Contains(out, "sendMail") {
		t.Errorf("search in tight:\n%s\n%v", out, err)
	}
	if out, _ := h.Search(ctx, SearchRequest{Query: "mail"}); !strings.Contains(out, "listMail") || strings.Contains(out, "hidden") {
		t.Errorf("tight's deny leaked into the whole hub's search:\n%s", out)
	}
	// A read-only profile refuses what the person allows.
	env = execIn(t, h, "reader", `try { await acct.postNote({}); return "posted" } catch (e) { return e.code + ": " + e.message }`)
	if !strings.Contains(string(env.Result), "denied") || !strings.Contains(string(env.Result), "profile reader is read-only") {
		t.Errorf("postNote in reader: %s", env.Line())
	}
	if env := execIn(t, h, "reader", `return await mail.listMail({})`); env.Status != StatusCompleted {
		t.Errorf("a read-only tool in reader: %s", env.Line())
	}
	if got := strings.Join(acct.seen(), " "); got != "post_note@personal" {
		t.Errorf("acct saw %q; want the one call made without a profile", got)
	}
	if got := strings.Join(mail.seen(), " "); got != "list_mail@mailbox" {
		t.Errorf("mail saw %q; want reader's list_mail only", got)
	}
}

// An "always allow" given to a call made in a profile holds once: it
// widens neither the whole hub nor another profile.
func TestProfileApprovalDoesNotWiden(t *testing.T) {
	h, _, mail := profileHub(t)
	ctx := context.Background()
	env := execIn(t, h, "tight", `return await mail.sendMail({})`)
	if env.Status != StatusAwaitingApproval || len(env.Pending) != 1 {
		t.Fatalf("sendMail in tight: %s", env.Line())
	}
	if err := h.Decide(ctx, env.Pending[0].ID, AllowAlways, policy.ChannelCLI, "test"); err != nil {
		t.Fatal(err)
	}
	res, err := h.Execute(ctx, ExecuteRequest{Resume: env.RunID, Profile: "tight"})
	if err != nil || res.Status != StatusCompleted {
		t.Fatalf("resume: %v %v", res, err)
	}
	if env := execIn(t, h, "", `return await mail.sendMail({})`); env.Status != StatusAwaitingApproval {
		t.Errorf("after an always-allow inside tight, the whole hub: %s", env.Line())
	}
	if env := execIn(t, h, "tight", `return await mail.sendMail({})`); env.Status != StatusAwaitingApproval {
		t.Errorf("after an always-allow inside tight, tight again: %s", env.Line())
	}
	if got := mail.seen(); len(got) != 1 {
		t.Errorf("mail saw %v; want the one approved call", got)
	}
	rules, err := h.PolicyRules(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rules {
		if r.Remembered {
			t.Errorf("a decision inside a profile was remembered: %+v", r)
		}
	}
}

func TestUnknownProfile(t *testing.T) {
	h, _, _ := profileHub(t)
	ctx := context.Background()
	_, err := h.Search(ctx, SearchRequest{Query: "x", Profile: "nope"})
	var upe *UnknownProfileError
	if !errors.As(err, &upe) || !errors.Is(err, ErrUnknownProfile) || err.Error() != `no profile named "nope"; profiles: reader, tight, work` {
		t.Errorf("search in an unknown profile = %v", err)
	}
	if _, err := h.Execute(ctx, ExecuteRequest{Code: "return 1", Profile: "nope"}); !errors.Is(err, ErrUnknownProfile) {
		t.Errorf("execute in an unknown profile = %v", err)
	}
	if _, err := h.Describe(ctx, DescribeRequest{Targets: []string{"acct"}, Profile: "nope"}); !errors.Is(err, ErrUnknownProfile) {
		t.Errorf("describe in an unknown profile = %v", err)
	}
	info, err := h.Profile("reader")
	if err != nil || info.Mode != config.ProfileCode || !info.ReadOnly || strings.Join(info.Sources, ",") != "acct,mail" {
		t.Errorf("Profile(reader) = %+v, %v", info, err)
	}
}

// A profile says which of its sources cannot be used now.
func TestProfileNamesWhatIsNotConnected(t *testing.T) {
	home := t.TempDir()
	cfg := &config.Config{
		Sources: map[string]*config.Source{
			"notes": {URL: httpUpstream(t, newNotesServer().server, "", "").URL},
			"off":   {URL: "http://127.0.0.1:9/mcp", Disabled: true},
		},
		Policy:   map[string]config.Mode{},
		Profiles: map[string]*config.Profile{"p": {Sources: []string{"notes", "off"}}},
	}
	if err := cfg.Save(filepath.Join(home, "config.json")); err != nil {
		t.Fatal(err)
	}
	h := openHubAt(t, home)
	defer h.Close()
	h.Refresh(context.Background())
	info, err := h.Profile("p")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(info.Unavailable, "; "); got != "off (disabled)" {
		t.Errorf("Unavailable = %q, want off (disabled) alone", got)
	}
}

// In a profile only the profile's own runs exist: a run made elsewhere
// cannot be resumed, nor its result read, from it.
func TestProfileResumesOnlyItsRuns(t *testing.T) {
	h, _, _ := profileHub(t)
	ctx := context.Background()
	outside := execIn(t, h, "", `return await mail.listMail({})`)
	// A client whose own name reads like a profile's mark gets no
	// profile's runs either.
	forged, err := h.Execute(ctx, ExecuteRequest{Code: `return await mail.listMail({})`, Client: "x [profile work]"})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{outside.RunID, forged.RunID} {
		if _, err := h.Execute(ctx, ExecuteRequest{Resume: id, Profile: "work"}); err == nil || !strings.Contains(err.Error(), "no run") {
			t.Errorf("resuming %s in work = %v, want no run", id, err)
		}
	}
	inWork := execIn(t, h, "work", `return await acct.whoami({})`)
	if env, err := h.Execute(ctx, ExecuteRequest{Resume: inWork.RunID, Profile: "work"}); err != nil || env.Status != StatusCompleted {
		t.Errorf("resuming work's own run in work = %v, %v", env, err)
	}
	if _, err := h.Execute(ctx, ExecuteRequest{Resume: inWork.RunID, Profile: "tight"}); err == nil {
		t.Error("tight resumed a run of work")
	}
	// The whole hub holds every run.
	if env, err := h.Execute(ctx, ExecuteRequest{Resume: inWork.RunID}); err != nil || env.Status != StatusCompleted {
		t.Errorf("resuming work's run without a profile = %v, %v", env, err)
	}

	// A result kept as a handle is read only where its run is held: in
	// code, as through direct mode's read.
	big := execIn(t, h, "", `return (await mail.listMail({})) + "x".repeat(40000)`)
	var hr HandleResult
	if err := json.Unmarshal(big.Result, &hr); err != nil || hr.Handle == "" {
		t.Fatalf("a result over the inline limit: %.200s (%v)", big.Result, err)
	}
	read := `return await hub.read(` + quoteJS(hr.Handle) + `, { length: 9 })`
	if env := execIn(t, h, "work", read); env.Status != StatusFailed || env.Error == nil || env.Error.Code != CodeUnknownHandle {
		t.Errorf("work read a handle made outside it: %.300s", env.Line())
	}
	if env := execIn(t, h, "", read); env.Status != StatusCompleted || string(env.Result) != `"list_mail"` {
		t.Errorf("the whole hub reading the handle: %.300s", env.Line())
	}
	if _, err := h.ReadHandle(ctx, HandleRead{Profile: "work", Handle: hr.Handle, Length: 9}); err == nil || !strings.Contains(err.Error(), "no handle") {
		t.Errorf("work read a handle made outside it in direct mode: %v", err)
	}
}

// TestPutAndRemoveProfile: the window's way to add and remove a profile
// checks it as config.json is read, keeps it in the file and serves it.
func TestPutAndRemoveProfile(t *testing.T) {
	h := hubWith(t, map[string]*config.Source{"fake": fakeSource("crash", nil)}, nil)
	ctx := context.Background()
	if err := h.PutProfile(ctx, "reader", &config.Profile{Sources: []string{"ghost"}}, false); err == nil || !strings.Contains(err.Error(), "ghost") {
		t.Errorf("a profile of a source that does not exist: %v", err)
	}
	if err := h.PutProfile(ctx, "reader", &config.Profile{Sources: []string{"fake"}, ReadOnly: true}, false); err != nil {
		t.Fatal(err)
	}
	if err := h.PutProfile(ctx, "reader", &config.Profile{Sources: []string{"fake"}}, false); err == nil || !strings.Contains(err.Error(), "a profile with this name exists") {
		t.Errorf("a second profile of the name: %v", err)
	}
	if info, err := h.Profile("reader"); err != nil || !info.ReadOnly {
		t.Fatalf("the profile served: %+v, %v", info, err)
	}
	if cfg, err := config.Load(h.paths.Config()); err != nil || cfg.Profile("reader") == nil {
		t.Errorf("config.json lacks the profile: %v", err)
	}
	if err := h.RemoveProfile(ctx, "reader"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Profile("reader"); !errors.Is(err, ErrUnknownProfile) {
		t.Errorf("the removed profile: %v", err)
	}
	if err := h.RemoveProfile(ctx, "reader"); !errors.Is(err, ErrUnknownProfile) {
		t.Errorf("removing it twice: %v", err)
	}
}
