package sandbox

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/parser"
	"github.com/evanw/esbuild/pkg/api"
)

// Prepared is code ready for Request.Code: the forgiving rewrites applied,
// TypeScript annotations stripped, and one notice per rewrite.
type Prepared struct {
	Code    string   `json:"code"`
	Notices []string `json:"notices,omitempty"`
}

// The guest code is the body of a strict async function. Prepare and the
// drivers wrap it the same way; guestPrefix ends in a newline so guest line
// n is line n+1 of the wrapped source.
const (
	guestFile   = "code.js"
	guestPrefix = "(async function () {\"use strict\";\n"
	guestSuffix = "\n})"
	// maxNesting bounds bracket nesting in code, checked before any parser
	// runs: parsers recurse per level and some are slow on deep input.
	maxNesting = 256
)

func wrapGuest(code string) string { return guestPrefix + code + guestSuffix }

// parseGuest parses code wrapped as the guest function. A syntax error is
// a parser.ErrorList with positions in the wrapped source (goja.Parse and
// goja.Compile flatten it into a message). Source map comments are never
// followed: they could name any file.
func parseGuest(code string) (*ast.Program, error) {
	return parser.ParseFile(nil, guestFile, wrapGuest(code), 0, parser.WithDisableSourceMaps)
}

// compileGuest compiles code wrapped as the guest function, in strict mode,
// as the drivers run it.
func compileGuest(code string) (*goja.Program, error) {
	prog, err := parseGuest(code)
	if err != nil {
		return nil, err
	}
	return goja.CompileAST(prog, true)
}

// Notices added by the forgiving rewrites, one per rewrite.
const (
	noticeFence         = "Took the code from the fenced code block."
	noticeExportDefault = "Removed `export default`: the code is the body of an async function."
	noticeLoneFunction  = "Called the lone function and returned its result."
	noticeFinalExpr     = "Returned the value of the final expression."
	noticeDefaultCall   = "Called the function after `export default` and returned its result."
	noticeDefaultValue  = "Returned the value after `export default`."
	noticeDefaultName   = "Returned the value after `export default`, called first when it is a function."
)

var (
	fenceRe         = regexp.MustCompile("(?s)```[ \\t]*(?:js|javascript|ts|typescript|mjs|jsx|tsx)?[ \\t]*\\r?\\n(.*?)\\r?\\n?[ \\t]*```")
	exportDefaultRe = regexp.MustCompile(`(?m)^([ \t]*)export[ \t]+default[ \t]+`)
	// namedDeclRe is a declaration `export default` may precede: a named
	// function (its name in group 2, a generator's star in group 1) or class.
	namedDeclRe = regexp.MustCompile(`^(?:(?:async[ \t]+)?function[ \t]*(\*?)[ \t]*([A-Za-z_$][A-Za-z0-9_$]*)[ \t]*\(|class[ \t]+[A-Za-z_$])`)
)

// defaultTemp holds the value after `export default` when statements
// follow it.
const defaultTemp = "__default__"

// exported is what `export default` preceded: a named function declaration
// (kept as a declaration, to be called), or an expression (rewritten as a
// return statement, to be returned or called).
type exported struct {
	function string // the declared function's name
	expr     bool
}

// Prepare turns code as a model writes it into code the drivers run.
//
// In order: the size check against limits.CodeBytes (after lowering the
// defaults by limits); the body of a fenced code block; a bracket-nesting
// pre-scan; unwrapping `export default`; a parse as JavaScript and, only if
// that fails, TypeScript stripping with esbuild; then calling a lone function
// and returning a final expression. Errors are *Error with code
// code_too_large, too_deeply_nested or syntax_error; syntax errors give the
// line and column in the code as the person wrote it (after the fence is
// taken). Prepare is safe for concurrent use.
func Prepare(code string, limits Limits) (Prepared, error) {
	limits = DefaultLimits().Lower(limits)
	if n := codeBytes(code, limits); n > limits.CodeBytes {
		return Prepared{}, newError(CodeCodeTooLarge, "the code is %d bytes, above the limit of %d", n, limits.CodeBytes)
	}
	var notices []string
	if m := fenceRe.FindStringSubmatch(code); m != nil {
		code = m[1]
		notices = append(notices, noticeFence)
		if strings.HasPrefix(code, CallMark) {
			// A host refuses CallMark in code it did not write; a fence
			// must not bring it to the start.
			return Prepared{}, newError(CodeSyntaxError, "the fenced code must not start with the line %q, which marks a host's call of one tool", strings.TrimSpace(CallMark))
		}
	}
	if strings.TrimSpace(code) == "" {
		return Prepared{}, newError(CodeSyntaxError, "the code is empty")
	}
	if depth, line := nestingDepth(code); depth > maxNesting {
		return Prepared{}, newError(CodeTooDeeplyNested, "brackets nest %d levels deep at line %d, above the limit of %d", depth, line, maxNesting)
	}
	var exp exported
	if loc := exportDefaultRe.FindStringSubmatchIndex(code); loc != nil {
		rest := code[loc[1]:]
		if m := namedDeclRe.FindStringSubmatch(rest); m != nil {
			// A declaration stays one: it is hoisted, code before it may
			// call it.
			code = code[:loc[0]] + code[loc[2]:loc[3]] + rest
			notices = append(notices, noticeExportDefault)
			if m[1] == "" {
				exp.function = m[2]
			}
		} else {
			// An anonymous function or any expression: parsed as the
			// argument of a return statement, the only one at the top level
			// (a module cannot return).
			code = code[:loc[0]] + code[loc[2]:loc[3]] + "return " + rest
			exp.expr = true
		}
	}
	prog, err := parseGuest(code)
	if err != nil {
		stripped, serr := stripTypeScript(code)
		if serr != nil {
			return Prepared{}, serr
		}
		code = stripped
		if prog, err = parseGuest(code); err != nil {
			return Prepared{}, syntaxError(err, code)
		}
	}
	code, notices = rewrite(code, prog, notices, exp)
	// The final check compiles in strict mode, as the drivers do.
	if _, err := compileGuest(code); err != nil {
		return Prepared{}, syntaxError(err, code)
	}
	return Prepared{Code: code, Notices: notices}, nil
}

// rewrite completes `export default`, or calls a lone function, or returns
// a final expression.
func rewrite(code string, prog *ast.Program, notices []string, exp exported) (string, []string) {
	body := guestBody(prog)
	if len(body) == 0 {
		return code, notices
	}
	// Offsets in the AST are 1-based positions in the wrapped source.
	off := func(i file.Idx) int { return int(i) - 1 - len(guestPrefix) }
	if exp.expr {
		return rewriteDefault(code, body, off, notices)
	}
	if exp.function != "" && len(body) > 1 {
		return code + "\nreturn await " + exp.function + "();", append(notices, noticeDefaultCall)
	}
	last := body[len(body)-1]
	// lower is where the last statement's text may begin: after the one
	// before it.
	lower := 0
	if len(body) > 1 {
		lower = off(body[len(body)-2].Idx1())
	}
	if len(body) == 1 {
		switch st := last.(type) {
		case *ast.FunctionDeclaration:
			if st.Function.Name != nil && !st.Function.Generator {
				return code + "\nreturn await " + string(st.Function.Name.Name) + "();", append(notices, noticeLoneFunction)
			}
		case *ast.ExpressionStatement:
			if isFunction(st.Expression) {
				start, parens := statementStart(code, off(st.Expression.Idx0()), lower)
				end := closeParens(code, off(st.Expression.Idx1()), parens)
				if start >= 0 && end <= len(code) && start < end {
					return code[:start] + "return await (" + code[start:end] + ")()" + code[end:], append(notices, noticeLoneFunction)
				}
			}
		}
	}
	st, ok := last.(*ast.ExpressionStatement)
	if !ok || skipFinal(st.Expression) {
		return code, notices
	}
	start, _ := statementStart(code, off(st.Expression.Idx0()), lower)
	if start < 0 || start > len(code) {
		return code, notices
	}
	return code[:start] + "return " + code[start:], append(notices, noticeFinalExpr)
}

// rewriteDefault returns the value after `export default`, now the
// argument of the code's top-level return statement: a function is called
// and its result returned, an identifier is called when it names a
// function. When statements follow, the value is kept in defaultTemp and
// returned after them, as a module would run them.
func rewriteDefault(code string, body []ast.Statement, off func(file.Idx) int, notices []string) (string, []string) {
	idx := -1
	for i, st := range body {
		if _, ok := st.(*ast.ReturnStatement); ok {
			idx = i
			break
		}
	}
	if idx < 0 || body[idx].(*ast.ReturnStatement).Argument == nil {
		return code, notices
	}
	ret := body[idx].(*ast.ReturnStatement)
	retStart := off(ret.Idx0())
	start, parens := statementStart(code, off(ret.Argument.Idx0()), retStart+len("return"))
	end := closeParens(code, off(ret.Argument.Idx1()), parens)
	if retStart < 0 || start < retStart || end > len(code) || start >= end {
		return code, notices
	}
	value := code[start:end]
	var result, notice string
	switch a := ret.Argument.(type) {
	case *ast.FunctionLiteral, *ast.ArrowFunctionLiteral:
		if fn, ok := a.(*ast.FunctionLiteral); ok && fn.Generator {
			result, notice = "%s", noticeDefaultValue
			break
		}
		result, notice = "await (%s)()", noticeDefaultCall
	case *ast.Identifier:
		result, notice = `typeof %[1]s === "function" ? await %[1]s() : %[1]s`, noticeDefaultName
	default:
		result, notice = "%s", noticeDefaultValue
	}
	notices = append(notices, notice)
	if idx == len(body)-1 {
		return code[:start] + fmt.Sprintf(result, value) + code[end:], notices
	}
	return code[:retStart] + "const " + defaultTemp + " = " + value + code[end:] + "\nreturn " + fmt.Sprintf(result, defaultTemp) + ";", notices
}

// statementStart walks back from an expression's start over the
// parentheses that open before it, not past lower, and returns where the
// statement begins and how many parentheses it crossed.
func statementStart(code string, start, lower int) (int, int) {
	if start < 0 || start > len(code) {
		return -1, 0
	}
	i, parens := start, 0
	for i > lower {
		switch code[i-1] {
		case ' ', '\t', '\r', '\n':
		case '(':
			parens++
			start = i - 1
		default:
			return start, parens
		}
		i--
	}
	return start, parens
}

// closeParens walks forward from an expression's end over whitespace and
// up to n closing parentheses.
func closeParens(code string, end, n int) int {
	i := end
	for i < len(code) && n > 0 {
		switch code[i] {
		case ' ', '\t', '\r', '\n':
		case ')':
			n--
			end = i + 1
		default:
			return end
		}
		i++
	}
	return end
}

// guestBody returns the statements of the wrapped function, without the
// "use strict" directive.
func guestBody(prog *ast.Program) []ast.Statement {
	if len(prog.Body) != 1 {
		return nil
	}
	es, ok := prog.Body[0].(*ast.ExpressionStatement)
	if !ok {
		return nil
	}
	fn, ok := es.Expression.(*ast.FunctionLiteral)
	if !ok || fn.Body == nil || len(fn.Body.List) == 0 {
		return nil
	}
	return fn.Body.List[1:]
}

func isFunction(e ast.Expression) bool {
	switch f := e.(type) {
	case *ast.ArrowFunctionLiteral:
		return true
	case *ast.FunctionLiteral:
		return !f.Generator
	}
	return false
}

// skipFinal reports final expressions that are not worth returning: logging
// and assignments.
func skipFinal(e ast.Expression) bool {
	switch x := e.(type) {
	case *ast.AssignExpression:
		return true
	case *ast.CallExpression:
		if dot, ok := x.Callee.(*ast.DotExpression); ok {
			if id, ok := dot.Left.(*ast.Identifier); ok && id.Name == "console" {
				return true
			}
		}
	case *ast.UnaryExpression:
		return x.Operator.String() == "delete"
	}
	return false
}

// stripTypeScript removes TypeScript annotations with esbuild. The code is
// wrapped in an async function so that top-level await and return parse.
func stripTypeScript(code string) (string, error) {
	const head = "async function __capabilities_body__() {\n"
	res := api.Transform(head+code+"\n}\n", api.TransformOptions{
		Loader:   api.LoaderTS,
		Target:   api.ESNext,
		Charset:  api.CharsetUTF8,
		LogLevel: api.LogLevelSilent,
	})
	if len(res.Errors) > 0 {
		m := res.Errors[0]
		if m.Location == nil {
			return "", newError(CodeSyntaxError, "%s", m.Text)
		}
		line := m.Location.Line - 1
		if line < 1 {
			line = 1
		}
		// Past the code's end is the wrapper's closing: the code ended
		// before an expression or a bracket did.
		if lines := strings.Count(code, "\n") + 1; line > lines {
			last := code[strings.LastIndex(code, "\n")+1:]
			return "", newError(CodeSyntaxError, "unexpected end of the code at line %d:%d: an expression or a bracket is not closed", lines, len(last)+1)
		}
		return "", newError(CodeSyntaxError, "%s at line %d:%d", m.Text, line, m.Location.Column+1)
	}
	out := string(res.Code)
	open := strings.Index(out, "{\n")
	closeAt := strings.LastIndex(out, "}")
	if !strings.HasPrefix(out, "async function __capabilities_body__()") || open < 0 || closeAt < open {
		return "", newError(CodeSyntaxError, "the code could not be read as JavaScript or TypeScript")
	}
	return out[open+2 : closeAt], nil
}

// syntaxError turns a goja parse or compile error into a syntax_error with
// the line and column in the person's code.
func syntaxError(err error, code string) *Error {
	at := func(msg string, line, col int) *Error {
		line = guestLine(line)
		// Past the code's end is the wrapper's closing: the code ended
		// before an expression or a bracket did.
		if lines := strings.Count(code, "\n") + 1; line > lines {
			last := code[strings.LastIndex(code, "\n")+1:]
			return newError(CodeSyntaxError, "unexpected end of the code at line %d:%d: an expression or a bracket is not closed", lines, len(last)+1)
		}
		return newError(CodeSyntaxError, "%s at line %d:%d", msg, line, col)
	}
	var list parser.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		e := list[0]
		return at(e.Message, e.Position.Line, e.Position.Column)
	}
	var perr *parser.Error
	if errors.As(err, &perr) {
		return at(perr.Message, perr.Position.Line, perr.Position.Column)
	}
	var cerr *goja.CompilerSyntaxError
	if errors.As(err, &cerr) {
		if cerr.File != nil {
			p := cerr.File.Position(cerr.Offset)
			return at(cerr.Message, p.Line, p.Column)
		}
		return newError(CodeSyntaxError, "%s", cerr.Message)
	}
	return newError(CodeSyntaxError, "%s", err.Error())
}

func guestLine(wrapped int) int {
	if wrapped <= 1 {
		return 1
	}
	return wrapped - 1
}

// nestingDepth returns the deepest bracket nesting in code and the line
// where it is reached, skipping strings and comments. Template literals are
// scanned for ${ } substitutions.
func nestingDepth(code string) (maxDepth, atLine int) {
	depth, line := 0, 1
	var templates []int // depth at which each open template's substitution started
	i := 0
	n := len(code)
	for i < n {
		c := code[i]
		switch {
		case c == '\n':
			line++
		case c == '/' && i+1 < n && code[i+1] == '/':
			for i < n && code[i] != '\n' {
				i++
			}
			continue
		case c == '/' && i+1 < n && code[i+1] == '*':
			i += 2
			for i+1 < n && !(code[i] == '*' && code[i+1] == '/') {
				if code[i] == '\n' {
					line++
				}
				i++
			}
			i += 2
			continue
		case c == '"' || c == '\'':
			i++
			for i < n && code[i] != c && code[i] != '\n' {
				if code[i] == '\\' {
					i++
				}
				i++
			}
		case c == '`':
			i = scanTemplate(code, i+1, &line)
			if i < n && code[i] == '$' {
				// Entered a substitution: ${
				depth++
				templates = append(templates, depth)
				i += 2
				if depth > maxDepth {
					maxDepth, atLine = depth, line
				}
				continue
			}
		case c == '(' || c == '[' || c == '{':
			depth++
			if depth > maxDepth {
				maxDepth, atLine = depth, line
			}
		case c == ')' || c == ']' || c == '}':
			if c == '}' && len(templates) > 0 && templates[len(templates)-1] == depth {
				templates = templates[:len(templates)-1]
				depth--
				i = scanTemplate(code, i+1, &line)
				if i < n && code[i] == '$' {
					depth++
					templates = append(templates, depth)
					i += 2
					continue
				}
				break
			}
			if depth > 0 {
				depth--
			}
		}
		i++
	}
	return maxDepth, atLine
}

// scanTemplate scans template literal text from i and returns the index of
// the closing backtick or of the '$' of a "${", or len(code).
func scanTemplate(code string, i int, line *int) int {
	for i < len(code) {
		switch code[i] {
		case '\\':
			i++
		case '\n':
			*line++
		case '`':
			return i
		case '$':
			if i+1 < len(code) && code[i+1] == '{' {
				return i
			}
		}
		i++
	}
	return i
}
