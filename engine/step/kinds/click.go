package kinds

import (
	"context"

	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/step"
)

func init() {
	step.Register(&step.Spec{
		Kind:      "click",
		Synonyms:  []string{"tap", "tap_on", "press_button"},
		Doc:       "Click a target once it is visible, enabled and stable. A target covered by another element (a cookie banner, a modal) fails at once with target_covered, naming the cover.",
		Short:     "target",
		Risk:      "write",
		Acts:      true,
		Navigates: true,
		Pointer:   true,
		Fields: []step.Field{
			{Name: "target", Type: step.Target, Required: true, Doc: "the selector-map target to click"},
			{Name: "nth", Type: step.Int, Doc: "which match to click when the target matches several (0-based)"},
			{Name: "navigation", Type: step.Enum, Navigation: true, Enum: []string{"auto", "expect", "none"}, Default: "auto",
				Doc: "auto: a navigation the click starts, early or late (a form submitted after an async validation, a handler that posts with fetch first), has arrived before the next step acts; expect: the click must start one within the step's timeout (navigation_failed otherwise); none: wait for nothing"},
		},
		Example: "click: acme.login.submit",
		Run: func(ctx context.Context, x step.Exec, s *step.Step) error {
			if s.Int("nth") == 0 {
				// Found, in view, still, enabled and not covered in one
				// round trip when the page can tell on its own; else the
				// way below, which waits.
				rd, err := ready(ctx, x, s.Str("target"), selector.ReadyOptions{})
				if err != nil {
					return err
				}
				if rd != nil && !rd.Disabled {
					return rd.Click(ctx)
				}
			}
			el, err := element(ctx, x, s, "target", s.Int("nth"))
			if err != nil {
				return err
			}
			// Visible (the resolve waited for it), then in view, standing
			// still, enabled and not covered (a cover fails at once with
			// target_covered), then the mouse: see selector.Click.
			return selector.Click(ctx, el, selector.ActOptions{Name: targetLabel(x, s, "target")})
		},
	})
}
