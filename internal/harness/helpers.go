package harness

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/config"
)

// AddSelectors points the config at its selector map plus more targets
// (selector-map YAML), written to a file of the test's.
func AddSelectors(t *testing.T, c *config.Config, more string) {
	demo, err := os.ReadFile(c.Selectors)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "selectors.yaml")
	WriteFile(t, p, string(demo)+more)
	c.Selectors = p
}

// WaitFor polls cond until it holds or d passes, failing the test then;
// what names the condition for the message.
func WaitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(d); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
	}
}
