package tsgen

import (
	"sync"
	"testing"
)

// A Catalog answers as Describe does, from many goroutines at once, with
// its namespace indexes built once and shared.
func TestCatalogMatchesDescribe(t *testing.T) {
	catalog := append(bigCatalog(30), Tool{Namespace: "other", Name: "ping", Description: "Ping."})
	targets := [][]string{{"big.tool007"}, {"big"}, {"other", "big.tool001"}, {"big.Tool007Input"}, {"nope"}}
	c := NewCatalog(catalog)
	var wg sync.WaitGroup
	for range 4 {
		for _, tg := range targets {
			wg.Add(1)
			go func() {
				defer wg.Done()
				want, wantErr := Describe(catalog, tg, &Options{Budget: 400})
				got, err := c.Describe(tg, &Options{Budget: 400})
				if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
					t.Errorf("%v: error %v, want %v", tg, err, wantErr)
				}
				if got.Text != want.Text {
					t.Errorf("%v:\n%s\nwant\n%s", tg, got.Text, want.Text)
				}
			}()
		}
	}
	wg.Wait()
	if n := len(c.indexes); n != 3 { // big, other, nope (nil)
		t.Errorf("%d namespace indexes kept, want 3", n)
	}
}
