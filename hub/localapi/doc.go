// Package localapi is the hub's local API: how the person's own programs
// (the CLI, the tray app, the stdio shim MCP clients start) reach the one
// hub that runs for a home.
//
// The pieces:
//
//   - service.go: [Service], the unix socket of the home, with its
//     single-instance lock and the three walls in front of it (a 0600
//     socket, the peer's uid, no web origins); MCP sessions ride on it as
//     upgraded connections. [Client] and [Dial] speak to it, with typed
//     methods for the routes the CLI and the tray use most.
//   - api.go: [Handler], the routes under /v1/ (status, runs, one run
//     with its calls ([RunDetail]), approvals, search, describe, execute,
//     policy, sources, the clients connected now, pause, reload, stop),
//     answered by the heart it holds.
//   - shim.go: [RunShim], what `capabilities mcp` runs for a client: stdio
//     to the hub's socket, reconnecting when the hub restarts.
//   - httpserve.go: [ServeHTTP], the optional streamable HTTP endpoint on
//     loopback, behind a bearer token kept in the keychain ([HTTPToken]).
//
// The package sits above the heart (package hub) and the MCP surface
// (hub/mcpserver), whose server it serves; neither imports it.
package localapi
