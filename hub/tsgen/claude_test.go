package tsgen

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// claudeTokens counts each text with Claude's tokenizer, the npm
// @anthropic-ai/tokenizer run by node; it skips the test when either is
// not installed.
func claudeTokens(t *testing.T, texts []string) []int {
	t.Helper()
	modules, err := filepath.Abs(filepath.Join("..", "..", "testdata", "npm", "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(modules, "@anthropic-ai", "tokenizer")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("@anthropic-ai/tokenizer not installed: %v", err)
		}
		t.Skipf("@anthropic-ai/tokenizer not installed (%v); make installs it", err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node not installed")
	}
	in, _ := json.Marshal(texts)
	cmd := exec.Command("node", filepath.Join("testdata", "claude_tokens.cjs"))
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("counting with Claude's tokenizer: %v", err)
	}
	var counts []int
	if err := json.Unmarshal(out, &counts); err != nil || len(counts) != len(texts) {
		t.Fatalf("Claude's tokenizer answered %q", out)
	}
	return counts
}

// TestDescribeBudgetHoldsForClaude: describe stays within its budget by
// Claude's tokenizer as well as by o200k_base, for every fixture namespace
// whole at budgets from tight to the default, and for each tool alone.
func TestDescribeBudgetHoldsForClaude(t *testing.T) {
	catalog := loadCatalog(t)
	type probe struct {
		target string
		budget int
		text   string
	}
	var probes []probe
	seen := map[string]bool{}
	add := func(target string, budget int) {
		res, err := Describe(catalog, []string{target}, &Options{Budget: budget})
		if err != nil {
			t.Fatalf("describe %s within %d: %v", target, budget, err)
		}
		if budget == 0 {
			budget = DefaultBudget
		}
		probes = append(probes, probe{target, budget, res.Text})
	}
	for _, tool := range catalog {
		if !seen[tool.Namespace] {
			seen[tool.Namespace] = true
			for _, b := range []int{200, 300, 500, 800, 1200, 0} {
				add(tool.Namespace, b)
			}
		}
		add(tool.Namespace+"."+tool.Name, 0)
	}
	texts := make([]string, len(probes))
	for i, p := range probes {
		texts[i] = p.text
	}
	counts := claudeTokens(t, texts)
	worst := 0.0
	for i, p := range probes {
		o200k := Tokens(p.text)
		if r := float64(counts[i]) / float64(o200k); r > worst {
			worst = r
		}
		if p.budget == DefaultBudget && !strings.Contains(p.target, ".") {
			t.Logf("%s: %d o200k_base tokens, %d Claude tokens", p.target, o200k, counts[i])
		}
		if o200k > p.budget || counts[i] > p.budget {
			t.Errorf("describe %s within %d: %d o200k_base and %d Claude tokens", p.target, p.budget, o200k, counts[i])
		}
	}
	t.Logf("%d outputs; Claude's tokenizer counts at most %.3f times o200k_base", len(probes), worst)
}
