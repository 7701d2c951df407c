//go:build !headless

package ui

// The decisions of the Sources, Runs and Clients tabs, as pure functions
// (table-tested in tabslogic_test.go); window.go and tabs.go only show
// their results.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/net/http/httpguts"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/policy"
	"capabilities.sh/capabilities/internal/hiddentext"
)

// The kinds of source the Add form offers.
const (
	addCommand = "Command"
	addURL     = "URL"
	addOpenAPI = "OpenAPI"
)

var addKinds = []string{addCommand, addURL, addOpenAPI}

// addPlaceholder is the hint in the Add form's target field for a kind.
func addPlaceholder(kind string) string {
	switch kind {
	case addURL:
		return "https://mcp.example.com/mcp"
	case addOpenAPI:
		return "~/apis/petstore.json or https://api.example.com/openapi.json"
	}
	return "npx -y @modelcontextprotocol/server-memory"
}

// namedValues reads NAME=value pairs, quoted as a shell quotes words
// (Authorization="Bearer x"); what is a name, valid says. nil when s is
// blank.
func namedValues(s, what string, valid func(string) bool) (map[string]string, error) {
	words, err := splitCommand(s)
	if err != nil || len(words) == 0 {
		return nil, err
	}
	m := map[string]string{}
	for _, w := range words {
		k, v, ok := strings.Cut(w, "=")
		if !ok || !valid(k) {
			return nil, fmt.Errorf("%q: write each %s as NAME=value, quoted when the value has blanks", w, what)
		}
		m[k] = v
	}
	return m, nil
}

// splitCommand splits a command line into words as a shell would for the
// simple cases: blanks separate words, single and double quotes group
// them, a backslash escapes the next character outside single quotes.
func splitCommand(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	escaped := false
	for _, r := range s {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
		case quote != 0 && r == quote:
			quote = 0
		case quote == '\'':
			cur.WriteRune(r)
		case r == '\\':
			escaped, inWord = true, true
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("the command has an unclosed %c quote", quote)
	}
	if escaped {
		return nil, errors.New("the command ends with a backslash")
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// sourceSpec checks the Add form and makes the source to add of it; base
// is the API base URL an OpenAPI source may take, extra a program's
// environment or an HTTP server's headers, NAME=value pairs quoted as a
// shell quotes words (each field shows for its kinds only).
func sourceSpec(name, kind, target, base, extra string) (SourceSpec, error) {
	name, target, base = strings.TrimSpace(name), strings.TrimSpace(target), strings.TrimSpace(base)
	if name == "" {
		return SourceSpec{}, errors.New("name the source (it becomes its namespace, e.g. memory or github)")
	}
	if strings.ContainsAny(name, " \t/\\") {
		return SourceSpec{}, fmt.Errorf("%q: a source name has no blanks or slashes", name)
	}
	spec := SourceSpec{Name: name}
	switch kind {
	case addCommand:
		words, err := splitCommand(target)
		if err != nil {
			return SourceSpec{}, err
		}
		if len(words) == 0 {
			return SourceSpec{}, errors.New("enter the command that starts the server, e.g. npx -y @modelcontextprotocol/server-memory")
		}
		// The hub starts it from a folder of its own: a relative path
		// would name another program.
		if c := words[0]; strings.ContainsAny(c, `/\`) && !filepath.IsAbs(c) {
			return SourceSpec{}, fmt.Errorf("%q: give the program's whole path (/home/you/bin/server) or a name on PATH (npx)", c)
		}
		// A secret among its arguments would sit in config.json and on
		// the program's command line (config.ArgSecret); the hub refuses
		// it, and the window says what to do in the window's words.
		if where := config.ArgSecret(words[1:]); where != "" {
			return SourceSpec{}, fmt.Errorf("the command's %s looks like a secret, and every user of this machine can read a program's arguments (ps): "+
				"give it to the program in its environment instead, in the field below (GITHUB_TOKEN=…), which the hub keeps in the keychain; "+
				"or, for a server over HTTP, add its URL with the secret as a header", where)
		}
		spec.Command = words
		if spec.Env, err = namedValues(extra, "environment variable", config.ValidEnvName); err != nil {
			return SourceSpec{}, err
		}
	case addURL:
		if !strings.HasPrefix(target, "http://") && !strings.HasPrefix(target, "https://") {
			return SourceSpec{}, errors.New("enter the server's http:// or https:// URL")
		}
		spec.URL = target
		var err error
		if spec.Headers, err = namedValues(extra, "header", httpguts.ValidHeaderFieldName); err != nil {
			return SourceSpec{}, err
		}
	case addOpenAPI:
		if target == "" {
			return SourceSpec{}, errors.New("enter the OpenAPI document's file or URL")
		}
		// The hub reads the file, from a folder of its own: a relative
		// path would name another file.
		if !strings.HasPrefix(target, "http://") && !strings.HasPrefix(target, "https://") && !strings.HasPrefix(target, "~/") && !filepath.IsAbs(target) {
			return SourceSpec{}, fmt.Errorf("%q: give the document's whole path (/home/you/api.json or ~/api.json) or its URL", target)
		}
		spec.OpenAPI = target
		if base != "" && !strings.HasPrefix(base, "http://") && !strings.HasPrefix(base, "https://") {
			return SourceSpec{}, fmt.Errorf("%q: the API's base URL starts with http:// or https://", base)
		}
		spec.BaseURL = base
	default:
		return SourceSpec{}, errors.New("pick what the source is: a command, a URL or an OpenAPI document")
	}
	return spec, nil
}

// sourceButtons says what a source's row offers: the label of its
// enable/disable button, and whether Restart applies (not to a disabled
// source).
func sourceButtons(s SourceStatus) (toggle string, canRestart bool) {
	if s.Disabled || s.State == SourceDisabled {
		return "Enable", false
	}
	return "Disable", true
}

// sourceSummary is what a source's state line leaves out: that it is
// disabled in config.json, or its whole last error (the state line cuts
// it); "" when there is nothing to add.
func sourceSummary(s SourceStatus) string {
	switch {
	case s.Disabled:
		return "Disabled in config.json: its tools are out of the catalog until it is enabled."
	case s.Error != "":
		return "Last error: " + s.Error
	case s.Waiting > 0:
		return fmt.Sprintf("%d of %d operations wait for credentials; they need %s", s.Waiting, s.Tools, s.Need)
	}
	return ""
}

// apiText says where an OpenAPI source's calls go.
func apiText(s SourceStatus) string {
	switch {
	case s.API == "":
		return "API: none yet: its document names no server it can use; set its base URL."
	case s.BaseURL != "":
		return "API: " + s.API + " (its base URL)"
	}
	return "API: " + s.API + " (its document's server)"
}

// stderrText is the tail of a source's stderr as the window shows it.
func stderrText(lines []string) string {
	if len(lines) == 0 {
		return "(nothing on stderr)"
	}
	return strings.Join(lines, "\n")
}

// toolAction is what a tool's button does: turn it off (a deny rule for
// its address) or, when policy denies it, turn it back on (remove the
// rule).
func toolAction(t SourceTool) (label string, turnOff bool) {
	if t.Mode == PolicyDeny {
		return "Turn on", false
	}
	return "Turn off", true
}

// toolLine is a tool in a source's list.
func toolLine(t SourceTool) string {
	s := t.Address
	if t.Title != "" {
		s += " — " + t.Title
	}
	if t.Deprecated {
		s += " (deprecated)"
	}
	return hiddentext.Show(s)
}

// callDecisionText says who let a call through, and how, in the words
// `capabilities hub runs RUNID` uses.
func callDecisionText(c CallSummary) string {
	return policy.DecisionWords(c.State, c.Decision, c.Always, c.Actor, c.Channel)
}

// callState says how a call ended.
func callState(c CallSummary) string {
	switch c.State {
	case "ok":
		return "ok"
	case "read":
		return "ok (a handle's page)"
	case "error":
		return "failed"
	case "issued":
		return "sent, no answer kept"
	case "pending":
		return "waiting"
	case "planned":
		return "planned, not sent yet"
	}
	if c.OK {
		return "ok"
	}
	return "failed"
}

// callBlock is one call of a run in the Calls view: its head line, the
// decision, the arguments and the result, each on lines of their own so
// nothing is cut.
func callBlock(c CallSummary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#%d  %s  %s  (%s)", c.Seq, c.Address, callState(c), c.Duration.Round(time.Millisecond))
	if c.Connection != "" {
		fmt.Fprintf(&b, "  on connection %s", c.Connection)
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "  decision: %s\n", callDecisionText(c))
	if c.Reason != "" {
		fmt.Fprintf(&b, "  asked because: %s\n", c.Reason)
	}
	b.WriteString(argsText(c.Args, c.ArgsCut))
	res := c.Result
	if res == "" && c.Error != "" {
		res = c.Error
	}
	if res != "" {
		label := "result"
		if c.State == "error" || (!c.OK && c.State == "") {
			label = "error"
		} else if c.State == "read" {
			label = "handle"
		}
		fmt.Fprintf(&b, "  %s:\n", label)
		b.WriteString(indent(wholeJSON(res), "    "))
		b.WriteString("\n")
		if c.Cut {
			b.WriteString("    … (cut here; the whole result is in the run's envelope or handle)\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// argsLineMax is the longest compact arguments shown on their label's
// line; longer ones are indented below it.
const argsLineMax = 96

// argsText is a call's arguments in the Calls view, its lines ending in a
// newline: compact on the label's line when they are short, else indented
// below it (arguments the hub cut too, though they end mid-value), with a
// line saying where they were cut; and "not recorded" for a call
// journaled without them.
func argsText(args string, cut bool) string {
	args = strings.TrimSpace(args)
	if args == "" {
		return "  arguments not recorded\n"
	}
	var compact bytes.Buffer
	if !cut && json.Compact(&compact, []byte(args)) == nil && compact.Len() <= argsLineMax {
		return "  arguments: " + compact.String() + "\n"
	}
	text := wholeJSON(args)
	if cut {
		text = indentJSONPrefix(args)
	}
	out := "  arguments:\n" + indent(text, "    ") + "\n"
	if cut {
		out += "    … (cut here; the journal keeps the first 4 KB of a call's arguments)\n"
	}
	return out
}

// indentJSONPrefix indents the start of a JSON text, cut anywhere, as
// json.Indent indents a whole one: two spaces a level, a line per member
// and element, strings as they are.
func indentJSONPrefix(s string) string {
	var b strings.Builder
	depth := 0
	newline := func() {
		b.WriteByte('\n')
		b.WriteString(strings.Repeat("  ", depth))
	}
	inString, escaped := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if inString {
			b.WriteByte(c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
			b.WriteByte(c)
		case '{', '[':
			b.WriteByte(c)
			if i+1 < len(s) && (s[i+1] == '}' || s[i+1] == ']') {
				b.WriteByte(s[i+1])
				i++
				continue
			}
			depth++
			if i+1 < len(s) {
				newline()
			}
		case '}', ']':
			depth = max(depth-1, 0)
			newline()
			b.WriteByte(c)
		case ',':
			b.WriteByte(c)
			newline()
		case ':':
			b.WriteString(": ")
		case ' ', '\t', '\n', '\r':
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// callsText is the Calls view of a run.
func callsText(calls []CallSummary) string {
	if len(calls) == 0 {
		return "(no tool calls)"
	}
	blocks := make([]string, len(calls))
	for i, c := range calls {
		blocks[i] = callBlock(c)
	}
	return strings.Join(blocks, "\n\n")
}

// wholeJSON indents JSON for reading without folding anything; other text
// is returned as is.
func wholeJSON(s string) string {
	var b bytes.Buffer
	if err := json.Indent(&b, []byte(strings.TrimSpace(s)), "", "  "); err != nil {
		return s
	}
	return b.String()
}

func indent(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n")
}

// runIndex is where the run shown is in a new list of runs, -1 when it is
// gone, so the selection stays on it across refreshes.
func runIndex(runs []RunSummary, id string) int {
	if id == "" {
		return -1
	}
	for i, r := range runs {
		if r.ID == id {
			return i
		}
	}
	return -1
}

// runTitle and runSubtitle are a run's two lines in the list: when and
// how it ended, then who ran it and its calls.
func runTitle(r RunSummary, now time.Time) string {
	return fmt.Sprintf("%s  %s  %s", clock(r.Started, now), r.Status, r.ID)
}

func runSubtitle(r RunSummary) string {
	who := r.Client
	if who == "" {
		who = "unknown client"
	}
	return fmt.Sprintf("%s, %s", who, plural(len(r.Calls), "call", "calls"))
}

// wholeHub is the profile picker's choice for no profile.
const wholeHub = "(every source)"

// profileChoices are the Clients tab's profile picker's options.
func profileChoices(profiles []string) []string {
	return append([]string{wholeHub}, profiles...)
}

// profileOf is the profile a picker choice selects ("" for the whole hub).
func profileOf(choice string) string {
	if choice == wholeHub {
		return ""
	}
	return choice
}

// installCommand is the command the Clients tab shows for a client and a
// profile.
func installCommand(client, profile string) string {
	if profile == "" {
		return clientCommand(client)
	}
	return clientCommand(client) + " --profile " + profile
}

// connectedLine is one connected client.
func connectedLine(c ConnectedClient, now time.Time) string {
	name := strings.TrimSpace(c.Name + " " + c.Version)
	if name == "" {
		name = "unknown client"
	}
	profile := "every source"
	if c.Profile != "" {
		profile = "profile " + c.Profile
	}
	mode := c.Mode
	if mode == "" {
		mode = "code"
	}
	return fmt.Sprintf("%s — %s, %s mode, since %s", name, profile, mode, clock(c.Since, now))
}

// connectedText is the Clients tab's list of connected clients.
func connectedText(cs []ConnectedClient, known bool, now time.Time) string {
	if !known {
		return "This window cannot see the hub's clients."
	}
	if len(cs) == 0 {
		return "No MCP client is connected now."
	}
	lines := make([]string, len(cs))
	for i, c := range cs {
		lines[i] = connectedLine(c, now)
	}
	return strings.Join(lines, "\n")
}

// changesHint heads the changed tool definitions: how many, what follows
// changesHint says what the changes listed are and what they hold back.
func changesHint(changes []ToolChange) string {
	tools, skills := changedKinds(changes)
	switch {
	case tools+skills == 0:
		return "No tool or skill changed since it was accepted."
	case skills == 0 && tools == 1:
		return "1 tool changed since it was accepted: its calls ask until you accept the new definition. What changed is below."
	case tools == 0 && skills == 1:
		return "1 skill changed since it was accepted: the model is told so until you accept its new entry. What changed is below."
	}
	held := "their calls ask"
	switch {
	case tools == 0:
		held = "the model is told so"
	case skills > 0:
		held = "the tools' calls ask and the model is told of the skills"
	}
	return changedWhat(tools, skills) + " changed since they were accepted: " + held + " until you accept the new definitions. Pick one to see what changed."
}

// heldUntilAccepted says what a change of address holds back.
func heldUntilAccepted(address string) string {
	if strings.HasPrefix(address, "skill:") {
		return " The model is told it changed until you accept it."
	}
	return " Its calls ask until you accept it."
}

// changedKinds counts the tools and the sources' skills among changes.
func changedKinds(changes []ToolChange) (tools, skills int) {
	for _, c := range changes {
		if strings.HasPrefix(c.Address, "skill:") {
			skills++
		} else {
			tools++
		}
	}
	return tools, skills
}

// changedWhat says "2 tools", "1 skill" or "2 tools and 1 skill".
func changedWhat(tools, skills int) string {
	var parts []string
	if tools > 0 {
		parts = append(parts, plural(tools, "tool", "tools"))
	}
	if skills > 0 {
		parts = append(parts, plural(skills, "skill", "skills"))
	}
	return strings.Join(parts, " and ")
}

// changesMenuLabel labels the tray item that opens the changed tool
// definitions (and skills' entries).
func changesMenuLabel(changes []ToolChange) string {
	if tools, skills := changedKinds(changes); skills == 0 {
		return plural(tools, "tool definition", "tool definitions") + " changed…"
	}
	return changedWhat(changedKinds(changes)) + " changed…"
}

// acceptAllLabel labels the button that accepts every changed definition
// listed; its first tap asks to confirm.
func acceptAllLabel(n int, confirm bool) string {
	if confirm {
		return fmt.Sprintf("Accept all %d without looking at each?", n)
	}
	return fmt.Sprintf("Accept all %d", n)
}

// changeLine is a changed tool in the list: its address and what changed.
func changeLine(c ToolChange) string {
	if c.Summary == "" {
		return c.Address
	}
	return c.Address + " — " + c.Summary
}

// filterTools keeps the tools whose address, title or policy mode has
// every word of query, in any case.
func filterTools(tools []SourceTool, query string) []SourceTool {
	words := strings.Fields(strings.ToLower(query))
	if len(words) == 0 {
		return tools
	}
	var out []SourceTool
	for _, t := range tools {
		text := strings.ToLower(toolLine(t) + " " + t.Mode)
		if !slices.ContainsFunc(words, func(w string) bool { return !strings.Contains(text, w) }) {
			out = append(out, t)
		}
	}
	return out
}

// toolsShownText says how many tools a filter kept.
func toolsShownText(shown, all int, query string) string {
	switch {
	case strings.TrimSpace(query) == "":
		return plural(all, "tool", "tools")
	case shown == 0:
		return fmt.Sprintf("No tool of %d matches %q.", all, strings.TrimSpace(query))
	}
	return fmt.Sprintf("%d of %d match", shown, all)
}
