package search

import (
	"bytes"
	"hash/maphash"
	"math"
	"math/bits"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The second stage. BM25F finds the candidates; the best of them are then
// ordered again with what a catalog's structure says about each tool and
// what the request asks for:
//
//   - an exact match: the request's words are exactly those of a tool's
//     name or of its title, or of its description's first sentence when
//     it has none ("pullsList", "List pull requests"), unless the request
//     is a question ("which reviewers are requested for the pull
//     request" asks who they are, not to "Request reviewers for a pull
//     request"; "is my PR mergeable" is no request to merge) or names a
//     value of a kind the tool takes no parameter for ("list all issues
//     in acme/app" names a repository, which the caller's issue list does
//     not take), or is about the caller and the tool is not ("list the
//     teams I'm on"); or the first two to four words of that title as
//     written when a stop word or nothing follows them ("list
//     repositories" for "List repositories for the authenticated user",
//     not for "List repository teams" or "List repositories starred by a
//     user");
//   - the action: a request to list, read, create, change, delete or search
//     something against the tool's. An HTTP operation's action comes from
//     its method and path (GET of a collection lists, GET of an item
//     reads, as does one of a collection that takes the thing's own id in
//     its query and no page, GET /soundtrack?uid=; POST creates, PUT and
//     PATCH change, DELETE deletes); any tool's also from the verb its
//     name or title starts with, a name that gets things in the plural
//     listing them (getProjectVersions). The request's comes
//     from its first word ("add"; "get rid of" and "set up" read as the
//     plain verbs plainVerb puts for them; "protect the branch" and
//     "comment on the issue" are verbs too, which ask for a change; "check
//     runs for this commit" starts with a thing's name, which the catalog's
//     titles say after their verb, "Create a check run");
//     a question ("which labels...") or a bare noun phrase ("open alerts")
//     asks to read ("how do I..." and "how to..." ask to do it), and one
//     to answer yes or no ("is alice a collaborator") to check, as the
//     titles that start with "Check" do; such a tool loses a share to any
//     other request ("when was PR 12 merged" asks for the pull request).
//     "Who" with a past act done to a thing named by value ("who opened
//     PR 61") asks to read that thing, which records who did it, unless
//     the catalog has a noun for who does it ("who reviewed PR 21":
//     reviewers); and that act names no state (open).
//     "Show" asks to list things named in the plural and to read or list
//     one named in the singular ("show the latest release"); "by id"
//     (uid, uuid) asks to read one too ("look up the performer by uid").
//     A first word the catalog does not know, in a sentence and before no
//     plural, is a verb it does not use and asks for a change ("downgrade
//     dave to a regular member"); one in un- that no title starts with,
//     whose base it knows, undoes that, a delete ("unwatch the repo", as
//     its own unstar and unfollow are), unless a plural after it makes it
//     say what the things are ("unread notifications"). A tool without a
//     path whose title starts so ("Unstages all staged changes") deletes
//     likewise (Index.undoes).
//     A verb none of the plain actions covers (follow, star, fork) counts
//     for a tool whose title starts with it even when the tool matches no
//     other word of the request ("unfollow octocat" names a user);
//     a plain one needs more ("add two numbers" is no request to add
//     observations).
//     A tool that does something else loses a share, and one that only
//     changes things (or, without a path, whose title starts with a verb
//     no action covers: "Assigns a permission scheme") loses much more
//     to a question ("what secrets are set
//     for actions" lists them; "what's the status of check run 77" reads
//     one). An HTTP operation's method has the last word on reading or
//     changing, whatever its name's verb, and a name says its verb as is
//     (checks_create creates; its "checks" names things);
//   - the words: the share of the request the tool's name, title and path
//     say (its verb said when the tool does what it asks, "list the
//     rulesets" of "Get all repository rulesets"), and the share of its
//     label (its title; an MCP tool's name) the
//     request says, so "List pull requests" comes before "Get all
//     requested reviewers for a pull request"; and, for less, the share of
//     the request the description's sentence after the title says, which
//     often puts the title in other words ("List stargazers": "Lists the
//     people that have starred the repository");
//   - the caller: "my", "I" and "for me" name the signed-in user, whom
//     catalogs call the authenticated or current user, or reach under
//     paths like /user and /me (path.go). It counts for a tool that matches
//     more of the request than the caller and its verb (a question has
//     none: "which filters are mine");
//   - the path family: a small prior for the operations under the first
//     path segments a namespace has most of (GitHub's /repos before its
//     /enterprises);
//   - the scope: an operation under a smaller container that has a twin
//     under the main one, the same method and the rest of the path the
//     same (/orgs/{org}/dependabot/alerts beside
//     /repos/{owner}/{repo}/dependabot/alerts), loses a share unless the
//     request names its container ("open dependabot alerts" asks for the
//     repository's, "the org's dependabot alerts" for the organization's).
//     Tools without a path are twins when their names differ in the name
//     of a container's parameter only (list_alerts_for_org, taking org,
//     beside list_alerts_for_repo, taking repo);
//   - the resources: the share of the resources an HTTP operation's path
//     passes through (the last word of each fixed segment that names no
//     action) that the request names: "teams in the org" asks for
//     /orgs/{org}/teams rather than /orgs/{org}/organization-roles/teams,
//     "open pull requests" for /repos/{owner}/{repo}/pulls rather than
//     .../pulls/{pull_number}/requested_reviewers. A tool without a path
//     passes through the things its name says, less its verb
//     (teams_list_child_in_org: teams, child, org), which count for less.
//     A word the request says only as the first of one of the catalog's
//     compounds names no resource of a path that has the second ("which
//     workflow runs are queued": the repository's runs, not
//     /actions/workflows/{workflow_id}/runs; namesHead). A resource the
//     tool's title says in a longer word ending with it is that word
//     ("webhook" for /hooks; closedCompound);
//   - the rare resources: a resource the tool passes through (as above)
//     that the request does not name costs it a share in proportion to
//     how rare that resource is among its namespace's tools,
//     log(n/df)/log(n), summed and at most one: "add a collaborator"
//     asks for /repos/{owner}/{repo}/collaborators, not for
//     /orgs/{org}/copilot-spaces/{space_number}/collaborators, whose
//     Copilot Space the request does not name and few operations pass
//     through, while /repos, which half of them do, costs little. A
//     request that says the tool's name or its title's first words names
//     it, whatever it passes through;
//   - the object: after a verb of the plain actions (create, add, set,
//     list...), the words up to the next stop word name the thing it acts
//     on, the last the catalog knows standing for them ("create a tag for
//     the release": tag; "run the deploy workflow on main": workflow; "list
//     the org's teams": teams, past the possessive), and
//     a tool that names it after its own verb, in its name or title, or as
//     its path's last resource, gets a share (git/create-tag before
//     repos/create-release). A verb the plain actions lack (fork, start,
//     approve) says the tool by itself, and what follows it may be the
//     thing it is done to ("fork the repo" asks for no operation on
//     repositories): no object. A tool whose title starts with the
//     request's verb but acts on another thing does not share the verb
//     ("set the org secret" is no request to "Set selected repositories
//     for an organization secret");
//   - the phrases: the share of the request's pairs of words that
//     follow each other (stop words left out) which the title says in the
//     same order ("pull request" in "List pull requests", "check run"
//     in "Update a check run");
//   - the number: the share of the words the request writes in the plural
//     that the title writes in the plural too ("list workflows": "List
//     repository workflows", where "List workflow runs" lists runs);
//   - the parameters: a word of the request that the tool says only in a
//     parameter's name names what to set or filter by ("archive the
//     repo": repos/update's archived; "change the PR's base branch":
//     pulls/update's base);
//   - the values: a request that names a value one of the tool's
//     parameters takes from a fixed set, a state, a way or a verdict
//     ("the open pull requests": state open; "approve the pull request":
//     event APPROVE), asks for that tool; the word itself counts, not its
//     synonyms, and a value of several words counts when the request says
//     them in order ("requesting changes": REQUEST_CHANGES, where "request
//     a review" alone names none);
//   - the item: a request that names one thing by value ("issue 17",
//     "attachment 10042") asks for a tool that takes one of them by its id,
//     an HTTP operation whose path has a parameter after that thing's
//     segment (/issues/{issue_number}), or a tool without a path whose
//     parameter's name says it takes one by its id (issueIdOrKey,
//     pull_number). An operation whose path ends with the id of
//     something else the request names by no value is about that one:
//     "what's the status of deployment 12" asks for the deployment's
//     statuses, not for /deployments/{deployment_id}/statuses/{status_id};
//   - the kind of a value: a request that names a file (logo.png,
//     docs/old.md), a repository (acme/app), a commit by its hash, a
//     version, a time ("today", "this week") or someone by name ("add
//     carol to copilot") asks for a tool with a parameter named for that
//     kind (path, repo, sha, tag_name, since, username);
//   - the place: the words after "on", "in", "with", "to the" and the
//     like name where the thing is, what it goes to or comes with, which
//     the tool takes a parameter for ("which invitations are pending on
//     the repo": repos/list-invitations' repo, not a team's invitations);
//     when the request acts on something else, not the tool's own thing
//     ("create a tag for the release" is no request to create a release);
//   - the namespace: in a catalog whose namespaces differ in size, the
//     weight of a smaller namespace in which the request's words are
//     common (namespaces.go), so a small server's tool is not buried
//     under a large description's.
//
// Each feature adds a share of the best candidate's score, so the first
// stage still decides between tools the features cannot tell apart, and
// the shares fade as a request grows longer: it then says enough for the
// first stage. The weights (rerankDefaults) were chosen on the tuning
// halves of the task sets (catalogs_test.go) and the tool-retrieval
// benchmark, and checked by cross-validation within them.

// Actions, as bits: a tool may do several (PUT both creates and replaces).
const (
	actList uint8 = 1 << iota
	actGet
	actCreate
	actUpdate
	actDelete
	actSearch
)

// actionVerbs maps the stems of verbs, in requests and at the start of tool
// names and titles, to the action they ask for.
var actionVerbs = func() map[string]uint8 {
	m := map[string]uint8{}
	add := func(a uint8, words ...string) {
		for _, w := range words {
			m[string(stem([]byte(w)))] = a
			verbForms[w] = true
		}
	}
	add(actList, "list", "lists", "show", "enumerate", "browse", "all")
	add(actGet, "get", "read", "fetch", "view", "retrieve", "details", "detail", "info", "inspect", "download", "check", "see", "describe", "look", "print", "summarize", "summarise")
	add(actCreate, "create", "add", "new", "make", "post", "publish", "insert", "invite", "upload", "submit", "remember", "memorize", "store", "save", "send")
	add(actUpdate, "update", "edit", "change", "modify", "rename", "set", "replace", "patch", "close", "archive", "reopen", "configure", "mark")
	add(actDelete, "delete", "remove", "drop", "clear", "destroy", "erase", "purge", "discard", "unset", "forget", "prune", "sweep", "revoke")
	add(actSearch, "search", "find", "lookup", "locate", "query", "searching")
	// Verbs that set a rule or a setting ("require signed commits",
	// "enable Pages") create or change one, as "put" does (HTTP's PUT;
	// "put alice on issue 12"); "disable" changes or removes.
	add(actCreate|actUpdate, "require", "enforce", "allow", "enable", "prevent", "forbid", "put")
	add(actUpdate|actDelete, "disable")
	return m
}()

// computeVerbs are verbs of computing: a tool whose title starts with one
// changes nothing, and a question may ask for it ("what is 10am in Paris
// in Tokyo time": "Convert time between timezones").
var computeVerbs = []string{"convert", "calculate", "compute", "render", "translate", "format", "validate", "parse"}

// makesNew are the words after "make" that make a new thing.
var makesNew = map[string]bool{"a": true, "an": true, "new": true, "another": true, "some": true, "one": true, "two": true, "three": true}

// verbForms are the words actionVerbs is made of, as written.
var verbForms = map[string]bool{}

// selfWords are the request's words for the caller.
var selfWords = map[string]bool{"me": true, "my": true, "i": true, "mine": true, "myself": true, "im": true}

// selfTerm stands for the caller in an analysed request; it expands to
// the first words of the selfPhrases the catalog uses.
const selfTerm = "\x00self"

var selfTermBytes = []byte(selfTerm)

// whoBytes is what "who" becomes in a request: a person, which synonyms
// widen to users, members and accounts.
var whoBytes = []byte("user")

// selfPhrases are the catalog's: a tool whose name, title or path says one
// of them acts for the caller.
var selfPhrases = []string{"authenticated user", "current user", "signed in user", "logged in user", "the caller", "yourself", "my"}

// selfPhraseStarts are the selfPhrases by their first word.
var selfPhraseStarts = func() map[string][]string {
	m := map[string][]string{}
	for _, p := range selfPhrases {
		first := strings.Fields(p)[0]
		m[first] = append(m[first], p)
	}
	return m
}()

var selfPhraseWords = func() map[string][]string {
	m := map[string][]string{}
	for _, p := range selfPhrases {
		m[p] = strings.Fields(p)
	}
	return m
}()

// nameVerbWords is how far into a name its verb may come: a resource's
// name may come first, of several words
// (repos_custom_properties_for_repos_get_repository_values).
const nameVerbWords = 6

// docFeatures are the second stage's view of one doc.
type docFeatures struct {
	act    uint8
	self   bool
	titled bool // the doc has a title, or a path (see rerank)
	pathed bool // the doc has a path: its resources come from it
	// family is the share, on a log scale, of its namespace's paths that
	// start with the doc's first segment: /repos in GitHub's description
	// holds half of them, /enterprises few.
	family float32
	// prefix holds hashes of the title's first 2, 3 and 4 words as
	// written (articles left out), each when the title ends or goes on
	// with a stop word after them, 0 otherwise.
	prefix [3]uint32
	// scope is the term of the container the doc's path starts with
	// (orgs) when that is not its namespace's main one and the doc has a
	// twin there (see Build's path families), -1 otherwise.
	scope    int32
	nameSig  uint64 // hash of the distinct stems of the name, 0 when none
	titleSig uint64 // of the title, or of the description's first sentence
	verb     int32  // term id of the title's first word, -1 when none
	nameVerb int32  // term id of the name's first verb, -1 when none
	// lastItem is the term id of the thing the path's last parameter
	// takes one of by its id (status for
	// /deployments/{deployment_id}/statuses/{status_id}), -1 when none.
	lastItem int32
	// The distinct term ids of the title (or lead), of the name and of the
	// path's fixed segments are ids[off:off+nTitle], then nName, then
	// nPath, in Index.featIDs.
	off                  int32
	nTitle, nName, nPath uint8
	// nItem ids follow: the resources the tool takes one of by its id,
	// the path segments a parameter follows (/issues/{issue_number}), or
	// without a path the things its parameters take by id (paramItem).
	nItem uint8
	// nHead ids follow: the last word of each of the path's fixed
	// segments that names no action, the resources it passes through;
	// without a path, the words of the name that name no action
	// (teams_list_child_in_org: team, child, org).
	nHead uint8
	// nDetail ids follow: the words of the description's first sentence
	// after the title (or after the first sentence that stands for one),
	// which often says the same in other words ("List stargazers": "Lists
	// the people that have starred the repository").
	nDetail uint8
	// nPhrase codes follow: the pairs of words that follow each other in
	// the title (or lead), as pairCode codes them.
	nPhrase uint8
	// nValue ids follow: the values its parameters take from a fixed set
	// (Doc.Values), a one-word value as its word's id, a longer one as
	// the negative -1-pairCode of its first two words.
	nValue uint8
	// nParam ids follow: the words of its parameters' names.
	nParam uint8
	// nPlural ids follow: the words its title (or lead) writes in the
	// plural.
	nPlural uint8
	// nObject ids follow: the words naming the thing the tool acts on
	// (objectWords).
	nObject uint8
	// soleVariant is set when the scope comes from a word that marks
	// variants in the namespace but the name has no twin without it
	// (admin_emoji_add: no emoji_add).
	soleVariant bool
	// rareOff is where the rarity of each of its heads starts, in the
	// order heads gives them: Index.headRare[rareOff:rareOff+nHead].
	rareOff int32
}

func (f *docFeatures) title(ids []int32) []int32 {
	return ids[f.off : f.off+int32(f.nTitle)]
}

// short are the term ids of f's title, name and path together.
func (f *docFeatures) short(ids []int32) []int32 {
	return ids[f.off : f.off+int32(f.nTitle)+int32(f.nName)+int32(f.nPath)]
}

func (f *docFeatures) name(ids []int32) []int32 {
	o := f.off + int32(f.nTitle)
	return ids[o : o+int32(f.nName)]
}

// pathIsName reports whether an HTTP operation's path is one fixed
// segment that says its name's words (Slack's /chat.postMessage,
// chat_postMessage): a method called by name, labelled by its name as an
// MCP tool is, not by its description's first sentence.
// pathWords are the words of its last fixed segment.
func pathIsName(path string, fixed, pathWords, name []string) bool {
	return len(fixed) == 1 && !strings.Contains(path, "{") && len(name) > 1 && slices.Equal(pathWords, name)
}

// appendSet appends the distinct ids of ids, at most 255, to arena
// (sorting ids in place) and returns the new arena, how many it appended
// and their signature.
func appendSet(arena, ids []int32) ([]int32, uint8, uint64) {
	slices.Sort(ids)
	ids = slices.Compact(ids)
	sig := signature(ids)
	ids = ids[:min(len(ids), 255)]
	return append(arena, ids...), uint8(len(ids)), sig
}

var sigSeed = maphash.MakeSeed()

// signature hashes a set of term ids, order-free. It sorts ids in place.
func signature(ids []int32) uint64 {
	if len(ids) == 0 {
		return 0
	}
	slices.Sort(ids)
	s := slices.Compact(ids)
	var h maphash.Hash
	h.SetSeed(sigSeed)
	for _, id := range s {
		h.WriteByte(byte(id))
		h.WriteByte(byte(id >> 8))
		h.WriteByte(byte(id >> 16))
		h.WriteByte(byte(id >> 24))
	}
	return h.Sum64() | 1
}

// isStop reports whether w is one of the stopWords.
func isStop(w string) bool {
	_, ok := stopWords[w]
	return ok
}

// fnvBasis is FNV-1a's offset basis.
const fnvBasis = 2166136261

// prefixSkip reports whether w is one of the words a title's and a
// request's first words are compared without: "a", "an", "the", "all".
func prefixSkip[T string | []byte](w T) bool {
	switch string(w) {
	case "a", "an", "the", "all":
		return true
	}
	return false
}

// wordHash extends the FNV-1a hash h by the word w and a space.
func wordHash[T string | []byte](h uint32, w T) uint32 {
	for i := 0; i < len(w); i++ {
		h ^= uint32(w[i])
		h *= 16777619
	}
	h ^= ' '
	return h * 16777619
}

// wordScratch lets features split texts into words without allocating a
// string per word: words repeat across a catalog, so each is kept once.
type wordScratch struct {
	intern map[string]string
	acts   map[string]uint8
	buf    []byte
	name   []string
	title  []string
	path   []string
	ids    []int32
	pairs  []int32 // the title's pairs of words (pairCode)
	plural []int32 // the title's words in the plural
	object []int32 // the words naming what the tool acts on (objectWords)
}

// words returns the lower-case words of s in dst[:0].
func (ws *wordScratch) words(dst []string, s string) []string {
	dst = dst[:0]
	ws.buf = forEachToken(s, ws.buf, func(tok []byte) {
		w, ok := ws.intern[string(tok)]
		if !ok {
			w = string(tok)
			ws.intern[w] = w
		}
		dst = append(dst, w)
	})
	return dst
}

// action is the action a word of a tool's name, title or path asks for
// as a verb (actionVerbs), kept per word. Only the verb's own forms count:
// "invitation" shares its stem with "invite" but names a thing
// (orgs/cancel-invitation, /orgs/{org}/invitations).
func (ws *wordScratch) action(w string) uint8 {
	if a, ok := ws.acts[w]; ok {
		return a
	}
	if ws.acts == nil {
		ws.acts = map[string]uint8{}
	}
	var a uint8
	if verbForms[w] || verbForms[strings.TrimSuffix(w, "s")] || verbForms[strings.TrimSuffix(w, "es")] {
		a = actionVerbs[string(stem([]byte(w)))]
	}
	ws.acts[w] = a
	return a
}

// words returns the lower-case words of s.
func words(s string) []string {
	ws := wordScratch{intern: map[string]string{}}
	return ws.words(nil, s)
}

// plural reports whether an English noun is plural: it ends in "s" but
// not in "ss", "us" or "is".
func plural(w string) bool {
	n := len(w)
	return n > 3 && w[n-1] == 's' && w[n-2] != 's' && w[n-2] != 'u' && w[n-2] != 'i'
}

// lead is the first sentence of a description: up to the first full stop
// followed by a space or a line break, or the first line.
func lead(s string) string {
	s = strings.TrimSpace(s)
	end := len(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		end = i
	}
	for i := 0; i+1 < end; i++ {
		if s[i] == '.' && (s[i+1] == ' ' || s[i+1] == '\n') {
			end = i
			break
		}
	}
	return strings.TrimSpace(s[:end])
}

// features computes the second stage's view of a doc whose path has the
// fixed segments fixed (after its namespace's prefix); termOf maps a word
// to its term id (-1 for stop words and unknown words). It counts in
// abbrev the abbreviations its name and title pair, in keyed the things
// its parameters take by key, and in compounds the pairs of words its
// title says after its first (pairCode). Build appends the detail's ids,
// which it reads with the description (splitDetail).
func features(d *Doc, fixed []string, termOf func(string) int32, selfUsed map[string]bool, abbrev map[[2]string]int, keyed map[string]int, compounds map[int32]int, ws *wordScratch, arena *[]int32) docFeatures {
	f := docFeatures{verb: -1, nameVerb: -1, scope: -1, lastItem: -1}
	title := d.Title
	if title == "" {
		title = lead(d.Description)
	}
	nameWords := ws.words(ws.name, d.Name)
	ws.name = nameWords
	// The path: the method gives the action, and a last fixed segment
	// that is a verb qualifies it (POST /characters/search searches).
	// A path of one segment that says the name (/conversations.create)
	// is a method called by name (pathIsName).
	method := strings.ToUpper(d.Method)
	pathName, idQuery := false, false
	if d.Path != "" {
		verb := uint8(0)
		if len(fixed) > 0 {
			last := ws.words(ws.path, fixed[len(fixed)-1])
			ws.path = last
			if len(last) > 0 {
				verb = ws.action(last[len(last)-1])
			}
		}
		pathName = pathIsName(d.Path, fixed, ws.path, nameWords)
		item := pathItem(d.Path)
		if !item && (method == "GET" || method == "HEAD") && verb != actSearch && !pathName && takesOwnID(d) {
			// GET /soundtrack?uid=..., "Retrieval of a single
			// soundtrack": a read of one that takes its id in the
			// query, as /soundtracks/{uid} does in the path.
			item, idQuery = true, true
		}
		switch method {
		case "GET", "HEAD":
			if verb == actSearch {
				f.act |= actSearch | actList
			} else if item {
				f.act |= actGet
			} else {
				f.act |= actList | actGet
			}
		case "POST":
			if verb == actSearch {
				// Its body carries the criteria: it searches, where
				// the GET beside it lists.
				f.act |= actSearch
			} else if verb&(actUpdate|actDelete) != 0 {
				// POST /pins.remove, /chat.update: a method named by
				// what it does.
				f.act |= verb
			} else if a := ws.action(firstWord(title)); a != 0 && pathName {
				// POST /conversations.kick, "Removes a user from a
				// conversation": a method called by name, whose
				// description's verb says what it does, as an MCP
				// tool's does.
				f.act |= a
			} else if item && ws.action(firstWord(title)) == actUpdate {
				// POST /v1/products/{id}, "Updates the specific
				// product": an API of forms updates with a POST.
				f.act |= actUpdate
			} else {
				f.act |= actCreate
			}
		case "PUT":
			f.act |= actCreate | actUpdate
		case "PATCH":
			f.act |= actUpdate
		case "DELETE":
			f.act |= actDelete
		}
	}

	// The name's first verb ("reactions/create-for-issue", "list_issues").
	for vi, w := range nameWords[:min(nameVerbWords, len(nameWords))] {
		// A name says its verb as is (checks_create creates; its
		// "checks" names things).
		if a := ws.action(w); a != 0 && verbForms[w] {
			if d.Path != "" && strings.EqualFold(w, method) {
				// Stripe's postFileLinksLink: the name says the
				// method, which the path reads.
				break
			}
			if d.Path == "" && vi == 0 && httpMethods[w] && ws.action(firstWord(title)) != 0 {
				// Without the path, a name that starts with a method
				// (PostFileLinksLink) says less than its description's
				// verb ("Updates an existing file link").
				break
			}
			if d.Path != "" {
				// The method has the last word on reading or changing:
				// "checks/create" (POST) is no read for its "checks".
				if method == "GET" || method == "HEAD" {
					a &= actGet | actList | actSearch
				} else {
					a &^= actGet | actList
				}
			}
			f.act |= a
			f.nameVerb = termOf(w)
			// Getting things in the plural lists them
			// (getProjectVersions, getUsersFromGroup), unless a path
			// says it gets one (GET /rules/branches/{branch},
			// get-branch-rules).
			if a == actGet && (plural(nameWords[len(nameWords)-1]) || vi+1 < len(nameWords) && plural(nameWords[vi+1]) || readVerbs[w] && pluralObject(nameWords[vi+1:])) && (d.Path == "" || !pathItem(d.Path)) {
				f.act |= actList
			}
			break
		}
	}

	// The title's leading verb.
	tw := ws.words(ws.title, title)
	ws.title = tw
	if len(tw) > 0 {
		f.verb = termOf(tw[0])
		if a := ws.action(tw[0]); a != 0 && d.Path == "" {
			f.act |= a
		}
	}

	// A name made from a path that ends with a collection, then the
	// parameter picking one of it (GetPayoutsPayout, taking payout),
	// reads one, however its description says it ("Retrieves the details
	// of an existing payout").
	var unit []string
	unitEnds := false
	if d.Path == "" {
		unit, unitEnds = repeatedUnit(nameWords)
	}
	if unitEnds && f.act&actGet != 0 && slices.ContainsFunc(d.Params, func(p string) bool { return foldedIs(p, unit) }) {
		f.act &^= actList
	}

	// A short word of the name that begins a longer word of the title is
	// likely its abbreviation ("orgs/list-members", "List organization
	// members"); Build keeps the pairs that recur.
	for _, v := range nameWords {
		if len(v) < 2 || len(v) > 5 {
			continue
		}
		sv := string(stem([]byte(v)))
		if slices.Contains(tw, v) || slices.Contains(tw, sv) {
			continue // the title says it too: not abbreviated here
		}
		for _, u := range tw {
			if len(u) >= len(sv)+3 && strings.HasPrefix(u, sv) {
				abbrev[[2]string{sv, u}]++
			}
		}
	}
	for _, ws := range [...][]string{nameWords, tw} {
		for i, w := range ws {
			for _, p := range selfPhraseStarts[w] {
				if words := selfPhraseWords[p]; i+len(words) <= len(ws) && slices.Equal(ws[i:i+len(words)], words) {
					f.self = true
					selfUsed[p] = true
				}
			}
		}
	}

	// The title's first words, as written, up to the end of a phrase:
	// "list repositories" is how "List repositories for the authenticated
	// user" starts, not "List repository teams"; "create a repository"
	// is "Create a repository for the authenticated user" shortened, not
	// "Create a repository ruleset", which names another thing.
	h, n := uint32(fnvBasis), 0
	for i, w := range tw {
		if prefixSkip(w) {
			continue
		}
		h = wordHash(h, w)
		if n++; n >= 2 {
			if i+1 == len(tw) || isStop(tw[i+1]) {
				f.prefix[n-2] = h | 1
			}
		}
		if n == len(f.prefix)+1 {
			break
		}
	}
	ids := ws.ids[:0]
	defer func() { ws.ids = ids }()
	f.off = int32(len(*arena))
	// The things the title names in the plural as well: "List repository
	// workflows" lists workflows, "List workflow runs" runs. Build
	// appends them after the parameters.
	ws.plural = ws.plural[:0]
	for _, w := range tw {
		if id := termOf(w); id >= 0 {
			ids = append(ids, id)
			if plural(w) {
				ws.plural = append(ws.plural, id)
			}
		}
	}
	*arena, f.nTitle, f.titleSig = appendSet(*arena, ids)
	f.titled = d.Title != "" || d.Path != "" && !pathName
	f.pathed = d.Path != ""
	ids = ids[:0]
	for _, w := range nameWords {
		if id := termOf(w); id >= 0 {
			ids = append(ids, id)
		}
	}
	*arena, f.nName, f.nameSig = appendSet(*arena, ids)
	// The pairs of words that follow each other in the title, stop words
	// left out ("pull request", "check run"); a name's words follow the
	// catalog's order (pulls/list-requested-reviewers), not a sentence's.
	// Build appends them after the detail.
	ws.pairs = ws.pairs[:0]
	prev := int32(-1)
	for _, w := range tw {
		id := termOf(w)
		if id < 0 {
			continue
		}
		if prev >= 0 && prev != id {
			ws.pairs = append(ws.pairs, pairCode(prev, id))
		}
		prev = id
	}
	// Past the first, which starts with the title's verb ("Create a
	// check run"), the pairs name things.
	for _, p := range ws.pairs[min(1, len(ws.pairs)):] {
		compounds[p]++
	}
	ids = ids[:0]
	for _, seg := range fixed {
		ws.path = ws.words(ws.path, seg)
		for _, w := range ws.path {
			if id := termOf(w); id >= 0 {
				ids = append(ids, id)
			}
		}
	}
	*arena, f.nPath, _ = appendSet(*arena, ids)
	ids = ids[:0]
	if d.Path != "" {
		// itemOf is the thing a segment names, one of which the
		// parameter after it picks (or, idQuery, the query's id).
		itemOf := func(seg string) int32 {
			ws.path = ws.words(ws.path, seg)
			n := len(ws.path)
			if n == 0 {
				return -1
			}
			w := ws.path[n-1]
			if n == 1 {
				w = compoundHead(w, tw)
			}
			return termOf(w)
		}
		prev := ""
		for seg := range strings.SplitSeq(strings.Trim(d.Path, "/"), "/") {
			if isParam(seg) {
				f.lastItem = -1
			}
			if isParam(seg) && prev != "" {
				if id := itemOf(prev); id >= 0 {
					ids = append(ids, id)
					if endsWithIDWord(strings.Trim(seg, "{}")) {
						f.lastItem = id
					}
				}
			}
			prev = seg
			if isParam(seg) {
				prev = ""
			}
		}
		if idQuery && prev != "" {
			if id := itemOf(prev); id >= 0 {
				ids = append(ids, id)
				f.lastItem = id
			}
		}
	}
	// Without a path, the parameters say what the tool takes by its id;
	// any tool's say what the catalog takes by key (keyOf).
	for _, p := range d.Params {
		if unit != nil && foldedIs(p, unit) {
			// A name made from a path says the collection, then the
			// parameter that picks one of it (GetCustomersCustomer,
			// PostPaymentLinksPaymentLink, taking payment_link): it
			// takes one by its id.
			if id := termOf(unit[len(unit)-1]); id >= 0 {
				ids = append(ids, id)
			}
			continue
		}
		if d.Path == "" && strings.EqualFold(p, "id") {
			// A bare id takes the last thing the name says:
			// GetEventsId an event, getWorklog a worklog.
			for i := len(nameWords) - 1; i >= 0; i-- {
				if w := nameWords[i]; !idWords[w] && ws.action(w) == 0 {
					if id := termOf(w); id >= 0 {
						ids = append(ids, id)
					}
					break
				}
			}
			continue
		}
		// Both end with a word for an id (issue_number, issueIdOrKey,
		// projectKeyOrId) or with keys: the last byte spares looking
		// further into most names.
		idEnd := endsWithIDWord(p)
		if !idEnd && !endsWithKeys(p) {
			continue
		}
		item, key := d.Path == "" && idEnd, hasKey(p)
		if !item && !key {
			continue
		}
		ws.path = ws.words(ws.path, p)
		if item {
			if id := paramItem(ws.path, termOf); id >= 0 {
				ids = append(ids, id)
			}
		}
		if w := keyOf(ws.path); key && w != "" {
			keyed[w]++
		}
	}
	*arena, f.nItem, _ = appendSet(*arena, ids)
	ids = ids[:0]
	lastHead := int32(-1) // the path's last resource, for the object below
	for _, seg := range fixed {
		ws.path = ws.words(ws.path, seg)
		if n := len(ws.path); n > 0 && ws.action(ws.path[n-1]) == 0 {
			lastHead = termOf(closedCompound(ws.path[n-1], tw))
			if lastHead >= 0 {
				ids = append(ids, lastHead)
			}
		}
	}
	if d.Path == "" || pathName {
		// Without a path, or with one that says the name
		// (/conversations.create), the name's words other than its
		// verb name what the tool is about.
		for _, w := range nameWords {
			if ws.action(w) == 0 {
				if id := termOf(w); id >= 0 {
					ids = append(ids, id)
				}
			}
		}
	}
	*arena, f.nHead, _ = appendSet(*arena, ids)
	// What it acts on: the words its name and its title say after their
	// verb ("git/create-tag": tag; "Create an environment variable":
	// environment, variable), and the path's last resource (/git/tags).
	// Build appends them last.
	ws.object = ws.object[:0]
	for _, words := range [...][]string{nameWords, tw} {
		for _, w := range objectWords(words, ws.action) {
			if id := termOf(w); id >= 0 {
				ws.object = append(ws.object, id)
			}
		}
	}
	if lastHead >= 0 {
		ws.object = append(ws.object, lastHead)
	}
	return f
}

// takesOwnID reports whether an operation takes a bare id (id, uid) that
// its path does not hold, and nothing that pages through many: the id of
// the one thing it reads.
func takesOwnID(d *Doc) bool {
	own := false
	for _, p := range d.Params {
		l := strings.ToLower(strings.ReplaceAll(p, "_", ""))
		switch {
		case pagingParams[l]:
			return false
		case bareIDWords[l] && !strings.Contains(d.Path, "{"+p+"}"):
			own = true
		}
	}
	return own
}

// bareIDWords are the words for an id alone: a parameter's name for a
// thing's own id, and what "by" names in "look up the performer by uid".
// pagingParams, folded, are a page of many.
var (
	bareIDWords  = map[string]bool{"id": true, "uid": true, "uuid": true, "guid": true, "identifier": true}
	pagingParams = map[string]bool{"page": true, "perpage": true, "pagenumber": true, "pagesize": true, "limit": true, "offset": true, "cursor": true, "startat": true, "maxresults": true, "startingafter": true, "endingbefore": true}
)

// httpMethods are the names of the methods that create or change, as a
// name's first word says them.
var httpMethods = map[string]bool{"post": true, "put": true, "patch": true}

// firstWord is s's first word, lower-cased.
func firstWord(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { return !isLetterOrDigit(r) })
	if i < 0 {
		i = len(s)
	}
	return strings.ToLower(s[:i])
}

// compoundHead is the last of the title's words that, written together,
// are the path segment seg: /fieldconfiguration/{id} is "Get field
// configuration items", so it takes a configuration by its id, as
// "field configuration 10000" names one; seg when the title has no such
// words. The last word may be plural where seg is not, or the other way
// ("issuesecurityschemes", "issue security scheme").
func compoundHead(seg string, title []string) string {
	for i, first := range title {
		if len(first) < 2 || len(first) >= len(seg) || !strings.HasPrefix(seg, first) {
			continue
		}
		rest := seg[len(first):]
		for _, w := range title[i+1 : min(len(title), i+4)] {
			if rest == w || rest == w+"s" || rest+"s" == w || rest == w+"es" {
				return w
			}
			if len(w) < 2 || !strings.HasPrefix(rest, w) {
				break
			}
			rest = rest[len(w):]
		}
	}
	return seg
}

// closedCompound is the word of title that ends with the resource word
// h and says more before it ("webhook" for /hooks), or h.
func closedCompound(h string, title []string) string {
	hs := string(stem([]byte(h)))
	for _, w := range title {
		if len(w) > len(hs)+2 && strings.HasSuffix(string(stem([]byte(w))), hs) {
			return w
		}
	}
	return h
}

// pluralObject reports whether the words after a name's verb, up to the
// first stop word, end in a plural (getDynamicWebhooksForApp: webhooks).
func pluralObject(words []string) bool {
	j := 0
	for j < len(words) && !isStop(words[j]) {
		j++
	}
	return j > 0 && plural(words[j-1])
}

// objectWords are the words of a name or title that say what its verb
// acts on: the words after its first verb (among the first
// nameVerbWords), past stop words and further verbs ("create or
// update"), up to the next stop word; when none follow the verb, the
// words before it ("issues/list-for-repo"). None without a verb.
func objectWords(words []string, action func(string) uint8) []string {
	v := -1
	for i, w := range words[:min(nameVerbWords, len(words))] {
		if action(w) != 0 {
			v = i
			break
		}
	}
	if v < 0 {
		return nil
	}
	i := v + 1
	for i < len(words) && (isStop(words[i]) || action(words[i]) != 0) {
		if ownerPreps[words[i]] && v > 0 {
			// "issues/list-for-org", "orgs/list-for-authenticated-user":
			// what follows "for" is whose things they are; the
			// category before the verb says what they are.
			return words[:v]
		}
		i++
	}
	j := i
	for j < len(words) && !isStop(words[j]) {
		j++
	}
	if j > i {
		return words[i:j]
	}
	return words[:v]
}

// ownerPreps say, after a name's verb, whose or where the things are.
var ownerPreps = map[string]bool{"for": true, "in": true, "on": true, "of": true, "by": true}

// pairCode codes a pair of term ids, in order, as one non-negative int32;
// two pairs rarely share a code, and a shared one only adds a little.
func pairCode(a, b int32) int32 {
	h := uint64(a)*0x9E3779B97F4A7C15 ^ uint64(b)*0xC2B2AE3D27D4EB4F
	return int32((h >> 33) & 0x7fffffff)
}

// splitDetail cuts a description, whose title is title (or which starts
// after its first sentence when title is ""), into the text up to its
// detail, the detail and the rest. The detail is the sentence after the
// title, read to at most maxDetail bytes; the cuts fall between words, so
// the three parts hold the words of desc.
func splitDetail(desc, title string) (pre, detail, post string) {
	start := 0
	if t := strings.TrimSuffix(title, "."); t != "" {
		if i := strings.Index(desc, t); i >= 0 {
			start = i + len(t)
		}
	}
	if start > 0 && start < len(desc) {
		// A cut inside a run of letters would split a word (or a
		// bigram of a script written without spaces): no detail.
		before, _ := utf8.DecodeLastRuneInString(desc[:start])
		after, _ := utf8.DecodeRuneInString(desc[start:])
		if isLetterOrDigit(before) && isLetterOrDigit(after) {
			return desc, "", ""
		}
	}
	start = len(desc) - len(strings.TrimLeftFunc(desc[start:], func(r rune) bool { return r == '.' || unicode.IsSpace(r) }))
	detail = clip(lead(desc[start:]), maxDetail)
	return desc[:start], detail, desc[start+len(detail):]
}

func isLetterOrDigit(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// maxDetail bounds the bytes of a detail that are read: its first words
// say what it adds to the title.
const maxDetail = 80

// clip returns s cut at its last space within n bytes when it is longer,
// or s when it has none there (scripts written without spaces).
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if i := strings.LastIndexByte(s[:n], ' '); i > 0 {
		return s[:i]
	}
	return s
}

// detail are the term ids of the description's sentence after the title
// (nDetail).
func (f *docFeatures) detail(ids []int32) []int32 {
	o := f.off + int32(f.nTitle) + int32(f.nName) + int32(f.nPath) + int32(f.nItem) + int32(f.nHead)
	return ids[o : o+int32(f.nDetail)]
}

// phrases are the codes of the title's pairs of words (nPhrase), sorted.
func (f *docFeatures) phrases(ids []int32) []int32 {
	o := f.off + int32(f.nTitle) + int32(f.nName) + int32(f.nPath) + int32(f.nItem) + int32(f.nHead) + int32(f.nDetail)
	return ids[o : o+int32(f.nPhrase)]
}

// values are the term ids of the words of the values f's parameters take
// from a fixed set (nValue), sorted.
func (f *docFeatures) values(ids []int32) []int32 {
	o := f.off + int32(f.nTitle) + int32(f.nName) + int32(f.nPath) + int32(f.nItem) + int32(f.nHead) + int32(f.nDetail) + int32(f.nPhrase)
	return ids[o : o+int32(f.nValue)]
}

// params are the term ids of the words of f's parameters' names (nParam).
func (f *docFeatures) params(ids []int32) []int32 {
	o := f.off + int32(f.nTitle) + int32(f.nName) + int32(f.nPath) + int32(f.nItem) + int32(f.nHead) + int32(f.nDetail) + int32(f.nPhrase) + int32(f.nValue)
	return ids[o : o+int32(f.nParam)]
}

// plurals are the term ids of the words f's title says in the plural
// (nPlural), sorted.
func (f *docFeatures) plurals(ids []int32) []int32 {
	o := f.off + int32(f.nTitle) + int32(f.nName) + int32(f.nPath) + int32(f.nItem) + int32(f.nHead) + int32(f.nDetail) + int32(f.nPhrase) + int32(f.nValue) + int32(f.nParam)
	return ids[o : o+int32(f.nPlural)]
}

// objects are the term ids of the words naming what f acts on (nObject),
// sorted.
func (f *docFeatures) objects(ids []int32) []int32 {
	o := f.off + int32(f.nTitle) + int32(f.nName) + int32(f.nPath) + int32(f.nItem) + int32(f.nHead) + int32(f.nDetail) + int32(f.nPhrase) + int32(f.nValue) + int32(f.nParam) + int32(f.nPlural)
	return ids[o : o+int32(f.nObject)]
}

// heads are the term ids of the resources f passes through (nHead).
func (f *docFeatures) heads(ids []int32) []int32 {
	o := f.off + int32(f.nTitle) + int32(f.nName) + int32(f.nPath) + int32(f.nItem)
	return ids[o : o+int32(f.nHead)]
}

// items are the term ids of the resources f takes one of by its id.
func (f *docFeatures) items(ids []int32) []int32 {
	o := f.off + int32(f.nTitle) + int32(f.nName) + int32(f.nPath)
	return ids[o : o+int32(f.nItem)]
}

// queryFeatures is the second stage's view of a request.
type queryFeatures struct {
	act  uint8
	self bool
	sig  uint64
	verb int32 // term id of the request's first word when tools start with it, else -1
	// check is the term id of "check" when the request asks a question
	// to answer yes or no, which asks for the verb and the action of
	// reading in the namespaces with titles that start with it (checkNS);
	// -1 otherwise
	check int32
	n     int // content words
	// fromVerb: act or verb come from the request's first word
	fromVerb bool
	// question: the request asks which, what, who..., without a verb first
	question bool
	// yesNo: the request asks a question to answer yes or no ("is my PR
	// mergeable")
	yesNo bool
	// prefix is the hash of the request's words as written, as
	// docFeatures.prefix hashes a title's, when it has nPrefix of 2 to 4.
	prefix  uint32
	nPrefix int
}

// rerankWeights are the second stage's weights, each a share of the best
// candidate's first-stage score that a feature adds when it holds (or,
// for the coverages, in proportion).
type rerankWeights struct {
	exact    float64 // the request's words are the name's or the title's
	prefix   float64 // the request's words, as written, are the title's first
	act      float64 // the request's action is one of the tool's
	actOther float64 // the request's verb asks for an action the tool lacks
	// actImplicit: the request names things without a verb (it asks to
	// see them) and the tool changes them
	actImplicit float64
	self        float64 // both are about the caller
	verb        float64 // the request starts with the verb the title starts with, acting on its object
	label       float64 // share of the label's words (title, else name) in the request
	short       float64 // share of the request's words in the name, title or path
	detail      float64 // share of the request's words in the description's sentence after the title
	family      float64 // the size of the doc's path family
	scope       float64 // the doc is a twin under a container the request does not name
	object      float64 // the thing the request's verb acts on is the tool's (objectWords)
	question    float64 // taken from a tool that only changes things when the request is a question
	item        float64 // the request names one thing by value and the tool takes one by its id
	heads       float64 // share of the path's resources the request names
	value       float64 // the request names a value a parameter takes from a fixed set
	nameHeads   float64 // share of the resources a name without a path says that the request names
	phrase      float64 // share of the request's pairs of words that the title says in the same order
	plural      float64 // share of the request's words in the plural that the title says in the plural
	param       float64 // a word of the request the tool says in a parameter's name only
	kind        float64 // the request names a value of a kind the tool takes a parameter for
	place       float64 // the request names where, to or with what, which the tool takes a parameter for
	check       float64 // taken from a tool that checks something when the request is no yes/no question
	namespace   float64 // the weight of the tool's namespace for the request (namespaces.go)
	// rare: taken, per the rarity of each resource the path passes
	// through that the request does not name (at most one in all);
	// rareName for a tool without a path, whose resources its name says
	rare     float64
	rareName float64
	// deprecated: taken from a tool its API deprecates, so that a live
	// one the request fits about as well ranks first
	deprecated float64
	depth      int     // candidates reordered
	maxWords   int     // longest request reordered, in content words
	fullWords  int     // longest request whose features count in full
	fade       float64 // past fullWords, the shares weigh (fullWords/words)^fade
	objectMin  bool    // act, verb and coverage count only when the tool matches more than the verb
}

// rerankDefaults are the weights measured on the tuning halves of the
// task sets (catalogs_test.go) and the tool-retrieval benchmark.
//
// The second stage looks at the depth best candidates of requests of at
// most maxWords content words. Past fullWords the shares fade as
// (fullWords/words)^fade: a longer request says more for the first stage
// to go by, and a prior on the action or object would outvote its words.
// Until the GitHub tasks' fifth to eighth batches, which ask in longer
// words, the shares faded in a straight line to none at six words; the
// curve keeps some for longer requests and scores the same or better on
// every tuning half (mean nDCG@10 0.8300 to 0.8338), with fade from 1.75
// (GitHub as OpenAPI 0.839 to 0.842, the reference servers with GitHub
// 0.793 to 0.818, the public benchmark 0.906 to 0.911) to 2; below 1.75
// Jira as MCP tools falls. maxWords bounds the work, not the score: 10 and
// 20 score the same. short weighed 1.5 until a second batch
// of GitHub tasks joined the tuning half: over all the tuning halves 1.0
// scores as well (mean nDCG@10 0.823 against 0.822), and a smaller weight
// that does as well is the one kept. prefix scores the same on the tuning
// halves from 0.05 to 0.2, their requests not being summaries, and lowers
// the reference servers beside GitHub from 0.3; 0.2 puts first most of the
// operations a summary's first words start (TestSummaryStarts). object
// came with the GitHub tasks' eleventh batch: from 0.2 to 0.4 every tuning
// half scores the same or better, at 0.4 GitHub as OpenAPI 0.834 to
// 0.841, as MCP tools 0.818 to 0.826; at 0.5 Jira as OpenAPI falls from
// 0.858 to 0.850. question came with the twelfth batch (questions): from
// 1.2 to 5 every tuning half scores its best, and no tuning request
// scores lower than without it; 1.2 is the smallest. place: from 0.1 to
// 0.3 every tuning half scores the same or better, from 0.15 to 0.3 about
// alike (mean 0.8274 to 0.8298-0.8299 and Jira as OpenAPI 0.881 to 0.891
// at 0.2); at 0.4 Jira as MCP tools falls below its figure without it.
// kind weighed 0.2 until a time became a kind of value: from 0.3 to 0.5
// every tuning half scores the same or better than at 0.2 (mean 0.8310 to
// 0.8313-0.8315), and no tuning request lower at 0.4; from 0.6 the
// reference servers with GitHub fall. check: from 0.2 to 0.6 every tuning
// half scores the same or better alike (mean 0.8333 to 0.8339, GitHub as
// OpenAPI 0.8328 to 0.8345), no tuning request lower; 0.2 is the
// smallest. rare: from 0.15 to 0.25 alike (GitHub as OpenAPI 0.8343 to
// 0.8377-0.8381, Jira as OpenAPI 0.8977 to 0.9036-0.9048, no tuning half
// lower), capped at one: uncapped, or as the largest rarity alone or
// their mean, some tuning half falls; the resources that are the tool's
// object count too (left out, Jira as OpenAPI ends 0.005 below its
// figure without the rule); and not for a tool whose name, title or
// title's first words the request says (with them, shortenings of
// summaries found their operation first 0.959 of the time rather than
// 0.979, TestSummaryStarts). rareName, for the
// words of a name, which say less than a path: from 0.05 to 0.2 the mean
// of the tuning halves rises alike (0.8333 to 0.8366-0.8368); from 0.1
// Jira as MCP tools falls by 0.002, at 0.03 by 0.0007.
//
// After the rules that came since, a search by coordinates over every
// weight (each times 0, 0.5, 0.75, 1.25, 1.5 and 2, kept when the mean of
// the tuning halves rises by 0.0005 and none falls by more than 0.001;
// then times 0.8 to 1.2, where nothing more was kept) moved three:
// family from 0.2 to 0.1 (the reference servers with GitHub 0.728 to
// 0.738), item from 0.2 to 0.3 (Jira as MCP tools 0.8905 to 0.8930) and
// rare from 0.2 to 0.25; the mean rose from 0.8463 to 0.8484, the
// servers with GitHub to 0.743, no half fell by more than 0.0001.
// Measured again once Stripe's and Slack's tuning halves and the rules
// they suggested had come (the same search, the same tolerance): param
// from 0.2 to 0.25, rareName from 0.07 to 0.14, nameHeads from 0.1 to
// 0.15; the mean of the tuning halves rose from 0.8597 to 0.8619 (Slack
// as MCP tools 0.8995 to 0.9069, the servers with GitHub 0.7613 to
// 0.7699), GitHub beside the servers fell by 0.0010, Star Trek by
// 0.0003. And once Slack's second batch had come: short from 1.0 to
// 0.75 (the mean 0.8519 to 0.8528; no half fell by more than 0.0004).
var rerankDefaults = rerankWeights{
	exact:       1.0,
	prefix:      0.2,
	act:         0.3,
	actOther:    0.1,
	actImplicit: 0.1,
	self:        0.5,
	verb:        0.3,
	label:       0.4,
	short:       0.75,
	detail:      0.1,
	family:      0.1,
	scope:       0.5,
	object:      0.4,
	question:    1.2,
	item:        0.3,
	heads:       0.15,
	value:       0.2,
	nameHeads:   0.15,
	phrase:      0.2,
	plural:      0.4,
	param:       0.25,
	kind:        0.4,
	place:       0.2,
	check:       0.2,
	namespace:   3.0,
	rare:        0.25,
	rareName:    0.14,
	deprecated:  0.1,
	depth:       50,
	maxWords:    12,
	fullWords:   3,
	fade:        1.75,
	objectMin:   true,
}

func (ix *Index) queryFeatures(sc *scratch, query string) queryFeatures {
	q := queryFeatures{verb: -1, check: -1}
	// The words, lower-cased, concatenated in sc.qtext with their ends.
	sc.qtext, sc.qends, sc.qplural = sc.qtext[:0], sc.qends[:0], sc.qplural[:0]
	sc.buf = forEachToken(query, sc.buf, func(tok []byte) {
		sc.qtext = append(sc.qtext, tok...)
		sc.qends = append(sc.qends, len(sc.qtext))
	})
	word := func(i int) []byte {
		if i < 0 || i >= len(sc.qends) {
			return nil
		}
		start := 0
		if i > 0 {
			start = sc.qends[i-1]
		}
		return sc.qtext[start:sc.qends[i]]
	}
	ids := sc.qids[:0]
	sc.qstates, sc.notVerb = sc.qstates[:0], -1
	first, inPlural, question, who, where := true, false, false, false, false
	// Whether the request says a word in the plural the catalog knows,
	// and one it knows not in the plural.
	knownPlural, knownOne := false, false
	sc.pluralIDs, sc.oneIDs = sc.pluralIDs[:0], sc.oneIDs[:0]
	like := false // "weapons like phasers": an example of what to find
	unknownVerb, verbOnly := false, false
	whoMe := false     // "who follows me"
	showFirst := false // the request starts with a verb of showing
	// What the request's verb acts on: the last of the content words
	// after it, past determiners, up to a stop word ("create a tag for
	// the release": tag; "run the deploy workflow on main": workflow).
	const beforeVerb, afterVerb, inObject, objectDone = 0, 1, 2, 3
	objPhase := beforeVerb
	generalVerb := false
	sc.qobject, sc.whoVerb = -1, -1
	whoDid := false
	start := 0
	if string(word(0)) == "how" {
		// "how do I delete a branch", "how to star a repo": a request
		// to do it, put as a question.
		switch w1, w2 := string(word(1)), string(word(2)); {
		case w1 == "to":
			start = 2
		case howAux[w1] && (w2 == "i" || w2 == "we"):
			start = 3
		}
	}
	// Where the thing is, what it goes to or comes with: the words after
	// "on", "in", "with", "to the"... up to the next stop word ("comment
	// on the issue", "add bob to the platform team"). "To" before a verb
	// says what for ("to free space").
	sc.qplaces = sc.qplaces[:0]
	place := false
	for i := start; i < len(sc.qends); i++ {
		w, next := word(i), string(word(i+1))
		_, stop := stopWords[string(w)]
		switch {
		case placePrepositions[string(w)]:
			place = string(w) != "to" || determiners[next] || selfWords[next]
		case !place || determiners[string(w)] || selfWords[string(w)]:
		case stop:
			place = false
		default:
			if id, ok := ix.terms[string(stem(append(sc.word[:0], w...)))]; ok {
				sc.qplaces = append(sc.qplaces, id)
			}
			if len(w) >= 3 && len(next) >= 3 {
				// "in the user group": two words the catalog writes
				// as one (usergroup), as Search reads them too.
				if id, ok := ix.terms[string(stem(append(append(sc.word[:0], w...), next...)))]; ok {
					sc.qplaces = append(sc.qplaces, id)
				}
			}
		}
	}
	for i := start; i < len(sc.qends); i++ {
		w, next := word(i), string(word(i+1))
		if selfWords[string(w)] || (string(w) == "logged" || string(w) == "signed") && next == "in" {
			// "Show me", "assign to me": "me" is mostly whom a thing goes
			// to; "for me", "about me" whose it is. "From my branch",
			// "into my fork": "my" says whose a thing on the way is,
			// not that the tool acts for the caller.
			switch prev := string(word(i - 1)); {
			case string(w) == "me" && !forMe[prev]:
				if string(word(i-2)) == "who" {
					// "who follows me", "who mentioned me": the caller
					// is whom the question is about, the people it
					// asks for others.
					q.self, whoMe = true, true
				}
			case string(w) == "my" && placePreps[prev]:
			default:
				q.self = true
			}
			if objPhase == inObject {
				objPhase = objectDone
			}
			continue
		}
		switch string(w) {
		case "which", "what", "who", "how", "whose", "where", "when", "why", "any":
			question = true
			who = who || string(w) == "who"
			where = where || string(w) == "where"
		case "somewhere", "anywhere":
			// "is there a file called TODO.md somewhere": the place is
			// unknown, a search's.
			where = true
		case "like", "such", "than":
			// Before an example ("weapons like phasers") or a bound
			// ("soundtracks longer than an hour"), not ending the
			// request ("what does it look like").
			like = next != ""
		}
		if _, stop := stopWords[string(w)]; stop {
			if objPhase == inObject && string(w) == "s" {
				// "list the org's teams": a possessive's "s" goes on
				// to the thing it owns.
				continue
			}
			if objPhase == inObject || objPhase == afterVerb && !determiners[string(w)] {
				objPhase = objectDone
			}
			continue
		}
		sc.word = stem(append(sc.word[:0], w...))
		s := sc.word
		if first && !question && ix.compoundStart(sc, s, next) {
			// "check runs on the PR head", "review comments on pull
			// request 8": the request starts with a thing's name the
			// catalog writes as two words, not with a verb.
			first = false
		}
		if first && !question {
			showFirst = showsOne[string(w)]
			// A request that starts with a verb the catalog's tools start
			// with asks for that verb; "open a", "file an" create.
			if id, ok := ix.terms[string(s)]; ok && ix.verbs[id] {
				q.verb = id
			}
			// Search has put the plain verb for most phrases
			// (plainVerb); "look up" and "find out" stay.
			if a := phrasalVerbs[[2]string{string(w), next}]; a != 0 {
				q.act = a
			} else {
				q.act = actionVerbs[string(s)]
			}
			if (string(w) == "set" || string(w) == "configure") && (next == "a" || next == "an") {
				// "set a reminder for friday", "configure a webhook":
				// to set one up is to make one, as an unknown verb
				// before an indefinite article does ("draft a quote",
				// below); "set the topic" changes what is there.
				q.act = actCreate
			}
			if string(w) == "make" && !makesNew[next] {
				// "make promo code WELCOME10 inactive", "make release 7
				// the latest": to make a thing something is to change
				// it; "make a coupon" makes one.
				q.act = actUpdate
			}
			generalVerb = q.act != 0
			switch {
			case q.act != 0:
			case ix.makes(s):
				// "remind me to call the bank": a verb the catalog
				// says only in the noun for what does it (reminder)
				// makes one.
				q.act = actCreate
			case verbParticles[next] && !plural(string(w)) && !readVerbs[string(s)]:
				// A word, then a particle that no two-word verb of
				// plainVerb's makes plain ("hold off the payout", "pay
				// out 500 dollars", "hook up slack to our repo events"):
				// a verb of two words, which asks for a change.
				q.act = actCreate | actUpdate | actDelete
			case len(w) > 4 && bytes.HasPrefix(w, []byte("un")) && !plural(next) && !ix.titleVerb(s) && ix.knowsStem(w[2:]):
				// "unwatch the repo": a verb in un- the catalog lacks
				// undoes its base, as the catalog's own unstar and
				// unfollow delete.
				q.act = actDelete
			case determiners[next] && readVerbs[string(s)]:
				// "open the attachment 10230": a word for reading
				// (an article after "open" creates, plainVerb).
				q.act = actGet | actList
			case (determiners[next] || sc.keyAfterFirst || sc.thingAfterFirst && q.verb < 0 && !readVerbs[string(s)]) && !plural(string(w)):
				// A word the request starts with and follows with a
				// determiner or a key is a verb ("protect the main
				// branch", "link PROJ-1 as blocking PROJ-2"): one that
				// names no way of reading asks for a change. A plural
				// names things ("users that have the role").
				q.act = actCreate | actUpdate | actDelete
				if next == "a" || next == "an" {
					// "draft a quote", "share a link to the file":
					// a verb before an indefinite article makes one.
					q.act = actCreate
				}
				if (sc.keyAfterFirst || sc.thingAfterFirst && q.verb < 0) && !determiners[next] {
					// "watch PROJ-12", "link PROJ-1 as blocking PROJ-2",
					// "release version 2.0": a verb done to a thing by
					// its key or value adds, or changes.
					q.act = actCreate | actUpdate
				}

			case w[len(w)-1] != 's' && nounVerbPreps[next]:
				// A thing named in the singular with no determiner,
				// then "on", "to" or "with", is a verb too: "comment on
				// the issue" makes a comment, "react with a thumbs up"
				// a reaction.
				q.act = actCreate
			case !plural(string(w)) && ix.inflectedOnly(s) && !bytes.HasSuffix(w, []byte("ed")) && !bytes.HasSuffix(w, []byte("ing")):
				// A word the catalog says only as "staged" or
				// "staging" is a verb when the request says it bare
				// ("stage README.md", "stage all my changes"), whatever
				// follows.
				verbOnly = true
			case next != "" && !plural(string(w)) && !ix.knows(s) && !bytes.HasPrefix(w, []byte("un")):
				// A first word the catalog does not know, with more
				// after it, is a verb the catalog does not use:
				// "downgrade dave to a regular member", "promote alice
				// to maintainer" ask for a change, unless a plural
				// after it makes the whole a name for things ("star
				// trek video games") or the request is a list of
				// keywords, no sentence ("terraform state"). One in un-
				// undoes what the words after it name ("undo git add").
				unknownVerb = true
			}
		}
		verbWord := first && generalVerb
		first = false
		// The word after "who" is its verb ("who follows me"), not a
		// plural.
		afterWho := string(word(i-1)) == "who"
		id, known := ix.terms[string(s)]
		if _, agent := ix.agentOf[string(s)]; afterWho && !auxWords[string(w)] && (bytes.HasSuffix(w, []byte("ed")) || len(w) > 3 && w[len(w)-1] == 's' && w[len(w)-2] != 's') && !agent {
			// "who opened PR 61": one past act, which the thing
			// itself records; "who leads the PAY project": one it
			// holds.
			whoDid = true
			if known {
				sc.whoVerb = id // no state open
			}
		}
		if len(w) > 3 && w[len(w)-1] == 's' && w[len(w)-2] != 's' && len(s) < len(w) && !afterWho {
			inPlural = true
			knownPlural = knownPlural || known
			if known {
				sc.pluralIDs = append(sc.pluralIDs, id)
			}
		} else if known && !auxWords[string(w)] {
			knownOne = true
			sc.oneIDs = append(sc.oneIDs, id)
		}
		if known && !verbWord && stateBefore(w, string(word(i-1)), next, objPhase == afterVerb) {
			sc.qstates = append(sc.qstates, id)
		}
		if known {
			if plural(string(w)) && !afterWho {
				sc.qplural = append(sc.qplural, id)
			}
			ids = append(ids, id)
		} else {
			ids = append(ids, -2-int32(len(ids))) // an unknown word never matches
		}
		switch {
		case verbWord:
			objPhase = afterVerb
		case objPhase == afterVerb || objPhase == inObject:
			if namingWords[string(w)] {
				// "create an environment called staging"
				objPhase = objectDone
				break
			}
			if actionVerbs[string(s)] != 0 {
				// "get the details of PROJ-1" names no thing.
				break
			}
			objPhase = inObject
			if id := ids[len(ids)-1]; id >= 0 {
				sc.qobject = id // the last the catalog knows
				sc.qobjectSyn = append(sc.qobjectSyn[:0], ix.synTerms[string(s)]...)
			}
		}
	}
	if q.act == actList && !inPlural && showFirst {
		// "show the latest release" asks to see one thing, "show the
		// releases" all of them.
		q.act |= actGet
	}
	if len(sc.qends) > 1 && auxWords[string(word(0))] && string(word(1)) != "you" && string(word(1)) != "there" {
		// "is alice a collaborator", "does bob follow me": a question
		// to answer yes or no asks to check, as the titles that start
		// with "Check" do, in the namespaces that have such titles
		// (rerank); in others ("is my working tree clean", to a git
		// server beside GitHub's description) it reads as it would
		// without. "Can you..." asks for something else, "is there..."
		// to find things.
		q.check = ix.checkTerm
		q.yesNo = true
	}
	if unknownVerb && !inPlural && (sentence(word, len(sc.qends)) || sc.valued) || verbOnly {
		// A request that names a thing by value is no list of
		// keywords either: "freeze issuing card ic_5".
		q.act = actCreate | actUpdate | actDelete
		for i := 2; i+1 < len(sc.qends); i++ {
			if next := string(word(i + 1)); string(word(i)) == "to" && (determiners[next] || selfWords[next] || !ix.knowsStem([]byte(next))) {
				// "bump PROJ-60 over to me", "to alice", "to the
				// backlog": what goes to someone or somewhere is not
				// deleted. A word the catalog knows after "to" is a
				// verb saying what for ("to get some space back").
				q.act &^= actDelete
				break
			}
		}
	}
	for i := 1; i+1 < len(sc.qends); i++ {
		if string(word(i)) == "by" && bareIDWords[string(word(i+1))] {
			// "look up the performer by uid": one, by its id, which
			// a search's criteria do not take.
			q.act |= actGet
			break
		}
	}
	q.fromVerb = q.act != 0 || q.verb >= 0
	q.question = question && !q.fromVerb
	if q.act == 0 && q.verb < 0 {
		// Without a verb a request asks to see things: to find them
		// when it says "where" or gives an example ("where is the
		// file called settings.py", "technology like the holodeck");
		// else a list when it names them in the plural or asks which,
		// or one of them. Things named alone ("comic strips", "which
		// groups is alice in") ask for no search: the GET that lists
		// them, not the POST that takes criteria, nor findGroups.
		switch {
		case where || like:
			q.act = actSearch
		case inPlural || question:
			q.act = actList
			if question && !inPlural && (!who || q.self && !whoMe && len(ids) <= 1 || whoDid && len(sc.qitems) > 0) {
				// "which license is MIT", "how long did the run take":
				// a question about one thing may ask to read it. "Who"
				// asks for people, mostly a list ("who is on the team"),
				// unless it asks about the caller alone ("who am I").
				q.act |= actGet
			}
			if question && inPlural && knownOne && (!knownPlural || ix.pluralsUnusedWhereOneIs(sc)) {
				// "what are the columns of the payments table": a
				// question whose things in the plural the catalog does
				// not know asks about the thing it names that the
				// catalog does, which a tool may read (describe_table,
				// not list_tables).
				q.act |= actGet
			}
		default:
			q.act = actGet | actList
		}
	}
	sc.qpairs, sc.qcompounds = sc.qpairs[:0], sc.qcompounds[:0]
	for i := 1; i < len(ids); i++ {
		if ids[i-1] >= 0 && ids[i] >= 0 && ids[i-1] != ids[i] {
			p := pairCode(ids[i-1], ids[i])
			sc.qpairs = append(sc.qpairs, p)
			if _, ok := ix.compounds[p]; ok {
				sc.qcompounds = append(sc.qcompounds, ids[i-1], ids[i])
			}
		}
	}
	q.n = len(ids)
	// The request's words are a name's only as said: "get worklog 10301
	// of PROJ-5" is no "get issue worklog".
	if said := ids; sc.bareKey && len(said) > 0 && said[len(said)-1] == ix.keyNoun {
		q.sig = signature(said[:len(said)-1])
	} else {
		q.sig = signature(ids)
	}
	h, n := uint32(fnvBasis), 0
	for i := range sc.qends {
		if w := word(i); !prefixSkip(w) {
			h = wordHash(h, w)
			n++
		}
	}
	if n >= 2 && n <= len(docFeatures{}.prefix)+1 {
		q.prefix, q.nPrefix = h|1, n
	}
	sc.qids = ids
	return q
}

// stateBefore reports whether a request's word w, not its verb, is a
// participle that names the state of the thing the next word names: "the
// suspended installation", "my stopped codespace", "list failed workflow
// runs" (prev a determiner or the caller, or the word right after the
// verb). "which runs have failed" and "runs that failed" name no thing
// after it.
func stateBefore(w []byte, prev, next string, afterVerb bool) bool {
	if next == "" || !participle(string(w)) {
		return false
	}
	if _, stop := stopWords[next]; stop {
		return false
	}
	return determiners[prev] || selfWords[prev] || afterVerb
}

// compoundStart reports whether a request's first word, whose stem is s,
// and the word after it, next, are one of the catalog's compounds: a pair
// that at least compoundMin titles say after their first word ("check
// run" in "Create a check run", "Get a check run", "List check run
// annotations"), so the first word names a thing there, not what to do.
func (ix *Index) compoundStart(sc *scratch, s []byte, next string) bool {
	if next == "" || len(ix.compounds) == 0 {
		return false
	}
	a, ok := ix.terms[string(s)]
	if !ok {
		return false
	}
	sc.buf = stem(append(sc.buf[:0], next...))
	b, ok := ix.terms[string(sc.buf)]
	if !ok {
		return false
	}
	_, ok = ix.compounds[pairCode(a, b)]
	return ok
}

// compoundMin is how many titles must say a pair of words after their
// first word before a request that starts with it reads as naming a thing.
const compoundMin = 3

// showsOne are the verbs of listing that show one thing as well.
var showsOne = map[string]bool{"show": true, "display": true, "browse": true}

// phrasalVerbs are the two-word verbs plainVerb leaves as they are, having
// no one plain verb ("look up the user octocat" reads one user, "look up
// users named alice" searches them), with the action the second stage
// reads in them.
var phrasalVerbs = map[[2]string]uint8{
	{"look", "up"}: actSearch, {"find", "out"}: actGet,
}

// soleVariantDepth is how many of the first stage's best say whether a
// tool without a scope does what a request asks (rerank): the ten a
// benchmark's nDCG@10 reads.
const soleVariantDepth = 10

// verbParticles are the particles that, after a request's first word,
// make it a verb of two words; "on" and "over" are prepositions as often
// ("reactions on the issue", "bump PROJ-60 over to me").
var verbParticles = map[string]bool{"up": true, "down": true, "off": true, "out": true, "away": true, "back": true}

// placePrepositions are the words after which a request names where the
// thing it acts on is, what it goes to or comes with ("comment on the
// issue", "add bob to the team", "create a release with notes").
var placePrepositions = map[string]bool{
	"on": true, "in": true, "to": true, "for": true, "of": true, "from": true, "into": true,
	"onto": true, "at": true, "within": true, "across": true, "under": true, "with": true,
}

// nounVerbPreps, after a request's first word in the singular, make it a
// verb.
var nounVerbPreps = map[string]bool{"on": true, "to": true, "about": true, "with": true}

// forMe are the words after which "me" is the one a request is about.
var forMe = map[string]bool{"for": true, "about": true, "of": true, "by": true}

// placePreps are the words after which "my" names whose the thing is
// that something comes from or goes into ("from my feature branch", "into
// my fork"), not whose the thing the request asks for is ("issues in my
// repositories").
var placePreps = map[string]bool{"from": true, "into": true, "onto": true}

// howAux are the words that make "how ... I" ask how to do something.
var howAux = map[string]bool{"do": true, "can": true, "could": true, "should": true, "would": true, "might": true}

// namingWords end the name of a thing and start its value ("a label
// called bug").
var namingWords = map[string]bool{"called": true, "named": true, "titled": true, "saying": true}

// determiners, after a request's first word, make it a verb.
var determiners = map[string]bool{
	"a": true, "an": true, "the": true, "this": true, "that": true, "these": true, "those": true,
	"my": true, "our": true, "its": true, "their": true, "his": true, "her": true, "your": true,
	"every": true, "each": true, "some": true,
}

// rerank reorders the first depth hits (best first) by the second-stage
// features; hits past them keep their place.
func (ix *Index) rerank(sc *scratch, hits []Hit, query string, extra int) {
	w := &rerankDefaults
	if len(hits) < 2 || ix.feat == nil {
		return
	}
	q := ix.queryFeatures(sc, query)
	if q.n > w.maxWords {
		return
	}
	// A longer request says more for the first stage to go by: the
	// features weigh less the more words it has.
	fade := 1.0
	if q.n > w.fullWords {
		fade = math.Pow(float64(w.fullWords)/float64(q.n), w.fade)
	}
	top := hits[:min(w.depth+extra, len(hits))]
	best := top[0].Score
	// A request whose words past its verb the catalog lacks ("block the
	// spammer") is read by its verb alone, by every tool alike.
	onlyVerb := sc.verbBit != 0
	if onlyVerb {
		for i := 0; i+1 < len(sc.qstarts); i++ {
			if i < 32 && uint32(1)<<i == sc.verbBit || i == sc.qself {
				continue
			}
			if sc.qidf[i] > 0 {
				onlyVerb = false
				break
			}
		}
	}
	defer func() { sc.notVerb = -1 }()
	// A question's first word is no verb ("which filters are mine").
	verbBit := sc.verbBit
	if q.question {
		verbBit = 0
	}
	// Whether one of the first stage's best without a scope does what the
	// request asks, and more than its verb: a variant with no twin
	// (admin_emoji_add) is then not what the request means unless it says
	// its scope; when none does ("add a custom emoji"), it is the way to
	// do it.
	unscoped := false
	for i := range min(len(top), soleVariantDepth) {
		g := &ix.feat[top[i].Doc]
		if g.scope < 0 && (q.act == 0 || q.act&g.act != 0) && sc.words[top[i].Doc]&^sc.verbBit != 0 {
			unscoped = true
			break
		}
	}
	for i := range top {
		d := top[i].Doc
		f := &ix.feat[d]
		var add float64
		// "start my stopped codespace" asks to start one, not to stop
		// it: a state the request names is no request for the action
		// the tool's title starts with.
		sc.notVerb = -1
		if f.verb >= 0 && f.verb != q.verb && slices.Contains(sc.qstates, f.verb) {
			sc.notVerb = f.verb
		}
		// The request's words are the name's, and the tool takes the
		// values it names: "list all issues in acme/app" names a
		// repository, which the caller's issue list does not take. A
		// request about the caller needs a tool about the caller: "list
		// the teams I'm on" is no request for teams/list. A thing named
		// by value must be one the tool takes, by id or as a parameter:
		// "show event evt_1" is no request for "List events".
		takes := ix.takesKind(sc, f)
		// The tool takes one of the things the request names by value
		// ("issue 17") by its id.
		takesItem := len(sc.qitems) > 0 && slices.ContainsFunc(f.items(ix.featIDs), func(t int32) bool { return slices.Contains(sc.qitems, t) }) && (f.lastItem < 0 || slices.Contains(sc.qitems, f.lastItem))
		if q.sig != 0 && !q.question && !q.yesNo && (q.sig == f.nameSig || q.sig == f.titleSig) && takes && (!q.self || f.self) && (len(sc.qitems) == 0 || takesItem || slices.ContainsFunc(f.params(ix.featIDs), func(t int32) bool { return slices.Contains(sc.qitems, t) })) {
			add += w.exact
		}
		// said: the request says the tool's name or its title, or its
		// title's first words.
		said := q.sig != 0 && (q.sig == f.nameSig || q.sig == f.titleSig)
		if q.prefix != 0 && f.prefix[q.nPrefix-2] == q.prefix {
			add += w.prefix
			said = true
		}
		// The action, the verb and the title's coverage count for a tool
		// that matches more of the request than its verb: "add two
		// numbers" is no request to add observations. When no tool can,
		// they count for all.
		qact, qverb, fromVerb := q.act, q.verb, q.fromVerb
		if q.check >= 0 && ix.checkNS[ix.docNS[d]] {
			// A question to answer yes or no, in a namespace that
			// checks things.
			qact, qverb, fromVerb = actGet, q.check, true
		}
		// A verb none of the plain actions covers (follow, star, fork)
		// says which tools the request means by itself: "unfollow
		// octocat" names a user, not the tool that draws the Octocat.
		rareVerb := qverb >= 0 && qverb == f.verb && qact == 0
		// A verb that names what the tool is about ("unpin the old
		// agenda": pins_remove) matches its object too.
		object := !w.objectMin || !fromVerb || sc.words[d]&^sc.verbBit != 0 || onlyVerb || rareVerb || sc.words[d]&sc.verbBit != 0 && f.nHead > 0 && sc.verbIsHead(f.heads(ix.featIDs))
		if !fromVerb && qact&actSearch == 0 && f.pathed && f.act&actSearch != 0 && f.nParam > 0 && sc.paramOnly(f, ix.featIDs) {
			// Things named with a word only a search's parameters
			// say ("borg technology": borgTechnology) ask it to find
			// them.
			qact |= actSearch
		}
		if object {
			switch {
			case qact&f.act != 0:
				add += w.act
			case (fromVerb || q.question) && qact != 0 && f.act != 0:
				add -= w.actOther
			case f.act != 0:
				add -= w.actImplicit
			}
		}
		// The caller counts for a tool that matches more of the request
		// than the caller and the verb ("my comment" asks for comments,
		// not the caller's other things), or when the request names no
		// more ("who am I"); and, when the request names one thing by
		// value, for a tool that takes it: "installation 55 of my app"
		// asks for that installation, not the caller's list of them.
		if q.self && f.self && (sc.words[d]&^(verbBit|sc.selfBit) != 0 || q.n == 0) && (len(sc.qitems) == 0 || takesItem) {
			add += w.self
		}
		// The tool's verb is the request's ("set") when what it acts on
		// is too: "set the dependabot org secret NPM_TOKEN" asks for
		// "Create or update an organization secret", not "Set selected
		// repositories for an organization secret".
		if qverb >= 0 && (qverb == f.verb || qverb == f.nameVerb) && object && (sc.qobject < 0 || f.nObject == 0 || sc.objectSaid(f.objects(ix.featIDs))) {
			add += w.verb
		}
		if object {
			var self []int32
			if q.self {
				self = ix.selfWords
			}
			// A tool's label is its title; an MCP tool without one is
			// labelled by its name (create_issue), an HTTP operation by
			// its description's first sentence, its name being no more
			// than its method and path.
			label := f.title(ix.featIDs)
			if !f.titled {
				label = f.name(ix.featIDs)
			}
			add += w.label * sc.share(label, self)
		}
		add += w.family * float64(f.family)
		if f.scope >= 0 && !sc.queryHas(f.scope) && (unscoped || !f.soleVariant) {
			// "open dependabot alerts": the repository's, unless the
			// request names the organization or the enterprise.
			add -= w.scope
		}
		if sc.qobject >= 0 && object && f.nObject > 0 && slices.Contains(f.objects(ix.featIDs), sc.qobject) {
			add += w.object
		}
		if f.verb >= 0 && f.verb == ix.checkTerm && !q.yesNo && q.verb != ix.checkTerm {
			// A tool that checks something answers a question to
			// answer yes or no: "what's the title of PR 7" and "PR
			// #31" ask for the pull request, not whether it was merged.
			add -= w.check
		}
		if (q.question || q.yesNo) && (f.act != 0 && f.act&(actGet|actList|actSearch) == 0 || f.act == 0 && f.verb >= 0 && !f.pathed && !ix.computes[f.verb]) {
			// A question asks to read: "what's the status of check run
			// 77" is no request to update or create one, whatever
			// words it shares with them. A tool without a path whose
			// title starts with a verb no action covers ("Assigns a
			// permission scheme", "Records changes") changes things
			// too, as far as a question goes, unless it computes
			// ("Convert time between timezones").
			add -= w.question
		}

		if nsw := ix.namespaceShare(sc, d); nsw > 0 && ix.nsTakes(sc, ix.docNS[d]) {
			add += w.namespace * nsw
		}
		if f.nHead > 0 {
			named, rarity := ix.headsNamed(sc, f)
			hw, rw := w.heads, w.rare
			if !f.pathed {
				hw, rw = w.nameHeads, w.rareName
			}
			if object {
				add += hw * named
			}
			if !said {
				// "add a collaborator": a repository's, not a Copilot
				// Space's, which the request does not name; unless it
				// says the tool's own words.
				add -= rw * rarity
			}
		}
		if object && f.nValue > 0 {
			// "the open pull requests", "approve the pull request": a
			// state or a verdict the tool takes as a parameter's value.
			for _, t := range f.values(ix.featIDs) {
				if t >= 0 && t != sc.whoVerb && sc.queryHasOwn(t) || t < 0 && slices.Contains(sc.qpairs, -1-t) {
					add += w.value
					break
				}
			}
		}
		if len(sc.qkinds) > 0 && object && takes {
			// "delete docs/old.md", "show commit 3f2a1b": a value of
			// a kind the tool takes a parameter for.
			add += w.kind
		}
		if len(sc.qplaces) > 0 && object && f.nParam > 0 {
			// "which invitations are pending on the repo": a place
			// the tool takes a parameter for (repo, not team_slug).
			ps, own := f.params(ix.featIDs), f.objects(ix.featIDs)
			other := sc.qobject >= 0 && !slices.Contains(own, sc.qobject)
			if slices.ContainsFunc(sc.qplaces, func(t int32) bool { return slices.Contains(ps, t) && !(other && slices.Contains(own, t)) }) {
				add += w.place
			}
		}
		if takesItem && object {
			// In proportion to the named things it takes: "comment
			// 10005 on PROJ-8" asks for the tool that takes both.
			named, taken := 0, 0
			its := f.items(ix.featIDs)
			for _, t := range sc.qitems {
				if ix.itemNouns[t] {
					named++
					if slices.Contains(its, t) {
						taken++
					}
				}
			}
			if named > 1 {
				add += w.item * float64(taken) / float64(named)
			} else {
				add += w.item
			}
		}
		if object {
			// The request's verb is the tool's when their actions
			// meet, whatever word its title says it with ("list the
			// rulesets": "Get all repository rulesets").
			verbWord := -1
			if fromVerb && qact&f.act != 0 && sc.verbBit != 0 {
				verbWord = bits.TrailingZeros32(sc.verbBit)
			}
			add += w.short*sc.coveredWith(f.short(ix.featIDs), verbWord) + w.detail*sc.covered(f.detail(ix.featIDs))
		}
		if object && f.nParam > 0 && sc.paramOnly(f, ix.featIDs) {
			add += w.param
		}
		if object && len(sc.qplural) > 0 && f.nPlural > 0 {
			// "list workflows": "List repository workflows", not
			// "List workflow runs".
			add += w.plural * foundShare(sc.qplural, f.plurals(ix.featIDs))
		}
		if object && len(sc.qpairs) > 0 && f.nPhrase > 0 {
			add += w.phrase * foundShare(sc.qpairs, f.phrases(ix.featIDs))
		}
		top[i].Score += add * best * fade
		if ix.obsolete[d>>6]&(1<<(d&63)) != 0 {
			// Not faded: whatever the request's length, an operation
			// kept for older callers ("Add team member (Legacy)") comes
			// after the one to use ("Add or update team membership").
			top[i].Score -= w.deprecated * best
		}
	}
	if len(hits) > len(top) {
		// A share taken stops at the best score not reordered, so that
		// the hits stay in order of score.
		floor := hits[len(top)].Score
		for i := range top {
			top[i].Score = max(top[i].Score, floor)
		}
	}
	slices.SortStableFunc(top, func(a, b Hit) int { return ix.compareHits(a, b) })
}

// headsNamed returns the share of the resources f passes through that
// the request names (namesHead), and the sum of the rarities of those it
// does not, at most one.
func (ix *Index) headsNamed(sc *scratch, f *docFeatures) (share, rarity float64) {
	heads := f.heads(ix.featIDs)
	if len(heads) == 0 {
		return 0, 0
	}
	rare := ix.headRare[f.rareOff : f.rareOff+int32(len(heads))]
	n, sum := 0, 0
	for i, t := range heads {
		if sc.namesHead(f, t, heads) {
			n++
		} else {
			sum += int(rare[i])
		}
	}
	return float64(n) / float64(len(heads)), min(1, float64(sum)/255)
}

// namesHead reports whether the request names t, one of the resources f
// passes through (heads). In a path, a word the request says only as the
// first of a compound whose second word is another of the path's
// resources ("workflow runs" of /actions/workflows/{workflow_id}/runs,
// "commit comments" of /commits/{commit_sha}/comments) says what kind of
// that resource it means, not this one: "list failed workflow runs" asks
// for the repository's runs, not one workflow's.
func (sc *scratch) namesHead(f *docFeatures, t int32, heads []int32) bool {
	if !sc.queryHas(t) {
		return false
	}
	if !f.pathed {
		return true
	}
	for i := 0; i+1 < len(sc.qcompounds); i += 2 {
		if sc.qcompounds[i] == t && slices.Contains(heads, sc.qcompounds[i+1]) {
			return false
		}
	}
	return true
}

// verbIsHead reports whether the request's first word, its own terms
// (not their synonyms), is one of heads.
func (sc *scratch) verbIsHead(heads []int32) bool {
	i := bits.TrailingZeros32(sc.verbBit)
	if sc.verbBit == 0 || i+1 >= len(sc.qstarts) {
		return false
	}
	own := sc.qterms[sc.qstarts[i] : sc.qstarts[i]+sc.qown[i]]
	return slices.ContainsFunc(own, func(t int32) bool { return slices.Contains(heads, t) })
}

// sentence reports whether a request of n words (word gives each,
// lower-cased) reads as a sentence rather than a list of keywords: a word
// past its first is a stop word ("to", "the", "up") or a number.
func sentence(word func(int) []byte, n int) bool {
	for i := 1; i < n; i++ {
		w := word(i)
		if _, stop := stopWords[string(w)]; stop || len(w) > 0 && '0' <= w[0] && w[0] <= '9' {
			return true
		}
	}
	return false
}

// titleVerb reports whether some title starts with the stem s.
func (ix *Index) titleVerb(s []byte) bool {
	id, ok := ix.terms[string(s)]
	return ok && ix.verbs[id]
}

// knowsStem reports whether the stem of the word w is a word of the
// catalog, stemming a copy: w and the scratch's word stay as they are.
func (ix *Index) knowsStem(w []byte) bool {
	var buf [64]byte
	return ix.knows(stem(append(buf[:0], w...)))
}

// inflectedOnly reports whether the tools of some namespace say the stem s
// only with -ed or -ing ("staged", "staging"): a request that starts with
// its bare form ("stage README.md") uses it as a verb, as one the catalog
// lacks, though another source says "stage".
func (ix *Index) inflectedOnly(s []byte) bool {
	id, ok := ix.terms[string(s)]
	if !ok || int(id) >= len(ix.bareNS) {
		return false
	}
	switch v := ix.bareNS[id]; v {
	case bareNowhere:
		return true
	case bareSeveral:
		return false
	default:
		// Said bare in one namespace: inflected only in any other that
		// uses it.
		for _, p := range ix.postings[ix.offsets[id]:ix.offsets[id+1]] {
			if ix.docNS[p.doc] != v {
				return true
			}
		}
		return false
	}
}

// makes reports whether the stem s is a verb the catalog lacks whose noun
// for what does it the catalog has (remind: reminder; Index.madeBy).
func (ix *Index) makes(s []byte) bool {
	_, ok := ix.madeBy[string(s)]
	return ok && !ix.knows(s)
}

// pluralsUnusedWhereOneIs reports whether, in a catalog of several
// namespaces, one whose tools use a word the request says not in the
// plural (sc.oneIDs) uses none it says in the plural (sc.pluralIDs): the
// request read against that namespace's words alone. It reads each
// word's postings once.
func (ix *Index) pluralsUnusedWhereOneIs(sc *scratch) bool {
	if len(ix.nsIDs) < 2 {
		return false
	}
	n := (len(ix.nsIDs) + 63) / 64
	sc.nsSeen = slices.Grow(sc.nsSeen[:0], n)[:n]
	clear(sc.nsSeen)
	for _, t := range sc.pluralIDs {
		for _, p := range ix.postings[ix.offsets[t]:ix.offsets[t+1]] {
			ns := ix.docNS[p.doc]
			sc.nsSeen[ns>>6] |= 1 << (ns & 63)
		}
	}
	for _, t := range sc.oneIDs {
		for _, p := range ix.postings[ix.offsets[t]:ix.offsets[t+1]] {
			if ns := ix.docNS[p.doc]; sc.nsSeen[ns>>6]&(1<<(ns&63)) == 0 {
				return true
			}
		}
	}
	return false
}

// knows reports whether the stem s is a word of the catalog.
func (ix *Index) knows(s []byte) bool {
	_, ok := ix.terms[string(s)]
	return ok
}

// headRarity fills ix.headRare and each doc's rareOff: how rare each
// resource a doc passes through is among the tools of its namespace, of
// which perNS holds the count. /repos in GitHub's description is common,
// copilot-spaces rare: a tool under a rare resource the request does not
// name is about something the request did not ask for.
func (ix *Index) headRarity(perNS []int32) {
	df := map[int64]int32{}
	total := 0
	for d := range ix.feat {
		f := &ix.feat[d]
		for _, t := range f.heads(ix.featIDs) {
			df[int64(ix.docNS[d])<<32|int64(t)]++
		}
		total += int(f.nHead)
	}
	ix.headRare = make([]uint8, 0, total)
	for d := range ix.feat {
		f := &ix.feat[d]
		f.rareOff = int32(len(ix.headRare))
		n := float64(perNS[ix.docNS[d]])
		for _, t := range f.heads(ix.featIDs) {
			r := 0.0
			if n > 1 {
				r = math.Log(n/float64(df[int64(ix.docNS[d])<<32|int64(t)])) / math.Log(n)
			}
			ix.headRare = append(ix.headRare, uint8(math.Round(255*r)))
		}
	}
}

// takesKind reports whether the tool takes a parameter for a kind of value
// the request names (sc.qkinds), or the request names none.
func (ix *Index) takesKind(sc *scratch, f *docFeatures) bool {
	if len(sc.qkinds) == 0 {
		return true
	}
	for _, t := range f.params(ix.featIDs) {
		if slices.Contains(sc.qkinds, t) {
			return true
		}
	}
	return false
}

// compareHits orders hits best first.
func (ix *Index) compareHits(a, b Hit) int {
	if ix.better(a, b) {
		return -1
	}
	if ix.better(b, a) {
		return 1
	}
	return 0
}

// share is the share of ids that are query words or their synonyms, or
// words of the phrases for the caller self, 0 for none.
func (sc *scratch) share(ids, self []int32) float64 {
	if len(ids) == 0 {
		return 0
	}
	n := 0
	for _, t := range ids {
		if sc.queryHas(t) || slices.Contains(self, t) {
			n++
		}
	}
	return float64(n) / float64(len(ids))
}

// foundShare is the share of xs (not empty) found in sorted.
func foundShare(xs, sorted []int32) float64 {
	n := 0
	for _, x := range xs {
		if _, ok := slices.BinarySearch(sorted, x); ok {
			n++
		}
	}
	return float64(n) / float64(len(xs))
}

// paramOnly reports whether a word of the request, itself rather than a
// synonym, is a word of one of f's parameters' names and of none of its
// name, title and path: what to set or filter by ("archive the repo":
// archived; "change the PR's base branch": base; "rename the title of my
// issue": title).
func (sc *scratch) paramOnly(f *docFeatures, ids []int32) bool {
	short := f.short(ids)
	params := f.params(ids)
	for i := 0; i+1 < len(sc.qstarts); i++ {
		if sc.qself == i || sc.qidf[i] == 0 || sc.qown[i] == 0 {
			continue
		}
		t := sc.qterms[sc.qstarts[i]]
		if _, ok := slices.BinarySearch(params, t); ok && !slices.Contains(short, t) {
			return true
		}
	}
	return false
}

// covered is the share of the query's words that ids (a tool's name,
// title and path, or its detail) say, itself or by a synonym. The caller
// and words the catalog lacks (mostly names: "alice", "MOB") are left out.
func (sc *scratch) covered(ids []int32) float64 { return sc.coveredWith(ids, -1) }

// coveredWith is covered with the request's word at index given counted
// as found; -1 for none.
func (sc *scratch) coveredWith(ids []int32, given int) float64 {
	var n, of float64
	for i := 0; i+1 < len(sc.qstarts); i++ {
		if sc.qself == i || sc.qidf[i] == 0 {
			continue
		}
		of++
		if i == given {
			n++
			continue
		}
		for _, t := range sc.qterms[sc.qstarts[i]:sc.qstarts[i+1]] {
			if t == sc.notVerb && sc.qown[i] > 0 && sc.qterms[sc.qstarts[i]] == t {
				continue
			}
			if slices.Contains(ids, t) {
				n++
				break
			}
		}
	}
	if of == 0 {
		return 0
	}
	return n / of
}

// objectSaid reports whether objects (a tool's, docFeatures.objects) has
// the request's object (sc.qobject) or one of its synonyms ("create a
// bug": createIssue).
func (sc *scratch) objectSaid(objects []int32) bool {
	return slices.Contains(objects, sc.qobject) || slices.ContainsFunc(sc.qobjectSyn, func(t int32) bool { return slices.Contains(objects, t) })
}

// queryHasOwn reports whether a query word itself, not a synonym, is
// term t.
func (sc *scratch) queryHasOwn(t int32) bool {
	for i := 0; i+1 < len(sc.qstarts); i++ {
		if sc.qself != i && sc.qown[i] > 0 && sc.qterms[sc.qstarts[i]] == t {
			return true
		}
	}
	return false
}

// queryHas reports whether a query word, or one of its synonyms, is term t.
func (sc *scratch) queryHas(t int32) bool {
	if t == sc.notVerb { // -1, no term, when none
		return false
	}
	return slices.Contains(sc.qterms, t)
}

// paramItem is the term id of the thing a parameter takes one of by its
// id (issueIdOrKey, pull_number, team_slug, subscription_exposed_id: an
// issue, a pull, a team, a subscription), or -1: a parameter of two words
// or more whose words after the first all say an id, but for participles
// before the last ("exposed").
func paramItem(words []string, termOf func(string) int32) int32 {
	if len(words) < 2 {
		return -1
	}
	for i, w := range words[1:] {
		if !idWords[w] && (i+2 == len(words) || !strings.HasSuffix(w, "ed")) {
			return -1
		}
	}
	return termOf(words[0])
}

// repeatedUnit returns the words a tool's name says twice in a row, first
// with its last word in the plural ("customers customer", "payment links
// payment link": a collection, then the parameter that picks one of it,
// as names made from paths say), or nil, and whether they end the name.
func repeatedUnit(name []string) ([]string, bool) {
	for i := range name {
		for k := 1; k <= 3 && i+2*k <= len(name); k++ {
			a, b := name[i:i+k], name[i+k:i+2*k]
			if slices.Equal(a[:k-1], b[:k-1]) && a[k-1] != b[k-1] && plural(a[k-1]) && string(stem([]byte(a[k-1]))) == string(stem([]byte(b[k-1]))) {
				return b, i+2*k == len(name)
			}
		}
	}
	return nil, false
}

// foldedIs reports whether a parameter's name, its letters and digits
// lower-cased, spells words one after the other (payment_link,
// paymentLink: payment, link).
func foldedIs(p string, words []string) bool {
	j, k := 0, 0 // in words[j], at byte k
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		case 'a' <= c && c <= 'z' || '0' <= c && c <= '9':
		default:
			continue
		}
		for j < len(words) && k == len(words[j]) {
			j, k = j+1, 0
		}
		if j == len(words) || words[j][k] != c {
			return false
		}
		k++
	}
	return j == len(words)-1 && k == len(words[j])
}

// endsWithIDWord reports whether a parameter's name may end with one of
// the idWords, in any case; it spares splitting most names into words.
func endsWithIDWord(p string) bool {
	if len(p) < 3 {
		return false
	}
	var w string
	switch p[len(p)-1] | 0x20 {
	case 'd':
		w = "id"
	case 'y':
		w = "key"
	case 'r':
		w = "number"
	case 'g':
		w = "slug"
	default:
		return false
	}
	return len(p) > len(w) && strings.EqualFold(p[len(p)-len(w):], w)
}

// endsWithKeys reports whether a parameter's name ends with "keys" in any
// case.
func endsWithKeys(p string) bool {
	return len(p) > 4 && p[len(p)-1]|0x20 == 's' && strings.EqualFold(p[len(p)-4:], "keys")
}

// idWords are the words a parameter's name ends with when it takes a thing
// by its id.
var idWords = map[string]bool{"id": true, "key": true, "or": true, "number": true, "slug": true}

// auxWords start a question to answer yes or no.
var auxWords = map[string]bool{"is": true, "are": true, "was": true, "were": true, "does": true, "do": true, "did": true, "has": true, "have": true, "can": true, "may": true}

// nsTakes reports whether namespace ns takes what the request names by
// value: some tool of it takes one of the things named by id, or a value
// of a kind named, or one of them is nothing the catalog takes by id; and,
// when the request names a file, some tool takes a path or a file.
func (ix *Index) nsTakes(sc *scratch, ns int32) bool {
	if len(sc.qitems) > 0 && !slices.ContainsFunc(sc.qitems, func(t int32) bool { return slices.Contains(ix.nsItems[ns], t) || !ix.itemNouns[t] }) && !ix.nsTakesKind(sc, ns) {
		return false
	}
	return !sc.qfile || ix.nsTakesKind(sc, ns)
}

// nsTakesKind reports whether some tool of namespace ns takes a value of
// a kind the request names.
func (ix *Index) nsTakesKind(sc *scratch, ns int32) bool {
	return slices.ContainsFunc(sc.qkinds, func(t int32) bool { return slices.Contains(ix.nsParams[ns], t) })
}
