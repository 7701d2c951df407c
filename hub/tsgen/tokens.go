package tsgen

import (
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

// codec loads the o200k_base tokenizer once, on first use.
var codec = sync.OnceValue(func() tokenizer.Codec {
	c, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		return nil
	}
	return c
})

// Tokens counts the tokens of s with the o200k_base encoding. It is safe
// for concurrent use; the first call loads the encoding.
func Tokens(s string) int {
	if s == "" {
		return 0
	}
	if c := codec(); c != nil {
		if n, err := c.Count(s); err == nil {
			return n
		}
	}
	// The encoding is embedded, so this is not expected; four bytes a
	// token is the usual estimate for English and code.
	return (len(s) + 3) / 4
}

// budgetMargin is how many tokens in ten Claude's tokenizer counts above
// o200k_base on declarations, at most: up to 1.28 times as many on the
// fixtures' short outputs (testdata, checked by
// TestDescribeBudgetHoldsForClaude against the npm tokenizer), near 1.06
// on long ones.
const budgetMargin = 3

// BudgetTokens is the conservative count the describe budget holds to:
// o200k_base tokens plus 30%, and a token for every four characters
// outside ASCII, so the output fits the budget by Claude's tokenizer as
// well as by o200k_base. Claude's tokenizer counts up to 1.46 times
// o200k_base on Chinese, Japanese and Korean text, where o200k_base
// takes about 0.6 tokens a character (TestDescribeLargeNamespaces).
func BudgetTokens(s string) int {
	return withMargin(s, Tokens(s))
}

// withMargin is BudgetTokens(s) for s of n o200k_base tokens.
func withMargin(s string, n int) int {
	wide := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= 0xC0 { // the first byte of a character outside ASCII
			wide++
		}
	}
	return n + (n*budgetMargin+9)/10 + (wide+3)/4
}

// lineCounter counts tokens as BudgetTokens does, for texts that share
// most of their lines: the renderings one describe call measures. A text
// is counted line by line, each distinct line once, where the count is
// the sum of its lines' counts (cuts).
type lineCounter map[string]int

// budgetTokens is BudgetTokens(s).
func (c lineCounter) budgetTokens(s string) int {
	return withMargin(s, c.tokens(s))
}

// tokens is Tokens(s).
func (c lineCounter) tokens(s string) int {
	n := 0
	for rest := s; len(rest) > 0; {
		line := rest[:nextCut(rest)]
		rest = rest[len(line):]
		k, ok := c[line]
		if !ok {
			k = Tokens(line)
			c[line] = k
		}
		n += k
	}
	return n
}

// nextCut is where the first piece of s to count alone ends: after the
// first line break followed by a line that o200k_base's pre-tokenizer
// cannot join to it, else len(s). The pre-tokenizer splits s into pieces
// and encodes each apart, so the pieces, and the count, are the same in
// parts cut between pieces. A piece can run past a line break only as
// whitespace holding more line breaks, or as punctuation followed by line
// breaks and slashes ("*/\n/"). So s is cut after a "\n" that the next
// line does not continue: it starts with no slash or line break, and its
// first character other than a space or tab is printable ASCII.
func nextCut(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] != '\n' || i+1 == len(s) {
			continue
		}
		if c := s[i+1]; c == '/' || c == '\n' || c == '\r' {
			continue
		}
		j := i + 1
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		if j < len(s) && s[j] > ' ' && s[j] < 0x7f {
			return i + 1
		}
	}
	return len(s)
}
