package clients

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tailscale/hujson"

	"capabilities.sh/capabilities/hub/config"
)

// ClientConfig is where an MCP client keeps its server list.
type ClientConfig struct {
	Client string // claude-desktop | claude-code | cursor | vscode
	Path   string
	Key    string // the object holding servers: "mcpServers" or "servers"
}

// Known are the MCP clients `capabilities install` knows.
var Known = []string{"claude-code", "claude-desktop", "cursor", "vscode"}

// ClientConfigs returns the config files of the known clients for a user
// with home folder home, OS config folder configDir (os.UserConfigDir) on
// goos.
func ClientConfigs(home, configDir, goos string) []ClientConfig {
	claudeDesktop := filepath.Join(configDir, "Claude", "claude_desktop_config.json")
	vscode := filepath.Join(configDir, "Code", "User", "mcp.json")
	return []ClientConfig{
		{Client: "claude-code", Path: filepath.Join(home, ".claude.json"), Key: "mcpServers"},
		{Client: "claude-desktop", Path: claudeDesktop, Key: "mcpServers"},
		{Client: "cursor", Path: filepath.Join(home, ".cursor", "mcp.json"), Key: "mcpServers"},
		{Client: "vscode", Path: vscode, Key: "servers"},
	}
}

// ClientConfigFor returns the config file of one client.
func ClientConfigFor(client, home, configDir, goos string) (ClientConfig, error) {
	for _, c := range ClientConfigs(home, configDir, goos) {
		if c.Client == client {
			return c, nil
		}
	}
	return ClientConfig{}, fmt.Errorf("unknown client %q; known: claude-code, claude-desktop, cursor, vscode", client)
}

// ShimEntry is the server entry a client needs to reach the hub: the shim
// command, with CAPABILITIES_HOME when it is not the default.
func ShimEntry(client, exe, home string) map[string]any {
	e := map[string]any{"command": exe, "args": []string{"mcp"}}
	if client == "vscode" {
		e["type"] = "stdio"
	}
	if home != "" {
		e["env"] = map[string]string{"CAPABILITIES_HOME": home}
	}
	return e
}

// EntryName is the name of the client's server entry for profile: the
// profile's own, "capabilities-NAME", so a client can hold one entry per
// profile beside the plain "capabilities"; "" is the plain one.
func EntryName(profile string) string {
	if profile == "" {
		return "capabilities"
	}
	return "capabilities-" + profile
}

// ProfileShimEntry is ShimEntry for a client that selects profile: the
// shim command runs with --profile NAME.
func ProfileShimEntry(client, exe, home, profile string) map[string]any {
	e := ShimEntry(client, exe, home)
	if profile != "" {
		e["args"] = []string{"mcp", "--profile", profile}
	}
	return e
}

// HTTPEntry is the server entry for a client that reaches the hub's
// streamable HTTP endpoint (`capabilities hub --http`) at url, carrying
// the endpoint's bearer token. Claude Desktop takes remote servers only as
// connectors, not in its config file.
func HTTPEntry(client, url, token string) (map[string]any, error) {
	if client == "claude-desktop" {
		return nil, errors.New("Claude Desktop adds remote servers as connectors in its settings, not in its config file; connect it over stdio (install claude-desktop without --http)")
	}
	e := map[string]any{"url": url, "headers": map[string]string{"Authorization": "Bearer " + token}}
	if client != "cursor" {
		e["type"] = "http"
	}
	return e, nil
}

// InstallResult says what Install, Uninstall and MoveOut did.
type InstallResult struct {
	Path    string
	Backup  string // "" when the file did not exist or was not changed
	Changed bool
}

// Install adds (or updates) the "capabilities" server entry in a client's
// config file, keeping every other key, the order of keys, the layout and
// the comments (VS Code's mcp.json is JSON with comments). An existing file
// is copied to a timestamped backup first; a file that is not a JSON object
// is left alone with an error.
func Install(cc ClientConfig, entry map[string]any, now time.Time) (InstallResult, error) {
	return InstallNamed(cc, "capabilities", entry, now)
}

// InstallNamed is Install of the server entry called name (EntryName).
func InstallNamed(cc ClientConfig, name string, entry map[string]any, now time.Time) (InstallResult, error) {
	return editClientFile(cc, now, func(servers *hujson.Object, indent string) (bool, error) {
		return setMember(servers, indent, name, entry)
	})
}

// Uninstall removes the capabilities server entries from a client's config
// file (the plain "capabilities" and each profile's, see ours) and keeps
// the rest of it, after a backup. A file without them is left as it is
// (Changed false).
func Uninstall(cc ClientConfig, now time.Time) (InstallResult, error) {
	if _, err := os.Stat(cc.Path); errors.Is(err, os.ErrNotExist) {
		return InstallResult{Path: cc.Path}, nil
	}
	return editClientFile(cc, now, func(servers *hujson.Object, indent string) (bool, error) {
		changed := false
		for _, name := range ours(servers) {
			if removeMember(servers, name) {
				changed = true
			}
		}
		return changed, nil
	})
}

// MoveOut takes servers out of a client's config file, now that capabilities
// runs them: their entries (with any secret written in them) are removed and
// the "capabilities" entry is set, in one write after one backup. Names the
// file does not define are skipped. moved are the secrets the servers'
// entries held, by the keychain key they moved to: the backup holds each
// as a note naming that key, never its value.
func MoveOut(cc ClientConfig, names []string, moved map[string]string, entry map[string]any, now time.Time) (InstallResult, error) {
	scrub := map[string]string{}
	for key, value := range moved {
		scrub[value] = "[moved to the keychain as " + key + "]"
	}
	return editClientFileScrub(cc, now, scrub, func(servers *hujson.Object, indent string) (bool, error) {
		changed := false
		for _, n := range names {
			if n != "capabilities" && removeMember(servers, n) {
				changed = true
			}
		}
		if !changed {
			return false, nil
		}
		_, err := setMember(servers, indent, "capabilities", entry)
		return true, err
	})
}

// Repoint makes the capabilities entries of a client's file (the plain one
// and each profile's) run exe when they run another binary (a clone's
// bin/capabilities, an older install), keeping their arguments and
// environment. Files without them, and entries without a command (over
// HTTP), are left as they are.
func Repoint(cc ClientConfig, exe string, now time.Time) (InstallResult, error) {
	if _, err := os.Stat(cc.Path); errors.Is(err, os.ErrNotExist) {
		return InstallResult{Path: cc.Path}, nil
	}
	return editClientFile(cc, now, func(servers *hujson.Object, indent string) (bool, error) {
		changed := false
		for _, name := range ours(servers) {
			e := entryOf(servers, name)
			if cmd, _ := e["command"].(string); cmd == "" || cmd == exe {
				continue
			}
			e["command"] = exe
			if _, err := setMember(servers, indent, name, e); err != nil {
				return false, err
			}
			changed = true
		}
		return changed, nil
	})
}

// ReplaceHTTPToken makes the capabilities entries of a client's file (the
// plain one and each profile's) that carry the HTTP endpoint's bearer token
// old carry token instead, after a backup (which holds neither). Files
// without them, and entries with another token (another home's hub) or
// none, are left as they are.
func ReplaceHTTPToken(cc ClientConfig, old, token string, now time.Time) (InstallResult, error) {
	if old == "" {
		return InstallResult{Path: cc.Path}, errors.New("replacing the http token: no old token")
	}
	if _, err := os.Stat(cc.Path); errors.Is(err, os.ErrNotExist) {
		return InstallResult{Path: cc.Path}, nil
	}
	return editClientFile(cc, now, func(servers *hujson.Object, indent string) (bool, error) {
		changed := false
		for _, name := range ours(servers) {
			e := entryOf(servers, name)
			if bearerOf(e) != old {
				continue
			}
			h := e["headers"].(map[string]any)
			for k, v := range h {
				if s, _ := v.(string); strings.EqualFold(k, "Authorization") {
					if tok, ok := cutBearer(s); ok && tok == old {
						h[k] = "Bearer " + token
					}
				}
			}
			if _, err := setMember(servers, indent, name, e); err != nil {
				return false, err
			}
			changed = true
		}
		return changed, nil
	})
}

// HasEntry reports whether a client's file has a capabilities entry (the
// plain one or a profile's). The
// file is read as its client reads it: JSON with comments and trailing
// commas, whatever other keys it holds beside the servers (Claude Code's
// numStartups and projects, VS Code's inputs).
func HasEntry(cc ClientConfig) bool {
	data, err := os.ReadFile(cc.Path)
	if err != nil {
		return false
	}
	root, err := hujson.Parse(data)
	if err != nil {
		return false
	}
	top, ok := root.Value.(*hujson.Object)
	if !ok {
		return false
	}
	m := findMember(top, cc.Key)
	if m == nil {
		return false
	}
	servers, ok := m.Value.Value.(*hujson.Object)
	return ok && len(ours(servers)) > 0
}

// editClientFile parses cc's file (JSON with comments allowed), hands edit
// the object of servers under cc.Key (created when missing) and the indent
// of its members' parent, and writes the result back after a backup when
// edit changed something.
//
// Neither the file nor its backup lets a credential of ours lie around: a
// file whose capabilities entry carries headers (the HTTP endpoint's bearer
// token) is written 0600 whatever its mode was, the backup is 0600, and the
// bearer token of the capabilities entry the file held is replaced in the
// backup by a note.
func editClientFile(cc ClientConfig, now time.Time, edit func(servers *hujson.Object, indent string) (bool, error)) (InstallResult, error) {
	return editClientFileScrub(cc, now, nil, edit)
}

// hubTokenNote replaces the HTTP endpoint's token in a backup.
const hubTokenNote = "[the hub's HTTP token: capabilities hub token]"

// editClientFileScrub is editClientFile whose backup also holds, in place of
// each key of scrub, its value: a note saying where the secret went.
func editClientFileScrub(cc ClientConfig, now time.Time, scrub map[string]string, edit func(servers *hujson.Object, indent string) (bool, error)) (InstallResult, error) {
	res := InstallResult{Path: cc.Path}
	data, err := os.ReadFile(cc.Path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		data = nil
	case err != nil:
		return res, fmt.Errorf("reading %s: %w", cc.Path, err)
	}
	src := data
	if len(bytes.TrimSpace(src)) == 0 {
		src = []byte("{}")
	}
	root, err := hujson.Parse(src)
	if err != nil {
		return res, &config.Error{File: cc.Path, Problem: "not a JSON object (" + err.Error() + "); left unchanged"}
	}
	top, ok := root.Value.(*hujson.Object)
	if !ok {
		return res, &config.Error{File: cc.Path, Problem: "not a JSON object (the top level must be an object); left unchanged"}
	}
	var servers *hujson.Object
	if m := findMember(top, cc.Key); m != nil {
		if servers, ok = m.Value.Value.(*hujson.Object); !ok {
			return res, &config.Error{File: cc.Path, Key: cc.Key, Problem: "not an object; left unchanged"}
		}
	} else {
		if _, err := setMember(top, "", cc.Key, map[string]any{}); err != nil {
			return res, err
		}
		servers = findMember(top, cc.Key).Value.Value.(*hujson.Object)
	}
	for _, tok := range entryBearers(servers) {
		scrub = maps.Clone(scrub)
		if scrub == nil {
			scrub = map[string]string{}
		}
		scrub[tok] = hubTokenNote
	}
	changed, err := edit(servers, memberIndent(top, ""))
	if err != nil || !changed {
		return res, err
	}
	if len(servers.Members) == 0 && strings.TrimSpace(string(servers.AfterExtra)) == "" {
		servers.AfterExtra = nil // "{}" rather than an empty object over two lines
	}
	out := root.Pack()
	if !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, '\n')
	}
	if data != nil {
		res.Backup = cc.Path + ".bak-" + now.UTC().Format("20060102T150405Z")
		if err := config.WriteFileAtomic(res.Backup, scrubBackup(data, scrub), 0o600); err != nil {
			return res, fmt.Errorf("backing up %s: %w", cc.Path, err)
		}
	}
	perm := os.FileMode(0o600)
	if fi, err := os.Stat(cc.Path); err == nil && !entryHasHeaders(servers) {
		perm = fi.Mode().Perm()
	}
	if err := config.WriteFileAtomic(cc.Path, out, perm); err != nil {
		return res, err
	}
	res.Changed = true
	return res, nil
}

// ours lists the names of the capabilities entries of servers: the plain
// "capabilities", and each profile's "capabilities-NAME" (EntryName) that
// selects profile NAME, by its command's arguments (mcp --profile NAME) or
// its URL's path (/mcp/p/NAME); a server of the person's own that only
// shares the name's prefix is not ours.
func ours(servers *hujson.Object) []string {
	var names []string
	for _, m := range servers.Members {
		lit, ok := m.Name.Value.(hujson.Literal)
		if !ok {
			continue
		}
		name := lit.String()
		if name == "capabilities" {
			names = append(names, name)
			continue
		}
		e := entryOf(servers, name)
		var args []string
		argv, _ := e["args"].([]any)
		for _, a := range argv {
			if a, ok := a.(string); ok {
				args = append(args, a)
			}
		}
		rawURL, _ := e["url"].(string)
		if isProfileEntry(name, args, rawURL) {
			names = append(names, name)
		}
	}
	return names
}

// isProfileEntry reports whether a client's server entry called name, with
// command arguments args or URL rawURL, is a profile's capabilities entry:
// its name is "capabilities-NAME" and its arguments hold --profile NAME or
// its URL's path is /mcp/p/NAME.
func isProfileEntry(name string, args []string, rawURL string) bool {
	profile, ok := strings.CutPrefix(name, "capabilities-")
	if !ok || profile == "" {
		return false
	}
	for i := 0; i+1 < len(args); i++ {
		if args[i] == "--profile" && args[i+1] == profile {
			return true
		}
	}
	if rawURL != "" {
		if u, err := url.Parse(rawURL); err == nil && strings.TrimSuffix(u.Path, "/") == "/mcp/p/"+profile {
			return true
		}
	}
	return false
}

// entryOf decodes the entry called name of servers, or returns nil when
// there is none or it is not an object.
func entryOf(servers *hujson.Object, name string) map[string]any {
	m := findMember(servers, name)
	if m == nil {
		return nil
	}
	std, err := config.StandardJSON(m.Value.Pack())
	if err != nil {
		return nil
	}
	var e map[string]any
	if json.Unmarshal(std, &e) != nil {
		return nil
	}
	return e
}

// entryHasHeaders reports whether a capabilities entry of servers carries
// headers: a credential (the HTTP endpoint's bearer token).
func entryHasHeaders(servers *hujson.Object) bool {
	for _, name := range ours(servers) {
		if h, _ := entryOf(servers, name)["headers"].(map[string]any); len(h) > 0 {
			return true
		}
	}
	return false
}

// entryBearers are the bearer tokens the capabilities entries of servers
// carry.
func entryBearers(servers *hujson.Object) []string {
	var toks []string
	for _, name := range ours(servers) {
		if tok := bearerOf(entryOf(servers, name)); tok != "" {
			toks = append(toks, tok)
		}
	}
	return toks
}

// bearerOf is the bearer token in entry e's Authorization header, or "".
func bearerOf(e map[string]any) string {
	h, _ := e["headers"].(map[string]any)
	for k, v := range h {
		s, _ := v.(string)
		if tok, ok := cutBearer(s); ok && strings.EqualFold(k, "Authorization") {
			return tok
		}
	}
	return ""
}

// cutBearer returns the token of an Authorization value "Bearer TOKEN".
func cutBearer(v string) (string, bool) {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(v), " ")
	tok = strings.TrimSpace(tok)
	return tok, ok && strings.EqualFold(scheme, "Bearer") && tok != ""
}

// scrubBackup returns the JSON (with comments) data with every key of
// scrub replaced by its value, a note: in every string, decoded first so an
// escaped secret is found too, and in the comments. A string that is a
// secret is replaced whatever its length; shorter secrets than 8 bytes are
// not looked for inside longer text, where they would take ordinary words
// with them. Data that does not parse is scrubbed as plain text.
func scrubBackup(data []byte, scrub map[string]string) []byte {
	if len(scrub) == 0 {
		return data
	}
	secrets := slices.SortedFunc(maps.Keys(scrub), func(a, b string) int { return len(b) - len(a) }) // longest first
	inText := func(s string) string {
		for _, sec := range secrets {
			if len(sec) >= 8 {
				s = strings.ReplaceAll(s, sec, commentSafe(scrub[sec]))
			}
		}
		return s
	}
	root, err := hujson.Parse(data)
	if err != nil {
		return []byte(inText(string(data)))
	}
	extra := func(e *hujson.Extra) {
		if len(*e) > 0 {
			*e = hujson.Extra(inText(string(*e)))
		}
	}
	for v := range root.All() {
		extra(&v.BeforeExtra)
		extra(&v.AfterExtra)
		switch x := v.Value.(type) {
		case *hujson.Object:
			extra(&x.AfterExtra)
		case *hujson.Array:
			extra(&x.AfterExtra)
		case hujson.Literal:
			if x.Kind() != '"' {
				continue
			}
			s := x.String()
			clean := inText(s)
			if note, ok := scrub[s]; ok {
				clean = note
			}
			if clean != s {
				v.Value = hujson.String(clean)
			}
		}
	}
	return root.Pack()
}

// commentSafe keeps a note from ending a comment it lands in.
func commentSafe(note string) string {
	return strings.NewReplacer("*/", "* /", "\n", " ", "\r", " ").Replace(note)
}

// findMember returns the member of obj named name, or nil.
func findMember(obj *hujson.Object, name string) *hujson.ObjectMember {
	for i := range obj.Members {
		if lit, ok := obj.Members[i].Name.Value.(hujson.Literal); ok && lit.String() == name {
			return &obj.Members[i]
		}
	}
	return nil
}

// removeMember removes the member named name from obj, with the comments
// before it; it reports whether there was one.
func removeMember(obj *hujson.Object, name string) bool {
	for i := range obj.Members {
		if lit, ok := obj.Members[i].Name.Value.(hujson.Literal); ok && lit.String() == name {
			last := i == len(obj.Members)-1
			trailing := obj.Members[i].Value.AfterExtra
			obj.Members = append(obj.Members[:i], obj.Members[i+1:]...)
			if last && len(obj.Members) > 0 {
				// The new last member takes the file's trailing comma style.
				prev := &obj.Members[len(obj.Members)-1].Value
				switch {
				case trailing == nil:
					prev.AfterExtra = nil
				case prev.AfterExtra == nil:
					prev.AfterExtra = hujson.Extra{}
				}
			}
			return true
		}
	}
	return false
}

// setMember sets obj's member name to value (any JSON-encodable value),
// replacing the value of an existing member in place or appending a new one
// indented like its siblings; parentIndent is the indent of obj's own line.
// It reports whether anything changed.
func setMember(obj *hujson.Object, parentIndent, name string, value any) (bool, error) {
	ind := memberIndent(obj, parentIndent)
	unit := strings.TrimPrefix(ind, parentIndent)
	if unit == "" || strings.Trim(unit, " \t") != "" {
		unit = "  "
	}
	raw, err := json.MarshalIndent(value, ind, unit)
	if err != nil {
		return false, err
	}
	v, err := hujson.Parse(raw)
	if err != nil {
		return false, err
	}
	v.BeforeExtra = hujson.Extra(" ")
	if m := findMember(obj, name); m != nil {
		if jsonEqual(m.Value.Pack(), raw) {
			return false, nil
		}
		m.Value.Value = v.Value
		return true, nil
	}
	key, _ := json.Marshal(name)
	if n := len(obj.Members); n > 0 && obj.Members[n-1].Value.AfterExtra != nil {
		// The file ends its members with a comma (JSONC): so does the new
		// last one, and the old last one keeps its comma after a removal.
		v.AfterExtra = hujson.Extra{}
	}
	obj.Members = append(obj.Members, hujson.ObjectMember{
		Name:  hujson.Value{BeforeExtra: hujson.Extra("\n" + ind), Value: hujson.Literal(key)},
		Value: v,
	})
	if !bytes.Contains(obj.AfterExtra, []byte("\n")) {
		obj.AfterExtra = append(hujson.Extra("\n"+parentIndent), bytes.TrimLeft(obj.AfterExtra, " \t")...)
	}
	return true, nil
}

// memberIndent is the indent of obj's members: that of the first member on
// a line of its own, else parentIndent plus two spaces.
func memberIndent(obj *hujson.Object, parentIndent string) string {
	for _, m := range obj.Members {
		b := m.Name.BeforeExtra
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 && strings.Trim(string(b[i+1:]), " \t") == "" {
			return string(b[i+1:])
		}
	}
	return parentIndent + "  "
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	a, err := config.StandardJSON(a)
	if err != nil || json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ca, _ := json.Marshal(x)
	cb, _ := json.Marshal(y)
	return bytes.Equal(ca, cb)
}
