package workflow_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/workflow"
)

// TestAbsentParamsAsDocumented: the README's table of what a left-out
// parameter with no default reads as names every parameter type, and each
// value is what Bind gives the workflow. Before (issue 48): the README did
// not say what a parameter without a default means when the call leaves it
// out.
func TestAbsentParamsAsDocumented(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(repo, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	const head = "| type | a left-out parameter with no default reads as |"
	i := strings.Index(string(readme), head)
	if i < 0 {
		t.Fatalf("README.md has no table %q", head)
	}
	documented := map[string]string{}
	row := regexp.MustCompile("^\\| `([a-z]+)` \\| `([^`]*)` \\|$")
	for _, line := range strings.Split(string(readme[i:]), "\n")[2:] {
		m := row.FindStringSubmatch(line)
		if m == nil {
			break
		}
		documented[m[1]] = m[2]
	}
	var types []string
	for _, f := range workflow.ParamDecl.Fields {
		if f.Name == "type" {
			types = f.Enum
		}
	}
	var params strings.Builder
	for _, typ := range types {
		extra := map[string]string{
			"integer": ", min: 1, max: 9", "number": ", min: 1, max: 9",
			"array": ", items: {type: string}, max_items: 3", "target": ", prefix: acme.login.",
		}[typ]
		params.WriteString("  p_" + typ + ": {type: " + typ + ", description: A " + typ + extra + "}\n")
	}
	cfg := testConfig(t)
	sel, _ := selector.Load(cfg.Selectors)
	file := filepath.Join(t.TempDir(), "absent.yaml")
	writeTestFile(t, file, "name: absent\ndescription: Parameters without defaults.\nrisk: read\nparams:\n"+params.String()+"steps:\n  - set: {x: 1}\n")
	set, ps := workflow.Build(cfg, sel, []string{file})
	if len(ps) > 0 {
		t.Fatal(ps.Err())
	}
	w, _ := set.Tool("absent")
	call, err := w.Bind(json.RawMessage(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, typ := range types {
		want, ok := documented[typ]
		if !ok {
			t.Errorf("the README's table does not say what a left-out %s parameter reads as", typ)
			continue
		}
		got, _ := json.Marshal(call.Params["p_"+typ])
		if string(got) != want {
			t.Errorf("a left-out %s parameter reads as %s; the README says %s", typ, got, want)
		}
	}
}
