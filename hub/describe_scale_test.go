package hub

import (
	"context"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/tsgen"
)

// TestDescribeGitHubWithinBudget describes GitHub's whole REST description
// (1,223 operations): the namespace fits the default budget, closing with
// one line that counts what is left out and says how to reach it, and one
// operation with a long description still declares its input.
func TestDescribeGitHubWithinBudget(t *testing.T) {
	h := newOpenAPIHub(t, "gh", &config.Source{OpenAPI: githubDoc(t)}, nil, Options{Keychain: &svcMemKeychain{m: map[string]string{}}})
	ctx := context.Background()

	out, err := h.Describe(ctx, DescribeRequest{Targets: []string{"gh"}})
	if err != nil {
		t.Fatal(err)
	}
	if n := tsgen.BudgetTokens(out); n > tsgen.DefaultBudget {
		t.Errorf("describe gh: %d budget tokens (%d o200k_base), want <= %d", n, tsgen.Tokens(out), tsgen.DefaultBudget)
	}
	if !strings.Contains(out, "declare const gh: {") {
		t.Errorf("describe gh declares no method:\n%s", out)
	}
	last := out[strings.LastIndex(strings.TrimRight(out, "\n"), "\n")+1:]
	if !strings.HasPrefix(last, "// Not shown (budget): ") || !strings.Contains(last, " of gh") || !strings.Contains(last, "search") {
		t.Errorf("describe gh does not close with a count of what is left out and how to reach it: %q", last)
	}
	if c := strings.Count(out, "gh."); c > 100 {
		t.Errorf("describe gh names %d addresses; the rest should be counted", c)
	}

	out, err = h.Describe(ctx, DescribeRequest{Targets: []string{"gh.pullsList"}})
	if err != nil {
		t.Fatal(err)
	}
	if n := tsgen.BudgetTokens(out); n > tsgen.DefaultBudget {
		t.Errorf("describe gh.pullsList: %d budget tokens, want <= %d", n, tsgen.DefaultBudget)
	}
	for _, field := range []string{"owner: string;", "repo: string;", "state?: ", "per_page?: number;"} {
		if !strings.Contains(out, field) {
			t.Errorf("describe gh.pullsList does not declare %q:\n%s", field, out)
		}
	}
}
