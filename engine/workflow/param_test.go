package workflow_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/workflow"
)

// TestParamRules checks each parameter rule in the generated schema and in
// argument binding.
func TestParamRules(t *testing.T) {
	cfg := testConfig(t)
	sel, _ := selector.Load(cfg.Selectors)
	src := `name: rules
description: Every parameter rule.
risk: read
params:
  mode:   {type: string, description: Mode, enum: [fast, full], default: fast}
  count:  {type: integer, description: Count, min: 1, max: 9, enum: [1, 3, 9], default: 3}
  ratio:  {type: number, description: Ratio, min: 0, max: 1, default: 0.5}
  tags:   {type: array, description: Tags, items: {type: string, max_length: 5}, max_items: 2}
  url:    {type: string, description: URL, format: url}
  field:  {type: target, description: A login field, prefix: acme.login.}
  code:   {type: string, description: Code, pattern: "^[A-Z]{3}$", min_length: 3, max_length: 3, required: true}
  flag:   {type: boolean, description: Flag}
steps:
  - set: {x: 1}
`
	file := filepath.Join(t.TempDir(), "rules.yaml")
	writeTestFile(t, file, src)
	set, ps := workflow.Build(cfg, sel, []string{file})
	if len(ps) > 0 {
		t.Fatal(ps.Err())
	}
	w, _ := set.Tool("rules")
	schema := string(w.InputSchema)
	for _, want := range []string{`"enum":["fast","full"]`, `"enum":[1,3,9]`, `"maximum":1`, `"maxItems":2`, `"pattern":"^https?://[^\\s/]+"`, `"enum":["acme.login.email","acme.login.error","acme.login.password","acme.login.submit"]`, `"required":["code"]`, `"additionalProperties":false`} {
		if !strings.Contains(schema, want) {
			t.Errorf("schema lacks %s:\n%s", want, schema)
		}
	}
	for _, tc := range []struct{ args, want string }{
		{`{"code":"ABC"}`, ""},
		{`{}`, `missing required argument "code" (rule: required)`},
		{`{"code":"ABC","mode":"slow"}`, `argument "mode" must be one of`},
		{`{"code":"ABC","count":2}`, `argument "count" must be one of`},
		{`{"code":"ABC","count":10}`, `argument "count" must be at most 9 (rule: maximum)`},
		{`{"code":"ABC","ratio":1.5}`, `argument "ratio" must be at most 1 (rule: maximum)`},
		{`{"code":"ABC","tags":["a","b","c"]}`, `argument "tags" may have at most 2 items (rule: maxItems)`},
		{`{"code":"ABC","tags":["toolong"]}`, `argument "tags.0" must be at most 5 characters (rule: maxLength)`},
		{`{"code":"ABC","url":"ftp://x"}`, `argument "url" does not match`},
		{`{"code":"ABC","field":"acme.catalog.rows"}`, `argument "field" must be one of`},
		{`{"code":"abc"}`, `argument "code" does not match ^[A-Z]{3}$ (rule: pattern)`},
		{`{"code":"ABC","flag":"yes"}`, `argument "flag" must be boolean, found string (rule: type)`},
		{`{"code":"ABC","cuont":1}`, `unknown argument "cuont" (did you mean "count"?)`},
		{`{"code":"ABC","task_id":"has space"}`, `argument "task_id" does not match`},
	} {
		c, err := w.Bind([]byte(tc.args))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.args, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: got %v, want %q", tc.args, err, tc.want)
		case tc.want == "":
			if c.Params["mode"] != "fast" || c.Params["count"] != 3 || c.Params["ratio"] != 0.5 || c.Params["flag"] != false {
				t.Errorf("defaults: %v", c.Params)
			}
		}
	}
}
