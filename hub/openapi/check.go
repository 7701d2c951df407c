package openapi

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/oauth"
	"capabilities.sh/capabilities/hub/secrets"
)

// Check reads and parses the OpenAPI document at loc (a file or an
// http(s) URL) as the hub would, and returns how many operations it serves,
// the lines of those it skips and its server ("" when it names none). The
// error names the file or URL, the place and the problem.
func Check(ctx context.Context, loc string) (operations int, skipped []string, server string, err error) {
	return (*Child)(nil).Check(ctx, loc)
}

// Report is what reading a document as the hub would finds in it.
type Report struct {
	Operations int      // operations served
	Skipped    []string // a line for each operation left out, with why
	// Untyped is how many operations are served without their result's
	// type, its schema above maxOpenAPIResult.
	Untyped int
	Server  string // the document's server, "" when it names none
	// Elsewhere counts, by origin, the operations that name a server of
	// their own on another origin than the API's; a source serves them
	// only when its "origins" lists that origin (config.Source.Origins),
	// and Operations and Skipped count them as left out.
	Elsewhere map[string]int
	// Place is where a connection's one secret goes, as
	// Sources.SecretPlace says for the operations in name order; HasPlace
	// is false when no operation takes one.
	Place    SecretPlace
	HasPlace bool
	// flow is the sign-in the document offers (SignInFlow), made for its
	// server; nil when it offers none.
	flow *oauth.Flow
}

// SignInFlow is Sources.SignInFlow for source def over the document the
// report is of.
func (r Report) SignInFlow(source string, def *config.Source) (*oauth.Flow, error) {
	if r.flow == nil {
		return nil, noSignIn(source)
	}
	f := *r.flow
	if base := strings.TrimRight(def.BaseURL, "/"); base != "" {
		f.Resource = secrets.OriginOfURL(base)
	}
	return &f, nil
}

// Inspect reads and parses the document at loc as Check does, in c's
// child process (in this process when c is nil), keeping what it wrote in
// c's cache, and reports what the CLI tells a person about it.
func (c *Child) Inspect(ctx context.Context, loc string) (Report, error) {
	return inspect(ctx, loc, c.parseDocument)
}

// Check is the package's Check with the document parsed in c's child
// process (in this process when c is nil), which keeps what it wrote in
// c's cache: a hub with the same Child that loads the document next reads
// it there instead of parsing it again.
func (c *Child) Check(ctx context.Context, loc string) (operations int, skipped []string, server string, err error) {
	r, err := c.Inspect(ctx, loc)
	return r.Operations, r.Skipped, r.Server, err
}

// Check is the package's Check with the document parsed as o parses its
// sources' documents: in a child process when its options have a Child.
func (o *Sources) Check(ctx context.Context, loc string) (operations int, skipped []string, server string, err error) {
	return o.opts.Child.Check(ctx, loc)
}

func inspect(ctx context.Context, loc string, parse func(context.Context, string, []byte) (*openapiDoc, int64, error)) (Report, error) {
	client := &http.Client{CheckRedirect: secrets.NoReferer}
	data, err := readOpenAPI(ctx, client, loc)
	if err != nil {
		return Report{}, err
	}
	doc, _, err := parse(ctx, loc, data)
	if err != nil {
		return Report{}, err
	}
	r := Report{Operations: doc.operations(), Untyped: doc.untyped, Server: doc.server}
	for _, op := range doc.ops {
		if origin := doc.elsewhere(op); origin != "" {
			r.Operations--
			r.Skipped = append(r.Skipped, doc.elsewhereLine(op, origin))
			if r.Elsewhere == nil {
				r.Elsewhere = map[string]int{}
			}
			r.Elsewhere[origin]++
		}
	}
	slices.Sort(r.Skipped)
	r.Skipped = append(r.Skipped, doc.skipped...)
	r.Place, r.HasPlace = doc.secretPlace("")
	r.flow, _ = doc.signInFlow("", &config.Source{})
	return r, nil
}

// UntypedNote says that n operations are served without their result's
// type, and why.
func UntypedNote(n int) string {
	return fmt.Sprintf("%d operations are served without their result's type: each one's schema passes %s (describe shows their results as unknown)", n, config.HumanBytes(maxOpenAPIResult))
}
