package policy

import (
	"cmp"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"time"

	"capabilities.sh/capabilities/hub/catalog"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/naming"
	"capabilities.sh/capabilities/internal/editdist"
)

// Channels a decision arrives through, as the audit records them.
const (
	ChannelDialog = "dialog" // the native approval dialog
	ChannelClient = "client" // the MCP client's own form (input request)
	ChannelCLI    = "cli"    // capabilities hub approve, policy set, hub accept
	ChannelWindow = "window" // the hub's window
)

// ChannelWords names the channel a decision was taken in, in words for the
// model ("approval dialog", "client's form", "terminal").
func ChannelWords(channel string) string {
	switch channel {
	case ChannelDialog:
		return "approval dialog"
	case ChannelClient:
		return "client's form"
	case ChannelCLI:
		return "terminal"
	}
	return channel
}

// Where a rule came from, as policy list shows it. Config rules come from
// config.json (by hand, or written by policy set or the window); remembered
// decisions from the channel a person decided on.
const (
	OriginConfig = "config"
	OriginCLI    = ChannelCLI
	OriginDialog = ChannelDialog
	OriginClient = ChannelClient
	OriginWindow = ChannelWindow
)

// Rule is one policy rule: a config rule (address, glob or namespace to a
// mode) or a decision a person asked the hub to remember, which holds only
// within its scope.
//
// A target is written in the JavaScript form (memory.openNodes, myFiles.*)
// or with the MCP names (the source as written in config, the tool as the
// upstream names it: memory.open_nodes, my-files.*); both match the same
// tools.
type Rule struct {
	Target string      `json:"target"`
	Mode   config.Mode `json:"mode"`
	// From is the rule's origin: config, cli, window, dialog or client.
	From string `json:"from"`
	// Remembered is set for a decision from an approval ("always allow",
	// "always deny").
	Remembered bool `json:"remembered,omitempty"`
	// AllConnections is set when the rule holds on every connection;
	// otherwise it holds on Connection only ("" is a source without
	// connections).
	AllConnections bool   `json:"allConnections"`
	Connection     string `json:"connection,omitempty"`
	// Hash limits a remembered allow to the definition it was given for.
	// A remembered allow without one (migrated, not pinned yet) matches
	// nothing.
	Hash string    `json:"definition,omitempty"`
	At   time.Time `json:"at,omitzero"`
	ID   int64     `json:"id,omitempty"` // a remembered decision's row
}

// String is the rule as a reason names it: "memory.* deny" or "remembered
// allow of memory.createEntities on connection work".
func (r Rule) String() string {
	if !r.Remembered {
		return string(r.Mode) + " " + r.Target
	}
	s := "remembered " + string(r.Mode) + " of " + r.Target
	if !r.AllConnections && r.Connection != "" {
		s += " on connection " + r.Connection
	}
	return s
}

// specificity orders rules: an exact address above a glob (the longer its
// literal part, the higher) above a namespace; a remembered decision, which
// holds for one connection and one definition, above a config rule for the
// same address.
func (r *Rule) specificity() int {
	switch catalog.KindOf(r.Target) {
	case catalog.TargetExact:
		s := 3000
		if r.Remembered {
			s += 2
			if !r.AllConnections {
				s++
			}
		}
		return s
	case catalog.TargetGlob:
		lit := len(r.Target) - strings.Count(r.Target, "*")*2 - strings.Count(r.Target, "?")
		return 1000 + min(max(lit, 0), 999)
	}
	return 500
}

// compareRules is the order rules apply in: every deny first, then by
// specificity, then ask before allow; the rest only makes the order total.
func compareRules(a, b *Rule) int {
	if (a.Mode == config.Deny) != (b.Mode == config.Deny) {
		if a.Mode == config.Deny {
			return -1
		}
		return 1
	}
	if c := cmp.Compare(b.specificity(), a.specificity()); c != 0 {
		return c
	}
	rank := func(m config.Mode) int {
		switch m {
		case config.Deny:
			return 0
		case config.Ask:
			return 1
		}
		return 2
	}
	return cmp.Or(
		cmp.Compare(rank(a.Mode), rank(b.Mode)),
		cmp.Compare(a.Target, b.Target),
		cmp.Compare(a.Connection, b.Connection),
		cmp.Compare(a.Hash, b.Hash),
		cmp.Compare(a.ID, b.ID),
	)
}

// matchesTool reports whether the rule's target names the tool, in any of
// its forms.
func (r *Rule) matchesTool(source, namespace, name, jsName string) bool {
	return catalog.Matches(r.Target, source, namespace, name, jsName)
}

// matchesConnection reports whether the rule holds on connection conn.
func (r *Rule) matchesConnection(conn string) bool {
	return r.AllConnections || r.Connection == conn
}

// Policy is every rule, config rules and remembered decisions, in the order
// they apply. It is immutable once built; Gate reads it.
type Policy struct {
	rules []Rule
}

// New orders rules into a policy. The slice is copied.
func New(rules []Rule) *Policy {
	p := &Policy{rules: slices.Clone(rules)}
	slices.SortStableFunc(p.rules, func(a, b Rule) int { return compareRules(&a, &b) })
	return p
}

// Rules returns the rules in the order they apply. Do not modify them.
func (p *Policy) Rules() []Rule { return p.rules }

// ConfigRules turns config.json's policy into rules; origins names, per
// target, who wrote the rule when the hub knows it (policy set, the
// window), else it is "config".
func ConfigRules(policy map[string]config.Mode, origins map[string]string) []Rule {
	out := make([]Rule, 0, len(policy))
	for _, t := range slices.Sorted(maps.Keys(policy)) {
		from := origins[t]
		if from == "" {
			from = OriginConfig
		}
		out = append(out, Rule{Target: t, Mode: policy[t], From: from, AllConnections: true})
	}
	return out
}

// TargetCheck is what the hub knows about a policy target: its normalised
// form, how many tools it names now, the configured sources it names whose
// tools are not known yet, and, when it names nothing, the closest names.
type TargetCheck struct {
	Target     string   `json:"target"` // normalised
	Matches    int      `json:"matches"`
	NotUpYet   []string `json:"notUpYet,omitempty"`
	DidYouMean []string `json:"didYouMean,omitempty"`
}

// Warning says what is wrong with a rule for the target, "" when nothing.
func (c TargetCheck) Warning() string {
	switch {
	case c.Matches > 0:
		return ""
	case len(c.NotUpYet) > 0:
		return fmt.Sprintf("%s matches no tool yet: source %s has not listed its tools yet; the rule applies once it does",
			c.Target, strings.Join(c.NotUpYet, ", "))
	case len(c.DidYouMean) > 0:
		return fmt.Sprintf("%s matches no tool and no source; did you mean %s?", c.Target, strings.Join(c.DidYouMean, ", "))
	}
	return fmt.Sprintf("%s matches no tool and no source", c.Target)
}

// CheckTarget normalises a target to the JavaScript form (the namespace for
// a source's name, the method name for an upstream tool name; glob parts
// stay as written) and says what it matches in snap.
func CheckTarget(target string, snap *catalog.Snapshot, cfg *config.Config) TargetCheck {
	target = strings.TrimSpace(target)
	c := TargetCheck{Target: Normalize(target, snap, cfg)}
	for _, t := range snap.Tools {
		if catalog.Matches(target, t.Source, t.Namespace, t.Name, t.JSName) {
			c.Matches++
		}
	}
	if c.Matches > 0 {
		return c
	}
	head, _, _ := strings.Cut(target, ".")
	for _, name := range slices.Sorted(maps.Keys(cfg.Sources)) {
		if len(snap.BySource(name)) > 0 || cfg.Sources[name].Disabled {
			continue
		}
		ns := naming.Namespace(name)
		ok := head == name || head == ns
		if !ok && strings.ContainsAny(head, "*?[") {
			m1, _ := path.Match(head, name)
			m2, _ := path.Match(head, ns)
			ok = m1 || m2
		}
		if ok {
			c.NotUpYet = append(c.NotUpYet, name)
		}
	}
	if len(c.NotUpYet) > 0 {
		return c
	}
	var cands []string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			cands = append(cands, s)
		}
	}
	for _, t := range snap.Tools {
		add(t.Address)
		add(t.Source + "." + t.Name)
	}
	for _, ns := range snap.Namespaces() {
		add(ns)
	}
	for name := range cfg.Sources {
		add(name)
	}
	slices.Sort(cands)
	c.DidYouMean = ClosestNames(target, cands, 3)
	return c
}

// Normalize rewrites the MCP forms of a target to the JavaScript one:
// a source's config name to its namespace and an upstream tool name to its
// method name. What it does not know (a source not up yet, glob parts) it
// keeps as written; rules match both forms anyway.
func Normalize(target string, snap *catalog.Snapshot, cfg *config.Config) string {
	head, tail, dotted := strings.Cut(target, ".")
	source := ""
	if s := cfg.Sources[head]; s != nil {
		source, head = head, naming.Namespace(head)
	} else {
		for name := range cfg.Sources {
			if naming.Namespace(name) == head {
				source = name
			}
		}
	}
	if !dotted {
		return head
	}
	if source != "" && catalog.KindOf(tail) != catalog.TargetGlob {
		for _, t := range snap.BySource(source) {
			if t.JSName == tail {
				break
			}
			if t.Name == tail {
				tail = t.JSName
				break
			}
		}
	}
	return head + "." + tail
}

// ClosestNames returns up to n candidates near s by edit distance
// (ignoring case); a candidate that contains the part of s after its
// namespace counts as close. Every "did you mean" of the hub is one.
func ClosestNames(s string, cands []string, n int) []string {
	return editdist.Closest(s, strings.Trim(editdist.LastPart(s), "*?"), cands, n)
}
