// Package openapi serves REST APIs described by OpenAPI documents as
// sources of the hub: each operation of a source's document is a tool, and
// a call is one HTTP request.
//
// Sources is an upstream.Backend: the upstream sessions hand it the config
// and route the listings, calls and state of the sources whose config says
// "openapi" to it, so the catalog, the gate and execute treat REST APIs
// and MCP servers alike. It reports what the sessions cannot see through
// the callbacks of its Options: that a document changed (its tools are to
// be listed again) and that a source's state may have changed.
//
// The files, by concept:
//
//   - openapi.go: Sources, its documents' loads and watchers, listing,
//     credentials, AuthNeed (what an operation needs of a connection that
//     it lacks, which the heart asks before a call goes out) and the call:
//     the request built from the arguments, kept on the API's origin, sent
//     and its answer read within bounds.
//   - document.go, schema.go: a document read within its bounds and
//     parsed (libopenapi) into operations and the tools the catalog lists,
//     with JSON Schemas written from the document's own.
//   - child.go: the same parse in a child process (Options.Child, which
//     the app sets), under memory and time bounds, so the hub never holds
//     a document's parsed model and a document that breaks the parser
//     fails alone; ServeChild is the child's side.
//   - cache.go: what the child wrote for a document, kept in a folder
//     (Child.CacheDir) by the executable and the document, so a hub that
//     starts again does not parse the same document again.
//   - requests.go: the request each listed operation carries in its
//     _meta, which the catalog pins with its definition, and which
//     operations a source serves: one whose own server is on another
//     origin than the API's only when the source's "origins" lists it.
//   - oauth.go: a connection's sign-in as the bearer token of its calls.
//   - check.go: Check, a document read and parsed as the hub would, for the
//     CLI (in process) and for the hub's AddSource (Sources.Check, as the
//     sources parse).
//
// The package imports of the hub only upstream, config, oauth, secrets and
// naming (deps_test.go): neither the catalog, the policy, the skills nor
// the heart and the surfaces above it.
package openapi
