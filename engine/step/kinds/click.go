package kinds

import (
	"context"

	"github.com/go-rod/rod/lib/proto"
	"github.com/toolwright/toolwright/engine/step"
)

func init() {
	step.Register(&step.Spec{
		Kind:      "click",
		Doc:       "Click a target once it is visible, enabled and stable.",
		Short:     "target",
		Risk:      "write",
		Acts:      true,
		Navigates: true,
		Fields: []step.Field{
			{Name: "target", Type: step.Target, Required: true, Doc: "the selector-map target to click"},
			{Name: "nth", Type: step.Int, Doc: "which match to click when the target matches several (0-based)"},
		},
		Example: "click: acme.login.submit",
		Run: func(ctx context.Context, x step.Exec, s *step.Step) error {
			el, err := element(ctx, x, s, "target", s.Int("nth"))
			if err != nil {
				return err
			}
			// Click waits until the element is stable (rod v0.116: Click →
			// Hover → WaitInteractable → ScrollIntoView → WaitStableRAF),
			// interactable and enabled; a WaitStableRAF before it only
			// waited two more animation frames (about 33 ms at 60 Hz).
			return el.Click(proto.InputMouseButtonLeft, 1)
		},
	})
}
