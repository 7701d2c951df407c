package hub

import (
	"path"
	"strings"
)

// Decision is the policy's answer for one tool, with the reason a person
// sees when it asks.
type Decision struct {
	Mode   Mode
	Rule   string // the rule that decided: an address, glob, namespace, "remembered" or "default"
	Reason string // for the approval dialog and the pending entry
}

// PolicyInput is what the policy decides on.
type PolicyInput struct {
	Source, Namespace, Address string
	ReadOnly                   bool
	// Changed is true when the tool's definition changed since the person
	// last accepted it: it asks even where a rule allows.
	Changed bool
}

// Policy decides allow, ask or deny for a tool. Precedence, first match
// wins: a remembered decision for the exact address ("always allow" or
// "always deny" from an approval), then config rules from the most specific
// (exact address, then globs with the longest literal part, then the
// namespace), then the default: read-only tools are allowed, everything else
// asks. A changed tool definition turns an allow into an ask.
type Policy struct {
	rules      map[string]Mode
	remembered map[string]Mode
}

// NewPolicy builds a policy from config rules and remembered decisions.
func NewPolicy(rules, remembered map[string]Mode) *Policy {
	return &Policy{rules: rules, remembered: remembered}
}

// Decide returns the decision for in.
func (p *Policy) Decide(in PolicyInput) Decision {
	d := p.decide(in)
	if d.Mode == Allow && in.Changed {
		return Decision{Mode: Ask, Rule: d.Rule, Reason: "changed tool definition"}
	}
	return d
}

func (p *Policy) decide(in PolicyInput) Decision {
	if m, ok := p.remembered[in.Address]; ok {
		return Decision{Mode: m, Rule: "remembered", Reason: "remembered decision"}
	}
	if m, ok := p.rules[in.Address]; ok {
		return Decision{Mode: m, Rule: in.Address, Reason: "policy " + string(m) + " (" + in.Address + ")"}
	}
	best, bestScore := "", -1
	for pattern := range p.rules {
		if !strings.ContainsAny(pattern, "*?[") {
			continue
		}
		if ok, _ := path.Match(pattern, in.Address); !ok {
			continue
		}
		score := len(pattern) - strings.Count(pattern, "*")*2
		if score > bestScore || (score == bestScore && pattern < best) {
			best, bestScore = pattern, score
		}
	}
	if best != "" {
		m := p.rules[best]
		return Decision{Mode: m, Rule: best, Reason: "policy " + string(m) + " (" + best + ")"}
	}
	for _, ns := range []string{in.Namespace, in.Source} {
		if m, ok := p.rules[ns]; ok {
			return Decision{Mode: m, Rule: ns, Reason: "policy " + string(m) + " (" + ns + ")"}
		}
	}
	if in.ReadOnly {
		return Decision{Mode: Allow, Rule: "default", Reason: "read-only tool"}
	}
	return Decision{Mode: Ask, Rule: "default", Reason: "policy ask (the tool is not marked read-only)"}
}
