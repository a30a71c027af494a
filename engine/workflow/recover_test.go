package workflow_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/toolwright/toolwright/engine/workflow"
)

// write makes files under a temporary folder and returns it.
func write(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const usesTargets = `name: %s
description: Search.
steps:
  - goto: http://127.0.0.1:8000/
  - fill: {target: nw.orders.search_box, value: x}
  - click: nw.orders.filter_orders
  - extract: {from: nw.orders.rows, list: true, into: rows}
`

// TestBrokenSelectorMapNoKnockOns (issue 19 item 11): one YAML mistake in
// the selector map is one problem, not one more "unknown target" per use
// in every workflow. Failed before: 1 + 6 problems.
func TestBrokenSelectorMapNoKnockOns(t *testing.T) {
	dir := write(t, map[string]string{
		"selectors/selectors.yaml": "nw.orders.search_box:\n  css: \"#q\n" +
			"nw.orders.filter_orders:\n  css: button.filter\nnw.orders.rows:\n  css: tr\n  many: true\n",
		"workflows/a.yaml": strings.ReplaceAll(usesTargets, "%s", "a"),
		"workflows/b.yaml": strings.ReplaceAll(usesTargets, "%s", "b"),
	})
	cfg := testConfig(t)
	cfg.Selectors = filepath.Join(dir, "selectors", "selectors.yaml")
	cfg.Workflows = filepath.Join(dir, "workflows")
	_, ps := workflow.Load(cfg)
	if len(ps) != 1 || !strings.Contains(ps[0].Message, "never closed") || !strings.HasSuffix(ps[0].File, "selectors.yaml") {
		t.Fatalf("want the one syntax error of the map, got %d:\n%v", len(ps), ps.Err())
	}
	// A misspelt target is still found once the map is whole again.
	os.WriteFile(cfg.Selectors, []byte("nw.orders.search_box:\n  css: \"#q\"\nnw.orders.filter_orders:\n  css: button.filter\nnw.orders.rows:\n  css: tr\n  many: true\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "workflows", "b.yaml"), []byte(strings.ReplaceAll(strings.ReplaceAll(usesTargets, "%s", "b"), "filter_orders", "filter")), 0o644)
	_, ps = workflow.Load(cfg)
	if len(ps) != 1 || !strings.Contains(ps[0].Message, `unknown target "nw.orders.filter" (did you mean "nw.orders.filter_orders"?)`) {
		t.Fatalf("want one unknown target with the right suggestion, got:\n%v", ps.Err())
	}
}

// TestEveryFileAndEveryMistake (issue 23): a YAML syntax error does not
// hide the file's other mistakes, nor the other files' problems, and a
// file that needed recovering is never served. Failed before: one problem
// for the broken file.
func TestEveryFileAndEveryMistake(t *testing.T) {
	dir := write(t, map[string]string{
		"w/broken.yaml": `name: broken
description: [Search
steps:
  - goto: http://127.0.0.1:8000/catalog.html
  - click: acme.catalog.nope
  - fill: {target: acme.catalog.search_box, value: "x", if: true}
`,
		"w/other.yaml": "name: other\ndescription: x\nsteps:\n  - clik: acme.catalog.sort\n",
	})
	set, ps := workflow.LoadPaths(testConfig(t), []string{filepath.Join(dir, "w")})
	var got []string
	for _, p := range ps {
		got = append(got, filepath.Base(p.File)+":"+strconv.Itoa(p.Line)+":"+strconv.Itoa(p.Col))
	}
	want := "broken.yaml:2:14 broken.yaml:5:12 broken.yaml:6:57 other.yaml:4:5"
	if strings.Join(got, " ") != want {
		t.Fatalf("got %v, want %s:\n%v", got, want, ps.Err())
	}
	if _, ok := set.Tool("broken"); ok {
		t.Error("a recovered file is served")
	}
}
