//go:build !headless

package main

import (
	"runtime"
	"strings"

	"capabilities.sh/capabilities/hub/clients"
	"capabilities.sh/capabilities/keychain"
	"capabilities.sh/capabilities/ui"
)

// firstRunUI is what the first-run window shows for this home: the servers
// the person's clients run now, and an Import that takes them up as
// `capabilities setup` does (secrets into kc, moves backed up). The window
// is the person: it may import, where a hub started alone may not.
func firstRunUI(e *env, kc keychain.Keychain) ui.FirstRun {
	found, _ := clients.Discover(clients.ClientConfigs(e.UserHome, e.UserConfig, runtime.GOOS))
	fr := ui.FirstRun{}
	for _, f := range found {
		c := ui.ImportCandidate{Name: f.Name}
		for _, cc := range f.In {
			c.Clients = append(c.Clients, cc.Client)
		}
		for _, m := range f.Moved {
			c.Secrets = append(c.Secrets, strings.TrimPrefix(m, f.Name+"."))
		}
		fr.Candidates = append(fr.Candidates, c)
	}
	fr.Import = func(sel ui.ImportSelection) (string, error) {
		choices := make([]clients.ImportChoice, len(sel.Names))
		for i, n := range sel.Names {
			choices[i] = clients.ImportChoice{Name: n, Move: sel.Move}
		}
		rep, err := importFound(e, kc, found, choices)
		var b strings.Builder
		printImportReport(&b, rep)
		return strings.TrimSpace(b.String()), err
	}
	return fr
}
