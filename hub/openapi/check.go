package openapi

import (
	"context"
	"net/http"

	"capabilities.sh/capabilities/hub/secrets"
)

// Check reads and parses the OpenAPI document at loc (a file or an
// http(s) URL) as the hub would, and returns how many operations it serves,
// the lines of those it skips and its server ("" when it names none). The
// error names the file or URL, the place and the problem.
func Check(ctx context.Context, loc string) (operations int, skipped []string, server string, err error) {
	return (*Child)(nil).Check(ctx, loc)
}

// Check is the package's Check with the document parsed in c's child
// process (in this process when c is nil), which keeps what it wrote in
// c's cache: a hub with the same Child that loads the document next reads
// it there instead of parsing it again.
func (c *Child) Check(ctx context.Context, loc string) (operations int, skipped []string, server string, err error) {
	return check(ctx, loc, c.parseDocument)
}

// Check is the package's Check with the document parsed as o parses its
// sources' documents: in a child process when its options have a Child.
func (o *Sources) Check(ctx context.Context, loc string) (operations int, skipped []string, server string, err error) {
	return o.opts.Child.Check(ctx, loc)
}

func check(ctx context.Context, loc string, parse func(context.Context, string, []byte) (*openapiDoc, int64, error)) (int, []string, string, error) {
	doc, err := readAndParse(ctx, loc, parse)
	if err != nil {
		return 0, nil, "", err
	}
	return len(doc.tools), doc.skipped, doc.server, nil
}

// readAndParse reads the document at loc, without sending a Referer on
// redirects, and parses it with parse.
func readAndParse(ctx context.Context, loc string, parse func(context.Context, string, []byte) (*openapiDoc, int64, error)) (*openapiDoc, error) {
	client := &http.Client{CheckRedirect: secrets.NoReferer}
	data, err := readOpenAPI(ctx, client, loc)
	if err != nil {
		return nil, err
	}
	doc, _, err := parse(ctx, loc, data)
	return doc, err
}

// SecretPlace says where the one secret of a connection to the API the
// document at loc describes goes, as Sources.SecretPlace does for a
// source's operations in name order, with the document parsed in c's
// child process (in this process when c is nil) and kept in its cache.
// ok is false when no operation takes one secret or a sign-in.
func (c *Child) SecretPlace(ctx context.Context, loc string) (place SecretPlace, ok bool, err error) {
	doc, err := readAndParse(ctx, loc, c.parseDocument)
	if err != nil {
		return SecretPlace{}, false, err
	}
	place, ok = doc.secretPlace("")
	return place, ok, nil
}
