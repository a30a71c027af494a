package mcpserver_test

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/toolwright/toolwright/internal/testsite"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolwright/toolwright/engine/mcpserver"
	"github.com/toolwright/toolwright/engine/store"
	"github.com/toolwright/toolwright/engine/workflow"
)

func TestToolsList(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	f := newFixture(t, mcpserver.Options{})
	res, err := f.session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		got[tool.Name] = tool
	}
	set := f.app.Engine.Workflows()
	if diff := cmp.Diff(set.Names(), sortedKeys(got)); diff != "" {
		t.Fatalf("tool names (-want +got):\n%s", diff)
	}
	for _, w := range set.Tools() {
		tool := got[w.Name]
		if diff := cmp.Diff(decode(t, w.InputSchema), decode(t, marshal(t, tool.InputSchema))); diff != "" {
			t.Errorf("%s input schema (-want +got):\n%s", w.Name, diff)
		}
		if diff := cmp.Diff(decode(t, w.OutputSchema), decode(t, marshal(t, tool.OutputSchema))); diff != "" {
			t.Errorf("%s output schema (-want +got):\n%s", w.Name, diff)
		}
		if tool.Description != w.Description || tool.Title != w.Title {
			t.Errorf("%s: description/title %q/%q, want %q/%q", w.Name, tool.Description, tool.Title, w.Description, w.Title)
		}
	}
	// Every hint is explicit on the wire: MCP's defaults for missing hints
	// (destructive, open world) must not decide for us.
	type hints struct{ ReadOnly, Destructive, Idempotent, OpenWorld bool }
	want := map[string]hints{
		"read_title": {ReadOnly: true, Idempotent: true, OpenWorld: true},
		"set_only":   {ReadOnly: true, OpenWorld: true},
		"drop_table": {Destructive: true, OpenWorld: true},
	}
	for name, w := range want {
		a := got[name].Annotations
		if a == nil || a.DestructiveHint == nil || a.OpenWorldHint == nil {
			t.Fatalf("%s: annotations %+v lack explicit hints", name, a)
		}
		h := hints{a.ReadOnlyHint, *a.DestructiveHint, a.IdempotentHint, *a.OpenWorldHint}
		if h != w {
			t.Errorf("%s: hints %+v, want %+v", name, h, w)
		}
	}
	raw := string(marshal(t, got["set_only"].Annotations))
	for _, k := range []string{`"readOnlyHint":true`, `"destructiveHint":false`, `"idempotentHint":false`, `"openWorldHint":true`} {
		if !strings.Contains(raw, k) {
			t.Errorf("set_only annotations %s lack %s", raw, k)
		}
	}
	if got["read_title"].Annotations.Title != "Read a page title" {
		t.Errorf("read_title annotations title %q", got["read_title"].Annotations.Title)
	}
}

func TestCallReturnsEnvelope(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	f := newFixture(t, mcpserver.Options{})
	res, err := f.session.CallTool(context.Background(), &mcp.CallToolParams{
		Name: "read_title", Arguments: map[string]any{"page": "links.html", "times": 2},
	})
	if err != nil {
		t.Fatal(err)
	}
	env := checkResult(t, res)
	if res.IsError || env["ok"] != true || env["code"] != "ok" {
		t.Fatalf("isError %v, envelope %v", res.IsError, env)
	}
	data, _ := env["data"].(map[string]any)
	if data["heading"] != "Links" || data["times"] != float64(2) {
		t.Errorf("data = %v, want heading Links and times 2", data)
	}
	if id, _ := env["trace_id"].(string); !strings.HasPrefix(id, "tr_") {
		t.Errorf("trace_id %q", id)
	}
}

// checkResult checks the result's shape: the envelope as structuredContent
// and as exactly one text block holding the same JSON; isError = !ok.
func checkResult(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("%d content blocks, want 1", len(res.Content))
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content is %T, want text", res.Content[0])
	}
	fromText := decode(t, []byte(text.Text))
	fromStruct := decode(t, marshal(t, res.StructuredContent))
	if diff := cmp.Diff(fromText, fromStruct); diff != "" {
		t.Fatalf("text block and structuredContent differ (-text +structured):\n%s", diff)
	}
	env := fromStruct.(map[string]any)
	if res.IsError == (env["ok"] == true) {
		t.Fatalf("isError %v with ok %v", res.IsError, env["ok"])
	}
	return env
}

func TestInvalidArguments(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	f := newFixture(t, mcpserver.Options{})
	for _, tc := range []struct {
		args  any
		field string
	}{
		{map[string]any{"times": 9}, "times"},
		{map[string]any{"times": "two"}, "times"},
		{map[string]any{"page": "../etc/passwd"}, "page"},
		{map[string]any{"bogus": 1}, "bogus"},
		{map[string]any{"task_id": "has space"}, "task_id"},
	} {
		res, err := f.session.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_title", Arguments: tc.args})
		if err != nil {
			t.Fatalf("%v: a JSON-RPC error instead of an envelope: %v", tc.args, err)
		}
		env := checkResult(t, res)
		msg, _ := env["message"].(string)
		if !res.IsError || env["code"] != "invalid_params" || !strings.Contains(msg, tc.field) {
			t.Errorf("%v: isError %v, code %v, message %q; want invalid_params naming %q", tc.args, res.IsError, env["code"], msg, tc.field)
		}
	}
}

func TestUnknownTool(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	f := newFixture(t, mcpserver.Options{})
	_, err := f.session.CallTool(context.Background(), &mcp.CallToolParams{Name: "no_such_tool"})
	wantInvalidParams(t, err)

	// Hot reload removed the tool between tools/list and tools/call: the
	// engine no longer knows it while the SDK still lists it.
	must(t, os.Remove(filepath.Join(f.dir, "workflows", "set_only.yaml")))
	set, ps := workflow.Load(f.cfg)
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	f.app.Engine.SetWorkflows(set)
	_, err = f.session.CallTool(context.Background(), &mcp.CallToolParams{Name: "set_only"})
	wantInvalidParams(t, err)
}

func wantInvalidParams(t *testing.T, err error) {
	t.Helper()
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("error %v, want a JSON-RPC error %d", err, jsonrpc.CodeInvalidParams)
	}
}

func TestProgress(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	f := newFixture(t, mcpserver.Options{})
	p := &mcp.CallToolParams{Name: "read_title", Arguments: map[string]any{}}
	p.SetProgressToken("tok-1")
	res, err := f.session.CallTool(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, res)
	// 3 steps and the end.
	waitFor(t, 5*time.Second, "4 progress notifications", func() bool { _, n := f.events.counts(); return n >= 4 })
	f.events.mu.Lock()
	defer f.events.mu.Unlock()
	last := -1.0
	for i, n := range f.events.progress {
		if n.ProgressToken != "tok-1" || n.Progress <= last || n.Total != 3 || n.Message == "" {
			t.Errorf("notification %d: %+v (previous progress %v)", i, n, last)
		}
		last = n.Progress
	}
	if last != 3 {
		t.Errorf("last progress %v, want 3", last)
	}
	if m := f.events.progress[0].Message; !strings.Contains(m, "goto") {
		t.Errorf("first message %q does not name the goto step", m)
	}
}

// TestProgressNeverAboveTotal calls a workflow whose last step is a loop:
// every step inside it reports the same count of finished steps, and the
// end must still be exactly the total, never above it (issue 11 (10)).
func TestProgressNeverAboveTotal(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	files := map[string]string{"count_up.yaml": `name: count_up
description: Count in a loop without touching a page.
risk: read
steps:
  - set: {n: 0}
  - repeat:
      max: 6
      until: ${{ vars.n >= 6 }}
      steps:
        - set: {n: "${{ vars.n + 1 }}"}
        - set: {m: "${{ vars.n }}"}
output:
  n: ${{ vars.n }}
`}
	f := newFixtureWith(t, mcpserver.Options{}, files)
	p := &mcp.CallToolParams{Name: "count_up", Arguments: map[string]any{}}
	p.SetProgressToken("tok-loop")
	res, err := f.session.CallTool(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, res)
	waitFor(t, 10*time.Second, "the finished notification", func() bool {
		f.events.mu.Lock()
		defer f.events.mu.Unlock()
		n := len(f.events.progress)
		return n > 0 && strings.HasPrefix(f.events.progress[n-1].Message, "finished")
	})
	f.events.mu.Lock()
	defer f.events.mu.Unlock()
	last := -1.0
	for i, n := range f.events.progress {
		if n.Progress <= last || n.Total != 2 || n.Progress > n.Total {
			t.Errorf("notification %d: progress %v of %v (previous %v), want growing and at most 2 of 2", i, n.Progress, n.Total, last)
		}
		last = n.Progress
	}
	if len(f.events.progress) < 4 {
		t.Errorf("%d notifications, want one per step started and the end", len(f.events.progress))
	}
	if last != 2 {
		t.Errorf("last progress %v, want the total 2", last)
	}
}

// promptCancel bounds how long a cancelled call may take to answer: the
// browser work stops, the failure artifacts are taken, the envelope is sent.
const promptCancel = 8 * time.Second

func TestCancel(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	f := newFixture(t, mcpserver.Options{})

	t.Run("notifications/cancelled", func(t *testing.T) {
		// A raw JSON-RPC peer sees the answer the server still writes after
		// a cancellation (the SDK's client drops it).
		ct, st := mcp.NewInMemoryTransports()
		ss, err := f.srv.MCP().Connect(context.Background(), st, nil)
		must(t, err)
		defer ss.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		c := dialRaw(ctx, t, ct)
		defer c.conn.Close()
		c.send(t, 2, "tools/call", map[string]any{
			"name": "wait_slow", "arguments": map[string]any{}, "_meta": map[string]any{"progressToken": "slow"},
		})
		// Wait until the slow navigation is under way.
		for {
			m := c.read(t)
			if r, ok := m.(*jsonrpc.Request); ok && r.Method == "notifications/progress" && strings.Contains(string(r.Params), "goto") {
				break
			}
		}
		time.Sleep(500 * time.Millisecond)
		start := time.Now()
		c.notify(t, "notifications/cancelled", map[string]any{"requestId": 2, "reason": "test"})
		for {
			r, ok := c.read(t).(*jsonrpc.Response)
			if !ok {
				continue
			}
			took := time.Since(start)
			if r.Error != nil {
				t.Fatalf("error answer %v", r.Error)
			}
			var res struct {
				IsError           bool           `json:"isError"`
				StructuredContent map[string]any `json:"structuredContent"`
			}
			must(t, json.Unmarshal(r.Result, &res))
			if !res.IsError || res.StructuredContent["code"] != "cancelled" {
				t.Fatalf("answer %s, want isError and code cancelled", r.Result)
			}
			t.Logf("cancelled call answered %s after notifications/cancelled", took.Round(time.Millisecond))
			if took > promptCancel {
				t.Errorf("cancellation took %s", took)
			}
			return
		}
	})

	t.Run("client context", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		p := &mcp.CallToolParams{Name: "wait_slow", Arguments: map[string]any{}}
		p.SetProgressToken("slow-2")
		_, before := f.events.counts()
		prior, err := f.app.Store.ListTraces(context.Background(), store.TraceFilter{Tool: "wait_slow"})
		must(t, err)
		go func() { _, err := f.session.CallTool(ctx, p); done <- err }()
		waitFor(t, 10*time.Second, "the goto step to start", func() bool { _, n := f.events.counts(); return n >= before+2 })
		time.Sleep(500 * time.Millisecond)
		start := time.Now()
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("CallTool: %v, want context.Canceled", err)
		}
		var tr *store.Trace
		waitFor(t, 2*promptCancel, "the cancelled call's trace", func() bool {
			ts, err := f.app.Store.ListTraces(context.Background(), store.TraceFilter{Tool: "wait_slow"})
			if err != nil || len(ts) <= len(prior) {
				return false
			}
			tr = &ts[0]
			return true
		})
		took := time.Since(start)
		if tr.Code != "cancelled" {
			t.Errorf("trace code %q, want cancelled", tr.Code)
		}
		t.Logf("server recorded the cancelled call %s after the client gave up (call took %d ms)", took.Round(time.Millisecond), tr.DurationMS)
		if took > promptCancel {
			t.Errorf("cancellation took %s", took)
		}
	})
}

func TestParallelCalls(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	f := newFixture(t, mcpserver.Options{})
	pages := map[string]string{"index.html": "Fixture pages", "login.html": "Sign in to Acme"}
	var wg sync.WaitGroup
	var mu sync.Mutex
	traces := map[string]bool{}
	for page, heading := range pages {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := f.session.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_title", Arguments: map[string]any{"page": page}})
			if err != nil {
				t.Error(err)
				return
			}
			env := checkResult(t, res)
			if data, _ := env["data"].(map[string]any); data["heading"] != heading {
				t.Errorf("%s: envelope %v, want heading %q", page, env, heading)
			}
			mu.Lock()
			traces[env["trace_id"].(string)] = true
			mu.Unlock()
		}()
	}
	wg.Wait()
	if len(traces) != 2 {
		t.Errorf("trace ids %v, want two", traces)
	}
}

func TestHotReload(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	f := newFixture(t, mcpserver.Options{Debounce: 100 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	must(t, f.srv.Watch(ctx, f.cfg))
	schemaOf := func(name string) string {
		res, err := f.session.ListTools(context.Background(), nil)
		must(t, err)
		for _, tool := range res.Tools {
			if tool.Name == name {
				return string(marshal(t, tool.InputSchema))
			}
		}
		return ""
	}
	wf := filepath.Join(f.dir, "workflows")

	// An edit that loads: one list_changed, the new schema listed, the new tool works.
	edited := strings.Replace(workflowFiles["set_only.yaml"], "params:\n",
		"params:\n  punct: {type: string, description: What ends the greeting, max_length: 1, default: \"!\"}\n", 1)
	edited = strings.Replace(edited, `hello ${{ params.name }}`, `hello ${{ params.name }}${{ params.punct }}`, 1)
	replaceFile(t, filepath.Join(wf, "set_only.yaml"), edited)
	select {
	case <-f.events.changed:
	case <-time.After(5 * time.Second):
		t.Fatal("no notifications/tools/list_changed after an edit")
	}
	if s := schemaOf("set_only"); !strings.Contains(s, `"punct"`) {
		t.Fatalf("set_only schema after the edit: %s", s)
	}
	time.Sleep(500 * time.Millisecond)
	if n, _ := f.events.counts(); n != 1 {
		t.Errorf("%d list_changed notifications for one edit, want 1", n)
	}
	res, err := f.session.CallTool(context.Background(), &mcp.CallToolParams{Name: "set_only", Arguments: map[string]any{"name": "Ada", "punct": "?"}})
	must(t, err)
	if env := checkResult(t, res); env["data"].(map[string]any)["greeting"] != "hello Ada?" {
		t.Errorf("after reload: %v", env)
	}

	// A broken file: the old tools stay, every problem is logged with its position.
	before := schemaOf("read_title")
	broken := strings.Replace(workflowFiles["read_title.yaml"], "  - extract:", "  - extrakt:", 1)
	replaceFile(t, filepath.Join(wf, "read_title.yaml"), broken)
	// The problems are logged first, then the line that the reload was
	// rejected: wait for both.
	waitFor(t, 5*time.Second, "the problem in the log", func() bool {
		return f.logged(`read_title\.yaml:\d+:\d+: .*extrakt`)
	})
	waitFor(t, 5*time.Second, "a 'reload rejected' line in the log", func() bool {
		return strings.Contains(f.logs.String(), "reload rejected")
	})
	if after := schemaOf("read_title"); after != before || after == "" {
		t.Errorf("read_title changed after a broken edit:\n%s\n%s", before, after)
	}
	if n, _ := f.events.counts(); n != 1 {
		t.Errorf("%d list_changed notifications, want still 1 after a rejected reload", n)
	}

	// A broken selector map is watched too.
	replaceFile(t, filepath.Join(wf, "read_title.yaml"), workflowFiles["read_title.yaml"])
	replaceFile(t, filepath.Join(f.dir, "selectors.yaml"), strings.Replace(selectorsYAML, "site.slow:", "site.slower:", 1))
	waitFor(t, 5*time.Second, "the selector problem in the log", func() bool {
		return f.logged(`wait_slow\.yaml:\d+:\d+: .*site\.slow`)
	})

	// Removing a file removes the tool.
	replaceFile(t, filepath.Join(f.dir, "selectors.yaml"), selectorsYAML)
	must(t, os.Remove(filepath.Join(wf, "drop_table.yaml")))
	waitFor(t, 5*time.Second, "drop_table to disappear", func() bool { return schemaOf("drop_table") == "" })
	waitFor(t, 5*time.Second, "a second list_changed", func() bool { n, _ := f.events.counts(); return n == 2 })
}

// logged reports whether a "workflow problem" log line matches re.
func (f *fixture) logged(re string) bool {
	rx := regexp.MustCompile(re)
	for _, line := range strings.Split(f.logs.String(), "\n") {
		if strings.Contains(line, `msg="workflow problem"`) && rx.MatchString(line) {
			return true
		}
	}
	return false
}

func TestSyncUnchangedSendsNothing(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	f := newFixture(t, mcpserver.Options{})
	if ps := f.srv.Reload(f.cfg); len(ps) > 0 {
		t.Fatal(ps)
	}
	if a, c, r := f.srv.Sync(f.app.Engine.Workflows()); a+c+r != 0 {
		t.Errorf("sync of the same set: added %d, changed %d, removed %d", a, c, r)
	}
	time.Sleep(200 * time.Millisecond)
	if n, _ := f.events.counts(); n != 0 {
		t.Errorf("%d list_changed notifications for an unchanged set", n)
	}
}

func sortedKeys(m map[string]*mcp.Tool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func marshal(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	must(t, err)
	return b
}

func decode(t testing.TB, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return v
}

// rawClient speaks JSON-RPC on an MCP connection, message by message.
type rawClient struct {
	ctx  context.Context
	conn mcp.Connection
}

func dialRaw(ctx context.Context, t *testing.T, tr mcp.Transport) *rawClient {
	t.Helper()
	conn, err := tr.Connect(ctx)
	must(t, err)
	c := &rawClient{ctx: ctx, conn: conn}
	c.send(t, 1, "initialize", map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "raw", "version": "1"},
	})
	if _, ok := c.read(t).(*jsonrpc.Response); !ok {
		t.Fatal("no initialize answer")
	}
	c.notify(t, "notifications/initialized", map[string]any{})
	return c
}

func (c *rawClient) send(t *testing.T, id int, method string, params any) {
	t.Helper()
	rid, err := jsonrpc.MakeID(float64(id))
	must(t, err)
	must(t, c.conn.Write(c.ctx, &jsonrpc.Request{ID: rid, Method: method, Params: marshal(t, params)}))
}

func (c *rawClient) notify(t *testing.T, method string, params any) {
	t.Helper()
	must(t, c.conn.Write(c.ctx, &jsonrpc.Request{Method: method, Params: marshal(t, params)}))
}

func (c *rawClient) read(t *testing.T) jsonrpc.Message {
	t.Helper()
	m, err := c.conn.Read(c.ctx)
	must(t, err)
	return m
}
