package kinds

import (
	"context"

	"github.com/toolwright/toolwright/engine/step"
)

func init() {
	step.Register(&step.Spec{
		Kind:       "set",
		Synonyms:   []string{"let", "assign", "variables", "store"},
		Doc:        "Set variables (vars.NAME) from values or templates.",
		Risk:       "read",
		Body:       step.ValueMap,
		LeavesPage: true,
		Example:    `set: {greeting: "Hello ${{ params.query }}", count: 0}`,
		Run: func(ctx context.Context, x step.Exec, s *step.Step) error {
			for _, nv := range s.Values("") {
				v, err := x.Eval(ctx, nv.Value)
				if err != nil {
					return err
				}
				// A list derived from one list (map, filter, a slice)
				// keeps its source's truncated mark.
				l, lists := x.(step.Lists)
				cut := lists && nv.Value.Truncated(l.Truncated)
				x.SetVar(nv.Name, v, false)
				if cut {
					l.MarkTruncated(nv.Name)
				}
			}
			return nil
		},
	})
}
