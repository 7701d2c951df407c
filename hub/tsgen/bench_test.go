package tsgen

import (
	"encoding/json"
	"fmt"
	"testing"
)

// bigCatalog is a namespace of n tools shaped like memory.createEntities.
func bigCatalog(n int) []Tool {
	schema := json.RawMessage(`{"type":"object","properties":{"entities":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string","description":"The name of the entity"},"entityType":{"type":"string"},"observations":{"type":"array","items":{"type":"string"}}},"required":["name","entityType"]}}},"required":["entities"]}`)
	var out []Tool
	for i := range n {
		out = append(out, Tool{Namespace: "big", Name: fmt.Sprintf("tool%03d", i), Description: "Create multiple new entities in the knowledge graph.", InputSchema: schema, OutputSchema: schema})
	}
	return out
}

func BenchmarkDescribeNamespace(b *testing.B) {
	catalog := bigCatalog(200)
	for b.Loop() {
		if _, err := Describe(catalog, []string{"big"}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDescribeTool describes one tool of a 200-tool namespace: with
// Describe, which indexes the namespace each time, and with a Catalog that
// keeps the index, as the hub does between catalog changes.
func BenchmarkDescribeTool(b *testing.B) {
	catalog := bigCatalog(200)
	b.Run("fresh", func(b *testing.B) {
		for b.Loop() {
			if _, err := Describe(catalog, []string{"big.tool007"}, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("catalog", func(b *testing.B) {
		c := NewCatalog(catalog)
		for b.Loop() {
			if _, err := c.Describe([]string{"big.tool007"}, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkSignature(b *testing.B) {
	tool := bigCatalog(1)[0]
	for b.Loop() {
		Signature(tool)
	}
}
