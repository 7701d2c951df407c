package sandbox

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dop251/goja"
)

// sameAsParse is a guest function that compares two values as JSON.parse
// results: the same types, -0 and all, the same own keys in the same order
// with the same attributes, the same prototypes.
//
// One difference is expected: an integer beyond Number.MAX_SAFE_INTEGER is
// a BigInt from jsonToValue (a), its exact value, where JSON.parse (b) gives
// the nearest number.
const sameAsParse = `(function same(a, b) {
	if (typeof a === "bigint") return typeof b === "number" && !Number.isSafeInteger(b) && parseFloat(String(a)) === b;
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
	f.Add([]byte(strings.Repeat("8", 310))) // past float64's range
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
		if perr != nil && strings.Contains(perr.Error(), "cannot unmarshal number") {
			// An integer past float64's range: JSON.parse here refuses
			// it, and the sandbox delivers it exactly, as a BigInt.
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

// Integers beyond Number.MAX_SAFE_INTEGER reach the guest exactly, as
// BigInts; every other number as JSON.parse gives it.
func TestJSONToValueExactIntegers(t *testing.T) {
	rt := goja.New()
	describe, err := rt.RunString(`(v) => JSON.stringify(v, (k, x) => typeof x === "bigint" ? x.toString() + "n" : x)`)
	if err != nil {
		t.Fatal(err)
	}
	fn, _ := goja.AssertFunction(describe)
	for in, want := range map[string]string{
		`[9007199254740991,-9007199254740991,9007199254740992,9007199254740993,-9007199254740993]`: `[9007199254740991,-9007199254740991,"9007199254740992n","9007199254740993n","-9007199254740993n"]`,
		`{"id":18446744073709551615,"f":9007199254740993.0,"e":9007199254740993e0}`:                `{"id":"18446744073709551615n","f":9007199254740992,"e":9007199254740992}`,
		`[123456789012345678901234567890,-0,0.1]`:                                                  `["123456789012345678901234567890n",0,0.1]`,
	} {
		v, ok := jsonToValue(rt, []byte(in))
		if !ok {
			t.Fatalf("declined %s", in)
		}
		got, err := fn(goja.Undefined(), v)
		if err != nil || got.String() != want {
			t.Errorf("%s = %v (%v), want %s", in, got, err, want)
		}
	}
	// Beyond 1000 digits the integer is left to JSON.parse.
	if _, ok := unsafeInteger("1" + strings.Repeat("0", maxBigIntDigits)); ok {
		t.Error("an integer of 1001 digits became a BigInt")
	}
}
