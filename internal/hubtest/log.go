package hubtest

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
)

// LogBuffer collects a logger's output; safe for concurrent use.
type LogBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *LogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *LogBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Levels returns the level and message ("WARN listing tools failed") of
// each text-handler line written since the last call, and forgets them.
func (b *LogBuffer) Levels() []string {
	b.mu.Lock()
	text := b.buf.String()
	b.buf.Reset()
	b.mu.Unlock()
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		if line == "" {
			continue
		}
		lvl, msg := "", ""
		for _, f := range []string{"level=", "msg="} {
			i := strings.Index(line, f)
			if i < 0 {
				continue
			}
			v := line[i+len(f):]
			if strings.HasPrefix(v, `"`) {
				v = v[1 : strings.Index(v[1:], `"`)+1]
			} else if j := strings.IndexByte(v, ' '); j >= 0 {
				v = v[:j]
			}
			if f == "level=" {
				lvl = v
			} else {
				msg = v
			}
		}
		out = append(out, lvl+" "+msg)
	}
	return out
}

// DebugLogger logs everything, debug level included, into a buffer.
func DebugLogger() (*slog.Logger, *LogBuffer) {
	b := &LogBuffer{}
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug})), b
}
