package kinds

import (
	"context"
	"github.com/toolwright/toolwright/engine/backoff"
	"github.com/toolwright/toolwright/engine/step"
	"time"
)

func init() {
	step.Register(&step.Spec{
		Kind:     "sleep",
		Synonyms: []string{"pause", "delay"},
		Doc:      "Pause for a fixed time (at most 10s). Prefer wait: it ends as soon as the page is ready.",
		Short:    "duration",
		Risk:     "read",
		Fields: []step.Field{
			{Name: "duration", Type: step.Duration, Required: true, Max: 10 * time.Second, Doc: "how long to pause, at most 10s"},
		},
		Example: "sleep: 500ms",
		Run: func(ctx context.Context, x step.Exec, s *step.Step) error {
			if !backoff.Wait(ctx, s.Dur("duration")) {
				return ctx.Err()
			}
			return nil
		},
	})
}
