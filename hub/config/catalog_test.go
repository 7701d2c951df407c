package config

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCatalogLimitsConfig(t *testing.T) {
	cfg, err := Parse("c.json", []byte(`{"catalog": {"maxTools": 50000, "maxSourceBytes": 1073741824}}`))
	if err != nil {
		t.Fatal(err)
	}
	got := cfg.Catalog.WithDefaults()
	if got.MaxTools != 50_000 || got.MaxSourceBytes != 1<<30 || got.MaxPages != 1000 || got.MaxDefinitionBytes != 1<<20 {
		t.Errorf("limits %+v", got)
	}
	b, _ := json.Marshal(cfg)
	if !strings.Contains(string(b), `"catalog":{"maxTools":50000,"maxSourceBytes":1073741824}`) {
		t.Errorf("saved as %s", b)
	}
	for in, want := range map[string]string{
		`{"catalog": {"maxTools": -1}}`:   "c.json: catalog.maxTools: must be a positive whole number",
		`{"catalog": {"maxTool": 5}}`:     "c.json: catalog.maxTool: unknown key",
		`{"catalog": 5}`:                  "c.json: catalog: must be an object",
		`{"catalog": {"maxPages": 1.5}}`:  "catalog.maxPages: must be a positive whole number",
		`{"catalgo": {"maxPages": 1000}}`: `catalgo: unknown key; did you mean "catalog"?`,
	} {
		if _, err := Parse("c.json", []byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", in, err, want)
		}
	}
}
