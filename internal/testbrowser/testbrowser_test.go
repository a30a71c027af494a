package testbrowser

import (
	"testing"

	"github.com/toolwright/toolwright/engine/browser"
	"github.com/toolwright/toolwright/engine/browser/provider/cdp"
	"github.com/toolwright/toolwright/engine/browser/provider/local"
	"github.com/toolwright/toolwright/engine/browser/provider/webdriver"
	"github.com/toolwright/toolwright/internal/providertest"
	"github.com/toolwright/toolwright/internal/testsite"
)

func TestMain(m *testing.M) { testsite.Main(m) }

// TestContract: a manager on the shared browser keeps the provider
// contract the local provider keeps (engine/browser/provider/all's TestContract):
// its environments open and navigate, the allowed hosts hold (popups
// included), Release and Close leave nothing in the browser, a renderer
// crash closes only its environment, and a browser gone from behind fails
// its environments at once (BrowserGone runs last: it closes this test
// binary's shared browser). Two managers share it here, as the tests of a
// package do.
func TestContract(t *testing.T) {
	providertest.Run(t, providertest.Target{Options: func(t *testing.T) browser.Options {
		return Options(t, browser.Options{Headless: true})
	}})
}

// TestOptions: Options points a manager at the shared browser only when it
// would launch the system Chromium headless here, and never for a test
// that asked for a browser of its own.
func TestOptions(t *testing.T) {
	ws := testsite.BrowserURL(t)
	if o := Options(t, browser.Options{Headless: true}); o.Provider != Provider || len(o.Endpoints) != 1 || o.Endpoints[0] != ws {
		t.Errorf("default options: provider %q endpoints %v, want %s at %s", o.Provider, o.Endpoints, Provider, ws)
	}
	for name, o := range map[string]browser.Options{
		"headed":    {Provider: local.Name},
		"bin":       {Headless: true, Bin: "/usr/bin/chromium"},
		"cdp":       {Headless: true, Provider: cdp.Name, Endpoints: []string{"http://127.0.0.1:9"}},
		"webdriver": {Headless: true, Provider: webdriver.Name, Endpoints: []string{"http://127.0.0.1:9"}},
	} {
		if got := Options(t, o); got.Provider != o.Provider {
			t.Errorf("%s: provider %q, want %q kept", name, got.Provider, o.Provider)
		}
	}
	t.Run("own", func(t *testing.T) {
		OwnBrowser(t)
		t.Run("sub", func(t *testing.T) {
			if o := Options(t, browser.Options{Headless: true}); o.Provider != "" {
				t.Errorf("a subtest of a test with its own browser got provider %q", o.Provider)
			}
		})
	})
}
