package workflow_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/workflow"
)

// TestLoopScope: a container's loop.* fields are its own (Spec.Scope,
// tmpl.Scope.InLoop): paginate's loop.page is known inside paginate and
// unknown inside a loop nested in it, and an item stays known there.
func TestLoopScope(t *testing.T) {
	cfg := testConfig(t)
	sel, ps := selector.Load(cfg.Selectors)
	if len(ps) > 0 {
		t.Fatal(ps.Err())
	}
	head := "name: t\ndescription: A test.\nrisk: read\nsteps:\n  - goto: http://127.0.0.1/\n"
	pg := func(steps string) string {
		return "  - paginate: {next: acme.catalog.next_page, max_pages: 2, steps: [" + steps + "]}\n"
	}
	for _, c := range []struct{ name, steps, want string }{
		{"page in paginate", pg(`{set: {p: "${{ loop.page }}"}}`), ""},
		{"index in paginate", pg(`{set: {p: "${{ loop.index }}"}}`), ""},
		{"page in for_each in paginate", pg(`{for_each: {items: "[1]", max: 1, steps: [{set: {p: "${{ loop.page }}"}}]}}`), "unknown loop field loop.page"},
		{"item in paginate in for_each", `  - for_each: {items: "[1]", as: n, max: 1, steps: [{paginate: {next: acme.catalog.next_page, max_pages: 2, steps: [{set: {p: "${{ n + loop.page }}"}}]}}]}` + "\n", ""},
		{"page in repeat in paginate", pg(`{repeat: {max: 1, until: "true", steps: [{set: {p: "${{ loop.page }}"}}]}}`), "unknown loop field loop.page"},
		{"page outside a loop", `  - set: {p: "${{ loop.page }}"}` + "\n", "loop"},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "t.yaml")
			writeTestFile(t, file, head+c.steps)
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

// TestKindSynonyms: a word from another tool gets its kind as "did you
// mean", from the kind's own declaration (Spec.Synonyms), and a container
// kind written for a workflow's steps: suggests steps.
func TestKindSynonyms(t *testing.T) {
	cfg := testConfig(t)
	sel, ps := selector.Load(cfg.Selectors)
	if len(ps) > 0 {
		t.Fatal(ps.Err())
	}
	head := "name: t\ndescription: A test.\nrisk: read\n"
	for _, c := range []struct{ body, want string }{
		{"steps:\n  - navigate: http://127.0.0.1/\n", `unknown step kind "navigate" (did you mean "goto"?)`},
		{"steps:\n  - tap: acme.login.submit\n", `(did you mean "click"?)`},
		{"steps:\n  - type: {target: acme.login.email, value: x}\n", `(did you mean "fill"?)`},
		{"steps:\n  - foreach: {items: \"[1]\", max: 1, steps: []}\n", `(did you mean "for_each"?)`},
		{"steps:\n  - next_page: acme.catalog.next_page\n", `(did you mean "paginate"?)`},
		{"steps:\n  - store: {a: 1}\n", `(did you mean "set"?)`},
		{"steps:\n  - goto: http://127.0.0.1/\ndo:\n  - goto: http://127.0.0.1/\n", `unknown key "do" (did you mean "steps"?)`},
	} {
		file := filepath.Join(t.TempDir(), "t.yaml")
		writeTestFile(t, file, head+c.body)
		_, ps := workflow.Build(cfg, sel, []string{file})
		if got := ps.Err(); got == nil || !strings.Contains(got.Error(), c.want) {
			t.Errorf("%q: problems %v, want %q", c.body, got, c.want)
		}
	}
}
