package run_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/browser"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/engine/run"
	_ "github.com/toolwright/toolwright/engine/step/kinds"
	"github.com/toolwright/toolwright/engine/store"
	"github.com/toolwright/toolwright/engine/store/sqlstore"
	"github.com/toolwright/toolwright/engine/tmpl"
	"github.com/toolwright/toolwright/engine/workflow"
	"github.com/toolwright/toolwright/internal/testbrowser"
	"github.com/toolwright/toolwright/internal/testsite"
)

const repo = "../.."

// Test credentials: the fixture site accepts any password but "wrong".
const (
	testUser     = "buyer@example.com"
	testPassword = "correct-horse-battery-staple"
)

// harness is one engine on real Chromium and real SQLite, serving the
// fixture site's workflows plus the test's own.
type harness struct {
	t    *testing.T
	site *testsite.Site
	cfg  *config.Config
	eng  *run.Engine
	st   *sqlstore.DB
	bm   *browser.Manager
}

// newHarness writes workflows (file name → YAML) next to the demo
// workflows and starts an engine and its browser. tweak may adjust the
// config first.
func newHarness(t *testing.T, workflows map[string]string, tweak func(*config.Config)) *harness {
	t.Helper()
	h := newColdHarness(t, workflows, tweak)
	h.browserUp()
	return h
}

// newColdHarness is newHarness without the browser: it starts with the
// first call that needs one, as in a server that just started.
func newColdHarness(t *testing.T, workflows map[string]string, tweak func(*config.Config)) *harness {
	t.Helper()
	return newColdHarnessOn(t, demoSite, workflows, tweak)
}

func newColdHarnessOn(t *testing.T, fx fixture, workflows map[string]string, tweak func(*config.Config)) *harness {
	t.Helper()
	p := startEngineOn(t, fx, workflows, tweak)
	return &harness{t: t, site: p.site, cfg: p.cfg, eng: p.eng, st: p.st, bm: p.bm}
}

// engineParts is an engine on real Chromium and real SQLite, serving the
// fixture site's demo workflows plus a test's or benchmark's own.
type engineParts struct {
	site *testsite.Site
	cfg  *config.Config
	eng  *run.Engine
	st   *sqlstore.DB
	bm   *browser.Manager
}

// fixture is a site to test against: how to serve it, and the example
// folder whose selector map and workflows go with it.
type fixture struct {
	start     func(testing.TB) *testsite.Site
	selectors string // the selector map, relative to the repository
	workflows string // the folder of its workflows, relative to the repository
	secrets   map[string]string
	// stepTimeout is the engine's default step timeout, its config's
	// limits.step_timeout (0: harnessStepTimeout).
	stepTimeout time.Duration
}

// withDefaultStepTimeout is f with the production default step timeout, for
// the tests of that default.
func (f fixture) withDefaultStepTimeout() fixture {
	f.stepTimeout = run.DefaultStepTimeout
	return f
}

var (
	demoSite = fixture{start: testsite.Start, selectors: "examples/demo/selectors.yaml", workflows: "examples/demo/workflows"}
	realSite = fixture{start: testsite.StartReal, selectors: "examples/realsite/selectors.yaml", workflows: "examples/realsite/workflows",
		secrets: map[string]string{"nw_user": "hiker@example.com", "nw_password": testPassword}}
	// the default tools (workflows/, selectors/selectors.yaml) on the shop
	defaultTools = fixture{start: testsite.StartReal, selectors: "selectors/selectors.yaml", workflows: "workflows"}
)

// harnessStepTimeout is the default step timeout of the tests' engines: a
// generous ceiling for the steps that declare no timeout, since a page that
// loads in a second on a quiet machine took over 10s (the production
// default) on the shared test machine with others' tests running. Tests of
// the production default itself use fixture.withDefaultStepTimeout.
const harnessStepTimeout = 60 * time.Second

// harnessDeadline is the deadline of the tests' workflows that declare
// none, or the default's 60 s, instead of workflow.DefaultDeadline (60 s):
// a ceiling, never what a test checks, since calls of a few seconds on a
// quiet machine ran past a minute with the whole suite running at a load
// of 20 and more. Tests of deadlines declare their own (1 s to 30 s).
const harnessDeadline = 3 * time.Minute

// generousDeadlines gives the workflows of set whose deadline is the
// default (declared or not) harnessDeadline.
func generousDeadlines(set *workflow.Set) {
	for _, w := range set.Tools() {
		if d := w.Deadline; d != nil && d.IsLiteral() && (d.Source == workflow.DefaultDeadline.String() || d.Source == "60s") {
			w.Deadline = tmpl.Literal(harnessDeadline.String())
		}
	}
}

func startEngine(tb testing.TB, workflows map[string]string, tweak func(*config.Config)) *engineParts {
	tb.Helper()
	return startEngineOn(tb, demoSite, workflows, tweak)
}

// newRealHarness is newHarness on the realistic shop (testdata/real/site)
// with the examples/realsite selector map and workflows (or another fixture).
func newRealHarness(t *testing.T, workflows map[string]string, tweak func(*config.Config), fx ...fixture) *harness {
	t.Helper()
	f := realSite
	if len(fx) > 0 {
		f = fx[0]
	}
	h := newColdHarnessOn(t, f, workflows, tweak)
	h.browserUp()
	return h
}

func startEngineOn(tb testing.TB, fx fixture, workflows map[string]string, tweak func(*config.Config)) *engineParts {
	tb.Helper()
	testsite.NeedChromium(tb)
	site := fx.start(tb)
	dir := tb.TempDir()
	wdir := filepath.Join(dir, "workflows")
	if err := os.MkdirAll(wdir, 0o755); err != nil {
		tb.Fatal(err)
	}
	shared, _ := filepath.Glob(filepath.Join(repo, filepath.FromSlash(fx.workflows), "*.yaml"))
	for _, f := range shared {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		writeFile(tb, filepath.Join(wdir, filepath.Base(f)), string(data))
	}
	for name, body := range workflows {
		writeFile(tb, filepath.Join(wdir, name+".yaml"), body)
	}
	sel, err := filepath.Abs(filepath.Join(repo, filepath.FromSlash(fx.selectors)))
	if err != nil {
		tb.Fatal(err)
	}
	cfg := config.Default(dir)
	cfg.Workflows, cfg.Selectors = wdir, sel
	cfg.Vars["acme_base"] = site.URL("")
	cfg.Vars["shop_base"] = strings.TrimSuffix(site.URL(""), "/")
	if cfg.UploadsDir, err = filepath.Abs(filepath.Join(repo, "examples", "realsite", "uploads")); err != nil {
		tb.Fatal(err)
	}
	cfg.SetSecretValue("acme_user", testUser)
	cfg.SetSecretValue("acme_password", testPassword)
	for k, v := range fx.secrets {
		cfg.SetSecretValue(k, v)
	}
	cfg.Policy.WriteTools = "enabled"
	cfg.Limits.StepTimeout = harnessStepTimeout
	if fx.stepTimeout != 0 {
		cfg.Limits.StepTimeout = fx.stepTimeout
	}
	if tweak != nil {
		tweak(cfg)
	}
	set, ps := workflow.Load(cfg)
	if len(ps) > 0 {
		tb.Fatalf("workflows: %v", ps.Err())
	}
	generousDeadlines(set)
	st, err := sqlstore.OpenSQLite(filepath.Join(dir, "state.db"), storeOptions)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	bo, err := app.BrowserOptions(cfg, nil)
	if err != nil {
		tb.Fatal(err)
	}
	bm, err := browser.NewManager(testbrowser.Options(tb, bo))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = bm.Shutdown(ctx)
	})
	// The step timeout comes from the config (limits.step_timeout).
	eng, err := run.New(run.Options{Config: cfg, Set: set, Browsers: bm, Store: st})
	if err != nil {
		tb.Fatal(err)
	}
	return &engineParts{site: site, cfg: cfg, eng: eng, st: st, bm: bm}
}

// storeOptions are the harness's store options: opening (migrating) and
// recording a call that ran wait up to 2 minutes for SQLite instead of 10s,
// which a migration needed on the shared test machine with others' tests
// running ("waited too long for a lock another writer holds: migrate").
var storeOptions = sqlstore.Options{BusyTimeout: 2 * time.Minute}

func writeFile(tb testing.TB, path, body string) {
	tb.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// browserUp starts the harness's browser, so that a call's deadline
// (harnessDeadline) measures the call and not Chromium starting on a busy
// machine (over a minute with four at once at a load of 50): the local
// provider's launch, for a test with a browser of its own. The shared
// browser (internal/testbrowser) runs already: the first call's Open
// dials it. Before, it opened and released a temporary environment, one
// browser context and page more per harness than the test asks for (about
// one in five of engine/run's environments).
func (h *harness) browserUp() {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := h.bm.Start(ctx); err != nil {
		h.t.Fatalf("start the browser: %v", err)
	}
}

// call runs a tool with JSON arguments and a safety net well past the
// harness's default deadline (harnessDeadline): the workflow's deadline ends the call.
func (h *harness) call(tool, args string) *result.Envelope {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	return h.callCtx(ctx, tool, args)
}

func (h *harness) callCtx(ctx context.Context, tool, args string) *result.Envelope {
	h.t.Helper()
	env, err := h.eng.Call(ctx, run.Request{Tool: tool, Args: json.RawMessage(args)})
	if err != nil {
		h.t.Fatalf("call %s: %v", tool, err)
	}
	return env
}

// ok fails the test unless env is ok, printing it.
func (h *harness) ok(env *result.Envelope) *result.Envelope {
	h.t.Helper()
	if !env.OK {
		h.t.Fatalf("want ok, got %s", env.JSON())
	}
	return env
}

// code fails the test unless env failed with code.
func (h *harness) code(env *result.Envelope, code string) *result.Envelope {
	h.t.Helper()
	if env.OK || env.Code != code {
		h.t.Fatalf("want code %s, got %s", code, env.JSON())
	}
	return env
}

// trace loads the call's trace.
func (h *harness) trace(env *result.Envelope) *store.Trace {
	h.t.Helper()
	tr, err := h.st.GetTrace(context.Background(), env.TraceID)
	if err != nil {
		h.t.Fatalf("trace %s: %v", env.TraceID, err)
	}
	return tr
}

// list reads data[name] as a list envelope.
func list(t *testing.T, env *result.Envelope, name string) result.List {
	t.Helper()
	l, ok := env.Data[name].(result.List)
	if !ok {
		t.Fatalf("data.%s is %T, not a list: %s", name, env.Data[name], env.JSON())
	}
	return l
}
