package workflow_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/workflow"
)

// TestLoadWarnings (issue 19.10): a comparison that can meet no value
// loads (no problem, the tool is served) with a warning at its place in
// Set.Warnings, which validate prints and serve logs.
func TestLoadWarnings(t *testing.T) {
	cfg := testConfig(t)
	sel, _ := selector.Load(cfg.Selectors)
	file := filepath.Join(t.TempDir(), "cheap.yaml")
	writeTestFile(t, file, `name: cheap
description: Find a cheap product.
risk: read
steps:
  - extract: {from: acme.catalog.rows, list: true, into: rows}
  - set: {cheap: "${{ find(vars.rows, #.name != '') }}"}
  - assert:
      that: "find(vars.rows, #.name != '').name < 'm'"
      message: no cheap product
output:
  cheap: ${{ vars.cheap }}
`)
	set, ps := workflow.Build(cfg, sel, []string{file})
	if len(ps) != 0 {
		t.Fatalf("problems: %v", ps)
	}
	if _, ok := set.Tool("cheap"); !ok {
		t.Fatal("the tool is not in the set")
	}
	if len(set.Warnings) != 1 || !strings.Contains(set.Warnings[0].String(), "cheap.yaml:8:14:") || !strings.Contains(set.Warnings[0].Message, "find(...).name can be no value (find finds nothing)") {
		t.Errorf("warnings: %v", set.Warnings)
	}
}
