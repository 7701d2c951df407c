package sandbox

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/dop251/goja"
)

// sameAsParse is a guest function that compares two values as JSON.parse
// results: the same types, -0 and all, the same own keys in the same order
// with the same attributes, the same prototypes.
const sameAsParse = `(function same(a, b) {
	if (typeof a !== typeof b) return false;
	if (a === null || typeof a !== "object") return Object.is(a, b);
	if (b === null || Array.isArray(a) !== Array.isArray(b)) return false;
	if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
	const ka = Reflect.ownKeys(a), kb = Reflect.ownKeys(b);
	if (ka.length !== kb.length) return false;
	for (let i = 0; i < ka.length; i++) {
		if (ka[i] !== kb[i]) return false;
		const da = Object.getOwnPropertyDescriptor(a, ka[i]), db = Object.getOwnPropertyDescriptor(b, kb[i]);
		if (da.writable !== db.writable || da.enumerable !== db.enumerable || da.configurable !== db.configurable) return false;
		if (!same(da.value, db.value)) return false;
	}
	return true;
})`

var jsonSeeds = []string{
	`{}`, `[]`, `0`, `-0`, `1`, `-1.5e-3`, `1e21`, `1E+2`, `0.1`, `123456789012345678901234567890`, `1e308`, `1e309`, `-1e309`,
	`"a"`, `""`, `"\u00e9\ud83d\ude00"`, `"\ud800"`, `"tab\tand\\n"`, `"é😀"`, `true`, `false`, `null`,
	`{"a":1,"b":[1,2,{"c":null}],"d":"x"}`, ` { "a" : [ ] , "b" : { } } `, `[1,[2,[3,[4]]]]`,
	`{"__proto__":{"x":1},"y":2}`, `{"a":1,"a":2,"b":3}`, `{"2":"b","1":"a","x":"c","0":"z"}`, `{"length":3}`,
	`{"":""}`, `[null,true,false,"s",-0,0]`, `{"constructor":{"prototype":1}}`,
	`[1,]`, `{"a":1,}`, `01`, `1.`, `.5`, `+1`, `"\x"`, `"a` + "\x01" + `"`, `[1] [2]`, `nul`, `{"a" 1}`, "\"\xff\"",
}

func FuzzJSONToValue(f *testing.F) {
	for _, s := range jsonSeeds {
		f.Add([]byte(s))
	}
	rt := goja.New()
	same, err := rt.RunString(sameAsParse)
	if err != nil {
		f.Fatal(err)
	}
	sameFn, _ := goja.AssertFunction(same)
	parse, _ := goja.AssertFunction(rt.Get("JSON").ToObject(rt).Get("parse"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if jsonDepth(b) > 64 {
			return
		}
		got, ok := jsonToValue(rt, b)
		want, perr := parse(goja.Undefined(), rt.ToValue(string(b)))
		if !ok {
			// Declined: fine for anything, required for what JSON.parse
			// refuses; valid JSON of the plain kind must be taken.
			if perr == nil && json.Valid(b) && plainJSON(b) {
				t.Fatalf("declined %q, which JSON.parse takes", b)
			}
			return
		}
		if perr != nil {
			t.Fatalf("took %q, which JSON.parse refuses: %v", b, perr)
		}
		eq, err := sameFn(goja.Undefined(), got, want)
		if err != nil || !eq.ToBoolean() {
			t.Fatalf("%q: value differs from JSON.parse's (%v)", b, err)
		}
	})
}

// plainJSON reports JSON text without the cases jsonToValue declines on
// purpose: numbers out of float64 range and invalid UTF-8.
func plainJSON(b []byte) bool {
	var v any
	return json.Unmarshal(b, &v) == nil && utf8.Valid(b)
}
