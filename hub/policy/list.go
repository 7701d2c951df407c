package policy

// The rules as policy list and the window show them.

import (
	"capabilities.sh/capabilities/hub/catalog"
	"capabilities.sh/capabilities/hub/config"
)

// ListedRule is one rule as policy list and the window show it.
type ListedRule struct {
	// Order is the rule's place in the order rules apply, from 1: every
	// deny first, then from the most to the least specific.
	Order  int         `json:"order"`
	Target string      `json:"target"`
	Mode   config.Mode `json:"mode"`
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

// List lists every rule of p, config rules and remembered decisions, in
// the order they apply, each with a warning when it matches no tool of
// snap.
func List(p *Policy, snap *catalog.Snapshot, cfg *config.Config) []ListedRule {
	rules := p.Rules()
	out := make([]ListedRule, 0, len(rules))
	for i, r := range rules {
		pr := ListedRule{Order: i + 1, Target: r.Target, Mode: r.Mode, From: r.From, Remembered: r.Remembered}
		switch {
		case r.AllConnections:
			pr.Scope = "every connection"
		case r.Connection == "":
			pr.Scope = "no connection"
		default:
			pr.Scope = "connection " + r.Connection
		}
		if r.Remembered && r.Mode == config.Allow {
			if r.Hash == "" {
				pr.Scope += ", no definition pinned yet"
			} else {
				pr.Scope += ", definition " + r.Hash[:min(len(r.Hash), 12)]
			}
		}
		pr.Warning = CheckTarget(r.Target, snap, cfg).Warning()
		out = append(out, pr)
	}
	return out
}
