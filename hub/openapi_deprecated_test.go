package hub

import (
	"context"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub/config"
)

// TestOpenAPIDeprecated: the API marks removeItem deprecated and adds
// removeAnItem, which does the same. Search ranks the live one first and
// marks the other, describe says @deprecated, and the mark alone changes
// nothing a call sends: the allowed removeItem keeps its consent and runs
// without asking, its definition not marked changed.
func TestOpenAPIDeprecated(t *testing.T) {
	h, api, apiURL, apiLog := startRequestChangeHub(t, map[string]config.Mode{"api.removeItem": config.Allow})
	ctx := context.Background()
	if env := execCode(t, h, `return await api.removeItem({ id: "1" });`); env.Status != StatusCompleted || len(apiLog.find("/items/1")) != 1 {
		t.Fatalf("the allowed DELETE before the mark: %s", envJSON(env))
	}
	before, _ := h.catalog.Snapshot().Lookup("api.removeItem")

	doc := requestChangeDoc(apiURL, "delete", "/items/{id}",
		`,"/item/{id}":{"delete":{"operationId":"removeAnItem","summary":"Remove an item.","parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],"responses":{"204":{"description":"gone"}}}}`)
	marked := strings.Replace(doc, `"operationId":"removeItem",`, `"operationId":"removeItem","deprecated":true,`, 1)
	if marked == doc {
		t.Fatal("the document has no removeItem to mark")
	}
	api.serve(t, h, marked)
	if errs := h.Refresh(ctx); errs["api"] != nil {
		t.Fatal(errs["api"])
	}

	remove, _ := h.catalog.Snapshot().Lookup("api.removeItem")
	if remove == nil || !remove.Deprecated() || remove.Changed() || remove.Hash == before.Hash {
		t.Fatalf("removeItem marked deprecated: %+v", remove)
	}
	if live, _ := h.catalog.Snapshot().Lookup("api.removeAnItem"); live == nil || live.Deprecated() {
		t.Fatalf("removeAnItem: %+v", live)
	}

	out, err := h.Search(ctx, SearchRequest{Query: "remove an item"})
	if err != nil {
		t.Fatal(err)
	}
	live, old := strings.Index(out, "api.removeAnItem("), strings.Index(out, "api.removeItem(")
	if live < 0 || old < live {
		t.Errorf("the live operation does not come before the deprecated one:\n%s", out)
	}
	if line := out[old:]; !strings.Contains(line[:strings.IndexByte(line, '\n')], " [deprecated]") {
		t.Errorf("the deprecated operation is not marked:\n%s", out)
	}
	if strings.Count(out, "[deprecated]") != 1 {
		t.Errorf("want one [deprecated] mark:\n%s", out)
	}

	decl, err := h.Describe(ctx, DescribeRequest{Targets: []string{"api.removeItem", "api.removeAnItem"}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(decl, "@deprecated") != 1 || !strings.Contains(decl, "\t * Remove an item.\n\t * @deprecated\n") {
		t.Errorf("describe does not mark the deprecated operation once:\n%s", decl)
	}

	if env := execCode(t, h, `return await api.removeItem({ id: "2" });`); env.Status != StatusCompleted || len(apiLog.find("/items/2")) != 1 {
		t.Errorf("the allowed operation asks again once deprecated: %s", envJSON(env))
	}

	// The mark taken back: the consent stays again.
	api.serve(t, h, doc)
	if errs := h.Refresh(ctx); errs["api"] != nil {
		t.Fatal(errs["api"])
	}
	if remove, _ = h.catalog.Snapshot().Lookup("api.removeItem"); remove == nil || remove.Deprecated() || remove.Changed() || remove.Hash != before.Hash {
		t.Errorf("removeItem no longer deprecated: %+v", remove)
	}
	if env := execCode(t, h, `return await api.removeItem({ id: "3" });`); env.Status != StatusCompleted || len(apiLog.find("/items/3")) != 1 {
		t.Errorf("the allowed operation asks once its mark is gone: %s", envJSON(env))
	}
}
