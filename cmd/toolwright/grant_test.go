package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGrantTaskNotTrimmedReasonRedacted: `grant --task $'T-1\n'` (or with
// a space) is refused, not trimmed into T-1; a reason holding a secret is
// stored and listed redacted. Before (issue 22 (3), (11)): the task was
// trimmed and accepted, the reason kept the password as typed.
func TestGrantTaskNotTrimmedReasonRedacted(t *testing.T) {
	t.Parallel()
	c := newCLISetup(t)
	for _, task := range []string{"T-1\n", " T-1", "T-1 "} {
		_, errOut := c.mustCLI(t, exitUsage, "grant", "--tool", "add_to_cart", "--task", task, "--reason", "ticket 7")
		if !strings.Contains(errOut, "task_id must be what a call can carry") {
			t.Errorf("grant --task %q: %q", task, errOut)
		}
	}
	out, _ := c.mustCLI(t, 0, "grants", "--all")
	if strings.Contains(out, "T-1") {
		t.Errorf("a refused grant was stored:\n%s", out)
	}
	c.mustCLI(t, 0, "grant", "--tool", "add_to_cart", "--task", "T-9", "--reason", "user typed "+cliSecretPass+" into the ticket")
	out, _ = c.mustCLI(t, 0, "grants")
	if !strings.Contains(out, "user typed [redacted:acme_password] into the ticket") || strings.Contains(out, cliSecretPassCore) {
		t.Errorf("grants lists the reason:\n%s", out)
	}
	out, _ = c.mustCLI(t, 0, "grants", "--format", "json")
	if strings.Contains(out, cliSecretPassCore) {
		t.Errorf("grants --format json:\n%s", out)
	}
	db, err := os.ReadFile(filepath.Join(c.state, "toolwright.db"))
	cliMust(t, err)
	wal, _ := os.ReadFile(filepath.Join(c.state, "toolwright.db-wal"))
	if bytes.Contains(db, []byte(cliSecretPassCore)) || bytes.Contains(wal, []byte(cliSecretPassCore)) {
		t.Error("the database holds the secret of the reason")
	}
}

// TestValidateWarnsWeakSecrets: validate warns (stderr, exit 0) about a
// redacted secret that is short or one common word, naming it and the fix,
// never its value; a secret declared redact: false is not warned about.
// Before (issue 19 (5)): nothing was said, and every page text holding the
// value was redacted.
func TestValidateWarnsWeakSecrets(t *testing.T) {
	t.Setenv("TW_V_USER", "admin")
	t.Setenv("TW_V_LOGIN", "admin")
	t.Setenv("TW_V_PASS", "Pw-Kestrel-44-Qz")
	t.Setenv("TW_V_PIN", "4711")
	cfg := filepath.Join(t.TempDir(), "toolwright.yaml")
	cliMust(t, os.WriteFile(cfg, []byte(`workflows: `+repoPath(t, "examples", "demo", "workflows")+`
selectors: `+repoPath(t, "examples", "demo", "selectors.yaml")+`
vars:
  acme_base: http://127.0.0.1:1
secrets:
  acme_user: {env: TW_V_USER}
  acme_password: {env: TW_V_PASS}
  login: {env: TW_V_LOGIN, redact: false}
  pin: {env: TW_V_PIN}
`), 0o644))
	out, errOut, code := cli(t, "--config", cfg, "validate")
	if code != 0 {
		t.Fatalf("validate: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{`warning: ` + cfg + `: secret "acme_user" is one common word`, `secret "pin" is only 4 characters long`, "redact: false"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("validate's stderr lacks %q:\n%s", want, errOut)
		}
	}
	for _, bad := range []string{`"login"`, `"acme_password"`, "admin", "4711"} {
		if strings.Contains(out+errOut, bad) {
			t.Errorf("validate says %s:\n%s", bad, errOut)
		}
	}
}
