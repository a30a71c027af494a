package kinds

import (
	"context"
	"regexp"

	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/step"
)

var codeRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// checkCode checks a business error code field.
func checkCode(c *step.Checker, s *step.Step) {
	if code := s.Str("code"); code != "" && !codeRE.MatchString(code) {
		c.Addf(s.Pos, lint.BadName, "step %s: code %q must be snake_case, like out_of_stock", s.Spec.Kind, code)
	}
}

func init() {
	step.Register(&step.Spec{
		Kind:       "fail",
		Synonyms:   []string{"error", "raise", "throw", "abort"},
		Doc:        "End the call with a business error of your own code (use it with if).",
		Risk:       "read",
		LeavesPage: true,
		Fields: []step.Field{
			{Name: "code", Type: step.String, Required: true, Doc: "a snake_case code the agent can act on, like out_of_stock"},
			{Name: "message", Type: step.Template, Doc: "what happened, for the agent"},
			{Name: "retryable", Type: step.Bool, Doc: "may the agent retry the same call"},
			{Name: "needs_human", Type: step.Bool, Doc: "must a person take over"},
		},
		Example: "fail: {code: out_of_stock, message: \"${{ params.sku }} is out of stock\"}\nif: vars.stock == 0",
		Check:   checkCode,
		Run: func(ctx context.Context, x step.Exec, s *step.Step) error {
			msg := s.Str("code")
			if t := s.Tmpl("message"); t != nil {
				m, err := x.Text(ctx, t)
				if err != nil {
					return err
				}
				msg = m
			}
			return &errs.Error{Code: s.Str("code"), Message: msg, Retryable: s.Bool("retryable"), NeedsHuman: s.Bool("needs_human")}
		},
	})
}
