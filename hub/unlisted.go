package hub

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"capabilities.sh/capabilities/hub/catalog"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/exactjson"
	"capabilities.sh/capabilities/hub/naming"
	"capabilities.sh/capabilities/hub/oauth"
	"capabilities.sh/capabilities/hub/store"
	"capabilities.sh/capabilities/hub/upstream"
	"capabilities.sh/capabilities/sandbox"
)

// unlisted resolves a call to an address the attempt's catalog does not
// hold. Every configured source is a namespace in the sandbox, listed or
// not, so such a call reaches the hub when its source's tools are not
// known: the source is still starting (waited for within the start-up
// bound), down, disabled, or its default connection has no secret yet
// (the run then awaits the connection, as for a listed source). A tool the
// source lists by now is returned and the call goes on; anything else is a
// ToolError that says what is wrong.
func (r *runHost) unlisted(ctx context.Context, c sandbox.Call) (*catalog.Tool, error) {
	h := r.h
	cfg := r.config()
	ns, method, _ := strings.Cut(c.Address, ".")
	src := cfg.SourceOfNamespace(ns)
	if src == "" {
		return nil, toolError(CodeUnknownTool, c.Address, "no tool %s in the catalog", c.Address)
	}
	def := cfg.Sources[src]
	if def.Disabled {
		return nil, &sandbox.ToolError{Code: CodeSourceUnavailable, Address: c.Address,
			Message: fmt.Sprintf("source %s is disabled in the config", ns), Hint: "Tell the user; they can enable the source again."}
	}
	conn := c.Connection
	if conn != "" && def.Connections[conn] == nil {
		known := "it has none"
		if names := def.ConnectionNames(); len(names) > 0 {
			known = "it has: " + strings.Join(names, ", ")
		}
		return nil, toolError(CodeUnknownConn, c.Address, "source %s has no connection %q (%s)", src, conn, known)
	}
	conn = cmp.Or(conn, def.DefaultConnection())
	ls, _ := h.catalog.Listings().Get(src)
	if !ls.Listed {
		if missing := r.missingSecrets(src, conn); len(missing) > 0 {
			hash := exactjson.Hash(c.Args)
			var p *store.Pending
			if r.hasPending(c.Seq) {
				var err error
				if p, err = h.db.PendingAt(ctx, r.run.ID, c.Seq); err != nil {
					return nil, err
				}
			}
			if p == nil {
				p = r.newPending(c, hash, KindConnection, conn, connectionReason(conn, missing))
				if err := r.suspendOn(ctx, c, hash, p); err != nil {
					return nil, err
				}
			}
			return nil, &sandbox.Suspend{Seq: c.Seq, Address: c.Address, Kind: KindConnection, Detail: p}
		}
		// List it: its first listing, or again when it failed for a
		// reason that may have passed (the secret is there now, it was
		// down and may be back).
		st := h.up.State()[src]
		force := ls.Tried && (st.State == upstream.SourceNeedsSecret || st.State == upstream.SourceNeedsSignIn || st.Retryable)
		starting := h.awaitSources(ctx, []string{src}, force)
		if t, ok := h.catalog.Snapshot().Lookup(c.Address); ok {
			return t, nil
		}
		if len(starting) > 0 {
			return nil, &sandbox.ToolError{Code: CodeSourceUnavailable, Address: c.Address, Retryable: true,
				Message: fmt.Sprintf("source %s is still starting: its tools are not listed yet", ns), Hint: Hint(CodeSourceUnavailable)}
		}
		if ls, _ = h.catalog.Listings().Get(src); !ls.Listed {
			if missing := h.missingSecrets(src, conn); slices.Contains(missing, OAuthSignInRef) {
				// Its server asked for a sign-in when listed.
				return nil, r.awaitConnection(ctx, c, conn, missing)
			}
			return nil, r.h.unavailable(c.Address, src, ls.Err)
		}
	}
	if t, ok := h.catalog.Snapshot().Lookup(c.Address); ok {
		return t, nil
	}
	var names []string
	for _, t := range h.catalog.Snapshot().BySource(src) {
		names = append(names, t.Address)
	}
	msg := fmt.Sprintf("%s has no tool named %q", ns, method)
	if len(names) > 0 {
		if len(names) > 8 {
			names = append(names[:8], "...")
		}
		msg += "; its tools: " + strings.Join(names, ", ")
	}
	return nil, toolError(CodeUnknownTool, c.Address, "%s", msg)
}

// unavailable is the ToolError for a call to a source that is not listed
// and cannot be used now, in the words of its state; listErr is its last
// listing's failure, for a source whose session is up but whose tools
// could not be listed.
func (h *Hub) unavailable(address, source string, listErr error) *sandbox.ToolError {
	st := h.up.State()[source]
	ns := naming.Namespace(source)
	te := &sandbox.ToolError{Code: CodeSourceUnavailable, Address: address, Retryable: st.Retryable, Hint: Hint(CodeSourceUnavailable)}
	switch {
	case st.State == upstream.SourceNeedsSecret:
		te.Message = fmt.Sprintf("source %s needs a secret: %s", ns, st.Err)
		te.Hint = fmt.Sprintf("The user can add it in a terminal with `capabilities connection add %s %s`. Never ask for it in chat.", source, config.ConnectionToAdd(h.Config().Sources[source].DefaultConnection()))
	case st.State == upstream.SourceNeedsSignIn:
		te.Message = fmt.Sprintf("source %s needs sign-in: %s", ns, st.Err)
		te.Hint = oauth.SignInHint(source, h.Config().Sources[source].DefaultConnection())
	case st.Err != "":
		te.Message = fmt.Sprintf("source %s is %s: %s", ns, st.State, st.Err)
	case listErr != nil:
		te.Message = fmt.Sprintf("the tools of source %s could not be listed: %v", ns, listErr)
		te.Retryable = true
	default:
		te.Message = fmt.Sprintf("source %s is %s and its tools are not listed", ns, st.State)
		te.Retryable = true
	}
	if !te.Retryable && st.State == upstream.SourceDown {
		te.Hint = "The source cannot start as configured; tell the user (`capabilities hub status` shows why)."
	}
	return te
}

// sourceUnavailableError is the ToolError of a call whose source could
// not be reached: the state and the failure that put it there, never the
// time left in the back-off window, so the same failure reads the same.
func sourceUnavailableError(address string, ue *upstream.Error) *sandbox.ToolError {
	reason := ue.Reason()
	if ue.Cause != nil {
		reason = ue.Cause.Reason()
	}
	hint := Hint(CodeSourceUnavailable)
	if h := ue.Hint(); h != "" {
		hint = h
	}
	return &sandbox.ToolError{Code: CodeSourceUnavailable, Address: address, Retryable: ue.Retryable, Status: ue.Status,
		Message: fmt.Sprintf("source %s is down: %s", naming.Namespace(ue.Source), reason), Hint: hint}
}
