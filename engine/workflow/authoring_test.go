package workflow_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/workflow"
)

// TestAuthorsSlips: what authors met on real apps (issue 48) is a load
// problem that says what happened and what to write. extract {limit: 0}
// is refused (before, it read every match); a ` #` in a template that is
// not quoted is named as the YAML comment it is, with the value quoted
// (before: "template ${{ is never closed").
func TestAuthorsSlips(t *testing.T) {
	cfg := testConfig(t)
	sel, ps := selector.Load(cfg.Selectors)
	if len(ps) > 0 {
		t.Fatal(ps.Err())
	}
	head := "name: t\ndescription: A test.\nrisk: read\nsteps:\n  - goto: http://127.0.0.1/\n"
	for _, c := range []struct{ name, body, want string }{
		{"limit 0", "  - extract: {from: acme.catalog.rows, list: true, limit: 0, into: rows}\n",
			"extract: limit must be at least 1, found 0 (0 would read nothing); leave limit out to read every match"},
		{"limit 1", "  - extract: {from: acme.catalog.rows, list: true, limit: 1, into: rows}\n", ""},
		{"comment in a template", "  - extract: {from: acme.catalog.rows, list: true, into: rows}\noutput:\n  n: ${{ len(filter(vars.rows, #.sku != \"\")) }}\n",
			`YAML read "#.sku != \"\")) }}" as a comment (in a value that is not quoted, a # after a space starts one) and cut the value there; quote the whole value, as in '${{ len(filter(vars.rows, #.sku != "")) }}'`},
		{"quoted", "  - extract: {from: acme.catalog.rows, list: true, into: rows}\noutput:\n  n: '${{ len(filter(vars.rows, #.sku != \"\")) }}'\n", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "t.yaml")
			writeTestFile(t, file, head+c.body)
			_, ps := workflow.Build(cfg, sel, []string{file})
			got := ""
			if len(ps) > 0 {
				got = ps.Err().Error()
			}
			if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
				t.Errorf("problems:\n%s\nwant %q", got, c.want)
			}
		})
	}
}
