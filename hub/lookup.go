package hub

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"capabilities.sh/capabilities/hub/catalog"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/naming"
	"capabilities.sh/capabilities/hub/policy"
	"capabilities.sh/capabilities/hub/scope"
	"capabilities.sh/capabilities/hub/search"
	"capabilities.sh/capabilities/hub/skills"
	"capabilities.sh/capabilities/hub/skills/skilltext"
	"capabilities.sh/capabilities/hub/tsgen"
)

// Search input bounds (the spec's).
const (
	SearchQueryMax     = 200
	SearchLimitMin     = 1
	SearchLimitMax     = 25
	SearchLimitDefault = 8
	DescribeTargetsMax = 10
)

// view is what search and describe need, derived from one catalog snapshot
// and one policy: the index, the TypeScript inputs and each tool's decision.
// It is built once per (snapshot, policy) and shared by every request.
type view struct {
	scope     *scope.Scope // the profile it is of; nil for the whole hub
	snap      *catalog.Snapshot
	policy    *policy.Policy
	tools     []*catalog.Tool
	decisions []policy.Decision
	index     *search.Index
	ts        []tsgen.Tool // visible (not denied) tools only
	tsCat     *tsgen.Catalog
	sigs      []string // one-line signature per tool, lazily filled
	sigOnce   []sync.Once
	// skills follow the tools in the index: doc len(tools)+i is
	// skills.All()[i] (lookup_skills.go).
	skills      *skills.Set
	skillHidden []bool
}

type viewCache struct {
	mu        sync.Mutex
	cur       *view
	byProfile map[string]*view // each profile's own view, with its own index
}

func (c *viewCache) invalidate() {
	c.mu.Lock()
	c.cur, c.byProfile = nil, nil
	c.mu.Unlock()
}

// view returns the current view of scope sc (nil: the whole hub),
// building it when the catalog, the policy or the profile changed.
func (h *Hub) view(sc *scope.Scope) *view {
	snap := sc.Snapshot(h.catalog.Snapshot())
	pol := h.currentPolicy()
	set := sc.SkillSet(h.skills.Current())
	h.views.mu.Lock()
	defer h.views.mu.Unlock()
	cur := h.views.cur
	if sc != nil {
		cur = h.views.byProfile[sc.Name()]
	}
	if v := cur; v != nil && v.snap == snap && v.policy == pol && v.skills == set && v.scope == sc {
		return v
	}
	v := &view{scope: sc, snap: snap, policy: pol, tools: snap.Tools, skills: set}
	docs := make([]search.Doc, len(v.tools))
	v.decisions = make([]policy.Decision, len(v.tools))
	cfg := sc.Config(h.Config())
	for i, t := range v.tools {
		// As a call on the default connection would be decided.
		conn := ""
		if s := cfg.Sources[t.Source]; s != nil {
			conn = s.DefaultConnection()
		}
		v.decisions[i] = sc.Gate(pol, policy.InputFor(t, conn, cfg))
		docs[i] = searchDoc(t, v.decisions[i].Mode == config.Deny)
		if v.decisions[i].Mode != config.Deny {
			v.ts = append(v.ts, tsToolMarked(t))
		}
	}
	v.tsCat = tsgen.NewCatalog(v.ts)
	docs = append(docs, v.skillDocs(cfg)...)
	v.index = search.Build(docs, nil)
	v.sigs = make([]string, len(v.tools))
	v.sigOnce = make([]sync.Once, len(v.tools))
	if sc == nil {
		h.views.cur = v
	} else {
		if h.views.byProfile == nil {
			h.views.byProfile = map[string]*view{}
		}
		h.views.byProfile[sc.Name()] = v
	}
	return v
}

// changedNote is the line search and describe add to a tool whose
// definition changed since the person accepted it.
func changedNote(t *catalog.Tool) string {
	return "[changed] " + t.Change + " since the user accepted it; calls ask until they accept it (capabilities hub accept " + t.Address + ")."
}

// tsToolMarked is tsTool with a changed tool's note as the last line of its
// JSDoc.
func tsToolMarked(t *catalog.Tool) tsgen.Tool {
	tt := tsTool(t)
	if t.Changed() {
		desc := tt.Description
		if desc == "" {
			desc = t.Title
		}
		tt.Description = strings.TrimRight(desc, "\n") + "\n" + changedNote(t)
	}
	return tt
}

func tsTool(t *catalog.Tool) tsgen.Tool {
	return tsgen.Tool{Namespace: t.Namespace, Name: t.JSName, Title: t.Title, Description: t.Description, InputSchema: t.InputSchema, OutputSchema: t.OutputSchema, Deprecated: t.Deprecated()}
}

func searchDoc(t *catalog.Tool, hidden bool) search.Doc {
	d := search.Doc{Namespace: t.Namespace, Name: t.JSName, OrigName: t.Name, Title: t.Title, Description: t.Description, Hidden: hidden, Deprecated: t.Deprecated()}
	if t.Request != nil {
		// An OpenAPI operation: its method and path say what it does to
		// which resource.
		d.Method, d.Path = t.Request.Method, t.Request.Path
	}
	d.AddSchemas(t.InputSchema, t.OutputSchema)
	return d
}

func (v *view) signature(i int) string {
	v.sigOnce[i].Do(func() { v.sigs[i] = tsgen.Signature(tsTool(v.tools[i])) })
	return v.sigs[i]
}

// InputError is bad input to search, describe or execute: which field and
// what is allowed.
type InputError struct {
	Field   string
	Problem string
}

func (e *InputError) Error() string { return e.Field + ": " + e.Problem }

// SearchRequest is the search tool's input.
type SearchRequest struct {
	Query     string `json:"query"`
	Namespace string `json:"namespace,omitempty"`
	Limit     int    `json:"limit,omitempty"`
	// Profile is the profile the client selected; "" is the whole hub.
	Profile string `json:"-"`
}

// Search answers the search tool: plain text, best match first, grouped by
// namespace with its connections, one-line signatures, the first sentence
// of each description, [asks] where the policy asks, [changed] and
// [deprecated] marks, a count of tools the policy hides and a footer when
// more matched.
//
// Sources being listed for the first time are waited for (startup.go); the
// answer then names those still starting, and those whose tools are not
// known because they are down or need a secret. With namespace, a source
// that cannot be used now says so, listed or not.
func (h *Hub) Search(ctx context.Context, req SearchRequest) (string, error) {
	if n := utf8.RuneCountInString(req.Query); n > SearchQueryMax {
		return "", &InputError{"query", fmt.Sprintf("%d characters; must be 0 to %d (empty lists a namespace)", n, SearchQueryMax)}
	}
	limit := req.Limit
	if limit == 0 {
		limit = SearchLimitDefault
	}
	if limit < SearchLimitMin || limit > SearchLimitMax {
		return "", &InputError{"limit", fmt.Sprintf("%d is out of range; must be %d to %d (default %d)", req.Limit, SearchLimitMin, SearchLimitMax, SearchLimitDefault)}
	}
	sc, err := h.scope(req.Profile)
	if err != nil {
		return "", err
	}
	cfg := sc.Config(h.Config())
	ns := strings.TrimSpace(req.Namespace)
	sources := cfg.EnabledSources(ns)
	starting := h.awaitSources(ctx, sources, false)
	v := h.view(sc)
	if ns != "" && !v.hasNamespace(ns, cfg) {
		return "", &InputError{"namespace", fmt.Sprintf("unknown namespace %q; known: %s", ns, strings.Join(v.namespaces(cfg), ", "))}
	}
	query := strings.TrimSpace(req.Query)
	if query == "" && ns == "" {
		return "", &InputError{"query", "empty; pass a query (1 to 200 characters), or namespace to list one source"}
	}
	// Ask the index for everything that matches, then drop denied tools.
	hits, _ := v.index.Search(query, ns, len(v.tools)+len(v.skills.All()))
	var shown []int
	hidden := 0
	for _, hit := range hits {
		if hit.Doc >= len(v.tools) {
			if !v.skillHidden[hit.Doc-len(v.tools)] {
				shown = append(shown, hit.Doc)
			}
			continue
		}
		if v.decisions[hit.Doc].Mode == config.Deny {
			hidden++
			continue
		}
		shown = append(shown, hit.Doc)
	}
	more, words := 0, ""
	if len(shown) > limit {
		more = len(shown) - limit
		var names []string // a namespace listed: what the rest are about
		for _, i := range shown[limit:] {
			if i < len(v.tools) && query == "" {
				names = append(names, v.tools[i].JSName)
			}
		}
		if len(names) > 10 { // too many to page through with limit
			words = " Their names start with " + tsgen.FirstWords(names) + "."
		}
		shown = shown[:limit]
	}
	note := v.index.UnknownNote(query, ns, shown) // before a search that matched nothing shows all
	var b strings.Builder
	if len(shown) == 0 {
		switch all := v.allowedIn(ns); {
		case query == "":
			fmt.Fprintf(&b, "No tools in namespace %s.", ns)
		case len(all) > 0 && len(all) <= limit:
			// Few enough to show: the model picks by meaning what shares
			// no word with its request ("remember a person" for
			// createEntities), without another round trip.
			if len(all) == 1 {
				fmt.Fprintf(&b, "No tools match %q; the only one there is:\n", query)
			} else {
				fmt.Fprintf(&b, "No tools match %q; these are all the %d there are:\n", query, len(all))
			}
			shown = all
		default:
			fmt.Fprintf(&b, "No tools match %q.", query)
			if names := v.namespaces(cfg); len(names) > 0 {
				fmt.Fprintf(&b, " Namespaces: %s. Try other words, or list one with namespace and an empty query.", strings.Join(names, ", "))
			} else {
				b.WriteString(" No sources are connected yet.")
			}
		}
	}
	// Group by namespace, namespaces in order of their best hit.
	var order []string
	groups := map[string][]int{}
	for _, i := range shown {
		n := skillGroup
		if i < len(v.tools) {
			n = v.tools[i].Namespace
		}
		if _, ok := groups[n]; !ok {
			order = append(order, n)
		}
		groups[n] = append(groups[n], i)
	}
	for gi, n := range order {
		if gi > 0 {
			b.WriteByte('\n')
		}
		if n == skillGroup {
			v.writeSkillHits(&b, groups[n])
			continue
		}
		b.WriteString(n)
		if src := cfg.Sources[v.tools[groups[n][0]].Source]; src != nil {
			if conns := src.ConnectionNames(); len(conns) > 0 {
				def := src.DefaultConnection()
				for k, c := range conns {
					if c == def {
						conns[k] = c + "*"
					}
				}
				fmt.Fprintf(&b, "  (connections: %s)", strings.Join(conns, ", "))
			}
		}
		b.WriteByte('\n')
		for _, i := range groups[n] {
			b.WriteString("  ")
			b.WriteString(v.signature(i))
			if v.decisions[i].Mode == config.Ask {
				b.WriteString("   [asks]")
			}
			if v.tools[i].Changed() {
				b.WriteString(" [changed]")
			}
			if v.tools[i].Deprecated() {
				b.WriteString(" [deprecated]")
			}
			b.WriteByte('\n')
			if s := tsgen.FirstSentence(v.tools[i].Description); s != "" {
				b.WriteString("    " + s + "\n")
			}
			if v.tools[i].Changed() {
				b.WriteString("    " + changedNote(v.tools[i]) + "\n")
			}
		}
	}
	b.WriteString(note)
	if more > 0 {
		hint := " or pass namespace"
		if req.Namespace != "" {
			hint = ""
		}
		fmt.Fprintf(&b, "%d more %s. Narrow the query%s.%s\n", more, plural(more, "match", "matches"), hint, words)
	}
	if hidden > 0 {
		fmt.Fprintf(&b, "%d %s hidden by your policy.\n", hidden, plural(hidden, "tool", "tools"))
	}
	if notes := h.sourceNotes(sources, starting, ns != ""); len(notes) > 0 {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
		b.WriteString(strings.Join(notes, "\n"))
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// allowedIn lists the tools of namespace ns (all of them with "") that
// policy does not deny, in catalog order.
func (v *view) allowedIn(ns string) []int {
	var out []int
	for i, t := range v.tools {
		if (ns == "" || t.Namespace == ns) && v.decisions[i].Mode != config.Deny {
			out = append(out, i)
		}
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func (v *view) hasNamespace(ns string, cfg *config.Config) bool {
	for _, t := range v.tools {
		if t.Namespace == ns {
			return true
		}
	}
	for name, s := range cfg.Sources {
		if naming.Namespace(name) == ns && !s.Disabled {
			return true
		}
	}
	return false
}

func (v *view) namespaces(cfg *config.Config) []string {
	seen := map[string]bool{}
	for _, t := range v.tools {
		seen[t.Namespace] = true
	}
	for name, s := range cfg.Sources {
		if !s.Disabled {
			seen[naming.Namespace(name)] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// DescribeRequest is the describe tool's input.
type DescribeRequest struct {
	Targets []string `json:"targets"`
	Budget  int      `json:"-"`
	// Profile is the profile the client selected; "" is the whole hub.
	Profile string `json:"-"`
}

// Describe answers the describe tool: TypeScript declarations of the
// targets within the token budget. Denied tools do not exist for it.
//
// Sources the targets name that are being listed for the first time are
// waited for; a target of a source whose tools are not known says why.
func (h *Hub) Describe(ctx context.Context, req DescribeRequest) (string, error) {
	if len(req.Targets) < 1 || len(req.Targets) > DescribeTargetsMax {
		return "", &InputError{"targets", fmt.Sprintf("%d targets; must be 1 to %d", len(req.Targets), DescribeTargetsMax)}
	}
	for i, t := range req.Targets {
		if strings.TrimSpace(t) == "" {
			return "", &InputError{fmt.Sprintf("targets[%d]", i), "empty; name an address (github.createIssue), a namespace (github) or a type (github.Issue)"}
		}
	}
	sc, err := h.scope(req.Profile)
	if err != nil {
		return "", err
	}
	hubDecl, rest := tsgen.HubTargets(req.Targets)
	if len(rest) == 0 {
		return hubDecl, nil
	}
	if hubDecl != "" {
		req.Targets = rest
		req.Budget = max(cmp.Or(req.Budget, tsgen.DefaultBudget)-tsgen.BudgetTokens(hubDecl), 1)
	}
	skillTargets, targets := skilltext.SplitTargets(req.Targets)
	cfg := sc.Config(h.Config())
	sources := cfg.SourcesOfTargets(targets)
	starting := h.awaitSources(ctx, sources, false)
	if len(skillTargets) > 0 {
		out, err := h.describeWithSkills(ctx, sc, skillTargets, targets, req.Budget)
		return hubDecl + out, err
	}
	v := h.view(sc)
	res, err := v.tsCat.Describe(req.Targets, &tsgen.Options{Budget: req.Budget})
	var ute *tsgen.UnknownTargetError
	if errors.As(err, &ute) {
		msg := fmt.Sprintf("unknown target %q", ute.Target)
		ns, _, _ := strings.Cut(ute.Target, ".")
		if notes := h.sourceNotes(cfg.EnabledSources(ns), starting, false); len(notes) > 0 {
			msg += ": " + strings.Join(notes, " ")
		} else if len(ute.Closest) > 0 {
			msg += "; closest: " + strings.Join(ute.Closest, ", ")
		} else {
			msg += "; search for the tool first"
		}
		return "", &InputError{"targets", msg}
	}
	if err != nil {
		return "", err
	}
	return hubDecl + res.Text, nil
}
