package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecordUsage: what record refuses before it opens a window is a usage
// error that says why: a bad tool name or prefix, no page, a file it would
// overwrite, no display.
func TestRecordUsage(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "toolwright.yaml")
	cliMust(t, os.MkdirAll(filepath.Join(dir, "workflows"), 0o755))
	cliMust(t, os.WriteFile(filepath.Join(dir, "workflows", "taken.yaml"), []byte("name: taken\n"), 0o644))
	cliMust(t, os.WriteFile(cfg, []byte("workflows: workflows\nstate_dir: state\n"), 0o644))
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"record", "Bad-Name", "--page", "http://127.0.0.1:1/"}, "tool name"},
		{[]string{"record", "ok_name", "--page", "http://127.0.0.1:1/", "--prefix", "Not A Prefix"}, "--prefix"},
		{[]string{"record", "ok_name"}, "--page"},
		{[]string{"record", "taken", "--page", "http://127.0.0.1:1/"}, "never overwrites"},
		{[]string{"record", "ok_name", "--page", "http://127.0.0.1:1/"}, "no display"},
		{[]string{"record", "ok_name", "--page", "http://127.0.0.1:1/", "--live", "0.0.0.0:8091"}, "loopback"},
	} {
		_, errOut, code := cli(t, append([]string{"--config", cfg}, c.args...)...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("toolwright %s: exit %d, stderr %q; want exit 2 saying %q", strings.Join(c.args, " "), code, errOut, c.want)
		}
	}
}
