package main

import (
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"github.com/toolwright/toolwright/engine/store"
)

func grantsCmd(g *globals) *cobra.Command {
	var all bool
	var format string
	cmd := &cobra.Command{
		Use:   "grants",
		Short: "List live grants (--all: expired and revoked too)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			return g.withStore(func(st store.Store) error {
				list, err := st.ListGrants(cmd.Context(), all)
				if err != nil {
					return err
				}
				if format == "json" {
					if list == nil {
						list = []store.Grant{}
					}
					return printJSON(cmd.OutOrStdout(), list)
				}
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
				fmt.Fprintln(tw, "GRANT\tTOOL\tTASK\tEXPIRES\tSTATE\tREASON")
				now := time.Now()
				for _, gr := range list {
					state := "live"
					switch {
					case gr.Revoked:
						state = "revoked"
					case !gr.Live(now):
						state = "expired"
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", gr.ID, gr.Tool, gr.TaskID, gr.Expires.Local().Format(time.DateTime), state, gr.Reason)
				}
				return tw.Flush()
			})
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "include expired and revoked grants")
	formatFlag(cmd, &format)
	return cmd
}
