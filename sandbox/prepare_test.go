package sandbox

import (
	"strings"
	"testing"
	"time"

	"github.com/dop251/goja"
	"github.com/google/go-cmp/cmp"
)

func TestPrepare(t *testing.T) {
	tests := []struct {
		name string
		code string
		want Prepared
	}{
		{"plain body", "const x = 1;\nreturn x", Prepared{Code: "const x = 1;\nreturn x"}},
		{"final expression", "const x = 1;\nx + 1", Prepared{Code: "const x = 1;\nreturn x + 1", Notices: []string{noticeFinalExpr}}},
		{"final console call stays", "console.log(1)", Prepared{Code: "console.log(1)"}},
		{"final assignment stays", "let x; x = 1", Prepared{Code: "let x; x = 1"}},
		{"fenced block", "Here:\n```js\nreturn 1\n```\nDone.", Prepared{Code: "return 1", Notices: []string{noticeFence}}},
		{"fenced ts block", "```ts\nconst n: number = 1;\nreturn n\n```", Prepared{Code: "  const n = 1;\n  return n;\n", Notices: []string{noticeFence}}},
		{"export default function", "export default async function main() {\n  return 1\n}", Prepared{Code: "async function main() {\n  return 1\n}\nreturn await main();", Notices: []string{noticeExportDefault, noticeLoneFunction}}},
		{"export default named function with helpers", "export default async function main() {\n  return helper()\n}\nconst helper = () => 1",
			Prepared{Code: "async function main() {\n  return helper()\n}\nconst helper = () => 1\nreturn await main();", Notices: []string{noticeExportDefault, noticeDefaultCall}}},
		{"export default anonymous async function", "export default async function () {\n  return 1\n}",
			Prepared{Code: "return await (async function () {\n  return 1\n})()", Notices: []string{noticeDefaultCall}}},
		{"export default arrow", "export default async () => 2;", Prepared{Code: "return await (async () => 2)();", Notices: []string{noticeDefaultCall}}},
		{"export default parenthesized arrow", "export default (() => 2)", Prepared{Code: "return await ((() => 2))()", Notices: []string{noticeDefaultCall}}},
		{"export default object", "const a = 1;\nexport default { a, b: [2] };", Prepared{Code: "const a = 1;\nreturn { a, b: [2] };", Notices: []string{noticeDefaultValue}}},
		{"export default expression", "export default 1 + 2", Prepared{Code: "return 1 + 2", Notices: []string{noticeDefaultValue}}},
		{"export default identifier", "const f = async () => 3;\nexport default f",
			Prepared{Code: "const f = async () => 3;\nreturn typeof f === \"function\" ? await f() : f", Notices: []string{noticeDefaultName}}},
		{"export default followed by statements", "export default async function () { return n }\nconst n = 4;",
			Prepared{Code: "const __default__ = async function () { return n }\nconst n = 4;\nreturn await (__default__)();", Notices: []string{noticeDefaultCall}}},
		{"export default typescript function", "export default async function (): Promise<number> {\n  const x: number = 5;\n  return x\n}",
			Prepared{Code: "  return await (async function() {\n    const x = 5;\n    return x;\n  })();\n", Notices: []string{noticeDefaultCall}}},
		{"lone function", "async function main() { return 2 }", Prepared{Code: "async function main() { return 2 }\nreturn await main();", Notices: []string{noticeLoneFunction}}},
		{"lone arrow", "async () => { return 3 }", Prepared{Code: "return await (async () => { return 3 })()", Notices: []string{noticeLoneFunction}}},
		{"lone parenthesized arrow", "(async () => 3);", Prepared{Code: "return await ((async () => 3))();", Notices: []string{noticeLoneFunction}}},
		{"typescript", "const x: number = 1;\ninterface A { a: string }\nreturn x as number", Prepared{Code: "  const x = 1;\n  return x;\n"}},
		{"parenthesized final expression", "const a = 1;\n(a, a + 1)", Prepared{Code: "const a = 1;\nreturn (a, a + 1)", Notices: []string{noticeFinalExpr}}},
		{"top-level await", "const r = await github.getIssue({});\nreturn r", Prepared{Code: "const r = await github.getIssue({});\nreturn r"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Prepare(tt.code, Limits{})
			if err != nil {
				t.Fatalf("Prepare: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestPrepareErrors(t *testing.T) {
	tests := []struct {
		name, code string
		limits     Limits
		want       *Error
	}{
		{"too large", strings.Repeat("x", 101), Limits{CodeBytes: 100}, &Error{Code: CodeCodeTooLarge, Message: "the code is 101 bytes, above the limit of 100"}},
		{"empty", "  \n", Limits{}, &Error{Code: CodeSyntaxError, Message: "the code is empty"}},
		{"syntax error line", "const a = 1;\nconst b = ;\n", Limits{}, &Error{Code: CodeSyntaxError, Message: "Unexpected \";\" at line 2:11"}},
		{"unclosed expression", "const a = 1;\nreturn a +\n", Limits{}, &Error{Code: CodeSyntaxError, Message: "unexpected end of the code at line 3:1: an expression or a bracket is not closed"}},
		{"unclosed bracket", "if (x) {\n  return 1;", Limits{}, &Error{Code: CodeSyntaxError, Message: "unexpected end of the code at line 2:12: an expression or a bracket is not closed"}},
		{"syntax error in ts", "let x: number = 1;\nlet y: = 2;", Limits{}, &Error{Code: CodeSyntaxError, Message: "Unexpected \"=\" at line 2:8"}},
		{"with is strict", "with (Math) { return max(1, 2) }", Limits{}, nil},
		{"a fence bringing the call mark to the start", "```js\n" + CallMark + "return 1\n```", Limits{}, &Error{Code: CodeSyntaxError, Message: `the fenced code must not start with the line "// one call of a direct-mode tool", which marks a host's call of one tool`}},
		{"nesting", strings.Repeat("[", 300) + strings.Repeat("]", 300), Limits{}, &Error{Code: CodeTooDeeplyNested, Message: "brackets nest 300 levels deep at line 1, above the limit of 256"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Prepare(tt.code, tt.limits)
			e, ok := err.(*Error)
			if !ok {
				t.Fatalf("Prepare error = %v, want *Error", err)
			}
			if tt.want == nil {
				if e.Code != CodeSyntaxError {
					t.Errorf("code = %s, want syntax_error", e.Code)
				}
				return
			}
			tt.want.Hint = Hint(tt.want.Code)
			if diff := cmp.Diff(tt.want, e); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestNestingDepthSkipsStringsAndComments(t *testing.T) {
	code := "const s = '((((((';\n// {{{{{{\n/* [[[[ */ const t = `${ ({a: [1]}) }`; return [s]"
	if d, _ := nestingDepth(code); d != 4 {
		t.Errorf("depth = %d, want 4", d)
	}
}

func TestHashes(t *testing.T) {
	for name, h := range map[string]string{"engine": EngineHash(), "prelude": PreludeHash()} {
		if len(h) != 16 {
			t.Errorf("%s hash %q", name, h)
		}
	}
}

// FuzzPrepare checks that Prepare never panics, answers quickly, and that
// what it accepts compiles for the drivers.
func FuzzPrepare(f *testing.F) {
	for _, seed := range []string{
		"return 1", "1 + 1", "```js\nreturn 1\n```", "export default async function main() { return 1 }",
		"async () => 2", "const x: number = 1; x", "with (a) {}", "{{{{", "`${`${1}`}`", "/* unterminated",
		"'unterminated", "import x from 'y'", "return await github.getIssue({ n: 1 })", "interface A {}",
		"(async function () { return 1 })", "function* g() {}", "return ((((((1))))))", "x = 5",
		"export default async function () { return 1 }", "export default { a: 1 }\nconst b = 2", "export default f",
		"export default (async () => 1)", "export default function* () {}", "export default class {}",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, code string) {
		start := time.Now()
		p, err := Prepare(code, Limits{CodeBytes: 4096})
		if took := time.Since(start); took > 5*time.Second {
			t.Fatalf("Prepare took %s", took)
		}
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T is not *Error: %v", err, err)
			}
			return
		}
		if len(p.Notices) > 4 {
			t.Fatalf("more notices than rewrites: %v", p.Notices)
		}
		if _, err := goja.Compile(guestFile, wrapGuest(p.Code), true); err != nil {
			t.Fatalf("prepared code does not compile: %v\n%q", err, p.Code)
		}
	})
}
