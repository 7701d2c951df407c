package sandbox

import (
	"encoding/json"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/dop251/goja"
)

// jsonToValue builds the guest value of JSON text as JSON.parse does, but
// in one pass over the bytes: goja's JSON.parse reads through
// encoding/json's token API, which costs several times more and most of a
// small tool result's delivery. It handles the plain subset and reports
// false for anything else (a number beyond float64's range, a string that
// is not valid UTF-8, a control character, anything but one JSON value);
// the caller then runs JSON.parse itself. The value is the one JSON.parse
// gives, with one exception: an integer beyond Number.MAX_SAFE_INTEGER in
// magnitude (up to 1000 digits) is a BigInt of its exact value, not a
// number that rounds it, so an id such as 9007199254740993 reaches the
// guest as written (9007199254740993n), and goes back to a tool, or out
// as the run's result, as written. Properties are defined, never set: a setter the guest
// put on Object.prototype does not run, and "__proto__" is an own key.
// Nesting must have been bounded by the caller.
func jsonToValue(rt *goja.Runtime, b []byte) (goja.Value, bool) {
	p := jsonParser{rt: rt, b: b}
	v, ok := p.value()
	if !ok {
		return nil, false
	}
	p.space()
	return v, p.i == len(b)
}

type jsonParser struct {
	rt *goja.Runtime
	b  []byte
	i  int
}

func (p *jsonParser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) value() (goja.Value, bool) {
	p.space()
	if p.i >= len(p.b) {
		return nil, false
	}
	switch c := p.b[p.i]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		s, ok := p.str()
		if !ok {
			return nil, false
		}
		return p.rt.ToValue(s), true
	case c == 't':
		return p.literal("true", p.rt.ToValue(true))
	case c == 'f':
		return p.literal("false", p.rt.ToValue(false))
	case c == 'n':
		return p.literal("null", goja.Null())
	case c == '-' || ('0' <= c && c <= '9'):
		return p.number()
	}
	return nil, false
}

func (p *jsonParser) literal(word string, v goja.Value) (goja.Value, bool) {
	if len(p.b)-p.i < len(word) || string(p.b[p.i:p.i+len(word)]) != word {
		return nil, false
	}
	p.i += len(word)
	return v, true
}

func (p *jsonParser) object() (goja.Value, bool) {
	p.i++ // {
	o := p.rt.NewObject()
	if p.empty('}') {
		return o, true
	}
	for {
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return nil, false
		}
		key, ok := p.str()
		if !ok {
			return nil, false
		}
		p.space()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return nil, false
		}
		p.i++
		v, ok := p.value()
		if !ok {
			return nil, false
		}
		if o.DefineDataProperty(key, v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE) != nil {
			return nil, false
		}
		if more, ok := p.after('}'); !ok {
			return nil, false
		} else if !more {
			return o, true
		}
	}
}

func (p *jsonParser) array() (goja.Value, bool) {
	p.i++ // [
	var items []any
	if p.empty(']') {
		return p.rt.NewArray(), true
	}
	for {
		v, ok := p.value()
		if !ok {
			return nil, false
		}
		items = append(items, v)
		if more, ok := p.after(']'); !ok {
			return nil, false
		} else if !more {
			return p.rt.NewArray(items...), true
		}
	}
}

// empty reads the close of a container with no members, if it is next.
func (p *jsonParser) empty(close byte) bool {
	p.space()
	if p.i < len(p.b) && p.b[p.i] == close {
		p.i++
		return true
	}
	return false
}

// after reads what follows a member: a comma (more members follow) or the
// container's close. ok is false for anything else.
func (p *jsonParser) after(close byte) (more, ok bool) {
	p.space()
	if p.i >= len(p.b) {
		return false, false
	}
	switch p.b[p.i] {
	case ',':
		p.i++
		return true, true
	case close:
		p.i++
		return false, true
	}
	return false, false
}

// str reads a string at p.i (an opening quote). Strings without escapes
// are taken as they are; the others go through encoding/json, as
// JSON.parse's would.
func (p *jsonParser) str() (string, bool) {
	start := p.i
	escaped := false
	for j := start + 1; j < len(p.b); j++ {
		switch c := p.b[j]; {
		case c == '"':
			p.i = j + 1
			seg := p.b[start+1 : j]
			if !escaped {
				if !utf8.Valid(seg) {
					return "", false
				}
				return string(seg), true
			}
			var s string
			if json.Unmarshal(p.b[start:j+1], &s) != nil || !utf8.ValidString(s) {
				return "", false
			}
			return s, true
		case c == '\\':
			escaped = true
			j++
		case c < 0x20:
			return "", false
		}
	}
	return "", false
}

// number reads a number with JSON's grammar; ParseFloat rounds it as
// encoding/json does for JSON.parse.
func (p *jsonParser) number() (goja.Value, bool) {
	start := p.i
	b := p.b
	i := p.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = skipDigits(b, i)
	default:
		return nil, false
	}
	if i < len(b) && b[i] == '.' {
		d := i + 1
		if i = skipDigits(b, d); i == d {
			return nil, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		d := i
		if i = skipDigits(b, d); i == d {
			return nil, false
		}
	}
	lit := string(b[start:i])
	if n, ok := unsafeInteger(lit); ok {
		p.i = i
		return p.rt.ToValue(n), true
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		return nil, false
	}
	p.i = i
	return p.rt.ToValue(f), true
}

// maxBigIntDigits bounds the integers delivered as BigInt; a longer one is
// left to JSON.parse.
const maxBigIntDigits = 1000

// unsafeInteger reports whether lit is an integer (no fraction, no
// exponent) beyond Number.MAX_SAFE_INTEGER in magnitude, and returns it.
// Such an integer reaches the guest as a BigInt holding its exact value,
// where a number would round it (9007199254740993 to 9007199254740992).
func unsafeInteger(lit string) (*big.Int, bool) {
	digits := strings.TrimPrefix(lit, "-")
	if len(digits) < 16 || len(digits) > maxBigIntDigits || strings.ContainsAny(digits, ".eE") {
		return nil, false
	}
	n, ok := new(big.Int).SetString(lit, 10)
	if !ok || n.CmpAbs(maxSafeInteger) <= 0 {
		return nil, false
	}
	return n, true
}

var maxSafeInteger = big.NewInt(1<<53 - 1)

// skipDigits returns the index of the first byte at or after i in b that
// is not an ASCII digit.
func skipDigits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}
