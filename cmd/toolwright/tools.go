package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/toolwright/toolwright/engine/workflow"
)

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

func firstLine(s string) string {
	for i, r := range s {
		if r == '\n' {
			return s[:i]
		}
	}
	return s
}
