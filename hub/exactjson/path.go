package exactjson

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// At returns the value at path in v, a JSON text, with its bytes
// as stored (numbers exact), or why there is none. It walks v once, from
// the start to the value (siblings on the way are skipped, not parsed
// into maps), so a read touches each byte of v at most once whatever the
// path's depth; it stops with ctx's error when ctx ends.
func At(ctx context.Context, v json.RawMessage, path []string) (json.RawMessage, string, error) {
	at := func(i int) string {
		if i == 0 {
			return "the value"
		}
		return strings.Join(path[:i], ".")
	}
	notJSON := "the stored value is not JSON"
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.UseNumber()
	var skip json.RawMessage
	// skipValue passes over one value, checking ctx between values.
	skipValue := func() error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return dec.Decode(&skip)
	}
	for i, seg := range path {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			if i == 0 && errors.Is(err, io.EOF) {
				return nil, "the stored value is empty", nil
			}
			return nil, notJSON, nil
		}
		switch tok {
		case json.Delim('{'):
			var keys []string
			found := false
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, notJSON, nil
				}
				k, _ := kt.(string)
				if k == seg {
					found = true
					break
				}
				keys = append(keys, k)
				if err := skipValue(); err != nil {
					if ctx.Err() != nil {
						return nil, "", err
					}
					return nil, notJSON, nil
				}
			}
			if !found {
				slices.Sort(keys)
				list := strings.Join(keys[:min(len(keys), 8)], ", ")
				if len(keys) > 8 {
					list += ", ..."
				}
				return nil, fmt.Sprintf("%s has no key %q (its keys: %s)", at(i), seg, list), nil
			}
		case json.Delim('['):
			n, err := strconv.Atoi(seg)
			valid := err == nil && n >= 0 && strconv.Itoa(n) == seg
			count := 0
			for dec.More() {
				if valid && count == n {
					break
				}
				if err := skipValue(); err != nil {
					if ctx.Err() != nil {
						return nil, "", err
					}
					return nil, notJSON, nil
				}
				count++
			}
			if !valid || count != n || !dec.More() {
				return nil, fmt.Sprintf("%s is an array of %d items, and %q is not one of its indexes", at(i), count, seg), nil
			}
		default:
			first := bytes.TrimLeft(v[start:], " \t\r\n,:")
			if len(first) == 0 {
				return nil, notJSON, nil
			}
			return nil, fmt.Sprintf("%s is %s, not an object or an array", at(i), jsonKind(first[0])), nil
		}
	}
	if err := skipValue(); err != nil {
		if ctx.Err() != nil {
			return nil, "", err
		}
		return nil, notJSON, nil
	}
	return bytes.TrimSpace(skip), "", nil
}

func jsonKind(first byte) string {
	switch first {
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// ExamplePath is a dotted path into v, for an example of a read by path to
// show: the first element of an array ("0"), or the first key of an object
// (with ".0" when it holds an array); "0" when the object has no such key
// (it is empty, or its first key holds a dot) or v is not JSON, and "" for
// a value that is neither an object nor an array.
func ExamplePath(v json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(v))
	tok, err := dec.Token()
	if err != nil || tok == json.Delim('[') {
		return "0"
	}
	if tok != json.Delim('{') {
		return ""
	}
	key, err := dec.Token()
	k, ok := key.(string)
	if err != nil || !ok {
		return "0"
	}
	if strings.Contains(k, ".") {
		return "0" // a dotted key needs the array form; keep the example simple
	}
	if next, err := dec.Token(); err == nil && next == json.Delim('[') {
		return k + ".0"
	}
	return k
}
