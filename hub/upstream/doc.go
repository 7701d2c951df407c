// Package upstream is the hub's side of its sources: sessions to the
// upstream MCP servers, one per (source, connection), and the Backend seam
// other kinds of source plug into.
//
// Upstreams starts a session on first use, with the connection's secrets
// read from the keychain only then (into a stdio child's environment or an
// HTTP server's headers, and an OAuth connection's token through
// hub/oauth), and scrubs them from whatever it says about the session: log
// lines, errors and states. A session that dies restarts on the next use
// after a back-off; an idle one closes (upstream.go). A tools/list is read
// within the config's catalog limits (list.go); a result's structured
// content keeps the numbers the server wrote (exactresult.go), and
// ResultValue is the value the guest receives from it (result.go); the Skills
// extension's skills/list and resources/read are read for the skills of
// upstream servers (skills.go). Calls that may write go to one (source,
// connection) one at a time, a run's in the order it issued them
// (writeorder.go: WriteOrder per attempt, WriteLanes across runs, which
// the heart holds).
//
// A source whose config says "openapi" has no session: the Backend in
// Options.OpenAPI serves it (backend.go; hub/openapi implements it), and
// Upstreams routes its listings, calls and state there, so the catalog,
// the gate and execute treat both kinds alike. RESTRequest, the request an
// OpenAPI operation's call sends, is declared here beside the interface.
//
// Every source's state is one SourceState of one vocabulary
// (sourcestate.go), which the model, hub status, the tray and doctor all
// read; every failure is an *Error whose Kind the execute path maps to a
// ToolError code.
//
// The package imports of the hub only config, oauth, secrets and naming
// (deps_test.go): neither the OpenAPI sources that plug into it, nor the
// catalog that lists through it, nor the heart.
package upstream
