package all_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/browser"
	"github.com/toolwright/toolwright/engine/browser/provider"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/store/sqlstore"
	"github.com/toolwright/toolwright/internal/providertest"
	"github.com/toolwright/toolwright/internal/providertest/demo" // a test-only provider: the suite picks it up by its registration alone

	_ "github.com/toolwright/toolwright/engine/browser/provider/all"
)

// TestContract runs the provider contract (providertest) on every
// registered provider: local on the system Chromium, cdp (and the
// test-only demo) on a Chromium started with --remote-debugging-port on
// loopback, webdriver on Debian's chromedriver; the replica cases share
// the store's environment registry on SQLite.
func TestContract(t *testing.T) {
	t.Parallel()
	if names := provider.Names(); !slices.Contains(names, demo.Name) || len(names) < 4 {
		t.Fatalf("registered providers %v: want local, cdp, webdriver and the test-only demo", names)
	}
	providertest.RunRegistered(t, func(t *testing.T) browser.Registry {
		path := filepath.Join(t.TempDir(), sqlstore.FileName)
		st, err := sqlstore.OpenSQLite(path, sqlstore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	})
}

// TestDemoSettingsFromTheConfig: a provider's own settings, nested under
// its name in the config, reach it through app's wiring; the flat form of
// its endpoints is read too.
func TestDemoSettingsFromTheConfig(t *testing.T) {
	t.Parallel()
	for name, src := range map[string]string{
		"nested": "browser:\n  provider: demo\n  demo:\n    endpoints: [ws://127.0.0.1:9/devtools/browser/x]\n    label: hello\n",
		"flat":   "browser:\n  provider: demo\n  endpoints: [ws://127.0.0.1:9/devtools/browser/x]\n  demo: {label: hello}\n",
	} {
		t.Run(name, func(t *testing.T) {
			cfg, ps := config.Parse("/x/toolwright.yaml", []byte(src))
			if len(ps) > 0 {
				t.Fatal(ps)
			}
			o, err := app.BrowserOptions(cfg, nil)
			if err != nil {
				t.Fatal(err)
			}
			m, err := browser.NewManager(o)
			if err != nil {
				t.Fatal(err)
			}
			defer m.Shutdown(context.Background())
			p, ok := m.Provider().(*demo.Provider)
			if !ok || p.Label != "hello" || !slices.Equal(o.Endpoints, []string{"ws://127.0.0.1:9/devtools/browser/x"}) {
				t.Fatalf("provider %T %+v, endpoints %v: want demo labelled hello at the endpoint written", m.Provider(), m.Provider(), o.Endpoints)
			}
		})
	}
	_, ps := config.Parse("/x/toolwright.yaml", []byte("browser:\n  provider: demo\n  demo: {endpoints: [ws://a/x, ws://b/x]}\n"))
	if len(ps) != 1 || ps[0].Message != "browser.provider demo takes one endpoint, found 2" {
		t.Errorf("two endpoints: problems %v, want the demo's own check", ps)
	}
}
