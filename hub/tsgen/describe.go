package tsgen

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// Tool is one tool of the catalog, as the hub names it for the guest.
type Tool struct {
	Namespace    string          // JS identifier, e.g. "github"
	Name         string          // JS method name, e.g. "createIssue"
	Title        string          // shown when Description is empty
	Description  string          // JSDoc of the method
	InputSchema  json.RawMessage // JSON Schema of the input object; may be null or empty
	OutputSchema json.RawMessage // JSON Schema of structuredContent; may be empty
	// Deprecated marks a tool its API keeps for older callers (an OpenAPI
	// operation's deprecated): its JSDoc says @deprecated.
	Deprecated bool
}

// DefaultBudget is the token budget of Describe when Options.Budget is not
// positive.
const DefaultBudget = 2500

// Options tune Describe. A nil *Options uses the defaults.
type Options struct {
	// Budget is the most tokens the output may take, by o200k_base and by
	// Claude's tokenizer alike: the output is measured with BudgetTokens.
	// Zero or less means DefaultBudget.
	Budget int
}

// Result is the output of Describe.
type Result struct {
	// Text is TypeScript declarations, ending with a "// Not shown
	// (budget): ..." comment when something was left out.
	Text string
	// Tokens is the o200k_base token count of Text.
	Tokens int
	// Omitted lists, as addresses ("github.search", "github.IssueUser"),
	// the methods and types left out because of the budget, in the order
	// the comment names them.
	Omitted []string
}

// UnknownTargetError reports a describe target that names no namespace,
// tool or type of the catalog.
type UnknownTargetError struct {
	Target string
	// Closest lists up to three addresses that look like Target, best
	// first.
	Closest []string
}

func (e *UnknownTargetError) Error() string {
	if len(e.Closest) == 0 {
		return fmt.Sprintf("unknown target %q", e.Target)
	}
	return fmt.Sprintf("unknown target %q; closest: %s", e.Target, strings.Join(e.Closest, ", "))
}

// callOptions is declared once, before the first namespace.
const callOptions = `interface CallOptions {
	/** Connection name; default connection when omitted. */
	connection?: string;
}
`

// returnsUnknown documents what a method without an output schema
// resolves to.
const returnsUnknown = "@returns The tool's content: parsed JSON, else its text, else the content array."

// unit is one method or named type to declare, with the depth it is
// rendered at.
type unit struct {
	tool    *toolInfo
	typ     *namedType
	depth   int
	order   [2]int // target index, catalog index: position in the output
	primary bool   // named by a target, rather than part of a namespace
	brief   bool   // the description cut to its first sentence, at most briefRunes
}

func (u unit) address(ns string) string {
	if u.tool != nil {
		return ns + "." + u.tool.tool.Name
	}
	return ns + "." + u.typ.name
}

// Describe declares the targets in TypeScript. A target is a tool address
// ("github.createIssue"), a namespace ("github") or a type named in an
// earlier declaration ("github.Issue"). Methods are grouped by namespace,
// namespaces and methods in the order the targets name them; a namespace
// target adds its remaining tools in catalog order.
//
// The output stays within opts.Budget tokens: tools and types named by a
// target are shown first, cutting nested objects into named types as
// needed; the tools of a namespace target follow while they fit. What is
// left out is listed in Result.Omitted and in a closing comment. A single
// target that does not fit even when cut to its first level is still
// shown.
//
// Describe returns an *UnknownTargetError for a target the catalog does
// not have.
//
// Describe indexes each namespace it needs from scratch; a Catalog keeps
// them for the next call.
func Describe(catalog []Tool, targets []string, opts *Options) (Result, error) {
	return NewCatalog(catalog).Describe(targets, opts)
}

// Catalog is a catalog whose namespace indexes (type names) are built on
// first use and kept: describing one tool of a namespace of hundreds
// parses every schema of that namespace once, to name its types, not on
// every call. Later calls parse again only the schemas they declare. An
// index is read-only once built, so a Catalog is safe for concurrent use.
type Catalog struct {
	tools   []Tool
	mu      sync.Mutex
	indexes map[string]*nsIndex // nil for a namespace with no tools
}

// NewCatalog returns a Catalog of tools; the caller must not change them
// afterwards.
func NewCatalog(tools []Tool) *Catalog {
	return &Catalog{tools: tools, indexes: map[string]*nsIndex{}}
}

// index is namespace ns's index, built on first use; built reports that
// this call built it.
func (c *Catalog) index(ns string) (ix *nsIndex, built bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ix, ok := c.indexes[ns]; ok {
		return ix, false
	}
	ix = newIndex(ns, c.tools).seal()
	if len(ix.tools) == 0 {
		ix = nil
	}
	c.indexes[ns] = ix
	return ix, true
}

// releaseAfter is the size of a namespace's schemas from which the call
// that builds its index returns the memory it used to the system when it
// ends: naming the types decodes every schema, for GitHub's 7 MB some 20
// MB of trees and ten times as much garbage, which would otherwise go
// back over the seconds the runtime takes, or stay as room for the heap
// to grow into.
const releaseAfter = 2 << 20

// Describe is the package's Describe over the catalog.
func (c *Catalog) Describe(targets []string, opts *Options) (Result, error) {
	catalog := c.tools
	budget := DefaultBudget
	if opts != nil && opts.Budget > 0 {
		budget = opts.Budget
	}
	if len(targets) == 0 {
		return Result{}, errors.New("no targets")
	}

	release := false
	defer func() {
		if release {
			debug.FreeOSMemory()
		}
	}()
	indexes := map[string]*nsView{} // the namespaces this call uses
	index := func(ns string) *nsView {
		if ix, ok := indexes[ns]; ok {
			return ix
		}
		var v *nsView
		ix, built := c.index(ns)
		if ix != nil {
			v = ix.view()
			if built && ix.schemaBytes() >= releaseAfter {
				release = true
			}
		}
		indexes[ns] = v
		return v
	}

	var nsOrder []string
	var primary, extra []unit
	seen := map[string]bool{}
	for ti, target := range targets {
		target = strings.TrimSpace(target)
		ns, rest, dotted := strings.Cut(target, ".")
		ix := index(ns)
		if ix == nil {
			return Result{}, unknownTarget(target, catalog, nil)
		}
		if !slices.Contains(nsOrder, ns) {
			nsOrder = append(nsOrder, ns)
		}
		switch {
		case !dotted:
			for ci, t := range ix.tools {
				addr := ns + "." + t.tool.Name
				if !seen[addr] {
					seen[addr] = true
					extra = append(extra, unit{tool: t, order: [2]int{ti, ci}})
				}
			}
		case ix.byName[rest] != nil:
			t := ix.byName[rest]
			if seen[target] {
				// Named again after its namespace: promote it.
				for i, u := range extra {
					if u.tool == t {
						extra = slices.Delete(extra, i, i+1)
						primary = append(primary, unit{tool: t, order: [2]int{ti, 0}, primary: true})
						break
					}
				}
				continue
			}
			seen[target] = true
			primary = append(primary, unit{tool: t, order: [2]int{ti, 0}, primary: true})
		case ix.types[rest] != nil:
			if !seen[target] {
				seen[target] = true
				primary = append(primary, unit{typ: ix.types[rest], order: [2]int{ti, 0}, primary: true})
			}
		default:
			return Result{}, unknownTarget(target, catalog, ix.nsIndex)
		}
	}

	a := &assembler{indexes: indexes, nsOrder: nsOrder, budget: budget, count: lineCounter{}}
	fits := func(units []unit) (string, []string, int, bool) {
		text, omitted := a.render(units)
		n := a.count.budgetTokens(text)
		return text, omitted, n, n <= budget
	}

	// Several namespaces share the budget: their tools are taken in turn,
	// the first of each, then the second of each, so every namespace
	// named gets its block.
	slices.SortStableFunc(extra, func(x, y unit) int {
		if x.order[1] != y.order[1] {
			return x.order[1] - y.order[1]
		}
		return x.order[0] - y.order[0]
	})

	// While choosing, the closing note counts every namespace tool not yet
	// chosen as left out, so the final text is never longer than the one
	// that was measured.
	var extraAddrs []string
	for _, u := range extra {
		extraAddrs = append(extraAddrs, u.address(nsOf(indexes, u)))
	}
	a.dropped = extraAddrs

	// The targets named one by one: as deep as fits.
	var chosen []unit
	var dropped []string
	if len(primary) > 0 {
		ok := false
		last := ""
		// A long description is cut before the input's type is.
		for _, step := range describeSteps {
			units := withDepth(primary, step.depth)
			for i := range units {
				units[i].brief = step.brief
			}
			text, _ := a.render(units)
			if text == last {
				continue
			}
			last = text
			if _, _, _, ok = fits(units); ok {
				chosen = units
				break
			}
		}
		if !ok {
			chosen = withDepth(primary, 0)
			for i := range chosen {
				chosen[i].brief = true
			}
			for len(chosen) > 1 {
				if _, _, _, ok := fits(chosen); ok {
					break
				}
				u := chosen[len(chosen)-1]
				chosen = chosen[:len(chosen)-1]
				dropped = append(dropped, u.address(nsOf(indexes, u)))
				a.dropped = append(slices.Clone(dropped), extraAddrs...)
			}
		}
	}
	// The rest of whole namespaces, in catalog order: as many as fit with
	// full declarations, then as many of the others as fit with their
	// first level only, then with their first level and the first
	// sentence of their description. Each step adds more text than it saves from the
	// closing note, so the longest prefix that fits is found by bisection.
	rest := extra
	for _, pass := range []struct {
		depth int
		brief bool
	}{{unlimited, false}, {1, false}, {1, true}} {
		if len(rest) == 0 {
			break
		}
		with := func(k int) []unit {
			a.dropped = append(slices.Clone(dropped), extraAddrs[len(extra)-len(rest)+k:]...)
			units := withDepth(rest[:k], pass.depth)
			for i := range units {
				units[i].brief = pass.brief
			}
			return append(slices.Clone(chosen), units...)
		}
		lo, hi := 0, len(rest) // rest[:lo] fits; rest[:hi+1] does not
		// Gallop first, so no text measured is much longer than one that
		// fits: a namespace of thousands is not rendered whole.
		for step := 1; lo < hi; step *= 2 {
			k := min(lo+step, hi)
			if _, _, _, ok := fits(with(k)); !ok {
				hi = k - 1
				break
			}
			lo = k
		}
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if _, _, _, ok := fits(with(mid)); ok {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		chosen = with(lo)
		rest = rest[lo:]
	}
	for _, u := range rest {
		dropped = append(dropped, u.address(nsOf(indexes, u)))
	}
	a.dropped = dropped
	text, omitted := a.render(chosen)
	return Result{Text: text, Tokens: a.count.tokens(text), Omitted: omitted}, nil
}

func withDepth(units []unit, depth int) []unit {
	out := slices.Clone(units)
	for i := range out {
		out[i].depth = depth
	}
	return out
}

func nsOf(indexes map[string]*nsView, u unit) string {
	for ns, ix := range indexes {
		if ix == nil {
			continue
		}
		if u.tool != nil && ix.byName[u.tool.tool.Name] == u.tool {
			return ns
		}
		if u.typ != nil && ix.types[u.typ.name] == u.typ {
			return ns
		}
	}
	return ""
}

// assembler renders a set of units into the final text.
type assembler struct {
	indexes map[string]*nsView
	nsOrder []string
	dropped []string // addresses left out entirely, for the closing note
	budget  int      // the note lists names while the text fits this
	count   lineCounter
}

func (a *assembler) render(units []unit) (string, []string) {
	units = slices.Clone(units)
	slices.SortStableFunc(units, func(x, y unit) int {
		if x.order[0] != y.order[0] {
			return x.order[0] - y.order[0]
		}
		return x.order[1] - y.order[1]
	})
	var b strings.Builder
	var omitted []string
	hasMethods := slices.ContainsFunc(units, func(u unit) bool { return u.tool != nil })
	if hasMethods {
		b.WriteString(callOptions)
	}
	for _, ns := range a.nsOrder {
		ix := a.indexes[ns]
		var mine []unit
		for _, u := range units {
			if (u.tool != nil && ix.byName[u.tool.tool.Name] == u.tool) || (u.typ != nil && ix.types[u.typ.name] == u.typ) {
				mine = append(mine, u)
			}
		}
		if len(mine) == 0 {
			continue
		}
		text, cut := renderNamespace(ix, mine)
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(text)
		for _, c := range cut {
			omitted = append(omitted, ns+"."+c)
		}
	}
	omitted = append(omitted, a.dropped...)
	if len(omitted) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		// Many left out: how many, and what their names are about. Else
		// as many names as fit, the rest counted.
		text := b.String()
		n := min(noteNames, len(omitted))
		if a.budget > 0 && a.count.budgetTokens(text) > a.budget {
			n = 0 // it does not fit anyway
		}
		if len(omitted) > noteNames && n > 0 {
			if note := notShownWords(omitted); a.budget <= 0 || a.count.budgetTokens(text+note) <= a.budget {
				b.WriteString(note)
				n = -1
			}
		}
		for ; n >= 0; n-- {
			note := notShown(omitted, n)
			if n == 0 || a.budget <= 0 || a.count.budgetTokens(text+note) <= a.budget {
				b.WriteString(note)
				break
			}
		}
	}
	return b.String(), omitted
}

// noteNames is the most left-out names the closing note lists; the rest
// it counts.
const noteNames = 12

// notShown is the closing note: the first n names left out, then how many
// more, per namespace, and how to reach them.
func notShown(omitted []string, n int) string {
	if n >= len(omitted) {
		return fmt.Sprintf("// Not shown (budget): %s. Describe them by name.\n", strings.Join(omitted, ", "))
	}
	var nss []string
	count := map[string]int{}
	for _, addr := range omitted[n:] {
		ns, _, _ := strings.Cut(addr, ".")
		if count[ns] == 0 {
			nss = append(nss, ns)
		}
		count[ns]++
	}
	var more []string
	for _, ns := range nss {
		more = append(more, fmt.Sprintf("%d of %s", count[ns], ns))
	}
	listed := ""
	if n > 0 {
		listed = strings.Join(omitted[:n], ", ") + ", and "
		for i := range more {
			more[i] = strings.Replace(more[i], " of ", " more of ", 1)
		}
	}
	return fmt.Sprintf("// Not shown (budget): %s%s. Find them with search (namespace lists one source) and describe them by name.\n",
		listed, strings.Join(more, ", "))
}

// noteWords is the most first words of names the closing note counts per
// namespace.
const noteWords = 16

// notShownWords is the closing note for many left out: per namespace, how
// many, and the words their names start with, each with how many, the
// most common first, so that the model knows what to search for.
func notShownWords(omitted []string) string {
	var nss []string
	count := map[string]int{}
	words := map[string]map[string]int{}
	for _, addr := range omitted {
		ns, name, _ := strings.Cut(addr, ".")
		if count[ns] == 0 {
			nss = append(nss, ns)
			words[ns] = map[string]int{}
		}
		count[ns]++
		words[ns][firstWord(name)]++
	}
	var parts []string
	for _, ns := range nss {
		parts = append(parts, fmt.Sprintf("%d more of %s, whose names start with %s", count[ns], ns, wordCounts(words[ns])))
	}
	return fmt.Sprintf("// Not shown (budget): %s. Find them with search (namespace lists one source) and describe them by name.\n", strings.Join(parts, "; "))
}

// FirstWords counts method names by their first words, the most common
// first, at most noteWords of them: "repos 203, actions 179, ..., 28
// other words".
func FirstWords(names []string) string {
	by := map[string]int{}
	for _, n := range names {
		by[firstWord(n)]++
	}
	return wordCounts(by)
}

func wordCounts(by map[string]int) string {
	ws := slices.SortedFunc(maps.Keys(by), func(x, y string) int { return cmp.Or(by[y]-by[x], strings.Compare(x, y)) })
	var list []string
	for i, w := range ws {
		if i == noteWords {
			list = append(list, fmt.Sprintf("%d other words", len(ws)-i))
			break
		}
		list = append(list, fmt.Sprintf("%s %d", w, by[w]))
	}
	return strings.Join(list, ", ")
}

// firstWord is the first word of a method name: "pulls" of pullsList,
// "list" of list_issues; a type's name counts as "types".
func firstWord(name string) string {
	for i, r := range name {
		if i == 0 && unicode.IsUpper(r) {
			return "types"
		}
		if i > 0 && (unicode.IsUpper(r) || r == '_' || unicode.IsDigit(r)) {
			return name[:i]
		}
	}
	return name
}

// describeSteps are the renderings tried for the targets named one by one,
// richest first: every depth with the whole description, then with the
// description cut.
var describeSteps = func() []struct {
	depth int
	brief bool
} {
	var steps []struct {
		depth int
		brief bool
	}
	for _, brief := range []bool{false, true} {
		for _, d := range []int{unlimited, 8, 7, 6, 5, 4, 3, 2, 1} {
			steps = append(steps, struct {
				depth int
				brief bool
			}{d, brief})
		}
	}
	return append(steps, struct {
		depth int
		brief bool
	}{0, true})
}()

// renderNamespace declares the methods of one namespace and the named
// types they need, and returns the names it had to leave out.
func renderNamespace(ix *nsView, units []unit) (string, []string) {
	var b strings.Builder
	var cuts []string
	methods := false
	for _, u := range units {
		if u.tool == nil {
			continue
		}
		if !methods {
			b.WriteString("declare const " + ix.name + ": {\n")
			methods = true
		}
	}
	// Remaining depth of each named type to declare, in first-use order.
	rem := map[string]int{}
	var order []string
	changed := false
	need := func(name string, r int) {
		if r < 1 {
			return
		}
		if old, ok := rem[name]; !ok {
			order = append(order, name)
			rem[name] = r
			changed = true
		} else if r > old {
			rem[name] = r
			changed = true
		}
	}
	for _, u := range units {
		if u.typ != nil {
			need(u.typ.name, max(u.depth, 1))
		}
	}
	var methodText strings.Builder
	var methodUses []typeUse
	for _, u := range units {
		if u.tool == nil {
			continue
		}
		r := &renderer{ix: ix, depth: u.depth, qualify: ix.name + "."}
		methodText.WriteString(r.method(u.tool, u.brief))
		methodUses = append(methodUses, r.uses...)
		cuts = append(cuts, r.cuts...)
	}
	for _, use := range methodUses {
		need(use.name, use.remaining)
	}
	decls := map[string]string{}
	var declCuts map[string][]string
	var allUses []typeUse
	for changed {
		changed = false
		declCuts = map[string][]string{}
		allUses = allUses[:0]
		for i := 0; i < len(order); i++ {
			name := order[i]
			r := &renderer{ix: ix, depth: rem[name]}
			decls[name] = r.declare(ix.types[name])
			declCuts[name] = r.cuts
			allUses = append(allUses, r.uses...)
			for _, use := range r.uses {
				need(use.name, use.remaining)
			}
		}
	}
	for _, name := range order {
		cuts = append(cuts, declCuts[name]...)
	}
	for _, use := range append(methodUses, allUses...) {
		if _, ok := rem[use.name]; !ok {
			cuts = append(cuts, use.name)
		}
	}
	if methods {
		b.WriteString(methodText.String())
		b.WriteString("};\n")
	}
	if len(order) > 0 {
		if methods {
			b.WriteString("\n")
		}
		b.WriteString("declare namespace " + ix.name + " {\n")
		for _, name := range order {
			b.WriteString(decls[name])
		}
		b.WriteString("}\n")
	}
	// Left out: cut names that no declaration here covers, once each.
	var out []string
	for _, c := range cuts {
		if _, declared := rem[c]; !declared && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return b.String(), out
}

// method renders one method of a declare const block.
func (r *renderer) method(ti *toolInfo, brief bool) string {
	var b strings.Builder
	desc := ti.tool.Description
	if brief {
		desc = briefText(desc)
	}
	doc := textLines(desc)
	if len(doc) == 0 {
		doc = textLines(ti.tool.Title)
	}
	if ti.tool.Deprecated {
		doc = append(doc, "@deprecated")
	}
	if ti.output == nil {
		doc = append(doc, returnsUnknown)
	}
	writeDoc(&b, doc, 1)
	in, optional := r.input(ti, 1)
	q := ""
	if optional {
		q = "?"
	}
	fmt.Fprintf(&b, "\t%s(input%s: %s, options?: CallOptions): Promise<%s>;\n", propName(ti.tool.Name), q, in.s, r.result(ti))
	return b.String()
}

// input renders a method's input type and reports whether the input may
// be left out (the schema requires nothing).
func (r *renderer) input(ti *toolInfo, ind int) (expr, bool) {
	if ti.input == nil {
		return prim("{}"), true
	}
	root := r.ix.root(ti.input)
	t := r.typ(ti.input, root, 1, ind)
	optional := false
	if o, ok := root.(*object); ok {
		optional = len(requiredSet(o)) == 0 && !has(o, "$ref") && !has(o, "anyOf") && !has(o, "oneOf") && !has(o, "allOf")
	} else {
		optional = root == true
	}
	return t, optional
}

// result names a method's result type.
func (r *renderer) result(ti *toolInfo) string {
	if ti.output == nil {
		return "unknown"
	}
	if !r.oneLine {
		r.uses = append(r.uses, typeUse{ti.output.rootName, r.depth})
	}
	return r.name(ti.output.rootName)
}

// declare renders a named type inside a declare namespace block.
func (r *renderer) declare(nt *namedType) string {
	var b strings.Builder
	node := r.ix.node(nt)
	r.root = node
	writeDoc(&b, docLines(node, nt.name), 1)
	t := r.typ(nt.doc, node, 1, 1)
	if t.obj {
		fmt.Fprintf(&b, "\tinterface %s %s\n", nt.name, t.s)
	} else {
		fmt.Fprintf(&b, "\ttype %s = %s;\n", nt.name, t.s)
	}
	return b.String()
}

// briefRunes is the longest description a brief method keeps.
const briefRunes = 300

// briefText is a description's first sentence, at most briefRunes long,
// cut at a word and marked with an ellipsis when cut.
func briefText(desc string) string {
	desc = strings.TrimSpace(desc)
	cut := false
	if i := strings.Index(desc, "\n\n"); i >= 0 {
		desc, cut = strings.TrimSpace(desc[:i]), true
	}
	for i, r := range desc {
		end := -1
		switch {
		case r == '。' || r == '！' || r == '？':
			end = i + len(string(r))
		case r == '.' && i+1 < len(desc) && (desc[i+1] == ' ' || desc[i+1] == '\n'):
			end = i + 1
		}
		if end > 0 {
			if end < len(desc) {
				return desc[:end] + "…"
			}
			break
		}
	}
	if r := []rune(desc); len(r) > briefRunes {
		desc, cut = string(r[:briefRunes]), true
		if i := strings.LastIndexAny(desc, " \n"); i > len(desc)/2 {
			desc = desc[:i]
		}
	}
	if cut {
		desc = strings.TrimRight(desc, " .,;:") + "…"
	}
	return desc
}
