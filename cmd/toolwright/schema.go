package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/testrun/project"
)

func schemaCmd(g *globals) *cobra.Command {
	var out string
	var forProject bool
	cmd := &cobra.Command{
		Use:       "schema [workflow|selectors|config|test]",
		Short:     "Print a JSON Schema for editors' YAML plugins (default: workflow); --out DIR writes all four",
		Args:      cobra.MaximumNArgs(1),
		ValidArgs: project.SchemaNames,
		RunE: func(cmd *cobra.Command, args []string) error {
			var sel *selector.Map
			if forProject {
				cfg, err := g.load()
				if err != nil {
					return err
				}
				m, ps := selector.Load(cfg.Selectors)
				if len(ps) > 0 {
					return ps.Err()
				}
				sel = m
			}
			if out != "" {
				if len(args) > 0 {
					return fmt.Errorf("--out writes all four schemas; give no schema name")
				}
				paths, err := project.WriteSchemas(out, sel)
				for _, p := range paths {
					fmt.Fprintln(cmd.OutOrStdout(), p)
				}
				return err
			}
			name := "workflow"
			if len(args) == 1 {
				name = args[0]
			}
			b, err := project.Schema(name, sel)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s\n", b)
			return err
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "write workflow, selectors, config and test .schema.json into this folder")
	cmd.Flags().BoolVar(&forProject, "project", false, "write for this project: target fields complete the selector map's names")
	return cmd
}
