package main

import (
	"encoding/json"
	"io"

	"github.com/spf13/cobra"
)

// formatFlag adds `--format text|json` to a command that prints data.
func formatFlag(cmd *cobra.Command, p *string) {
	cmd.Flags().StringVar(p, "format", "text", "output format: text or json")
	_ = cmd.RegisterFlagCompletionFunc("format", fixed("text", "json"))
}

// jsonAlias keeps an older `--json` flag working beside --format json.
func jsonAlias(cmd *cobra.Command, format *string) {
	var on bool
	cmd.Flags().BoolVar(&on, "json", false, "the same as --format json")
	prev := cmd.PreRunE
	cmd.PreRunE = func(c *cobra.Command, args []string) error {
		if on {
			*format = "json"
		}
		if prev != nil {
			return prev(c, args)
		}
		return nil
	}
}

// checkFormat refuses a --format other than text or json (a usage error).
func checkFormat(format string) error {
	if format != "text" && format != "json" {
		return usagef("--format: want text or json, got %q", format)
	}
	return nil
}

// printJSON writes v as indented JSON.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
