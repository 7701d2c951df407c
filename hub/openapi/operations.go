package openapi

import "github.com/modelcontextprotocol/go-sdk/mcp"

// Operation is one operation of a description as a source serves it: its
// tool and the request a call makes.
type Operation struct {
	Tool       *mcp.Tool
	Method     string
	Path       string
	Deprecated bool
}

// Operations reads an OpenAPI 3 description (JSON or YAML) as a source
// serves it, without a source: its operations in document order, before a
// connection's credentials take any parameter, and a line for each
// operation left out (one whose own server is on another origin among
// them). loc names the document in errors. The search
// benchmark indexes real descriptions through it, so that it measures the
// tools the hub lists.
func Operations(loc string, data []byte) ([]Operation, []string, error) {
	doc, err := parseOpenAPI(loc, data)
	if err != nil {
		return nil, nil, err
	}
	tools, err := doc.listTools()
	if err != nil {
		return nil, nil, err
	}
	tools, left := doc.servedTools(tools, nil)
	ops := make([]Operation, 0, len(tools))
	for _, t := range tools {
		if op := doc.ops[t.Name]; op != nil {
			ops = append(ops, Operation{Tool: t, Method: op.method, Path: op.path, Deprecated: op.deprecated})
		}
	}
	return ops, append(left, doc.skipped...), nil
}
