package run_test

import (
	"github.com/toolwright/toolwright/internal/harness"
	"strings"
	"testing"
)

// exprFails fails at run time in the place its param where says: the
// values are only known then, so the loader cannot catch them.
const exprFails = `name: expr_fails
description: Fail in an expression at run time, where the argument says.
risk: read
params:
  where: {type: string, description: Which expression fails, enum: [divide, index, condition, items, output]}
  d: {type: integer, description: A divisor, min: 0, max: 9, default: 0}
  words: {type: array, description: Some words, items: {type: string, max_length: 10}, max_items: 3, default: [a, b]}
steps:
  - set: {n: 7}
  - name: divide
    if: ${{ params.where == "divide" }}
    set: {q: "${{ params.d * 0 + vars.n % params.d }}"}
  - name: pick a word
    if: ${{ params.where == "index" }}
    set: {w: "word ${{ params.words[params.d + 5] }}"}
  - if: ${{ params.where == "condition" }}
    do:
      - repeat:
          max: 3
          until: ${{ params.words[loop.index] }}
          steps:
            - set: {k: 1}
  - if: ${{ params.where == "items" }}
    for_each:
      items: ${{ params.words }}
      as: word
      max: 3
      steps:
        - set: {u: "${{ word.text }}"}
output:
  odd: '${{ params.where == "output" ? params.words[9] : "" }}'
`

// TestExpressionFailureMessage: an expression that fails while a call runs
// is named in the message with its step, in words; expr-lang's own text
// ("runtime error", "(1:8)", "interface {}") stays in the trace (issue 11
// (10): before, the message carried it raw). A position past a list's end
// is the data's shape, not a bug: assertion_failed saying the way out
// (issue 48); the rest is internal, saying to fix the workflow.
func TestExpressionFailureMessage(t *testing.T) {
	t.Parallel()
	h := harness.New(t, map[string]string{"expr_fails": exprFails}, nil)
	raw := []string{"runtime error", "(1:", "\n", " | ", "interface {}", "cannot fetch", "invalid operation", "out of range:", "%!"}
	for _, tc := range []struct {
		where string
		want  []string
		code  string
	}{
		{"divide", []string{`"params.d * 0 + vars.n % params.d"`, "in step divide (#2)", "divides by zero"}, ""},
		{"index", []string{`"params.words[params.d + 5]"`, "in step pick a word (#3)", "position 5 of a list or text of length 2"}, "assertion_failed"},
		{"condition", []string{`"params.words[loop.index]"`, "in step repeat (#4.1)", "must give true or false, and it gave text"}, ""},
		{"items", []string{`"word.text"`, "in step set (#5.1)", `reads "text" of text or of a list`}, ""},
		{"output", []string{`"params.where == \"output\" ? params.words[9] : \"\""`, "in the output", "position 9"}, "assertion_failed"},
	} {
		t.Run(tc.where, func(t *testing.T) {
			if tc.code == "" {
				tc.code = "internal"
			}
			env := h.Code(h.Call("expr_fails", `{"where":"`+tc.where+`"}`), tc.code)
			for _, w := range tc.want {
				if !strings.Contains(env.Message, w) {
					t.Errorf("message %q does not say %q", env.Message, w)
				}
			}
			for _, r := range raw {
				if strings.Contains(env.Message, r) {
					t.Errorf("message %q carries lower-layer text %q", env.Message, r)
				}
			}
			todo := map[string]string{"internal": "fix the workflow", "assertion_failed": "get(list, N) ?? default"}[tc.code]
			if !strings.Contains(env.Message, todo) {
				t.Errorf("message %q does not say what to do", env.Message)
			}
			// the trace keeps expr-lang's text for whoever fixes it
			var causes []string
			for _, s := range h.Trace(env).Steps {
				causes = append(causes, s.Error)
			}
			if tc.where != "output" && !strings.Contains(strings.Join(causes, " "), "(1:") {
				t.Errorf("the trace lost the raw cause: %q", causes)
			}
		})
	}
}
