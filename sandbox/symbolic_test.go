package sandbox

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func symbolJSON(call int, path ...string) string {
	b, _ := json.Marshal(map[string]Symbol{SymbolKey: {Call: call, Path: append([]string{}, path...)}})
	return string(b)
}

// FuzzSymbolic feeds any bytes to Symbols and Resolve: they never panic,
// they accept the same documents, what they accept resolves to JSON, and
// JSON without symbols or escapes resolves to itself, compacted.
func FuzzSymbolic(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add([]byte(s))
	}
	for _, s := range []string{symbolJSON(1, "a", "0"), `[` + symbolJSON(2) + `,{"$$planned":1}]`, `{"a":` + symbolJSON(3, "x") + `,"b":1}`,
		`{"$planned":{"call":0,"path":[]}}`, `{"$planned":{"call":1}}`, `{"$planned":{"call":1,"path":[1]}}`, `{"$planned":{"call":1,"path":[],"x":1}}`,
		`{"x":1,"$planned":{"call":1,"path":[]}}`, `{"$planned":{"call":1,"path":[]},"x":1}`, `{"$planned":` + symbolJSON(1) + `}`, `{ "a" : [ 1 , 2 ] }`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		syms, err := Symbols(b)
		got, rerr := Resolve(b, func(Symbol) (json.RawMessage, bool) { return json.RawMessage(`{"v":[1]}`), true })
		if (err == nil) != (rerr == nil) {
			t.Fatalf("Symbols error %v, Resolve error %v", err, rerr)
		}
		if err != nil {
			return
		}
		if !json.Valid(got) {
			t.Fatalf("Resolve(%q) = %q, not JSON", b, got)
		}
		if len(syms) == 0 && !strings.Contains(string(b), "planned") {
			var want bytes.Buffer
			if err := json.Compact(&want, b); err != nil {
				t.Fatal(err)
			}
			if string(got) != want.String() {
				t.Fatalf("Resolve(%q) = %q, want %q", b, got, want.String())
			}
		}
	})
}

func TestSymbolicHelpers(t *testing.T) {
	t.Run("Resolve drops undefined as JSON.stringify does", func(t *testing.T) {
		doc := json.RawMessage(`{"a":` + symbolJSON(1, "gone") + `,"b":[` + symbolJSON(1, "gone") + `,1],"c":` + symbolJSON(1, "here") + `}`)
		got, err := Resolve(doc, func(s Symbol) (json.RawMessage, bool) { return At(json.RawMessage(`{"here":{ "x" : 1 }}`), s.Path) })
		if err != nil || string(got) != `{"b":[null,1],"c":{"x":1}}` {
			t.Errorf("Resolve = %s, %v", got, err)
		}
		got, err = Resolve(json.RawMessage(symbolJSON(1, "gone")), func(s Symbol) (json.RawMessage, bool) { return nil, true })
		if err != nil || got != nil {
			t.Errorf("a document that is undefined: %s, %v", got, err)
		}
		if _, err := Resolve(doc, func(Symbol) (json.RawMessage, bool) { return nil, false }); err == nil {
			t.Error("Resolve without values succeeded")
		}
		if _, err := Resolve(doc, nil); err == nil {
			t.Error("Resolve with no lookup succeeded on symbols")
		}
		if _, err := Resolve(doc, func(Symbol) (json.RawMessage, bool) { return json.RawMessage(`{`), true }); err == nil {
			t.Error("Resolve took a value that is not JSON")
		}
	})
	t.Run("malformed symbols", func(t *testing.T) {
		for _, doc := range []string{`{"$planned":1}`, `{"$planned":{"call":0,"path":[]}}`, `{"$planned":{"call":1,"path":null}}`, `{"$planned":{"call":1,"path":["a"],"more":1}}`,
			`{"a":1,"$planned":{"call":1,"path":[]}}`, `{"$planned":{"call":1,"path":[]},"a":1}`, `{"$planned":{"call":1.5,"path":[]}}`, `{"$planned":{"call":1,"path":[0]}}`, `not json`} {
			if _, err := Symbols(json.RawMessage(doc)); err == nil {
				t.Errorf("Symbols(%s) succeeded", doc)
			}
		}
	})
	t.Run("At", func(t *testing.T) {
		v := json.RawMessage(`{"s":"a😀b","n":5,"z":null,"l":[1,{"k":"v"}],"o":{"length":9},"__proto__":{"p":1}}`)
		for _, tt := range []struct {
			path []string
			want string
			ok   bool
		}{
			{nil, string(v), true},
			{[]string{"l", "1", "k"}, `"v"`, true},
			{[]string{"l", "length"}, `2`, true},
			{[]string{"l", "2"}, ``, true},
			{[]string{"l", "01"}, ``, true},
			{[]string{"l", "map"}, ``, true},
			{[]string{"o", "length"}, `9`, true},
			{[]string{"s", "length"}, `4`, true},
			{[]string{"s", "0"}, `"a"`, true},
			{[]string{"s", "1"}, `"\ud83d"`, true},
			{[]string{"n", "x"}, ``, true},
			{[]string{"__proto__", "p"}, `1`, true},
			{[]string{"missing"}, ``, true},
			{[]string{"missing", "x"}, ``, false},
			{[]string{"z"}, `null`, true},
			{[]string{"z", "x"}, ``, false},
		} {
			got, ok := At(v, tt.path)
			if string(got) != tt.want || ok != tt.ok {
				t.Errorf("At(%v) = %s, %v; want %s, %v", tt.path, got, ok, tt.want, tt.ok)
			}
		}
	})
	t.Run("Symbol.String", func(t *testing.T) {
		for _, tt := range []struct {
			s    Symbol
			want string
		}{
			{Symbol{Call: 2}, "<result of call 2>"},
			{Symbol{Call: 1, Path: []string{"entities", "0", "name"}}, "<result of call 1>.entities[0].name"},
			{Symbol{Call: 1, Path: []string{"a b", "01", "$x", "1e3", `q"`}}, `<result of call 1>["a b"]["01"].$x["1e3"]["q\""]`},
		} {
			if got := tt.s.String(); got != tt.want {
				t.Errorf("%v: %s, want %s", tt.s, got, tt.want)
			}
		}
	})
}

func TestShowSymbols(t *testing.T) {
	show := func(b json.RawMessage) string { return "preview " + string(b) }
	doc := json.RawMessage(`{"to":` + symbolJSON(2, "entities", "0", "name") + `,"n":1}`)
	if got, want := ShowSymbols(doc, show), `preview {"to":<result of call 2>.entities[0].name,"n":1}`; got != want {
		t.Errorf("ShowSymbols = %s, want %s", got, want)
	}
	plain := json.RawMessage(`{"to": "ann"}`)
	if got := ShowSymbols(plain, show); got != "preview "+string(plain) {
		t.Errorf("ShowSymbols without symbols = %s, want show's own", got)
	}
	bad := json.RawMessage(`{"$planned":1}`)
	if got := ShowSymbols(bad, show); got != "preview "+string(bad) {
		t.Errorf("ShowSymbols of a malformed symbol = %s, want show's own", got)
	}
}
