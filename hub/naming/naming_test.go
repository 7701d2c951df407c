package naming

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNaming(t *testing.T) {
	for in, want := range map[string]string{
		"create_issue": "createIssue", "get-file": "getFile", "API.listKeys": "apiListKeys",
		"read_text_file": "readTextFile", "echo": "echo", "2fa_code": "_2faCode", "URLFor": "urlFor",
		"getHTTPStatus": "getHTTPStatus", "my-github": "myGithub", "ALLCAPS": "allcaps",
	} {
		if got := Camel(in); got != want {
			t.Errorf("Camel(%q) = %q, want %q", in, got, want)
		}
	}
	got := ToolNames([]string{"get_file", "get-file", "getFile", "delete", "constructor"})
	want := map[string]string{"constructor": "constructor_", "delete": "delete_", "get-file": "getFile", "getFile": "getFile2", "get_file": "getFile3"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ToolNames (-want +got):\n%s", diff)
	}
}

// A long name is cut at 80 bytes, never inside a character, and says its
// length; a short one stays as it is.
func TestTruncate(t *testing.T) {
	long := strings.Repeat("a", 79) + "é" + strings.Repeat("b", 100) // é spans bytes 79 and 80
	for in, want := range map[string]string{
		"create_issue":          "create_issue",
		strings.Repeat("x", 80): strings.Repeat("x", 80),
		strings.Repeat("x", 81): strings.Repeat("x", 80) + "... (81 bytes)",
		long:                    strings.Repeat("a", 79) + "... (181 bytes)",
	} {
		if got := Truncate(in); got != want {
			t.Errorf("Truncate(%d bytes) = %q, want %q", len(in), got, want)
		}
	}
}
