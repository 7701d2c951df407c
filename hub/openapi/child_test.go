package openapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"capabilities.sh/capabilities/internal/hubtest"
)

// childEnv makes the test binary the parser child (TestMain): "serve" runs
// ServeChild on its stdin, "crash" panics, "garbage" writes a line that is
// not the encoding, "trailing" goes on writing after the end line.
const childEnv = "OPENAPI_TEST_CHILD"

func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "":
		os.Exit(m.Run())
	case "serve":
		if err := ServeChild(os.Stdin, os.Stdout, os.Args[len(os.Args)-1]); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	case "crash":
		panic("the parser child crashed on purpose")
	case "garbage":
		fmt.Println(`{"format":"something else","version":7}`)
	case "trailing":
		fmt.Printf("{\"format\":%q,\"version\":%d}\n", childFormat, childVersion)
		fmt.Println(`{"end":{"ops":0}}`)
		for { // more than a pipe holds, never ending
			fmt.Println(`{"end":{"ops":0}}`)
		}
	}
	os.Exit(0)
}

// childPeakBound bounds the child's peak RSS over the test's documents:
// GitHub's description peaks at about 330 MB.
const childPeakBound = 512 << 20

func testChild(mode string) *Child {
	c := &Child{Command: []string{os.Args[0]}, Env: []string{childEnv + "=" + mode}}
	if raceEnabled {
		c.MemoryBytes = 1 << 40
	}
	return c
}

func githubDoc(t testing.TB) string {
	p := filepath.Join(hubtest.RepoRoot(t), "testdata", "npm", "node_modules", "@octokit", "openapi", "generated", "api.github.com.json")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("GitHub's description (make test runs npm ci): %v", err)
	}
	return p
}

// TestChildParsesAsInProcess parses documents in a child and in this
// process: the tools (byte for byte, schemas included), the operations'
// requests, the security schemes, the server and the skipped operations
// are the same, and so is a document's problem.
func TestChildParsesAsInProcess(t *testing.T) {
	docs := []string{filepath.Join("testdata", "mixed.yaml"), filepath.Join("testdata", "signin.yaml"), filepath.Join("testdata", "broken.json")}
	if !testing.Short() {
		docs = append(docs, githubDoc(t))
	}
	for _, loc := range docs {
		t.Run(filepath.Base(loc), func(t *testing.T) {
			data, err := os.ReadFile(loc)
			if err != nil {
				t.Fatal(err)
			}
			want, wantErr := parseOpenAPI(loc, data)
			got, peak, gotErr := testChild("serve").parse(context.Background(), loc, data)
			if wantErr != nil {
				if gotErr == nil || gotErr.Error() != wantErr.Error() {
					t.Fatalf("the child's problem is %v, in process %v", gotErr, wantErr)
				}
				return
			}
			if gotErr != nil {
				t.Fatal(gotErr)
			}
			t.Logf("%s: %d operations; the child's peak RSS %.1f MB", loc, len(got.tools), float64(peak)/(1<<20))
			// GitHub's description peaks near 330 MB in the child.
			if peak > childPeakBound && !raceEnabled {
				t.Errorf("the child's peak RSS is %.1f MB, above %d MB", float64(peak)/(1<<20), childPeakBound>>20)
			}
			if len(got.tools) != len(want.tools) {
				t.Fatalf("the child gives %d tools, in process %d", len(got.tools), len(want.tools))
			}
			for i, w := range want.tools {
				g := got.tools[i]
				if !reflect.DeepEqual(g, w) {
					gb, _ := json.Marshal(g)
					wb, _ := json.Marshal(w)
					t.Fatalf("tool %d differs:\nchild:      %.600s\nin process: %.600s", i, gb, wb)
				}
				if !reflect.DeepEqual(got.ops[w.Name], want.ops[w.Name]) {
					t.Fatalf("operation %s differs:\nchild:      %+v\nin process: %+v", w.Name, got.ops[w.Name], want.ops[w.Name])
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("the documents differ beyond their tools and operations:\nchild:      server %q (%q) schemes %v skipped %q hash %s\nin process: server %q (%q) schemes %v skipped %q hash %s",
					got.server, got.serverProblem, got.schemes, got.skipped, got.hash, want.server, want.serverProblem, want.schemes, want.skipped, want.hash)
			}
		})
	}
}

// TestChildMemoryBound parses GitHub's description in a child bounded far
// below what its model needs: the parse fails, naming the document and
// the bound, and nothing of it is served. The same bound parses a small
// document.
func TestChildMemoryBound(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory counts in the bound")
	}
	c := testChild("serve")
	c.MemoryBytes = 128 << 20
	c.Env = append(c.Env, "GOMAXPROCS=1") // few threads, whose stacks count in the bound where cgo makes them
	small := filepath.Join("testdata", "mixed.yaml")
	data, err := os.ReadFile(small)
	if err != nil {
		t.Fatal(err)
	}
	if doc, _, err := c.parse(context.Background(), small, data); err != nil || len(doc.tools) != 2 {
		t.Fatalf("the bound leaves room for a small document: %v", err)
	}
	loc := githubDoc(t)
	if data, err = os.ReadFile(loc); err != nil {
		t.Fatal(err)
	}
	doc, _, err := c.parse(context.Background(), loc, data)
	var de *openapiDocError
	if doc != nil || !errors.As(err, &de) {
		t.Fatalf("a parse past its memory bound gives %v, %v", doc, err)
	}
	if want := loc + ": parsing it needed more than 128 MB, the limit of its parse's memory"; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("the error is %q, want it to start %q", err, want)
	}
}

// TestChildFailures: a child that crashes, or writes something else than
// the encoding, is the document's error, named, and not the hub's end.
func TestChildFailures(t *testing.T) {
	loc := filepath.Join("testdata", "mixed.yaml")
	data, err := os.ReadFile(loc)
	if err != nil {
		t.Fatal(err)
	}
	for mode, want := range map[string]string{
		"crash":    loc + ": its parser failed (exit status 2: panic: the parser child crashed on purpose)",
		"garbage":  loc + `: its parser wrote "{\"format\":\"something else\",\"version\":7}", not version ` + strconv.Itoa(childVersion) + ` of ` + childFormat,
		"trailing": loc + ": its parser wrote past the end of its operations",
	} {
		doc, _, err := testChild(mode).parse(context.Background(), loc, data)
		if doc != nil || err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v, want an error starting %q", mode, err, want)
		}
	}
}

// TestChildReadBounds reads encodings that break the rules: each is an
// error, never a document.
func TestChildReadBounds(t *testing.T) {
	header := fmt.Sprintf("{\"format\":%q,\"version\":%d}\n", childFormat, childVersion)
	op := func(name, path string) string {
		return `{"op":{"name":"` + name + `","input":{"type":"object"},"method":"GET","path":"` + path + `"}}` + "\n"
	}
	for name, in := range map[string]string{
		"no end":          header + op("a", "/a"),
		"a name twice":    header + op("a", "/a") + op("a", "/b"),
		"a count too low": header + op("a", "/a") + `{"end":{"ops":2}}` + "\n",
		"a dot segment":   header + op("a", "/a/../b") + `{"end":{"ops":1}}` + "\n",
		"no line break":   header + `{"end":{"ops":0}}`,
		"a long line":     header + `{"op":{"name":"` + strings.Repeat("x", maxChildLine) + `"}}` + "\n",
	} {
		if doc, err := readChild(strings.NewReader(in), "doc.json"); err == nil {
			t.Errorf("%s: read as %d tools", name, len(doc.tools))
		}
	}
	doc, err := readChild(strings.NewReader(header+op("a", "/a")+`{"end":{"ops":1,"server":"https://api.example.com"}}`+"\n"), "doc.json")
	if err != nil || len(doc.tools) != 1 || doc.ops["a"].path != "/a" || doc.server != "https://api.example.com" {
		t.Errorf("a well-formed encoding: %+v, %v", doc, err)
	}
}

// TestSourcesCheckInChild checks a document as the hub does with a child.
func TestSourcesCheckInChild(t *testing.T) {
	o := New(Options{Child: testChild("serve")})
	defer o.Close()
	ops, skipped, server, err := o.Check(context.Background(), filepath.Join("testdata", "mixed.yaml"))
	wops, wskipped, wserver, werr := Check(context.Background(), filepath.Join("testdata", "mixed.yaml"))
	if err != nil || werr != nil || ops != wops || !reflect.DeepEqual(skipped, wskipped) || server != wserver {
		t.Errorf("in a child: %d %q %q %v; in process: %d %q %q %v", ops, skipped, server, err, wops, wskipped, wserver, werr)
	}
}

// TestPackedTools packs a document's tools as Sources keeps them: they
// unpack to the same tools, byte for byte, in a fraction of the bytes.
func TestPackedTools(t *testing.T) {
	for _, loc := range []string{filepath.Join("testdata", "mixed.yaml"), githubDoc(t)} {
		data, err := os.ReadFile(loc)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := parseOpenAPI(loc, data)
		if err != nil {
			t.Fatal(err)
		}
		want := doc.tools
		if err := doc.pack(); err != nil {
			t.Fatal(err)
		}
		got, err := doc.listTools()
		if err != nil || doc.operations() != len(want) || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: %d tools unpack to %d (%v), not the same", loc, len(want), len(got), err)
		}
		var n int64
		for _, tl := range want {
			n += schemaBytes(tl)
		}
		t.Logf("%s: %d tools, schemas %d bytes, packed %d bytes", loc, len(want), n, len(doc.packed))
		if len(want) > 100 && int64(len(doc.packed)) > n/4 {
			t.Errorf("%s: packed in %d bytes, more than a quarter of the schemas' %d", loc, len(doc.packed), n)
		}
	}
}

// TestChildCache keeps what the child wrote for a document: the same
// document is read back without a child (one that would crash is not
// started), a corrupt file is parsed again and replaced, a changed
// document gets a file of its own, and the folder keeps its newest files.
func TestChildCache(t *testing.T) {
	loc := filepath.Join("testdata", "mixed.yaml")
	data, err := os.ReadFile(loc)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	c := testChild("serve")
	c.CacheDir = dir
	want, _, err := c.parse(context.Background(), loc, data)
	if err != nil {
		t.Fatal(err)
	}
	files := func() []string {
		m, _ := filepath.Glob(filepath.Join(dir, "*.ops"))
		return m
	}
	if len(files()) != 1 {
		t.Fatalf("the cache holds %q", files())
	}
	crash := testChild("crash")
	crash.CacheDir = dir
	got, _, err := crash.parse(context.Background(), loc, data)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("the same document read back: %v (same: %v)", err, reflect.DeepEqual(got, want))
	}
	if err := os.WriteFile(files()[0], []byte("not what the child wrote"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := crash.parse(context.Background(), loc, data); err == nil || !strings.Contains(err.Error(), "its parser failed") {
		t.Fatalf("a corrupt file is not served: %v", err)
	}
	if got, _, err = c.parse(context.Background(), loc, data); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("parsed again after a corrupt file: %v", err)
	}
	if got, _, err = crash.parse(context.Background(), loc, data); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("the file written again is read back: %v", err)
	}
	for i := range maxCacheFiles + 2 {
		changed := append(append([]byte{}, data...), fmt.Sprintf("\n# change %d\n", i)...)
		if _, _, err := c.parse(context.Background(), loc, changed); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(files()); n != maxCacheFiles {
		t.Errorf("the cache holds %d files, not its %d newest", n, maxCacheFiles)
	}
}
