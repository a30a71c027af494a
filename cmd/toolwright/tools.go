package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/workflow"
)

func toolsCmd(g *globals) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "List the generated tools with their schemas",
		Long: `List the generated tools with their schemas: the workflows, then the
recording tools serve --record adds (marked "serve --record"). Every one is
what toolwright grant accepts.`,
		Args: cobra.NoArgs,
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
					ServedBy     string               `json:"served_by,omitempty"`
				}
				list := []tool{}
				for _, w := range app.Tools(set) {
					list = append(list, tool{w.Name, w.Title, w.Description, w.InputSchema, w.OutputSchema, w.Annotations(), servedBy(w)})
				}
				return printJSON(out, list)
			}
			for _, w := range app.Tools(set) {
				where := "env:" + w.Env
				if w.Native {
					where = servedBy(w)
				}
				fmt.Fprintf(out, "%-28s %-11s %-13s %s\n", w.Name, w.Risk, where, firstLine(w.Description))
				fmt.Fprintf(out, "  input: %s\n", w.InputSchema)
			}
			return nil
		},
	}
	formatFlag(cmd, &format)
	jsonAlias(cmd, &format)
	return cmd
}

// servedBy says what serves a tool that is not a workflow file's.
func servedBy(w *workflow.Workflow) string {
	if w.Native {
		return "serve --record"
	}
	return ""
}

func firstLine(s string) string {
	for i, r := range s {
		if r == '\n' {
			return s[:i]
		}
	}
	return s
}
