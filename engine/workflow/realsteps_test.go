package workflow_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/workflow"
)

// TestRealPageLint: the load-time rules of the real-page steps (issue 9),
// each reported at its place with what was expected.
func TestRealPageLint(t *testing.T) {
	cfg := testConfig(t)
	sel, ps := selector.Load(filepath.Join(repo, "examples", "realsite", "selectors.yaml"))
	if len(ps) > 0 {
		t.Fatal(ps.Err())
	}
	head := `name: t
description: A test.
risk: write
params:
  choice: {type: target, prefix: nw.order.shipping., description: Shipping}
  word: {type: string, description: A word}
  any: {type: target, prefix: nw.order., description: Any order target}
steps:
`
	for _, c := range []struct{ name, steps, want string }{
		{"ok", "  - check: ${{ params.choice }}\n  - goto: {url: \"http://x/\", expect_status: [200, 404]}\n  - click: nw.order.place\n    dialog: {accept: true, text: \"${{ params.word }}\"}", ""},
		{"target from a string param", "  - click: ${{ params.word }}", `parameter "word" is string; a target field takes only a type: target parameter`},
		{"target template not a param", "  - click: \"nw.order.${{ params.word }}\"", `a target is a selector-map name or exactly ${{ params.NAME }} of a type: target parameter`},
		{"unknown param", "  - click: ${{ params.choise }}", `unknown parameter "choise" (did you mean "choice"?)`},
		{"bad dialog", "  - click: nw.order.place\n    dialog: acept", `dialog must be accept, dismiss or {accept: BOOL, text: TEMPLATE}, found "acept" (did you mean "accept"?)`},
		{"dialog without accept", "  - click: nw.order.place\n    dialog: {text: hi}", "dialog: missing accept"},
		{"bad status", "  - goto: {url: \"http://x/\", expect_status: [200, 999]}", "999 is not an HTTP status"},
		{"upload outside uploads_dir", "  - upload: {target: nw.order.exemption, files: [ok.txt, ../secret.txt]}", `upload files: "../secret.txt" leaves uploads_dir`},
		{"upload absolute", "  - upload: {target: nw.order.exemption, files: [/etc/passwd]}", `upload files: "/etc/passwd" is an absolute path`},
		{"upload templated is checked later", "  - upload: {target: nw.order.exemption, files: \"${{ params.word }}\"}", ""},
		{"download over the limit", "  - download: {click: nw.orders.export_csv, into: f, max_bytes: 999999999999}", "download max_bytes must be between 1 and limits.max_download_bytes (52428800)"},
		{"scroll without max", "  - scroll: {until: {visible: nw.feed.end}}", "scroll with until needs max"},
		{"scroll bad condition", "  - scroll: {until: {visibel: nw.feed.end}, max: 5}", `unknown condition "visibel" (did you mean "visible"?)`},
		{"scroll unknown target", "  - scroll: {until: {count: nw.feed.itms, at_least: 3}, max: 5}", `unknown target "nw.feed.itms" (did you mean "nw.feed.items"?)`},
		{"scroll ok", "  - scroll: nw.order.place\n  - scroll: {target: nw.feed.items, until: {count: nw.feed.items, at_least: 3}, max: 5}", ""},
		{"popup ok", "  - popup: {click: nw.products.open_tab.ridge, steps: [{extract: {from: nw.product.name, into: n}}]}", ""},
		{"status not a number", "  - goto: {url: \"http://x/\", expect_status: [ok]}", `must be a whole number, found "ok"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "t.yaml")
			writeTestFile(t, file, head+c.steps+"\n")
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
	// A read workflow may not act on a write target through a target
	// parameter whose prefix includes one.
	file := filepath.Join(t.TempDir(), "t.yaml")
	writeTestFile(t, file, strings.Replace(head, "risk: write", "risk: read", 1)+"  - click: ${{ params.any }}\n")
	_, ps = workflow.Build(cfg, sel, []string{file})
	if len(ps) == 0 || !strings.Contains(ps.Err().Error(), `may not click target "nw.order.place" (parameter "any" may name it)`) {
		t.Errorf("risk through a target parameter: %v", ps.Err())
	}
}
