package hub

import (
	"context"
	"fmt"
	"strings"
	"time"

	"capabilities.sh/capabilities/hub/catalog"
	"capabilities.sh/capabilities/hub/policy"
)

// SetSecret stores the secret of one connection in the keychain. The
// connection must reference exactly one secret (${secret:NAME}); runs that
// wait for it continue on their next resume.
func (h *Hub) SetSecret(ctx context.Context, source, conn, secret string) error {
	s := h.Config().Sources[source]
	if s == nil {
		return fmt.Errorf("no source named %q", source)
	}
	if _, ok := s.Connections[conn]; !ok {
		return fmt.Errorf("source %s has no connection %q", source, conn)
	}
	refs := s.SecretRefs(conn)
	if len(refs) != 1 {
		return fmt.Errorf("connection %s of %s references %d secrets; set them with 'capabilities connection add %s %s --secret REF'", conn, source, len(refs), source, conn)
	}
	if err := h.kc.Set(SecretKey(source, conn, refs[0]), secret); err != nil {
		return err
	}
	h.views.invalidate()
	h.events.publish(Event{Kind: EventSource, ID: source})
	return nil
}

// ToolChangeInfo is a changed tool definition as the person reviews it.
type ToolChangeInfo struct {
	Address string
	Summary string
	Before  string // the accepted definition's hash (definitions are not kept)
	After   string // the current definition, JSON
	Seen    time.Time
}

// ToolChanges lists tool definitions that changed since they were pinned
// (the person consented to them or first saw them). New tools are not
// listed: they follow the policy like any tool.
func (h *Hub) ToolChanges(ctx context.Context) ([]ToolChangeInfo, error) {
	changes, err := h.catalog.Changes(ctx)
	if err != nil {
		return nil, err
	}
	snap := h.catalog.Snapshot()
	var out []ToolChangeInfo
	for _, c := range changes {
		info := ToolChangeInfo{Address: c.Address, Seen: c.At, Before: "definition " + short(c.OldHash), Summary: c.Change + " since it was accepted; calls ask until you accept it"}
		if t, ok := snap.Lookup(c.Address); ok {
			info.After = fmt.Sprintf("%s\n\n%s\n\ninput: %s", t.Title, t.Description, string(t.InputSchema))
		}
		out = append(out, info)
	}
	return out, nil
}

func short(hash string) string {
	if len(hash) > 12 {
		return hash[:12]
	}
	return hash
}

// AcceptTool accepts the current definition of a changed tool, from the
// window.
func (h *Hub) AcceptTool(ctx context.Context, address string) error {
	_, err := h.AcceptDefinitions(ctx, address, policy.ChannelWindow)
	return err
}

// AcceptDefinitions accepts the current definitions of the tools target
// names (an address in either form, a namespace, a glob): their calls stop
// asking because of the change, and remembered allows move to the new
// definitions. It returns the changes it accepted, each audited with
// channel; a target that names no tool is an error.
func (h *Hub) AcceptDefinitions(ctx context.Context, target, channel string) ([]catalog.ToolChange, error) {
	if strings.HasPrefix(target, "skill:") {
		return h.skills.Accept(ctx, target, channel)
	}
	accepted, err := h.catalog.Accept(ctx, target)
	if err != nil {
		return nil, err
	}
	for _, c := range accepted {
		if err := h.runs.audit(ctx, channel, "", "", c.Address, "accept_definition", c.Change, h.now()); err != nil {
			return accepted, err
		}
	}
	if len(accepted) > 0 {
		if err := h.reloadPolicy(ctx); err != nil {
			return accepted, err
		}
		h.events.publish(Event{Kind: EventCatalog})
	}
	return accepted, nil
}

// HasSecrets reports whether every secret a connection references is in
// the keychain.
func (h *Hub) HasSecrets(source, conn string) bool {
	return len(h.missingSecrets(source, conn)) == 0
}
