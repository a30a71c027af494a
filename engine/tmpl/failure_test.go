package tmpl_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/tmpl"
)

// TestEvalErrorReasons: every run-time failure of expr-lang we know is said
// in words an author can act on, and none carries expr-lang's own text.
func TestEvalErrorReasons(t *testing.T) {
	runEnv := tmpl.Env{"vars": map[string]any{"n": 3, "s": "abc", "l": []any{1, 2}, "m": map[string]any{"a": 1}, "z": nil}}
	sc := tmpl.Scope{Vars: []string{"n", "s", "l", "m", "z", "missing"}}
	for _, tc := range []struct {
		code, want string
		cond       bool
	}{
		{"vars.n % 0", "it divides by zero", false},
		{"vars.l[5]", "it reads position 5 of a list or text of length 2", false},
		{"vars.s[10]", "it reads position 10 of a list or text of length 3", false},
		{"vars.n.x", `it reads "x" of a number, which has no fields`, false},
		{"vars.m.a.b", `it reads "b" of a number, which has no fields`, false},
		{"vars.z.x", `it reads "x" of a value that is not set`, false},
		{"vars.missing.x", `it reads "x" of a value that is not set`, false},
		{"vars.s.x", `it reads "x" of text or of a list`, false},
		{"vars.l.rows", `it reads "rows" of text or of a list`, false},
		{"vars.s + 1", `"+" does not work between text and a number`, false},
		{"vars.l + vars.m", `"+" does not work between a list and a record`, false},
		{"-vars.s", `"-" does not work on text`, false},
		{"int(vars.s)", "it converts a value that is not a number into a number", false},
		{"len(vars.n)", "len() takes a list or text, not a number", false},
		{"upper(vars.n)", "a function or operator got a number where it needs text", false},
		{"vars.n()", "it calls something that is not a function", false},
		{"vars.s", "a condition must give true or false, and it gave text", true},
		{"vars.l", "a condition must give true or false, and it gave a list", true},
	} {
		var ps lint.Problems
		var err error
		if tc.cond {
			e := tmpl.CompileExpr(tc.code, tmpl.Site{File: "f.yaml"}, sc, true, &ps)
			if e != nil {
				_, err = e.Bool(runEnv)
			}
		} else {
			tm := tmpl.CompileTemplate("${{ "+tc.code+" }}", tmpl.Site{File: "f.yaml"}, sc, &ps)
			_, err = tm.Eval(runEnv)
		}
		if len(ps) > 0 {
			t.Errorf("%s: compile: %v", tc.code, ps.Err())
			continue
		}
		var ee *tmpl.EvalError
		if !errors.As(err, &ee) {
			t.Errorf("%s: error %v, want an *tmpl.EvalError", tc.code, err)
			continue
		}
		if ee.Source != tc.code || ee.Reason != tc.want && !strings.HasPrefix(ee.Reason, tc.want) {
			t.Errorf("%s: source %q, reason %q; want %q", tc.code, ee.Source, ee.Reason, tc.want)
		}
		for _, raw := range []string{"(1:", "interface {}", "runtime error", "invalid operation", "cannot fetch"} {
			if strings.Contains(ee.Reason, raw) {
				t.Errorf("%s: reason %q carries %q", tc.code, ee.Reason, raw)
			}
		}
	}
}
