package hubtest

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// OpenAPI documents and APIs for the tests of the OpenAPI sources, the
// heart and the app: Prism's mock of a document, the petstore, and hostile
// documents that hit the bounds of one.

// Prism is a Prism mock server validating requests against a
// document.
type Prism struct {
	URL string
	mu  sync.Mutex
	log []string
}

// Requests returns the request lines Prism logged ("get /pet/1").
func (p *Prism) Requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, l := range p.log {
		if _, rest, ok := strings.Cut(l, "[HTTP SERVER] "); ok {
			if i := strings.Index(rest, " ℹ"); i > 0 {
				out = append(out, rest[:i])
			}
		}
	}
	return out
}

// StartPrism runs `prism mock --errors doc` on a free loopback port and
// waits until it listens.
func StartPrism(t testing.TB, doc string) *Prism {
	t.Helper()
	bin := filepath.Join(RepoRoot(t), "testdata", "npm", "node_modules", ".bin", "prism")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("prism is not installed in testdata/npm: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "mock", "-h", "127.0.0.1", "-p", fmt.Sprint(port), "--errors", doc)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &Prism{URL: fmt.Sprintf("http://127.0.0.1:%d", port)}
	ready := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(out)
		once := sync.Once{}
		for sc.Scan() {
			line := sc.Text()
			p.mu.Lock()
			p.log = append(p.log, line)
			p.mu.Unlock()
			if strings.Contains(line, "Prism is listening on") {
				once.Do(func() { close(ready) })
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		<-done
	})
	select {
	case <-ready:
	case <-done:
		t.Fatalf("prism exited before listening: %s", strings.Join(p.log, "\n"))
	case <-time.After(90 * time.Second):
		t.Fatalf("prism did not listen within 90s: %s", strings.Join(p.log, "\n"))
	}
	return p
}

// PetstoreDoc is the path of the OpenAPI 3.0 petstore of
// @readme/oas-examples in testdata/npm.
func PetstoreDoc(t testing.TB) string {
	return filepath.Join(RepoRoot(t), "testdata", "npm", "node_modules", "@readme", "oas-examples", "3.0", "json", "petstore.json")
}

// DeepSchemaDoc is a document whose one component nests n objects.
func DeepSchemaDoc(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"servers":[{"url":"http://127.0.0.1:9"}],"paths":{"/x":{"post":{"operationId":"x","requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/Deep"}}}},"responses":{"200":{"description":"ok"}}}}},"components":{"schemas":{"Deep":`)
	for range n {
		b.WriteString(`{"type":"object","properties":{"a":`)
	}
	b.WriteString(`{"type":"string"}`)
	for range n {
		b.WriteString(`}}`)
	}
	b.WriteString(`}}}`)
	return []byte(b.String())
}

// SharedSchemaDoc is a document with ops operations that each take and
// return one shared component of about kb KB: small as a document, each
// operation's schemas hold the component whole.
func SharedSchemaDoc(ops, kb int) []byte {
	var b strings.Builder
	b.WriteString(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"servers":[{"url":"http://127.0.0.1:9"}],"paths":{`)
	for i := range ops {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"/op%d":{"post":{"operationId":"op%d","requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/Big"}}}},"responses":{"200":{"description":"ok"}}}}`, i, i)
	}
	b.WriteString(`},"components":{"schemas":{"Big":{"type":"object","properties":{`)
	for i := range kb * 1024 / 64 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%05d":{"type":"string","description":"%s"}`, i, strings.Repeat("x", 24))
	}
	b.WriteString(`}}}}}`)
	return []byte(b.String())
}

// RaceScaled is an allocation bound as the race detector sees it: its
// instrumentation makes the same parse allocate about 1.8 times as much
// (the hostile home: 346 MB without it, 611 MB with it), so the bound
// doubles. Without the document bounds these parses allocate gigabytes.
func RaceScaled(n uint64) uint64 {
	if RaceEnabled {
		return 2 * n
	}
	return n
}
