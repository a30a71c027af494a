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
				// A list derived from one list (map, filter, a slice)
				// keeps its source's truncated mark.
				cut := false
				if l, ok := x.(step.Lists); ok && nv.Value != nil && nv.Value.ListOf != "" {
					cut = l.Truncated(nv.Value.ListOf)
				}
				x.SetVar(nv.Name, v, false)
				if cut {
					x.MarkTruncated(nv.Name)
				}
			}
			return nil
		},
	})
}
