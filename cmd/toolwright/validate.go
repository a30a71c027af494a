package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/workflow"
)

func validateCmd(g *globals) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "validate [PATH...]",
		Short: "Lint workflows and the selector map; print file:line:col: message per problem",
		Long: "Lint workflow files or folders (default: the config's workflows folder) and the selector map.\n" +
			"A path named selectors.yaml is checked as the selector map. Exit 0 when clean, 1 with problems.",
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := g.load()
			if err != nil {
				return err
			}
			set, ps := workflow.LoadPaths(cfg, args)
			out := cmd.OutOrStdout()
			for _, w := range app.SecretWarnings(cfg) { // warnings: on stderr, never a problem
				fmt.Fprintln(cmd.ErrOrStderr(), "warning: "+w)
			}
			for _, w := range set.Warnings {
				fmt.Fprintln(cmd.ErrOrStderr(), "warning: "+w.String())
			}
			switch format {
			case "json":
				if ps == nil {
					ps = lint.Problems{}
				}
				if err := printJSON(out, ps); err != nil {
					return err
				}
			case "text":
				for _, p := range ps {
					fmt.Fprintln(out, p)
				}
				if len(ps) == 0 {
					fmt.Fprintf(cmd.ErrOrStderr(), "ok: %d tools, %d targets\n", len(set.Names()), len(set.Selectors.Names()))
				} else {
					fmt.Fprintf(cmd.ErrOrStderr(), "%d problems\n", len(ps))
				}
			default:
				return usagef("--format: want text or json, got %q", format)
			}
			if len(ps) > 0 {
				return exitCode(1)
			}
			return nil
		},
	}
	formatFlag(cmd, &format)
	return cmd
}
