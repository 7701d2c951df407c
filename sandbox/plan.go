package sandbox

import (
	"fmt"
	"strconv"

	"github.com/dop251/goja"
)

// Planned is the error a host returns from Call (or Read) to plan the call
// instead of running it: the guest's promise resolves to a placeholder for
// the call's result, and the run goes on. See "Planning" in the package
// documentation.
type Planned struct{}

func (*Planned) Error() string { return "the call is planned, not run" }

// PlanStop is where and why planning stopped: the code needed the actual
// value of a placeholder, the value at Path in the result of call Seq.
type PlanStop struct {
	Seq  int      `json:"seq"`            // the call whose result the code needed
	Path []string `json:"path,omitempty"` // where in that result; none is the whole result
	// Line is the line of the code as written (after Prepare) that needed
	// the value, 0 when no line of it was running.
	Line int `json:"line,omitempty"`
	// Reason is what the code did with the value, in a few words about
	// "it": "converts it to a string", "calls .map() on it".
	Reason string `json:"reason"`
	// Message is the sentence for a person or a model: "what follows
	// depends on the result of call 2, line 7: the code converts <result of
	// call 2>.entities[0].name to a string".
	Message string `json:"message"`
}

// codePlanStopped is the failure a run records when planning stops; it
// never leaves the sandbox: the outcome is StatusPlanned with a PlanStop.
const codePlanStopped = "plan_stopped"

// planReasons words each way the prelude stops planning (the kind it
// passes to planStop): the reason about "it", and the same with %s for the
// placeholder's text.
var planReasons = map[string][2]string{
	"primitive:number":  {"uses it as a number (arithmetic or a comparison)", "uses %s as a number (arithmetic or a comparison)"},
	"primitive:string":  {"converts it to a string", "converts %s to a string"},
	"primitive:default": {"uses its value (+ or ==)", "uses the value of %s (+ or ==)"},
	"iterate":           {"iterates over it", "iterates over %s"},
	"keys":              {"lists its keys", "lists the keys of %s"},
	"has":               {"checks for a key in it", "checks for a key in %s"},
	"describe":          {"inspects its properties", "inspects the properties of %s"},
	"change":            {"changes it", "changes %s"},
	"call":              {"calls it", "calls %s"},
	"new":               {"constructs an object with it", "constructs an object with %s"},
	"json":              {"turns it into JSON", "turns %s into JSON"},
	"hub.read":          {"passes it to hub.read", "passes %s to hub.read"},
	"hub.search":        {"passes it to hub.search", "passes %s to hub.search"},
	"hub.describe":      {"passes it to hub.describe", "passes %s to hub.describe"},
	"connection":        {"passes it as a connection name", "passes %s as a connection name"},
	"options":           {"passes it as the options of a tool call", "passes %s as the options of a tool call"},
	"clone":             {"clones it", "clones %s"},
	"deep":              {"reads deeper into it than a result can nest", "reads deeper into %s than a result can nest"},
}

// planReason returns the reason for kind (with key, a method's name or the
// key tested) about it, or about what when what is not "".
func planReason(kind, key, what string) string {
	if kind == "primitive" {
		kind, key = "primitive:"+key, ""
	}
	it := what
	if it == "" {
		it = "it"
	}
	switch {
	case kind == "call" && key != "":
		return "calls " + pathText([]string{shorten(key)}) + "() on " + it
	case kind == "has" && key != "":
		return "checks whether " + it + " has the key " + jsQuote(shorten(key))
	}
	forms, ok := planReasons[kind]
	switch {
	case !ok:
		return fmt.Sprintf("needs the value of %s", it)
	case what == "":
		return forms[0]
	}
	return fmt.Sprintf(forms[1], what)
}

// newPlanStop builds the stop record; line 0 is unknown.
func newPlanStop(seq int, path []string, kind, key string, line int) *PlanStop {
	s := &PlanStop{Seq: seq, Path: path, Line: line, Reason: planReason(kind, key, "")}
	where := fmt.Sprintf("the result of call %d", seq)
	if line > 0 {
		where += fmt.Sprintf(", line %d", line)
	}
	s.Message = "what follows depends on " + where + ": the code " + planReason(kind, key, shortText(Symbol{Call: seq, Path: path}.String()))
	return s
}

// jsPlanStop is the bridge's planStop(seq, path, kind, key): the code
// needs the value of a placeholder. It records where and stops the run,
// which ends as planned.
func (r *run) jsPlanStop(c goja.FunctionCall) goja.Value {
	seq := int(c.Argument(0).ToInteger())
	var path []string
	if obj, ok := c.Argument(1).(*goja.Object); ok {
		n := int(obj.Get("length").ToInteger())
		for i := range n {
			path = append(path, obj.Get(strconv.Itoa(i)).String())
		}
	}
	kind, _ := argString(c, 2)
	key, _ := argString(c, 3)
	if r.failure.Load() == nil {
		r.planStop = newPlanStop(seq, path, kind, key, r.guestLine())
		r.fail(r.stopErr)
	}
	return goja.Undefined()
}

// guestLine is the line, in the code as written, of the innermost guest
// frame on the stack; 0 when none is.
func (r *run) guestLine() int {
	for _, f := range r.rt.CaptureCallStack(0, nil) {
		if f.SrcName() == guestFile {
			if line := f.Position().Line; line > 0 {
				return guestLine(line)
			}
		}
	}
	return 0
}

// maxShownText bounds a placeholder's text in a message.
const maxShownText = 200

// shortText cuts a placeholder's text to maxShownText bytes.
func shortText(s string) string { return cutText(s, maxShownText) }
