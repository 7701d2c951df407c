// Package skilltext writes the skills as search and describe show them to
// models: search's group of skill hits, and describe's answer for a skill
// (its header, files and SKILL.md) or for one of its files, as TypeScript
// comments within a token budget. An upstream's skill is marked as data
// from that source, not the person's instructions; a skill changed since
// the person accepted it says so. The heart finds the skills and reads
// their files; this package only writes them.
package skilltext
