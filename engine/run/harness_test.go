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
	"github.com/toolwright/toolwright/engine/workflow"
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
// workflows and starts an engine. tweak may adjust the config first.
func newHarness(t *testing.T, workflows map[string]string, tweak func(*config.Config)) *harness {
	t.Helper()
	p := startEngine(t, workflows, tweak)
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
}

var (
	demoSite = fixture{start: testsite.Start, selectors: "examples/demo/selectors.yaml", workflows: "examples/demo/workflows"}
	realSite = fixture{start: testsite.StartReal, selectors: "examples/realsite/selectors.yaml", workflows: "examples/realsite/workflows",
		secrets: map[string]string{"nw_user": "hiker@example.com", "nw_password": testPassword}}
	// the default tools (workflows/, selectors/selectors.yaml) on the shop
	defaultTools = fixture{start: testsite.StartReal, selectors: "selectors/selectors.yaml", workflows: "workflows"}
)

// harnessStepTimeout is the default step timeout of the tests' engines:
// the production default, so that a positive wait has as much room on a
// busy test machine as it has in use. Tests of the default itself
// derive their numbers from it.
const harnessStepTimeout = run.DefaultStepTimeout

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
	p := startEngineOn(t, f, workflows, tweak)
	return &harness{t: t, site: p.site, cfg: p.cfg, eng: p.eng, st: p.st, bm: p.bm}
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
	if tweak != nil {
		tweak(cfg)
	}
	set, ps := workflow.Load(cfg)
	if len(ps) > 0 {
		tb.Fatalf("workflows: %v", ps.Err())
	}
	st, err := sqlstore.OpenSQLite(filepath.Join(dir, "state.db"), sqlstore.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	bo, err := app.BrowserOptions(cfg, nil)
	if err != nil {
		tb.Fatal(err)
	}
	bm, err := browser.NewManager(bo)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = bm.Shutdown(ctx)
	})
	eng, err := run.New(run.Options{Config: cfg, Set: set, Browsers: bm, Store: st, StepTimeout: harnessStepTimeout})
	if err != nil {
		tb.Fatal(err)
	}
	return &engineParts{site: site, cfg: cfg, eng: eng, st: st, bm: bm}
}

func writeFile(tb testing.TB, path, body string) {
	tb.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// call runs a tool with JSON arguments and a 60s safety net.
func (h *harness) call(tool, args string) *result.Envelope {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
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
