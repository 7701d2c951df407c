package hub

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/hub/naming"
)

// TestOpenAPIReadOnlyWriteOnly serves a document whose User has an id the
// server makes (readOnly) and a password it never returns (writeOnly):
// describe declares the arguments without the id, the result without the
// password, and a nested User of a request as UserInput beside the
// result's User; a call sends what the code gave, an id too.
func TestOpenAPIReadOnlyWriteOnly(t *testing.T) {
	var mu sync.Mutex
	var got []string
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, r.Method+" "+r.URL.Path+" "+string(b))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		w.Write([]byte(`{"id":"u7","name":"ada"}`))
	}))
	defer api.Close()
	name := uniqueName("sides")
	ns := naming.Namespace(name)
	doc := filepath.Join(repoRoot(t), "hub", "openapi", "testdata", "sides.yaml")
	h := newOpenAPIHub(t, name, &config.Source{OpenAPI: doc, BaseURL: api.URL},
		map[string]config.Mode{ns + ".createUser": config.Allow}, Options{})

	decl, err := h.Describe(t.Context(), DescribeRequest{Targets: []string{ns + ".createUser", ns + ".createTeam"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"createUser(input: {\n\t\tname: string;\n\t\tpassword: string;\n\t\taddress?: ",
		"}, options?: CallOptions): Promise<" + ns + ".User>;",
		"interface User {\n\t\tid: string;\n\t\tname: string;\n\t\taddress?: ",
		"body: " + ns + ".TeamInput;",
		"interface TeamBaseInput {\n\t\tname?: string;\n\t\tlead?: UserInput;\n\t\tlabels?: LabelInput2[];",
		"interface UserInput {\n\t\tname: string;\n\t\tpassword: string;\n\t\taddress?: Address;\n\t}",
		"interface TeamBase {\n\t\tid?: number;\n\t\tname?: string;\n\t\tlead?: ",
	} {
		if !strings.Contains(decl, want) {
			t.Errorf("describe lacks %q:\n%s", want, decl)
		}
	}
	if user := decl[strings.Index(decl, "interface User {"):]; strings.Contains(user[:strings.Index(user, "}")], "password") {
		t.Errorf("the result's User declares the password:\n%s", decl)
	}
	if input := decl[strings.Index(decl, "createUser(input"):]; strings.Contains(input[:strings.Index(input, "}")], "\tid") {
		t.Errorf("createUser asks for the id:\n%s", decl)
	}

	env := execCode(t, h, `return await `+ns+`.createUser({ name: "ada", password: "pw", id: "mine" });`)
	if env.Status != StatusCompleted || !strings.Contains(string(env.Result), `"id":"u7"`) {
		t.Fatalf("createUser: %s", envJSON(env))
	}
	mu.Lock()
	defer mu.Unlock()
	var body map[string]any
	if len(got) != 1 || !strings.HasPrefix(got[0], "POST /users {") {
		t.Fatalf("the API received %q", got)
	}
	if err := json.Unmarshal([]byte(strings.TrimPrefix(got[0], "POST /users ")), &body); err != nil || body["name"] != "ada" || body["password"] != "pw" || body["id"] != "mine" {
		t.Errorf("the API received %s (%v)", got[0], err)
	}
}
