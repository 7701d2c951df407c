//go:build !headless

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/keychain"
	"capabilities.sh/capabilities/packaging"
	"capabilities.sh/capabilities/ui"
)

var errNoUI = errors.New("built without the tray app")

// runUI runs the tray app on this (the main) goroutine until ctx ends or
// the person quits.
func runUI(ctx context.Context, e *env, h *hub.Hub, log *slog.Logger) error {
	auto := autostartOptions(e)
	return ui.Run(ctx, &uiHub{h: h, ctx: ctx}, ui.Options{
		Logf: func(format string, args ...any) { log.Info(fmt.Sprintf(format, args...)) },
		Autostart: func(on bool) error {
			_, err := packaging.Autostart(on, auto)
			return err
		},
		AutostartEnabled: func() bool { return packaging.AutostartEnabled(auto) },
	})
}

// uiHub adapts the hub to the UI's interface. Every method may block on the
// store; the UI never calls them on its main goroutine.
type uiHub struct {
	h   *hub.Hub
	ctx context.Context
}

func (u *uiHub) Pending() []ui.Approval {
	pend, err := u.h.Pending(u.ctx, "")
	if err != nil {
		return nil
	}
	out := make([]ui.Approval, 0, len(pend))
	for _, p := range pend {
		if p.Kind != hub.KindApproval {
			continue
		}
		out = append(out, ui.Approval{
			ID: p.ID, RunID: p.RunID, Seq: p.Seq, Address: p.Address, Title: p.Title,
			Connection: p.Connection, DefaultConnection: p.DefaultConnection, Reason: p.Reason,
			Client: p.Client, Preview: p.Preview, Created: p.Created, Expires: p.Expires,
		})
	}
	return out
}

func (u *uiHub) Decide(id string, d ui.Decision) error {
	return u.h.Decide(u.ctx, id, string(d), hub.ChannelDialog, "dialog")
}

func (u *uiHub) Subscribe(fn func(ui.Event)) func() {
	return u.h.Subscribe(func(ev hub.Event) {
		kind := ev.Kind
		if kind == hub.EventCatalog || kind == hub.EventConfig {
			kind = ui.EventSource
		}
		fn(ui.Event{Kind: kind, ID: ev.ID})
	})
}

func (u *uiHub) Status() ui.Status {
	st, err := u.h.Status(u.ctx)
	if err != nil {
		return ui.Status{}
	}
	out := ui.Status{Paused: st.Paused, Pending: st.Pending}
	cfg := u.h.Config()
	for _, s := range st.Sources {
		state := ui.SourceStarting
		switch s.State {
		case "up", "idle":
			state = ui.SourceUp
		case "down":
			state = ui.SourceDown
		}
		ss := ui.SourceStatus{Name: s.Name, State: state, Error: s.Error, Tools: s.Tools}
		if src := cfg.Sources[s.Name]; src != nil {
			for _, c := range s.Connections {
				has := true
				for _, ref := range src.SecretRefs(c) {
					if _, err := keychain.New().Get(hub.SecretKey(s.Name, c, ref)); err != nil {
						has = false
					}
				}
				ss.Connections = append(ss.Connections, ui.ConnectionStatus{Name: c, Default: c == s.Default, HasSecret: has})
			}
		}
		out.Sources = append(out.Sources, ss)
	}
	return out
}

func (u *uiHub) Runs(limit int) []ui.RunSummary {
	runs, err := u.h.Runs(u.ctx, limit, false)
	if err != nil {
		return nil
	}
	out := make([]ui.RunSummary, 0, len(runs))
	for _, r := range runs {
		rs := ui.RunSummary{ID: r.ID, Status: r.Status, Client: r.Client, Started: r.Created, Code: r.Code}
		for i, c := range r.Calls {
			rs.Calls = append(rs.Calls, ui.CallSummary{Seq: i + 1, Address: c.Address, OK: c.OK, Duration: time.Duration(c.Ms) * time.Millisecond})
		}
		if r.Envelope != nil {
			b, _ := json.MarshalIndent(r.Envelope, "", "  ")
			rs.Envelope = string(b)
			rs.Logs = r.Envelope.Logs
		}
		out = append(out, rs)
	}
	return out
}

func (u *uiHub) History(limit int) []ui.DecisionRecord {
	hist, err := u.h.History(u.ctx, limit)
	if err != nil {
		return nil
	}
	out := make([]ui.DecisionRecord, 0, len(hist))
	for _, d := range hist {
		out = append(out, ui.DecisionRecord{RunID: d.RunID, Address: d.Address, Decision: ui.Decision(d.Decision), Channel: d.Channel, At: d.At})
	}
	return out
}

func (u *uiHub) SetPaused(p bool) error { u.h.SetPaused(p); return nil }

func (u *uiHub) Policies() []ui.PolicyRule {
	rules, err := u.h.PolicyRules(u.ctx)
	if err != nil {
		return nil
	}
	out := make([]ui.PolicyRule, 0, len(rules))
	for _, r := range rules {
		out = append(out, ui.PolicyRule{Pattern: r.Target, Mode: string(r.Mode)})
	}
	return out
}

func (u *uiHub) SetPolicy(pattern, mode string) error {
	m, err := hub.ParseMode(mode)
	if err != nil {
		return err
	}
	return u.h.SetPolicy(u.ctx, pattern, m)
}

func (u *uiHub) SetSecret(source, connection, secret string) error {
	return u.h.SetSecret(u.ctx, source, connection, secret)
}

func (u *uiHub) ChangedTools() []ui.ToolChange {
	changes, err := u.h.ToolChanges(u.ctx)
	if err != nil {
		return nil
	}
	out := make([]ui.ToolChange, 0, len(changes))
	for _, c := range changes {
		out = append(out, ui.ToolChange{Address: c.Address, Summary: c.Summary, Before: c.Before, After: c.After, Seen: c.Seen})
	}
	return out
}

func (u *uiHub) AcceptTool(address string) error { return u.h.AcceptTool(u.ctx, address) }

func (u *uiHub) ConfigDir() string { return u.h.Paths().Home }

func autostartOptions(e *env) packaging.AutostartOptions {
	cfg := e.Getenv("XDG_CONFIG_HOME")
	return packaging.AutostartOptions{Exe: e.Exe, Home: e.UserHome, ConfigDir: strings.TrimSpace(cfg)}
}

// trayHost reports whether the desktop shows tray icons.
func trayHost() error { return ui.TrayAvailable() }
