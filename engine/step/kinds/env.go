package kinds

import (
	"context"

	"github.com/toolwright/toolwright/engine/step"
)

func init() {
	step.Register(&step.Spec{
		Kind:      "open_env",
		Doc:       "Open (or reuse an idle) environment of a region and purpose; only in env: new workflows. Bounded by the call's deadline unless it has a timeout of its own.",
		Risk:      "read",
		EnvNew:    true,
		CallBound: true,
		Fields: []step.Field{
			{Name: "region", Type: step.Template, Doc: "a region of the server config (default local)"},
			{Name: "purpose", Type: step.Template, Doc: "what the environment is for: an account or a task family (default \"default\")"},
		},
		Example: "open_env: {region: \"${{ params.region }}\", purpose: \"${{ params.purpose }}\"}",
		Run: func(ctx context.Context, x step.Exec, s *step.Step) error {
			envs, err := step.Need[step.Environments](x, s)
			if err != nil {
				return err
			}
			var region, purpose string
			if t := s.Tmpl("region"); t != nil {
				if region, err = x.Text(ctx, t); err != nil {
					return err
				}
			}
			if t := s.Tmpl("purpose"); t != nil {
				if purpose, err = x.Text(ctx, t); err != nil {
					return err
				}
			}
			return envs.OpenEnv(ctx, region, purpose)
		},
	})
	step.Register(&step.Spec{
		Kind:    "close_env",
		Doc:     "Close the call's environment.",
		Risk:    "read",
		Example: "close_env: {}",
		Run: func(ctx context.Context, x step.Exec, s *step.Step) error {
			envs, err := step.Need[step.Environments](x, s)
			if err != nil {
				return err
			}
			return envs.CloseEnv(ctx)
		},
	})
	step.Register(&step.Spec{
		Kind:    "check_egress",
		Doc:     "Fetch the region's egress_check URL through the environment and fail with egress_failed when it does not answer as expected.",
		Risk:    "read",
		Example: "check_egress: {}",
		Run: func(ctx context.Context, x step.Exec, s *step.Step) error {
			envs, err := step.Need[step.Environments](x, s)
			if err != nil {
				return err
			}
			return envs.CheckEgress(ctx)
		},
	})
}
