package upstream

import (
	"fmt"
	"strings"
)

// SourceStateKind names the state of a source. It is the one vocabulary
// of source states: [Upstreams.State], [Hub.Status] (and so `hub status`,
// the tray and doctor) and what search, describe and execute tell the
// model all use it.
type SourceStateKind string

// Source states.
const (
	SourceIdle        SourceStateKind = "idle"          // no session now (never started, or closed when idle); starts on use
	SourceStarting    SourceStateKind = "starting"      // a session is connecting
	SourceUp          SourceStateKind = "up"            // at least one session is up
	SourceDown        SourceStateKind = "down"          // the last session failed to start or died
	SourceNeedsSecret SourceStateKind = "needs_secret"  // the default connection's secret is not in the keychain
	SourceDisabled    SourceStateKind = "disabled"      // disabled in the config
	SourceNeedsSignIn SourceStateKind = "needs_sign_in" // the default connection must sign in (OAuth) first
)

// Usable reports whether calls to a source in this state go upstream
// without waiting (idle sources start on the first call).
func (k SourceStateKind) Usable() bool { return k == SourceUp || k == SourceIdle }

// Summary is the state in a few words, with the reason when there is one:
// "up", "down: the server exited (exit status 1; its last output: ...)".
// Every surface that shows a source's state uses it.
func (st SourceState) Summary() string {
	switch {
	case st.State == "":
		return string(SourceIdle)
	case st.Err == "" || st.State.Usable():
		return string(st.State)
	case st.State == SourceNeedsSecret:
		return fmt.Sprintf("needs a secret: %s", st.Err)
	case st.State == SourceNeedsSignIn:
		return "needs sign-in: " + strings.TrimPrefix(st.Err, "needs sign-in: ")
	}
	return fmt.Sprintf("%s: %s", st.State, st.Err)
}
