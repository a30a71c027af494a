package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/toolwright/toolwright/engine/testrun/project"
)

func initCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "init [DIR]",
		Short: "Start a new project: toolwright.yaml, workflows/, selectors/, tests/, editor schemas and settings",
		Long: "Write a new project into DIR (default: the current folder): a config, one example workflow with\n" +
			"its selector map, a test of it with a small site to serve, the four editor schemas and\n" +
			".vscode/settings.json mapping them. Existing files are never overwritten.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			files, err := project.Init(dir)
			if err != nil {
				return err
			}
			for _, f := range files {
				if rel, err := filepath.Rel(dir, f); err == nil {
					f = rel
				}
				fmt.Fprintln(cmd.OutOrStdout(), f)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "new project in %s: try `toolwright validate` and `toolwright test` there\n", dir)
			return nil
		},
	}
}
