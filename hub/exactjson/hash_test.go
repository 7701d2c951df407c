package exactjson

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// refHash is Hash without its shortcut: json.Unmarshal into any
// and json.Marshal, as journals hold the hashes, except for numbers whose
// float64, as encoding/json writes it, is another value: those keep their
// exact value.
func refHash(args []byte) string {
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		sum := sha256.Sum256(args)
		return hex.EncodeToString(sum[:])
	}
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	var exact any
	if err := d.Decode(&exact); err != nil {
		panic(err)
	}
	var walk func(any, any) any
	walk = func(f, e any) any {
		switch x := e.(type) {
		case json.Number:
			// The same value as what encoding/json writes for the float64.
			written, _ := json.Marshal(f)
			r, ok1 := new(big.Rat).SetString(string(x))
			w, ok2 := new(big.Rat).SetString(string(written))
			if !ok1 || !ok2 || r.Cmp(w) == 0 {
				return f
			}
			s, _ := exactDecimal(string(x))
			return json.Number(s)
		case []any:
			for i := range x {
				x[i] = walk(f.([]any)[i], x[i])
			}
		case map[string]any:
			for k := range x {
				x[k] = walk(f.(map[string]any)[k], x[k])
			}
		}
		return e
	}
	canon, _ := json.Marshal(walk(v, exact))
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:16])
}

// journaledHash is the hash journals hold: json.Unmarshal into any and
// json.Marshal.
func journaledHash(args []byte) string {
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		sum := sha256.Sum256(args)
		return hex.EncodeToString(sum[:])
	}
	canon, _ := json.Marshal(v)
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:16])
}

// Arguments that differ only in a number a float64 cannot hold hash
// differently; every other hash is the one journals hold.
func TestHashExactNumbers(t *testing.T) {
	for _, pair := range [][2]string{
		{`{"i":9007199254740993}`, `{"i":9007199254740992}`},
		{`{"i":-9007199254740993}`, `{"i":-9007199254740992}`},
		{`{"x":0.1000000000000000000001}`, `{"x":0.1}`},
		{`{"x":1e-400}`, `{"x":0}`},
		{`[123456789012345678901234567890]`, `[123456789012345678901234567891]`},
	} {
		if Hash([]byte(pair[0])) == Hash([]byte(pair[1])) {
			t.Errorf("%s and %s hash the same", pair[0], pair[1])
		}
	}
	for _, same := range [][]string{
		{`{"i":9007199254740993}`, `{"i":9007199254740993.0}`, `{"i":90071992547409930e-1}`, `{ "i": 9.007199254740993E15 }`},
		{`{"i":1}`, `{"i":1.0}`, `{"i":1e0}`, `{"i":10E-1}`},
		{`{"i":-0}`, `{"i":-0.0}`},
	} {
		for _, s := range same[1:] {
			if Hash([]byte(s)) != Hash([]byte(same[0])) {
				t.Errorf("%s and %s hash differently", s, same[0])
			}
		}
	}
	lossy := map[string]bool{`{"i":9007199254740993}`: true}
	for _, s := range hashSeeds {
		if !lossy[s] && Hash([]byte(s)) != journaledHash([]byte(s)) {
			t.Errorf("the hash of %s changed", s)
		}
	}
}

var hashSeeds = []string{
	`{}`, `[]`, `null`, `true`, `0`, `"x"`, ``, `{`, `{"a":1,}`, `[1,]`, `{"a" :1}`, ` {"a":1}`, `{"a":1} `,
	`{"a":1,"b":[true,false,null,"x",{"c":{}}]}`, `{"b":1,"a":2}`, `{"a":1,"a":2}`, `{"a":1,"a":1}`,
	`{"i":123}`, `{"i":-7}`, `{"i":-0}`, `{"i":0}`, `{"i":007}`, `{"i":1.0}`, `{"i":1.5}`, `{"i":1e2}`, `{"i":1E2}`,
	`{"i":123456789012345}`, `{"i":1234567890123456}`, `{"i":9007199254740993}`, `{"i":1e21}`, `{"i":0.000001}`,
	`{"s":"<b>"}`, `{"s":"a&b"}`, `{"s":"\u2028"}`, "{\"s\":\"\u2028\"}", "{\"s\":\"\xff\"}", "{\"s\":\"\x01\"}",
	`{"s":"\u0001"}`, `{"s":"\b\f\n\r\t"}`, `{"s":"\"\\"}`, `{"s":"\/"}`, `{"s":"\u00e9"}`, `{"s":"é"}`, `{"s":"😀"}`,
	`{"s":"\ud83d\ude00"}`, `{"s":"\ud83d"}`, `{"s":"\uFFFD"}`, "{\"s\":\"\uFFFD\"}", `{"s":"a`, `{"s":"a\`,
	`{"a\"b":1}`, `{"A":1,"a":2}`, `{"a":1,"B":2}`, `{"é":1,"z":2}`, `{"z":1,"é":2}`, `[[[[[[[[[[1]]]]]]]]]]`,
	`{"s":"` + strings.Repeat("x", 300) + `"}`, `tru`, `nul`, `-`, `"`,
}

func TestHashKeepsJournaledHashes(t *testing.T) {
	for _, s := range hashSeeds {
		if got, want := Hash([]byte(s)), refHash([]byte(s)); got != want {
			t.Errorf("Hash(%q) = %s, journals hold %s", s, got, want)
		}
	}
	// Random arguments written the way the sandbox and others write JSON.
	r := rand.New(rand.NewPCG(1, 2))
	accepted := 0
	for range 20000 {
		s := randomJSON(r, 0)
		if isCanonicalJSON([]byte(s)) {
			accepted++
		}
		if got, want := Hash([]byte(s)), refHash([]byte(s)); got != want {
			t.Fatalf("Hash(%q) = %s, journals hold %s", s, got, want)
		}
	}
	// The shortcut is taken for compact, sorted JSON.
	for _, s := range []string{`{"i":123}`, `{"a":"x","b":[1,true,null],"c":{"d":"é\n"}}`, `[]`, `"q\"uote"`} {
		if !isCanonicalJSON([]byte(s)) {
			t.Errorf("%s takes the round trip", s)
		}
	}
	t.Logf("%d of 20000 random arguments were canonical already", accepted)
}

func FuzzHash(f *testing.F) {
	for _, s := range hashSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := Hash(b), refHash(b); got != want {
			t.Errorf("Hash(%q) = %s, journals hold %s", b, got, want)
		}
	})
}

// randomJSON writes a random value with the choices a JSON writer has:
// key order, duplicate keys, escapes, number forms and, rarely, whitespace.
func randomJSON(r *rand.Rand, depth int) string {
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	ws := func() string {
		if r.IntN(20) == 0 {
			return " "
		}
		return ""
	}
	kind := r.IntN(8)
	if depth > 3 {
		kind = 2 + r.IntN(6)
	}
	switch kind {
	case 0, 1:
		keys := r.Perm(4)[:r.IntN(5)%5]
		var parts []string
		for _, k := range keys {
			key := pick("a", "b", "B", "é", "a<", "k\\\"", "\\u0061", "z")
			if k%2 == 0 {
				key = string(rune('a' + k))
			}
			parts = append(parts, ws()+`"`+key+`"`+ws()+":"+ws()+randomJSON(r, depth+1))
			if r.IntN(30) == 0 {
				parts = append(parts, `"`+key+`":`+randomJSON(r, depth+1))
			}
		}
		return "{" + strings.Join(parts, ",") + "}"
	case 2:
		n := r.IntN(4)
		parts := make([]string, n)
		for i := range parts {
			parts[i] = randomJSON(r, depth+1)
		}
		return "[" + strings.Join(parts, ","+ws()) + "]"
	case 3, 4:
		var b strings.Builder
		b.WriteByte('"')
		for range r.IntN(6) {
			b.WriteString(pick("x", "Y", "7", " ", "é", "😀", "<", ">", "&", "/", `\/`, `\\`, `\"`, `\n`, `\t`, `\b`, `\f`, `\r`,
				`\u0001`, `\u00e9`, `\u2028`, "\u2028", "\u2029", `\ud83d\ude00`, `\ud83d`, "\x7f", "\xff", "\uFFFD"))
		}
		b.WriteByte('"')
		return b.String()
	case 5, 6:
		return pick("0", "-0", "1", "-15", "42", "123456789012345", "-123456789012345", "1234567890123456",
			"9007199254740993", "1.0", "1.5", "-2.25", "1e2", "1E-7", "0.000001", "1e21", "1e20", "100000000000000000000",
			fmt.Sprint(r.IntN(1<<20)), fmt.Sprint(r.Float64()))
	default:
		return pick("true", "false", "null")
	}
}
