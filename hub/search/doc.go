// Package search ranks the person's tools for a free-text query with BM25F.
// It is pure: no I/O, no MCP types, no storage. The hub turns its tools
// into Docs (an input schema's properties through AddInputSchema), calls
// Build once per catalog change, and calls Search from any number of
// goroutines.
//
// # Tokens and terms
//
// Every field is split into words at anything that is not a letter or a
// digit, and inside identifiers where naming conventions put a boundary:
// camelCase ("createIssue" -> create, issue), acronyms ("HTTPServer" ->
// http, server), snake_case and kebab-case, and letter/digit changes
// ("base64" -> base, 64). Words are lower-cased, English stop words and
// request filler ("please", "tell me") are dropped, and the rest are
// reduced by a light Porter2-style stemmer (see stem) so that "creates",
// "created" and "creation" meet, as do British and American spellings
// ("organisation", "organization"). Queries go through the same steps.
// Connection names are never indexed: they are not part of a Doc.
//
// # Scoring
//
// A Doc has eight fields: name (Name plus the words of OrigName that Name
// lacks), namespace, title, description, parameter names (each word once),
// parameter descriptions, a skill's headings and an HTTP operation's path
// (its fixed segments, past the prefix most of its namespace's paths
// share; see path.go). The description leaves out the sentences that
// eight or more of its namespace's docs repeat word for word (Jira's
// "Permissions required: ...", GitHub's "OAuth app tokens ... need the
// `repo` scope"; boiler.go): they would make their words common to every
// tool. For a
// query word t and doc d, BM25F first combines the fields into one
// pseudo-frequency
//
//	tf(t,d) = sum over fields f of  w_f * tf_f(t,d) / (1 - b_f + b_f * len_f(d)/avglen_f)
//
// and then saturates it once, so a word repeated across fields cannot
// outscore a second, different query word:
//
//	score(d) = sum over query words t of  idf(t) * tf(t,d) * (k1+1) / (k1 + tf(t,d))
//	idf(t)   = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))
//
// Because weights and lengths are fixed when the index is built, Build
// stores tf(t,d) in the posting lists and Search only sums. It sums the
// words that can add most first, and once the k-th best score exceeds what
// the remaining words could add together, those only add to the docs
// already in (MaxScore): the best k are the same, with less work. A word
// that expands to several terms (below) is read from one list, merged on
// its first use, in which each doc's pseudo-frequencies are already added
// up; the merged lists an index keeps hold at most as many postings as
// the index itself.
//
// # Requests
//
// A request names things by value as well as by kind ("close PROJ-42",
// "a filter named 'my bugs'"): quoted text, numbers, keys, versions,
// identifiers and paths (acme/app, src/main.go) are left out, a URL or an
// e-mail address reads as its kind (request.go); a key with no word for its kind before it ("move PROJ-7 to
// Done") reads as the thing the catalog's parameters take by key
// (issueIdOrKey). "my", "I" and "for me" stand for the caller, whom
// catalogs call the authenticated or current user; "who" asks for users,
// or, when the catalog has a noun for who does what the question asks
// ("who is watching the repo": watchers), for them: that noun then counts
// as the verb itself, not as its synonym.
// Two words the catalog writes as one ("log work", worklog) add that word.
// An acronym the catalog itself spells out reads as its long form: Build
// pairs a word of capitals ("PR") with the run of words with its initials
// that the tools saying it most often say beside it ("pull request"), in
// any case and in the plural ("list PRs"; acronym.go).
//
// # Query expansion
//
// Each query word is expanded with a small table of generic tool
// vocabulary (create/add/new/make, delete/remove, list/show, read/get/open,
// folder/directory, ...), with the abbreviations a catalog pairs with
// their long form in its own names and titles (org, organization), and with
// the agent nouns it uses beside their verbs (watcher, watching; assignee,
// assign). The word and its synonyms act as one term, as a synonym query
// does in Lucene: their pseudo-frequencies add up, synonyms scaled by
// Options.Expansion, before saturation, and the idf is that of the most
// frequent member. A doc that says "remove" thus matches "delete" a little
// less than one that says "delete", and a doc that says both is not
// counted twice. A verb of reading or listing (get, view, open, details,
// show) after the request's first word is not expanded: there it names a
// thing or a state ("traffic views", "the details of PROJ-1", "the open
// pull requests"), not what to do.
//
// # The second stage
//
// The best candidates of a short request are ordered again by what the
// catalog's structure says about each tool: an exact name or title match
// or a request that is how its title starts,
// the action its method, path or leading verb performs against the one
// the request asks for (a participle before a thing names its state, not
// what to do: "start my stopped codespace" is no request to stop one),
// how much of the request its name, title and path
// (and, for less, its description's next sentence) say and how much of
// its title and of the resources its path passes through the request
// says, which of the request's pairs of words its title says in the same
// order and which of its words in the plural the title writes in the
// plural, whether a word of the request is one its parameters' names say
// and its name, title and path do not ("archive the repo": archived),
// whether it acts for the caller ("me", "my"), whether it takes by
// its id the thing the request names by value ("issue 17"), whether one of
// its parameters takes a value the request names from a fixed set ("the
// open pull requests", "approve the pull request": an enum, or the values
// a parameter's description quotes, Doc.Values),
// whether a parameter is named for the kind of a value the request names
// (a file's path, a commit's hash, a version, a time, someone's name),
// whether it takes a parameter for a place the request names after a
// preposition ("pending on the repo": repo), how rare in its namespace
// the resources are that it passes through and the request does not
// name, how central its path family is in its namespace, and whether its
// API deprecates it (Doc.Deprecated: an operation kept for older callers
// comes after a live one the request fits about as well). See rerank.go.
// Before that, each of the first stage's three best searches brings in
// the operations on its path it missed, for half its score (withSiblings):
// Star Trek's POST /performer/search, found by its form's stuntPerformer,
// and the GET beside it, which pages through the same performers.
//
// # Namespaces of unlike size
//
// In a catalog where one namespace dwarfs others (GitHub's description
// beside a few small servers), a smaller namespace in which the request's
// words are more common than in the whole catalog weighs more, and its
// best tools join the second stage's candidates, so the large namespace's
// statistics do not bury the small ones. See namespaces.go.
//
// # Order
//
// Hits come best first; equal scores are ordered by namespace, then name,
// so results are deterministic. A blank query lists a namespace in name
// order.
//
// # Quality and speed
//
// TestRetrievalQuality scores the defaults on a public tool-retrieval
// benchmark (testdata/tool-retrieval); run it with -v to print Recall@k,
// MRR and nDCG@10 next to the benchmark's Bleve baseline.
// TestCatalogRetrieval does the same for tasks over GitHub's REST
// description, Jira Cloud's, Stripe's and Slack's (each as OpenAPI tools
// and as plain MCP tools), the Star Trek API and the reference MCP
// servers, and for the servers' tasks and GitHub's over both catalogs at
// once (testdata/tasks), next to a plain BM25 computed in the same test,
// and fails when a held-out half falls below its floor. BenchmarkBuild10k,
// BenchmarkBuild100k, BenchmarkSearch10k, BenchmarkSearch100k and
// BenchmarkSearch100kUneven time synthetic catalogs (SyntheticCatalog)
// and report ratios to a reference pass in the same process; bench/bleve
// compares them against Bleve.
package search
