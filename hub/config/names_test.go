package config

import (
	"strings"
	"testing"
)

// Every suggestion is a name the config accepts.
func TestSuggestedSourceNamesAreAccepted(t *testing.T) {
	for _, name := range []string{"eval", "hub", "parseInt", "1password", "my files", "café", "", "-", "ToolError",
		"let", strings.Repeat("x", 100), "globalThis", "__proto__", "arguments"} {
		s := suggestSourceName(name)
		if p := sourceNameProblem(s); p != "" {
			t.Errorf("suggestion %q for %q is refused: %s", s, name, p)
		}
	}
}

// A client config's server whose name cannot be a namespace is not
// imported, and the import says so.
func TestImportSkipsRefusedNames(t *testing.T) {
	imp, err := ParseImport("claude.json", []byte(`{"mcpServers": {"eval": {"command": "x"}, "files": {"command": "y"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if imp.Sources["files"] == nil || imp.Sources["eval"] != nil || len(imp.Refused) != 1 ||
		!strings.Contains(imp.Refused.Error(), `claude.json: mcpServers.eval: source name "eval"`) {
		t.Errorf("sources %v, refused %v", sortedKeys(imp.Sources), imp.Refused)
	}
}
