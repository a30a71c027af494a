package run_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/internal/harness"
	"github.com/toolwright/toolwright/internal/testsite"
)

// TestOpenEnvSlowLaunch (issue 23): a browser that takes longer to start
// than open_env's step timeout does not fail the step: the launch counts
// against the call's deadline, never a step's. (The step's own timeout is
// 20 s, the launch 21 s, so the work after the launch has room on a loaded
// machine.) Failed before: env_unavailable "cannot start the browser"
// (TestEnvironments of engine/testrun failed with "step open_env timed out
// after 10s" on a loaded machine).
func TestOpenEnvSlowLaunch(t *testing.T) {
	bin := testsite.NeedChromium(t)
	slow := filepath.Join(t.TempDir(), "slow-chromium")
	if err := os.WriteFile(slow, []byte("#!/bin/sh\nsleep 21\nexec "+bin+" \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	h := harness.New(t, map[string]string{"open_slow": `
name: open_slow
description: Open an environment.
env: new
risk: read
steps:
  - open_env: {}
    timeout: 20s
output:
  env_id: ${{ env.id }}
`}, func(c *config.Config) { c.Browser.Bin = slow })
	env := h.OK(h.Call("open_slow", `{}`))
	if id, _ := env.Data["env_id"].(string); id == "" {
		t.Errorf("no env_id: %+v", env.Data)
	}
}
