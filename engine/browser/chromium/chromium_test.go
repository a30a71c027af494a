package chromium

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFind: browser.bin wins; otherwise a headless browser is the headless
// shell when one is installed and the Chromium on PATH when not, and a
// headed one is always the Chromium on PATH.
func TestFind(t *testing.T) {
	dir := t.TempDir()
	exe := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	full, shell := exe("chromium"), exe(HeadlessShell)
	t.Setenv("PATH", dir)
	saved := shells
	shells = []string{HeadlessShell} // not this machine's /usr/lib/chromium
	t.Cleanup(func() { shells = saved })

	for _, c := range []struct {
		name, bin string
		headless  bool
		want      string
	}{
		{"headless", "", true, shell},
		{"headed", "", false, full},
		{"browser.bin", full, true, full},
		{"browser.bin by name", "chromium", true, full},
	} {
		got, err := Find(c.bin, c.headless)
		if err != nil || got != c.want {
			t.Errorf("%s: Find(%q, %v) = %q, %v; want %q", c.name, c.bin, c.headless, got, err, c.want)
		}
	}
	if _, err := Find("no-such-chromium", true); err == nil || !strings.Contains(err.Error(), `browser.bin "no-such-chromium"`) {
		t.Errorf("a missing browser.bin: %v", err)
	}
	if err := os.Remove(shell); err != nil {
		t.Fatal(err)
	}
	if got, err := Find("", true); err != nil || got != full {
		t.Errorf("no headless shell: Find = %q, %v; want %q", got, err, full)
	}
}
