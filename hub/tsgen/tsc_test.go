package tsgen

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// usageTS calls fixture methods the way guest code does, so the compiler
// checks that the declarations are usable, not only well formed.
const usageTS = `async function main(): Promise<void> {
	const issue = await github.createIssue({ owner: "acme", repo: "app", title: "Bug", labels: ["bug"] });
	const n: number = issue.number;
	const login: string = issue.user.login;
	const found = await github.searchIssues({ q: "is:open" }, { connection: "work" });
	const titles: string[] = found.items.map((i) => i.title);
	const me: unknown = await github.getMe();
	await memory.createEntities({ entities: [{ name: "a", entityType: "person", observations: [] }] });
	const graph = await memory.readGraph();
	const names: string[] = graph.entities.map((e) => e.name);
	const edit = await filesystem.editFile({ path: "/tmp/a", edits: [{ oldText: "a", newText: "b" }], dryRun: true });
	const text: string = edit.content;
	const section: outline.Section = { heading: "Intro", children: [{ heading: "Sub", children: [], level: 2 }] };
	await outline.setOutline({ document: "d", root: section });
	const o = await outline.getOutline({ document: "d" });
	const parent: outline.Node | null | undefined = o.root.parent;
	await complex.sendContent({ block: { type: "text", text: "hi" }, target: ["a", "b"], timeout: null });
	await complex.configure({ "content-type": "text/plain", env: { PATH: "/bin", HOME_DIR: "/home" } });
	const plot = await complex.plot({ points: [[1, 2]], style: { color: "red", width: 2 } });
	const svg: string = plot.svg;
	const sum: unknown = await everything.getSum({ a: 1, b: 2 });
	console.log(n, login, titles, me, names, text, parent, svg, sum);
}
main();
`

// TestDeclarationsCompile runs the TypeScript compiler in strict mode over
// the declarations of every fixture tool plus usageTS.
func TestDeclarationsCompile(t *testing.T) {
	tsc, err := filepath.Abs(filepath.Join("..", "..", "testdata", "npm", "node_modules", ".bin", "tsc"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tsc); err != nil {
		t.Skipf("tsc not installed (%v); make installs it", err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node not installed")
	}

	catalog := loadCatalog(t)
	var targets []string
	seen := map[string]bool{}
	for _, tool := range catalog {
		if !seen[tool.Namespace] {
			seen[tool.Namespace] = true
			targets = append(targets, tool.Namespace)
		}
	}
	res, err := Describe(catalog, targets, &Options{Budget: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Omitted) > 0 {
		t.Fatalf("omitted with an unlimited budget: %v", res.Omitted)
	}

	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("tools.d.ts", res.Text)
	write("usage.ts", usageTS)
	write("console.d.ts", "declare const console: { log(...args: unknown[]): void };\n")

	cmd := exec.Command(tsc, "--noEmit", "--strict", "--target", "es2022", "--lib", "es2022",
		"tools.d.ts", "console.d.ts", "usage.ts")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Fatalf("tsc: %v\n%s\n--- tools.d.ts ---\n%s", err, out, numbered(res.Text))
	}
}

func numbered(s string) string {
	var b strings.Builder
	for i, l := range strings.Split(s, "\n") {
		fmt.Fprintf(&b, "%4d  %s\n", i+1, l)
	}
	return b.String()
}
