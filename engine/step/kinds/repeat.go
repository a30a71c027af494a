package kinds

import (
	"context"

	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/step"
	"github.com/toolwright/toolwright/engine/tmpl"
)

func init() {
	step.Register(&step.Spec{
		Kind:     "repeat",
		Synonyms: []string{"loop", "while_loop"},
		Doc:      "Run steps again and again while a condition holds (or until it holds), at most max times.",
		Scope: func(_ *step.Step, sc tmpl.Scope) tmpl.Scope {
			return sc.InLoop()
		},
		OneOf: []string{"while", "until"},
		Fields: []step.Field{
			{Name: "max", Type: step.Bound, Required: true, Doc: "at most this many rounds: a number up to limits.max_loop or ${{ params.X }} with a declared max"},
			{Name: "while", Type: step.Cond, Scoped: true, Doc: "checked before each round (loop.index is the round's); the loop ends when it is false"},
			{Name: "until", Type: step.Cond, Scoped: true, Doc: "checked after each round (loop.index is the round's); the loop ends when it is true"},
			{Name: "steps", Type: step.Steps, Required: true, Doc: "the steps of one round (loop.index is 0-based)"},
		},
		Example: "repeat: {max: 5, until: vars.done, steps: [{click: acme.catalog.next_page}]}",
		Run: func(ctx context.Context, x step.Exec, s *step.Step) error {
			n, err := step.Need[step.Nesting](x, s)
			if err != nil {
				return err
			}
			max, err := x.BoundOf(s.Bound("max"))
			if err != nil {
				return err
			}
			while, until := s.Expr("while"), s.Expr("until")
			for i := 0; i < max; i++ {
				if while != nil {
					ok, err := n.TestIn(ctx, while, &step.Frame{Index: i})
					if err != nil || !ok {
						return err
					}
				}
				if err := n.RunSteps(ctx, s.Steps("steps"), &step.Frame{Index: i}); err != nil {
					return err
				}
				if until != nil {
					ok, err := n.TestIn(ctx, until, &step.Frame{Index: i})
					if err != nil || ok {
						return err
					}
				}
			}
			if while != nil {
				if ok, err := n.TestIn(ctx, while, &step.Frame{Index: max}); err != nil || !ok {
					return err
				}
				return errs.New(errs.LimitExceeded, "repeat ran %d times and `while: %s` still holds", max, while.Source)
			}
			return errs.New(errs.LimitExceeded, "repeat ran %d times and `until: %s` never held", max, until.Source)
		},
	})
}
