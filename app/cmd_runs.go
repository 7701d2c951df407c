package main

// `capabilities hub runs RUNID`: one run and its calls, as the window's Runs
// tab shows them.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/localapi"
	"capabilities.sh/capabilities/hub/policy"
	"capabilities.sh/capabilities/hub/store"
)

// callResultMax bounds a call's result on its line; --json has it whole
// (as far as the hub keeps it).
const callResultMax = 300

func showRun(ctx context.Context, e *env, runID string, asJSON bool) error {
	var d localapi.RunDetail
	err := withHub(ctx, e,
		func(c *localapi.Client) error {
			return c.Do(ctx, "GET", "/v1/run?run="+url.QueryEscape(runID), nil, &d)
		},
		func(h *hub.Hub) (err error) { d, err = localapi.RunDetailOf(ctx, h, runID); return err })
	if err != nil {
		return withHint(err, "'capabilities hub runs' lists the recent runs")
	}
	if asJSON {
		return printJSON(e.Stdout, d)
	}
	writeRun(e.Stdout, d)
	return nil
}

// writeRun writes a run's head line, its code and each of its calls.
func writeRun(w io.Writer, d localapi.RunDetail) {
	r := d.Run
	fmt.Fprintf(w, "%s  %s  client %s  updated %s\n", r.ID, r.Status, orDash(r.Client), r.Updated.Local().Format("2006-01-02 15:04:05"))
	fmt.Fprintln(w, "code:")
	for _, l := range strings.Split(strings.TrimRight(r.Code, "\n"), "\n") {
		fmt.Fprintln(w, "  "+l)
	}
	if len(d.Calls) == 0 {
		fmt.Fprintln(w, "No tool calls.")
		return
	}
	for _, c := range d.Calls {
		fmt.Fprintln(w)
		fmt.Fprint(w, callText(c))
	}
}

// callText is one call on a few lines: what, how it ended and how long it
// took; who decided; its arguments; its result.
func callText(c store.CallDetail) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#%d  %s  %s  (%s)", c.Seq, c.Address, c.State, (time.Duration(c.Ms) * time.Millisecond).String())
	if c.Connection != "" {
		fmt.Fprintf(&b, "  on connection %s", c.Connection)
	}
	b.WriteString("\n  decision: " + policy.DecisionWords(c.State, c.Decision, c.Remember, c.Actor, c.Channel) + "\n")
	if c.Reason != "" {
		b.WriteString("  asked because: " + oneLine(c.Reason) + "\n")
	}
	switch {
	case c.Args == "":
		b.WriteString("  arguments not recorded\n")
	case c.ArgsCut:
		b.WriteString("  arguments: " + oneLine(c.Args) + " … (cut here; the journal keeps the first 4 KB)\n")
	default:
		b.WriteString("  arguments: " + argsLine(c.Args) + "\n")
	}
	if c.Result != "" {
		label := "result"
		switch c.State {
		case "error":
			label = "error"
		case "read":
			label = "handle"
		}
		res := shorten(compactJSON(c.Result), callResultMax)
		if c.Cut && !strings.HasSuffix(res, "…") {
			res += "…"
		}
		b.WriteString("  " + label + ": " + res + "\n")
	}
	return b.String()
}

// compactJSON is JSON text on one line; other text with its line breaks
// written as "; ".
// argsLine is a call's arguments on one line: JSON compacted, and a
// preview cut where it says (indented JSON, whose line breaks and indents
// are the preview's own) with its lines' indents dropped.
func argsLine(s string) string {
	var b bytes.Buffer
	if json.Compact(&b, []byte(s)) == nil {
		return b.String()
	}
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimLeft(l, " ")
	}
	return strings.Join(lines, " ")
}

func compactJSON(s string) string {
	var b bytes.Buffer
	if json.Compact(&b, []byte(s)) == nil {
		return b.String()
	}
	return oneLine(s)
}
