package search

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// SyntheticCatalog returns n made-up tools for benchmarks and load tests.
// The same (n, seed) always yields the same catalog. Tools are spread over
// namespaces of about 50 tools each and are built from a fixed vocabulary
// of real-looking services, verbs, resources and parameters, so term
// frequencies resemble a real catalog: a few very common words ("list",
// "id", "the"), a long tail of rarer ones.
//
// It is for benchmarks only; nothing in the product calls it.
func SyntheticCatalog(n int, seed int64) []Doc {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
	nsCount := max(1, n/50)
	namespaces := make([]string, nsCount)
	for i := range namespaces {
		base := synServices[i%len(synServices)]
		if i >= len(synServices) {
			base = fmt.Sprintf("%s%d", base, i/len(synServices)+1)
		}
		namespaces[i] = base
	}
	docs := make([]Doc, 0, n)
	seen := make(map[string]bool, n)
	for len(docs) < n {
		ns := namespaces[len(docs)%nsCount]
		verb := synVerbs[rng.IntN(len(synVerbs))]
		res := synResources[rng.IntN(len(synResources))]
		words := []string{verb.word, res.singular}
		if verb.plural {
			words[1] = res.plural
		}
		if rng.IntN(3) == 0 {
			words = append(words, synQualifiers[rng.IntN(len(synQualifiers))])
		}
		orig := strings.Join(words, "_")
		if seen[ns+"."+orig] {
			words = append(words, fmt.Sprintf("v%d", rng.IntN(9)+2))
			orig = strings.Join(words, "_")
			if seen[ns+"."+orig] {
				continue
			}
		}
		seen[ns+"."+orig] = true

		var desc strings.Builder
		fmt.Fprintf(&desc, "%s %s %s in %s.", verb.phrase, synArticle(verb.plural), words[1], ns)
		for range 1 + rng.IntN(3) {
			desc.WriteByte(' ')
			desc.WriteString(synSentences[rng.IntN(len(synSentences))])
		}

		nParams := 1 + rng.IntN(5)
		params := make([]string, 0, nParams)
		paramDocs := make([]string, 0, nParams)
		for range nParams {
			p := synParams[rng.IntN(len(synParams))]
			params = append(params, p.name)
			paramDocs = append(paramDocs, p.doc)
		}
		docs = append(docs, Doc{
			Namespace:   ns,
			Name:        synCamel(words),
			OrigName:    orig,
			Description: desc.String(),
			Params:      params,
			ParamDocs:   paramDocs,
		})
	}
	return docs
}

// SyntheticQueries returns n queries phrased the way people ask for tools,
// drawn from the same vocabulary as SyntheticCatalog.
func SyntheticQueries(n int, seed int64) []string {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x9e7))
	qs := make([]string, n)
	for i := range qs {
		verb := synVerbs[rng.IntN(len(synVerbs))]
		res := synResources[rng.IntN(len(synResources))]
		switch rng.IntN(3) {
		case 0:
			qs[i] = verb.word + " " + res.singular
		case 1:
			qs[i] = fmt.Sprintf("%s %s %s", verb.phrase, synArticle(true), res.plural)
		default:
			qs[i] = fmt.Sprintf("%s %s %s %s", verb.word, res.plural, synQualifiers[rng.IntN(len(synQualifiers))], synServices[rng.IntN(len(synServices))])
		}
	}
	return qs
}

func synArticle(plural bool) string {
	if plural {
		return "all"
	}
	return "a"
}

func synCamel(words []string) string {
	var b strings.Builder
	for i, w := range words {
		if i > 0 && w != "" {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		b.WriteString(w)
	}
	return b.String()
}

var synServices = []string{
	"github", "gitlab", "slack", "notion", "linear", "jira", "confluence", "drive",
	"gmail", "calendar", "stripe", "shopify", "salesforce", "hubspot", "zendesk",
	"postgres", "sqlite", "mysql", "redis", "mongo", "s3", "dropbox", "box",
	"figma", "asana", "trello", "discord", "teams", "zoom", "twilio", "sentry",
	"datadog", "pagerduty", "vercel", "netlify", "cloudflare", "docker", "kubernetes",
	"aws", "gcp", "azure", "openai", "airtable", "intercom", "mailchimp",
	"filesystem", "git", "memory", "fetch", "time",
}

var synVerbs = []struct {
	word, phrase string
	plural       bool
}{
	{"list", "List", true}, {"get", "Get", false}, {"create", "Create", false},
	{"update", "Update", false}, {"delete", "Delete", false}, {"search", "Search", true},
	{"add", "Add", false}, {"remove", "Remove", false}, {"archive", "Archive", false},
	{"export", "Export", true}, {"import", "Import", true}, {"send", "Send", false},
	{"read", "Read", false}, {"write", "Write", false}, {"move", "Move", false},
	{"copy", "Copy", false}, {"merge", "Merge", false}, {"close", "Close", false},
	{"open", "Open", false}, {"assign", "Assign", false}, {"sync", "Synchronize", true},
	{"publish", "Publish", false}, {"schedule", "Schedule", false}, {"cancel", "Cancel", false},
	{"download", "Download", false}, {"upload", "Upload", false}, {"run", "Run", false},
	{"describe", "Describe", false}, {"count", "Count", true}, {"restore", "Restore", false},
}

var synResources = []struct{ singular, plural string }{
	{"issue", "issues"}, {"pull_request", "pull_requests"}, {"comment", "comments"},
	{"message", "messages"}, {"channel", "channels"}, {"user", "users"}, {"team", "teams"},
	{"file", "files"}, {"folder", "folders"}, {"page", "pages"}, {"database", "databases"},
	{"table", "tables"}, {"row", "rows"}, {"record", "records"}, {"event", "events"},
	{"invoice", "invoices"}, {"customer", "customers"}, {"order", "orders"},
	{"product", "products"}, {"ticket", "tickets"}, {"label", "labels"},
	{"branch", "branches"}, {"commit", "commits"}, {"release", "releases"},
	{"deployment", "deployments"}, {"secret", "secrets"}, {"webhook", "webhooks"},
	{"project", "projects"}, {"task", "tasks"}, {"document", "documents"},
	{"contact", "contacts"}, {"meeting", "meetings"}, {"bucket", "buckets"},
	{"container", "containers"}, {"alert", "alerts"}, {"incident", "incidents"},
	{"payment", "payments"}, {"subscription", "subscriptions"}, {"workflow", "workflows"},
	{"repository", "repositories"}, {"attachment", "attachments"}, {"note", "notes"},
}

var synQualifiers = []string{
	"by_id", "by_name", "for_user", "in_bulk", "metadata", "status", "history",
	"permissions", "settings", "content", "summary", "stats", "members", "details",
}

var synSentences = []string{
	"Returns the matching items with pagination.",
	"Requires write access to the workspace.",
	"Results are sorted by most recent first.",
	"Use this tool when you need the full object, including nested fields.",
	"Only works for resources the current user can see.",
	"Supports filtering by owner, label and date range.",
	"The response includes identifiers that other tools accept.",
	"Fails if the item does not exist or was already archived.",
	"Large results are truncated; pass a cursor to continue.",
	"Changes are visible to everyone in the organization.",
	"This operation is idempotent and safe to retry.",
	"Timestamps are returned in UTC using ISO 8601 format.",
	"Rate limited to 100 requests per minute per token.",
	"Attachments and images are returned as links.",
	"Deleted items can be restored within 30 days.",
}

var synParams = []struct{ name, doc string }{
	{"id", "Identifier of the item."}, {"owner", "Account or organization that owns the item."},
	{"repo", "Repository name."}, {"perPage", "Results per page, at most 100."},
	{"page", "Page number, starting at 1."}, {"cursor", "Cursor from a previous response."},
	{"query", "Search query text."}, {"title", "Short title."}, {"body", "Body text in Markdown."},
	{"labels", "Labels to apply."}, {"assignee", "User to assign."}, {"channel", "Channel name or id."},
	{"text", "Message text."}, {"path", "Path of the file or folder."}, {"content", "New file content."},
	{"branch", "Branch name."}, {"since", "Only items updated after this time."},
	{"until", "Only items updated before this time."}, {"state", "Filter by state: open or closed."},
	{"limit", "Maximum number of results."}, {"email", "Email address."}, {"name", "Display name."},
	{"tableName", "Name of the table."}, {"sql", "SQL statement to run."}, {"timezone", "IANA timezone."},
	{"amount", "Amount in the smallest currency unit."}, {"currency", "Three-letter currency code."},
	{"customerId", "Customer identifier."}, {"dryRun", "Preview without making changes."},
	{"recursive", "Include nested folders."}, {"format", "Output format: json or csv."},
}
