// Package scope is what one request made in a profile sees: a named view
// of the hub that a client selects outside the model's reach (capabilities
// mcp --profile NAME, the HTTP path /mcp/p/NAME). For a request made in a
// profile only the profile's sources exist: the config, the catalog
// snapshot and the skills are filtered to them, a source whose connection
// the profile pins has only that one, the profile's rules apply after the
// person's and only tighten them, and only the profile's own runs exist.
//
// A nil *Scope is the whole hub, as a client without a profile sees it.
// The heart makes one per request that names a profile (Cache) and asks
// it on every step; the surfaces only pass the name along.
package scope
