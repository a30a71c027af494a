package main

import (
	"fmt"
	"os"
	"os/user"
	"time"

	"github.com/spf13/cobra"
	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/store"
	"github.com/toolwright/toolwright/engine/workflow"
)

func grantCmd(g *globals) *cobra.Command {
	var tool, task, reason, format string
	var ttl time.Duration
	cmd := &cobra.Command{
		Use:   "grant --tool T --task ID --ttl 15m --reason \"...\"",
		Short: "Allow a write or destructive tool for one task_id, for a while",
		Long: `Allow a write or destructive tool for one task_id, for a while.

The grant goes into the state dir of the config (--config), or of the demo
with --demo: use the command a not_granted message prints.

The tools are those toolwright tools lists: the workflows and the recording
tools of serve --record (page_click, page_fill, page_select, page_press,
save_workflow). A recording tool is accepted even when this config's server
runs without --record: a grant names a tool and a task, whatever serves it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			cfg, err := g.load()
			if err != nil {
				return err
			}
			set, _ := workflow.Load(cfg) // a grant names a tool; other problems do not matter here
			if err := app.CheckGrant(set, tool, task, ttl, reason); err != nil {
				return usagef("%v", err)
			}
			return g.withStore(func(st store.Store) error {
				gr, err := app.Grant(cmd.Context(), st, cfg, set, tool, task, ttl, reason, operator())
				if err != nil {
					return err
				}
				if format == "json" {
					return printJSON(cmd.OutOrStdout(), gr)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s: %s may run for task %s until %s\n", gr.ID, gr.Tool, gr.TaskID, gr.Expires.Local().Format(time.DateTime))
				return nil
			})
		},
	}
	formatFlag(cmd, &format)
	cmd.Flags().StringVar(&tool, "tool", "", "the tool to allow")
	_ = cmd.RegisterFlagCompletionFunc("tool", g.completeTools(true))
	cmd.Flags().StringVar(&task, "task", "", "the task_id the agent will call it with (1 to 128 of A-Z a-z 0-9 . _ : -)")
	cmd.Flags().DurationVar(&ttl, "ttl", 15*time.Minute, "how long the grant lives (at most 24h)")
	cmd.Flags().StringVar(&reason, "reason", "", fmt.Sprintf("why (kept in the audit trail; at most %d characters)", store.MaxGrantReason))
	for _, f := range []string{"tool", "task", "reason"} {
		_ = cmd.MarkFlagRequired(f)
	}
	return cmd
}

func operator() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return os.Getenv("USER")
}
