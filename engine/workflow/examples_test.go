package workflow_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/step"
	"github.com/toolwright/toolwright/engine/workflow"
)

// TestStepExamples: the example of every step kind (shown by `toolwright
// docs --steps` and the published schema) is a valid step of the demo.
func TestStepExamples(t *testing.T) {
	cfg := testConfig(t)
	// The demo's targets and the realistic shop's (examples/realsite), so
	// the examples of the real-page kinds read like real use.
	var maps []byte
	for _, f := range []string{cfg.Selectors, filepath.Join(repo, "examples", "realsite", "selectors.yaml")} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		maps = append(append(maps, data...), '\n')
	}
	sel, ps := selector.Parse(cfg.Selectors, maps)
	if len(ps) > 0 {
		t.Fatal(ps.Err())
	}
	product, err := filepath.Abs(filepath.Join(repo, "examples", "demo", "workflows", "product_details.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, sp := range step.Kinds() {
		if sp.Example == "" {
			t.Errorf("step kind %s has no example", sp.Kind)
			continue
		}
		example := "  - " + strings.ReplaceAll(sp.Example, "\n", "\n    ")
		doc := `name: example
description: The example of one step kind.
env: new
params:
  sku: {type: string, description: A SKU}
  query: {type: string, description: Words}
  region: {type: string, description: A region}
  purpose: {type: string, description: A purpose}
  max_pages: {type: integer, description: Pages, min: 1, max: 5}
steps:
  - open_env: {}
  - set: {rows: [], done: false, skus: [], stock: 1}
` + example + "\n"
		dir := t.TempDir()
		file := filepath.Join(dir, "example.yaml")
		writeTestFile(t, file, doc)
		set, ps := workflow.Build(cfg, sel, []string{file, product})
		if len(ps) > 0 {
			t.Errorf("example of %s:\n%s\n%v", sp.Kind, example, ps.Err())
			continue
		}
		if _, ok := set.Tool("example"); !ok {
			t.Errorf("example of %s did not load", sp.Kind)
		}
	}
}
