package localapi

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/internal/hubtest"
)

// GET /v1/run answers one run with its calls, each with the arguments its
// journal kept, and 404 for a run the hub does not hold.
func TestRunRoute(t *testing.T) {
	notes := newNotesServer()
	h := hubWith(t, map[string]*config.Source{"notes": {URL: hubtest.HTTPUpstream(t, notes.server, "", "").URL}})
	api := NewHandler(h, APIOptions{})
	env := execOn(t, h, `return await notes.sendNote({ text: "by the route" });`)
	if env.Status != hub.StatusCompleted {
		t.Fatalf("the run: %s", env.Line())
	}
	rec := httptest.NewRecorder()
	api.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/run?run="+env.RunID, nil))
	var d RunDetail
	if err := json.Unmarshal(rec.Body.Bytes(), &d); rec.Code != 200 || err != nil {
		t.Fatalf("GET /v1/run: %d %s", rec.Code, rec.Body)
	}
	if d.Run.ID != env.RunID || d.Run.Status != hub.StatusCompleted || len(d.Calls) != 1 || d.Calls[0].Args != `{"text":"by the route"}` || d.Calls[0].State != "ok" {
		t.Errorf("the run: %+v", d)
	}
	rec = httptest.NewRecorder()
	api.ServeHTTP(rec, httptest.NewRequest("GET", "/v1/run?run=run_none", nil))
	if rec.Code != 404 || !strings.Contains(rec.Body.String(), "no run run_none") {
		t.Errorf("an unknown run: %d %s", rec.Code, rec.Body)
	}
}
