package step_test

import (
	"testing"

	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/step"
	_ "github.com/toolwright/toolwright/engine/step/kinds"
	"github.com/toolwright/toolwright/engine/tmpl"
	"github.com/toolwright/toolwright/engine/yamlx"
)

// TestTypedTemplateFields: a whole template of an integer or boolean
// parameter is accepted in Int and Bool fields, keeps its type at run
// time, and a parameter of another type is a load error at its place.
func TestTypedTemplateFields(t *testing.T) {
	m, ps := selector.Parse("s.yaml", []byte("acme.rows:\n  css: tr\n  many: true\nacme.go:\n  css: button\n"))
	if len(ps) > 0 {
		t.Fatal(ps.Err())
	}
	zero, three := 0.0, 3.0
	params := map[string]step.ParamInfo{
		"n":    {Type: "integer", Min: &zero, Max: &three},
		"all":  {Type: "boolean"},
		"word": {Type: "string"},
	}
	decode := func(src string) ([]*step.Step, lint.Problems) {
		var ps lint.Problems
		c := &step.Checker{File: "w.yaml", Map: m, Params: params, MaxLoop: 100, Problems: &ps}
		steps := c.Decode(yamlx.Doc("w.yaml", []byte(src), &ps), "", tmpl.Scope{})
		c.Compile(tmpl.Scope{Params: []string{"n", "all", "word"}})
		return steps, ps
	}
	steps, ps := decode("- click: {target: acme.go, nth: '${{ params.n }}'}\n- extract: {from: acme.rows, list: \"${{ params.all }}\", limit: \"${{ params.n }}\", into: rows}\n")
	if len(ps) > 0 {
		t.Fatal(ps.Err())
	}
	env := tmpl.Env{"params": map[string]any{"n": 2, "all": true}}
	click, err := steps[0].Bind(env)
	if err != nil || click.Int("nth") != 2 {
		t.Errorf("nth = %d, %v; want 2", click.Int("nth"), err)
	}
	ex, err := steps[1].Bind(env)
	if err != nil || !ex.Bool("list") || ex.Int("limit") != 2 {
		t.Errorf("list = %v, limit = %d, %v", ex.Bool("list"), ex.Int("limit"), err)
	}
	if steps[0].Int("nth") != 0 {
		t.Error("Bind must not change the decoded step")
	}
	// Any other one template is checked when the step runs, in wait's any
	// forms too.
	steps, ps = decode("- set: {i: 1}\n- click: {target: acme.go, nth: '${{ vars.i + 1 }}'}\n- wait: {any: [{count: acme.rows, at_least: '${{ vars.i }}'}, {text: x}]}\n")
	if len(ps) > 0 {
		t.Fatal(ps.Err())
	}
	vars := func(i any) tmpl.Env { return tmpl.Env{"vars": map[string]any{"i": i}} }
	click, err = steps[1].Bind(vars(2))
	if err != nil || click.Int("nth") != 3 {
		t.Errorf("nth = %d, %v; want 3", click.Int("nth"), err)
	}
	wait, err := steps[2].Bind(vars("2")) // text read from a page
	if err != nil || wait.Forms("any")[0].Int("at_least") != 2 {
		t.Fatalf("at_least = %v, %v; want 2", wait, err)
	}
	if _, ok := steps[2].Forms("any")[0].Args["at_least"].(*tmpl.Template); !ok {
		t.Error("Bind must not change the decoded forms")
	}
	if _, err := steps[1].Bind(vars(1.5)); err == nil || err.Error() != "nth: ${{ vars.i + 1 }} gave 2.5, not a whole number of 0 or more" {
		t.Errorf("nth of 2.5: %v", err)
	}
	if _, err := steps[2].Bind(vars(-1)); err == nil || err.Error() != "any[0] at_least: ${{ vars.i }} gave -1, not a whole number of 0 or more" {
		t.Errorf("at_least of -1: %v", err)
	}
	_, ps = decode("- click: {target: acme.go, nth: '${{ params.word }}'}\n")
	if len(ps) != 1 || ps[0].String() != `w.yaml:1:33: step click nth takes a whole number; parameter "word" is string` {
		t.Errorf("problems: %v", ps)
	}
}
