package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// CLI conventions: --version, exit 2 for usage and configuration errors,
// --format json, completion, --log-format json.
func TestCLIConventions(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	// The demo workflows with a state dir of the test's own (never under testdata/).
	cfg := filepath.Join(t.TempDir(), "toolwright.yaml")
	cliMust(t, os.WriteFile(cfg, []byte(fmt.Sprintf("workflows: %q\nselectors: %q\nvars:\n  acme_base: http://127.0.0.1:1\nsecrets:\n  acme_user: {env: ACME_USER}\n  acme_password: {env: ACME_PASSWORD}\n",
		repoPath(t, "examples", "demo", "workflows"), repoPath(t, "examples", "demo", "selectors.yaml"))), 0o644))

	out, _, code := cli(t, "--version")
	if code != 0 || !strings.HasPrefix(out, "toolwright ") || !strings.Contains(out, "commit ") || !strings.Contains(out, runtime.Version()) {
		t.Errorf("--version: exit %d, %q", code, out)
	}

	for _, args := range [][]string{
		{"nosuchcommand"},
		{"tools", "--nosuchflag"},
		{"run"},
		{"--config", cfg, "run", "no_such_tool"},
		{"--config", "/nonexistent/toolwright.yaml", "tools"},
		{"--config", cfg, "tools", "--format", "yaml"},
		{"--config", cfg, "--log-format", "xml", "run", "search_catalog"},
		{"grant", "--tool", "x"}, // required flags missing
		{"--config", cfg, "audit", "export", "--since", "yesterday"},
	} {
		if _, errOut, code := cli(t, args...); code != exitUsage || errOut == "" {
			t.Errorf("toolwright %s: exit %d, want %d (stderr %q)", strings.Join(args, " "), code, exitUsage, errOut)
		}
	}
	// Problems found are exit 1, not 2.
	if _, _, code := cli(t, "--config", cfg, "validate", repoPath(t, "testdata", "lint", "bad")); code != exitFailed {
		t.Errorf("validate with problems: exit %d, want 1", code)
	}

	// --format json on commands that print data; the old --json still works.
	for _, args := range [][]string{
		{"--config", cfg, "tools", "--format", "json"},
		{"--config", cfg, "tools", "--json"},
		{"--config", cfg, "traces", "--format", "json"},
		{"--config", cfg, "traces", "--json"},
		{"--config", cfg, "grants", "--format", "json"},
		{"--config", cfg, "audit", "verify", "--format", "json", "--allow-empty"},
		{"--config", cfg, "validate", "--format", "json"},
	} {
		out, errOut, code := cli(t, args...)
		var v any
		if code != 0 || json.Unmarshal([]byte(out), &v) != nil {
			t.Errorf("toolwright %s: exit %d, not JSON: %q %q", strings.Join(args, " "), code, out, errOut)
		}
	}

	// Completion of tool names and flag values (cobra's __complete protocol).
	out, _, _ = cli(t, "__complete", "--config", cfg, "run", "sea")
	if !strings.Contains(out, "search_catalog\t") || strings.Contains(out, "product_details") {
		t.Errorf("completion of run sea: %q", out)
	}
	out, _, _ = cli(t, "__complete", "--config", cfg, "grant", "--tool", "")
	if !strings.Contains(out, "add_to_cart") || strings.Contains(out, "search_catalog") {
		t.Errorf("completion of grant --tool (write tools only): %q", out)
	}
	out, _, _ = cli(t, "__complete", "--log-format", "")
	if !strings.Contains(out, "json") || !strings.Contains(out, "text") {
		t.Errorf("completion of --log-format: %q", out)
	}
	out, _, code = cli(t, "completion", "bash")
	if code != 0 || !strings.Contains(out, "__start_toolwright") {
		t.Errorf("completion bash: exit %d", code)
	}

	// --log-format json: every stderr line is one JSON object.
	t.Setenv("ACME_USER", "u")
	t.Setenv("ACME_PASSWORD", "p")
	_, errOut, _ := cli(t, "--config", cfg, "--log-format", "json", "--log-level", "debug", "run", "search_catalog", "--arg", "max_pages=9")
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	for _, l := range lines {
		var rec map[string]any
		if err := json.Unmarshal([]byte(l), &rec); err != nil || rec["level"] == nil {
			t.Errorf("log line is not JSON: %q", l)
		}
	}
}
