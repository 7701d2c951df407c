package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub"
	"capabilities.sh/capabilities/hub/config"
	"capabilities.sh/capabilities/internal/hubtest"
)

// TestOpenAPIOverMCP drives a petstore source through the hub's MCP server
// with the go-sdk client: search, a GET through execute, and a DELETE that
// asks.
func TestOpenAPIOverMCP(t *testing.T) {
	prism := startPrism(t, petstoreDoc(t))
	home := t.TempDir()
	saveConfig(t, home, &config.Config{Sources: map[string]*config.Source{"petstore": {OpenAPI: petstoreDoc(t), BaseURL: prism.URL}}, Policy: map[string]config.Mode{}})
	h := openHub(t, home, hub.Options{Keychain: &hubtest.MemKeychain{M: map[string]string{}}})
	if errs := h.Refresh(context.Background()); errs["petstore"] != nil {
		t.Fatalf("refresh petstore: %v", errs["petstore"])
	}
	cs := connect(t, h, "2025-11-25", nil)
	ctx := context.Background()
	call := func(tool string, args map[string]any) (string, map[string]any) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		var text string
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text += tc.Text
			}
		}
		var sc map[string]any
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			json.Unmarshal(b, &sc)
		}
		return text, sc
	}
	text, _ := call("search", map[string]any{"query": "order by id", "namespace": "petstore"})
	if !strings.Contains(text, "petstore.getOrderById(input: { orderId: number }): Promise<Order>") || !strings.Contains(text, "petstore.deleteOrder(input: { orderId: number }): Promise<unknown>   [asks]") {
		t.Errorf("search over MCP:\n%s", text)
	}
	_, sc := call("execute", map[string]any{"code": `return (await petstore.getOrderById({ orderId: 2 })).status;`})
	if sc["status"] != "completed" || sc["result"] == nil {
		t.Errorf("GET over MCP: %v", sc)
	}
	_, sc = call("execute", map[string]any{"code": `return await petstore.deleteOrder({ orderId: 2 });`})
	if sc["status"] != "awaiting_approval" {
		t.Errorf("DELETE over MCP asks: %v", sc)
	}
	if slices.Contains(prism.requests(), "delete /store/order/2") {
		t.Errorf("the DELETE was sent before approval")
	}
}

// prismMock is a Prism mock server validating requests against a
// document.
type prismMock struct {
	URL string
	mu  sync.Mutex
	log []string
}

// requests returns the request lines Prism logged ("get /pet/1").
func (p *prismMock) requests() []string {
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

// startPrism runs `prism mock --errors doc` on a free loopback port and
// waits until it listens.
func startPrism(t testing.TB, doc string) *prismMock {
	t.Helper()
	bin := filepath.Join(hubtest.RepoRoot(t), "testdata", "npm", "node_modules", ".bin", "prism")
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
	p := &prismMock{URL: fmt.Sprintf("http://127.0.0.1:%d", port)}
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

func petstoreDoc(t testing.TB) string {
	return filepath.Join(hubtest.RepoRoot(t), "testdata", "npm", "node_modules", "@readme", "oas-examples", "3.0", "json", "petstore.json")
}
