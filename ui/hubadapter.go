//go:build !headless

package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/net/http/httpguts"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/catalog"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/oauth"
	"capabilities.sh/capabilities/hub/policy"
	"capabilities.sh/capabilities/hub/store"
	"capabilities.sh/capabilities/internal/hiddentext"
)

// FromHub adapts a running hub to the UI's Hub interface. ctx bounds the
// hub calls the UI makes.
func FromHub(ctx context.Context, h *hub.Hub) Hub { return &hubAdapter{h: h, ctx: ctx} }

// hubAdapter adapts the hub to the UI's interface. Every method may block on the
// store; the UI never calls them on its main goroutine.
type hubAdapter struct {
	h   *hub.Hub
	ctx context.Context
}

func (u *hubAdapter) Pending() ([]Approval, error) {
	pend, err := u.h.Pending(u.ctx, "")
	if err != nil {
		return nil, err
	}
	out := make([]Approval, 0, len(pend))
	for _, p := range pend {
		if p.Kind != hub.KindApproval && p.Kind != hub.KindConnection {
			continue
		}
		a := Approval{
			ID: p.ID, RunID: p.RunID, Seq: p.Seq, Address: p.Address, Title: p.Title,
			Connection: p.Connection, DefaultConnection: p.DefaultConnection, Reason: p.Reason,
			Client: hiddentext.Reveal(p.Client), Preview: p.Preview, Created: p.Created, Expires: p.Expires,
			Description: p.Description, Annotations: p.Annotations, Code: p.Code,
			NeedsSecret: p.Kind == hub.KindConnection, Source: p.Source, Plan: planInfo(p.Plan),
			SecretWhere: p.SecretWhere, SignIn: p.SignIn, OffersSignIn: p.OffersSignIn,
			Change: p.Change, DefinitionWas: p.DefinitionWas, DefinitionIs: p.DefinitionIs,
		}
		if p.Request != nil {
			a.Method, a.URL, a.Deprecated = p.Request.Method, p.Request.Server+p.Request.Path, p.Request.Deprecated
		}
		out = append(out, a)
	}
	return out, nil
}

func (u *hubAdapter) Decide(id string, d Decision) error {
	return u.h.Decide(u.ctx, id, string(d), policy.ChannelDialog, "dialog")
}

func (u *hubAdapter) Subscribe(fn func(Event)) func() {
	return u.h.Subscribe(func(ev hub.Event) {
		kind := ev.Kind
		if kind == hub.EventCatalog || kind == hub.EventConfig || kind == hub.EventSignIn || kind == hub.EventSignedIn {
			kind = EventSource
		}
		fn(Event{Kind: kind, ID: ev.ID})
	})
}

func (u *hubAdapter) Status() (Status, error) {
	st, err := u.h.Status(u.ctx)
	if err != nil {
		return Status{}, err
	}
	out := Status{Paused: st.Paused, Pending: st.Pending, Tools: st.Tools, ImportOffer: st.ImportOffer}
	cfg := u.h.Config()
	out.Profiles = cfg.ProfileNames()
	for _, name := range out.Profiles {
		p := cfg.Profiles[name]
		ps := ProfileSummary{Name: name, Mode: p.ModeOrDefault(), ReadOnly: p.ReadOnly}
		for _, src := range p.Sources {
			if c := p.Connections[src]; c != "" {
				src += ":" + c
			}
			ps.Sources = append(ps.Sources, src)
		}
		for _, target := range slices.Sorted(maps.Keys(p.Policy)) {
			ps.Rules = append(ps.Rules, target+"="+string(p.Policy[target]))
		}
		out.ProfileList = append(out.ProfileList, ps)
	}
	for _, s := range st.Sources {
		ss := SourceStatus{Name: s.Name, State: string(s.State), Error: s.Error, Tools: s.Tools, Disabled: s.Disabled, Stderr: s.Stderr,
			Waiting: s.Waiting, Need: s.Need, Warnings: s.Warnings, Elsewhere: s.Elsewhere, API: s.API}
		if def := cfg.Sources[s.Name]; def != nil && def.OpenAPI != "" {
			ss.OpenAPI, ss.BaseURL, ss.Origins = true, def.BaseURL, def.Origins
		}
		for _, t := range u.h.SourceTools(s.Name) {
			ss.ToolList = append(ss.ToolList, SourceTool{Address: t.Address, Title: t.Title, Mode: string(t.Mode), Deprecated: t.Deprecated})
		}
		for _, c := range s.Connections {
			ss.Connections = append(ss.Connections, ConnectionStatus{Name: c, Default: c == s.Default, HasSecret: u.h.HasSecrets(s.Name, c)})
		}
		for _, si := range s.SignIns {
			ss.SignIns = append(ss.SignIns, SignInStatus{Connection: si.Connection, SignedIn: si.SignedIn, Summary: si.Summary, SigningIn: si.SigningIn})
		}
		out.Sources = append(out.Sources, ss)
	}
	if sks, err := u.h.DirectSkills(""); err == nil {
		for _, sk := range sks {
			from := sk.Dir
			if sk.Source != "" {
				from = "source " + sk.Source
			}
			out.Skills = append(out.Skills, SkillInfo{Address: sk.Address, Description: sk.Description, From: from, Changed: sk.Changed(), Change: sk.Change})
		}
	}
	for _, dir := range slices.Sorted(maps.Keys(st.SkippedSkills)) {
		out.SkippedSkills = append(out.SkippedSkills, SkippedSkill{Folder: dir, Problem: st.SkippedSkills[dir]})
	}
	out.SkillsHome = u.h.SkillsHome()
	out.SkillFolders = slices.Clone(u.h.Config().Skills.Paths)
	return out, nil
}

func (u *hubAdapter) AddProfile(spec ProfileSpec) error {
	p := &config.Profile{Sources: spec.Sources, Mode: config.ProfileCode, ReadOnly: spec.ReadOnly, Connections: spec.Connections}
	if spec.Direct {
		p.Mode = config.ProfileDirect
	}
	for target, mode := range spec.Rules {
		m, err := config.ParseMode(mode)
		if err != nil {
			return fmt.Errorf("rule %s=%s: %w", target, mode, err)
		}
		if p.Policy == nil {
			p.Policy = map[string]config.Mode{}
		}
		p.Policy[target] = m
	}
	return u.h.PutProfile(u.ctx, spec.Name, p, false)
}

func (u *hubAdapter) RemoveProfile(name string) error { return u.h.RemoveProfile(u.ctx, name) }

func (u *hubAdapter) SetSkillFolder(dir string, add bool) error {
	return u.h.SetSkillFolder(u.ctx, dir, add)
}

func (u *hubAdapter) Runs(limit int) ([]RunSummary, error) {
	runs, err := u.h.Runs(u.ctx, limit, false)
	if err != nil {
		return nil, err
	}
	out := make([]RunSummary, 0, len(runs))
	for _, r := range runs {
		// The calls' details (arguments, results, decisions) are read
		// for the run the window shows only (RunCalls): this runs on
		// every event, over runs of hundreds of calls each.
		rs := RunSummary{ID: r.ID, Status: r.Status, Client: hiddentext.Reveal(r.Client), Started: r.Created, Code: r.Code}
		for i, c := range r.Calls {
			rs.Calls = append(rs.Calls, CallSummary{Seq: i + 1, Address: c.Address, OK: c.OK, Duration: time.Duration(c.Ms) * time.Millisecond})
		}
		if r.Envelope != nil {
			b, _ := json.MarshalIndent(r.Envelope, "", "  ")
			rs.Envelope = string(b)
			rs.Logs = r.Envelope.Logs
		}
		out = append(out, rs)
	}
	return out, nil
}

func (u *hubAdapter) RunCalls(runID string) ([]CallSummary, error) {
	calls, err := u.h.RunCalls(u.ctx, runID)
	out := make([]CallSummary, 0, len(calls))
	for _, c := range calls {
		out = append(out, callSummary(c))
	}
	return out, err
}

func (u *hubAdapter) History(limit int) ([]DecisionRecord, error) {
	hist, err := u.h.History(u.ctx, limit)
	if err != nil {
		return nil, err
	}
	out := make([]DecisionRecord, 0, len(hist))
	for _, d := range hist {
		out = append(out, DecisionRecord{RunID: d.RunID, Address: d.Address, Decision: Decision(d.Decision), Channel: d.Channel, At: d.At})
	}
	return out, nil
}

func (u *hubAdapter) SetPaused(p bool) error { u.h.SetPaused(p); return nil }

func (u *hubAdapter) Policies() ([]PolicyRule, error) {
	rules, err := u.h.PolicyRules(u.ctx)
	if err != nil {
		return nil, err
	}
	out := make([]PolicyRule, 0, len(rules))
	for _, r := range rules {
		out = append(out, PolicyRule{Pattern: r.Target, Mode: string(r.Mode), From: r.From, Scope: r.Scope, Warning: r.Warning})
	}
	return out, nil
}

func (u *hubAdapter) SetPolicy(pattern, mode string) error {
	m, err := config.ParseMode(mode)
	if err != nil {
		return err
	}
	return u.h.SetPolicy(u.ctx, pattern, m)
}

func (u *hubAdapter) RemovePolicy(pattern string) error {
	_, err := u.h.RemovePolicy(u.ctx, pattern, policy.ChannelWindow)
	return err
}

func (u *hubAdapter) SetSecret(source, connection, secret string) error {
	return u.h.SetSecret(u.ctx, source, connection, secret)
}

func (u *hubAdapter) SecretPlace(source, connection string) (string, bool, error) {
	slot, err := u.h.SecretSlot(source, connection, "")
	if np := (*config.NoSecretPlaceError)(nil); errors.As(err, &np) {
		err = &NoSecretPlace{Env: np.Env, Message: np.Error()}
	}
	return slot.Where, slot.SignIn, err
}

func (u *hubAdapter) SetSecretIn(source, connection, name string, bearer bool, secret string) error {
	name = strings.TrimSpace(name)
	if s := u.h.Config().Sources[source]; s != nil && s.Command == "" && !httpguts.ValidHeaderFieldName(name) {
		return fmt.Errorf("%q is not a header name: letters, digits and dashes, such as Authorization or X-Api-Key", name)
	}
	err := u.h.EditSource(u.ctx, source, func(s *config.Source) bool {
		connection = s.PlaceSecret(connection, name, bearer)
		return true
	})
	if err != nil {
		return err
	}
	return u.h.SetSecret(u.ctx, source, connection, secret)
}

func (u *hubAdapter) ChangedTools() ([]ToolChange, error) {
	changes, err := u.h.ToolChanges(u.ctx)
	if err != nil {
		return nil, err
	}
	out := make([]ToolChange, 0, len(changes))
	for _, c := range changes {
		out = append(out, ToolChange{Address: c.Address, Summary: c.Summary, Hash: c.Hash, Seen: c.Seen})
	}
	return out, nil
}

func (u *hubAdapter) ChangedDefinition(address string) (was, is, hash string, err error) {
	w, i, hash, err := u.h.ChangedDefinition(u.ctx, address)
	return string(w), string(i), hash, err
}

func (u *hubAdapter) AcceptTools(shown []ToolChange) error {
	s := make([]catalog.Shown, len(shown))
	for i, c := range shown {
		s[i] = catalog.Shown{Address: c.Address, Hash: c.Hash}
	}
	_, err := u.h.AcceptShown(u.ctx, s, policy.ChannelWindow)
	return err
}

func (u *hubAdapter) Login(source, connection string, showURL func(string)) error {
	_, err := u.h.SignIns().LoginShowing(u.ctx, source, connection, showURL)
	var kinds []error
	switch {
	case errors.Is(err, oauth.ErrNeedsClient):
		kinds = append(kinds, ErrNeedsClient)
	case errors.Is(err, oauth.ErrNeedsClientCredentials):
		kinds = append(kinds, ErrNeedsClientCredentials)
	default:
		return err
	}
	if errors.Is(err, oauth.ErrClientElsewhere) {
		kinds = append(kinds, ErrClientElsewhere)
	}
	return needsClient{err, kinds}
}

// needsClient is a hub error that is ErrNeedsClient or
// ErrNeedsClientCredentials, and maybe ErrClientElsewhere (kinds), to the
// UI.
type needsClient struct {
	err   error
	kinds []error
}

func (e needsClient) Error() string   { return e.err.Error() }
func (e needsClient) Unwrap() []error { return append([]error{e.err}, e.kinds...) }

func (u *hubAdapter) SetOAuthClient(source, connection, clientID, secret string, redirectPort int) error {
	return u.h.SignIns().SetClient(u.ctx, source, connection, clientID, secret, redirectPort)
}

func (u *hubAdapter) Logout(source, connection string) error {
	_, err := u.h.SignIns().Logout(u.ctx, source, connection)
	return err
}

func (u *hubAdapter) AddSource(spec SourceSpec) error {
	s := &config.Source{URL: spec.URL, OpenAPI: spec.OpenAPI, BaseURL: spec.BaseURL, Env: spec.Env, Headers: spec.Headers}
	if len(spec.Command) > 0 {
		s.Command, s.Args = spec.Command[0], spec.Command[1:]
	}
	return u.h.AddSource(u.ctx, spec.Name, s)
}

func (u *hubAdapter) RemoveSource(name string) error { return u.h.RemoveSource(u.ctx, name) }

func (u *hubAdapter) SetDefaultConnection(source, connection string) error {
	return u.h.SetDefaultConnection(u.ctx, source, connection)
}

func (u *hubAdapter) RemoveConnection(source, connection string) error {
	return u.h.RemoveConnection(u.ctx, source, connection)
}

func (u *hubAdapter) RestartSource(name string) error { return u.h.RestartSource(u.ctx, name) }

func (u *hubAdapter) SetSourceEnabled(name string, enabled bool) error {
	return u.h.EditSource(u.ctx, name, func(s *config.Source) bool { return s.SetEnabled(enabled) })
}

func (u *hubAdapter) SetBaseURL(source, baseURL string) error {
	baseURL = strings.TrimSpace(baseURL)
	// A key in it goes to the keychain first, referenced, as the Add form
	// and an import move one.
	if problem := (&config.Source{OpenAPI: "-", BaseURL: baseURL}).SecretProblem(source); problem != "" {
		return errors.New(problem)
	}
	return u.h.EditSource(u.ctx, source, func(s *config.Source) bool {
		changed := s.BaseURL != baseURL
		s.BaseURL = baseURL
		return changed
	})
}

func (u *hubAdapter) AllowOrigin(source, origin string) error {
	return u.h.EditSource(u.ctx, source, func(s *config.Source) bool { return s.AddOrigin(origin) })
}

func (u *hubAdapter) RemoveOrigin(source, origin string) error {
	return u.h.EditSource(u.ctx, source, func(s *config.Source) bool { return s.RemoveOrigin(origin) })
}

// callSummary is the window's view of one journaled call.
func callSummary(c store.CallDetail) CallSummary {
	cs := CallSummary{Seq: c.Seq, Address: c.Address, Connection: c.Connection, State: c.State, OK: c.State == "ok" || c.State == "read",
		Duration: time.Duration(c.Ms) * time.Millisecond, Args: c.Args, ArgsCut: c.ArgsCut, Result: c.Result, Cut: c.Cut,
		Decision: c.Decision, Channel: c.Channel, Actor: c.Actor, Always: c.Remember, Reason: c.Reason}
	if c.State == "error" {
		cs.Error = c.Result
	}
	return cs
}

func (u *hubAdapter) ConfigDir() string { return u.h.Paths().Home }

func (u *hubAdapter) LogFile() string { return filepath.Join(u.h.Paths().Logs(), "hub.log") }

// planInfo is the dialog's view of a call's place in its run's plan.
func planInfo(p *hub.PlanInfo) *PlanInfo {
	if p == nil {
		return nil
	}
	out := &PlanInfo{Missing: p.Missing, Stop: p.Stop}
	for _, d := range p.Denied {
		out.Denied = append(out.Denied, fmt.Sprintf("%s (#%d)", d.Address, d.Seq))
	}
	return out
}
