package tsgen

import "strings"

// HubDeclaration declares the guest's hub global, what describe answers
// for the target "hub" (or hub.search, hub.describe, hub.read), in the tool
// and in code alike. The global is the hub's own, beside the sources'
// namespaces: its search and describe, and hub.read for a result kept as a
// handle.
const HubDeclaration = `declare const hub: {
	/** Find tools and skills by what you want to do: plain text, best match first, as the search tool. */
	search(query: string): Promise<string>;
	/** TypeScript declarations of an address, a namespace or a type, as the describe tool; "skill:<name>" gives a skill's instructions, "skill:<name>#<file>" one of its files. */
	describe(target: string): Promise<string>;
	/**
	 * Read a handle: a result too large to return inline, { handle: "h_…", bytes, kind, preview }.
	 * No options: the whole value, the string or the parsed JSON.
	 * { offset, length }: a slice of the string's text (of the JSON text for kind "json"), in bytes; length defaults to the rest.
	 * A slice holds the characters that start within it, so slices in a row join into the whole.
	 * { path: "rows.4321.name" } or { path: ["rows", 4321, "name"] }: the value at a path of a JSON result.
	 * A handle this hub does not hold fails with a ToolError, code "unknown_handle".
	 */
	read(handle: string | { handle: string }, options?: { offset?: number; length?: number } | { path: string | (string | number)[] }): Promise<unknown>;
};
`

// HubTargets takes the targets that name the hub global out of targets:
// decl is HubDeclaration when there was one, rest the other targets.
func HubTargets(targets []string) (decl string, rest []string) {
	for _, t := range targets {
		switch strings.TrimSpace(t) {
		case "hub", "hub.search", "hub.describe", "hub.read":
			decl = HubDeclaration
		default:
			rest = append(rest, t)
		}
	}
	return decl, rest
}
