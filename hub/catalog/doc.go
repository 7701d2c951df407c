// Package catalog is every tool of every enabled source as the guest sees
// it: github.createIssue, with the definition the person consented to.
//
// A source's tools are listed through a Lister (the upstream sessions,
// which serve the OpenAPI sources too), each source within
// Options.ListTimeout, and kept in the store, so a hub that starts answers
// from the last known tools before any upstream is up (Load) and lists
// them again at start, on a config change and when a source says its tools
// changed (Refresh; list_changed refreshes are debounced). Readers take an
// immutable Snapshot; a refresh builds a new one and swaps it in, and
// Subscribe hears of it.
//
// Addresses. A source is a namespace (naming.Namespace) and each of its
// tools a method; a method name, once the store gives it to an MCP name,
// stays with it, so a tool a server adds later cannot take over an address
// the person approved: it gets a numeric suffix instead.
//
// Definitions and pins. A tool's definition (name, title, description,
// schemas, annotations, and an OpenAPI operation's request: method, path
// and server) is hashed as canonical JSON (keys sorted at every depth) and
// stored as listed, its schemas' members in their author's order, which
// declarations follow. The first definition seen is
// pinned; a later one that differs is a change (Tool.Changed, Changes)
// until the person accepts it (Accept, Pin), and Tool.Change says in one
// line what changed ("description, annotations (no longer read-only)
// changed"). Remembered allows move with a pin, in the store's transaction.
//
// Listings. Listings is what this process knows of each source's listings:
// queued, tried, listed, fresh since its definition changed in the config.
// The heart's start-up waits read it; Warnings says what a source's last
// listing skipped or cut; SourceNote tells the model why a source's tools
// are not known or cannot be called now.
//
// Targets. Matches and KindOf are how policy rules, hub accept and the
// window name tools: an address, a glob or a namespace, in the JavaScript
// form or with the MCP names.
//
// The catalog imports of the hub only config, naming, secrets, store and,
// for the types the upstream sessions produce (RESTRequest, RequestMeta,
// ListingLimitError), upstream (deps_test.go); it never imports the heart
// nor the OpenAPI sources.
package catalog
