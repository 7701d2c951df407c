package catalog

import "testing"

// A target names a tool in the JavaScript form, with the MCP names, or
// mixing them; a glob matches either form.
func TestTargetMatchesEveryForm(t *testing.T) {
	// A tool of source my-files (namespace myFiles), MCP name read_text_file.
	const src, ns, name, js = "my-files", "myFiles", "read_text_file", "readTextFile"
	for _, tc := range []struct {
		target string
		want   bool
	}{
		{"myFiles.readTextFile", true},
		{"my-files.read_text_file", true},
		{"myFiles.read_text_file", true},
		{"my-files.readTextFile", true},
		{"my-files", true},
		{"myFiles", true},
		{"my-files.*", true},
		{"myFiles.*", true},
		{"my-files.read_*", true},
		{"myFiles.read*", true},
		{"*", true},
		{"*.read_text_file", true},
		{"my*", true},
		{"myFiles.readTextFil", false},
		{"myFiles.readtextfile", false},
		{"files", false},
		{"my-files.write*", false},
		{"other.*", false},
		{"myFiles.readTextFile.x", false},
	} {
		if got := Matches(tc.target, src, ns, name, js); got != tc.want {
			t.Errorf("Matches(%q) = %v, want %v", tc.target, got, tc.want)
		}
	}
}
