package exactjson

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Hash is the hash of a JSON text by its canonical form, which the heart's
// journal keeps of a call's arguments: SHA-256 of the canonical JSON (object
// keys sorted), so equal arguments in another key order still match. The
// canonical form is json.Marshal of json.Unmarshal into any, with one
// change: a number a float64 does not hold exactly (9007199254740993,
// 0.1000000000000000000001) keeps its exact value, written as digits and an
// exponent, so arguments that differ only there hash differently. Every
// other number is written as encoding/json writes its float64, as journals
// hold them, so those hashes do not change.
//
// Every call and every replayed call is hashed, and the round trip through
// any costs more than the rest of a replayed call. Arguments already in the
// canonical form skip it: the sandbox sends compact JSON, and small objects
// are often sorted already.
func Hash(args json.RawMessage) string {
	canon := []byte(args)
	if !isCanonicalJSON(args) {
		v, ok := Decode(args)
		if !ok {
			sum := sha256.Sum256(args)
			return hex.EncodeToString(sum[:])
		}
		canon, _ = json.Marshal(v) // map keys are sorted by encoding/json
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:16])
}

// Decode decodes one JSON value as json.Unmarshal into any does, with each
// number a json.Number in its canonical form: as encoding/json writes its
// float64 when that is the same value, else its exact value. json.Marshal
// of the value is the canonical form Hash hashes. ok is false where
// json.Unmarshal fails (a number beyond float64's range among the reasons).
func Decode(b []byte) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil, false
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, false
	}
	return exactNumbers(v)
}

func exactNumbers(v any) (any, bool) {
	switch x := v.(type) {
	case json.Number:
		return canonicalNumber(string(x))
	case []any:
		for i, e := range x {
			var ok bool
			if x[i], ok = exactNumbers(e); !ok {
				return nil, false
			}
		}
	case map[string]any:
		for k, e := range x {
			var ok bool
			if x[k], ok = exactNumbers(e); !ok {
				return nil, false
			}
		}
	}
	return v, true
}

// canonicalNumber is the canonical form of the JSON number lit: what
// encoding/json writes for its float64 when that is the same value, else
// its exact value as decimal digits and an exponent. ok is false when lit
// is beyond float64's range (json.Unmarshal fails on it).
func canonicalNumber(lit string) (json.Number, bool) {
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		return "", false
	}
	b, _ := json.Marshal(f)
	if string(b) == lit {
		return json.Number(b), true
	}
	exact, ok1 := exactDecimal(lit)
	asFloat, ok2 := exactDecimal(string(b))
	if ok1 && ok2 && exact == asFloat {
		return json.Number(b), true
	}
	if !ok1 {
		return json.Number(lit), true
	}
	return json.Number(exact), true
}

// exactDecimal writes the value of the JSON number lit as
// [-]DIGITSeEXP, DIGITS without leading or trailing zeros ("0e0" for
// zero, signed as lit is). ok is false for an exponent beyond int32.
func exactDecimal(lit string) (string, bool) {
	neg := strings.HasPrefix(lit, "-")
	lit = strings.TrimPrefix(lit, "-")
	mant, expPart, hasExp := strings.Cut(strings.ToLower(lit), "e")
	exp := 0
	if hasExp {
		e, err := strconv.ParseInt(expPart, 10, 32)
		if err != nil {
			return "", false
		}
		exp = int(e)
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	exp -= len(frac)
	trimmed := strings.TrimRight(digits, "0")
	exp += len(digits) - len(trimmed)
	sign := ""
	if neg {
		sign = "-"
	}
	if trimmed == "" {
		return sign + "0e0", true
	}
	return sign + trimmed + "e" + strconv.Itoa(exp), true
}

// isCanonicalJSON reports whether b is, byte for byte, what json.Marshal
// writes for json.Unmarshal of b into any. It accepts a conservative subset:
// no whitespace, object keys unescaped, sorted and unique, strings with only
// the escapes encoding/json writes and none of the characters it escapes
// (<, >, &, U+2028, U+2029, invalid UTF-8), and integers of at most 15
// digits (exact in a float64, printed back the same). Anything else takes
// the round trip.
func isCanonicalJSON(b []byte) bool {
	rest, ok := canonicalValue(b, 0)
	return ok && len(rest) == 0
}

// canonicalValue checks the value at the start of b and returns what
// follows it.
func canonicalValue(b []byte, depth int) ([]byte, bool) {
	if len(b) == 0 || depth > 32 {
		return nil, false
	}
	switch c := b[0]; {
	case c == '{':
		b = b[1:]
		if len(b) > 0 && b[0] == '}' {
			return b[1:], true
		}
		var prev []byte
		for first := true; ; first = false {
			key, rest, escaped, ok := canonicalString(b)
			if !ok || escaped || (!first && bytes.Compare(prev, key) >= 0) || len(rest) == 0 || rest[0] != ':' {
				return nil, false
			}
			prev = key
			if b, ok = canonicalValue(rest[1:], depth+1); !ok || len(b) == 0 {
				return nil, false
			}
			switch b[0] {
			case ',':
				b = b[1:]
			case '}':
				return b[1:], true
			default:
				return nil, false
			}
		}
	case c == '[':
		b = b[1:]
		if len(b) > 0 && b[0] == ']' {
			return b[1:], true
		}
		for {
			var ok bool
			if b, ok = canonicalValue(b, depth+1); !ok || len(b) == 0 {
				return nil, false
			}
			switch b[0] {
			case ',':
				b = b[1:]
			case ']':
				return b[1:], true
			default:
				return nil, false
			}
		}
	case c == '"':
		_, rest, _, ok := canonicalString(b)
		return rest, ok
	case c == '-' || ('0' <= c && c <= '9'):
		start := 0
		if c == '-' {
			start = 1
		}
		i := start
		for i < len(b) && '0' <= b[i] && b[i] <= '9' {
			i++
		}
		n := i - start
		// "-0", leading zeros, fractions and exponents take the round trip.
		if n == 0 || n > 15 || (b[start] == '0' && (n > 1 || start == 1)) {
			return nil, false
		}
		if i < len(b) && (b[i] == '.' || b[i] == 'e' || b[i] == 'E') {
			return nil, false
		}
		return b[i:], true
	}
	for _, lit := range []string{"true", "false", "null"} {
		if bytes.HasPrefix(b, []byte(lit)) {
			return b[len(lit):], true
		}
	}
	return nil, false
}

// canonicalString checks the string at the start of b; content is what
// lies between the quotes.
func canonicalString(b []byte) (content, rest []byte, escaped, ok bool) {
	if len(b) == 0 || b[0] != '"' {
		return nil, nil, false, false
	}
	for i := 1; i < len(b); {
		switch c := b[i]; {
		case c == '"':
			return b[1:i], b[i+1:], escaped, true
		case c == '\\':
			// The escapes encoding/json writes; \u, \/ and others are rewritten.
			if i+1 == len(b) || !strings.ContainsRune(`"\bfnrt`, rune(b[i+1])) {
				return nil, nil, false, false
			}
			escaped = true
			i += 2
		case c < 0x20 || c == '<' || c == '>' || c == '&':
			return nil, nil, false, false
		case c < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(b[i:])
			if (r == utf8.RuneError && size == 1) || r == '\u2028' || r == '\u2029' {
				return nil, nil, false, false
			}
			i += size
		}
	}
	return nil, nil, false, false
}
