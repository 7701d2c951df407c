package tsgen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
)

// TestQuote: quote writes what encoding/json writes without HTML
// escaping, whether s takes its plain path or not.
func TestQuote(t *testing.T) {
	for _, s := range []string{
		"", "plain text", "a\"b", `back\slash`, "tab\there", "line\nbreak", "\x00\x1f", "\x7f", "<&>",
		"é", "漢字", "\u2028\u2029", "bad \xff utf-8", " ~!#$%'()*+,-./:;=?@[]^_`{|}",
	} {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		want := strings.TrimSuffix(buf.String(), "\n")
		if got := quote(s); got != want {
			t.Errorf("quote(%q) = %s, want %s", s, got, want)
		}
		var b strings.Builder
		writeQuoted(&b, s)
		if b.String() != want {
			t.Errorf("writeQuoted(%q) = %s, want %s", s, b.String(), want)
		}
	}
}

// decodeJSON is what parseJSONInterned did with encoding/json's token
// reader, the reference it must match.
func decodeJSON(data []byte, strs map[string]any) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec, strs)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder, strs map[string]any) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &object{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("object key %v is not a string", kt)
				}
				v, err := decodeValue(dec, strs)
				if err != nil {
					return nil, err
				}
				o.set(intern(strs, k).(string), v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			o.keys, o.vals = exact(o.keys), exact(o.vals)
			return o, nil
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := decodeValue(dec, strs)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return exact(arr), nil
		}
		return nil, fmt.Errorf("unexpected delimiter %v", t)
	case string:
		return intern(strs, t), nil
	default:
		return t, nil
	}
}

// TestParseJSONMatchesDecoder: parseJSONInterned reads every schema of the
// fixtures and of GitHub's operations, and texts made to test it, into
// the trees encoding/json's token reader gave, and rejects what it
// rejected.
func TestParseJSONMatchesDecoder(t *testing.T) {
	texts := []string{
		`{}`, `[]`, ` { "a" : [ 1 , -2.5e+3 , true , false , null , "x" ] } `, `{"a":1,"a":{"b":[]}}`,
		`"\u00e9\ud83d\ude00\n\"\\\/"`, "\"caf\xc3\xa9 \xff\"", `{"\u0041":"\ud800"}`, `0`, `-0.0E-2`,
		`{"a":`, `{"a":1} {}`, `[1,]`, `{"a" 1}`, `tru`, `"a`, ``, `{"a":1}x`,
	}
	for _, tool := range append(loadCatalog(t), githubTools(t)...) {
		texts = append(texts, string(tool.InputSchema), string(tool.OutputSchema))
	}
	for _, s := range texts {
		for _, strs := range []map[string]any{nil, {}} {
			want, wantErr := decodeJSON([]byte(s), strs)
			got, err := parseJSONInterned([]byte(s), strs)
			if (err != nil) != (wantErr != nil) {
				t.Fatalf("parse %q: error %v, want %v", s, err, wantErr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("parse %q: %s, want %s", s, encodeJSON(got), encodeJSON(want))
			}
		}
	}
}
