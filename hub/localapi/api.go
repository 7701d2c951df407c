package localapi

// The routes of the local API: what the CLI and the tray ask a running hub,
// answered by the heart.

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/catalog"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/mcpserver"
	"capabilities.sh/capabilities/hub/policy"
	"capabilities.sh/capabilities/hub/store"
)

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
	// Sessions are the MCP clients connected now (GET /v1/clients); nil
	// lists none.
	Sessions *mcpserver.Sessions
}

// Handler serves the local API routes under /v1/ (the MCP upgrade endpoint
// is the Service's own) over the heart it holds. The socket is the
// permission boundary: the Service refuses other users before a request
// reaches this handler, which checks no permission of its own.
type Handler struct {
	hub  *hub.Hub
	opts APIOptions
	mux  *http.ServeMux
}

// NewHandler returns the local API's routes over h.
func NewHandler(h *hub.Hub, opts APIOptions) *Handler {
	a := &Handler{hub: h, opts: opts, mux: http.NewServeMux()}
	a.mux.HandleFunc("GET /v1/status", a.serveStatus)
	a.mux.HandleFunc("GET /v1/runs", a.serveRuns)
	a.mux.HandleFunc("GET /v1/run", a.serveRun)
	a.mux.HandleFunc("GET /v1/clients", a.serveClients)
	a.mux.HandleFunc("GET /v1/pending", a.servePending)
	a.mux.HandleFunc("POST /v1/decide", a.serveDecide)
	a.mux.HandleFunc("POST /v1/search", a.serveSearch)
	a.mux.HandleFunc("POST /v1/describe", a.serveDescribe)
	a.mux.HandleFunc("POST /v1/execute", a.serveExecute)
	a.mux.HandleFunc("POST /v1/policy", a.servePolicySet)
	a.mux.HandleFunc("POST /v1/policy/remove", a.servePolicyRemove)
	a.mux.HandleFunc("POST /v1/accept", a.serveAccept)
	a.mux.HandleFunc("GET /v1/changes", a.serveChanges)
	a.mux.HandleFunc("GET /v1/change", a.serveChange)
	a.mux.HandleFunc("GET /v1/policy", a.servePolicyList)
	a.mux.HandleFunc("POST /v1/pause", a.servePause)
	a.mux.HandleFunc("POST /v1/reload", a.serveReload)
	a.mux.HandleFunc("POST /v1/source/restart", a.serveSourceRestart)
	a.mux.HandleFunc("POST /v1/source/enable", a.serveSourceEnable)
	a.mux.HandleFunc("POST /v1/open", a.serveOpen)
	a.mux.HandleFunc("POST /v1/http-token/reload", a.serveHTTPTokenReload)
	a.mux.HandleFunc("POST /v1/stop", a.serveStop)
	a.mux.HandleFunc("POST /v1/signed-in", a.serveSignedIn)
	return a
}

// ServeHTTP answers one local API request.
func (a *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { a.mux.ServeHTTP(w, r) }

func (a *Handler) serveStatus(w http.ResponseWriter, r *http.Request) {
	st, err := a.hub.Status(r.Context())
	st.Version, st.Exe = a.opts.Version, a.opts.Exe
	reply(w, st, err)
}

// serveClients lists the MCP clients connected now, oldest first.
func (a *Handler) serveClients(w http.ResponseWriter, r *http.Request) {
	out := a.opts.Sessions.Connected()
	if out == nil {
		out = []mcpserver.ConnectedClient{}
	}
	reply(w, out, nil)
}

func (a *Handler) serveRuns(w http.ResponseWriter, r *http.Request) {
	limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
	runs, err := a.hub.Runs(r.Context(), limit, r.URL.Query().Get("pending") != "")
	reply(w, runs, err)
}

// RunDetail is one run with its calls (GET /v1/run?run=ID).
type RunDetail struct {
	Run   hub.RunSummary     `json:"run"`
	Calls []store.CallDetail `json:"calls"`
}

func (a *Handler) serveRun(w http.ResponseWriter, r *http.Request) {
	out, err := RunDetailOf(r.Context(), a.hub, r.URL.Query().Get("run"))
	reply(w, out, err)
}

// RunDetailOf reads run runID and its calls from h.
func RunDetailOf(ctx context.Context, h *hub.Hub, runID string) (RunDetail, error) {
	run, err := h.Run(ctx, runID)
	if err != nil {
		return RunDetail{}, err
	}
	calls, err := h.RunCalls(ctx, runID)
	if calls == nil {
		calls = []store.CallDetail{}
	}
	return RunDetail{Run: run, Calls: calls}, err
}

func (a *Handler) servePending(w http.ResponseWriter, r *http.Request) {
	p, err := a.hub.Pending(r.Context(), r.URL.Query().Get("run"))
	reply(w, p, err)
}

func (a *Handler) serveDecide(w http.ResponseWriter, r *http.Request) {
	var in struct{ ID, Decision, Channel, Actor string }
	if !decode(w, r, &in) {
		return
	}
	reply(w, map[string]bool{"ok": true}, a.hub.Decide(r.Context(), in.ID, in.Decision, cmp.Or(in.Channel, policy.ChannelCLI), in.Actor))
}

func (a *Handler) serveSearch(w http.ResponseWriter, r *http.Request) {
	var in hub.SearchRequest
	if !decode(w, r, &in) {
		return
	}
	out, err := a.hub.Search(r.Context(), in)
	reply(w, map[string]string{"text": out}, err)
}

func (a *Handler) serveDescribe(w http.ResponseWriter, r *http.Request) {
	var in hub.DescribeRequest
	if !decode(w, r, &in) {
		return
	}
	out, err := a.hub.Describe(r.Context(), in)
	reply(w, map[string]string{"text": out}, err)
}

func (a *Handler) serveExecute(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Code, Resume, Client string
	}
	if !decode(w, r, &in) {
		return
	}
	env, err := a.hub.Execute(r.Context(), hub.ExecuteRequest{Code: in.Code, Resume: in.Resume, Client: cmp.Or(in.Client, "capabilities cli")})
	reply(w, env, err)
}

func (a *Handler) servePolicySet(w http.ResponseWriter, r *http.Request) {
	var in hub.PolicyChange
	if !decode(w, r, &in) {
		return
	}
	in.Channel = cmp.Or(in.Channel, policy.ChannelCLI)
	res, err := a.hub.ApplyPolicy(r.Context(), in)
	reply(w, res, err)
}

func (a *Handler) servePolicyRemove(w http.ResponseWriter, r *http.Request) {
	var in struct{ Target, Channel string }
	if !decode(w, r, &in) {
		return
	}
	res, err := a.hub.RemovePolicy(r.Context(), in.Target, cmp.Or(in.Channel, policy.ChannelCLI))
	reply(w, res, err)
}

func (a *Handler) serveAccept(w http.ResponseWriter, r *http.Request) {
	var in struct{ Target, Channel, Definition string }
	if !decode(w, r, &in) {
		return
	}
	res, err := Accept(r.Context(), a.hub, in.Target, in.Definition, cmp.Or(in.Channel, policy.ChannelCLI))
	if res == nil {
		res = []catalog.ToolChange{}
	}
	reply(w, res, err)
}

func (a *Handler) serveChanges(w http.ResponseWriter, r *http.Request) {
	changes, err := a.hub.ToolChanges(r.Context())
	if changes == nil {
		changes = []hub.ToolChangeInfo{}
	}
	reply(w, changes, err)
}

func (a *Handler) serveChange(w http.ResponseWriter, r *http.Request) {
	out, err := ChangeOf(r.Context(), a.hub, r.URL.Query().Get("address"))
	reply(w, out, err)
}

// Accept accepts the changed definitions target names (POST /v1/accept).
// With definition (a prefix of the hash 'capabilities hub changes ADDRESS'
// prints), target is one address, and its definition is accepted only
// while it is still the one with that hash: the one the person looked at.
func Accept(ctx context.Context, h *hub.Hub, target, definition, channel string) ([]catalog.ToolChange, error) {
	if definition == "" {
		return h.AcceptDefinitions(ctx, target, channel)
	}
	hash, err := h.ChangedHash(ctx, target)
	switch {
	case err != nil:
		return nil, &hub.InputError{Field: "address", Problem: err.Error()}
	case len(definition) < 8 || !strings.HasPrefix(hash, definition):
		return nil, &hub.InputError{Field: "definition", Problem: fmt.Sprintf("%s is now definition %s, not %s: it changed again since shown, or the hash is cut too short; look again with 'capabilities hub changes %s'", target, hash[:12], definition, target)}
	}
	return h.AcceptShown(ctx, []catalog.Shown{{Address: target, Hash: hash}}, channel)
}

// Change is a changed tool with its definition as accepted and as now
// (GET /v1/change?address=ADDRESS).
type Change struct {
	hub.ToolChangeInfo
	Was json.RawMessage `json:"was,omitempty"` // absent when the store did not keep it
	Is  json.RawMessage `json:"is"`
}

// ChangeOf reads the changed tool at address from h.
func ChangeOf(ctx context.Context, h *hub.Hub, address string) (Change, error) {
	changes, err := h.ToolChanges(ctx)
	if err != nil {
		return Change{}, err
	}
	for _, c := range changes {
		if c.Address != address {
			continue
		}
		was, is, hash, err := h.ChangedDefinition(ctx, c.Address)
		c.Hash = hash
		return Change{ToolChangeInfo: c, Was: was, Is: is}, err
	}
	return Change{}, &hub.InputError{Field: "address", Problem: address + " has no changed definition ('capabilities hub changes' lists those that have)"}
}

func (a *Handler) servePolicyList(w http.ResponseWriter, r *http.Request) {
	rules, err := a.hub.PolicyRules(r.Context())
	reply(w, rules, err)
}

func (a *Handler) servePause(w http.ResponseWriter, r *http.Request) {
	var in struct{ Paused bool }
	if !decode(w, r, &in) {
		return
	}
	a.hub.SetPaused(in.Paused)
	reply(w, map[string]bool{"paused": in.Paused}, nil)
}

// serveSignedIn takes the news of a sign-in finished outside the hub
// (`capabilities connection login`), so the hub uses it and says so at
// once.
func (a *Handler) serveSignedIn(w http.ResponseWriter, r *http.Request) {
	var in struct{ Source, Connection string }
	if !decode(w, r, &in) {
		return
	}
	err := a.hub.SignIns().Note(r.Context(), in.Source, in.Connection)
	reply(w, map[string]bool{"ok": err == nil}, err)
}

func (a *Handler) serveReload(w http.ResponseWriter, r *http.Request) {
	err := a.hub.ReloadConfig(r.Context())
	if err == nil {
		errs := a.hub.Refresh(r.Context())
		msgs := map[string]string{}
		for k, v := range errs {
			msgs[k] = v.Error()
		}
		reply(w, map[string]any{"ok": true, "sourceErrors": msgs}, nil)
		return
	}
	reply(w, nil, err)
}

// serveSourceRestart starts a source anew and lists its tools: {"name"}.
func (a *Handler) serveSourceRestart(w http.ResponseWriter, r *http.Request) {
	var in struct{ Name string }
	if !decode(w, r, &in) {
		return
	}
	src := a.hub.Config().Sources[in.Name]
	if src == nil {
		writeAPIError(w, http.StatusNotFound, fmt.Sprintf("no source named %q", in.Name), "'capabilities source list' names them")
		return
	}
	if src.Disabled {
		writeAPIError(w, http.StatusConflict, fmt.Sprintf("source %s is disabled", in.Name), "enable it first")
		return
	}
	if err := a.hub.RestartSource(r.Context(), in.Name); err != nil {
		writeAPIError(w, http.StatusBadGateway, err.Error(), "")
		return
	}
	reply(w, map[string]bool{"ok": true}, nil)
}

// serveSourceEnable enables or disables a source: {"name", "enabled"}.
func (a *Handler) serveSourceEnable(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Name    string
		Enabled bool
	}
	if !decode(w, r, &in) {
		return
	}
	if a.hub.Config().Sources[in.Name] == nil {
		writeAPIError(w, http.StatusNotFound, fmt.Sprintf("no source named %q", in.Name), "'capabilities source list' names them")
		return
	}
	reply(w, map[string]bool{"enabled": in.Enabled}, a.hub.EditSource(r.Context(), in.Name, func(s *config.Source) bool { return s.SetEnabled(in.Enabled) }))
}

func (a *Handler) serveOpen(w http.ResponseWriter, r *http.Request) {
	var in struct{ Tab string }
	if !decode(w, r, &in) {
		return
	}
	if a.opts.Open == nil {
		writeAPIError(w, http.StatusConflict, "this hub runs without a window (headless)", "stop it with 'capabilities hub stop' and start it again on a desktop with 'capabilities hub'")
		return
	}
	if err := a.opts.Open(in.Tab); err != nil {
		writeAPIError(w, http.StatusConflict, err.Error(), "")
		return
	}
	reply(w, map[string]bool{"opened": true}, nil)
}

func (a *Handler) serveHTTPTokenReload(w http.ResponseWriter, r *http.Request) {
	if a.opts.HTTPBearer == nil {
		reply(w, map[string]bool{"serving": false}, nil)
		return
	}
	reply(w, map[string]bool{"serving": true}, a.opts.HTTPBearer.Reload())
}

func (a *Handler) serveStop(w http.ResponseWriter, r *http.Request) {
	reply(w, map[string]bool{"stopping": true}, nil)
	if a.opts.Stop != nil {
		go a.opts.Stop()
	}
}

func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20))
	if err := dec.Decode(v); err != nil {
		writeAPIError(w, http.StatusBadRequest, "bad request body: "+err.Error(), "")
		return false
	}
	return true
}

// reply writes v as JSON, or err as the API's error body with a status
// that fits it.
func reply(w http.ResponseWriter, v any, err error) {
	if err != nil {
		status := http.StatusInternalServerError
		var ie *hub.InputError
		var ce config.Errors
		var ce1 *config.Error
		switch {
		case errors.As(err, &ie), errors.As(err, &ce), errors.As(err, &ce1):
			status = http.StatusBadRequest
		case errors.Is(err, hub.ErrAlreadyDecided):
			status = http.StatusConflict
		case errors.Is(err, hub.ErrNoPending), errors.Is(err, hub.ErrNoRun):
			status = http.StatusNotFound
		}
		writeAPIError(w, status, err.Error(), "")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}
