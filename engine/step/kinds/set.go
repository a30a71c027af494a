package kinds

import (
	"context"

	"github.com/toolwright/toolwright/engine/step"
)

func init() {
	step.Register(&step.Spec{
		Kind:    "set",
		Doc:     "Set variables (vars.NAME) from values or templates.",
		Risk:    "read",
		Body:    step.ValueMap,
		Example: `set: {greeting: "Hello ${{ params.query }}", count: 0}`,
		Run: func(ctx context.Context, x step.Exec, s *step.Step) error {
			for _, nv := range s.Values("") {
				v, err := x.Eval(ctx, nv.Value)
				if err != nil {
					return err
				}
				x.SetVar(nv.Name, v, false)
			}
			return nil
		},
	})
}
