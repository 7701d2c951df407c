package main

import (
	"fmt"
	"strings"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/upstream"
)

// firstConnection is the name the commands give the connection a source
// with none gets: the first connection added is the source's default.
const firstConnection = "default"

// connectionWords names connection conn of a source in a sentence: "connection
// work", or, when the source has none yet, "no connection yet".
func connectionWords(conn string) string {
	if conn == "" {
		return "no connection yet"
	}
	return "connection " + conn
}

// addSecretCommand is the command that stores a secret of connection conn
// of source: a source with no connection yet gets its default connection,
// named "default", from it.
func addSecretCommand(source, conn string) string {
	if conn == "" {
		conn = firstConnection
	}
	return "capabilities connection add " + source + " " + conn
}

// loginCommand is the command that signs connection conn of source in (the
// source's default connection when conn is "").
func loginCommand(source, conn string) string {
	return strings.TrimSpace("capabilities connection login " + source + " " + conn)
}

// stateFix is the command that takes a source out of a state that waits
// for the person, or "" when the state does not: a missing secret or
// sign-in of its default connection conn.
func stateFix(state upstream.SourceStateKind, source, conn string) string {
	switch state {
	case upstream.SourceNeedsSecret:
		return addSecretCommand(source, conn)
	case upstream.SourceNeedsSignIn:
		return loginCommand(source, conn)
	}
	return ""
}

// connectionInputLine is what `hub approve` says of a call that waits for a
// connection's secret or sign-in rather than a decision: what it waits for
// and the command that gives it.
func connectionInputLine(a hub.Approval) string {
	source := a.Source
	if source == "" {
		source, _, _ = strings.Cut(a.Address, ".")
	}
	if strings.Contains(a.Reason, "sign-in") {
		return fmt.Sprintf("%s waits for a sign-in (%s of %s): run '%s'", a.Address, connectionWords(a.Connection), source, loginCommand(source, a.Connection))
	}
	return fmt.Sprintf("%s waits for a secret (%s of %s): run '%s' (the secret is read from stdin)", a.Address, connectionWords(a.Connection), source, addSecretCommand(source, a.Connection))
}
