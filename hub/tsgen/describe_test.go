package tsgen

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// golden compares got with testdata/<name>.golden, or rewrites the file
// with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

func describeReport(res Result) string {
	return fmt.Sprintf("%s\n--- tokens: %d, omitted: %q\n", res.Text, res.Tokens, res.Omitted)
}

func TestDescribeGolden(t *testing.T) {
	catalog := loadCatalog(t)
	tests := []struct {
		name    string
		targets []string
		budget  int
	}{
		{"filesystem", []string{"filesystem"}, 0},
		{"memory", []string{"memory"}, 0},
		{"everything", []string{"everything"}, 0},
		{"github-create-issue", []string{"github.createIssue"}, 0},
		// Budgets count o200k_base tokens plus 30% (BudgetTokens).
		{"github-over-budget", []string{"github"}, 520},
		{"outline-recursive", []string{"outline.setOutline", "outline.getOutline", "outline.walk"}, 0},
		{"complex", []string{"complex"}, 1 << 20},
		{"deep-cut", []string{"complex.deep"}, 156},
		{"deep-cut-described", []string{"complex.DeepInputLevel1"}, 156},
		{"types", []string{"github.Issue", "outline.Section", "memory.CreateEntitiesInputEntitiesItem"}, 0},
		{"mixed", []string{"memory.createEntities", "filesystem.editFile", "github.searchIssues", "memory.createRelations"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Describe(catalog, tt.targets, &Options{Budget: tt.budget})
			if err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("describe", tt.name), describeReport(res))
		})
	}
}

func TestSignatureGolden(t *testing.T) {
	var b strings.Builder
	for _, tool := range loadCatalog(t) {
		fmt.Fprintf(&b, "%s\n    %s\n", Signature(tool), FirstSentence(tool.Description))
	}
	golden(t, "signatures", b.String())
}

func TestDescribeResult(t *testing.T) {
	catalog := loadCatalog(t)
	res, err := Describe(catalog, []string{"github.createIssue"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Tokens != Tokens(res.Text) {
		t.Errorf("Tokens = %d, want Tokens(Text) = %d", res.Tokens, Tokens(res.Text))
	}
	if len(res.Omitted) != 0 || strings.Contains(res.Text, "Not shown") {
		t.Errorf("omitted %v with the default budget", res.Omitted)
	}
	for _, want := range []string{
		callOptions,
		"declare const github: {\n",
		"\tcreateIssue(input: {\n",
		"\t}, options?: CallOptions): Promise<github.Issue>;\n",
		"declare namespace github {\n\tinterface Issue {\n",
	} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("output lacks %q:\n%s", want, res.Text)
		}
	}
	if n := strings.Count(res.Text, "interface CallOptions"); n != 1 {
		t.Errorf("CallOptions declared %d times", n)
	}
}

func TestDescribeOrder(t *testing.T) {
	catalog := loadCatalog(t)
	res, err := Describe(catalog, []string{"memory.readGraph", "github.getMe", "memory.createEntities", "github.getMe"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, l := range strings.Split(res.Text, "\n") {
		switch {
		case strings.HasPrefix(l, "declare const "):
			order = append(order, strings.TrimSuffix(strings.TrimPrefix(l, "declare const "), ": {"))
		case strings.HasPrefix(l, "\t") && !strings.HasPrefix(l, "\t\t") && strings.Contains(l, "(input"):
			order = append(order, strings.TrimSpace(l[:strings.Index(l, "(")]))
		}
	}
	want := []string{"memory", "readGraph", "createEntities", "github", "getMe"}
	if diff := cmp.Diff(want, order); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

func TestDescribeDeterministic(t *testing.T) {
	catalog := loadCatalog(t)
	first, err := Describe(catalog, []string{"outline", "complex"}, &Options{Budget: 900})
	if err != nil {
		t.Fatal(err)
	}
	// Other namespaces, and their order, do not matter.
	var shuffled []Tool
	for i := len(catalog) - 1; i >= 0; i-- {
		if ns := catalog[i].Namespace; ns != "outline" && ns != "complex" {
			shuffled = append(shuffled, catalog[i])
		}
	}
	for _, tool := range catalog {
		if tool.Namespace == "outline" || tool.Namespace == "complex" {
			shuffled = append(shuffled, tool)
		}
	}
	for range 3 {
		again, err := Describe(shuffled, []string{"outline", "complex"}, &Options{Budget: 900})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(first, again); diff != "" {
			t.Fatalf("second run differs (-first +again):\n%s", diff)
		}
	}
}

func TestDescribeUnknownTarget(t *testing.T) {
	catalog := loadCatalog(t)
	tests := []struct {
		target      string
		wantClosest string
	}{
		{"githb.createIssue", "github.createIssue"},
		{"github.createIsue", "github.createIssue"},
		{"github.Isue", "github.Issue"},
		{"memry", "memory"},
		{"nothing.like.this.at.all", ""},
	}
	for _, tt := range tests {
		_, err := Describe(catalog, []string{"github.getMe", tt.target}, nil)
		var ute *UnknownTargetError
		if !errors.As(err, &ute) {
			t.Errorf("Describe(%q) error = %v, want *UnknownTargetError", tt.target, err)
			continue
		}
		if ute.Target != tt.target || !strings.Contains(err.Error(), fmt.Sprintf("%q", tt.target)) {
			t.Errorf("error %q does not name target %q", err, tt.target)
		}
		if tt.wantClosest == "" {
			if len(ute.Closest) != 0 {
				t.Errorf("Describe(%q) closest = %v, want none", tt.target, ute.Closest)
			}
			continue
		}
		if len(ute.Closest) == 0 || ute.Closest[0] != tt.wantClosest {
			t.Errorf("Describe(%q) closest = %v, want %q first", tt.target, ute.Closest, tt.wantClosest)
		}
	}
	if _, err := Describe(catalog, nil, nil); err == nil {
		t.Error("Describe with no targets succeeded")
	}
}

func TestDescribeNamespaceOverBudget(t *testing.T) {
	catalog := loadCatalog(t)
	const budget = 520
	res, err := Describe(catalog, []string{"github"}, &Options{Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	if res.Tokens > budget {
		t.Errorf("Tokens = %d, over the budget %d", res.Tokens, budget)
	}
	want := []string{"github.searchIssues", "github.addIssueComment", "github.getMe"}
	if diff := cmp.Diff(want, res.Omitted); diff != "" {
		t.Errorf("Omitted (-want +got):\n%s", diff)
	}
	note := "// Not shown (budget): github.searchIssues, github.addIssueComment, github.getMe. Describe them by name.\n"
	if !strings.HasSuffix(res.Text, note) {
		t.Errorf("output does not end with the note %q:\n%s", note, res.Text)
	}
	// The method that fits is declared in full, nested objects included.
	if !strings.Contains(res.Text, "\t\tuser: {\n\t\t\tlogin: string;") {
		t.Errorf("createIssue's result is not declared in full:\n%s", res.Text)
	}
	// With room for all, nothing is left out.
	all, err := Describe(catalog, []string{"github"}, &Options{Budget: 5000})
	if err != nil {
		t.Fatal(err)
	}
	if len(all.Omitted) != 0 || strings.Contains(all.Text, "Not shown") {
		t.Errorf("omitted %v with room for the whole namespace", all.Omitted)
	}
}

func TestDescribeCutsDeepTypes(t *testing.T) {
	catalog := loadCatalog(t)
	const budget = 156
	res, err := Describe(catalog, []string{"complex.deep"}, &Options{Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	if res.Tokens > budget {
		t.Errorf("Tokens = %d, over the budget %d", res.Tokens, budget)
	}
	if diff := cmp.Diff([]string{"complex.DeepInputLevel1"}, res.Omitted); diff != "" {
		t.Errorf("Omitted (-want +got):\n%s", diff)
	}
	for _, want := range []string{
		"\t\tlevel1: complex.DeepInputLevel1;\n",
		"// Not shown (budget): complex.DeepInputLevel1. Describe them by name.\n",
	} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("output lacks %q:\n%s", want, res.Text)
		}
	}

	// Every name left out can be described in turn, down to the leaves.
	queue := slices.Clone(res.Omitted)
	described := map[string]bool{}
	for len(queue) > 0 {
		target := queue[0]
		queue = queue[1:]
		if described[target] {
			continue
		}
		described[target] = true
		res, err := Describe(catalog, []string{target}, &Options{Budget: 39})
		if err != nil {
			t.Fatalf("describing %s, named in an earlier output: %v", target, err)
		}
		name := strings.TrimPrefix(target, "complex.")
		if !strings.Contains(res.Text, "interface "+name+" {") {
			t.Errorf("describing %s does not declare it:\n%s", target, res.Text)
		}
		queue = append(queue, res.Omitted...)
	}
	want := []string{"complex.DeepInputLevel1", "complex.DeepInputLevel1Level2", "complex.DeepInputLevel1Level2Level3", "complex.DeepInputLevel1Level2Level3Level4"}
	var got []string
	for k := range described {
		got = append(got, k)
	}
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("described (-want +got):\n%s", diff)
	}
}

// TestDescribeWithinBudget describes every fixture tool, type and
// namespace at several budgets: the output stays within the budget unless
// a single target cannot fit even cut to its first level, and every name
// it leaves out can be described.
func TestDescribeWithinBudget(t *testing.T) {
	catalog := loadCatalog(t)
	var targets [][]string
	seen := map[string]bool{}
	for _, tool := range catalog {
		if !seen[tool.Namespace] {
			seen[tool.Namespace] = true
			targets = append(targets, []string{tool.Namespace})
		}
		targets = append(targets, []string{tool.Namespace + "." + tool.Name})
	}
	for ns := range seen {
		for _, name := range newIndex(ns, catalog).order {
			targets = append(targets, []string{ns + "." + name})
		}
	}
	for _, budget := range []int{80, 200, 500, 2500} {
		for _, tg := range targets {
			res, err := Describe(catalog, tg, &Options{Budget: budget})
			if err != nil {
				t.Fatalf("Describe(%v): %v", tg, err)
			}
			if res.Tokens > budget && !strings.Contains(tg[0], ".") {
				t.Errorf("Describe(%v, budget %d) = %d tokens", tg, budget, res.Tokens)
			}
			if res.Tokens > budget && len(res.Omitted) == 0 && !onlyOneMethodAtDepthZero(res.Text) {
				t.Errorf("Describe(%v, budget %d) = %d tokens with nothing cut:\n%s", tg, budget, res.Tokens, res.Text)
			}
			for _, o := range res.Omitted {
				if _, err := Describe(catalog, []string{o}, &Options{Budget: budget}); err != nil {
					t.Errorf("Describe(%v) omitted %s, which does not resolve: %v", tg, o, err)
				}
			}
		}
	}
}

// onlyOneMethodAtDepthZero reports whether text declares a single method
// or type with nothing nested inline: the smallest a target can be.
func onlyOneMethodAtDepthZero(text string) bool {
	return !strings.Contains(text, ": {\n\t\t\t")
}

// TestNotShownWords: when many are left out, the closing note counts them
// by the first word of their names, the most common first, so that the
// model knows what there is to search for.
func TestNotShownWords(t *testing.T) {
	var omitted []string
	for i := range 5 {
		omitted = append(omitted, fmt.Sprintf("gh.pullsList%d", i), fmt.Sprintf("gh.issues_get%d", i))
	}
	omitted = append(omitted, "gh.pullsMerge", "gh.PullRequest", "memory.openNodes")
	want := "// Not shown (budget): 12 more of gh, whose names start with pulls 6, issues 5, types 1; 1 more of memory, whose names start with open 1. Find them with search (namespace lists one source) and describe them by name.\n"
	if got := notShownWords(omitted); got != want {
		t.Errorf("notShownWords:\n got %q\nwant %q", got, want)
	}
	var many []string
	for i := range noteWords + 3 {
		many = append(many, fmt.Sprintf("ns.w%cList", 'a'+i))
	}
	if got := notShownWords(many); !strings.Contains(got, "wp 1, 3 other words.") {
		t.Errorf("past %d words: %q", noteWords, got)
	}
}

// TestDescribeDeprecated: a tool its API deprecates says so in its
// method's JSDoc, whole or brief; another does not.
func TestDescribeDeprecated(t *testing.T) {
	tools := []Tool{
		{Namespace: "gh", Name: "addMemberLegacy", Description: "Add team member (Legacy).", Deprecated: true,
			InputSchema: json.RawMessage(`{"type":"object","properties":{"username":{"type":"string"}},"required":["username"]}`)},
		{Namespace: "gh", Name: "addMembership", Description: "Add or update team membership for a user.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"username":{"type":"string"}},"required":["username"]}`)},
	}
	for _, target := range []string{"gh", "gh.addMemberLegacy"} {
		res, err := Describe(tools, []string{target}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Text, "\t * Add team member (Legacy).\n\t * @deprecated\n") {
			t.Errorf("describe %s: no @deprecated after the legacy method's description:\n%s", target, res.Text)
		}
		if n := strings.Count(res.Text, "@deprecated"); n != 1 {
			t.Errorf("describe %s: @deprecated %d times, want once:\n%s", target, n, res.Text)
		}
	}
}
