package tsgen

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// bigNamespace is n tools of one namespace, each with a long description
// and a few documented parameters; jp writes them in Japanese.
func bigNamespace(ns string, n int, jp bool) []Tool {
	tools := make([]Tool, n)
	for i := range tools {
		desc := fmt.Sprintf("Lists the items of collection %d. Results are paginated; use page and per_page to walk them. ", i) + strings.Repeat("The response includes every field the API knows about the item. ", 6)
		pdesc := [3]string{"The account that owns the collection.", "Page number of the results to fetch.", "The number of results per page (max 100)."}
		if jp {
			desc = fmt.Sprintf("コレクション%dの項目を一覧表示します。結果はページ分割されます。page と per_page で順にたどってください。", i) + strings.Repeat("応答には、APIが項目について知っているすべてのフィールドが含まれます。", 6)
			pdesc = [3]string{"コレクションを所有するアカウント。", "取得する結果のページ番号。", "1ページあたりの結果の数（最大100）。"}
		}
		schema, _ := json.Marshal(map[string]any{
			"type":     "object",
			"required": []string{"owner"},
			"properties": map[string]any{
				"owner":    map[string]any{"type": "string", "description": pdesc[0]},
				"page":     map[string]any{"type": "integer", "description": pdesc[1]},
				"per_page": map[string]any{"type": "integer", "description": pdesc[2]},
			},
		})
		tools[i] = Tool{Namespace: ns, Name: fmt.Sprintf("listItems%d", i), Description: desc, InputSchema: schema}
	}
	return tools
}

// TestDescribeLargeNamespaces: a namespace of a thousand tools, in English
// or Japanese, is described within the budget by o200k_base and by Claude's
// tokenizer, closing with one line that counts the rest; two namespaces
// named together each get their block; one tool with a description longer
// than the budget still declares its input.
func TestDescribeLargeNamespaces(t *testing.T) {
	en := bigNamespace("big", 1000, false)
	jp := bigNamespace("nihon", 1000, true)
	small := bigNamespace("memory", 3, false)
	long := bigNamespace("long", 1, false)
	long[0].Description = "Lists everything.\n\n" + strings.Repeat("A very long explanation of every corner of this operation. ", 400)
	catalog := append(append(append(en, jp...), small...), long...)

	type probe struct {
		targets []string
		budget  int
	}
	probes := []probe{
		{[]string{"big"}, 0}, {[]string{"big"}, 300}, {[]string{"nihon"}, 0}, {[]string{"nihon"}, 300},
		{[]string{"nihon.listItems7"}, 0}, {[]string{"big", "memory"}, 0}, {[]string{"nihon", "memory"}, 500},
		{[]string{"long.listItems0"}, 0}, {[]string{"long.listItems0"}, 300},
	}
	texts := make([]string, len(probes))
	for i, p := range probes {
		res, err := Describe(catalog, p.targets, &Options{Budget: p.budget})
		if err != nil {
			t.Fatalf("describe %v: %v", p.targets, err)
		}
		texts[i] = res.Text
		for _, ns := range p.targets {
			ns, _, _ = strings.Cut(ns, ".")
			if !strings.Contains(res.Text, "declare const "+ns+": {") {
				t.Errorf("describe %v within %d: no block for %s:\n%s", p.targets, p.budget, ns, res.Text)
			}
		}
		if len(p.targets) == 1 && !strings.Contains(p.targets[0], ".") {
			last := res.Text[strings.LastIndex(strings.TrimRight(res.Text, "\n"), "\n")+1:]
			if !strings.HasPrefix(last, "// Not shown (budget): ") || !strings.Contains(last, "more of "+p.targets[0]) || !strings.Contains(last, "search") {
				t.Errorf("describe %v within %d does not close by counting the rest: %q", p.targets, p.budget, last)
			}
		}
		if strings.HasPrefix(p.targets[0], "long.") && !strings.Contains(res.Text, "owner: string;") {
			t.Errorf("describe %v within %d does not declare the input:\n%s", p.targets, p.budget, res.Text)
		}
	}
	counts := claudeTokens(t, texts)
	for i, p := range probes {
		budget := p.budget
		if budget == 0 {
			budget = DefaultBudget
		}
		o200k := Tokens(texts[i])
		t.Logf("describe %v within %d: %d o200k_base, %d Claude tokens", p.targets, budget, o200k, counts[i])
		if o200k > budget || counts[i] > budget {
			t.Errorf("describe %v within %d: %d o200k_base and %d Claude tokens", p.targets, budget, o200k, counts[i])
		}
	}
}
