package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/mcpserver"
	"github.com/toolwright/toolwright/engine/store"
	"github.com/xeipuuv/gojsonschema"
)

// TestEveryToolTakesOnePath lists every tool a `serve --record` server can
// serve — the default workflows, the demo's (one of them a write tool) and
// the recording primitives — and runs each through the same checks over
// the official MCP client: a task_id off its pattern (and a parameter off
// its own) is invalid_params; with the store not ready the call is
// store_unavailable and nothing runs; a write tool without a grant is
// not_granted, and `toolwright grant` — the command that answer prints —
// lets the same call through (to env_unavailable: this config has no
// browser); every call is audited. Before (issue 48): tools --json listed
// no primitive, the primitives took task_id "bad id!" and a bad ref, never
// asked the store, and `toolwright grant --tool page_fill` exited 2
// (unknown tool "page_fill").
func TestEveryToolTakesOnePath(t *testing.T) {
	t.Parallel()
	c, cfg := onePathSetup(t)
	var notReady atomic.Bool
	a, err := app.OpenServer(cfg, slog.New(slog.DiscardHandler), func(st store.Store) store.Store { return readyGate{st, &notReady} })
	cliMust(t, err)
	t.Cleanup(func() { _ = a.Close(context.Background()) })
	srv, err := mcpserver.New(a.Engine, mcpserver.Options{})
	cliMust(t, err)
	cliMust(t, srv.EnableRecording(cfg))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs := onePathClient(t, srv)

	tools := onePathListed(t, c, cs)
	calls := map[string]int{}
	call := func(name string, args map[string]any) *onePathEnv {
		t.Helper()
		calls[name]++
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		cliMust(t, err)
		var env onePathEnv
		b, _ := json.Marshal(res.StructuredContent)
		cliMust(t, json.Unmarshal(b, &env))
		return &env
	}
	for _, tl := range tools {
		good := onePathArgs(t, tl)
		for _, p := range append([]string{"task_id"}, onePathPatterned(t, tl)...) {
			bad := clone(good)
			bad[p] = "!off the pattern!"
			if env := call(tl.Name, bad); env.Code != errs.InvalidParams || !strings.Contains(env.Message, p) {
				t.Errorf("%s with %s off its pattern: %s %s", tl.Name, p, env.Code, env.Message)
			}
		}
		notReady.Store(true)
		if env := call(tl.Name, good); env.Code != errs.StoreUnavailable {
			t.Errorf("%s with the store not ready: %s %s", tl.Name, env.Code, env.Message)
		}
		notReady.Store(false)
		if tl.Annotations.ReadOnlyHint {
			continue
		}
		env := call(tl.Name, good)
		want := fmt.Sprintf("grant --tool %s --task %s ", tl.Name, good["task_id"])
		if env.Code != errs.NotGranted || !strings.Contains(env.Message, want) {
			t.Errorf("%s without a grant: %s %s", tl.Name, env.Code, env.Message)
			continue
		}
		c.mustCLI(t, 0, "grant", "--tool", tl.Name, "--task", good["task_id"].(string), "--reason", "one path")
		if env := call(tl.Name, good); env.Code == errs.NotGranted || env.Code == errs.InvalidParams || env.Code == errs.StoreUnavailable {
			t.Errorf("%s granted by toolwright grant: %s %s", tl.Name, env.Code, env.Message)
		}
	}
	onePathAudited(t, ctx, a.Store, calls)
}

// onePathEnv is what the checks read of an envelope.
type onePathEnv struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// onePathSetup is a config serving the default workflows and the demo's,
// with no browser to be had (every call that passes the checks fails
// env_unavailable, quickly) and write tools behind grants.
func onePathSetup(t *testing.T) (*cliSetup, *config.Config) {
	t.Helper()
	dir := t.TempDir()
	wdir := filepath.Join(dir, "workflows")
	cliMust(t, os.MkdirAll(wdir, 0o755))
	var sel []byte
	for _, from := range []string{repoPath(t, "workflows"), repoPath(t, "examples", "demo", "workflows")} {
		files, _ := filepath.Glob(filepath.Join(from, "*.yaml"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			cliMust(t, err)
			cliMust(t, os.WriteFile(filepath.Join(wdir, filepath.Base(f)), b, 0o644))
		}
	}
	for _, f := range []string{repoPath(t, "selectors", "selectors.yaml"), repoPath(t, "examples", "demo", "selectors.yaml")} {
		b, err := os.ReadFile(f)
		cliMust(t, err)
		sel = append(append(sel, b...), '\n')
	}
	cliMust(t, os.WriteFile(filepath.Join(dir, "selectors.yaml"), sel, 0o644))
	path := filepath.Join(dir, "toolwright.yaml")
	cliMust(t, os.WriteFile(path, []byte(`workflows: ./workflows
selectors: ./selectors.yaml
state_dir: ./state
vars: {acme_base: "http://127.0.0.1:1"}
secrets:
  acme_user: {env: TW_ONE_PATH_NO_SUCH_VAR_U}
  acme_password: {env: TW_ONE_PATH_NO_SUCH_VAR_P}
browser: {bin: /nonexistent/chromium, spare: 0}
policy: {write_tools: grant, allowed_hosts: ["127.0.0.1"]}
`), 0o644))
	cfg, err := config.Load(path)
	cliMust(t, err)
	return &cliSetup{cfg: path, state: filepath.Join(dir, "state")}, cfg
}

// onePathClient connects the official MCP client to srv in memory.
func onePathClient(t *testing.T, srv *mcpserver.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	cliMust(t, err)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "one-path", Version: "1"}, nil).Connect(ctx, ct, nil)
	cliMust(t, err)
	t.Cleanup(func() { cs.Close(); ss.Close() })
	return cs
}

// onePathListed checks that the server serves exactly the tools
// `toolwright tools --json` lists, primitives among them, and returns them
// as the agent sees them.
func onePathListed(t *testing.T, c *cliSetup, cs *mcp.ClientSession) []*mcp.Tool {
	t.Helper()
	out, _ := c.mustCLI(t, 0, "tools", "--json")
	var listed []struct{ Name string }
	cliMust(t, json.Unmarshal([]byte(out), &listed))
	res, err := cs.ListTools(context.Background(), nil)
	cliMust(t, err)
	var cli, served []string
	for _, l := range listed {
		cli = append(cli, l.Name)
	}
	for _, tl := range res.Tools {
		served = append(served, tl.Name)
	}
	sort.Strings(cli)
	sort.Strings(served)
	if strings.Join(cli, " ") != strings.Join(served, " ") {
		t.Errorf("toolwright tools lists %v; the server serves %v", cli, served)
	}
	for _, want := range []string{"add_to_cart", "open_page", "page_fill", "page_open", "save_workflow"} {
		if !strings.Contains(" "+strings.Join(served, " ")+" ", " "+want+" ") {
			t.Errorf("the server does not serve %s: %v", want, served)
		}
	}
	return res.Tools
}

// onePathSchema is what the test reads of an input schema.
type onePathSchema struct {
	Properties map[string]struct {
		Type    string `json:"type"`
		Pattern string `json:"pattern"`
		Enum    []any  `json:"enum"`
	} `json:"properties"`
	Required []string `json:"required"`
}

func onePathSchemaOf(t *testing.T, tl *mcp.Tool) (onePathSchema, *gojsonschema.Schema) {
	t.Helper()
	b, err := json.Marshal(tl.InputSchema)
	cliMust(t, err)
	var s onePathSchema
	cliMust(t, json.Unmarshal(b, &s))
	v, err := gojsonschema.NewSchema(gojsonschema.NewBytesLoader(b))
	cliMust(t, err)
	return s, v
}

// onePathPatterned are tl's parameters with a pattern, task_id aside.
func onePathPatterned(t *testing.T, tl *mcp.Tool) []string {
	s, _ := onePathSchemaOf(t, tl)
	var out []string
	for name, p := range s.Properties {
		if p.Pattern != "" && name != "task_id" && p.Type == "string" {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// onePathArgs are arguments tl's schema accepts (checked with the schema
// the agent was given): a task_id, and for each required parameter its
// first enum value or the first candidate that passes.
func onePathArgs(t *testing.T, tl *mcp.Tool) map[string]any {
	t.Helper()
	s, v := onePathSchemaOf(t, tl)
	args := map[string]any{"task_id": "one-path-" + tl.Name}
	valid := func() bool {
		res, err := v.Validate(gojsonschema.NewGoLoader(args))
		return err == nil && res.Valid()
	}
	for _, name := range s.Required {
		if name == "task_id" {
			continue
		}
		cands := append(s.Properties[name].Enum, "env_onepath", "e1", "abc", "http://127.0.0.1:1/", "ACM-1001", 1)
		for _, c := range cands {
			args[name] = c
			if res, err := v.Validate(gojsonschema.NewGoLoader(args)); err == nil && !onePathFails(res, name) {
				break
			}
		}
	}
	if !valid() {
		t.Fatalf("no arguments for %s pass its schema: add a candidate to onePathArgs", tl.Name)
	}
	return args
}

// onePathFails reports whether res has an error about field name.
func onePathFails(res *gojsonschema.Result, name string) bool {
	for _, e := range res.Errors() {
		if e.Field() == name || strings.Contains(e.Description(), `"`+name+`"`) {
			return true
		}
	}
	return false
}

func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// onePathAudited checks that every call of every tool left an audit record.
func onePathAudited(t *testing.T, ctx context.Context, st store.Store, calls map[string]int) {
	t.Helper()
	recs, err := st.ExportAudit(ctx, time.Time{}, time.Now().Add(time.Hour))
	cliMust(t, err)
	audited := map[string]int{}
	for _, r := range recs {
		audited[r.Tool]++
	}
	for tool, n := range calls {
		// A call refused because the store is not ready cannot be audited:
		// it is logged, and did not run.
		if audited[tool] != n-1 {
			t.Errorf("%s: %d calls audited, want %d (all but the one the store refused)", tool, audited[tool], n-1)
		}
	}
}

// readyGate is a store whose Ready fails while notReady is set.
type readyGate struct {
	store.Store
	notReady *atomic.Bool
}

func (g readyGate) Ready(ctx context.Context) error {
	if g.notReady.Load() {
		return errs.New(errs.StoreUnavailable, "the state store is not ready (test)")
	}
	return g.Store.Ready(ctx)
}
