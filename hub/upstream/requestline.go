package upstream

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// RequestLine is an OpenAPI call's method and URL, with the path
// parameters its arguments give filled in: "DELETE
// https://api.example.com/items/42". A parameter the arguments do not
// give as a string or a number stays {name}. preview is the arguments as
// a person is shown them (secrets hidden; a value an earlier call gives
// written as <result of call N>.path), which need not be JSON.
func RequestLine(method, url, preview string) string {
	var args map[string]any
	dec := json.NewDecoder(strings.NewReader(preview))
	dec.UseNumber()
	if dec.Decode(&args) != nil {
		args = nil
	}
	filled := pathParam.ReplaceAllStringFunc(url, func(m string) string {
		switch v := args[m[1:len(m)-1]].(type) {
		case string:
			return escapePathSegment(v)
		case json.Number:
			return v.String()
		}
		return m
	})
	return strings.TrimSpace(strings.ToUpper(method) + " " + filled)
}

var pathParam = regexp.MustCompile(`\{[A-Za-z0-9_.-]+\}`)

// escapePathSegment escapes what a path segment cannot hold as is.
func escapePathSegment(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}
