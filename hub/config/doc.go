// Package config is config.json and the home it lives in. The file is the
// person's, written by hand as often as by the hub: Load and Parse read it
// into a Config whose Sources are upstream MCP servers (stdio or streamable
// HTTP) and OpenAPI documents, each with named Connections whose values
// reference secrets in the keychain as ${secret:NAME} (SecretKey names
// their entries), and whose Policy maps addresses, globs and namespaces to
// Allow, Ask or Deny. A source written under a client's own "mcpServers"
// key is a source too, keys this version does not know are kept when Save
// writes the file back, and a near miss of a known key ("argz") is an error
// rather than a key silently ignored. Every problem is an Error naming the
// file, the dotted key and what is wrong; a file's problems come together
// as Errors. Profiles are named views a client selects (the sources it
// sees, a pinned connection per source, a read-only flag and rules that
// only tighten the person's), checked against the sources; ForProfile is
// the config as one of them sees it. A source is named in code by its
// namespace (naming.Namespace), and SourceOfNamespace, EnabledSources,
// SourcesOfTargets and SourcesInCode find it from there. Import reads a client's config for `source import`, moving the
// secret values it holds into the keychain. Paths names the files of one
// home, and HomeID and HomeKeychain the keychain service its secrets live
// under. The package reads and writes files and nothing more: it imports
// of the hub only naming and secrets (deps_test.go).
package config
