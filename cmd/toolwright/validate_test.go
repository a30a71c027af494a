package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestValidateSkipsFIFO: a named pipe called workflows/x.yaml is skipped
// with a problem naming it, and validate ends; the regular files around it
// are still checked. Before (issue 22 (10)): validate blocked forever
// reading the pipe.
func TestValidateSkipsFIFO(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	wdir := filepath.Join(dir, "workflows")
	cliMust(t, os.MkdirAll(wdir, 0o755))
	for _, f := range []string{"product_details.yaml", "search_catalog.yaml"} {
		b, err := os.ReadFile(repoPath(t, "examples", "demo", "workflows", f))
		cliMust(t, err)
		cliMust(t, os.WriteFile(filepath.Join(wdir, f), b, 0o644))
	}
	fifo := filepath.Join(wdir, "x.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	cfg := filepath.Join(dir, "toolwright.yaml")
	cliMust(t, os.WriteFile(cfg, []byte("workflows: ./workflows\nselectors: "+repoPath(t, "examples", "demo", "selectors.yaml")+
		"\nvars:\n  acme_base: http://127.0.0.1:1\nsecrets:\n  acme_user: {env: TW_UNSET_1}\n  acme_password: {env: TW_UNSET_2}\n"), 0o644))
	type res struct {
		out, errOut string
		code        int
	}
	done := make(chan res, 1)
	go func() {
		out, errOut, code := cli(t, "--config", cfg, "validate")
		done <- res{out, errOut, code}
	}()
	select {
	case r := <-done:
		if r.code != exitFailed || !strings.Contains(r.out, fifo) || !strings.Contains(r.out, "not a regular file (a named pipe): skipped") {
			t.Errorf("validate with a named pipe: exit %d\n%s\n%s", r.code, r.out, r.errOut)
		}
		if strings.Count(r.out, "\n") != 1 {
			t.Errorf("validate reports more than the pipe:\n%s", r.out)
		}
	case <-time.After(60 * time.Second):
		// unblock the reader so the test binary can end
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		t.Fatal("validate blocked on a named pipe for 60 s")
	}
}
