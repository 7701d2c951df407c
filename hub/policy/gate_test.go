package policy

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"capabilities.sh/capabilities/hub/config"
)

// gateTool is a tool of source my-files on connection personal, at
// definition h2, pinned at h2 unless a case says otherwise.
func gateTool(mod func(*GateInput)) GateInput {
	in := GateInput{Source: "my-files", Namespace: "myFiles", Name: "write_file", JSName: "writeFile",
		Hash: "h2", Pinned: "h2", Connection: "personal"}
	if mod != nil {
		mod(&in)
	}
	return in
}

func cfgRule(target string, m config.Mode) Rule {
	return Rule{Target: target, Mode: m, From: OriginConfig, AllConnections: true}
}

func remembered(target string, m config.Mode, conn, hash string) Rule {
	r := Rule{Target: target, Mode: m, From: OriginDialog, Remembered: true, Connection: conn, Hash: hash}
	if m == config.Deny && conn == "" {
		r.AllConnections = true
	}
	return r
}

func TestGate(t *testing.T) {
	readOnly := func(in *GateInput) { in.ReadOnly = true }
	changed := func(in *GateInput) {
		in.Pinned, in.Change = "h1", "description, annotations (no longer read-only) changed"
	}
	for _, tc := range []struct {
		name   string
		rules  []Rule
		in     GateInput
		mode   config.Mode
		rule   string
		reason string
	}{
		{"default read-only", nil, gateTool(readOnly), config.Allow, "default", "read-only"},
		{"default asks", nil, gateTool(nil), config.Ask, "default", "not marked read-only"},
		{"exact allow", []Rule{cfgRule("myFiles.writeFile", config.Allow)}, gateTool(nil), config.Allow, "myFiles.writeFile", "policy allow"},
		{"deny in MCP form", []Rule{cfgRule("my-files.write_file", config.Deny)}, gateTool(readOnly), config.Deny, "my-files.write_file", "deny"},
		{"deny of the source name glob", []Rule{cfgRule("my-files.*", config.Deny), cfgRule("myFiles.writeFile", config.Allow)}, gateTool(readOnly), config.Deny, "my-files.*", "deny"},
		{"deny of the source name", []Rule{cfgRule("my-files", config.Deny)}, gateTool(readOnly), config.Deny, "my-files", "deny"},
		{"namespace deny beats a remembered allow", []Rule{cfgRule("myFiles", config.Deny), remembered("myFiles.writeFile", config.Allow, "personal", "h2")},
			gateTool(nil), config.Deny, "myFiles", "deny"},
		{"remembered allow", []Rule{remembered("myFiles.writeFile", config.Allow, "personal", "h2")}, gateTool(nil), config.Allow, "myFiles.writeFile", "remembered allow"},
		{"remembered allow beats a namespace ask", []Rule{cfgRule("myFiles", config.Ask), remembered("myFiles.writeFile", config.Allow, "personal", "h2")},
			gateTool(nil), config.Allow, "myFiles.writeFile", "remembered"},
		{"remembered allow on another connection", []Rule{remembered("myFiles.writeFile", config.Allow, "personal", "h2")},
			gateTool(func(in *GateInput) { in.Connection = "work" }), config.Ask, "default", "not marked read-only"},
		{"remembered allow of another definition", []Rule{remembered("myFiles.writeFile", config.Allow, "personal", "h1")},
			gateTool(nil), config.Ask, "default", "not marked read-only"},
		{"migrated allow not pinned yet", []Rule{remembered("myFiles.writeFile", config.Allow, "personal", "")},
			gateTool(nil), config.Ask, "default", "not marked read-only"},
		{"remembered deny on one connection", []Rule{remembered("myFiles.writeFile", config.Deny, "work", "")},
			gateTool(func(in *GateInput) { in.Connection = "work" }), config.Deny, "myFiles.writeFile", "remembered deny"},
		{"remembered deny on another connection", []Rule{remembered("myFiles.writeFile", config.Deny, "work", ""), cfgRule("myFiles", config.Allow)},
			gateTool(nil), config.Allow, "myFiles", "allow"},
		{"remembered deny on every connection", []Rule{remembered("myFiles.writeFile", config.Deny, "", ""), cfgRule("myFiles.writeFile", config.Allow)},
			gateTool(nil), config.Deny, "myFiles.writeFile", "remembered deny"},
		{"ask beats allow of the same target", []Rule{cfgRule("myFiles.writeFile", config.Allow), cfgRule("my-files.write_file", config.Ask)},
			gateTool(nil), config.Ask, "my-files.write_file", "ask"},
		{"exact beats glob beats namespace", []Rule{cfgRule("myFiles", config.Ask), cfgRule("myFiles.write*", config.Allow)}, gateTool(nil), config.Allow, "myFiles.write*", "allow"},
		{"changed under an allow rule asks", []Rule{cfgRule("myFiles", config.Allow)}, gateTool(changed), config.Ask, "myFiles", "changed tool definition"},
		{"changed read-only asks", nil, gateTool(func(in *GateInput) { changed(in); readOnly(in) }), config.Ask, "default", "no longer read-only"},
		{"changed under a remembered allow of the old definition", []Rule{remembered("myFiles.writeFile", config.Allow, "personal", "h1")},
			gateTool(changed), config.Ask, "default", "changed tool definition"},
		{"changed and denied", []Rule{cfgRule("myFiles.*", config.Deny)}, gateTool(changed), config.Deny, "myFiles.*", "deny"},
		{"never pinned follows the rules", []Rule{cfgRule("myFiles", config.Allow)}, gateTool(func(in *GateInput) { in.Pinned = "" }), config.Allow, "myFiles", "allow"},
		{"source removed", []Rule{cfgRule("myFiles", config.Allow)}, gateTool(func(in *GateInput) { in.SourceMissing = true }), config.Deny, "source", "not in the config"},
		{"source disabled", []Rule{cfgRule("myFiles", config.Allow)}, gateTool(func(in *GateInput) { in.SourceDisabled = true }), config.Deny, "source", "disabled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := Gate(New(tc.rules), tc.in)
			if d.Mode != tc.mode || d.Rule != tc.rule || !strings.Contains(d.Reason, tc.reason) {
				t.Errorf("Gate = %s by %q (%q), want %s by %q (%q)", d.Mode, d.Rule, d.Reason, tc.mode, tc.rule, tc.reason)
			}
			if tc.in.Pinned != "" && tc.in.Pinned != tc.in.Hash && d.Mode == config.Ask && d.Change != tc.in.Change {
				t.Errorf("Change = %q, want %q", d.Change, tc.in.Change)
			}
		})
	}
}

// A universe small enough that random rules often meet random calls.
var (
	propTargets = []string{"myFiles", "my-files", "memory", "myFiles.writeFile", "my-files.write_file", "myFiles.readFile",
		"my-files.read_file", "myFiles.*", "my-files.write*", "*", "memory.openNodes", "memory.open_nodes", "m*", "*.read_file"}
	propTools = [][4]string{ // source, namespace, name, method
		{"my-files", "myFiles", "write_file", "writeFile"},
		{"my-files", "myFiles", "read_file", "readFile"},
		{"memory", "memory", "open_nodes", "openNodes"},
	}
	propConns  = []string{"", "personal", "work"}
	propHashes = []string{"h1", "h2", "h3"}
	propModes  = []config.Mode{config.Allow, config.Ask, config.Deny}
)

func pick[T any](rng *rand.Rand, s []T) T { return s[rng.IntN(len(s))] }

// randomRule is a config rule or a remembered decision of random scope.
func randomRule(rng *rand.Rand) Rule {
	r := Rule{Target: pick(rng, propTargets), Mode: pick(rng, propModes)}
	if rng.IntN(2) == 0 {
		r.From, r.AllConnections = OriginConfig, true
		return r
	}
	r.Remembered, r.From = true, pick(rng, []string{OriginDialog, OriginClient, OriginCLI})
	r.Target = pick(rng, propTargets[3:7]) // remembered decisions are for one address
	r.ID = rng.Int64N(1000)
	switch r.Mode {
	case config.Ask:
		r.Mode = config.Allow
		fallthrough
	case config.Allow:
		r.Connection, r.Hash = pick(rng, propConns), pick(rng, append(propHashes, ""))
	case config.Deny:
		if rng.IntN(2) == 0 {
			r.AllConnections = true
		} else {
			r.Connection = pick(rng, propConns)
		}
	}
	return r
}

func randomInput(rng *rand.Rand) GateInput {
	t := pick(rng, propTools)
	in := GateInput{Source: t[0], Namespace: t[1], Name: t[2], JSName: t[3], ReadOnly: rng.IntN(2) == 0,
		Hash: pick(rng, propHashes), Pinned: pick(rng, append(propHashes, "")), Connection: pick(rng, propConns)}
	if in.Pinned != in.Hash {
		in.Change = "description changed"
	}
	return in
}

// checkGate checks the gate's promises for one random rule set and call:
// a deny that matches wins whatever the allows; a changed definition never
// runs unasked; an allow has a reason (an allow that holds in its scope, or
// the read-only default with no rule at all); and the order the rules come
// in does not matter.
func checkGate(t *testing.T, rng *rand.Rand) {
	rules := make([]Rule, rng.IntN(8))
	for i := range rules {
		rules[i] = randomRule(rng)
	}
	in := randomInput(rng)
	d := Gate(New(rules), in)
	denied, allowed, anyMatch := false, false, false
	for i := range rules {
		r := &rules[i]
		if !r.matchesTool(in.Source, in.Namespace, in.Name, in.JSName) || !r.matchesConnection(in.Connection) {
			continue
		}
		switch {
		case r.Mode == config.Deny:
			denied = true
		case r.Mode == config.Allow && (!r.Remembered || r.Hash == in.Hash):
			allowed = true
		}
		if r.Mode != config.Allow || !r.Remembered || r.Hash == in.Hash {
			anyMatch = true
		}
	}
	desc := func() string {
		var b strings.Builder
		for _, r := range rules {
			fmt.Fprintf(&b, "\n  %+v", r)
		}
		return fmt.Sprintf("call %+v under rules:%s\ngot %s by %q (%s)", in, b.String(), d.Mode, d.Rule, d.Reason)
	}
	if denied && d.Mode != config.Deny {
		t.Fatalf("a matching deny lost: %s", desc())
	}
	if !denied && d.Mode == config.Deny {
		t.Fatalf("denied without a matching deny: %s", desc())
	}
	if in.Pinned != "" && in.Pinned != in.Hash && d.Mode == config.Allow {
		t.Fatalf("a changed definition runs unasked: %s", desc())
	}
	if d.Mode == config.Allow && !allowed && (anyMatch || !in.ReadOnly) {
		t.Fatalf("allowed without an allow: %s", desc())
	}
	shuffled := append([]Rule(nil), rules...)
	rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	if d2 := Gate(New(shuffled), in); d2.Mode != d.Mode || d2.Rule != d.Rule || d2.Reason != d.Reason {
		t.Fatalf("the rules' order changed the decision to %s by %q: %s", d2.Mode, d2.Rule, desc())
	}
}

// TestGateProperties runs checkGate over many seeded random rule sets.
func TestGateProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 2026))
	for range 20000 {
		checkGate(t, rng)
	}
}

// FuzzGate is checkGate with the fuzzer choosing the seed:
// go test -fuzz FuzzGate ./hub
func FuzzGate(f *testing.F) {
	for _, s := range []uint64{0, 1, 14, 1 << 40} {
		var b [16]byte
		binary.LittleEndian.PutUint64(b[:], s)
		f.Add(b[:])
	}
	f.Fuzz(func(t *testing.T, seed []byte) {
		var b [16]byte
		copy(b[:], seed)
		rng := rand.New(rand.NewPCG(binary.LittleEndian.Uint64(b[:8]), binary.LittleEndian.Uint64(b[8:])))
		for range 50 {
			checkGate(t, rng)
		}
	})
}

// TestGatePropertyUniverse pins, by hand, which of the property tests'
// targets name which of their tools, so checkGate's use of the policy's
// own matcher cannot hide a matcher that stopped matching: a deny that no
// longer matched would otherwise pass as "no deny applies".
func TestGatePropertyUniverse(t *testing.T) {
	const w, r, o = 1, 2, 4 // writeFile, readFile, openNodes
	want := map[string]int{
		"myFiles": w | r, "my-files": w | r, "memory": o,
		"myFiles.writeFile": w, "my-files.write_file": w, "myFiles.readFile": r, "my-files.read_file": r,
		"myFiles.*": w | r, "my-files.write*": w, "*": w | r | o,
		"memory.openNodes": o, "memory.open_nodes": o, "m*": w | r | o, "*.read_file": r,
	}
	if len(want) != len(propTargets) {
		t.Fatalf("the table names %d targets, the universe has %d", len(want), len(propTargets))
	}
	for _, target := range propTargets {
		got := 0
		for i, tool := range propTools {
			rule := Rule{Target: target}
			if rule.matchesTool(tool[0], tool[1], tool[2], tool[3]) {
				got |= 1 << i
			}
		}
		if m, ok := want[target]; !ok || got != m {
			t.Errorf("%s matches tools %03b, want %03b", target, got, m)
		}
	}
	// Every kind of outcome occurs in the random runs: a property that never
	// meets a deny, an allow or a changed definition proves nothing.
	rng := rand.New(rand.NewPCG(14, 2026))
	seen := map[string]int{}
	for range 2000 {
		rules := make([]Rule, rng.IntN(8))
		for i := range rules {
			rules[i] = randomRule(rng)
		}
		in := randomInput(rng)
		d := Gate(New(rules), in)
		key := string(d.Mode)
		if in.changed() {
			key += " changed"
		}
		seen[key]++
	}
	for _, k := range []string{"allow", "ask", "deny", "ask changed", "deny changed"} {
		if seen[k] < 20 {
			t.Errorf("only %d of 2000 random calls ended %q: %v", seen[k], k, seen)
		}
	}
}

// TestTighten: a profile's rules only tighten the person's decision: a
// read-only profile denies a tool that is not read-only, the profile's
// deny denies, its ask asks where the person's rules allow, its allow
// changes nothing, and a changed definition is left to the person's gate.
func TestTighten(t *testing.T) {
	allow := Decision{Mode: config.Allow, Rule: "default", Reason: "read-only tool"}
	ask := Decision{Mode: config.Ask, Rule: "default", Reason: "policy ask (the tool is not marked read-only)"}
	deny := Decision{Mode: config.Deny, Rule: "myFiles", Reason: "policy deny myFiles"}
	for _, tc := range []struct {
		name     string
		d        Decision
		readOnly bool
		own      []Rule
		in       GateInput
		mode     config.Mode
		rule     string
		reason   string
	}{
		{"the person's deny stays", deny, true, []Rule{cfgRule("myFiles", config.Allow)}, gateTool(nil), config.Deny, "myFiles", "policy deny"},
		{"read-only profile denies a write", allow, true, nil, gateTool(nil), config.Deny, "profile", "profile work is read-only and myFiles.writeFile is not marked read-only"},
		{"read-only profile lets a read pass", allow, true, nil, gateTool(func(in *GateInput) { in.ReadOnly = true }), config.Allow, "default", "read-only tool"},
		{"no rule of the profile matches", allow, false, []Rule{cfgRule("other", config.Deny)}, gateTool(nil), config.Allow, "default", "read-only tool"},
		{"the profile's deny denies", allow, false, []Rule{cfgRule("myFiles.writeFile", config.Deny)}, gateTool(nil), config.Deny, "myFiles.writeFile", "profile work: policy"},
		{"the profile's ask asks where the person allows", allow, false, []Rule{cfgRule("myFiles", config.Ask)}, gateTool(nil), config.Ask, "myFiles", "profile work: policy"},
		{"the profile's ask leaves the person's ask", ask, false, []Rule{cfgRule("myFiles", config.Ask)}, gateTool(nil), config.Ask, "default", "not marked read-only"},
		{"the profile's allow changes nothing", ask, false, []Rule{cfgRule("myFiles", config.Allow)}, gateTool(nil), config.Ask, "default", "not marked read-only"},
		{"a changed definition is not the profile's", allow, false, []Rule{cfgRule("myFiles", config.Allow)},
			gateTool(func(in *GateInput) { in.Pinned, in.Change = "h1", "description changed" }), config.Allow, "default", "read-only tool"},
	} {
		d := Tighten(tc.d, "work", tc.readOnly, New(tc.own), tc.in)
		if d.Mode != tc.mode || d.Rule != tc.rule || !strings.Contains(d.Reason, tc.reason) {
			t.Errorf("%s: got %s by %q (%s); want %s by %q containing %q", tc.name, d.Mode, d.Rule, d.Reason, tc.mode, tc.rule, tc.reason)
		}
	}
}
