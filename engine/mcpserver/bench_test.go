package mcpserver_test

import (
	"context"
	"encoding/json"
	"github.com/toolwright/toolwright/internal/testsite"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolwright/toolwright/engine/mcpserver"
	"github.com/toolwright/toolwright/engine/run"
)

// BenchmarkCallOverhead compares one call of a set-only workflow made
// directly on the engine with the same call through an in-memory MCP
// client. Both open (and close) a temporary browser page per call, so the
// difference is what MCP adds: framing, JSON and the result building.
// Calls that fail validation measure that difference without the browser.
func BenchmarkCallOverhead(b *testing.B) {
	testsite.NeedChromium(b)
	f := newFixture(b, mcpserver.Options{})
	ctx := context.Background()
	args := map[string]any{"name": "bench"}
	raw, _ := json.Marshal(args)
	// Warm the browser up first: the first call launches Chromium.
	if env, err := f.app.Engine.Call(ctx, run.Request{Tool: "set_only", Args: raw}); err != nil || !env.OK {
		b.Fatalf("warm-up: %v %+v", err, env)
	}
	// The same calls with invalid arguments end in the engine's validation,
	// before any browser work: what remains is the MCP layer's own cost.
	bad := map[string]any{"name": 42}
	badRaw, _ := json.Marshal(bad)
	b.Run("invalid/direct", func(b *testing.B) {
		for b.Loop() {
			env, err := f.app.Engine.Call(ctx, run.Request{Tool: "set_only", Args: badRaw})
			if err != nil || env.Code != "invalid_params" {
				b.Fatalf("%v %+v", err, env)
			}
		}
	})
	b.Run("invalid/mcp", func(b *testing.B) {
		for b.Loop() {
			res, err := f.session.CallTool(ctx, &mcp.CallToolParams{Name: "set_only", Arguments: bad})
			if err != nil || !res.IsError {
				b.Fatalf("%v %+v", err, res)
			}
		}
	})
	b.Run("direct", func(b *testing.B) {
		for b.Loop() {
			env, err := f.app.Engine.Call(ctx, run.Request{Tool: "set_only", Args: raw})
			if err != nil || !env.OK {
				b.Fatalf("%v %+v", err, env)
			}
		}
	})
	b.Run("mcp", func(b *testing.B) {
		for b.Loop() {
			res, err := f.session.CallTool(ctx, &mcp.CallToolParams{Name: "set_only", Arguments: args})
			if err != nil || res.IsError {
				b.Fatalf("%v %+v", err, res)
			}
		}
	})
}
