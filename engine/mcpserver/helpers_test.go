package mcpserver_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/mcpserver"
	"github.com/toolwright/toolwright/engine/run"
	"github.com/toolwright/toolwright/engine/store"
	"github.com/toolwright/toolwright/internal/testbrowser"
	"github.com/toolwright/toolwright/internal/testsite"
)

// TestMain runs the parallel tests testsite.Parallel at a time.
func TestMain(m *testing.M) { testsite.Main(m) }

// The workflow set every test serves: small, over the fixture site.
const selectorsYAML = `site.heading:
  description: The page's main heading
  css: h1
site.slow:
  css: "#slow"
`

var workflowFiles = map[string]string{
	"read_title.yaml": `name: read_title
title: Read a page title
description: Open a fixture page and read its main heading.
risk: read
idempotent: true
params:
  page: {type: string, description: The page to open, pattern: "^[a-z]+[.]html$", max_length: 40, default: index.html}
  times: {type: integer, description: How many times to read it, min: 1, max: 3, default: 1}
steps:
  - goto: ${{ config.base }}/${{ params.page }}
  - extract: {from: site.heading, into: heading}
  - set: {times: "${{ params.times }}"}
output:
  heading: ${{ vars.heading }}
  times: ${{ vars.times }}
`,
	"wait_slow.yaml": `name: wait_slow
description: Open a page that takes 20 seconds to answer.
risk: read
deadline: 60s
steps:
  - set: {started: true}
  - goto: ${{ config.base }}/slow?ms=20000
    timeout: 30s
  - wait: {visible: site.slow}
`,
	"set_only.yaml": `name: set_only
description: Compute a value without touching a page.
risk: read
params:
  name: {type: string, description: Who to greet, max_length: 20, default: world}
steps:
  - set: {greeting: "hello ${{ params.name }}"}
output:
  greeting: ${{ vars.greeting }}
`,
	"drop_table.yaml": `name: drop_table
description: A destructive tool (its steps only set a variable).
risk: destructive
steps:
  - set: {dropped: true}
`,
}

// fixture is a served workflow set with an in-process MCP client.
type fixture struct {
	dir     string
	cfg     *config.Config
	app     *app.App
	srv     *mcpserver.Server
	logs    *testsite.Buffer
	session *mcp.ClientSession
	events  *events
}

// events records what the server sends besides answers.
type events struct {
	mu          sync.Mutex
	listChanged int
	progress    []*mcp.ProgressNotificationParams
	changed     chan struct{}
}

func (e *events) counts() (int, int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.listChanged, len(e.progress)
}

// writeSet writes the config, selector map and workflows into dir.
func writeSet(t testing.TB, dir, base string, files map[string]string) string {
	t.Helper()
	must(t, os.MkdirAll(filepath.Join(dir, "workflows"), 0o755))
	cfg := "workflows: ./workflows\nselectors: ./selectors.yaml\nstate_dir: ./state\n" +
		"vars:\n  base: " + base + "\npolicy:\n  write_tools: enabled\n  allowed_hosts: [127.0.0.1]\n" +
		"http:\n  token: {env: TOOLWRIGHT_TEST_TOKEN_UNSET}\n"
	must(t, os.WriteFile(filepath.Join(dir, "toolwright.yaml"), []byte(cfg), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "selectors.yaml"), []byte(selectorsYAML), 0o644))
	for name, body := range files {
		must(t, os.WriteFile(filepath.Join(dir, "workflows", name), []byte(body), 0o644))
	}
	return filepath.Join(dir, "toolwright.yaml")
}

// newFixture serves the workflow set over an in-memory transport.
func newFixture(t testing.TB, o mcpserver.Options) *fixture {
	t.Helper()
	return newFixtureWith(t, o, workflowFiles)
}

// newFixtureWith is newFixture serving the workflow files given.
func newFixtureWith(t testing.TB, o mcpserver.Options, files map[string]string) *fixture {
	t.Helper()
	site := testsite.Start(t)
	f := &fixture{dir: t.TempDir(), logs: &testsite.Buffer{}, events: &events{changed: make(chan struct{}, 16)}}
	cfgPath := writeSet(t, f.dir, site.URL(""), files)
	f.cfg = loadConfig(t, cfgPath)
	testbrowser.Config(t, f.cfg) // its environments in the package's shared Chromium
	log := slog.New(slog.NewTextHandler(f.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	var wrap func(store.Store) store.Store
	if o.Metrics != nil {
		wrap = o.Metrics.Store // as serve does
	}
	a, err := app.OpenServer(f.cfg, log, wrap)
	if err != nil {
		t.Fatal(err)
	}
	f.app = a
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = a.Close(ctx)
	})
	o.Logger = log
	f.srv = newServer(t, a.Engine, o)
	f.session = f.connect(t)
	return f
}

// newServer is mcpserver.New, failing t on its error.
func newServer(t testing.TB, eng *run.Engine, o mcpserver.Options) *mcpserver.Server {
	t.Helper()
	srv, err := mcpserver.New(eng, o)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// newMetrics is mcpserver.NewMetrics on a registry of their own, failing t
// on its error.
func newMetrics(t testing.TB) *mcpserver.Metrics {
	t.Helper()
	m, err := mcpserver.NewMetrics(nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func loadConfig(t testing.TB, path string) *config.Config {
	t.Helper()
	cfg, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// connect opens a client session to the server over in-memory transports.
func (f *fixture) connect(t testing.TB) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := f.srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			f.events.mu.Lock()
			f.events.listChanged++
			f.events.mu.Unlock()
			select {
			case f.events.changed <- struct{}{}:
			default:
			}
		},
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			f.events.mu.Lock()
			f.events.progress = append(f.events.progress, r.Params)
			f.events.mu.Unlock()
		},
	})
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Close() })
	return cs
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// replaceFile writes a file the way editors save: a new file renamed over the old.
func replaceFile(t testing.TB, path, body string) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	must(t, os.WriteFile(tmp, []byte(body), 0o644))
	must(t, os.Rename(tmp, path))
}

// waitFor polls cond until it holds or d passes.
func waitFor(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
