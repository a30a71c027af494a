package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/mcpserver"
	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/engine/run"
	"github.com/toolwright/toolwright/engine/workflow"
	"github.com/toolwright/toolwright/internal/testbrowser"
	"github.com/toolwright/toolwright/internal/testsite"
)

// TestRecordToolsOnlyInRecordMode: a server lists no primitive tool unless
// recording is enabled.
func TestRecordToolsOnlyInRecordMode(t *testing.T) {
	t.Parallel()
	f := newFixture(t, mcpserver.Options{})
	res, err := f.session.ListTools(context.Background(), nil)
	must(t, err)
	for _, tl := range res.Tools {
		if strings.HasPrefix(tl.Name, "page_") || tl.Name == "save_workflow" {
			t.Errorf("%s is served without --record", tl.Name)
		}
	}
}

// TestAgentRecords: an agent, through the official MCP client, opens the
// sign-in page, fills the email and (by the secret's name) the password,
// signs in, searches, reads the result count and saves the workflow. The
// primitives follow the server's policy: a host outside allowed_hosts is
// refused, a write primitive without a grant is not_granted, every call is
// audited. The draft lands in workflows/drafts (not served), validates
// unedited once moved, and its replay returns what the agent read.
// agentRecording is a server in record mode over the record test site
// (its sign-in's password a configured secret), an MCP SDK client session
// on it, and how a test drives the primitives as an agent.
type agentRecording struct {
	t    *testing.T
	ctx  context.Context
	a    *app.App
	cfg  *config.Config
	site *testsite.Site
	cs   *mcp.ClientSession
}

func newAgentRecording(t *testing.T) *agentRecording {
	t.Helper()
	testsite.NeedChromium(t)
	site := testsite.StartDir(t, "record")
	dir := t.TempDir()
	cfg := config.Default(dir)
	cfg.Vars["lumen_base"] = strings.TrimSuffix(site.URL(""), "/")
	cfg.Policy.AllowedHosts = []string{"127.0.0.1"}
	cfg.Browser.Spare = 0
	cfg.SetSecretValue("lumen_password", "lamp-Keeper-2048")
	must(t, os.MkdirAll(cfg.Workflows, 0o755))
	must(t, os.MkdirAll(filepath.Dir(cfg.Selectors), 0o755))
	must(t, os.WriteFile(cfg.Selectors, []byte("# the map\nlumen.heading:\n  css: h1\n"), 0o644))
	a, err := app.OpenServer(cfg, slog.New(slog.DiscardHandler), nil)
	must(t, err)
	t.Cleanup(func() { _ = a.Close(context.Background()) })
	srv := newServer(t, a.Engine, mcpserver.Options{})
	must(t, srv.EnableRecording(cfg))
	f := &fixture{srv: srv, events: &events{changed: make(chan struct{}, 16)}}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return &agentRecording{t: t, ctx: ctx, a: a, cfg: cfg, site: site, cs: f.connect(t)}
}

// call calls tool name and returns its envelope.
func (r *agentRecording) call(name string, args map[string]any) map[string]any {
	r.t.Helper()
	res, err := r.cs.CallTool(r.ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	must(r.t, err)
	var env map[string]any
	b, _ := json.Marshal(res.StructuredContent)
	must(r.t, json.Unmarshal(b, &env))
	return env
}

// ok calls tool name, which must answer ok, and returns its data.
func (r *agentRecording) ok(name string, args map[string]any) map[string]any {
	r.t.Helper()
	env := r.call(name, args)
	if env["ok"] != true {
		r.t.Fatalf("%s %v: %v", name, args, env)
	}
	d, _ := env["data"].(map[string]any)
	return d
}

// ref is the ref of the snapshot's element matching pattern.
func (r *agentRecording) ref(elements, pattern string) string {
	r.t.Helper()
	m := regexp.MustCompile(`\[(e\d+)\] ` + pattern).FindStringSubmatch(elements)
	if m == nil {
		r.t.Fatalf("no element %q in the snapshot:\n%s", pattern, elements)
	}
	return m[1]
}

// until takes snapshots until one matches pattern, and returns it.
func (r *agentRecording) until(pattern string) string {
	r.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		els, _ := r.ok("page_snapshot", nil)["elements"].(string)
		if regexp.MustCompile(pattern).MatchString(els) {
			return els
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("the page never showed %q:\n%s", pattern, els)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// replayDraft does what a person does with the draft name: moves it into
// workflows/ and its entries into the selector map, unedited; then it must
// validate, and a fresh server runs it once, granted, with args.
func (r *agentRecording) replayDraft(name string, args map[string]any) *result.Envelope {
	r.t.Helper()
	t, cfg := r.t, r.cfg
	drafts := filepath.Join(cfg.Workflows, "drafts")
	body, err := os.ReadFile(filepath.Join(drafts, name+".yaml"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(cfg.Workflows, name+".yaml"), body, 0o644))
	entries, err := os.ReadFile(filepath.Join(drafts, name+".selectors.yaml"))
	must(t, err)
	m, err := os.ReadFile(cfg.Selectors)
	must(t, err)
	must(t, os.WriteFile(cfg.Selectors, append(m, entries...), 0o644))
	set, ps := workflow.Load(cfg)
	if len(ps) > 0 {
		t.Fatalf("the draft does not validate: %v", ps.Err())
	}
	a2, err := app.OpenWith(cfg, set, slog.New(slog.DiscardHandler))
	must(t, err)
	defer a2.Close(context.Background())
	_, err = a2.Store.AddGrant(r.ctx, name, "replay-"+name, 15*time.Minute, "test", "test")
	must(t, err)
	args["task_id"] = "replay-" + name
	raw, _ := json.Marshal(args)
	env, err := a2.Engine.Call(r.ctx, run.Request{Tool: name, Args: raw})
	must(t, err)
	return env
}

func TestAgentRecords(t *testing.T) {
	t.Parallel()
	r := newAgentRecording(t)
	call, ok, ref, until := r.call, r.ok, r.ref, r.until
	ctx, a, site := r.ctx, r.a, r.site
	if env := call("page_open", map[string]any{"url": site.AltURL("/signin.html")}); env["code"] != "host_not_allowed" {
		t.Errorf("a host outside allowed_hosts: %v", env)
	}
	els, _ := ok("page_open", map[string]any{"url": site.URL("/signin.html")})["elements"].(string)
	email := ref(els, `textbox "Email"`)
	if env := call("page_fill", map[string]any{"ref": email, "value": "ann@example.com", "task_id": "rec-1"}); env["code"] != "not_granted" {
		t.Fatalf("a write primitive without a grant: %v", env)
	}
	for _, tool := range []string{"page_fill", "page_click", "page_press", "save_workflow"} {
		_, err := a.Store.AddGrant(ctx, tool, "rec-1", 15*time.Minute, "test", "test")
		must(t, err)
	}
	ok("page_fill", map[string]any{"ref": email, "value": "ann@example.com", "task_id": "rec-1"})
	ok("page_fill", map[string]any{"ref": ref(els, `textbox "Password"`), "secret": "lumen_password", "task_id": "rec-1"})
	ok("page_click", map[string]any{"ref": ref(els, `button "Sign in"`), "task_id": "rec-1"})
	els = until(`searchbox "Search products"`)
	q := ref(els, `searchbox "Search products"`)
	ok("page_fill", map[string]any{"ref": q, "value": "lamp", "task_id": "rec-1"})
	ok("page_press", map[string]any{"key": "Enter", "ref": q, "task_id": "rec-1"})
	els = until(`text "12 products"`)
	if v := ok("page_extract", map[string]any{"ref": ref(els, `text "12 products"`)})["value"]; v != "12 products" {
		t.Fatalf("page_extract: %v", v)
	}
	saved := ok("save_workflow", map[string]any{"name": "count_lamps", "description": "Sign in and count the products a search finds.", "task_id": "rec-1"})
	wf, _ := saved["steps"].(string)
	t.Logf("draft:\n%s", wf)
	for _, w := range []string{"${{ secrets.lumen_password }}", "${{ params.email }}", "${{ params.search_products }}", "press: {key: Enter"} {
		if !strings.Contains(wf, w) {
			t.Errorf("the draft lacks %q", w)
		}
	}
	if strings.Contains(wf, "lamp-Keeper") {
		t.Errorf("the draft holds the password")
	}
	if _, ok := a.Engine.Workflows().Tool("count_lamps"); ok {
		t.Errorf("a draft is served")
	}
	var audited int
	recs, err := a.Store.ExportAudit(ctx, time.Time{}, time.Now().Add(time.Hour))
	if err == nil {
		for _, r := range recs {
			if strings.HasPrefix(r.Tool, "page_") || r.Tool == "save_workflow" {
				audited++
			}
		}
	}
	if audited < 10 {
		t.Errorf("%d primitive calls audited (err %v), want every one", audited, err)
	}

	// A person moves the draft in: it validates unedited and replays.
	env := r.replayDraft("count_lamps", map[string]any{"email": "ann@example.com", "search_products": "lamp"})
	b, _ := json.Marshal(env.Data)
	if !env.OK || !strings.Contains(string(b), `"12 products"`) {
		t.Errorf("replay: %s %s %s", env.Code, env.Message, b)
	}
}

// TestRecordingsEndWithTheirSession: a recording's environment is held for
// its MCP session, and closed when the session ends or after
// browser.idle_timeout without a call. Five sessions one after another each
// record (max_per_purpose 2), and an idle session's recording is closed and
// a new one starts on its next call. Before (issue 48): a recording's
// environment lived until a restart, so the third session's page_open
// answered env_unavailable.
func TestRecordingsEndWithTheirSession(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	site := testsite.StartDir(t, "record")
	open := func(idle time.Duration) (*app.App, *fixture) {
		cfg := config.Default(t.TempDir())
		must(t, os.MkdirAll(cfg.Workflows, 0o755))
		must(t, os.MkdirAll(filepath.Dir(cfg.Selectors), 0o755))
		must(t, os.WriteFile(cfg.Selectors, []byte("lumen.heading:\n  css: h1\n"), 0o644))
		cfg.Policy.AllowedHosts = []string{"127.0.0.1"}
		cfg.Browser.Spare, cfg.Browser.MaxPerPurpose, cfg.Browser.IdleTimeout = 0, 2, idle
		testbrowser.Config(t, cfg)
		a, err := app.OpenServer(cfg, slog.New(slog.DiscardHandler), nil)
		must(t, err)
		t.Cleanup(func() { _ = a.Close(context.Background()) })
		srv := newServer(t, a.Engine, mcpserver.Options{})
		must(t, srv.EnableRecording(cfg))
		return a, &fixture{srv: srv, events: &events{changed: make(chan struct{}, 16)}}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	code := func(cs *mcp.ClientSession, name string, args map[string]any) string {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		must(t, err)
		var env struct{ Code, Message string }
		b, _ := json.Marshal(res.StructuredContent)
		must(t, json.Unmarshal(b, &env))
		return env.Code + " " + env.Message
	}
	released := func(a *app.App, after string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for a.Engine.Browsers().Stats(ctx).ByPurpose["record"] > 0 {
			if time.Now().After(deadline) {
				t.Fatalf("the recording's environment is still open 30s after %s", after)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	page := map[string]any{"url": site.URL("/signin.html")}

	a, f := open(time.Hour)
	for i := range 5 {
		cs := f.connect(t)
		if got := code(cs, "page_open", page); !strings.HasPrefix(got, "ok ") {
			t.Fatalf("session %d: page_open: %s", i+1, got)
		}
		cs.Close()
		released(a, fmt.Sprintf("session %d ended", i+1))
	}

	a, f = open(time.Second)
	cs := f.connect(t)
	if got := code(cs, "page_open", page); !strings.HasPrefix(got, "ok ") {
		t.Fatalf("page_open: %s", got)
	}
	released(a, "a second without a call")
	if got := code(cs, "page_snapshot", nil); !strings.Contains(got, "call page_open first") {
		t.Errorf("page_snapshot after the idle end: %s", got)
	}
	if got := code(cs, "page_open", page); !strings.HasPrefix(got, "ok ") {
		t.Errorf("page_open after the idle end: %s", got)
	}
}

// TestAgentRecordsAList: an agent records a paginated search through the
// official MCP SDK's client: page_extract with list marks the result rows
// (every row like the cell's) and two of their fields, the recorder finds
// the list's Next button itself, the agent turns the page once, and the
// draft reads every page with paginate: moved in unedited, it replays the
// 12 products of three pages, not the 5 of the page it saw. Before (issue
// 48): page_extract marked one value, and an agent could not record a
// list at all.
func TestAgentRecordsAList(t *testing.T) {
	t.Parallel()
	r := newAgentRecording(t)
	ok, ref, until := r.ok, r.ref, r.until
	ctx, a, site := r.ctx, r.a, r.site
	for _, tool := range []string{"page_fill", "page_click", "page_press", "save_workflow"} {
		_, err := a.Store.AddGrant(ctx, tool, "rec-list", 15*time.Minute, "test", "test")
		must(t, err)
	}
	els, _ := ok("page_open", map[string]any{"url": site.URL("/signin.html")})["elements"].(string)
	ok("page_fill", map[string]any{"ref": ref(els, `textbox "Email"`), "value": "ann@example.com", "task_id": "rec-list"})
	ok("page_fill", map[string]any{"ref": ref(els, `textbox "Password"`), "secret": "lumen_password", "task_id": "rec-list"})
	ok("page_click", map[string]any{"ref": ref(els, `button "Sign in"`), "task_id": "rec-list"})
	els = until(`searchbox "Search products"`)
	q := ref(els, `searchbox "Search products"`)
	ok("page_fill", map[string]any{"ref": q, "value": "lamp", "task_id": "rec-list"})
	ok("page_press", map[string]any{"key": "Enter", "ref": q, "task_id": "rec-list"})
	els = until(`Page 1 of 3`)
	name := ok("page_extract", map[string]any{"ref": ref(els, `text "Desk lamp"`), "list": true})
	if name["rows"] != float64(5) || name["next_page"] != true || name["value"] != "Desk lamp" {
		t.Fatalf("page_extract list: %v, want 5 rows, the value and the next-page control found", name)
	}
	if price := ok("page_extract", map[string]any{"ref": ref(els, `text "19.00"`)}); price["field"] != "price" {
		t.Fatalf("page_extract in a row of the marked list: %v, want the field price", price)
	}
	ok("page_next", map[string]any{"ref": ref(els, `button "Next"`)})
	ok("page_click", map[string]any{"ref": ref(els, `button "Next"`), "task_id": "rec-list"})
	until(`Page 2 of 3`)
	saved := ok("save_workflow", map[string]any{"name": "find_lamps", "description": "Sign in and list the products a search finds.", "task_id": "rec-list"})
	wf, _ := saved["steps"].(string)
	t.Logf("draft:\n%s", wf)
	if !strings.Contains(wf, "paginate:") {
		t.Fatalf("the draft does not read every page:\n%s", wf)
	}

	// Moved in unedited, it validates and reads all three pages.
	env := r.replayDraft("find_lamps", map[string]any{"email": "ann@example.com", "search_products": "lamp", "max_pages": 3})
	b, _ := json.Marshal(env.Data)
	if !env.OK {
		t.Fatalf("replay: %s %s %s", env.Code, env.Message, b)
	}
	for _, want := range []string{`"Desk lamp"`, `"Wall lamp"`, `"Table lamp"`, `"Arc lamp"`, `"90.50"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("replay: %s lacks %s (every page's rows)", b, want)
		}
	}
}
