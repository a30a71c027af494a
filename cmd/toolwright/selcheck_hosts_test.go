package main

import (
	"os"
	"strings"
	"testing"
)

// TestSelectorsCheckWithSubresourcesAllowedHosts: selectors check works
// under a valid config with policy.subresources: allowed_hosts and
// allowed_hosts: ["127.0.0.1"], and the page's own requests still load.
// Before (issue 22 (10)): the check was refused.
func TestSelectorsCheckWithSubresourcesAllowedHosts(t *testing.T) {
	t.Parallel()
	c := newCLISetup(t)
	b, err := os.ReadFile(c.cfg)
	cliMust(t, err)
	cliMust(t, os.WriteFile(c.cfg, []byte(strings.Replace(string(b), "policy:\n", "policy:\n  subresources: allowed_hosts\n", 1)), 0o644))
	out, errOut, code := c.cli(t, "selectors", "check", "--prefix", "acme.login", "--page", c.site.Server.URL+"/login.html")
	if code != 0 || !strings.Contains(out, "acme.login.email") {
		t.Errorf("selectors check: exit %d\n%s\n%s", code, out, errOut)
	}
}
