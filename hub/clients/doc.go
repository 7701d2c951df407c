// Package clients edits the person's MCP clients' config files: Claude
// Code, Claude Desktop, Cursor and VS Code, each a ClientConfig from
// ClientConfigs.
//
// Install sets the "capabilities" server entry (a ShimEntry that runs the
// shim over stdio, or an HTTPEntry for the hub's HTTP endpoint with its
// bearer token), Uninstall removes it, Repoint makes it run another binary
// and ReplaceHTTPToken gives it a new token; HasEntry says whether a file
// has it. Every edit keeps the rest of the file as it was: other keys,
// their order, the layout and the comments (VS Code's mcp.json is JSON with
// comments). A file that changes is copied to a timestamped backup first,
// 0600, in which the hub's token and any secret moved to the keychain are
// replaced by a note saying where they went; a file that is not a JSON
// object is left alone with a *config.Error.
//
// The first run of a home without config.json imports what the person's
// clients already run. Discover reads the clients' files and returns each
// server Found there once, with every client that defines it. The app lets
// only a person accept: until one decides, the found servers wait as an
// ImportOffer in the home (names and files, never a secret). ImportFound
// takes the chosen servers up: their secrets go to the keychain first,
// then config.json names them, and each server chosen to move is taken out
// of its clients' files (MoveOut) so that it does not run twice. Of the
// hub, the package imports only config (deps_test.go).
package clients
