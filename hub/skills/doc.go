// Package skills is the skills the hub knows: from folders on this
// machine and from upstream MCP servers, parsed, bounded and pinned like
// tools.
//
// A skill is a folder with a SKILL.md whose YAML frontmatter names it and
// says what it is for (the Agent Skills format Claude's skills use); every
// other file in the folder belongs to it (Skill, SkillFile). Skills come
// from CAPABILITIES_HOME/skills/<name>/, from the folders config.json names
// under "skills": {"paths": [...]}, and from upstream MCP servers that offer
// the Skills extension (io.modelcontextprotocol/skills, SEP-2640;
// upstream.go).
//
// Skills are data: the heart's search lists them beside tools, its
// describe returns their instructions, and nothing runs them, so they need
// no approval. A local skill is addressed skill:<name>, an upstream's
// skill:<namespace>.<path>, and one of a skill's files
// skill:<address>#<file>. The hub serves the local ones to its own clients
// over the same extension (hub/mcpserver).
//
// Bounds. A skill holds at most 512 files and 16 MB (SEP-2640's limits): a
// file's size is checked before it is read, and a skill over either is
// skipped with a warning, never read whole. A file is served only when its
// bytes are the size and digest its skill was listed with.
//
// The Registry keeps the current Set. It watches the local folders (every
// folder of every skill, and the roots), so the heart's searches read
// nothing until a file changes (watch.go); it lists the upstreams' skills
// through a Remote at each Refresh and pins each one in the store, so a
// later entry with other frontmatter or files is marked changed
// (Skill.Changed) until the person accepts it (Accept). The registry gets
// what it works with in Options, and nothing else: the store, the Remote
// (the upstream sessions), the config, the home, the secrets to scrub, a
// logger, a clock, a callback for accepted changes and a context whose end
// stops its work.
//
// The package imports the config, catalog, store and secrets below it, and
// the upstream sessions for the entries of skills/list they read
// (upstream.ListedSkill); never the heart, the policy or the surfaces above
// it (deps_test.go).
package skills
