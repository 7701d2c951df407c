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
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// pack replaces doc's tools with their packed form. It is called once,
// before the document is shared.
func (d *openapiDoc) pack() error {
	var b bytes.Buffer
	zw, err := flate.NewWriter(&b, flate.BestSpeed)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(zw)
	enc.SetEscapeHTML(false)
	for _, t := range d.tools {
		co := &childOp{Name: t.Name, Title: t.Title, Description: t.Description, Annotations: t.Annotations}
		co.Input, _ = t.InputSchema.(json.RawMessage)
		co.Output, _ = t.OutputSchema.(json.RawMessage)
		if err := enc.Encode(co); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	d.packed, d.count, d.tools = bytes.Clone(b.Bytes()), len(d.tools), nil
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
// slice of new tools, which the caller may keep.
func (d *openapiDoc) listTools() ([]*mcp.Tool, error) {
	if d.packed == nil {
		return d.tools, nil
	}
	dec := json.NewDecoder(flate.NewReader(bytes.NewReader(d.packed)))
	tools := make([]*mcp.Tool, 0, d.count)
	for {
		var co childOp
		err := dec.Decode(&co)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("unpacking the document's tools: %w", err)
		}
		t := &mcp.Tool{Name: co.Name, Title: co.Title, Description: co.Description, InputSchema: co.Input, Annotations: co.Annotations}
		if co.Output != nil {
			t.OutputSchema = co.Output
		}
		tools = append(tools, t)
	}
	if len(tools) != d.count {
		return nil, fmt.Errorf("unpacking the document's tools: %d of %d", len(tools), d.count)
	}
	return tools, nil
}
