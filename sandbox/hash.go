package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"runtime/debug"
	"sync"

	"capabilities.sh/capabilities/prelude"
)

// engineVersion changes whenever the sandbox changes guest-visible
// behaviour outside the prelude: the wrapper, the event loop's ordering,
// the natives, the protocol.
const engineVersion = "sandbox/2"

// EngineHash identifies the engine a run executes on: the sandbox's own
// version and the goja and esbuild module versions. Journals record it so a
// replay can tell that the engine changed under a run.
func EngineHash() string { return engineHash() }

var engineHash = sync.OnceValue(func() string {
	h := sha256.New()
	h.Write([]byte(engineVersion))
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			switch dep.Path {
			case "github.com/dop251/goja", "github.com/evanw/esbuild", "github.com/dlclark/regexp2/v2":
				h.Write([]byte("\x00" + dep.Path + "@" + dep.Version))
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
})

// PreludeHash identifies the guest prelude (see package prelude).
func PreludeHash() string { return preludeHash() }

var preludeHash = sync.OnceValue(func() string { return prelude.Hash()[:16] })
