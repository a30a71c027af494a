package mcpserver_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/mcpserver"
	"github.com/toolwright/toolwright/internal/testsite"
)

// internalFiles are a helper workflow kept from being a tool
// (internal: true) and the tool that calls it.
var internalFiles = map[string]string{
	"make_greeting.yaml": `name: make_greeting
description: A helper that builds a greeting; only other workflows call it.
risk: read
internal: true
params:
  name: {type: string, description: Who to greet, max_length: 20, default: world}
steps:
  - set: {greeting: "hello ${{ params.name }}"}
output:
  greeting: ${{ vars.greeting }}
`,
	"greet.yaml": `name: greet
description: Greet someone, through the helper.
risk: read
steps:
  - call: {tool: make_greeting, with: {name: ada}, into: made}
output:
  greeting: ${{ vars.made.greeting }}
`,
}

// TestInternalWorkflowNotServed: a workflow with internal: true is not in
// tools/list, in toolwright tools (app.Tools), toolwright docs or what
// grant accepts; calling it over MCP is the unknown-tool JSON-RPC error,
// while a call: to it runs. Before (issue 48): there was no such key
// (unknown key "internal"), so a sign-in helper was always an agent's tool.
func TestInternalWorkflowNotServed(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	f := newFixtureWith(t, mcpserver.Options{}, internalFiles)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	list, err := f.session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
	}
	if got := strings.Join(names, " "); got != "greet" {
		t.Errorf("tools/list = %s, want greet only", got)
	}
	res, err := f.session.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if env := checkResult(t, res); env["code"] != "ok" || env["data"].(map[string]any)["greeting"] != "hello ada" {
		t.Errorf("greet (which calls the helper): %v", env)
	}
	_, err = f.session.CallTool(ctx, &mcp.CallToolParams{Name: "make_greeting", Arguments: map[string]any{}})
	wantInvalidParams(t, err)

	set := f.app.Engine.Workflows()
	for _, w := range app.Tools(set) {
		if w.Name == "make_greeting" {
			t.Error("toolwright tools lists the internal workflow")
		}
	}
	var docs strings.Builder
	if err := set.WriteDocs(&docs); err != nil || strings.Contains(docs.String(), "make_greeting") {
		t.Errorf("toolwright docs shows the internal workflow (%v)", err)
	}
	if err := app.CheckGrant(set, "make_greeting", "T-1", time.Minute, "test"); err == nil || !strings.Contains(err.Error(), "internal: true") {
		t.Errorf("grant of the internal workflow: %v", err)
	}
}
