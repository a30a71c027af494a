//go:build unix

package record

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/selsuggest"
)

// A symbolic link at a draft's file, even one whose target does not exist,
// is refused, never followed: before, a dangling link at drafts/NAME.yaml
// passed the exists check (os.Stat follows it) and WriteFile created the
// file it pointed at.
func TestWriteNeverFollowsASymlink(t *testing.T) {
	d := &Draft{Name: "shop_search", Workflow: "name: shop_search\n", Test: "tests: []\n",
		Entries: []selsuggest.Entry{{Name: "shop.search.q", Kind: "field", Description: "Search",
			Locators: []selector.Locator{{Strategy: selector.CSS, Value: "#q"}}}}}
	for _, which := range []string{"workflow", "test", "selectors"} {
		t.Run(which, func(t *testing.T) {
			dir := t.TempDir()
			drafts := filepath.Join(dir, "workflows", "drafts")
			if err := os.MkdirAll(drafts, 0o755); err != nil {
				t.Fatal(err)
			}
			p := Paths{
				Workflow:     filepath.Join(drafts, "shop_search.yaml"),
				Selectors:    filepath.Join(drafts, "shop_search.selectors.yaml"),
				Test:         filepath.Join(drafts, "shop_search.test.yaml"),
				NewSelectors: true,
			}
			link := map[string]string{"workflow": p.Workflow, "test": p.Test, "selectors": p.Selectors}[which]
			target := filepath.Join(dir, "elsewhere", "planted.yaml")
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			err := Write(d, p)
			if err == nil || !strings.Contains(err.Error(), link+" exists (a file, or a symbolic link, which is never followed)") {
				t.Errorf("Write with a dangling link at the %s: %v", which, err)
			}
			if _, err := os.Lstat(target); err == nil {
				t.Errorf("the link at the %s was followed: %s was created", which, target)
			}
			for _, f := range []string{p.Workflow, p.Test, p.Selectors} {
				if fi, err := os.Lstat(f); err == nil && fi.Mode()&os.ModeSymlink == 0 {
					t.Errorf("a refused draft left %s", f)
				}
			}
		})
	}
	// Without links, the three files are written.
	dir := t.TempDir()
	p := Paths{Workflow: filepath.Join(dir, "d", "x.yaml"), Selectors: filepath.Join(dir, "d", "x.selectors.yaml"), Test: filepath.Join(dir, "d", "x.test.yaml"), NewSelectors: true}
	if err := Write(d, p); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p.Selectors); !strings.Contains(string(b), "shop.search.q") {
		t.Errorf("selectors draft: %q", b)
	}
}
