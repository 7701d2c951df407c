// Command crosscheck type-checks packages, with everything they import, as
// they build for other systems and architectures: the files each target's
// build constraints select (go list -deps), parsed and checked from source
// with go/types, without compiling them. make test runs it over the
// headless build for every release target, in seconds a target where a
// cross-compile takes minutes from a cold cache (modernc.org/sqlite is
// compiled anew for each); make cross-all compiles them.
//
//	go run ./internal/crosscheck -tags headless linux/arm64 windows/amd64 -- ./...
//
// It exits 1 when a target has errors, each printed with its position.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

func main() {
	tags := flag.String("tags", "", "build tags, comma-separated")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: crosscheck [-tags TAGS] GOOS/GOARCH... [-- PATTERN...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	targets, patterns := flag.Args(), []string{"./..."}
	if i := slices.Index(targets, "--"); i >= 0 {
		targets, patterns = targets[:i], targets[i+1:]
	}
	if len(targets) == 0 {
		flag.Usage()
		os.Exit(2)
	}
	failed := false
	for _, t := range targets {
		errs, err := check(".", t, *tags, patterns)
		if err != nil {
			fmt.Fprintf(os.Stderr, "crosscheck %s: %v\n", t, err)
			os.Exit(2)
		}
		fmt.Printf("type-check (CGO_ENABLED=0, tags %q) %s: %d errors\n", *tags, t, len(errs))
		for _, e := range errs {
			fmt.Println("  " + e)
		}
		failed = failed || len(errs) > 0
	}
	if failed {
		os.Exit(1)
	}
}

// listed is what go list says of one package.
type listed struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	ImportMap  map[string]string
	Error      *struct{ Err string }
}

// check type-checks the packages of patterns in dir, and all they import,
// for target (GOOS/GOARCH) without cgo, and returns their errors.
func check(dir, target, tags string, patterns []string) ([]string, error) {
	goos, goarch, ok := strings.Cut(target, "/")
	if !ok || goos == "" || goarch == "" {
		return nil, fmt.Errorf("target %q is not GOOS/GOARCH", target)
	}
	args := []string{"list", "-e", "-deps", "-json=ImportPath,Dir,GoFiles,ImportMap,Error"}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	cmd := exec.Command("go", append(args, patterns...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	// go list -deps lists every package after the ones it imports.
	var errs []string
	checked := map[string]*types.Package{"unsafe": types.Unsafe}
	fset := token.NewFileSet()
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("reading go list: %v", err)
		}
		if p.Error != nil {
			errs = append(errs, p.Error.Err)
			continue
		}
		if p.ImportPath == "unsafe" {
			continue
		}
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				errs = append(errs, err.Error())
				continue
			}
			files = append(files, f)
		}
		conf := types.Config{
			Importer: importerFunc(func(path string) (*types.Package, error) {
				if mapped, ok := p.ImportMap[path]; ok {
					path = mapped
				}
				if pkg := checked[path]; pkg != nil {
					return pkg, nil
				}
				return nil, fmt.Errorf("%s is not among the packages go list gave", path)
			}),
			Error: func(err error) { errs = append(errs, err.Error()) },
		}
		pkg, _ := conf.Check(p.ImportPath, fset, files, nil)
		checked[p.ImportPath] = pkg
	}
	return errs, nil
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }
