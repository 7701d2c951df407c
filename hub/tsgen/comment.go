package tsgen

// Comments that must fit: a line of JSDoc, and a block comment cut to the
// describe budget.

import (
	"fmt"
	"strings"
)

// DocLine makes s one line that cannot end a comment.
func DocLine(s string) string {
	return escapeDoc(strings.Join(strings.Fields(s), " "))
}

// FitComment closes head + body as a block comment within budget tokens
// (BudgetTokens), cutting body at a line when it does not fit, with a note
// of how many lines it shows and, when whole is set, the target to
// describe alone for more; "*/" in body is written "*\/" so the comment
// ends only where it should. describe writes a skill's instructions so.
func FitComment(head, body, whole string, budget int) string {
	body = escapeDoc(body)
	body = strings.TrimRight(body, "\n")
	full := head + body + "\n*/"
	if BudgetTokens(full) <= budget {
		return full
	}
	lines := strings.Split(body, "\n")
	render := func(k int) string {
		note := fmt.Sprintf("\n[%d of %d lines shown; the rest did not fit describe's budget", k, len(lines))
		if whole != "" {
			note += ": describe " + whole + " alone for more"
		}
		return head + strings.Join(lines[:k], "\n") + note + "]\n*/"
	}
	lo, hi := 0, len(lines)-1 // render(lo) fits, or lo is 0
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if BudgetTokens(render(mid)) <= budget {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return render(lo)
}
