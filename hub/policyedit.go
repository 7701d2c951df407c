package hub

// Editing the policy: the rules as policy list and the window show them,
// setting and removing one (in config.json, forgetting the remembered
// decisions it overrides), and why the gate decides a call as it does. The
// rules and the gate themselves are hub/policy's.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"capabilities.sh/capabilities/hub/catalog"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/policy"
	"capabilities.sh/capabilities/hub/store"
)

// PolicyRules lists every rule, config rules and remembered decisions, in
// the order they apply (policy.List).
func (h *Hub) PolicyRules(ctx context.Context) ([]policy.ListedRule, error) {
	return policy.List(h.currentPolicy(), h.catalog.Snapshot(), h.Config()), nil
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
	Target  string      `json:"target"`  // normalised
	Written string      `json:"written"` // as given
	Mode    config.Mode `json:"mode,omitempty"`
	Removed int         `json:"removed,omitempty"`
	Warning string      `json:"warning,omitempty"`
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
	mode, err := config.ParseMode(ch.Mode)
	if err != nil {
		return nil, &InputError{"mode", err.Error()}
	}
	written := strings.TrimSpace(ch.Target)
	if !config.IsPolicyKey(written) {
		return nil, &InputError{"target", fmt.Sprintf("%q is not an address (github.createIssue, memory.open_nodes), a glob (github.create*) or a namespace (github, my-files)", written)}
	}
	check := policy.CheckTarget(written, h.catalog.Snapshot(), h.Config())
	res := &PolicyResult{Target: check.Target, Written: written, Mode: mode, Warning: check.Warning()}
	if res.Warning != "" && len(check.NotUpYet) == 0 && mode != config.Deny && !ch.Force {
		return nil, &InputError{"target", fmt.Sprintf("%s: %v; %s (set it anyway with --force)", res.Warning, ErrRuleMatchesNothing, mode)}
	}
	cfg, err := config.Load(h.paths.Config())
	if err != nil {
		return nil, err
	}
	snap := h.catalog.Snapshot()
	for k := range cfg.Policy {
		if k == written || policy.Normalize(k, snap, cfg) == check.Target {
			delete(cfg.Policy, k)
		}
	}
	cfg.Policy[check.Target] = mode
	if err := h.SaveConfig(ctx, cfg); err != nil {
		return nil, err
	}
	if catalog.KindOf(check.Target) == catalog.TargetExact {
		if _, err := h.db.Forget(ctx, check.Target); err != nil {
			return nil, err
		}
	}
	channel := cmp.Or(ch.Channel, policy.ChannelCLI)
	if err := h.db.Audit(ctx, store.AuditEntry{At: h.now(), Channel: channel, Address: check.Target, Decision: "policy_" + string(mode), Detail: written}); err != nil {
		return nil, err
	}
	return res, h.reloadPolicy(ctx)
}

// SetPolicy sets a rule from the window: ApplyPolicy, forced (the window
// offers the tools it knows).
func (h *Hub) SetPolicy(ctx context.Context, target string, mode config.Mode) error {
	_, err := h.ApplyPolicy(ctx, PolicyChange{Target: target, Mode: string(mode), Force: true, Channel: policy.ChannelWindow})
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
	cfg, err := config.Load(h.paths.Config())
	if err != nil {
		return nil, err
	}
	norm := policy.Normalize(written, snap, cfg)
	res := &PolicyResult{Target: norm, Written: written}
	for k := range cfg.Policy {
		if k == written || policy.Normalize(k, snap, cfg) == norm {
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
		n, err := h.db.Forget(ctx, a)
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
		if near := policy.ClosestNames(written, targets, 3); len(near) > 0 {
			msg += "; did you mean " + strings.Join(near, ", ") + "?"
		} else if len(targets) > 0 {
			msg += "; see capabilities policy list"
		}
		return nil, &InputError{"target", msg}
	}
	if err := h.db.Audit(ctx, store.AuditEntry{At: h.now(), Channel: cmp.Or(channel, policy.ChannelCLI), Address: norm, Decision: "policy_removed", Detail: written}); err != nil {
		return nil, err
	}
	return res, h.reloadPolicy(ctx)
}

// Explain returns the gate's decision for a call of address (in either
// naming form) on connection conn ("" for the source's default), as execute
// would decide it now (policy.Explain): for the window, to say why a tool
// asks or is denied.
func (h *Hub) Explain(address, conn string) (policy.Decision, error) {
	return policy.Explain(h.currentPolicy(), h.catalog.Snapshot(), h.Config(), address, conn)
}
