package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolwright/toolwright/internal/testsite"
)

// TestRunWithoutAnUnsetSecret (issue 23): `run` runs a tool that needs no
// unset secret, as serve serves it, and refuses (exit 2, naming the secret
// and its source) only a tool that reads one. Failed before: both exit 2.
func TestRunWithoutAnUnsetSecret(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	dir := t.TempDir()
	wdir := filepath.Join(dir, "workflows")
	cliMust(t, os.MkdirAll(wdir, 0o755))
	cliMust(t, os.WriteFile(filepath.Join(dir, "selectors.yaml"), []byte("acme.box:\n  css: input\n"), 0o644))
	cliMust(t, os.WriteFile(filepath.Join(wdir, "add.yaml"), []byte("name: add\ndescription: Add two numbers.\nrisk: read\nsteps:\n  - set: {sum: \"${{ 2 + 3 }}\"}\noutput:\n  sum: ${{ vars.sum }}\n"), 0o644))
	cliMust(t, os.WriteFile(filepath.Join(wdir, "sign_in.yaml"), []byte("name: sign_in\ndescription: Sign in.\nsteps:\n  - goto: http://127.0.0.1:9/\n  - fill: {target: acme.box, value: \"${{ secrets.tw_author_pw }}\"}\n"), 0o644))
	cfg := filepath.Join(dir, "toolwright.yaml")
	cliMust(t, os.WriteFile(cfg, []byte("workflows: ./workflows\nselectors: ./selectors.yaml\nstate_dir: ./state\nsecrets:\n  tw_author_pw: {env: TW_AUTHOR_UNSET_PW}\n"), 0o644))
	os.Unsetenv("TW_AUTHOR_UNSET_PW")

	// It starts and runs the call (the envelope's code is the call's
	// business: a loaded machine may fail to start the browser in time).
	out, errOut, code := cli(t, "--config", cfg, "run", "add")
	if code == exitUsage || !strings.Contains(out, `"code":`) || strings.Contains(errOut, "cannot be read") || (code == 0 && !strings.Contains(out, `"sum": 5`)) {
		t.Errorf("run add: exit %d\n%s%s", code, out, errOut)
	}
	_, errOut, code = cli(t, "--config", cfg, "run", "sign_in")
	if code != exitUsage || !strings.Contains(errOut, "tw_author_pw") || !strings.Contains(errOut, "TW_AUTHOR_UNSET_PW") {
		t.Errorf("run sign_in: exit %d, want 2 naming the secret and its variable:\n%s", code, errOut)
	}
}
