package search

// synonymGroups is the query-expansion table: words that people and tool
// authors use interchangeably for the same operation or object. Every word
// of a group expands to the others. The table is generic tool vocabulary
// (verbs of CRUD and version control, common resources); it must not grow
// entries that only serve one benchmark query.
var synonymGroups = [][]string{
	// Operations.
	{"create", "add", "new", "make", "insert", "append", "attach", "start"},
	{"delete", "remove", "erase", "drop", "destroy", "discard", "purge", "strip", "rid", "forget", "retire", "wipe"},
	{"list", "show", "enumerate", "display", "browse"},
	{"read", "get", "fetch", "open", "view", "load", "retrieve", "dump", "cat", "print"},
	{"write", "save", "store", "persist", "record", "put"},
	{"search", "find", "query", "lookup", "locate", "seek", "grep"},
	{"update", "edit", "modify", "change", "alter", "patch", "amend", "upgrade"},
	{"replace", "overwrite"},
	{"move", "rename", "relocate", "mv"},
	// A work item moved from one state to another ("move PROJ-7 to
	// Done"): a workflow's transition, in the trackers' own word.
	{"move", "transition"},
	{"copy", "duplicate", "clone", "cp"},
	{"commit", "record"},
	{"download", "fetch", "scrape", "crawl"},
	{"upload", "push", "publish"},
	{"send", "post", "message", "notify", "say"},
	{"run", "execute", "exec", "invoke", "perform", "call"},
	{"trigger", "dispatch"},
	{"convert", "translate", "transform"},
	{"compare", "diff", "differ", "different"},
	{"undo", "revert", "reset", "unstage", "rollback"},
	{"stop", "terminate", "cancel", "kill", "halt", "end"},
	{"describe", "inspect", "explain", "schema", "defined", "definition"},
	{"connect", "link"},
	{"react", "reaction", "thumbs", "upvote"},
	{"merge", "combine", "fold"},
	{"trash", "bin"},
	{"think", "thought", "reason", "reflect"},
	{"know", "knowledge"},

	// Objects and qualities.
	{"file", "document", "doc"},
	{"folder", "directory", "dir"},
	{"subfolder", "subdirectory", "subdir"},
	{"repository", "repo", "project"},
	{"url", "link", "web", "website", "page", "internet", "http"},
	{"image", "picture", "photo", "media", "screenshot"},
	{"metadata", "info", "information", "details", "stat", "attributes"},
	{"permit", "allow", "authorize", "access"},
	{"several", "multiple", "many", "batch", "bulk"},
	{"full", "complete", "entire", "whole"},
	{"additional", "extra", "more"},
	{"history", "log", "past"},
	{"status", "state"},
	{"presence", "online", "offline"},
	{"note", "memo", "observation", "annotation", "fact", "remember", "memorize"},
	{"node", "entity", "vertex"},
	{"relation", "relationship", "edge", "link"},
	{"tree", "hierarchy", "recursive", "nested"},
	{"pattern", "glob", "wildcard", "regex"},
	{"time", "clock", "date", "day"},
	{"timezone", "tz", "zone"},
	{"recent", "lately", "recently"},
	{"upcoming", "next"},
	{"current", "present", "today", "latest", "last"},
	{"issue", "ticket", "bug"},
	{"pull", "pr", "merge"},
	{"user", "person", "member", "account", "people"},
	{"team", "workspace"},
	{"email", "mail", "inbox"},
	{"calendar", "event", "meeting", "schedule"},
	{"channel", "conversation"},
	{"database", "db"},
	{"row", "record"},
	{"size", "large", "big", "bytes", "larger", "largest", "bigger", "biggest", "smallest"},
	{"use", "using", "usage"},
	{"count", "number", "total"},
	{"id", "uid", "uuid", "guid", "identifier"},
}

// synonyms maps a stem to the stems it expands to, built from
// synonymGroups. A word in several groups expands to the union.
var synonyms = func() map[string][]string {
	m := make(map[string][]string)
	for _, g := range synonymGroups {
		stems := make([]string, len(g))
		for i, w := range g {
			stems[i] = string(stem([]byte(w)))
		}
		for i, s := range stems {
			for j, o := range stems {
				if i == j || o == s || contains(m[s], o) {
					continue
				}
				m[s] = append(m[s], o)
			}
		}
	}
	return m
}()

// readVerbs are the stems of the synonym group of reading ("open",
// "load", "fetch"...).
var readVerbs = func() map[string]bool {
	m := map[string]bool{}
	for _, g := range synonymGroups {
		if g[0] == "read" {
			for _, w := range g {
				m[string(stem([]byte(w)))] = true
			}
		}
	}
	return m
}()

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
