package sandbox

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestDoS feeds inputs that would stop or crash an unguarded goja process.
// Each must end with its own error, and the driver must run ordinary code
// afterwards. How long one takes is no test here (a loaded machine under the
// race detector takes many times as long): a guard that let a native call
// run on would show as the limit's error missing, or a run that never
// ends.
func TestDoS(t *testing.T) {
	tests := []struct {
		name  string
		code  string
		want  []string // acceptable error codes; empty means the run completes
		short bool     // skipped with -short and under the race detector
	}{
		{"infinite loop", `while (true) {}`, []string{CodeComputeLimit}, false},
		{"repeat 2**40", `'a'.repeat(2 ** 40)`, []string{CodeMemoryLimit}, false},
		{"repeat 2**29", `'x'.repeat(2 ** 29)`, []string{CodeMemoryLimit}, false},
		{"padStart", `''.padStart(2 ** 30, 'ab')`, []string{CodeMemoryLimit}, false},
		{"replaceAll amplification", `'x'.repeat(1e6).replaceAll('x', 'y'.repeat(100))`, []string{CodeMemoryLimit, CodeComputeLimit}, false},
		{"array growth", `const a = []; for (;;) a.push([a.length, 'abcdefgh'])`, []string{CodeMemoryLimit, CodeComputeLimit}, true},
		{"array fill", `new Array(2 ** 31).fill(0)`, []string{CodeMemoryLimit}, false},
		{"array join", `new Array(2 ** 31).join('x')`, []string{CodeMemoryLimit}, false},
		{"Array.from length", `Array.from({ length: 2 ** 32 - 1 })`, []string{CodeMemoryLimit}, false},
		{"huge length includes", `const a = []; a.length = 2 ** 32 - 1; a.includes(1)`, []string{CodeComputeLimit}, false},
		{"huge length indexOf", `const a = []; a.length = 2 ** 32 - 1; a.indexOf(1)`, []string{CodeComputeLimit}, false},
		{"huge length map", `const a = []; a.length = 2 ** 32 - 1; a.map(x => x)`, []string{CodeMemoryLimit}, false},
		{"typed array", `new Float64Array(2 ** 31)`, []string{CodeMemoryLimit}, false},
		{"typed array after patching what the guard could use", `Map.prototype.get = () => [Float64Array, "x", 0, null];
			Array.prototype[Symbol.iterator] = function* () {}; globalThis.Number = () => 0; new Float64Array(2 ** 31)`, []string{CodeMemoryLimit}, false},
		{"JSON.parse nesting", `JSON.parse('['.repeat(3e6) + ']'.repeat(3e6))`, []string{CodeRuntimeError}, false},
		{"JSON.stringify depth", `let o = {}; for (let i = 0; i < 1e5; i++) o = { a: o }; return JSON.stringify(o)`, []string{CodeRuntimeError}, true},
		{"sort comparator truncates", `const a = [5, 1, 4, 2, 3]; a.sort((x, y) => { a.length = 0; return x - y }); return a`, nil, false},
		{"regexp backtracking", `return /^((a+)\2?)+$/.test('a'.repeat(40) + '!')`, []string{CodeRegexpTimeout}, false},
		{"deep recursion", `function f(n) { return f(n + 1) } f(0)`, []string{CodeStackLimit}, false},
		{"deep native flat", `let a = []; for (let i = 0; i < 2e4; i++) a = [a]; return a.flat(Infinity).length`, []string{CodeStackLimit}, false},
		{"promise flood", `for (;;) Promise.resolve().then(() => {})`, []string{CodeComputeLimit, CodeMemoryLimit}, true},
		{"microtask chain", `const f = () => Promise.resolve().then(f); f(); await new Promise(() => {})`, []string{CodeComputeLimit, CodeMemoryLimit}, true},
		{"10000 timers", `for (let i = 0; i < 10000; i++) setTimeout(() => {}, i)`, []string{CodeTimerLimit}, false},
		{"timer chain", `const f = () => setTimeout(f, 0); f(); await new Promise(() => {})`, []string{CodeComputeLimit}, true},
		{"string doubling", `let s = 'x'; for (;;) s += s`, []string{CodeMemoryLimit, CodeComputeLimit}, true},
	}
	limits := Limits{Compute: time.Second, MemoryBytes: 32 << 20}
	for name, d := range drivers(t) {
		t.Run(name, func(t *testing.T) {
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					if tt.short && (testing.Short() || raceEnabled) {
						t.Skip("slow under -short and -race")
					}
					l := limits
					switch tt.name {
					case "JSON.stringify depth":
						l.MemoryBytes = 64 << 20
					case "JSON.parse nesting":
						// Building the 6 MB input is most of the work (a
						// third of a second under the race detector, more on
						// a loaded core); the guard then refuses it at once.
						// The case is about the parser's recursion, not
						// compute: the default compute limit leaves no margin
						// for a busy machine to eat.
						l.Compute = 0
					case "deep native flat":
						// The same for flat's recursion: building the 20,000
						// nested arrays took past a second of compute beside
						// two builds under the race detector, and the stack
						// limit is what the case is about.
						l.Compute = 0
					}
					o := runCode(t, d, tt.code, nil, l)
					if len(tt.want) == 0 {
						if o.Status != StatusCompleted {
							t.Fatalf("want completed: %s", describeOutcome(o))
						}
					} else if !contains(tt.want, errCode(o)) {
						t.Fatalf("error code %q, want one of %v: %s", errCode(o), tt.want, describeOutcome(o))
					}
					if after := runCode(t, d, "return 1", nil, Limits{}); string(after.Result) != "1" {
						t.Fatalf("driver unhealthy afterwards: %s", describeOutcome(after))
					}
				})
			}
		})
	}
}

// TestReplaceGuardCounts: replaceAll's guard counts the matches only as
// far as the string cap allows, so a replacement that fits is made, to the
// last character the cap allows, and one a match longer is refused before
// the native call starts. The cap is a quarter of the memory limit in
// characters: 1,048,576 for 4 MB.
func TestReplaceGuardCounts(t *testing.T) {
	tests := []struct{ code, want, fails string }{
		{code: `return 'x'.repeat(10485).replaceAll('x', 'y'.repeat(100)).length`, want: "1048500"},
		{code: `return 'x'.repeat(10486).replaceAll('x', 'y'.repeat(100)).length`, fails: "would build a string of at least 1048600 characters"},
		{code: `return ('x' + 'y'.repeat(3e5)).replaceAll('x', 'zzzz').length`, want: "300004"},
		{code: `const s = 'ab'.repeat(2e3).replaceAll('a', 'x'.repeat(300)); return [s.length, s.slice(298, 303)]`, want: `[602000,"xxbxx"]`},
		{code: `return 'ab'.repeat(3e5).replace('a', 'xyz').slice(0, 8)`, want: `"xyzbabab"`},
	}
	limits := Limits{MemoryBytes: 4 << 20, Compute: 10 * time.Second}
	for name, d := range drivers(t) {
		for _, tt := range tests {
			o := runCode(t, d, tt.code, nil, limits)
			switch {
			case tt.fails != "" && (errCode(o) != CodeMemoryLimit || !strings.Contains(o.Error.Message, tt.fails)):
				t.Errorf("%s: %s: %s, want %s with %q", name, tt.code, describeOutcome(o), CodeMemoryLimit, tt.fails)
			case tt.fails == "" && (o.Status != StatusCompleted || string(o.Result) != tt.want):
				t.Errorf("%s: %s: %s, want %s", name, tt.code, describeOutcome(o), tt.want)
			}
		}
	}
}

// TestNestedBraces: 32K nested blocks are refused by the nesting guard
// before any parser recursion, by Prepare and by both drivers. Only the
// guard gives CodeTooDeeplyNested; a parser that recursed would overflow or
// run into the compute limit instead.
func TestNestedBraces(t *testing.T) {
	code := strings.Repeat("{", 32<<10) + strings.Repeat("}", 32<<10)
	_, err := Prepare(code, Limits{})
	if e, ok := err.(*Error); !ok || e.Code != CodeTooDeeplyNested {
		t.Fatalf("Prepare: %v", err)
	}
	for name, d := range drivers(t) {
		o := d.Run(context.Background(), Request{Code: code, Namespaces: testNamespaces, Host: &testHost{}})
		if errCode(o) != CodeTooDeeplyNested {
			t.Errorf("%s: %s", name, describeOutcome(o))
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestMemoryWithinOneTurn allocates typed arrays and buffers in tight
// synchronous loops, big ones and many small ones, through every way to
// make one: memoryBytes holds although the code never yields to the loop.
// Garbage does not count.
func TestMemoryWithinOneTurn(t *testing.T) {
	tests := []struct{ name, code string }{
		{"1 MB arrays", `const a = []; for (let i = 0; i < 96; i++) a.push(new Uint8Array(1 << 20)); return a.length`},
		{"32 KB arrays", `const a = []; for (let i = 0; i < 3000; i++) a.push(new Uint8Array(32 << 10)); return a.length`},
		{"2 KB arrays", `const a = []; for (let i = 0; i < 30000; i++) a.push(new Float64Array(256)); return a.length`},
		{"buffers", `const a = []; for (let i = 0; i < 96; i++) a.push(new ArrayBuffer(1 << 20)); return a.length`},
		{"slices", `const b = new Uint8Array(1 << 20); const a = []; for (let i = 0; i < 96; i++) a.push(b.slice()); return a.length`},
		{"buffer slices", `const b = new ArrayBuffer(1 << 20); const a = []; for (let i = 0; i < 96; i++) a.push(b.slice(0)); return a.length`},
		{"encoded text", `const s = "x".repeat(1 << 20); const a = []; for (let i = 0; i < 96; i++) a.push(new TextEncoder().encode(s)); return a.length`},
		{"subclass", `class B extends Uint8Array {}; const a = []; for (let i = 0; i < 96; i++) a.push(new B(1 << 20)); return a.length`},
	}
	// The default compute limit: thousands of small arrays, each through
	// the prelude's guard, take seconds under the race detector on a
	// loaded core before they reach 32 MB.
	limits := Limits{MemoryBytes: 32 << 20, Compute: 10 * time.Second}
	for name, d := range drivers(t) {
		t.Run(name, func(t *testing.T) {
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					// The in-process driver measures the whole process: start
					// from a collected heap, or the last test's garbage moves
					// the baseline (a known gap, see the package doc).
					runtime.GC()
					if o := runCode(t, d, tt.code, nil, limits); errCode(o) != CodeMemoryLimit {
						t.Fatalf("want memory_limit: %s", describeOutcome(o))
					}
				})
			}
			t.Run("after a run that left its garbage", func(t *testing.T) {
				// No collection in between: the first run's arrays are
				// garbage when the second starts, and must not raise its
				// limit.
				runtime.GC()
				if o := runCode(t, d, `const a = []; for (let i = 0; i < 28; i++) a.push(new Uint8Array(1 << 20)); return a.length`, nil, limits); string(o.Result) != "28" {
					t.Fatalf("28 MB under a 32 MB limit: %s", describeOutcome(o))
				}
				if o := runCode(t, d, `const a = []; for (let i = 0; i < 48; i++) a.push(new Uint8Array(1 << 20)); return a.length`, nil, limits); errCode(o) != CodeMemoryLimit {
					t.Fatalf("48 MB right after a run that left 28 MB: want memory_limit: %s", describeOutcome(o))
				}
			})
			t.Run("garbage", func(t *testing.T) {
				runtime.GC()
				code := `let n = 0; for (let i = 0; i < 200; i++) n += new Uint8Array(1 << 20).length + new ArrayBuffer(1 << 19).byteLength; return n`
				if o := runCode(t, d, code, nil, limits); string(o.Result) != "314572800" {
					t.Fatalf("200 MB allocated and dropped: %s", describeOutcome(o))
				}
			})
		})
	}
}
