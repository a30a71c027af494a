package kinds

import (
	"context"

	"github.com/toolwright/toolwright/engine/step"
)

func init() {
	step.Register(&step.Spec{
		Kind:    "do",
		Doc:     "A group of steps; use it with if to run several steps on one condition.",
		Body:    step.Steps,
		Enters:  func(s *step.Step) []*step.Step { return s.Steps("") },
		Example: "do: [{click: acme.catalog.next_page}]\nif: page.url contains 'catalog'",
		Run: func(ctx context.Context, x step.Exec, s *step.Step) error {
			n, err := step.Need[step.Nesting](x, s)
			if err != nil {
				return err
			}
			return n.RunSteps(ctx, s.Steps(""), nil)
		},
	})
}
