package policy

// Why the gate decides a call of a tool as it does, for a person: one
// tool's decision, and a source's tools with what policy does with each.

import (
	"cmp"
	"fmt"
	"slices"

	"capabilities.sh/capabilities/hub/catalog"
	"capabilities.sh/capabilities/hub/config"
)

// Explain returns the gate's decision for a call of address (in either
// naming form) on connection conn ("" for the source's default), as execute
// would decide it now under p, over snap and cfg: for the window, to say
// why a tool asks or is denied.
func Explain(p *Policy, snap *catalog.Snapshot, cfg *config.Config, address, conn string) (Decision, error) {
	t, ok := snap.Lookup(Normalize(address, snap, cfg))
	if !ok {
		return Decision{}, fmt.Errorf("no tool %s in the catalog", address)
	}
	if s := cfg.Sources[t.Source]; s != nil && conn == "" {
		conn = s.DefaultConnection()
	}
	return Gate(p, InputFor(t, conn, cfg)), nil
}

// SourceTool is one tool of a source as the window lists it.
type SourceTool struct {
	Address string `json:"address"`
	Title   string `json:"title,omitempty"`
	// Mode is what policy does with a call of it now on the source's
	// default connection: allow, ask or deny.
	Mode config.Mode `json:"mode"`
	// Deprecated: its API marks the operation deprecated.
	Deprecated bool `json:"deprecated,omitempty"`
}

// SourceTools lists the tools source offers in snap, by address, with
// what p does with each.
func SourceTools(p *Policy, snap *catalog.Snapshot, cfg *config.Config, source string) []SourceTool {
	var out []SourceTool
	for _, t := range snap.Tools {
		if t.Source != source {
			continue
		}
		st := SourceTool{Address: t.Address, Title: t.Title, Deprecated: t.Deprecated()}
		if d, err := Explain(p, snap, cfg, t.Address, ""); err == nil {
			st.Mode = d.Mode
		}
		out = append(out, st)
	}
	slices.SortFunc(out, func(a, b SourceTool) int { return cmp.Compare(a.Address, b.Address) })
	return out
}
