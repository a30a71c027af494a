package kinds

import (
	"context"

	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/step"
)

func init() {
	step.Register(&step.Spec{
		Kind:     "hover",
		Synonyms: []string{"mouse_over", "mouseover"},
		Doc:      "Move the mouse over a target (menus that open on hover), with the guarantees of click: in view, standing still, not covered (target_covered), its tab in front.",
		Short:    "target",
		Risk:     "read",
		Fields: []step.Field{
			{Name: "target", Type: step.Target, Required: true, Doc: "the target to hover"},
		},
		Example: "hover: acme.login.submit",
		Run: func(ctx context.Context, x step.Exec, s *step.Step) error {
			el, err := element(ctx, x, s, "target", 0)
			if err != nil {
				return err
			}
			return selector.Hover(ctx, el, selector.ActOptions{Name: targetLabel(x, s, "target")})
		},
	})
}
