package hub

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"

	"strconv"
	"strings"
	"time"

	"capabilities.sh/capabilities/hub/clients"
	"capabilities.sh/capabilities/hub/store"
)

// SourceStatus is one source as `hub status` and the tray show it.
type SourceStatus struct {
	Name      string          `json:"name"`
	Namespace string          `json:"namespace"`
	State     SourceStateKind `json:"state"`
	Error     string          `json:"error,omitempty"`
	// Summary is the state as every surface words it (SourceState.Summary).
	Summary     string   `json:"summary"`
	Tools       int      `json:"tools"`
	Connections []string `json:"connections,omitempty"`
	Default     string   `json:"default,omitempty"`
	// Warnings say what the last listing skipped or cut short (hostile
	// tool names, catalog limits).
	Warnings []string `json:"warnings,omitempty"`
	// SignIns are the OAuth connections' sign-in states; a Sign in button
	// calls Hub.Login(source, connection).
	SignIns []SignInStatus `json:"signIns,omitempty"`
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
	snap := h.catalog.Snapshot()
	counts := map[string]int{}
	for _, t := range snap.Tools {
		counts[t.Source]++
	}
	st.Tools = len(snap.Tools)
	states := h.up.State()
	cfg := h.Config()
	for _, name := range sortedKeys(cfg.Sources) {
		s := cfg.Sources[name]
		us := states[name]
		if us.State == "" { // the config changed between the two reads
			us.State = SourceIdle
			if s.Disabled {
				us.State = SourceDisabled
			}
		}
		ss := SourceStatus{Name: name, Namespace: Namespace(name), Tools: counts[name], Connections: s.ConnectionNames(), Default: s.DefaultConnection(),
			State: us.State, Error: us.Err, Summary: us.Summary(), Warnings: h.catalog.Warnings(name), SignIns: h.signInStatuses(name)}
		st.Sources = append(st.Sources, ss)
	}
	pend, err := h.runs.openPending(ctx)
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
		r, err := runRowOf(row)
		if err != nil {
			return nil, err
		}
		s := RunSummary{ID: r.ID, Status: r.Status, Client: r.Client, Attempts: r.Attempts, Created: r.Created, Updated: r.Updated, Code: h.redactCode(r.Code), Envelope: r.Envelope, Calls: envelopeCalls(r)}
		if r.Envelope != nil {
			s.Pending = len(r.Envelope.Pending)
		}
		out = append(out, s)
	}
	return out, nil
}

// DecisionRecord is one row of the audit trail.
type DecisionRecord struct {
	At       time.Time `json:"at"`
	Channel  string    `json:"channel"`
	Actor    string    `json:"actor,omitempty"`
	RunID    string    `json:"runId,omitempty"`
	Address  string    `json:"address,omitempty"`
	Decision string    `json:"decision"`
}

// History returns the latest decisions, newest first.
func (h *Hub) History(ctx context.Context, limit int) ([]DecisionRecord, error) {
	if limit <= 0 {
		limit = 50
	}
	entries, err := h.db.History(ctx, limit)
	if err != nil {
		return nil, err
	}
	var out []DecisionRecord
	for _, e := range entries {
		out = append(out, DecisionRecord{At: e.At, Channel: e.Channel, Actor: e.Actor, RunID: e.RunID, Address: e.Address, Decision: e.Decision})
	}
	return out, nil
}

// SetPaused pauses or resumes the hub: while paused, execute refuses new
// runs (search and describe keep working).
func (h *Hub) SetPaused(p bool) {
	if h.paused.Swap(p) != p {
		h.events.publish(Event{Kind: EventPaused})
	}
}

// Paused reports whether the hub is paused.
func (h *Hub) Paused() bool { return h.paused.Load() }

// APIOptions configures the local API handler.
type APIOptions struct {
	Version string
	// Exe is the path of the binary the hub runs, reported in the status
	// so that a shim of a newer binary at that path can replace it.
	Exe string
	// Stop asks the process to stop the hub (hub stop).
	Stop func()
	// Open brings up the hub's main window on a tab ("" for the current
	// one) (hub open). Nil, or an error, when the hub has no window.
	Open func(tab string) error
	// HTTPBearer is the token of the HTTP endpoint the hub serves (hub
	// --http), reloaded after `hub token --rotate`; nil without one.
	HTTPBearer *HTTPBearer
}

// APIHandler serves the local API routes under /v1/ (the MCP upgrade
// endpoint is the Service's own). The socket is the permission boundary:
// the Service refuses other users before a request reaches this handler.
func (h *Hub) APIHandler(opts APIOptions) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v1/status", func(w http.ResponseWriter, r *http.Request) {
		st, err := h.Status(r.Context())
		st.Version, st.Exe = opts.Version, opts.Exe
		reply(w, st, err)
	})
	mux.HandleFunc("GET /v1/runs", func(w http.ResponseWriter, r *http.Request) {
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		runs, err := h.Runs(r.Context(), limit, r.URL.Query().Get("pending") != "")
		reply(w, runs, err)
	})
	mux.HandleFunc("GET /v1/pending", func(w http.ResponseWriter, r *http.Request) {
		p, err := h.Pending(r.Context(), r.URL.Query().Get("run"))
		reply(w, p, err)
	})
	mux.HandleFunc("POST /v1/decide", func(w http.ResponseWriter, r *http.Request) {
		var in struct{ ID, Decision, Channel, Actor string }
		if !decode(w, r, &in) {
			return
		}
		reply(w, map[string]bool{"ok": true}, h.Decide(r.Context(), in.ID, in.Decision, orDefault(in.Channel, ChannelCLI), in.Actor))
	})
	mux.HandleFunc("POST /v1/search", func(w http.ResponseWriter, r *http.Request) {
		var in SearchRequest
		if !decode(w, r, &in) {
			return
		}
		out, err := h.Search(r.Context(), in)
		reply(w, map[string]string{"text": out}, err)
	})
	mux.HandleFunc("POST /v1/describe", func(w http.ResponseWriter, r *http.Request) {
		var in DescribeRequest
		if !decode(w, r, &in) {
			return
		}
		out, err := h.Describe(r.Context(), in)
		reply(w, map[string]string{"text": out}, err)
	})
	mux.HandleFunc("POST /v1/execute", func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Code, Resume, Client string
		}
		if !decode(w, r, &in) {
			return
		}
		env, err := h.Execute(r.Context(), ExecuteRequest{Code: in.Code, Resume: in.Resume, Client: orDefault(in.Client, "capabilities cli")})
		reply(w, env, err)
	})
	mux.HandleFunc("POST /v1/policy", func(w http.ResponseWriter, r *http.Request) {
		var in PolicyChange
		if !decode(w, r, &in) {
			return
		}
		in.Channel = orDefault(in.Channel, ChannelCLI)
		res, err := h.ApplyPolicy(r.Context(), in)
		reply(w, res, err)
	})
	mux.HandleFunc("POST /v1/policy/remove", func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Target, Channel string }
		if !decode(w, r, &in) {
			return
		}
		res, err := h.RemovePolicy(r.Context(), in.Target, orDefault(in.Channel, ChannelCLI))
		reply(w, res, err)
	})
	mux.HandleFunc("POST /v1/accept", func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Target, Channel string }
		if !decode(w, r, &in) {
			return
		}
		res, err := h.AcceptDefinitions(r.Context(), in.Target, orDefault(in.Channel, ChannelCLI))
		if res == nil {
			res = []ToolChange{}
		}
		reply(w, res, err)
	})
	mux.HandleFunc("GET /v1/policy", func(w http.ResponseWriter, r *http.Request) {
		rules, err := h.PolicyRules(r.Context())
		reply(w, rules, err)
	})
	mux.HandleFunc("POST /v1/pause", func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Paused bool }
		if !decode(w, r, &in) {
			return
		}
		h.SetPaused(in.Paused)
		reply(w, map[string]bool{"paused": in.Paused}, nil)
	})
	mux.HandleFunc("POST /v1/reload", func(w http.ResponseWriter, r *http.Request) {
		err := h.ReloadConfig(r.Context())
		if err == nil {
			errs := h.Refresh(r.Context())
			msgs := map[string]string{}
			for k, v := range errs {
				msgs[k] = v.Error()
			}
			reply(w, map[string]any{"ok": true, "sourceErrors": msgs}, nil)
			return
		}
		reply(w, nil, err)
	})
	mux.HandleFunc("POST /v1/open", func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Tab string }
		if !decode(w, r, &in) {
			return
		}
		if opts.Open == nil {
			WriteAPIError(w, http.StatusConflict, "this hub runs without a window (headless)", "stop it with 'capabilities hub stop' and start it again on a desktop with 'capabilities hub'")
			return
		}
		if err := opts.Open(in.Tab); err != nil {
			WriteAPIError(w, http.StatusConflict, err.Error(), "")
			return
		}
		reply(w, map[string]bool{"opened": true}, nil)
	})
	mux.HandleFunc("POST /v1/http-token/reload", func(w http.ResponseWriter, r *http.Request) {
		if opts.HTTPBearer == nil {
			reply(w, map[string]bool{"serving": false}, nil)
			return
		}
		reply(w, map[string]bool{"serving": true}, opts.HTTPBearer.Reload())
	})
	mux.HandleFunc("POST /v1/stop", func(w http.ResponseWriter, r *http.Request) {
		reply(w, map[string]bool{"stopping": true}, nil)
		if opts.Stop != nil {
			go opts.Stop()
		}
	})
	return mux
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20))
	if err := dec.Decode(v); err != nil {
		WriteAPIError(w, http.StatusBadRequest, "bad request body: "+err.Error(), "")
		return false
	}
	return true
}

// reply writes v as JSON, or err as the API's error body with a status
// that fits it.
func reply(w http.ResponseWriter, v any, err error) {
	if err != nil {
		status := http.StatusInternalServerError
		var ie *InputError
		var ce ConfigErrors
		var ce1 *ConfigError
		switch {
		case errors.As(err, &ie), errors.As(err, &ce), errors.As(err, &ce1):
			status = http.StatusBadRequest
		case errors.Is(err, ErrAlreadyDecided):
			status = http.StatusConflict
		case strings.Contains(err.Error(), "no pending approval"), strings.Contains(err.Error(), "no run"):
			status = http.StatusNotFound
		}
		WriteAPIError(w, status, err.Error(), "")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}
