package kinds

import (
	"context"
	"fmt"
	"strings"

	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/step"
)

func init() {
	step.Register(&step.Spec{
		Kind:     "assert",
		Synonyms: []string{"expect", "verify", "check", "should"},
		Doc:      "Check that something holds now; if not, end the call with assertion_failed or your own code.",
		Risk:     "read",
		OneOf:    []string{"visible", "text", "url", "that"},
		Fields: append(condFields("", "visible", "text", "url"),
			step.Field{Name: "that", Type: step.Cond, Doc: "this condition is true"},
			step.Field{Name: "code", Type: step.String, Doc: "the code to fail with (default assertion_failed)"},
			step.Field{Name: "message", Type: step.Template, Doc: "the message to fail with"},
			step.Field{Name: "retryable", Type: step.Bool, Doc: "whether the failure is retryable (default false)"},
		),
		Example: "assert: {that: len(vars.rows) > 0, code: no_results, message: nothing matched}",
		Check:   checkCode,
		Run: func(ctx context.Context, x step.Exec, s *step.Step) error {
			ok, what, err := holds(ctx, x, s)
			if err != nil || ok {
				return err
			}
			code := s.Str("code")
			if code == "" {
				code = errs.AssertionFailed
			}
			msg := "assertion failed: " + what
			if t := s.Tmpl("message"); t != nil {
				if msg, err = x.Text(ctx, t); err != nil {
					return err
				}
			}
			e := errs.New(code, "%s", msg)
			e.Retryable = s.Bool("retryable")
			return e
		},
	})
}

// holds checks the assertion once and describes it for the default message.
func holds(ctx context.Context, x step.Exec, s *step.Step) (bool, string, error) {
	switch {
	case s.Has("visible"):
		// Looked at as a wait looks (what a person sees: not a match made
		// transparent), once.
		name := s.Str("visible")
		i, err := x.Holds(ctx, []selector.Cond{{Kind: selector.CondVisible, Target: name}})
		if err == nil && i < 0 || errs.CodeOf(err) == errs.TargetNotFound {
			return false, fmt.Sprintf("target %s is not visible", name), nil
		}
		return err == nil, "", err
	case s.Has("text"):
		text, err := x.Text(ctx, s.Tmpl("text"))
		if err != nil {
			return false, "", err
		}
		page, err := x.Page(ctx)
		if err != nil {
			return false, "", err
		}
		res, err := page.Eval(`() => document.body ? document.body.innerText : ''`)
		if err != nil {
			return false, "", err
		}
		return strings.Contains(selector.Normalize(res.Value.Str()), selector.Normalize(text)), fmt.Sprintf("text %q is not on %s", text, pagePath(page)), nil
	case s.Has("url"):
		glob, err := x.Text(ctx, s.Tmpl("url"))
		if err != nil {
			return false, "", err
		}
		page, err := x.Page(ctx)
		if err != nil {
			return false, "", err
		}
		info, err := page.Info()
		if err != nil {
			return false, "", err
		}
		return selector.MatchURL(glob, info.URL), fmt.Sprintf("the URL %s does not match %q", selector.URLPath(info.URL), glob), nil
	default:
		e := s.Expr("that")
		ok, err := x.Test(ctx, e)
		return ok, fmt.Sprintf("%s is false", e.Source), err
	}
}
