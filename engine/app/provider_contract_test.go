package app_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/browser"
	"github.com/toolwright/toolwright/engine/browser/providertest"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/decl"
	"github.com/toolwright/toolwright/engine/store/sqlstore"
	"github.com/toolwright/toolwright/internal/testbrowser"
	"github.com/toolwright/toolwright/internal/testsite"
)

// TestProviderContract runs the provider contract (providertest) on the
// three providers: local on the system Chromium, cdp on a Chromium started
// with --remote-debugging-port on loopback, webdriver on Debian's
// chromedriver; the replica case shares the store's environment registry
// on SQLite.
func TestProviderContract(t *testing.T) {
	t.Parallel()
	registry := func(t *testing.T) browser.Registry {
		path := filepath.Join(t.TempDir(), sqlstore.FileName)
		return app.Registry(openStore(t, func() (*sqlstore.DB, error) { return sqlstore.OpenSQLite(path, sqlstore.Options{}) }))
	}
	t.Run(browser.ProviderLocal, func(t *testing.T) {
		t.Parallel() // each on browsers of its own
		providertest.Run(t, providertest.Target{Registry: registry, Options: func(t *testing.T) browser.Options {
			return browser.Options{Provider: browser.ProviderLocal, StateDir: t.TempDir()}
		}})
	})
	t.Run(browser.ProviderCDP, func(t *testing.T) {
		t.Parallel()                        // each on browsers of its own
		ep, _ := testsite.RemoteChromium(t) // one browser for the whole contract
		providertest.Run(t, providertest.Target{Registry: registry, Options: func(*testing.T) browser.Options {
			return browser.Options{Provider: browser.ProviderCDP, Endpoints: []string{ep}}
		}})
	})
	t.Run(browser.ProviderWebDriver, func(t *testing.T) {
		t.Parallel() // each on browsers of its own
		driver := testsite.ChromeDriver(t)
		providertest.Run(t, providertest.Target{Registry: registry, Options: func(*testing.T) browser.Options {
			return browser.Options{Provider: browser.ProviderWebDriver, Endpoints: []string{driver}}
		}})
	})
}

// TestProviderEnumIsTheRegistry: browser.provider's declared values (the
// config's enum, its docs and schema) are the registered providers, each
// registering into the config (browser.RegisterProvider), the default
// first; the config checks a section with the chosen provider's own check,
// reported at the section; the test-only provider stays out.
func TestProviderEnumIsTheRegistry(t *testing.T) {
	t.Parallel()
	var f *decl.Field
	for i := range config.BrowserDecl.Fields {
		if config.BrowserDecl.Fields[i].Name == "provider" {
			f = &config.BrowserDecl.Fields[i]
		}
	}
	if f == nil {
		t.Fatal("config.BrowserDecl declares no provider")
	}
	names := slices.DeleteFunc(browser.ProviderNames(), func(n string) bool { return n == testbrowser.Provider })
	if got := slices.Sorted(slices.Values(f.Enum)); !slices.Equal(got, names) {
		t.Errorf("browser.provider declares %v, the registered providers are %v", f.Enum, names)
	}
	m, err := browser.NewManager(browser.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Shutdown(context.Background())
	if f.Default != m.Provider().Name() || f.Enum[0] != m.Provider().Name() {
		t.Errorf("browser.provider's default is %v (listed first: %s), the registry's is %q", f.Default, f.Enum[0], m.Provider().Name())
	}
	for _, n := range names {
		if !strings.Contains(f.Doc, n+": ") {
			t.Errorf("browser.provider's docs %q do not say what %s does", f.Doc, n)
		}
	}
	for src, want := range map[string]string{
		"browser:\n  provider: " + testbrowser.Provider + "\n":         "browser.provider must be local, cdp or webdriver, found \"testsite-shared\"",
		"browser:\n  provider: cdp\n":                                  "/x/toolwright.yaml:2:3: browser.provider cdp needs at least one ws:// or http://host:port URL in browser.endpoints",
		"browser:\n  provider: webdriver\n  endpoints: [ftp://grid]\n": "/x/toolwright.yaml:2:3: browser.endpoints: \"ftp://grid\" is not an http:// or https:// WebDriver URL",
	} {
		_, ps := config.Parse("/x/toolwright.yaml", []byte(src))
		if len(ps) != 1 || !strings.Contains(ps.Err().Error(), want) {
			t.Errorf("%q: problems %v, want one with %q", src, ps, want)
		}
	}
}
