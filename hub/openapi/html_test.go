package openapi

import (
	"strings"
	"testing"

	"capabilities.sh/capabilities/internal/hubtest"
)

func TestPlainText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"List public gists.", "List public gists."},
		{"<p>Cancels a customer’s subscription immediately.</p>\n\n<p>Note, however, that any pending invoice items remain.</p>",
			"Cancels a customer’s subscription immediately.\n\nNote, however, that any pending invoice items remain."},
		{"<p>Returns a list:</p><ul><li>one <code>id</code></li><li>two &amp; three</li></ul><p>Done.</p>",
			"Returns a list:\n\n- one `id`\n- two & three\n\nDone."},
		{"See <a href=\"https://stripe.com/docs\">the docs</a>.<br/>Next line.", "See the docs.\nNext line."},
		{"GET /repos/<owner>/<repo> when a < b, R&D", "GET /repos/<owner>/<repo> when a < b, R&D"},
		{"<p>Set <Owner> and <REPO></p>", "Set <Owner> and <REPO>"},
		{"<p>Tom &lt;tom@example.com&gt; <!-- hidden --> wrote</p>", "Tom <tom@example.com>  wrote"},
		{"Markdown only: R&amp;D,\n\n\nkept as `heads/<branch name>`", "Markdown only: R&amp;D,\n\n\nkept as `heads/<branch name>`"},
	}
	for _, tt := range tests {
		if got := plainText(tt.in); got != tt.want {
			t.Errorf("plainText(%q)\n got %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

// TestPlainTextLinear: a description of many paragraphs costs in
// proportion to its length, not to its length times its tags.
func TestPlainTextLinear(t *testing.T) {
	in := strings.Repeat("<p>ab</p>\n", 20000) // 200 KB, 40,000 tags
	var out string
	n := hubtest.Allocated(func() { out = plainText(in) })
	if !strings.HasPrefix(out, "ab\n\nab") || n > 8<<20 {
		t.Errorf("%d paragraphs: %d bytes allocated, out %.20q", 20000, n, out)
	}
}
