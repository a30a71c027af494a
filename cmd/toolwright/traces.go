package main

import (
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/toolwright/toolwright/engine/store"
)

func tracesCmd(g *globals) *cobra.Command {
	var failed bool
	var since time.Duration
	var limit int
	var tool, format string
	cmd := &cobra.Command{
		Use:               "traces [TRACE_ID]",
		Short:             "List recent calls (newest first), or show one trace with its steps (JSON)",
		Args:              cobra.MaximumNArgs(1),
		ValidArgsFunction: g.completeTraceIDs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			return g.withStore(func(st store.Store) error {
				out := cmd.OutOrStdout()
				if len(args) == 1 {
					t, err := st.GetTrace(cmd.Context(), args[0])
					if err != nil {
						return fmt.Errorf("trace %s: %w", args[0], err)
					}
					return printJSON(out, t)
				}
				f := store.TraceFilter{FailedOnly: failed, Tool: tool, Limit: limit}
				if since > 0 {
					f.Since = time.Now().Add(-since)
				}
				list, err := st.ListTraces(cmd.Context(), f)
				if err != nil {
					return err
				}
				if format == "json" {
					return printJSON(out, list)
				}
				tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
				fmt.Fprintln(tw, "TRACE\tSTART\tTOOL\tTASK\tCODE\tMS\tSTEPS")
				for _, t := range list {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\n", t.ID, t.Start.Local().Format(time.DateTime), t.Tool, t.TaskID, t.Code, t.DurationMS, len(t.Steps))
				}
				return tw.Flush()
			})
		},
	}
	cmd.Flags().BoolVar(&failed, "failed", false, "only calls that did not end ok")
	cmd.Flags().DurationVar(&since, "since", 0, "only calls started within this long (e.g. 1h)")
	cmd.Flags().IntVar(&limit, "limit", 50, "at most this many")
	cmd.Flags().StringVar(&tool, "tool", "", "only this tool")
	_ = cmd.RegisterFlagCompletionFunc("tool", g.completeTools(false))
	formatFlag(cmd, &format)
	jsonAlias(cmd, &format)
	return cmd
}
