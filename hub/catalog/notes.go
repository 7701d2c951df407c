package catalog

// What the model is told of a source whose tools it cannot see or call:
// still starting, down, waiting for a secret or a sign-in, or not listed.

import (
	"cmp"
	"fmt"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/naming"
	"capabilities.sh/capabilities/hub/oauth"
	"capabilities.sh/capabilities/hub/upstream"
)

// SourceNote tells the model why source name's tools are not known, or,
// with always, why a source whose tools are known cannot be called now,
// from its definition src, its listing ls and its sessions' state st;
// starting says a start-up wait gave up on its first listing. It returns
// "" when there is nothing to say.
func SourceNote(name string, src *config.Source, ls Listing, st upstream.SourceState, starting, always bool) string {
	if starting {
		return fmt.Sprintf("%s is still starting: its tools are not listed yet. Try again in a moment.", naming.Namespace(name))
	}
	if ls.Listed && !always {
		return ""
	}
	switch st.State {
	case upstream.SourceDown:
		what := "is down"
		if !ls.Listed {
			what += ", so its tools are not listed"
		}
		msg := fmt.Sprintf("%s %s: %s.", naming.Namespace(name), what, st.Err)
		if ls.Listed {
			msg += " Its tools below are from its last listing; calls to them fail until it is back."
		}
		if st.Retryable {
			return msg + " It may come back; try again later."
		}
		return msg + " Tell the user (`capabilities hub status` shows it)."
	case upstream.SourceNeedsSecret:
		return fmt.Sprintf("%s needs a secret before it can be used: %s. The user can add it in a terminal with `capabilities connection add %s %s`; never ask for it in chat.",
			naming.Namespace(name), st.Err, name, cmp.Or(src.DefaultConnection(), "default"))
	case upstream.SourceNeedsSignIn:
		return fmt.Sprintf("%s needs the user to sign in before it can be used (%s). %s", naming.Namespace(name), st.Err, oauth.SignInHint(name, src.DefaultConnection()))
	}
	if !ls.Listed && ls.Err != nil {
		return fmt.Sprintf("%s's tools could not be listed: %v.", naming.Namespace(name), ls.Err)
	}
	return ""
}
