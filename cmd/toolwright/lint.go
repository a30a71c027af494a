package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/app/project"
	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/selector"
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

func toolsCmd(g *globals) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "List the generated tools with their schemas",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			set, err := g.loadSet()
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if format == "json" {
				type tool struct {
					Name         string               `json:"name"`
					Title        string               `json:"title,omitempty"`
					Description  string               `json:"description"`
					InputSchema  json.RawMessage      `json:"inputSchema"`
					OutputSchema json.RawMessage      `json:"outputSchema"`
					Annotations  workflow.Annotations `json:"annotations"`
				}
				list := []tool{}
				for _, w := range set.Tools() {
					list = append(list, tool{w.Name, w.Title, w.Description, w.InputSchema, w.OutputSchema, w.Annotations()})
				}
				return printJSON(out, list)
			}
			for _, w := range set.Tools() {
				fmt.Fprintf(out, "%-28s %-11s env:%-9s %s\n", w.Name, w.Risk, w.Env, firstLine(w.Description))
				fmt.Fprintf(out, "  input: %s\n", w.InputSchema)
			}
			return nil
		},
	}
	formatFlag(cmd, &format)
	jsonAlias(cmd, &format)
	return cmd
}

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

// loadSet loads the config and a clean workflow set.
func (g *globals) loadSet() (*workflow.Set, error) {
	cfg, err := g.load()
	if err != nil {
		return nil, err
	}
	set, ps := workflow.Load(cfg)
	if len(ps) > 0 {
		return nil, usagef("the workflows have problems (run toolwright validate):\n%w", ps.Err())
	}
	return set, nil
}

func firstLine(s string) string {
	for i, r := range s {
		if r == '\n' {
			return s[:i]
		}
	}
	return s
}
