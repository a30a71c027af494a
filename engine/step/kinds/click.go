package kinds

import (
	"context"

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
		Submits:   true,
		Fields: []step.Field{
			{Name: "target", Type: step.Target, Required: true, Doc: "the selector-map target to click"},
			{Name: "nth", Type: step.Int, Doc: "which match to click when the target matches several (0-based)"},
			{Name: "navigation", Type: step.Enum, Navigation: true, Enum: []string{"auto", "expect", "none"}, Default: "auto",
				Doc: "auto: a navigation the click starts, early or late (a form submitted after an async validation, a handler that posts with fetch first), has arrived before the next step acts; expect: the click must start one within the step's timeout (navigation_failed otherwise); none: wait for nothing"},
		},
		Example: "click: acme.login.submit",
		Run: func(ctx context.Context, x step.Exec, s *step.Step) error {
			click, err := clicker(ctx, x, s, "target", s.Int("nth"))
			if err != nil {
				return err
			}
			return click(ctx)
		},
	})
}
