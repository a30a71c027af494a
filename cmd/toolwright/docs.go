package main

import (
	"github.com/spf13/cobra"
	"github.com/toolwright/toolwright/engine/testrun/project"
	"github.com/toolwright/toolwright/engine/workflow"
)

func docsCmd(g *globals) *cobra.Command {
	var steps, reference bool
	cmd := &cobra.Command{
		Use:   "docs",
		Short: "Print a Markdown catalogue of the tools (--steps: of the step kinds; --reference: of every file an author writes)",
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case reference:
				return project.WriteReference(cmd.OutOrStdout())
			case steps:
				return workflow.WriteStepDocs(cmd.OutOrStdout())
			}
			set, err := g.loadSet()
			if err != nil {
				return err
			}
			return set.WriteDocs(cmd.OutOrStdout())
		},
	}
	cmd.Flags().BoolVar(&steps, "steps", false, "document the step kinds instead of the tools")
	cmd.Flags().BoolVar(&reference, "reference", false, "document every key of workflows, parameters, steps, the selector map, the config and test files")
	return cmd
}
