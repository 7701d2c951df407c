package jsonstr

import (
	"encoding/json"
	"testing"
)

var samples = []string{
	"", "plain words", "pulls/list", "{owner}", "naïve café", "日本語のツール", "emoji 🚀",
	`a "quoted" word`, `back\slash`, "<b>bold</b>", "fish & chips", "tab\there", "line\nbreak", "\x00\x1f\x7f",
	"line\u2028separator", "para\u2029separator", "bad \xff byte", "cut \xe6\x97", "lone \xed\xa0\x80 surrogate",
}

// FuzzAppend: Append writes every string as json.Marshal does, and Plain
// holds exactly for those json.Marshal writes as they are.
func FuzzAppend(f *testing.F) {
	for _, s := range samples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := Append([]byte("x"), s); string(got) != "x"+string(want) {
			t.Errorf("Append(%q) = %s, want %s", s, got[1:], want)
		}
		plain := string(want) == `"`+s+`"`
		if Plain(s) != plain || Plain([]byte(s)) != plain {
			t.Errorf("Plain(%q) = %v, want %v", s, Plain(s), plain)
		}
	})
}
