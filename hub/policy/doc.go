// Package policy is the rules that say which tool calls run, and the pure
// consent gate that applies them.
//
// A Rule maps a target (an address, a glob or a namespace, in the
// JavaScript form or with the MCP names: catalog.Matches) to allow, ask or
// deny. Rules come from config.json (ConfigRules; by hand, or written by
// policy set or the window) and from decisions a person asked the hub to
// remember, which hold only on their connection and, for an allow, only
// for the definition they were given for. New orders them into a Policy:
// every deny first, then from the most to the least specific.
//
// Gate decides one call from a GateInput (InputFor builds it from a
// catalog tool): the first rule that matches decides; without one a
// read-only tool is allowed and any other asks; a tool whose definition
// changed since it was pinned asks where it would be allowed; a source
// that is not configured or is disabled denies. The gate reads nothing
// but its arguments, so execute, search, describe and the window's
// explanation all decide alike. Tighten applies a profile's own rules
// after the person's, only ever to deny or ask more.
//
// CheckTarget and Normalize read a target as policy set writes it: its
// JavaScript form, how many tools it names, and the closest names when it
// names none. The Channel constants name where a decision arrived.
//
// The package's own code reaches no store, keychain or network
// (deps_test.go); editing the rules in config.json and the remembered
// decisions is the heart's (policyedit.go).
package policy
