package app_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/browser"
	"github.com/toolwright/toolwright/engine/browser/providertest"
	"github.com/toolwright/toolwright/engine/config"
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
// config's enum, its docs and schema) are the registered providers and
// its default is the registry's. config sits below browser in the layers,
// so it declares the names itself; this test keeps the two lists one.
func TestProviderEnumIsTheRegistry(t *testing.T) {
	t.Parallel()
	for _, f := range config.BrowserDecl.Fields {
		if f.Name != "provider" {
			continue
		}
		enum := slices.Sorted(slices.Values(f.Enum))
		// The test-only provider these tests share a browser through
		// (internal/testbrowser) is registered in this binary only.
		names := slices.DeleteFunc(browser.ProviderNames(), func(n string) bool { return n == testbrowser.Provider })
		if !slices.Equal(enum, names) {
			t.Errorf("browser.provider declares %v, the registered providers are %v", enum, names)
		}
		o, err := browser.NewManager(browser.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer o.Shutdown(context.Background())
		if f.Default != o.Provider().Name() {
			t.Errorf("browser.provider's default is %v, the registry's is %q", f.Default, o.Provider().Name())
		}
		return
	}
	t.Fatal("config.BrowserDecl declares no provider")
}
