package main

import (
	"encoding/json"
	"net/http"
	"os"
	"testing"

	"github.com/toolwright/toolwright/internal/testsite"
)

// browser.provider webdriver from the config: a workflow runs in a session
// of Debian's chromedriver, and no session is left once `run` is done.
func TestRunOnWebDriver(t *testing.T) {
	t.Parallel()
	c := newCLISetup(t)
	driver := testsite.ChromeDriver(t)
	b, err := os.ReadFile(c.cfg)
	cliMust(t, err)
	cliMust(t, os.WriteFile(c.cfg, append(b, "browser: {provider: webdriver, endpoints: ["+driver+"]}\n"...), 0o644))
	env := envelope(t, first(c.mustCLI(t, 0, "run", "product_details", "--arg", "sku=ACM-1002")))
	if env.Code != "ok" {
		t.Fatalf("run on webdriver: %+v", env)
	}
	// chromedriver's own list of its sessions (not W3C, but it keeps it).
	res, err := http.Get(driver + "/sessions")
	cliMust(t, err)
	defer res.Body.Close()
	var v struct{ Value []any }
	cliMust(t, json.NewDecoder(res.Body).Decode(&v))
	if len(v.Value) != 0 {
		t.Errorf("%d WebDriver sessions left after run: %v", len(v.Value), v.Value)
	}
}
