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
	client := &http.Client{CheckRedirect: secrets.NoReferer}
	data, err := readOpenAPI(ctx, client, loc)
	if err != nil {
		return 0, nil, "", err
	}
	doc, _, err := parse(ctx, loc, data)
	if err != nil {
		return 0, nil, "", err
	}
	return len(doc.tools), doc.skipped, doc.server, nil
}
