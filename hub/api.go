package hub

import (
	"cmp"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
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
		reply(w, map[string]bool{"ok": true}, h.Decide(r.Context(), in.ID, in.Decision, cmp.Or(in.Channel, ChannelCLI), in.Actor))
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
		env, err := h.Execute(r.Context(), ExecuteRequest{Code: in.Code, Resume: in.Resume, Client: cmp.Or(in.Client, "capabilities cli")})
		reply(w, env, err)
	})
	mux.HandleFunc("POST /v1/policy", func(w http.ResponseWriter, r *http.Request) {
		var in PolicyChange
		if !decode(w, r, &in) {
			return
		}
		in.Channel = cmp.Or(in.Channel, ChannelCLI)
		res, err := h.ApplyPolicy(r.Context(), in)
		reply(w, res, err)
	})
	mux.HandleFunc("POST /v1/policy/remove", func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Target, Channel string }
		if !decode(w, r, &in) {
			return
		}
		res, err := h.RemovePolicy(r.Context(), in.Target, cmp.Or(in.Channel, ChannelCLI))
		reply(w, res, err)
	})
	mux.HandleFunc("POST /v1/accept", func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Target, Channel string }
		if !decode(w, r, &in) {
			return
		}
		res, err := h.AcceptDefinitions(r.Context(), in.Target, cmp.Or(in.Channel, ChannelCLI))
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
		case errors.Is(err, ErrNoPending), errors.Is(err, ErrNoRun):
			status = http.StatusNotFound
		}
		WriteAPIError(w, status, err.Error(), "")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}
