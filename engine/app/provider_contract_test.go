package app_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/toolwright/toolwright/engine/browser"
	"github.com/toolwright/toolwright/engine/browser/provider"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/decl"
	"github.com/toolwright/toolwright/internal/testbrowser"
)

// TestProviderEnumIsTheRegistry: browser.provider's declared values (the
// config's enum, its docs and schema) are the registered providers, each
// registering into the config (provider.Register), the default
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
	names := slices.DeleteFunc(provider.Names(), func(n string) bool { return n == testbrowser.Provider })
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
		"browser:\n  provider: cdp\n":                                  "/x/toolwright.yaml:2:3: browser.provider cdp needs at least one ws:// or http://host:port URL in browser.cdp.endpoints",
		"browser:\n  provider: webdriver\n  endpoints: [ftp://grid]\n": "/x/toolwright.yaml:2:3: browser.webdriver.endpoints: \"ftp://grid\" is not an http:// or https:// WebDriver URL",
	} {
		_, ps := config.Parse("/x/toolwright.yaml", []byte(src))
		if len(ps) != 1 || !strings.Contains(ps.Err().Error(), want) {
			t.Errorf("%q: problems %v, want one with %q", src, ps, want)
		}
	}
}

// TestProviderSettingsNestedAndFlat: a provider's settings are read under
// its name (browser.cdp.endpoints) and, as before sections, flat
// (browser.endpoints); both written and different is a problem at the
// flat key; a section of a provider not chosen is kept out of the way.
func TestProviderSettingsNestedAndFlat(t *testing.T) {
	t.Parallel()
	want := []string{"http://127.0.0.1:9222"}
	for name, c := range map[string]struct {
		src, bin, problem string
		endpoints         []string
	}{
		"nested":        {src: "browser:\n  provider: cdp\n  cdp:\n    endpoints: [http://127.0.0.1:9222]\n", endpoints: want},
		"flat":          {src: "browser:\n  provider: cdp\n  endpoints: [http://127.0.0.1:9222]\n", endpoints: want},
		"both, agreed":  {src: "browser:\n  provider: cdp\n  endpoints: [http://127.0.0.1:9222]\n  cdp: {endpoints: [http://127.0.0.1:9222]}\n", endpoints: want},
		"both, differ":  {src: "browser:\n  provider: cdp\n  endpoints: [http://127.0.0.1:1]\n  cdp: {endpoints: [http://127.0.0.1:9222]}\n", endpoints: want, problem: "/x/toolwright.yaml:3:3: browser.endpoints and browser.cdp.endpoints are both written and differ: keep browser.cdp.endpoints"},
		"local nested":  {src: "browser:\n  local: {bin: /opt/chrome}\n", bin: "/opt/chrome"},
		"local flat":    {src: "browser:\n  bin: /opt/chrome\n", bin: "/opt/chrome"},
		"webdriver bin": {src: "browser:\n  provider: webdriver\n  webdriver: {endpoints: [http://grid:4444], bin: /opt/chrome}\n  local: {bin: /elsewhere}\n", bin: "/opt/chrome", endpoints: []string{"http://grid:4444"}},
		"unknown key":   {src: "browser:\n  cdp: {endpoint: [http://127.0.0.1:9222]}\n", problem: `/x/toolwright.yaml:2:9: browser.cdp: unknown key "endpoint" (did you mean "endpoints"?)`},
	} {
		t.Run(name, func(t *testing.T) {
			cfg, ps := config.Parse("/x/toolwright.yaml", []byte(c.src))
			if c.problem != "" {
				if len(ps) != 1 || ps[0].String() != c.problem {
					t.Fatalf("problems %v, want %q", ps, c.problem)
				}
				return
			}
			if len(ps) > 0 {
				t.Fatal(ps)
			}
			if !slices.Equal(cfg.Browser.Endpoints, c.endpoints) || cfg.Browser.Bin != c.bin {
				t.Fatalf("endpoints %v bin %q, want %v %q", cfg.Browser.Endpoints, cfg.Browser.Bin, c.endpoints, c.bin)
			}
		})
	}
}
