package kinds

import (
	"context"

	"github.com/toolwright/toolwright/engine/step"
)

func init() {
	step.Register(&step.Spec{
		Kind:  "goto",
		Doc:   "Open a URL in the environment's page. The host must be allowed by policy.allowed_hosts.",
		Short: "url",
		Risk:  "read",
		Fields: []step.Field{
			{Name: "url", Type: step.Template, Required: true, Doc: "the address to open (http or https)"},
			{Name: "wait_until", Type: step.Enum, Enum: []string{"load", "domcontentloaded"}, Default: "load", Doc: "which page event ends the step"},
		},
		Example: "goto: ${{ config.acme_base }}/login.html",
		Run: func(ctx context.Context, x step.Exec, s *step.Step) error {
			url, err := x.Text(ctx, s.Tmpl("url"))
			if err != nil {
				return err
			}
			wait := s.Str("wait_until")
			if wait == "" {
				wait = "load"
			}
			return x.Navigate(ctx, url, wait)
		},
	})
}
