package mcpserver

// hub__read: a direct-mode client's way to a result over the hub's inline
// limit. Such a result comes back as the handle the hub keeps it as, with
// its start; hub__read reads it by the handle, as hub.read does in code
// mode and within its bounds, and one read returns at most the inline
// limit's bytes, checked before anything is read. Only the handles of the
// profile's own runs exist for it.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"capabilities.sh/capabilities/hub"
)

// readToolName is hub__read's name: no source's tool takes it, since no
// namespace may be hub.
const readToolName = "hub__read"

// readTool is hub__read's definition, whose reads return at most
// readBytes.
func readTool(readBytes int) *mcp.Tool {
	schema, _ := json.Marshal(map[string]any{
		"type": "object",
		"properties": map[string]any{
			"handle": map[string]any{"type": "string", "description": "The handle a result named, h_..."},
			"path":   map[string]any{"type": "string", "description": `A value inside the result, by keys and indexes: "content.0.text".`},
			"offset": map[string]any{"type": "integer", "minimum": 0, "description": "Where the slice starts, in bytes of the text."},
			"length": map[string]any{"type": "integer", "minimum": 1, "maximum": readBytes, "description": "How many bytes the slice has."},
		},
		"required":             []string{"handle"},
		"additionalProperties": false,
	})
	return &mcp.Tool{
		Name:  readToolName,
		Title: "Read a large result",
		Description: fmt.Sprintf("Read a result that was over the hub's inline limit by the handle it names. "+
			"path picks a value inside it; offset and length a slice, in bytes, of its text (a string's own text, else its JSON text), or of the value at path. "+
			"One read returns at most %d bytes; slices in a row join into the whole.", readBytes),
		InputSchema: json.RawMessage(schema),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: boolPtr(false)},
	}
}

// readHandler answers hub__read: the text read, then, for a part of the
// text, which part and where the next one starts.
func (d *directProfile) readHandler() mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct {
			Handle string `json:"handle"`
			Path   string `json:"path"`
			Offset int64  `json:"offset"`
			Length int64  `json:"length"`
		}
		if err := decodeArgs(req.Params.Arguments, &in); err != nil {
			return inputErrorResult(err)
		}
		if in.Handle == "" {
			return inputErrorResult(&hub.InputError{Field: "handle", Problem: "required: the handle a result named"})
		}
		r := hub.HandleRead{Profile: d.name, Handle: in.Handle, Offset: in.Offset, Length: in.Length}
		if in.Path != "" {
			r.Path = strings.Split(in.Path, ".")
		}
		text, err := d.hub.ReadHandle(ctx, r)
		if err != nil {
			return inputErrorResult(err)
		}
		res := textResult(text.Text, false)
		if text.Offset > 0 || text.End < text.Total {
			note := fmt.Sprintf("[bytes %d to %d of %d", text.Offset, text.End, text.Total)
			if text.End < text.Total {
				note += fmt.Sprintf("; the next slice starts at offset %d", text.End)
			}
			res.Content = append(res.Content, &mcp.TextContent{Text: note + "]"})
		}
		return res, nil
	}
}
