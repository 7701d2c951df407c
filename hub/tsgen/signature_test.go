package tsgen

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSignature(t *testing.T) {
	wide := `{"type":"object","properties":{`
	for i := range 30 {
		if i > 0 {
			wide += ","
		}
		wide += fmt.Sprintf(`"field%02d":{"type":"string"}`, i)
	}
	wide += `},"required":["field00","field01"]}`

	tests := []struct {
		name string
		tool Tool
		want string
	}{
		{
			name: "spec example",
			tool: Tool{Namespace: "github", Name: "createIssue",
				InputSchema:  json.RawMessage(`{"type":"object","properties":{"owner":{"type":"string"},"repo":{"type":"string"},"title":{"type":"string"},"body":{"type":"string"},"labels":{"type":"array","items":{"type":"string"}}},"required":["owner","repo","title"]}`),
				OutputSchema: json.RawMessage(`{"title":"Issue","type":"object","properties":{"number":{"type":"integer"}}}`)},
			want: "github.createIssue(input: { owner: string; repo: string; title: string; body?: string; labels?: string[] }): Promise<Issue>",
		},
		{
			name: "output schema without title",
			tool: Tool{Namespace: "github", Name: "searchIssues",
				InputSchema:  json.RawMessage(`{"type":"object","properties":{"perPage":{"type":"integer"},"q":{"type":"string"}},"required":["q"]}`),
				OutputSchema: json.RawMessage(`{"type":"object"}`)},
			want: "github.searchIssues(input: { q: string; perPage?: number }): Promise<SearchIssuesResult>",
		},
		{
			name: "no input schema",
			tool: Tool{Namespace: "ns", Name: "ping"},
			want: "ns.ping(input?: {}): Promise<unknown>",
		},
		{
			name: "null input schema",
			tool: Tool{Namespace: "ns", Name: "ping", InputSchema: json.RawMessage(`null`)},
			want: "ns.ping(input?: {}): Promise<unknown>",
		},
		{
			name: "method name that is not an identifier",
			tool: Tool{Namespace: "ns", Name: "get-sum", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"}},"required":["a"]}`)},
			want: `ns["get-sum"](input: { a: number }): Promise<unknown>`,
		},
		{
			name: "references keep their names",
			tool: Tool{Namespace: "outline", Name: "setOutline",
				InputSchema: json.RawMessage(`{"type":"object","properties":{"root":{"$ref":"#/$defs/Section"}},"required":["root"],"$defs":{"Section":{"type":"object","properties":{"children":{"type":"array","items":{"$ref":"#/$defs/Section"}}}}}}`)},
			want: "outline.setOutline(input: { root: Section }): Promise<unknown>",
		},
		{
			name: "nested objects abbreviated when long",
			tool: Tool{Namespace: "ns", Name: "configure",
				InputSchema: json.RawMessage(`{"type":"object","properties":{
					"server":{"type":"object","properties":{"host":{"type":"string"},"port":{"type":"integer"},"tls":{"type":"object","properties":{"cert":{"type":"string"},"key":{"type":"string"},"ca":{"type":"string"}}}}},
					"client":{"type":"object","properties":{"timeoutSeconds":{"type":"number"},"retries":{"type":"integer"},"userAgent":{"type":"string"}}},
					"level":{"enum":["debug","info","warn","error","fatal"]}},"required":["server"]}`)},
			want: "ns.configure(input: { server: { ... }; client?: { ... }; level?: string }): Promise<unknown>",
		},
		{
			name: "fields give way to ...",
			tool: Tool{Namespace: "ns", Name: "wide", InputSchema: json.RawMessage(wide)},
			want: "ns.wide(input: { field00: string; field01: string; field02?: string; field03?: string; field04?: string; field05?: string; field06?: string; field07?: string; ... }): Promise<unknown>",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Signature(tt.tool)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestSignatureOneLine checks every fixture tool: one line, at most about
// 200 characters, and no approval marker (the hub adds "[asks]").
func TestSignatureOneLine(t *testing.T) {
	for _, tool := range loadCatalog(t) {
		got := Signature(tool)
		if strings.ContainsAny(got, "\n\r") {
			t.Errorf("Signature(%s.%s) has a line break: %q", tool.Namespace, tool.Name, got)
		}
		if len(got) > signatureWidth {
			t.Errorf("Signature(%s.%s) is %d characters: %s", tool.Namespace, tool.Name, len(got), got)
		}
		if !strings.HasPrefix(got, tool.Namespace+"."+tool.Name+"(input") {
			t.Errorf("Signature(%s.%s) = %s", tool.Namespace, tool.Name, got)
		}
		if strings.Contains(got, "[asks]") || strings.Contains(got, "options?") || strings.Contains(got, "/*") {
			t.Errorf("Signature(%s.%s) = %s, want no marker, options or comment", tool.Namespace, tool.Name, got)
		}
	}
}

func TestFirstSentence(t *testing.T) {
	long := strings.Repeat("word ", 60)
	tests := []struct {
		in, want string
	}{
		{"", ""},
		{"Create an issue in a repository.", "Create an issue in a repository."},
		{"Create an issue. Then label it.", "Create an issue."},
		{"Echoes back the input string", "Echoes back the input string"},
		{"Is it done? Check the status.", "Is it done?"},
		{"Search files, e.g. by name. Returns paths.", "Search files, e.g. by name."},
		{"Reads README.md and config.json. Fast.", "Reads README.md and config.json."},
		{"Version 1.5 is supported. Others are not.", "Version 1.5 is supported."},
		{"Read a file\nas text. More here.", "Read a file as text."},
		{"First paragraph without a stop\n\nSecond paragraph.", "First paragraph without a stop"},
		{"# Search\nFind **things** fast. Really.", "Search Find things fast."},
		{"\n\n  - Lists [items](https://example.com/items) quickly. Done.", "Lists items quickly."},
		{long, strings.TrimSpace(strings.Repeat("word ", 32)) + "…"},
	}
	for _, tt := range tests {
		if got := FirstSentence(tt.in); got != tt.want {
			t.Errorf("FirstSentence(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTokens(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"hello world", 2},
		{"declare const github: {};", 5},
	}
	for _, tt := range tests {
		if got := Tokens(tt.in); got != tt.want {
			t.Errorf("Tokens(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
	// Safe for concurrent use, including the first load.
	var wg sync.WaitGroup
	results := make([]int, 8)
	for i := range results {
		wg.Go(func() { results[i] = Tokens("interface CallOptions { connection?: string }") })
	}
	wg.Wait()
	for i, n := range results {
		if n != results[0] || n == 0 {
			t.Errorf("goroutine %d counted %d tokens, goroutine 0 %d", i, n, results[0])
		}
	}
}
