package hubtest

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// EchoIn and EchoOut are the input and output of ServiceServer's echo.
type EchoIn struct {
	Text string `json:"text"`
}

type EchoOut struct {
	Text string `json:"text"`
}

// BlockLimit is the longest ServiceServer's block waits for its
// cancellation. A client's notifications/cancelled is best-effort: go-sdk
// sends it on a goroutine after the call returns, and a hub that closes
// the session at once (a test that ends right after a run hit its limit)
// can close it first. The server's session then could never close, since
// closing waits for the handler, and neither could the test's HTTP
// server: a cleanup would hang until the package's timeout.
const BlockLimit = time.Minute

// ServiceServer is a small real MCP server the tests of the heart and the
// local API serve: echo answers with its input,
// block waits until its call is cancelled (announcing on blocked that it
// started), or fails after BlockLimit, and ask elicits a word from the
// client and returns it.
func ServiceServer(blocked chan<- struct{}) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "test-hub", Version: "v0.0.1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text."},
		func(_ context.Context, _ *mcp.CallToolRequest, in EchoIn) (*mcp.CallToolResult, EchoOut, error) {
			return nil, EchoOut{Text: in.Text}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "block", Description: "Wait until cancelled."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, EchoOut, error) {
			if blocked != nil {
				select {
				case blocked <- struct{}{}:
				case <-ctx.Done():
				}
			}
			select {
			case <-ctx.Done():
				return nil, EchoOut{}, ctx.Err()
			case <-time.After(BlockLimit):
				return nil, EchoOut{}, fmt.Errorf("block was not cancelled within %v", BlockLimit)
			}
		})
	mcp.AddTool(s, &mcp.Tool{Name: "ask", Description: "Ask the client for a word."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, EchoOut, error) {
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{
				Message: "a word?",
				RequestedSchema: map[string]any{
					"type":       "object",
					"properties": map[string]any{"word": map[string]any{"type": "string"}},
				},
			})
			if err != nil {
				return nil, EchoOut{}, err
			}
			w, _ := res.Content["word"].(string)
			return nil, EchoOut{Text: res.Action + ":" + w}, nil
		})
	return s
}
