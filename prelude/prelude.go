// Package prelude holds the guest JavaScript that every sandbox driver loads
// before a person's code runs.
//
// The prelude is a short list of files under js/, embedded into the binary.
// Each file is one function expression,
//
//	(function (bridge, cfg, internal) { ... })
//
// that the sandbox compiles once per process and calls in order on every
// fresh runtime. Runtimes are prepared ahead of the run that will use them,
// so nothing here may depend on the run:
//
//   - bridge holds the native functions the sandbox provides (tool calls,
//     logs, timers, the seeded random source, limits). The prelude captures
//     them in closures; no global refers to bridge once the prelude is done.
//     They read the run's seed, clock and host when called, not before.
//   - cfg holds the default size caps the guards enforce, as plain JSON-like
//     values.
//   - internal is an object the prelude fills for the sandbox's own use:
//     the guarded JSON.parse and JSON.stringify, the ToolError factory,
//     planning's placeholders and symbolic JSON, and the two functions
//     that adapt a prepared runtime to its run, configure (the run's size
//     caps) and installNamespaces (the run's tool namespaces, once).
//
// 10_guards.js wraps native built-ins that could allocate or loop without
// returning to JavaScript; 15_plan.js makes the placeholders a planned call
// resolves to and writes them as symbolic JSON; 20_globals.js defines the
// guest's globals; 30_lockdown.js removes run-time compilation and the
// globals the sandbox does not offer. The order matters and is the lexical
// order of the names.
package prelude

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"sort"
)

//go:embed js/*.js
var files embed.FS

// File is one prelude source file.
type File struct {
	Name   string // path inside the package, for example "js/10_guards.js"
	Source string
}

// Files returns the prelude sources in load order.
func Files() []File {
	names, err := fs.Glob(files, "js/*.js")
	if err != nil {
		panic("prelude: bad embed pattern: " + err.Error())
	}
	sort.Strings(names)
	out := make([]File, 0, len(names))
	for _, n := range names {
		b, err := files.ReadFile(n)
		if err != nil {
			panic("prelude: reading embedded " + n + ": " + err.Error())
		}
		out = append(out, File{Name: n, Source: string(b)})
	}
	return out
}

// Hash identifies the prelude sources: the hex SHA-256 of every file's name
// and contents in load order. Journals record it so a replay can tell that
// the guest environment changed.
func Hash() string {
	h := sha256.New()
	for _, f := range Files() {
		h.Write([]byte(f.Name))
		h.Write([]byte{0})
		h.Write([]byte(f.Source))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}
