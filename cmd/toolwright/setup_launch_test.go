package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolwright/toolwright/internal/testsite"
)

// TestSuggestSetupSlowLaunch (issue 23): with --setup, a browser that takes
// longer to start than open_env's step timeout (10s) does not fail the
// setup: the launch happens before the tool runs. Failed before: open_env
// ended deadline/env_unavailable while Chromium was still starting.
func TestSuggestSetupSlowLaunch(t *testing.T) {
	t.Parallel()
	bin := testsite.NeedChromium(t)
	dir := t.TempDir()
	slow := filepath.Join(dir, "slow-chromium")
	cliMust(t, os.WriteFile(slow, []byte("#!/bin/sh\nsleep 11\nexec "+bin+" \"$@\"\n"), 0o755))
	wdir := filepath.Join(dir, "workflows")
	cliMust(t, os.MkdirAll(wdir, 0o755))
	cliMust(t, os.WriteFile(filepath.Join(dir, "selectors.yaml"), []byte("acme.box:\n  css: input\n"), 0o644))
	cliMust(t, os.WriteFile(filepath.Join(wdir, "open_slow.yaml"), []byte("name: open_slow\ndescription: Open an environment.\nrisk: read\nenv: new\nsteps:\n  - open_env: {}\noutput:\n  env_id: ${{ env.id }}\n"), 0o644))
	cfg := filepath.Join(dir, "toolwright.yaml")
	cliMust(t, os.WriteFile(cfg, []byte("workflows: ./workflows\nselectors: ./selectors.yaml\nstate_dir: ./state\nbrowser:\n  bin: "+slow+"\n"), 0o644))
	out, errOut, code := cli(t, "--config", cfg, "selectors", "suggest", "--page", repoPath(t, "testdata", "suggest", "form.html"), "--prefix", "shop.signup", "--setup", "open_slow")
	if code != 0 || !strings.Contains(out, "shop.signup.email_address:") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
}
