package search

import (
	"slices"
	"strings"
	"testing"
)

// TestUnknownWords: the words of a request no tool uses, nor a word the
// index reads for them, and none of what names a value.
func TestUnknownWords(t *testing.T) {
	ix := Build([]Doc{
		{Namespace: "st", Name: "searchSpacecraft", Title: "Searching spacecrafts", Method: "POST", Path: "/spacecraft/search"},
		{Namespace: "st", Name: "searchPerformers", Title: "Searching performers", Method: "POST", Path: "/performer/search"},
		{Namespace: "st", Name: "getAnimal", Title: "Retrieval of a single animal", Method: "GET", Path: "/animal/{uid}"},
		{Namespace: "gh", Name: "watchRepository", Title: "Watch a repository", Description: "Pull requests (PR) of a repository."},
	}, nil)
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"search actors", []string{"actors"}},
		{"Find the warships and the frigates", []string{"warships", "frigates"}},
		// The first word's capital is the sentence's; later capitals,
		// digits and marks name values.
		{"Actors: Patrick Stewart", []string{"actors"}},
		{"spacecraft NCC-1701 in README.md, 2.0", nil},
		// Stop words, the caller, a synonym of a word the catalog uses
		// (fetch: get), an acronym's short form, a verb in un-.
		{"fetch my animals", nil},
		{"show me the PRs", nil},
		{"unwatch the repo", nil},
		// Marks around a word; a word said twice is said once.
		{"birds? (birds, and birds!)", []string{"birds"}},
		// Text in quotes, or that a message is to say, is a value's.
		{"search spacecraft \"the flying pigeons\" or \u201cwild geese\u201d and \"frogs\"", nil},
		{"spacecraft with the message hello pigeons", []string{"message"}},
		{"spacecraft saying hello pigeons", nil},
		// Where a request names someone, a word in lower case is a
		// name: right after the verb with nothing or a preposition
		// after it, after "to", "from" or "by", or with an 's. Not in
		// the plural, nor a verb's form, nor a word before a noun.
		{"search erin", nil},
		{"search spacecraft by kirk", nil},
		{"search carol's spacecraft", nil},
		{"search frigates", []string{"frigates"}},
		{"search warship fleets", []string{"warship", "fleets"}},
		{"search trekking", []string{"trekking"}},
		{"the warship", []string{"warship"}},
		{"the starship's crew", []string{"starship", "crew"}},
		// So is one between "the" and the singular word for a thing a
		// tool takes by id: that one's name.
		{"fetch the pluto animal", nil},
		{"fetch an alien animal", []string{"alien"}},
		{"fetch the alien animals", []string{"alien"}},
		// How much, or where in general, names nothing.
		{"how much spacecraft is there anywhere", nil},
		// A time is a value.
		{"spacecraft of yesterday and friday morning", nil},
		// A two-word verb is read as its plain verb, which the
		// request does not say: neither is reported.
		{"turn off the spacecraft", nil},
		{"throw away the frigates", []string{"frigates"}},
		// The name after "called" or "named" is a value too.
		{"a spacecraft called defiant", nil},
		{"performers named kirk and birds", []string{"birds"}},
		// Other scripts are read as pairs of characters, not words.
		{"宇宙船 spacecraft", nil},
	} {
		if got := ix.Unknown(c.query, ""); !slices.Equal(got, c.want) {
			t.Errorf("Unknown(%q) = %q, want %q", c.query, got, c.want)
		}
	}
	// In one namespace, the words its tools use: gh's watch and PR are
	// not st's; a namespace the index lacks has none.
	for _, c := range []struct {
		query, ns string
		want      []string
	}{
		{"watch the spacecraft", "st", []string{"watch"}},
		{"watch the spacecraft", "gh", []string{"spacecraft"}},
		{"unwatch the spacecraft", "gh", []string{"spacecraft"}},
		{"fetch the animals", "st", nil},
		{"fetch the animals", "nowhere", nil},
	} {
		if got := ix.Unknown(c.query, c.ns); !slices.Equal(got, c.want) {
			t.Errorf("Unknown(%q, %q) = %q, want %q", c.query, c.ns, got, c.want)
		}
	}
}

// TestResourcesOfPaths: the resources a source's paths name, most
// operations first, without the prefix they share, parameters, actions,
// versions, or a segment counted twice in one path.
func TestResourcesOfPaths(t *testing.T) {
	for _, c := range []struct {
		name  string
		paths []string
		want  []string
	}{
		{"a prefix nine in ten share", []string{
			"/v1/customers", "/v1/customers/{customer}", "/v1/customers/{customer}/sources",
			"/v1/customers/{customer}/sources/{id}", "/v1/charges", "/v1/charges/{charge}/capture", "/v1/charges/search",
			"/v1/payment_intents/{intent}/cancel", "/v1/tax-ids", "/v1/account",
		}, []string{"customers", "charges", "sources", "account", "cancel", "capture", "payment_intents", "tax-ids"}},
		{"methods as segments", []string{"/chat.postMessage", "/chat.delete", "/conversations.list", "/conversations.history", "/conversations.join", "/users.info"},
			[]string{"conversations", "chat", "users"}},
		{"versions and names that are no words", []string{
			"/rest/api/3/issue/{id}", "/rest/api/3/issue/{id}/comment", "/rest/api/3/issue/{id}/issue", "/rest/api/3/project",
			"/rest/api/3/project/{id}", "/rest/api/3/~x", "/rest/api/3/field/{id}/option", "/rest/api/3/field", "/rest/api/3/search",
			"/rest/atlassian-connect/1/addons/{key}",
		}, []string{"issue", "field", "project", "addons", "atlassian-connect", "comment", "option"}},
		{"a name too long to be one", []string{"/" + strings.Repeat("a", maxResourceLen+1), "/" + strings.Repeat("b", maxResourceLen)},
			[]string{strings.Repeat("b", maxResourceLen)}},
		{"no paths", nil, nil},
	} {
		if got := Resources(c.paths); !slices.Equal(got, c.want) {
			t.Errorf("%s: Resources = %q, want %q", c.name, got, c.want)
		}
	}
}
