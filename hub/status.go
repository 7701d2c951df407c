package hub

// The hub at a glance: its status, its recent runs and the audit trail of
// decisions, as the local API, the CLI and the tray read them; and pausing.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"time"

	"capabilities.sh/capabilities/hub/clients"
	"capabilities.sh/capabilities/hub/naming"
	"capabilities.sh/capabilities/hub/openapi"
	"capabilities.sh/capabilities/hub/signin"
	"capabilities.sh/capabilities/hub/store"
	"capabilities.sh/capabilities/hub/upstream"
)

// SourceStatus is one source as `hub status` and the tray show it.
type SourceStatus struct {
	Name      string                   `json:"name"`
	Namespace string                   `json:"namespace"`
	State     upstream.SourceStateKind `json:"state"`
	Error     string                   `json:"error,omitempty"`
	// Summary is the state as every surface words it (upstream.SourceState.Summary).
	Summary     string   `json:"summary"`
	Tools       int      `json:"tools"`
	Connections []string `json:"connections,omitempty"`
	Default     string   `json:"default,omitempty"`
	// Warnings say what the last listing skipped or cut short (hostile
	// tool names, catalog limits).
	Warnings []string `json:"warnings,omitempty"`
	// SignIns are the OAuth connections' sign-in states; a Sign in button
	// calls Hub.SignIns().Login(source, connection).
	SignIns []signin.Status `json:"signIns,omitempty"`
	// Stderr is the last lines a stdio source's latest session wrote to
	// its stderr, scrubbed, kept after the session ended.
	Stderr []string `json:"stderr,omitempty"`
	// Disabled: config.json keeps the source without serving it.
	Disabled bool `json:"disabled,omitempty"`
	// An OpenAPI source's: what waits for credentials, what is left out
	// for its origin, where calls go.
	openapi.SourceStatus
}

// Status is the hub at a glance.
type Status struct {
	Home        string         `json:"home"`
	PID         int            `json:"pid"`
	Version     string         `json:"version,omitempty"`
	Paused      bool           `json:"paused"`
	Sources     []SourceStatus `json:"sources"`
	Tools       int            `json:"tools"`
	Pending     int            `json:"pending"`
	RunsToday   int            `json:"runsToday"`
	ConfigError string         `json:"configError,omitempty"`
	// Refused names the sources config.json has but the hub does not serve
	// (Config.Refused), with the file, the key and a name to use.
	Refused string `json:"refused,omitempty"`
	// ImportOffer is the number of servers found in the person's clients
	// that a first run offers to import, while nobody has decided.
	ImportOffer int `json:"importOffer,omitempty"`
	// Exe is the path of the binary the hub runs.
	Exe string `json:"exe,omitempty"`
	// SkippedSkills are the skill folders that are not used, each with
	// why: a person who wrote one learns here why it is missing.
	SkippedSkills map[string]string `json:"skippedSkills,omitempty"`
}

// Status reports sources (state, tool counts), pending approvals and runs
// today.
func (h *Hub) Status(ctx context.Context) (Status, error) {
	st := Status{Home: h.paths.Home, PID: os.Getpid(), Paused: h.paused.Load()}
	if err := h.ConfigError(); err != nil {
		st.ConfigError = err.Error()
	}
	if refused := h.Config().Refused(); len(refused) > 0 {
		st.Refused = refused.Error()
	}
	if o, err := clients.LoadImportOffer(h.paths); err == nil && o != nil {
		st.ImportOffer = len(o.Servers)
	}
	if skipped := h.skills.Skipped(); len(skipped) > 0 {
		st.SkippedSkills = skipped
	}
	snap := h.catalog.Snapshot()
	counts := map[string]int{}
	for _, t := range snap.Tools {
		counts[t.Source]++
	}
	st.Tools = len(snap.Tools)
	states := h.up.State()
	cfg := h.Config()
	for _, name := range slices.Sorted(maps.Keys(cfg.Sources)) {
		s := cfg.Sources[name]
		us := states[name]
		if us.State == "" { // the config changed between the two reads
			us.State = upstream.SourceIdle
			if s.Disabled {
				us.State = upstream.SourceDisabled
			}
		}
		ss := SourceStatus{Name: name, Namespace: naming.Namespace(name), Tools: counts[name], Connections: s.ConnectionNames(), Default: s.DefaultConnection(),
			State: us.State, Error: us.Err, Summary: us.Summary(), Warnings: h.catalog.Warnings(name), SignIns: h.signIns.Statuses(name),
			Stderr: h.up.StderrTail(name), Disabled: s.Disabled}
		if s.OpenAPI != "" && !s.Disabled {
			ss.SourceStatus = h.openapi.Status(name)
		}
		st.Sources = append(st.Sources, ss)
	}
	pend, err := h.db.OpenPending(ctx)
	if err != nil {
		return st, err
	}
	st.Pending = len(pend)
	y, m, d := h.now().Date()
	midnight := time.Date(y, m, d, 0, 0, 0, 0, h.now().Location())
	if st.RunsToday, err = h.db.CountRunsSince(ctx, midnight); err != nil {
		return st, err
	}
	return st, nil
}

// RunSummary is one run in a list.
type RunSummary struct {
	ID       string       `json:"id"`
	Status   string       `json:"status"`
	Client   string       `json:"client,omitempty"`
	Attempts int          `json:"attempts"`
	Created  time.Time    `json:"created"`
	Updated  time.Time    `json:"updated"`
	Code     string       `json:"code"`
	Calls    []CallRecord `json:"calls"`
	Envelope *Envelope    `json:"envelope,omitempty"`
	Pending  int          `json:"pending"`
}

// Runs lists recent runs, newest first; pendingOnly keeps runs that wait
// for a person.
func (h *Hub) Runs(ctx context.Context, limit int, pendingOnly bool) ([]RunSummary, error) {
	if limit <= 0 {
		limit = 20
	}
	q := store.RunsQuery{Limit: limit}
	if pendingOnly {
		// Waiting for a person: a call nobody decided and that has not
		// expired. A run whose calls were all decided waits for the model
		// to resume it, not for a person.
		q.Waiting, q.Now = []string{StatusAwaitingApproval, StatusAwaitingConnection}, h.now()
	}
	rows, err := h.db.RecentRuns(ctx, q)
	if err != nil {
		return nil, err
	}
	out := make([]RunSummary, 0, len(rows))
	for _, row := range rows {
		s, err := h.runSummary(row)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// Run returns run runID as Runs lists it, or an error matching ErrNoRun.
func (h *Hub) Run(ctx context.Context, runID string) (RunSummary, error) {
	row, err := h.db.LoadRun(ctx, runID)
	if errors.Is(err, ErrNoRun) {
		return RunSummary{}, fmt.Errorf("no run %s: %w", runID, err)
	}
	if err != nil {
		return RunSummary{}, err
	}
	return h.runSummary(row)
}

func (h *Hub) runSummary(row *store.Run) (RunSummary, error) {
	r, err := runRowOf(row)
	if err != nil {
		return RunSummary{}, err
	}
	s := RunSummary{ID: r.ID, Status: r.Status, Client: r.Client, Attempts: r.Attempts, Created: r.Created, Updated: r.Updated, Code: h.redactCode(r.Code), Envelope: r.Envelope, Calls: envelopeCalls(r)}
	if r.Envelope != nil {
		s.Pending = len(r.Envelope.Pending)
	}
	return s, nil
}

// History returns the latest decisions, newest first (store.DB.Decisions).
func (h *Hub) History(ctx context.Context, limit int) ([]store.DecisionRecord, error) {
	return h.db.Decisions(ctx, limit)
}

// SetPaused pauses or resumes the hub: while paused, execute refuses new
// runs (search and describe keep working).
func (h *Hub) SetPaused(p bool) {
	if h.paused.Swap(p) != p {
		h.events.Publish(Event{Kind: EventPaused})
	}
}

// Paused reports whether the hub is paused.
func (h *Hub) Paused() bool { return h.paused.Load() }
