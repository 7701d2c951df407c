package sandbox

import (
	"context"
	"encoding/json"
	"testing"
)

// TestOpenNamespace: a namespace whose tools the host has not listed
// (Open) sends a call to any name to the host, with the same argument
// checks as a listed tool; a listed namespace still names the closest
// tools for an unknown one, without calling the host.
func TestOpenNamespace(t *testing.T) {
	nss := append([]Namespace{{Name: "memory", Open: true}}, testNamespaces...)
	code := `const out = [typeof memory, Object.keys(memory).length];
out.push(await memory.createEntities({ entities: [] }, { connection: "work" }));
try { await memory.readGraph({}, { conn: "x" }); } catch (e) { out.push(e.name); }
try { await github.creatIssue({}); } catch (e) { out.push(e.name); }
return out;`
	for name, d := range drivers(t) {
		t.Run(name, func(t *testing.T) {
			host := &testHost{}
			req := request(t, code, host, Limits{})
			req.Namespaces = nss
			o := d.Run(context.Background(), req)
			want := `["object",0,{"address":"memory.createEntities","args":{"entities":[]},"connection":"work"},"TypeError","TypeError"]`
			if o.Status != StatusCompleted || string(o.Result) != want {
				t.Fatalf("%s\nwant result %s", describeOutcome(o), want)
			}
			if calls := host.recorded(); len(calls) != 1 || calls[0].Address != "memory.createEntities" || !json.Valid(calls[0].Args) {
				t.Errorf("the host saw %+v; want the one call to memory.createEntities", calls)
			}
		})
	}
}
