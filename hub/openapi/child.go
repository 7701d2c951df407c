package openapi

// Documents parsed in a child process.
//
// libopenapi's model of a large document is far larger than what the hub
// keeps of it: GitHub's 13 MB description takes some 300 MB to parse into
// 11 MB of tools. With a Child in its Options, Sources never holds that
// model: a short-lived process (the hub's own executable, re-run with a
// hidden subcommand that calls ServeChild) reads the document on its
// stdin, parses it under a memory bound and writes the operations and
// tools to its stdout, in the encoding below, which the hub reads within
// bounds. A document that makes the parser crash, loop or grow only ends
// the child; the hub reports it as the document's problem.
//
// The encoding is JSON lines: a header naming the format and its version,
// then either one problem line (the document cannot be served) or one line
// per operation and an end line with the document's server, security
// schemes, skipped operations and the count of operation lines.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub/config"
)

// Child runs the parse of each document in a child process.
type Child struct {
	// Command is the child's program and arguments: the hub's executable
	// and the subcommand that calls ServeChild. The document's place is
	// appended after "--".
	Command []string
	// Env is the child's environment, besides GOMEMLIMIT, which the
	// child gets from MemoryBytes, and GOGC=200: a child lives for one
	// parse under that limit, and collecting half as often parses
	// GitHub's description about a tenth faster for a tenth more peak
	// (340 MB). The child inherits nothing else.
	Env []string
	// MemoryBytes bounds the child's memory (default DefaultChildMemory):
	// its Go heap's soft limit (GOMEMLIMIT) is three quarters of it, and
	// on Linux its data segment (RLIMIT_DATA) is capped at it, so a
	// document that needs more ends the child and fails, named.
	MemoryBytes int64
	// Timeout bounds one parse, from the child's start to its last line
	// (default DefaultChildTimeout).
	Timeout time.Duration
	// CacheDir, when set, keeps what the child wrote for each document
	// (cache.go), so the same document is not parsed again by the same
	// executable.
	CacheDir string
}

// DefaultChildMemory and DefaultChildTimeout are a Child's bounds when its
// options leave them zero. GitHub's 13 MB description peaks at about 250
// MB in the child and takes a few seconds on a loaded machine; a document
// near maxOpenAPIDocument (32 MB) of the same kind fits too.
const (
	DefaultChildMemory  = 1 << 30
	DefaultChildTimeout = 2 * time.Minute
)

// The encoding's bounds, as the hub reads it: one line holds one
// operation, whose schemas are at most maxOpenAPIOpSchemas and whose text
// comes from the document; the whole holds at most the document's
// schemas and text again.
const (
	childFormat    = "capabilities-openapi-operations"
	childVersion   = 4
	maxChildLine   = maxOpenAPIDocument + maxOpenAPIOpSchemas + 1<<20
	maxChildOutput = maxOpenAPIDocument + maxOpenAPIDocSchemas + 16<<20
	childStderr    = 4 << 10 // how much of the child's stderr is kept
)

// childHeader is the first line.
type childHeader struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
}

// childLine is every line after the header: one of its fields is set.
type childLine struct {
	Problem string    `json:"problem,omitempty"`
	Op      *childOp  `json:"op,omitempty"`
	End     *childEnd `json:"end,omitempty"`
}

// childOp is one operation: its tool and how a call sends it.
type childOp struct {
	Name         string               `json:"name"`
	Title        string               `json:"title,omitempty"`
	Description  string               `json:"description,omitempty"`
	Input        json.RawMessage      `json:"input"`
	Output       json.RawMessage      `json:"output,omitempty"`
	Annotations  *mcp.ToolAnnotations `json:"annotations,omitempty"`
	Method       string               `json:"method"`
	Path         string               `json:"path"`
	Server       string               `json:"server,omitempty"`
	Deprecated   bool                 `json:"deprecated,omitempty"`
	Params       []childParam         `json:"params,omitempty"`
	HasBody      bool                 `json:"hasBody,omitempty"`
	BodyRequired bool                 `json:"bodyRequired,omitempty"`
	BodyArg      string               `json:"bodyArg,omitempty"`
	BodyProps    []string             `json:"bodyProps,omitempty"`
	BodyType     string               `json:"bodyType,omitempty"`
	Form         []childParam         `json:"form,omitempty"`
	Security     [][]string           `json:"security,omitempty"`
}

type childParam struct {
	Name    string `json:"name"`
	Arg     string `json:"arg"`
	In      string `json:"in"`
	Style   string `json:"style"`
	Explode bool   `json:"explode,omitempty"`
	JSON    bool   `json:"json,omitempty"`
	// A multipart field's.
	File        bool   `json:"file,omitempty"`
	ContentType string `json:"contentType,omitempty"`
	Styled      bool   `json:"styled,omitempty"`
}

// childEnd is the last line.
type childEnd struct {
	Server        string        `json:"server,omitempty"`
	ServerProblem string        `json:"serverProblem,omitempty"`
	Schemes       []childScheme `json:"schemes,omitempty"`
	Skipped       []string      `json:"skipped,omitempty"`
	Untyped       int           `json:"untyped,omitempty"`
	Ops           int           `json:"ops"`
}

type childScheme struct {
	Name string `json:"name"`
	Type string `json:"type"`
	In   string `json:"in,omitempty"`
	Key  string `json:"key,omitempty"`
	HTTP string `json:"http,omitempty"`
	// An oauth2 scheme's authorization code flow, an openIdConnect
	// scheme's discovery URL, and the scopes the operations ask for.
	AuthURL  string   `json:"authUrl,omitempty"`
	TokenURL string   `json:"tokenUrl,omitempty"`
	OIDCURL  string   `json:"oidcUrl,omitempty"`
	Scopes   []string `json:"scopes,omitempty"`
	// ClientTokenURL is a client credentials flow's token URL.
	ClientTokenURL string `json:"clientTokenUrl,omitempty"`
}

// ServeChild is the child's side: it reads one document (at most
// maxOpenAPIDocument bytes) from in, parses it as the hub would, and writes
// what the hub keeps of it to out. loc is the document's file or URL, for
// its messages and to resolve a relative server URL. A document that cannot
// be served is written as a problem line; the error is for what could not
// be read or written.
func ServeChild(in io.Reader, out io.Writer, loc string) error {
	data, err := readDocument(in, loc, -1)
	if err != nil {
		return err
	}
	doc, err := parseOpenAPI(loc, data)
	return writeChild(out, doc, err)
}

// writeChild writes doc, or the problem of err, in the encoding.
func writeChild(out io.Writer, doc *openapiDoc, perr error) error {
	bw := bufio.NewWriterSize(out, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(childHeader{Format: childFormat, Version: childVersion}); err != nil {
		return err
	}
	if perr != nil {
		problem := perr.Error()
		var de *openapiDocError
		if errors.As(perr, &de) {
			problem = de.Problem
		}
		if err := enc.Encode(childLine{Problem: problem}); err != nil {
			return err
		}
		return bw.Flush()
	}
	for _, t := range doc.tools {
		o := doc.ops[t.Name]
		co := &childOp{Name: t.Name, Title: t.Title, Description: t.Description, Annotations: t.Annotations,
			Method: o.method, Path: o.path, Server: o.server, Deprecated: o.deprecated,
			HasBody: o.hasBody, BodyRequired: o.bodyRequired, BodyArg: o.bodyArg, BodyProps: o.bodyProps, BodyType: o.bodyType,
			Security: o.security}
		co.Input, _ = t.InputSchema.(json.RawMessage)
		co.Output, _ = t.OutputSchema.(json.RawMessage)
		for _, p := range o.params {
			co.Params = append(co.Params, childParam{Name: p.name, Arg: p.arg, In: p.in, Style: p.style, Explode: p.explode, JSON: p.json})
		}
		for _, p := range o.form {
			co.Form = append(co.Form, childParam{Name: p.name, Arg: p.arg, In: p.in, Style: p.style, Explode: p.explode, JSON: p.json,
				File: p.file, ContentType: p.contentType, Styled: p.styled})
		}
		if err := enc.Encode(childLine{Op: co}); err != nil {
			return err
		}
	}
	end := &childEnd{Server: doc.server, ServerProblem: doc.serverProblem, Skipped: doc.skipped, Untyped: doc.untyped, Ops: len(doc.tools)}
	for _, s := range doc.schemes {
		end.Schemes = append(end.Schemes, childScheme{Name: s.name, Type: s.typ, In: s.in, Key: s.key, HTTP: s.http,
			AuthURL: s.authURL, TokenURL: s.tokenURL, OIDCURL: s.oidcURL, Scopes: s.scopes, ClientTokenURL: s.clientTokenURL})
	}
	if err := enc.Encode(childLine{End: end}); err != nil {
		return err
	}
	return bw.Flush()
}

// errCutShort is output that ends within a line: the child ended early.
var errCutShort = errors.New("its parser's last line is cut short")

// readChild reads the encoding from r into a document, within the bounds
// above; loc names the document in its errors.
func readChild(r io.Reader, loc string) (*openapiDoc, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var total int64
	line := func() ([]byte, error) {
		var buf []byte
		for {
			chunk, err := br.ReadSlice('\n')
			total += int64(len(chunk))
			if total > maxChildOutput {
				return nil, fmt.Errorf("its parser wrote more than %d MB", maxChildOutput>>20)
			}
			if len(buf)+len(chunk) > maxChildLine {
				return nil, fmt.Errorf("its parser wrote a line longer than %d MB", maxChildLine>>20)
			}
			buf = append(buf, chunk...)
			switch {
			case err == nil:
				return buf, nil
			case errors.Is(err, bufio.ErrBufferFull):
				continue
			case errors.Is(err, io.EOF) && len(buf) == 0:
				return nil, io.ErrUnexpectedEOF
			case errors.Is(err, io.EOF):
				return nil, errCutShort
			default:
				return nil, err
			}
		}
	}
	first, err := line()
	if err != nil {
		return nil, err
	}
	var h childHeader
	if err := json.Unmarshal(first, &h); err != nil || h.Format != childFormat || h.Version != childVersion {
		return nil, fmt.Errorf("its parser wrote %s, not version %d of %s", quoteStart(first), childVersion, childFormat)
	}
	doc := &openapiDoc{ops: map[string]*openapiOp{}, schemes: map[string]*openapiScheme{}}
	for {
		b, err := line()
		if err != nil {
			return nil, err
		}
		var l childLine
		if err := json.Unmarshal(b, &l); err != nil {
			return nil, fmt.Errorf("its parser wrote a line that does not decode: %v", err)
		}
		switch {
		case l.Problem != "":
			return nil, &openapiDocError{Loc: loc, Problem: l.Problem}
		case l.Op != nil:
			if err := addChildOp(doc, l.Op); err != nil {
				return nil, err
			}
		case l.End != nil:
			if l.End.Ops != len(doc.tools) {
				return nil, fmt.Errorf("its parser wrote %d operations and counted %d", len(doc.tools), l.End.Ops)
			}
			doc.server, doc.serverProblem, doc.skipped, doc.untyped = l.End.Server, l.End.ServerProblem, l.End.Skipped, l.End.Untyped
			for _, s := range l.End.Schemes {
				if len(s.Scopes) > maxSchemeScopes {
					return nil, fmt.Errorf("its parser wrote %d scopes of scheme %q", len(s.Scopes), s.Name)
				}
				doc.schemes[s.Name] = &openapiScheme{name: s.Name, typ: s.Type, in: s.In, key: s.Key, http: s.HTTP,
					authURL: absoluteURL(s.AuthURL), tokenURL: absoluteURL(s.TokenURL), oidcURL: absoluteURL(s.OIDCURL), scopes: s.Scopes,
					clientTokenURL: absoluteURL(s.ClientTokenURL)}
			}
			return doc, nil
		default:
			return nil, fmt.Errorf("its parser wrote an empty line")
		}
	}
}

// addChildOp adds one operation line to doc, checked as the parse checks
// it: a name used once, a method, a path template the calls can fill,
// schemas that are JSON objects within maxOpenAPIOpSchemas.
func addChildOp(doc *openapiDoc, co *childOp) error {
	switch {
	case co.Name == "" || doc.ops[co.Name] != nil:
		return fmt.Errorf("its parser wrote an operation named %q twice or not at all", co.Name)
	case co.Method == "" || strings.ToUpper(co.Method) != co.Method:
		return fmt.Errorf("its parser wrote operation %q with the method %q", co.Name, co.Method)
	case pathTemplateProblem(co.Path) != "":
		return fmt.Errorf("its parser wrote operation %q with the path %q", co.Name, co.Path)
	case len(co.Input) == 0 || co.Input[0] != '{' || (len(co.Output) > 0 && co.Output[0] != '{'):
		return fmt.Errorf("its parser wrote operation %q with a schema that is not an object", co.Name)
	case len(co.Form) > 0 && (co.BodyType != formMedia && co.BodyType != multipartMedia || len(co.Form) != len(co.BodyProps)):
		return fmt.Errorf("its parser wrote operation %q with form fields for a body that is no form of those fields", co.Name)
	case len(co.Input)+len(co.Output) > maxOpenAPIOpSchemas:
		return fmt.Errorf("its parser wrote operation %q with schemas above %s", co.Name, config.HumanBytes(maxOpenAPIOpSchemas))
	}
	tool := &mcp.Tool{Name: co.Name, Title: co.Title, Description: co.Description, InputSchema: co.Input, Annotations: co.Annotations}
	if co.Output != nil {
		tool.OutputSchema = co.Output
	}
	o := &openapiOp{method: co.Method, path: co.Path, server: co.Server, deprecated: co.Deprecated,
		hasBody: co.HasBody, bodyRequired: co.BodyRequired, bodyArg: co.BodyArg, bodyProps: co.BodyProps, bodyType: co.BodyType,
		security: co.Security}
	for _, p := range co.Params {
		o.params = append(o.params, openapiParam{name: p.Name, arg: p.Arg, in: p.In, style: p.Style, explode: p.Explode, json: p.JSON})
	}
	for _, p := range co.Form {
		o.form = append(o.form, openapiParam{name: p.Name, arg: p.Arg, in: p.In, style: p.Style, explode: p.Explode, json: p.JSON,
			file: p.File, contentType: p.ContentType, styled: p.Styled})
	}
	doc.tools = append(doc.tools, tool)
	doc.ops[co.Name] = o
	return nil
}

// quoteStart quotes the start of b, for a message.
func quoteStart(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > 80 {
		b = b[:80]
	}
	return strconv.Quote(string(b))
}

// parse runs the child on data, read from loc, and returns the document
// and the child's peak resident memory in bytes (0 where the system does
// not say). ctx ends the child early.
func (c *Child) parse(ctx context.Context, loc string, data []byte) (*openapiDoc, int64, error) {
	if len(c.Command) == 0 {
		return nil, 0, errors.New("openapi: Child.Command is empty")
	}
	mem := c.MemoryBytes
	if mem <= 0 {
		mem = DefaultChildMemory
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultChildTimeout
	}
	file := c.cacheFile(loc, data)
	if file != "" {
		if doc := cached(file, loc); doc != nil {
			doc.hash = hashOf(data)
			return doc, 0, nil
		}
	}
	pctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	args := append(append([]string{}, c.Command[1:]...), "--", loc)
	cmd := exec.CommandContext(pctx, c.Command[0], args...)
	cmd.Env = append(append([]string{}, c.Env...), "GOMEMLIMIT="+strconv.FormatInt(mem/4*3, 10), "GOGC=200")
	cmd.WaitDelay = 5 * time.Second
	stderr := &headBuffer{max: childStderr}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, 0, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, 0, err
	}
	if err := cmd.Start(); err != nil {
		return nil, 0, &openapiDocError{Loc: loc, Problem: "its parser did not start: " + oneLineErr(err)}
	}
	// The bound is in place before the child has a byte to parse.
	if err := limitChild(cmd.Process.Pid, mem); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return nil, 0, fmt.Errorf("bounding the parser's memory: %w", err)
	}
	go func() {
		stdin.Write(data)
		stdin.Close()
	}()
	doc, rerr := readChild(stdout, loc)
	if rerr == nil {
		// The end line ends the output: anything after it is not the
		// encoding, and a child that waits to write it never ends.
		if n, _ := io.ReadFull(stdout, make([]byte, 1)); n > 0 {
			rerr = errors.New("its parser wrote past the end of its operations")
		}
	}
	if rerr != nil {
		// What the child writes after a problem is not read: it ends now.
		cmd.Process.Kill()
	}
	werr := cmd.Wait()
	peak := childPeak(cmd.ProcessState)
	var de *openapiDocError
	switch {
	case errors.As(rerr, &de):
		return nil, peak, rerr
	case ctx.Err() != nil:
		return nil, peak, ctx.Err()
	case pctx.Err() != nil:
		return nil, peak, &openapiDocError{Loc: loc, Problem: fmt.Sprintf("parsing it took longer than %v, the limit of its parse; nothing of it is served", timeout)}
	case outOfMemory(stderr.String()):
		return nil, peak, &openapiDocError{Loc: loc, Problem: fmt.Sprintf("parsing it needed more than %d MB, the limit of its parse's memory; nothing of it is served", mem>>20)}
	case rerr != nil && !errors.Is(rerr, io.ErrUnexpectedEOF) && !errors.Is(rerr, errCutShort):
		// The child wrote something else than the encoding, and was
		// stopped for it.
		return nil, peak, &openapiDocError{Loc: loc, Problem: oneLineErr(rerr) + "; nothing of it is served"}
	case werr != nil:
		why := oneLineErr(werr)
		if first := stderr.firstLine(); first != "" {
			why += ": " + first
		}
		return nil, peak, &openapiDocError{Loc: loc, Problem: "its parser failed (" + why + "); nothing of it is served"}
	case rerr != nil:
		return nil, peak, &openapiDocError{Loc: loc, Problem: oneLineErr(rerr) + "; nothing of it is served"}
	}
	doc.hash = hashOf(data)
	if file != "" {
		keep(file, doc)
	}
	return doc, peak, nil
}

// outOfMemory reports whether a child's stderr says its memory ran out:
// a Go runtime's fatal error when an allocation hits the bound ("out of
// memory", "out of memory allocating heap arena metadata", "cannot
// allocate memory").
func outOfMemory(stderr string) bool {
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "fatal error:") && (strings.Contains(l, "out of memory") || strings.Contains(l, "cannot allocate memory")) {
			return true
		}
	}
	return false
}

// headBuffer keeps the first max bytes written to it.
type headBuffer struct {
	max int
	b   bytes.Buffer
}

func (h *headBuffer) Write(p []byte) (int, error) {
	if room := h.max - h.b.Len(); room > 0 {
		h.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (h *headBuffer) String() string { return h.b.String() }

// firstLine is the first line that is not empty, capped.
func (h *headBuffer) firstLine() string {
	for _, l := range strings.Split(h.b.String(), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return oneLineErr(errors.New(l))
		}
	}
	return ""
}

// parseDocument parses a document as o's options say (Child.parseDocument).
func (o *Sources) parseDocument(ctx context.Context, loc string, data []byte) (*openapiDoc, int64, error) {
	return o.opts.Child.parseDocument(ctx, loc, data)
}

// parseDocument parses a document in c's child process, or in this
// process when c is nil; the child's peak RSS comes with it (0 in process).
func (c *Child) parseDocument(ctx context.Context, loc string, data []byte) (*openapiDoc, int64, error) {
	if c != nil {
		return c.parse(ctx, loc, data)
	}
	doc, err := parseOpenAPI(loc, data)
	return doc, 0, err
}
