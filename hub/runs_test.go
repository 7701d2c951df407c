package hub

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// refArgsHash is argsHash without its shortcut: the hash journals hold.
func refArgsHash(args []byte) string {
	var v any
	if err := json.Unmarshal(args, &v); err != nil {
		sum := sha256.Sum256(args)
		return hex.EncodeToString(sum[:])
	}
	canon, _ := json.Marshal(v)
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:16])
}

var argsHashSeeds = []string{
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

func TestArgsHashKeepsJournaledHashes(t *testing.T) {
	for _, s := range argsHashSeeds {
		if got, want := argsHash([]byte(s)), refArgsHash([]byte(s)); got != want {
			t.Errorf("argsHash(%q) = %s, journals hold %s", s, got, want)
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
		if got, want := argsHash([]byte(s)), refArgsHash([]byte(s)); got != want {
			t.Fatalf("argsHash(%q) = %s, journals hold %s", s, got, want)
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

func FuzzArgsHash(f *testing.F) {
	for _, s := range argsHashSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := argsHash(b), refArgsHash(b); got != want {
			t.Errorf("argsHash(%q) = %s, journals hold %s", b, got, want)
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

// TestRunLocks checks that a run's attempts are serialized and that a
// run's lock is gone once nobody holds or waits for it.
func TestRunLocks(t *testing.T) {
	var l runLocks
	var inside, most atomic.Int32
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := fmt.Sprintf("r_%d", i%4)
			unlock := l.lock(id)
			defer unlock()
			if i%4 == 0 {
				n := inside.Add(1)
				if n > most.Load() {
					most.Store(n)
				}
				time.Sleep(time.Millisecond)
				inside.Add(-1)
			}
		}()
	}
	wg.Wait()
	if most.Load() != 1 {
		t.Fatalf("%d attempts of one run held its lock at once", most.Load())
	}
	if n := l.held(); n != 0 {
		t.Fatalf("%d run locks left after every attempt ended", n)
	}
}
