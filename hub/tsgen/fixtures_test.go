package tsgen

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub/naming"
)

// mcpTool is a tool as an MCP server lists it.
type mcpTool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
}

// fixtureNamespaces lists the fixture files: testdata/live holds tools
// captured from the reference servers (capture.cjs), testdata/tools
// hand-written ones modelled on real servers. The file name is the
// namespace.
func fixtureFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, dir := range []string{"live", "tools"} {
		m, err := filepath.Glob(filepath.Join("testdata", dir, "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	slices.Sort(files)
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	return files
}

// loadCatalog reads every fixture into one catalog.
func loadCatalog(t *testing.T) []Tool {
	t.Helper()
	var catalog []Tool
	for _, f := range fixtureFiles(t) {
		catalog = append(catalog, loadFixture(t, f)...)
	}
	return catalog
}

func loadFixture(t *testing.T, path string) []Tool {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var tools []mcpTool
	if err := json.Unmarshal(data, &tools); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	ns := strings.TrimSuffix(filepath.Base(path), ".json")
	var out []Tool
	for _, mt := range tools {
		out = append(out, Tool{
			Namespace:    ns,
			Name:         naming.Camel(mt.Name),
			Title:        mt.Title,
			Description:  mt.Description,
			InputSchema:  mt.InputSchema,
			OutputSchema: mt.OutputSchema,
		})
	}
	return out
}
