package openapi

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/internal/hubtest"
)

// TestNeedsSaysWhatTheConnectionLacks: over Petstore's document, whose
// pet operations sign in with OAuth, whose inventory takes an API key and
// whose getPetById takes either, Needs counts the operations the default
// connection cannot call yet and names the need of the most of them; a
// connection with both gives every operation what it asks for.
func TestNeedsSaysWhatTheConnectionLacks(t *testing.T) {
	doc := filepath.Join(hubtest.RepoRoot(t), "testdata", "npm", "node_modules", "@readme", "oas-examples", "3.0", "json", "petstore.json")
	o := New(Options{})
	defer o.Close()
	ctx := context.Background()
	set := func(c *config.Connection) {
		src := &config.Source{OpenAPI: doc, BaseURL: "https://api.example.test"}
		if c != nil {
			src.Connections = map[string]*config.Connection{"work": c}
		}
		o.SetConfig(&config.Config{Sources: map[string]*config.Source{"pets": src}})
	}
	if w, of, need := o.Needs("pets"); w != 0 || of != 0 || need != "" {
		t.Errorf("a source the config lacks: %d of %d, %q", w, of, need)
	}
	set(nil)
	tools, err := o.ListTools(ctx, "pets")
	if err != nil {
		t.Fatal(err)
	}
	secured := 0
	for _, tl := range tools {
		if need := o.AuthNeed("pets", tl.Name, ""); need != "" {
			secured++
		}
	}
	w, of, need := o.Needs("pets")
	if w != secured || of != len(tools) || w == 0 || w == of ||
		!strings.Contains(need, "an OAuth access token (petstore_auth): capabilities connection add pets default --header Authorization") {
		t.Errorf("no connection: %d of %d wait (%d by AuthNeed, of %d), need %q", w, of, secured, len(tools), need)
	}

	set(&config.Connection{Headers: map[string]string{"api_key": "${secret:api_key}"}})
	w2, _, need := o.Needs("pets")
	if w2 == 0 || w2 >= w || !strings.Contains(need, "petstore_auth") || strings.Contains(need, "api_key") {
		t.Errorf("with the API key: %d wait (%d without), need %q", w2, w, need)
	}
	if need := o.AuthNeed("pets", "getPetById", ""); need != "" {
		t.Errorf("getPetById takes the API key, yet needs %q", need)
	}

	set(&config.Connection{Headers: map[string]string{"api_key": "${secret:api_key}", "Authorization": "Bearer ${secret:token}"}})
	if w, _, need := o.Needs("pets"); w != 0 || need != "" {
		t.Errorf("with both: %d wait, need %q", w, need)
	}
}
