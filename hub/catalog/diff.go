package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// DiffKind says what a line of a definition diff is.
type DiffKind int

const (
	DiffSame    DiffKind = iota // in both definitions
	DiffRemoved                 // only in the accepted one
	DiffAdded                   // only in the current one
	DiffElided                  // a note standing for unchanged lines left out
)

// DiffLine is one line of a definition diff, as shown: "  " before a line
// in both, "- " before one removed, "+ " before one added, and
// "  … 12 unchanged lines" for a run left out.
type DiffLine struct {
	Text string
	Kind DiffKind
}

// maxDiffCells bounds the work of a diff: definitions whose differing
// middles are longer than this (lines × lines) are shown as removed and
// added whole.
const maxDiffCells = 1 << 22

// DefinitionLines is a definition (JSON) as lines to compare, indented
// two spaces a level; nil when def is empty. A changed tool's definitions
// come in canonical form (sorted keys: Tool.PinnedDefinition,
// DefinitionJSON), so two of them line up.
func DefinitionLines(def []byte) []string {
	if len(bytes.TrimSpace(def)) == 0 {
		return nil
	}
	var b bytes.Buffer
	if err := json.Indent(&b, def, "", "  "); err != nil {
		return strings.Split(string(def), "\n")
	}
	return strings.Split(b.String(), "\n")
}

// DiffLines is the line diff of a and b, by their longest common
// subsequence, keeping context unchanged lines around each change and
// standing for longer runs of them with one note.
func DiffLines(a, b []string, context int) []DiffLine {
	ops := diffOps(a, b)
	keep := make([]bool, len(ops))
	for i, op := range ops {
		if op.Kind != DiffSame {
			for j := max(0, i-context); j <= min(len(ops)-1, i+context); j++ {
				keep[j] = true
			}
		}
	}
	var out []DiffLine
	for i := 0; i < len(ops); {
		if keep[i] {
			out = append(out, ops[i])
			i++
			continue
		}
		j := i
		for j < len(ops) && !keep[j] {
			j++
		}
		n := fmt.Sprintf("%d unchanged lines", j-i)
		if j-i == 1 {
			n = "1 unchanged line"
		}
		out = append(out, DiffLine{"  … " + n, DiffElided})
		i = j
	}
	return out
}

// diffOps is the whole line diff of a and b, every line marked. The lines
// both start and end with are set aside first: a definition changes in a
// few places, so the table of the rest is small.
func diffOps(a, b []string) []DiffLine {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	var out []DiffLine
	for _, l := range a[:pre] {
		out = append(out, DiffLine{"  " + l, DiffSame})
	}
	out = append(out, middleOps(a[pre:len(a)-suf], b[pre:len(b)-suf])...)
	for _, l := range a[len(a)-suf:] {
		out = append(out, DiffLine{"  " + l, DiffSame})
	}
	return out
}

// middleOps is the line diff of a and b by their longest common
// subsequence.
func middleOps(a, b []string) []DiffLine {
	del := func(l string) DiffLine { return DiffLine{"- " + l, DiffRemoved} }
	add := func(l string) DiffLine { return DiffLine{"+ " + l, DiffAdded} }
	var out []DiffLine
	if len(a)*len(b) > maxDiffCells {
		for _, l := range a {
			out = append(out, del(l))
		}
		for _, l := range b {
			out = append(out, add(l))
		}
		return out
	}
	// lcs[i][j] is the longest common subsequence of a[i:] and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			out = append(out, DiffLine{"  " + a[i], DiffSame})
			i++
			j++
		case lcs[i+1][j] >= lcs[i][j+1]:
			out = append(out, del(a[i]))
			i++
		default:
			out = append(out, add(b[j]))
			j++
		}
	}
	for ; i < len(a); i++ {
		out = append(out, del(a[i]))
	}
	for ; j < len(b); j++ {
		out = append(out, add(b[j]))
	}
	return out
}
