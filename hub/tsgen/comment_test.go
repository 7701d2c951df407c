package tsgen

import (
	"fmt"
	"strings"
	"testing"
)

// TestFitComment: a body that fits is closed whole; one that does not is
// cut at a line, says how many lines it shows and what to describe for
// more, and stays within the budget; "*/" never ends the comment early.
func TestFitComment(t *testing.T) {
	head := "/**\n * skill:notes\n"
	if got := FitComment(head, "Use the notes.\n*/ not the end\n\n", "", 200); got != head+"Use the notes.\n*\\/ not the end\n*/" {
		t.Errorf("a body that fits: %q", got)
	}
	var lines []string
	for i := range 200 {
		lines = append(lines, fmt.Sprintf("Step %d: read the file, then write the summary.", i))
	}
	got := FitComment(head, strings.Join(lines, "\n"), "skill:notes#SKILL.md", 300)
	if BudgetTokens(got) > 300 {
		t.Errorf("%d tokens, over the budget of 300", BudgetTokens(got))
	}
	if !strings.HasPrefix(got, head+"Step 0:") || !strings.HasSuffix(got, " lines shown; the rest did not fit describe's budget: describe skill:notes#SKILL.md alone for more]\n*/") ||
		!strings.Contains(got, " of 200 lines shown") {
		t.Errorf("a body cut to the budget: %q", got)
	}
	if got := DocLine("two\n  lines */ here"); got != "two lines *\\/ here" {
		t.Errorf("DocLine = %q", got)
	}
}
