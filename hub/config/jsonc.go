package config

import (
	"bytes"
	"errors"
	"strings"

	"github.com/tailscale/hujson"
)

// StandardJSON turns JSON with comments and trailing commas (VS Code's
// mcp.json) into standard JSON, keeping every byte offset, so later errors
// still name the right line and column. Its error says where the input
// stops being even that: "line L, column C: ...".
func StandardJSON(data []byte) ([]byte, error) {
	out, err := hujson.Standardize(bytes.Clone(data))
	if err != nil {
		return data, errors.New(strings.TrimPrefix(err.Error(), "hujson: "))
	}
	return out, nil
}
