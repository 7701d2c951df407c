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
