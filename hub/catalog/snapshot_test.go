package catalog

import (
	"encoding/json"
	"testing"
)

// A snapshot resolves each tool's input schema once, for itself; a schema
// the validator cannot use resolves to nil.
func TestSnapshotInputSchema(t *testing.T) {
	tool := func(hash, schema string) *Tool {
		return &Tool{Address: "up." + hash, Hash: hash, InputSchema: json.RawMessage(schema)}
	}
	good := tool("good", `{"type":"object","properties":{"a":{"type":"number"}},"required":["a"]}`)
	s := &Snapshot{}
	first := s.InputSchema(good)
	if first == nil || s.InputSchema(good) != first {
		t.Fatalf("the schema was not resolved once: %p then %p", first, s.InputSchema(good))
	}
	if err := first.Validate(map[string]any{"a": "one"}); err == nil {
		t.Error("the resolved schema accepted a string for a number")
	}
	if (&Snapshot{}).InputSchema(good) == first {
		t.Error("another snapshot shares the resolved schema")
	}
	for _, schema := range []string{``, `null`, `{"type":`, `{"$ref":"#/nowhere"}`} {
		if r := s.InputSchema(tool("h"+schema, schema)); r != nil {
			t.Errorf("schema %q resolved to %v, want nil", schema, r)
		}
	}
}
