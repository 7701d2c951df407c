package hub

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/internal/editdist"
)

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
	Target string `json:"target"`
	Mode   Mode   `json:"mode"`
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
	switch targetKind(r.Target) {
	case targetExact:
		s := 3000
		if r.Remembered {
			s += 2
			if !r.AllConnections {
				s++
			}
		}
		return s
	case targetGlob:
		lit := len(r.Target) - strings.Count(r.Target, "*")*2 - strings.Count(r.Target, "?")
		return 1000 + min(max(lit, 0), 999)
	}
	return 500
}

// compareRules is the order rules apply in: every deny first, then by
// specificity, then ask before allow; the rest only makes the order total.
func compareRules(a, b *Rule) int {
	if (a.Mode == Deny) != (b.Mode == Deny) {
		if a.Mode == Deny {
			return -1
		}
		return 1
	}
	if c := cmp.Compare(b.specificity(), a.specificity()); c != 0 {
		return c
	}
	rank := func(m Mode) int {
		switch m {
		case Deny:
			return 0
		case Ask:
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
	return targetMatches(r.Target, source, namespace, name, jsName)
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

// NewPolicy orders rules into a policy. The slice is copied.
func NewPolicy(rules []Rule) *Policy {
	p := &Policy{rules: slices.Clone(rules)}
	slices.SortStableFunc(p.rules, func(a, b Rule) int { return compareRules(&a, &b) })
	return p
}

// Rules returns the rules in the order they apply. Do not modify them.
func (p *Policy) Rules() []Rule { return p.rules }

// configRules turns config.json's policy into rules; origins names, per
// target, who wrote the rule when the hub knows it (policy set, the
// window), else it is "config".
func configRules(policy map[string]Mode, origins map[string]string) []Rule {
	out := make([]Rule, 0, len(policy))
	for _, t := range sortedKeys(policy) {
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
		return fmt.Sprintf("%s matches no tool yet: source %s has not listed its tools (it is not up yet); the rule applies once it does",
			c.Target, strings.Join(c.NotUpYet, ", "))
	case len(c.DidYouMean) > 0:
		return fmt.Sprintf("%s matches no tool and no source; did you mean %s?", c.Target, strings.Join(c.DidYouMean, ", "))
	}
	return fmt.Sprintf("%s matches no tool and no source", c.Target)
}

// checkTarget normalises a target to the JavaScript form (the namespace for
// a source's name, the method name for an upstream tool name; glob parts
// stay as written) and says what it matches in snap.
func checkTarget(target string, snap *Snapshot, cfg *Config) TargetCheck {
	target = strings.TrimSpace(target)
	c := TargetCheck{Target: normalizeTarget(target, snap, cfg)}
	for _, t := range snap.Tools {
		if targetMatches(target, t.Source, t.Namespace, t.Name, t.JSName) {
			c.Matches++
		}
	}
	if c.Matches > 0 {
		return c
	}
	head, _, _ := strings.Cut(target, ".")
	for _, name := range sortedKeys(cfg.Sources) {
		if len(snap.BySource(name)) > 0 || cfg.Sources[name].Disabled {
			continue
		}
		ns := Namespace(name)
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
	c.DidYouMean = closestNames(target, cands, 3)
	return c
}

// normalizeTarget rewrites the MCP forms of a target to the JavaScript one:
// a source's config name to its namespace and an upstream tool name to its
// method name. What it does not know (a source not up yet, glob parts) it
// keeps as written; rules match both forms anyway.
func normalizeTarget(target string, snap *Snapshot, cfg *Config) string {
	head, tail, dotted := strings.Cut(target, ".")
	source := ""
	if s := cfg.Sources[head]; s != nil {
		source, head = head, Namespace(head)
	} else {
		for name := range cfg.Sources {
			if Namespace(name) == head {
				source = name
			}
		}
	}
	if !dotted {
		return head
	}
	if source != "" && targetKind(tail) != targetGlob {
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

// closestNames returns up to n candidates near s by edit distance
// (ignoring case); a candidate that contains the part of s after its
// namespace counts as close.
func closestNames(s string, cands []string, n int) []string {
	return editdist.Closest(s, strings.Trim(editdist.LastPart(s), "*?"), cands, n)
}

// PolicyRule is one rule as policy list and the window show it.
type PolicyRule struct {
	// Order is the rule's place in the order rules apply, from 1: every
	// deny first, then from the most to the least specific.
	Order  int    `json:"order"`
	Target string `json:"target"`
	Mode   Mode   `json:"mode"`
	// From is where the rule came from: config (config.json), cli (policy
	// set, hub approve --always), window, dialog or client.
	From       string `json:"from"`
	Remembered bool   `json:"remembered,omitempty"`
	// Scope says where a rule holds: "every connection", "connection
	// work", "no connection"; a remembered allow adds its definition.
	Scope string `json:"scope"`
	// Warning is set for a rule that matches no tool now.
	Warning string `json:"warning,omitempty"`
}

// PolicyRules lists every rule, config rules and remembered decisions, in
// the order they apply.
func (h *Hub) PolicyRules(ctx context.Context) ([]PolicyRule, error) {
	snap, cfg := h.catalog.Snapshot(), h.Config()
	rules := h.currentPolicy().Rules()
	out := make([]PolicyRule, 0, len(rules))
	for i, r := range rules {
		pr := PolicyRule{Order: i + 1, Target: r.Target, Mode: r.Mode, From: r.From, Remembered: r.Remembered}
		switch {
		case r.AllConnections:
			pr.Scope = "every connection"
		case r.Connection == "":
			pr.Scope = "no connection"
		default:
			pr.Scope = "connection " + r.Connection
		}
		if r.Remembered && r.Mode == Allow {
			if r.Hash == "" {
				pr.Scope += ", no definition pinned yet"
			} else {
				pr.Scope += ", definition " + short(r.Hash)
			}
		}
		pr.Warning = checkTarget(r.Target, snap, cfg).Warning()
		out = append(out, pr)
	}
	return out, nil
}

// PolicyChange is a rule to set: policy set, the window, the local API.
type PolicyChange struct {
	Target string `json:"target"`
	Mode   string `json:"mode"`
	// Force keeps an allow or ask rule that matches no tool and no source.
	Force   bool   `json:"force,omitempty"`
	Channel string `json:"channel,omitempty"` // cli, window; default cli
}

// PolicyResult is what setting or removing a rule did.
type PolicyResult struct {
	Target  string `json:"target"`  // normalised
	Written string `json:"written"` // as given
	Mode    Mode   `json:"mode,omitempty"`
	Removed int    `json:"removed,omitempty"`
	Warning string `json:"warning,omitempty"`
}

// ErrRuleMatchesNothing refuses an allow or ask rule that matches no tool
// and no source, unless forced.
var ErrRuleMatchesNothing = errors.New("the rule matches no tool and no source")

// ApplyPolicy sets a rule in config.json, its target normalised to the
// JavaScript form (rules written for the same tools in another form are
// replaced), and forgets the remembered decisions for that exact address,
// so the explicit rule holds. A rule that matches nothing is flagged: an
// allow or ask is refused unless forced, a deny is kept with the warning,
// and a rule for a source that has not listed its tools yet is kept with a
// warning naming it.
func (h *Hub) ApplyPolicy(ctx context.Context, ch PolicyChange) (*PolicyResult, error) {
	mode, err := ParseMode(ch.Mode)
	if err != nil {
		return nil, &InputError{"mode", err.Error()}
	}
	written := strings.TrimSpace(ch.Target)
	if !config.IsPolicyKey(written) {
		return nil, &InputError{"target", fmt.Sprintf("%q is not an address (github.createIssue, memory.open_nodes), a glob (github.create*) or a namespace (github, my-files)", written)}
	}
	check := checkTarget(written, h.catalog.Snapshot(), h.Config())
	res := &PolicyResult{Target: check.Target, Written: written, Mode: mode, Warning: check.Warning()}
	if res.Warning != "" && len(check.NotUpYet) == 0 && mode != Deny && !ch.Force {
		return nil, &InputError{"target", fmt.Sprintf("%s: %v; %s (set it anyway with --force)", res.Warning, ErrRuleMatchesNothing, mode)}
	}
	cfg, err := LoadConfig(h.paths.Config())
	if err != nil {
		return nil, err
	}
	snap := h.catalog.Snapshot()
	for k := range cfg.Policy {
		if k == written || normalizeTarget(k, snap, cfg) == check.Target {
			delete(cfg.Policy, k)
		}
	}
	cfg.Policy[check.Target] = mode
	if err := h.SaveConfig(ctx, cfg); err != nil {
		return nil, err
	}
	if targetKind(check.Target) == targetExact {
		if _, err := h.runs.forget(ctx, check.Target); err != nil {
			return nil, err
		}
	}
	channel := cmp.Or(ch.Channel, ChannelCLI)
	if err := h.runs.audit(ctx, channel, "", "", check.Target, "policy_"+string(mode), written, h.now()); err != nil {
		return nil, err
	}
	return res, h.reloadPolicy(ctx)
}

// SetPolicy sets a rule from the window: ApplyPolicy, forced (the window
// offers the tools it knows).
func (h *Hub) SetPolicy(ctx context.Context, target string, mode Mode) error {
	_, err := h.ApplyPolicy(ctx, PolicyChange{Target: target, Mode: string(mode), Force: true, Channel: ChannelWindow})
	return err
}

// RemovePolicy removes the rules for target: the config rules written for
// it in either form, and the remembered decisions for that address. It
// fails, naming the rules there are, when there is none.
func (h *Hub) RemovePolicy(ctx context.Context, target, channel string) (*PolicyResult, error) {
	written := strings.TrimSpace(target)
	if written == "" {
		return nil, &InputError{"target", "empty; name a rule's address, glob or namespace (see policy list)"}
	}
	snap := h.catalog.Snapshot()
	cfg, err := LoadConfig(h.paths.Config())
	if err != nil {
		return nil, err
	}
	norm := normalizeTarget(written, snap, cfg)
	res := &PolicyResult{Target: norm, Written: written}
	for k := range cfg.Policy {
		if k == written || normalizeTarget(k, snap, cfg) == norm {
			delete(cfg.Policy, k)
			res.Removed++
		}
	}
	if res.Removed > 0 {
		if err := h.SaveConfig(ctx, cfg); err != nil {
			return nil, err
		}
	}
	for _, a := range []string{norm, written} {
		n, err := h.runs.forget(ctx, a)
		if err != nil {
			return nil, err
		}
		res.Removed += int(n)
		if norm == written {
			break
		}
	}
	if res.Removed == 0 {
		var targets []string
		for _, r := range h.currentPolicy().Rules() {
			targets = append(targets, r.Target)
		}
		msg := fmt.Sprintf("no rule for %s", written)
		if near := closestNames(written, targets, 3); len(near) > 0 {
			msg += "; did you mean " + strings.Join(near, ", ") + "?"
		} else if len(targets) > 0 {
			msg += "; see capabilities policy list"
		}
		return nil, &InputError{"target", msg}
	}
	if err := h.runs.audit(ctx, cmp.Or(channel, ChannelCLI), "", "", norm, "policy_removed", written, h.now()); err != nil {
		return nil, err
	}
	return res, h.reloadPolicy(ctx)
}
