package sandbox

import (
	"encoding/base64"
	"strings"
	"unicode/utf8"

	"github.com/dop251/goja"
)

// The natives behind TextEncoder, TextDecoder, atob and btoa. They take and
// return strings and ArrayBuffers only.

func (r *run) jsUTF8Encode(c goja.FunctionCall) goja.Value {
	s, _ := argString(c, 0)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	r.account(int64(len(s)))
	return r.rt.ToValue(r.rt.NewArrayBuffer([]byte(s)))
}

func (r *run) jsUTF8Decode(c goja.FunctionCall) goja.Value {
	b, ok := c.Argument(0).Export().([]byte)
	if !ok {
		panic(r.rt.NewTypeError("TextDecoder.decode: input must be bytes"))
	}
	fatal := c.Argument(1).ToBoolean()
	if utf8.Valid(b) {
		return r.rt.ToValue(strings.TrimPrefix(string(b), "\uFEFF"))
	}
	if fatal {
		panic(r.rt.NewTypeError("TextDecoder.decode: the encoded data was not valid utf-8"))
	}
	return r.rt.ToValue(strings.TrimPrefix(strings.ToValidUTF8(string(b), "\uFFFD"), "\uFEFF"))
}

func (r *run) domError(name, msg string) *goja.Object {
	e := r.rt.NewTypeError(msg)
	_ = e.Set("name", name)
	return e
}

func (r *run) jsBtoa(c goja.FunctionCall) goja.Value {
	s, _ := argString(c, 0)
	b := make([]byte, 0, len(s))
	for _, ch := range s {
		if ch > 0xFF {
			panic(r.domError("InvalidCharacterError", "btoa: the string contains characters outside of the Latin1 range"))
		}
		b = append(b, byte(ch))
	}
	return r.rt.ToValue(base64.StdEncoding.EncodeToString(b))
}

func (r *run) jsAtob(c goja.FunctionCall) goja.Value {
	s, _ := argString(c, 0)
	s = strings.Map(func(ch rune) rune {
		switch ch {
		case ' ', '\t', '\n', '\f', '\r':
			return -1
		}
		return ch
	}, s)
	if len(s)%4 == 0 {
		s = strings.TrimSuffix(s, "=")
		s = strings.TrimSuffix(s, "=")
	}
	b, err := base64.RawStdEncoding.DecodeString(s)
	if err != nil || len(s)%4 == 1 {
		panic(r.domError("InvalidCharacterError", "atob: the string is not correctly encoded"))
	}
	runes := make([]rune, len(b))
	for i, x := range b {
		runes[i] = rune(x)
	}
	return r.rt.ToValue(string(runes))
}
