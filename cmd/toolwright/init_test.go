package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolwright/toolwright/internal/testsite"
)

// TestInitValidateTest: a new project validates and its example test passes
// on real Chromium.
func TestInitValidateTest(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "shop")
	out, errOut, code := cli(t, "init", dir)
	if code != 0 {
		t.Fatalf("init: code %d\n%s%s", code, out, errOut)
	}
	for _, f := range []string{"toolwright.yaml", "workflows/read_heading.yaml", "selectors/selectors.yaml", "tests/read_heading.yaml",
		"schemas/workflow.schema.json", "schemas/selectors.schema.json", "schemas/config.schema.json", "schemas/test.schema.json", ".vscode/settings.json"} {
		if !strings.Contains(out, f) {
			t.Errorf("init did not write %s:\n%s", f, out)
		}
	}
	cfg := filepath.Join(dir, "toolwright.yaml")
	if out, errOut, code := cli(t, "--config", cfg, "validate"); code != 0 {
		t.Fatalf("validate: code %d\n%s%s", code, out, errOut)
	}
	// A second init refuses to overwrite.
	if _, errOut, code := cli(t, "init", dir); code == 0 || !strings.Contains(errOut, "exists") {
		t.Errorf("second init: code %d, %s", code, errOut)
	}
	testsite.NeedChromium(t)
	out, errOut, code = cli(t, "--config", cfg, "test", filepath.Join(dir, "tests"))
	if code != 0 || !strings.Contains(out, "2 passed, 0 failed") {
		t.Errorf("test: code %d\n%s%s", code, out, errOut)
	}
}
