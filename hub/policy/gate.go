package policy

// The consent gate: one pure function decides whether a call runs (allow),
// waits for a person (ask) or is refused (deny). execute uses it for every
// call, search and describe for what they show, and the window to explain
// a decision.

import (
	"fmt"

	"capabilities.sh/capabilities/hub/catalog"
	"capabilities.sh/capabilities/hub/config"
)

// Decision is the gate's answer for one tool on one connection, with the
// rule that decided and the reason a person sees when it asks.
type Decision struct {
	Mode config.Mode
	// Rule names what decided: a rule's target, "default" or "source".
	Rule string
	// By is the rule that decided; nil for the default and the source
	// state.
	By     *Rule
	Reason string
	// Change is set when the tool's definition changed since the person
	// accepted it: what changed, in one line.
	Change string
}

// GateInput is what the gate decides on: the tool (every form of its name,
// its read-only hint, its definition and the one pinned for it), the
// connection the call uses and its source's state.
type GateInput struct {
	Source    string // the source's config name
	Namespace string
	Name      string // the upstream MCP name
	JSName    string // the method name
	ReadOnly  bool
	// Hash is the tool's definition now; Pinned the one the person
	// consented to or first saw ("" when none is pinned yet); Change says
	// what differs between them.
	Hash, Pinned, Change string
	// Connection is the connection the call uses, resolved: "" when the
	// source has none.
	Connection string
	// SourceMissing and SourceDisabled describe the source in the config.
	SourceMissing, SourceDisabled bool
}

func (in GateInput) address() string { return in.Namespace + "." + in.JSName }

// changed reports whether the definition differs from the pinned one.
func (in GateInput) changed() bool { return in.Pinned != "" && in.Pinned != in.Hash }

// Gate decides a call. The first rule of p that matches the tool, the
// connection and (for a remembered allow) the definition decides; p orders
// every deny first, so a deny that matches beats every allow that matches,
// whatever their scopes. Without a match, read-only tools are allowed and
// every other tool asks. A tool whose definition changed since it was
// pinned asks where it would be allowed, until the person accepts the new
// definition. A source that is not configured or is disabled denies.
func Gate(p *Policy, in GateInput) Decision {
	addr := in.address()
	switch {
	case in.SourceMissing:
		return Decision{Mode: config.Deny, Rule: "source", Reason: fmt.Sprintf("source %s is not in the config", in.Source)}
	case in.SourceDisabled:
		return Decision{Mode: config.Deny, Rule: "source", Reason: fmt.Sprintf("source %s is disabled", in.Source)}
	}
	var d Decision
	found := false
	for i := range p.rules {
		r := &p.rules[i]
		if !r.matchesTool(in.Source, in.Namespace, in.Name, in.JSName) || !r.matchesConnection(in.Connection) {
			continue
		}
		if r.Remembered && r.Mode == config.Allow && r.Hash != in.Hash {
			continue // given for another definition, or not pinned yet
		}
		d = Decision{Mode: r.Mode, Rule: r.Target, By: r, Reason: "policy " + r.String()}
		found = true
		break
	}
	if !found {
		if in.ReadOnly {
			d = Decision{Mode: config.Allow, Rule: "default", Reason: "read-only tool"}
		} else {
			d = Decision{Mode: config.Ask, Rule: "default", Reason: "policy ask (the tool is not marked read-only)"}
		}
	}
	if d.Mode != config.Deny && in.changed() {
		d.Change = in.Change
		if d.Change == "" {
			d.Change = "its definition changed"
		}
		d.Mode = config.Ask
		d.Reason = fmt.Sprintf("changed tool definition: %s: %s since you accepted it; it asks until you accept the new definition", addr, d.Change)
	}
	return d
}

// InputFor is the gate's view of tool on connection conn under cfg.
func InputFor(t *catalog.Tool, conn string, cfg *config.Config) GateInput {
	in := GateInput{
		Source: t.Source, Namespace: t.Namespace, Name: t.Name, JSName: t.JSName,
		ReadOnly: t.Annotations != nil && t.Annotations.ReadOnlyHint,
		Hash:     t.Hash, Pinned: t.Pinned, Change: t.Change,
		Connection: conn,
	}
	switch s := cfg.Sources[t.Source]; {
	case s == nil:
		in.SourceMissing = true
	case s.Disabled:
		in.SourceDisabled = true
	}
	return in
}

// Tighten applies a profile's own rules after the person's: d is the
// person's gate's decision on in, and the profile's rules (own) apply only
// to tighten it. A read-only profile denies every tool that is not
// read-only; the profile's deny denies, its ask asks where d allows, and
// its allow changes nothing. A changed definition is the person's gate's to
// ask about, so the profile's rules decide on in without it.
func Tighten(d Decision, profile string, readOnly bool, own *Policy, in GateInput) Decision {
	if d.Mode == config.Deny {
		return d
	}
	if readOnly && !in.ReadOnly {
		return Decision{Mode: config.Deny, Rule: "profile", Reason: fmt.Sprintf("profile %s is read-only and %s.%s is not marked read-only", profile, in.Namespace, in.JSName)}
	}
	in.Pinned, in.Change = "", ""
	pd := Gate(own, in)
	if pd.By == nil {
		return d
	}
	switch {
	case pd.Mode == config.Deny:
		return Decision{Mode: config.Deny, Rule: pd.Rule, By: pd.By, Reason: fmt.Sprintf("profile %s: %s", profile, pd.Reason)}
	case pd.Mode == config.Ask && d.Mode == config.Allow:
		return Decision{Mode: config.Ask, Rule: pd.Rule, By: pd.By, Reason: fmt.Sprintf("profile %s: %s", profile, pd.Reason), Change: d.Change}
	}
	return d
}
