package harness

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/browser"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/run"
	_ "github.com/toolwright/toolwright/engine/step/kinds" // the built-in step kinds
	"github.com/toolwright/toolwright/engine/store/sqlstore"
	"github.com/toolwright/toolwright/engine/workflow"
	"github.com/toolwright/toolwright/internal/testbrowser"
	"github.com/toolwright/toolwright/internal/testsite"
)

// Parts is an engine on real Chromium and real SQLite, serving the
// fixture site's workflows plus a test's or benchmark's own.
type Parts struct {
	// Site is the fixture's site, served until the test ends.
	Site *testsite.Site
	// Cfg is the engine's config.
	Cfg *config.Config
	// Eng is the engine.
	Eng *run.Engine
	// St is the engine's store, SQLite in the test's temporary folder.
	St *sqlstore.DB
	// BM is the engine's browser manager.
	BM *browser.Manager
}

// StoreOptions are the harness's store options: opening (migrating) and
// recording a call that ran wait up to 2 minutes for SQLite instead of 10s,
// which a migration needed on the shared test machine with others' tests
// running ("waited too long for a lock another writer holds: migrate").
var StoreOptions = sqlstore.Options{BusyTimeout: 2 * time.Minute}

// Start is StartOn the demo site.
func Start(tb testing.TB, workflows map[string]string, tweak func(*config.Config)) *Parts {
	tb.Helper()
	return StartOn(tb, DemoSite, workflows, tweak)
}

// StartOn serves fx's site and starts an engine on it with fx's workflows
// plus workflows (file name → YAML), its browser manager (the shared
// browser of the test binary, see internal/testbrowser) and its store, all
// closed when the test ends. tweak may adjust the config first. The
// browser starts with the first call that needs one.
func StartOn(tb testing.TB, fx Fixture, workflows map[string]string, tweak func(*config.Config)) *Parts {
	tb.Helper()
	testsite.NeedChromium(tb)
	site := fx.Start(tb)
	dir := tb.TempDir()
	cfg := newConfig(tb, fx, site, dir, writeWorkflows(tb, fx, dir, workflows))
	if tweak != nil {
		tweak(cfg)
	}
	set, ps := workflow.Load(cfg)
	if len(ps) > 0 {
		tb.Fatalf("workflows: %v", ps.Err())
	}
	generousDeadlines(set)
	st := openStore(tb, filepath.Join(dir, "state.db"))
	bm := newBrowsers(tb, cfg)
	// The step timeout comes from the config (limits.step_timeout).
	eng, err := run.New(run.Options{Config: cfg, Set: set, Browsers: bm, Store: st})
	if err != nil {
		tb.Fatal(err)
	}
	return &Parts{Site: site, Cfg: cfg, Eng: eng, St: st, BM: bm}
}

// writeWorkflows writes fx's workflows and workflows (file name → YAML)
// into a folder workflows of dir, and returns its path.
func writeWorkflows(tb testing.TB, fx Fixture, dir string, workflows map[string]string) string {
	tb.Helper()
	wdir := filepath.Join(dir, "workflows")
	if err := os.MkdirAll(wdir, 0o755); err != nil {
		tb.Fatal(err)
	}
	shared, _ := filepath.Glob(filepath.Join(testsite.Root(), filepath.FromSlash(fx.Workflows), "*.yaml"))
	for _, f := range shared {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		WriteFile(tb, filepath.Join(wdir, filepath.Base(f)), string(data))
	}
	for name, body := range workflows {
		WriteFile(tb, filepath.Join(wdir, name+".yaml"), body)
	}
	return wdir
}

// newConfig is the config of an engine on site with its state in dir and
// its workflows in wdir: fx's selector map and secrets, the test
// credentials, write tools enabled and the harness's step timeout.
func newConfig(tb testing.TB, fx Fixture, site *testsite.Site, dir, wdir string) *config.Config {
	tb.Helper()
	root := testsite.Root()
	sel, err := filepath.Abs(filepath.Join(root, filepath.FromSlash(fx.Selectors)))
	if err != nil {
		tb.Fatal(err)
	}
	cfg := config.Default(dir)
	cfg.Workflows, cfg.Selectors = wdir, sel
	cfg.Vars["acme_base"] = site.URL("")
	cfg.Vars["shop_base"] = strings.TrimSuffix(site.URL(""), "/")
	if cfg.UploadsDir, err = filepath.Abs(filepath.Join(root, "examples", "realsite", "uploads")); err != nil {
		tb.Fatal(err)
	}
	cfg.SetSecretValue("acme_user", User)
	cfg.SetSecretValue("acme_password", Password)
	for k, v := range fx.Secrets {
		cfg.SetSecretValue(k, v)
	}
	cfg.Policy.WriteTools = "enabled"
	cfg.Limits.StepTimeout = StepTimeout
	if fx.StepTimeout != 0 {
		cfg.Limits.StepTimeout = fx.StepTimeout
	}
	return cfg
}

// openStore opens (migrating) the SQLite store at path until the test ends.
func openStore(tb testing.TB, path string) *sqlstore.DB {
	tb.Helper()
	st, err := sqlstore.OpenSQLite(path, StoreOptions)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	return st
}

// newBrowsers is a browser manager for cfg on the test binary's shared
// browser (or a browser of its own, see testbrowser.Options), shut down
// when the test ends.
func newBrowsers(tb testing.TB, cfg *config.Config) *browser.Manager {
	tb.Helper()
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
	return bm
}

// WriteFile writes body to path, failing the test on an error.
func WriteFile(tb testing.TB, path, body string) {
	tb.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		tb.Fatal(err)
	}
}
