//go:build !headless

package ui

// The decisions the UI takes, as pure functions of hub data and the time.
// Widgets only copy these results onto the screen; logic_test.go pins them.

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"capabilities.sh/capabilities/hub/catalog"
	"capabilities.sh/capabilities/hub/secrets"
	"capabilities.sh/capabilities/hub/upstream"
	"capabilities.sh/capabilities/internal/hiddentext"
	"fyne.io/fyne/v2"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// trayState is what the tray icon shows.
type trayState int

const (
	trayIdle trayState = iota
	trayPending
	trayDown
	trayPaused
)

func (s trayState) String() string {
	return [...]string{"idle", "pending", "down", "paused"}[s]
}

// trayStateOf picks the tray icon: waiting calls first (they block a run),
// then a source that is down, then a paused hub.
func trayStateOf(st Status) trayState {
	switch {
	case st.Pending > 0:
		return trayPending
	case anyDown(st.Sources):
		return trayDown
	case st.Paused:
		return trayPaused
	}
	return trayIdle
}

func anyDown(sources []SourceStatus) bool {
	for _, s := range sources {
		if s.State == SourceDown {
			return true
		}
	}
	return false
}

// statusLine is the hub's state in one line, the first item of the tray
// menu: "Running · 4 sources · 62 tools · 1 waiting".
func statusLine(s snapshot) string {
	if !s.loaded {
		return "Starting…"
	}
	if len(s.errs) > 0 {
		return "Hub problem: " + truncate(s.errs[0], 60)
	}
	st := s.status
	state := "Running"
	if st.Paused {
		state = "Paused"
	}
	parts := []string{state, plural(len(st.Sources), "source", "sources"), plural(st.Tools, "tool", "tools")}
	down := 0
	for _, src := range st.Sources {
		if src.State == SourceDown {
			down++
		}
	}
	if down > 0 {
		parts = append(parts, fmt.Sprintf("%d down", down))
	}
	if st.Pending > 0 {
		parts = append(parts, fmt.Sprintf("%d waiting", st.Pending))
	}
	return strings.Join(parts, " · ")
}

// trayTooltip is what the icon says under the pointer.
func trayTooltip(s snapshot) string {
	return "capabilities: " + statusLine(s)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// pendingMenuLabel labels the tray item that opens the approval queue.
// pendingHint is the line under the Approvals tab's "Waiting for a
// decision": what to do with the calls listed, or that none waits.
func pendingHint(n int) string {
	if n == 0 {
		return "Nothing waits for you. A call that needs your consent opens a dialog and is listed here until you decide."
	}
	verb := "wait"
	if n == 1 {
		verb = "waits"
	}
	return fmt.Sprintf("%s %s for you: pick one to review it in the approval window.", plural(n, "call", "calls"), verb)
}

// historyHint is the line under "Decisions": what the list holds, or that
// it is empty so far.
func historyHint(n int) string {
	if n == 0 {
		return "No decisions yet. Each one you make (or a rule makes for you) is listed here, newest first."
	}
	return `Newest first; the rules "Always allow" and "Always deny" set are in the Policy tab.`
}

// runsHint heads the Runs tab's detail when no run is picked: what the
// list holds, or that it is empty so far.
func runsHint(n int) string {
	if n == 0 {
		return "No runs yet. Each execute a client (or 'capabilities execute') starts is listed here with its calls, code and result."
	}
	return "Pick a run"
}

// policyHint is the line over the Policy tab's rules: what happens
// without a rule, and how to change one.
func policyHint(n int) string {
	if n == 0 {
		return "No rules yet. Without one, a read-only tool (an MCP tool marked read-only, a GET of a REST API) runs and every other call asks you."
	}
	return "Without a matching rule, a read-only tool runs and every other call asks you. Pick a rule to change it."
}

// secretPlaceText is the secret form's "Goes to" line: what the secret of
// the picked connection fills, that a sign-in provides it, or what the hub
// said when it cannot tell.
func secretPlaceText(source, where string, signIn bool, err error) string {
	var np *NoSecretPlace
	switch {
	case source == "":
		return "Pick a source to see where its secret goes."
	case signIn:
		return source + " signs in with OAuth: use its Sign in button above; there is no secret to enter."
	case errors.As(err, &np) && np.Env:
		return source + " is a program the hub starts: name below the environment variable it reads the secret from (its documentation says which)."
	case errors.As(err, &np):
		return source + " is a server the hub reaches over HTTP: name below the header that carries the secret."
	case err != nil:
		return err.Error()
	case where == "":
		return "The hub cannot tell yet."
	}
	return "the " + where + " of " + source + "'s requests (stored in the OS keychain, never in config.json)"
}

func pendingMenuLabel(n int) string {
	if n == 0 {
		return "No pending approvals"
	}
	return plural(n, "pending approval…", "pending approvals…")
}

// importMenuLabel labels the tray item that opens the first-run window
// on an open import offer of n servers.
func importMenuLabel(n int) string {
	return "Import " + plural(n, "server", "servers") + " from your clients…"
}

// importOfferText is the window's line about an open import offer.
func importOfferText(n int) string {
	return fmt.Sprintf("Your MCP clients run %s that capabilities does not run yet. Import them to run them for every client, with approvals and secrets in the keychain.",
		plural(n, "server", "servers"))
}

// signInMenuLabel labels the tray item that signs an OAuth connection in.
func signInMenuLabel(source, conn string) string {
	return fmt.Sprintf("Sign in to %s (%s)…", source, conn)
}

// signInText is an OAuth connection's state in the window:
// "work: needs sign-in: token expired".
func signInText(si SignInStatus) string {
	s := si.Summary
	if s == "" {
		s = "needs sign-in"
		if si.SignedIn {
			s = "signed in"
		}
	}
	if si.SigningIn {
		s += " (a sign-in page is open in the browser)"
	}
	return connectionText(si.Connection, false) + ": " + s
}

// signInAction is the tray action that signs conn of source in.
func signInAction(source, conn string) string { return actSignIn + source + "\n" + conn }

// parseSignInAction reverses signInAction.
func parseSignInAction(action string) (source, conn string, ok bool) {
	rest, ok := strings.CutPrefix(action, actSignIn)
	if !ok {
		return "", "", false
	}
	return strings.Cut(rest, "\n")
}

// pauseMenuLabel labels the pause/resume item.
func pauseMenuLabel(paused bool) string {
	if paused {
		return "Resume hub"
	}
	return "Pause hub"
}

// sourceLabel describes a source in one line: "github: up, 12 tools".
func sourceLabel(s SourceStatus) string {
	switch s.State {
	case SourceUp, SourceIdle:
		return fmt.Sprintf("%s: %s, %s", s.Name, s.State, plural(s.Tools, "tool", "tools"))
	case SourceDown, SourceNeedsSecret:
		word := "down"
		if s.State == SourceNeedsSecret {
			word = "needs a secret"
		}
		if s.Error != "" {
			return fmt.Sprintf("%s: %s (%s)", s.Name, word, truncate(s.Error, 48))
		}
		return s.Name + ": " + word
	case "":
		return s.Name
	}
	return s.Name + ": " + s.State
}

// runLabel describes a run in one line for menus and lists.
func runLabel(r RunSummary, now time.Time) string {
	who := r.Client
	if who == "" {
		who = "unknown client"
	}
	return fmt.Sprintf("%s  %s  %s, %s", clock(r.Started, now), who, r.Status, plural(len(r.Calls), "call", "calls"))
}

// clock formats t as a time of day, with the date when it is not today.
func clock(t, now time.Time) string {
	if t.IsZero() {
		return "--:--"
	}
	t = t.In(now.Location())
	y1, m1, d1 := t.Date()
	y2, m2, d2 := now.Date()
	if y1 == y2 && m1 == m2 && d1 == d2 {
		return t.Format("15:04:05")
	}
	return t.Format("Jan 2 15:04")
}

// callLine describes one call of a run.
func callLine(c CallSummary) string {
	res := "ok"
	if !c.OK {
		res = "failed"
		if c.Error != "" {
			res += ": " + truncate(c.Error, 80)
		}
	}
	return fmt.Sprintf("#%d  %s  %s  (%s)", c.Seq, c.Address, res, c.Duration.Round(time.Millisecond))
}

// decisionText says a decision in words.
func decisionText(d Decision) string {
	switch d {
	case AllowOnce:
		return "allowed once"
	case AllowAlways:
		return "always allowed"
	case Deny:
		return "denied"
	case DenyAlways:
		return "always denied"
	}
	return string(d)
}

// historyLine describes one audit record.
func historyLine(r DecisionRecord, now time.Time) string {
	by := r.Channel
	if by == "" {
		by = "unknown"
	}
	return fmt.Sprintf("%s  %s %s (run %s, via %s)", clock(r.At, now), r.Address, decisionText(r.Decision), r.RunID, by)
}

// connectionText shows a connection with its default marker.
func connectionText(name string, isDefault bool) string {
	switch {
	case name == "":
		return "default connection"
	case isDefault && name == "default":
		return name
	case isDefault:
		return name + " (default)"
	}
	return name
}

// askedByText says which client and which run made the call.
func askedByText(a Approval) string {
	who := a.Client
	if who == "" {
		who = "unknown client"
	}
	return fmt.Sprintf("%s, run %s, call #%d", who, a.RunID, a.Seq)
}

// expired reports whether a is past its deadline at now.
func expired(a Approval, now time.Time) bool {
	return !a.Expires.IsZero() && !now.Before(a.Expires)
}

// expiryText says how long a call still waits.
func expiryText(a Approval, now time.Time) string {
	if a.Expires.IsZero() {
		return "waits until decided"
	}
	if expired(a, now) {
		return "expired at " + clock(a.Expires, now)
	}
	left := a.Expires.Sub(now).Round(time.Second)
	if left < time.Second {
		left = time.Second
	}
	return fmt.Sprintf("in %s (at %s)", left, clock(a.Expires, now))
}

// pendingRowText is a waiting call's line in the Approvals tab: the tool,
// why it asks, who asked and until when, one after the other.
func pendingRowText(a Approval, now time.Time) string {
	parts := []string{a.Address, a.Reason, a.Client}
	if e := expiryText(a, now); strings.HasPrefix(e, "in ") {
		parts = append(parts, "expires "+e)
	} else {
		parts = append(parts, e)
	}
	return strings.Join(slices.DeleteFunc(parts, func(s string) bool { return s == "" }), " · ")
}

// itemExpiryText is expiryText for a queued call, which the hub may have
// expired before its deadline.
func itemExpiryText(it queueItem, now time.Time) string {
	if it.expired && !expired(it.a, now) {
		return "expired"
	}
	return expiryText(it.a, now)
}

// queueItem is one approval in the dialog's queue with what the UI knows of it.
type queueItem struct {
	a       Approval
	expired bool   // the hub said so, or its deadline passed
	busy    bool   // a decision is on its way to the hub
	err     string // the hub refused the last decision
	saved   bool   // the secret it waits for was stored
	// signInFailed: err is why the last sign-in for it failed.
	signInFailed bool
}

// mergeQueue reconciles the queue with the hub's pending calls: calls no
// longer pending leave the queue (decided elsewhere) unless they expired,
// which stay so the person sees what happened; new calls join. The queue is
// ordered oldest first, the order in which calls expire.
func mergeQueue(items []queueItem, pending []Approval, now time.Time) []queueItem {
	byID := make(map[string]Approval, len(pending))
	for _, a := range pending {
		byID[a.ID] = a
	}
	out := make([]queueItem, 0, len(pending))
	seen := map[string]bool{}
	for _, it := range items {
		if a, ok := byID[it.a.ID]; ok {
			it.a = a
		} else if !it.expired && !expired(it.a, now) {
			continue
		} else {
			it.busy = false
		}
		it.expired = it.expired || expired(it.a, now)
		seen[it.a.ID] = true
		out = append(out, it)
	}
	for _, a := range pending {
		if !seen[a.ID] {
			seen[a.ID] = true
			out = append(out, queueItem{a: a, expired: expired(a, now)})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].a.Created.Equal(out[j].a.Created) {
			return out[i].a.Created.Before(out[j].a.Created)
		}
		return out[i].a.ID < out[j].a.ID
	})
	return out
}

// removeItem drops the approval id from the queue.
func removeItem(items []queueItem, id string) []queueItem {
	out := items[:0:0]
	for _, it := range items {
		if it.a.ID != id {
			out = append(out, it)
		}
	}
	return out
}

// selectAfter picks the shown item after the queue changed from before to
// after while before[cur] was shown: the same call if it is still there,
// otherwise the one that took its place (the next), otherwise the last one.
// It returns -1 for an empty queue.
func selectAfter(before []queueItem, cur int, after []queueItem) int {
	if len(after) == 0 {
		return -1
	}
	if cur >= 0 && cur < len(before) {
		id := before[cur].a.ID
		for i, it := range after {
			if it.a.ID == id {
				return i
			}
		}
		// The shown call left: show the first later call still queued.
		for _, b := range before[cur+1:] {
			for i, it := range after {
				if it.a.ID == b.a.ID {
					return i
				}
			}
		}
	}
	return min(max(cur, 0), len(after)-1)
}

// queueLabel is the position in the queue: "1 of 3".
func queueLabel(cur, n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d", cur+1, n)
}

// canDecide reports whether the decision buttons of it are enabled.
func canDecide(it queueItem, now time.Time) bool {
	return !it.busy && !it.expired && !expired(it.a, now) && !it.a.NeedsSecret
}

// keyDecision maps a key typed in the dialog, with no button focused, to
// a decision: Escape denies, Enter and Return allow once. A focused
// decision button takes Enter itself (pressButton).
func keyDecision(key fyne.KeyName) (Decision, bool) {
	switch key {
	case fyne.KeyEscape:
		return Deny, true
	case fyne.KeyReturn, fyne.KeyEnter:
		return AllowOnce, true
	}
	return "", false
}

// pressButton says what a key typed on a focused decision button does:
// Escape denies whatever has focus, and Enter or Return presses the
// focused button, so Enter on Deny denies.
func pressButton(key fyne.KeyName) (deny, press bool) {
	switch key {
	case fyne.KeyEscape:
		return true, false
	case fyne.KeyReturn, fyne.KeyEnter:
		return false, true
	}
	return false, false
}

// statusText is the line under the preview: why the buttons are off, or why
// the hub refused a decision.
func statusText(it queueItem, now time.Time) string {
	switch {
	case it.expired || expired(it.a, now):
		return "This request expired: the run was not resumed. Dismiss it; the client can run the code again."
	case it.busy && it.a.NeedsSecret:
		return "Saving the secret…"
	case it.busy:
		return "Sending the decision to the hub…"
	case it.err != "" && it.signInFailed:
		return "Not signed in: " + it.err
	case it.err != "" && it.a.NeedsSecret:
		return "The secret was not saved: " + it.err
	case it.err != "":
		return "The hub did not take the decision: " + it.err
	case it.saved:
		return "Saved in the keychain. The run continues when the model resumes it."
	case it.a.NeedsSecret && it.a.SignIn:
		return fmt.Sprintf("This call waits for a sign-in to %s (%s), not for a decision. Sign in above; the tokens go to the keychain, never to the model.", orUnknown(it.a.Source), connectionWords(it.a.Connection))
	case it.a.NeedsSecret && it.a.OffersSignIn:
		return fmt.Sprintf("This call waits for a token of %s (%s), not for a decision. Paste one or sign in above; it goes to the keychain, never to the model.", orUnknown(it.a.Source), connectionWords(it.a.Connection))
	case it.a.NeedsSecret && it.a.Connection == "":
		return fmt.Sprintf("This call waits for a secret of %s, which has no connection yet, not for a decision. Enter it above; it goes to the keychain, never to the model.", orUnknown(it.a.Source))
	case it.a.NeedsSecret:
		return fmt.Sprintf("This call waits for the secret of connection %s of %s, not for a decision. Enter it above; it goes to the keychain, never to the model.", it.a.Connection, orUnknown(it.a.Source))
	}
	return ""
}

// connectionWords names a call's connection in a sentence: "connection
// work", or "no connection yet".
func connectionWords(conn string) string {
	if conn == "" {
		return "no connection yet"
	}
	return "connection " + conn
}

// dialogConnectionText is the dialog's Connection field: a call waiting
// for the secret of a source with no connection says that saving creates
// it.
func dialogConnectionText(a Approval) string {
	if a.NeedsSecret && a.Connection == "" {
		if a.SignIn {
			return "none yet: signing in creates default"
		}
		if a.OffersSignIn {
			return "none yet: saving the secret or signing in creates default"
		}
		return "none yet: saving the secret creates default"
	}
	return connectionText(a.Connection, a.DefaultConnection)
}

// Folding limits for previews.
const (
	foldString = 100 // runes a string value keeps before it is folded
	foldKeep   = 72  // runes kept of a folded string
	foldItems  = 20  // array items shown before the rest is folded
	foldDepth  = 12  // nesting shown before deeper values are folded
	foldLine   = 400 // runes per line of a preview that is not JSON
)

// secretKey matches argument names whose values the UI never shows, whatever
// the hub sent: the hub redacts, and the UI does not rely on it alone.
var secretKey = regexp.MustCompile(`(?i)(password|passwd|passphrase|secret|token$|api[-_]?key|^auth$|authorization|credential|cookie|private[-_]?key)`)

// redactedValue replaces a value under a secret-looking key.
const redactedValue = "[redacted]"

// foldPreview turns redacted arguments into what the dialog shows: JSON is
// pretty-printed with its key order kept, long strings and long arrays are
// folded, values under secret-looking keys are masked. Text that is not JSON
// is shown with long lines folded.
func foldPreview(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return "(no arguments)"
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	v, err := readValue(dec)
	if err == nil {
		if _, err2 := dec.Token(); err2 != io.EOF {
			err = fmt.Errorf("trailing data")
		}
	}
	if err != nil {
		lines := strings.Split(s, "\n")
		for i, l := range lines {
			lines[i] = foldText(l, foldLine, foldLine-40)
		}
		return strings.Join(lines, "\n")
	}
	var b bytes.Buffer
	writeValue(&b, v, 0, false, true)
	return b.String()
}

// argLineWidth is the longest line of the full arguments view; longer lines
// continue on the next, marked with an arrow.
const argLineWidth = 76

// secretOwner names the request the dialog's secret field serves: one
// waiting call's source and connection. "" when the call waits for no
// secret. The field is emptied whenever the owner changes.
func secretOwner(a Approval) string {
	if !a.NeedsSecret {
		return ""
	}
	return a.ID + "\x00" + a.Source + "\x00" + a.Connection
}

// fullPreview is the whole of the redacted arguments, nothing folded, as
// lines for a virtualised list: JSON pretty-printed with its key order kept
// and values under secret-looking keys masked; other text as is. Long lines
// are cut into argLineWidth pieces.
func fullPreview(s string) []string {
	s = strings.TrimSpace(s)
	if s == "" {
		return []string{"(no arguments)"}
	}
	text := s
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if v, err := readValue(dec); err == nil {
		if _, err := dec.Token(); err == io.EOF {
			var b bytes.Buffer
			writeValue(&b, v, 0, false, false)
			text = b.String()
		}
	}
	var out []string
	for _, line := range strings.Split(text, "\n") {
		r := []rune(line)
		if len(r) <= argLineWidth {
			out = append(out, line)
			continue
		}
		// The first piece fills the line; each next one follows the
		// arrow. Each piece is cut from r where it starts: an argument of
		// megabytes is as many lines, in one pass.
		out = append(out, string(r[:argLineWidth]))
		for i := argLineWidth; i < len(r); i += argLineWidth - len(continued) {
			out = append(out, string(continued)+string(r[i:min(i+argLineWidth-len(continued), len(r))]))
		}
	}
	return out
}

// continued starts a piece of a line too long for the arguments view.
var continued = []rune("  ↪ ")

// previewLines is a call's arguments as the dialog's lines (fullPreview),
// the line that says where a large preview was cut marked as a warning.
func previewLines(preview string) []gridLine {
	lines := textLines(fullPreview(preview), lineNormal)
	for i := range lines {
		if strings.HasPrefix(lines[i].text, secrets.PreviewCut) {
			lines[i].style = lineWarn
		}
	}
	return lines
}

// cutSize is how large the arguments of a cut preview were ("3.8 MB"), ""
// for a whole one.
func cutSize(preview string) string {
	i := strings.LastIndex(preview, secrets.PreviewCut)
	if i < 0 {
		return ""
	}
	size, _, _ := strings.Cut(preview[i+len(secrets.PreviewCut):], ";")
	return size
}

// codeLine is one line of a run's code in the dialog.
type codeLine struct {
	text   string
	mark   int // 0, markCall (the call shown), markOther (another waiting call of the run)
	number int
}

const (
	markCall  = 1
	markOther = 2
)

// jsLines splits code at JavaScript's line terminators, so the view's
// lines are the lines that run: a line separator (U+2028) or a lone
// carriage return ends a // comment as a newline does.
var jsLines = regexp.MustCompile("\r\n|[\n\r\u2028\u2029]")

// codeView numbers the lines of code and marks where the shown call
// (address) and the run's other waiting calls (others) are made: every
// line that calls the tool, by its address followed by "(".
func codeView(code, address string, others []string) []codeLine {
	if strings.TrimSpace(code) == "" {
		return []codeLine{{text: "(the run's code is not available)"}}
	}
	re := func(addr string) *regexp.Regexp {
		return regexp.MustCompile(`(^|[^\w$.])` + regexp.QuoteMeta(addr) + `\s*\(`)
	}
	this := re(address)
	var rest []*regexp.Regexp
	for _, o := range others {
		if o != address {
			rest = append(rest, re(o))
		}
	}
	lines := jsLines.Split(strings.TrimRight(code, "\n"), -1)
	out := make([]codeLine, len(lines))
	for i, l := range lines {
		out[i] = codeLine{text: hiddentext.Reveal(strings.ReplaceAll(l, "\t", "    ")), number: i + 1}
		if this.MatchString(l) {
			out[i].mark = markCall
			continue
		}
		for _, r := range rest {
			if r.MatchString(l) {
				out[i].mark = markOther
			}
		}
	}
	return out
}

// codeLineText is a code line as the dialog shows it: a marker, its number,
// the code.
func codeLineText(l codeLine) string {
	if l.number == 0 {
		return l.text
	}
	marker := "  "
	switch l.mark {
	case markCall:
		marker = "▶ "
	case markOther:
		marker = "▷ "
	}
	return fmt.Sprintf("%s%3d  %s", marker, l.number, l.text)
}

// firstMark is the index of the line of the shown call, or of another
// waiting call, or 0.
func firstMark(lines []codeLine) int {
	for _, want := range []int{markCall, markOther} {
		for i, l := range lines {
			if l.mark == want {
				return i
			}
		}
	}
	return 0
}

// runGroup lists the calls of the shown call's run that wait in the queue,
// in queue order (the shown one among them).
func runGroup(items []queueItem, cur int) []int {
	if cur < 0 || cur >= len(items) {
		return nil
	}
	var out []int
	for i, it := range items {
		if it.a.RunID == items[cur].a.RunID {
			out = append(out, i)
		}
	}
	return out
}

// allowableTogether are the calls of group that can be allowed at once:
// decidable, not waiting for a secret.
func allowableTogether(items []queueItem, group []int, now time.Time) []int {
	var out []int
	for _, i := range group {
		if canDecide(items[i], now) && !items[i].a.NeedsSecret {
			out = append(out, i)
		}
	}
	return out
}

// groupText says which calls of the run wait: "This run waits on 3 calls:
// github.createIssue (#3), slack.postMessage (#4), …".
//
// The calls of a run's plan say so, with where planning stopped: "This
// run's plan: 3 calls, collected before the first of them runs; each runs
// once, and only as shown below. Planning stopped: …"; the plan's view
// (planGrid) lists them. A plan of one call names it and the calls policy
// denied here.
func groupText(items []queueItem, group []int) string {
	var plan *PlanInfo
	if len(group) > 0 {
		plan = items[group[len(group)-1]].a.Plan
	}
	if len(group) < 2 && (plan == nil || (plan.Stop == "" && len(plan.Denied) == 0)) {
		return ""
	}
	parts := make([]string, 0, len(group))
	for _, i := range group {
		part := fmt.Sprintf("%s (#%d)", items[i].a.Address, items[i].a.Seq)
		if p := items[i].a.Plan; p != nil && p.Missing {
			part += " (needs a secret first)"
		}
		parts = append(parts, part)
	}
	if plan == nil {
		return fmt.Sprintf("This run waits on %d calls: %s.", len(group), strings.Join(parts, ", "))
	}
	if len(group) > 1 {
		// The plan's view lists the calls, their marks and the denied ones.
		s := fmt.Sprintf("This run's plan: %s, collected before the first of them runs; each runs once, and only as shown below.", plural(len(group), "call", "calls"))
		if plan.Stop != "" {
			s += " Planning stopped: " + plan.Stop + "; what follows is asked about when the run gets there."
		}
		return s
	}
	s := fmt.Sprintf("This run's plan: %s, collected before the first of them runs; each runs once, and only as shown: %s.", plural(len(group), "call", "calls"), strings.Join(parts, ", "))
	if len(plan.Denied) > 0 {
		s += " Denied by policy, never runs: " + strings.Join(plan.Denied, ", ") + "."
	}
	if plan.Stop != "" {
		s += " Planning stopped: " + plan.Stop + "; what follows is asked about when the run gets there."
	}
	return s
}

// annotationGloss says what MCP's words for a tool's annotations mean, for
// a person who does not know them.
var annotationGloss = map[string]string{
	"destructive": "destructive (may delete or overwrite)",
	"idempotent":  "idempotent (repeating it changes nothing more)",
	"open world":  "open world (reaches systems outside)",
}

// annotationsText says a tool's annotations, or that it has none.
func annotationsText(a Approval) string {
	if len(a.Annotations) == 0 {
		return "none (the tool does not say whether it only reads)"
	}
	words := make([]string, len(a.Annotations))
	for i, w := range a.Annotations {
		words[i] = cmp.Or(annotationGloss[w], w)
	}
	return strings.Join(words, " · ")
}

// jsonValue is a decoded JSON value that keeps object key order.
type jsonValue struct {
	obj  []jsonMember // object members, when isObj
	arr  []jsonValue  // array items, when isArr
	lit  any          // string, json.Number, bool or nil otherwise
	kind byte         // 'o', 'a' or 'l'
}

type jsonMember struct {
	key string
	val jsonValue
}

func readValue(dec *json.Decoder) (jsonValue, error) {
	tok, err := dec.Token()
	if err != nil {
		return jsonValue{}, err
	}
	switch tok {
	case json.Delim('{'):
		v := jsonValue{kind: 'o'}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return v, err
			}
			key, _ := kt.(string)
			val, err := readValue(dec)
			if err != nil {
				return v, err
			}
			v.obj = append(v.obj, jsonMember{key, val})
		}
		_, err := dec.Token()
		return v, err
	case json.Delim('['):
		v := jsonValue{kind: 'a'}
		for dec.More() {
			val, err := readValue(dec)
			if err != nil {
				return v, err
			}
			v.arr = append(v.arr, val)
		}
		_, err := dec.Token()
		return v, err
	}
	return jsonValue{kind: 'l', lit: tok}, nil
}

// compactWidth is the longest object or array written on one line.
const compactWidth = 64

// compact writes a small object or array of literals on one line:
// {"id": 1, "name": "row"}, ["bug", "ci"]. It reports false when v does not fit.
func compact(v jsonValue, mask, fold bool) (string, bool) {
	var b bytes.Buffer
	switch v.kind {
	case 'o':
		b.WriteByte('{')
		for i, m := range v.obj {
			if m.val.kind != 'l' {
				return "", false
			}
			if i > 0 {
				b.WriteString(", ")
			}
			writeLit(&b, m.key)
			b.WriteString(": ")
			writeValue(&b, m.val, 0, mask || secretKey.MatchString(m.key), fold)
		}
		b.WriteByte('}')
	case 'a':
		if fold && len(v.arr) > foldItems {
			return "", false
		}
		b.WriteByte('[')
		for i, item := range v.arr {
			if item.kind != 'l' {
				return "", false
			}
			if i > 0 {
				b.WriteString(", ")
			}
			writeValue(&b, item, 0, mask, fold)
		}
		b.WriteByte(']')
	default:
		return "", false
	}
	return b.String(), utf8.RuneCount(b.Bytes()) <= compactWidth
}

func writeValue(b *bytes.Buffer, v jsonValue, depth int, mask, fold bool) {
	indent := func(d int) { b.WriteString(strings.Repeat("  ", d)) }
	if depth > 0 {
		if line, ok := compact(v, mask, fold); ok {
			b.WriteString(line)
			return
		}
	}
	switch v.kind {
	case 'o':
		if len(v.obj) == 0 {
			b.WriteString("{}")
			return
		}
		if fold && depth >= foldDepth {
			fmt.Fprintf(b, "{… %s}", plural(len(v.obj), "key", "keys"))
			return
		}
		b.WriteString("{\n")
		for i, m := range v.obj {
			indent(depth + 1)
			writeLit(b, m.key)
			b.WriteString(": ")
			writeValue(b, m.val, depth+1, mask || secretKey.MatchString(m.key), fold)
			if i < len(v.obj)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		indent(depth)
		b.WriteByte('}')
	case 'a':
		if len(v.arr) == 0 {
			b.WriteString("[]")
			return
		}
		if fold && depth >= foldDepth {
			fmt.Fprintf(b, "[… %s]", plural(len(v.arr), "item", "items"))
			return
		}
		b.WriteString("[\n")
		shown := v.arr
		if fold && len(shown) > foldItems {
			shown = shown[:foldItems]
		}
		for i, item := range shown {
			indent(depth + 1)
			writeValue(b, item, depth+1, mask, fold)
			if i < len(v.arr)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		if rest := len(v.arr) - len(shown); rest > 0 {
			indent(depth + 1)
			fmt.Fprintf(b, "… %s\n", plural(rest, "more item", "more items"))
		}
		indent(depth)
		b.WriteByte(']')
	default:
		if mask && v.lit != nil {
			if s, ok := v.lit.(string); !ok || !isRedactionMark(s) {
				writeLit(b, redactedValue)
				return
			}
		}
		if s, ok := v.lit.(string); ok && fold {
			writeLit(b, foldText(s, foldString, foldKeep))
			return
		}
		writeLit(b, v.lit)
	}
}

// isRedactionMark reports whether s already is a redaction placeholder.
func isRedactionMark(s string) bool {
	s = strings.ToLower(s)
	return strings.Contains(s, "redacted") || strings.Trim(s, "*•") == ""
}

// writeLit writes v as JSON, with <, > and & as they are: the dialog is
// not HTML.
func writeLit(b *bytes.Buffer, v any) {
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(b, "%q", fmt.Sprint(v))
		return
	}
	b.WriteString(hiddentext.Reveal(strings.TrimSuffix(out.String(), "\n")))
}

// foldText keeps the first keep runes of s when it is longer than limit and
// says how much was left out.
func foldText(s string, limit, keep int) string {
	n := utf8.RuneCountInString(s)
	if n <= limit {
		return s
	}
	r := []rune(s)
	return fmt.Sprintf("%s… (%d more characters)", string(r[:keep]), n-keep)
}

// dialogDescription is what the approval dialog says under a tool's
// title: its description as one paragraph, without a first paragraph
// that only repeats the title (an OpenAPI operation's summary, "Create a
// label.", before "Creates a label for the specified repository..."), cut
// to n characters.
func dialogDescription(title, desc string, n int) string {
	paras := strings.Split(strings.ReplaceAll(strings.TrimSpace(desc), "\r\n", "\n"), "\n\n")
	same := func(a, b string) bool {
		trim := func(s string) string { return strings.TrimRight(strings.TrimSpace(s), ".") }
		return strings.EqualFold(trim(a), trim(b))
	}
	if len(paras) > 1 && title != "" && same(paras[0], title) {
		paras = paras[1:]
	}
	return truncate(markdownText(strings.Join(paras, "\n\n")), n)
}

// markdownText is what a person reads of a description written in
// Markdown, as OpenAPI descriptions and many tools' are: its words on one
// line, without the markup. A link keeps its text and loses its address
// (a dialog is no place to follow one), code keeps its code, HTML goes,
// and GitHub's alert markers ("> [!NOTE]") go with their quote marks.
func markdownText(md string) string {
	src := []byte(md)
	doc := goldmark.DefaultParser().Parse(text.NewReader(src))
	var b strings.Builder
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		switch n := n.(type) {
		case *ast.Text:
			if entering {
				v := n.Value(src)
				if !n.IsRaw() {
					v = util.UnescapePunctuations(util.ResolveNumericReferences(util.ResolveEntityNames(v)))
				}
				b.Write(v)
				if n.SoftLineBreak() || n.HardLineBreak() {
					b.WriteByte(' ')
				}
			}
		case *ast.String:
			if entering {
				b.Write(n.Value)
			}
		case *ast.AutoLink:
			if entering {
				b.Write(n.Label(src))
			}
			return ast.WalkSkipChildren, nil
		case *ast.RawHTML, *ast.HTMLBlock:
			return ast.WalkSkipChildren, nil
		case *ast.CodeBlock, *ast.FencedCodeBlock:
			if entering {
				lines := n.Lines()
				for i := range lines.Len() {
					seg := lines.At(i)
					b.Write(seg.Value(src))
					b.WriteByte(' ')
				}
			}
			return ast.WalkSkipChildren, nil
		}
		if !entering && n.Type() == ast.TypeBlock {
			b.WriteByte(' ')
		}
		return ast.WalkContinue, nil
	})
	words := strings.Fields(b.String())
	words = slices.DeleteFunc(words, func(w string) bool {
		switch w {
		case "[!NOTE]", "[!TIP]", "[!IMPORTANT]", "[!WARNING]", "[!CAUTION]":
			return true
		}
		return false
	})
	return strings.Join(words, " ")
}

// truncate shortens s to n runes with an ellipsis.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// policyModes are the choices of the policy form, in the order shown.
var policyModes = []string{PolicyAllow, PolicyAsk, PolicyDeny}

// policyPattern matches a tool address or a glob over addresses:
// "github.createIssue", "github.*", "*".
var policyPattern = regexp.MustCompile(`^(\*|[A-Za-z0-9_-]+(\.[A-Za-z0-9_*-]+)*(\.\*)?)$`)

// checkPolicy validates the policy form.
func checkPolicy(pattern, mode string) error {
	pattern = strings.TrimSpace(pattern)
	if pattern == "" {
		return fmt.Errorf("enter a tool address (github.createIssue) or a namespace (github.*)")
	}
	if !policyPattern.MatchString(pattern) {
		return fmt.Errorf("%q is not a tool address or a namespace glob like github.*", pattern)
	}
	for _, m := range policyModes {
		if m == mode {
			return nil
		}
	}
	return fmt.Errorf("pick allow, ask or deny")
}

// checkSecret validates the secret form.
func checkSecret(source, connection, secret string) error {
	switch {
	case source == "":
		return fmt.Errorf("pick a source")
	case strings.TrimSpace(connection) == "":
		return fmt.Errorf("name the connection (for example: default, work)")
	case secret == "":
		return fmt.Errorf("enter the secret")
	}
	return nil
}

// connectionsText lists a source's connections with their default marker and
// whether their secret is stored.
func connectionsText(cs []ConnectionStatus) string {
	if len(cs) == 0 {
		return "no connections"
	}
	parts := make([]string, len(cs))
	for i, c := range cs {
		s := connectionText(c.Name, c.Default)
		if !c.HasSecret {
			s += ", no secret stored"
		}
		parts[i] = s
	}
	return strings.Join(parts, "; ")
}

// prettyJSON indents JSON for reading and folds what foldPreview folds; other
// text is returned as is.
func prettyJSON(s string) string {
	if strings.TrimSpace(s) == "" {
		return "(none yet)"
	}
	return foldPreview(s)
}

// notificationText is the desktop notification for calls that started
// waiting.
func notificationText(fresh []Approval) (title, body string) {
	if len(fresh) == 1 {
		a := fresh[0]
		who := a.Client
		if who == "" {
			who = "an MCP client"
		}
		return "A tool call waits for you", fmt.Sprintf("%s, asked by %s (run %s). Open the approval window from the tray to allow or deny it.", a.Address, who, a.RunID)
	}
	addrs := make([]string, 0, len(fresh))
	for _, a := range fresh {
		addrs = append(addrs, a.Address)
	}
	return fmt.Sprintf("%d tool calls wait for you", len(fresh)), truncate(strings.Join(addrs, ", "), 160) + ". Open the approval window from the tray to decide."
}

// clientCommand is the command that connects an MCP client.
func clientCommand(client string) string { return "capabilities install " + client }

func orUnknown(s string) string {
	if s == "" {
		return "its source"
	}
	return s
}

// ruleOrigin says where a policy rule came from and where it holds.
func ruleOrigin(r PolicyRule) string {
	from := map[string]string{
		"config": "config.json", "cli": "set in a terminal", "window": "set in this window",
		"dialog": "remembered from a dialog", "client": "remembered from a client's form",
	}[r.From]
	if from == "" {
		from = r.From
	}
	if r.Scope != "" && r.Scope != "every connection" {
		from += ", " + r.Scope
	}
	if r.Warning != "" {
		from += " (" + r.Warning + ")"
	}
	return from
}

// allowTogetherLabel labels the button that allows n calls of a run at
// once: "Allow these 3 calls", or, outside a plan, "Allow these 3 calls
// once".
func allowTogetherLabel(n int, plan bool) string {
	label := "Allow " + plural(n, "call", "calls")
	if n > 1 {
		label = fmt.Sprintf("Allow these %d calls", n)
	}
	if !plan {
		label += " once"
	}
	return label
}

// gridLine is one line of the dialog's monospace views (arguments, plan,
// code, definition diff) with how it is drawn.
type gridLine struct {
	text  string
	style lineStyle
}

type lineStyle int

const (
	lineNormal  lineStyle = iota
	lineHead              // a call's head in a plan
	lineCurrent           // the shown call: its head, its line of code
	lineOther             // another waiting call of the run
	lineWarn              // a mark that needs attention: denied, stopped
	lineAdded             // a definition line the change added
	lineRemoved           // a definition line the change removed
	lineDim               // unchanged lines left out, a note
)

// textLines turns plain lines into grid lines.
func textLines(lines []string, style lineStyle) []gridLine {
	out := make([]gridLine, len(lines))
	for i, l := range lines {
		out[i] = gridLine{l, style}
	}
	return out
}

// gridText is the lines as one text (tests, and what a copy would take).
func gridText(lines []gridLine) string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l.text
	}
	return strings.Join(out, "\n")
}

// codeGrid is the run's code as grid lines, the calls marked.
func codeGrid(lines []codeLine) []gridLine {
	out := make([]gridLine, len(lines))
	for i, l := range lines {
		out[i] = gridLine{text: codeLineText(l)}
		switch l.mark {
		case markCall:
			out[i].style = lineCurrent
		case markOther:
			out[i].style = lineOther
		}
	}
	return out
}

// callMarks are what the dialog says of one call of a plan besides its
// arguments: "changed definition", "needs a secret first".
func callMarks(a Approval) []string {
	var marks []string
	if a.Change != "" || a.DefinitionIs != "" {
		marks = append(marks, "changed definition")
	}
	switch {
	case a.NeedsSecret && a.SignIn:
		marks = append(marks, "needs a sign-in first")
	case a.NeedsSecret || a.Plan != nil && a.Plan.Missing:
		marks = append(marks, "needs a secret first")
	}
	if a.Method != "" {
		marks = append(marks, requestText(a))
	}
	return marks
}

// lookAlikeLines warn, below a call's arguments, of each word in them or
// in the run's code whose letters mix Latin, Greek or Cyrillic ones,
// which look alike: "аlice42" with a Cyrillic а is not alice's account,
// and a variable "tо" with a Cyrillic о is not "to".
func lookAlikeLines(preview, code, pad string) []gridLine {
	var out []gridLine
	warned := map[string]bool{}
	for _, part := range []struct{ text, where string }{{preview, ""}, {code, " (in the run's code)"}} {
		for _, m := range hiddentext.MixedScripts(part.text) {
			if warned[m.Word] {
				continue // the code's string that is the argument
			}
			warned[m.Word] = true
			out = append(out, gridLine{pad + "! " + m.String() + part.where, lineWarn})
		}
	}
	return out
}

// planGrid lays out every call of a run's plan (or of a run's waiting
// calls) that waits in the queue, each with its arguments, in order: a head line per call ("▶ #2
// memory.addObservations · changed definition"; ▶ is the call shown),
// its arguments indented under it, then the calls policy denied, which
// never run.
func planGrid(items []queueItem, group []int, cur int) []gridLine {
	var out []gridLine
	var plan *PlanInfo
	for n, i := range group {
		a := items[i].a
		if a.Plan != nil {
			plan = a.Plan
		}
		if n > 0 {
			out = append(out, gridLine{})
		}
		marker, style := "  ", lineHead
		if i == cur {
			marker, style = "▶ ", lineCurrent
		}
		head := fmt.Sprintf("%s#%d %s", marker, a.Seq, a.Address)
		if marks := callMarks(a); len(marks) > 0 {
			head += " · " + strings.Join(marks, " · ")
		}
		out = append(out, gridLine{head, style})
		for _, l := range previewLines(a.Preview) {
			out = append(out, gridLine{"    " + l.text, l.style})
		}
		out = append(out, lookAlikeLines(a.Preview, "", "    ")...)
	}
	if plan != nil {
		for _, d := range plan.Denied {
			out = append(out, gridLine{}, gridLine{"✕ " + d + " · denied by policy, never runs", lineWarn})
		}
	}
	return out
}

// requestText is the request line of a's OpenAPI call (upstream.RequestLine), and
// whether its API deprecates the operation.
func requestText(a Approval) string {
	s := upstream.RequestLine(a.Method, a.URL, a.Preview)
	if a.Deprecated {
		s += " · deprecated by its API"
	}
	return s
}

// definitionLines is a tool definition (JSON) as lines to compare:
// pretty-printed with its key order kept, long lines cut as the
// arguments' are.
func definitionLines(def string) []string {
	if strings.TrimSpace(def) == "" {
		return nil
	}
	return fullPreview(def)
}

// diffContext is how many unchanged lines a definition diff keeps around
// each change.
const diffContext = 2

// definitionDiff compares the accepted and the current definition of a
// changed tool, line by line (catalog.DiffLines): removed lines are marked
// "- ", added ones "+ ", and runs of unchanged lines longer than the
// context around the changes are left out with a note. Without the
// accepted definition it says so and shows the current one.
//
// changeText heads it: "What changed: description changed".
func definitionDiff(was, is string) []gridLine {
	var out []gridLine
	a, b := definitionLines(was), definitionLines(is)
	if a == nil {
		if b != nil {
			out = append(out, gridLine{"The accepted definition was not kept; the current one:", lineDim})
		}
		for _, l := range b {
			out = append(out, gridLine{"  " + l, lineNormal})
		}
		return out
	}
	styles := map[catalog.DiffKind]lineStyle{catalog.DiffSame: lineNormal, catalog.DiffRemoved: lineRemoved, catalog.DiffAdded: lineAdded, catalog.DiffElided: lineDim}
	for _, l := range catalog.DiffLines(a, b, diffContext) {
		out = append(out, gridLine{l.Text, styles[l.Kind]})
	}
	return out
}

// secretFieldText says, above the secret field, what the secret fills and
// for which connection: "Fills header X-Api-Key of petstore. Saving
// creates its first connection, default."
func secretFieldText(a Approval) string {
	where := a.SecretWhere
	if where == "" {
		where = "the connection's secret"
	}
	s := fmt.Sprintf("Fills %s of %s", where, orUnknown(a.Source))
	if a.Connection == "" {
		return s + ". Saving creates its first connection, default."
	}
	return s + ", connection " + a.Connection + "."
}

// signInBoxText is what the sign-in box says: "petstore signs in with
// OAuth (connection work): there is no secret to paste."; with url set,
// a sign-in runs and the person can copy its address when no browser
// opened it.
func signInBoxText(a Approval, url string) string {
	s := fmt.Sprintf("%s signs in with OAuth (%s): there is no secret to paste.", orUnknown(a.Source), connectionWords(a.Connection))
	if !a.SignIn {
		s = fmt.Sprintf("Or sign in to %s with its OAuth page instead of pasting a token.", orUnknown(a.Source))
	}
	if url != "" {
		s += " The sign-in page opens in your browser; if none opened, copy this address into one."
	}
	return s
}

// changeText is the line above a definition diff.
func changeText(change string) string {
	if change == "" {
		return "The tool's definition changed since you accepted it."
	}
	return "What changed since you accepted it: " + change + "."
}

// firstStyle is the index of the first line of style s, or 0.
func firstStyle(lines []gridLine, s lineStyle) int {
	for i, l := range lines {
		if l.style == s {
			return i
		}
	}
	return 0
}

// needsClientText says why a sign-in needs a client registered beforehand.
const needsClientText = "the authorization server takes no registration capabilities can make itself."

// needsCredentialsText says why a REST API's sign-in needs its client.
const needsCredentialsText = "this API's client gets its token on its own (client credentials), with no browser: it needs the client's id and secret."

// needsClientWhy says why the sign-in that failed with err needs a
// client: its server takes no registration, the API's client gets its own
// tokens (ErrNeedsClientCredentials), or the client it has went to
// another server (ErrClientElsewhere, whose Reason names both).
func needsClientWhy(err error) string {
	var reason interface{ Reason() string }
	switch {
	case errors.Is(err, ErrClientElsewhere) && errors.As(err, &reason) && reason.Reason() != "":
		// Which servers, in the hub's words, without the command line
		// that takes the client: the form below does.
		return reason.Reason() + "."
	case errors.Is(err, ErrNeedsClientCredentials):
		return needsCredentialsText
	}
	return needsClientText
}

// credentialsFormText says what the client form of such an API takes.
const credentialsFormText = "Give the id and secret of the client registered for this API with its authorization server; the secret goes to the OS keychain."

// clientFormText says how to register a client for the form below it.
const clientFormText = "Register an app for capabilities with the authorization server, with the redirect URI http://127.0.0.1:PORT/callback (PORT: a free port of your choice), then give its client id, its secret if it has one, and that port."

// redirectPort reads a redirect URI's port as the person typed it.
func redirectPort(s string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	return n, err == nil && n > 0 && n < 65536
}
