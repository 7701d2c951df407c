package openapi

import (
	"encoding/json"
	"testing"
)

// dropProperties keeps every other member and property in its order, and
// a required list it empties goes.
func TestDropProperties(t *testing.T) {
	for in, want := range map[string]string{
		`{"type":"object","properties":{"a":{"type":"number"},"key":{"type":"string"},"b":{}},"required":["key"],"additionalProperties":false}`: `{"type":"object","properties":{"a":{"type":"number"},"b":{}},"additionalProperties":false}`,
		`{"required":["a","key"],"properties":{"key":{},"a":{"description":"x \"y\""}},"type":"object"}`:                                        `{"required":["a"],"properties":{"a":{"description":"x \"y\""}},"type":"object"}`,
	} {
		got, err := dropProperties(json.RawMessage(in), []string{"key"})
		if err != nil || string(got) != want {
			t.Errorf("dropProperties(%s)\n got %s, %v\nwant %s", in, got, err, want)
		}
	}
	if _, err := dropProperties(json.RawMessage(`[1]`), []string{"key"}); err == nil {
		t.Error("an input schema that is no object is taken")
	}
}
