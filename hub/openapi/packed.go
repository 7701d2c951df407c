package openapi

// A loaded document's tools, packed.
//
// Sources keeps the tools of each loaded document only to list them again
// when the catalog asks (the catalog keeps its own copy, from the store).
// Kept as they are, GitHub's take some 8 MB, most of it the same shared
// schemas written into many operations; packed (the child's operation
// lines, compressed) they take about a tenth of that, and a listing
// unpacks them.

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// pack replaces doc's tools with their packed form. It is called once,
// before the document is shared. Each tool is its fields one after the
// other, each its length (a uvarint, one more than the length, 0 for
// none) and its bytes: the schemas are copied as they are, with no JSON
// to write or read again.
func (d *openapiDoc) pack() error {
	var b bytes.Buffer
	zw, err := flate.NewWriter(&b, flate.BestSpeed)
	if err != nil {
		return err
	}
	size := 0
	var head [binary.MaxVarintLen64]byte
	field := func(f []byte, present bool) error {
		n := uint64(0)
		if present {
			n = uint64(len(f)) + 1
		}
		k := binary.PutUvarint(head[:], n)
		size += k + len(f)
		if _, err := zw.Write(head[:k]); err != nil {
			return err
		}
		_, err := zw.Write(f)
		return err
	}
	for _, t := range d.tools {
		var ann []byte
		if t.Annotations != nil {
			if ann, err = json.Marshal(t.Annotations); err != nil {
				return err
			}
		}
		in, hasIn := t.InputSchema.(json.RawMessage)
		out, hasOut := t.OutputSchema.(json.RawMessage)
		for _, f := range []struct {
			b       []byte
			present bool
		}{
			{[]byte(t.Name), true}, {[]byte(t.Title), true}, {[]byte(t.Description), true},
			{ann, ann != nil}, {in, hasIn}, {out, hasOut},
		} {
			if err := field(f.b, f.present); err != nil {
				return err
			}
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	d.packed, d.count, d.size, d.tools = bytes.Clone(b.Bytes()), len(d.tools), size, nil
	return nil
}

// operations is how many tools the document serves.
func (d *openapiDoc) operations() int {
	if d.tools != nil {
		return len(d.tools)
	}
	return d.count
}

// listTools returns the document's tools, unpacked when packed: a new
// slice of new tools, which the caller may keep (their schemas share one
// new buffer).
func (d *openapiDoc) listTools() ([]*mcp.Tool, error) {
	if d.packed == nil {
		return d.tools, nil
	}
	buf := make([]byte, d.size)
	if _, err := io.ReadFull(flate.NewReader(bytes.NewReader(d.packed)), buf); err != nil {
		return nil, fmt.Errorf("unpacking the document's tools: %w", err)
	}
	var bad error
	next := func() ([]byte, bool) {
		n, k := binary.Uvarint(buf)
		if k <= 0 || n > uint64(len(buf)-k)+1 {
			bad = errors.New("unpacking the document's tools: a field runs past the end")
			buf = nil
			return nil, false
		}
		buf = buf[k:]
		if n == 0 {
			return nil, false
		}
		f := buf[: n-1 : n-1]
		buf = buf[n-1:]
		return f, true
	}
	tools := make([]*mcp.Tool, 0, d.count)
	for len(buf) > 0 && bad == nil {
		name, _ := next()
		title, _ := next()
		desc, _ := next()
		ann, hasAnn := next()
		in, hasIn := next()
		out, hasOut := next()
		if bad != nil {
			break
		}
		t := &mcp.Tool{Name: string(name), Title: string(title), Description: string(desc)}
		if hasAnn {
			t.Annotations = new(mcp.ToolAnnotations)
			if err := json.Unmarshal(ann, t.Annotations); err != nil {
				return nil, fmt.Errorf("unpacking the document's tools: %w", err)
			}
		}
		if hasIn {
			t.InputSchema = json.RawMessage(in)
		}
		if hasOut {
			t.OutputSchema = json.RawMessage(out)
		}
		tools = append(tools, t)
	}
	if bad != nil {
		return nil, bad
	}
	if len(tools) != d.count {
		return nil, fmt.Errorf("unpacking the document's tools: %d of %d", len(tools), d.count)
	}
	return tools, nil
}
