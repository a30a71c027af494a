package main

import (
	"fmt"
	"os"
	"os/user"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/toolwright/toolwright/engine/policy"
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
with --demo: use the command a not_granted message prints.`,
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
			w, ok := set.Tool(tool)
			switch {
			case !ok:
				return usagef("unknown tool %q (see toolwright tools)", tool)
			case !w.Writes():
				return usagef("tool %q is risk: read and needs no grant", tool)
			case ttl <= 0 || ttl > store.MaxGrantTTL:
				return usagef("--ttl must be more than 0 and at most %s, got %s", store.MaxGrantTTL, ttl)
			}
			// The store checks again; checked here, a bad --task or --reason
			// is a usage error (exit 2) before any database is opened. The
			// task_id is not trimmed: one with a space or a newline is
			// refused, never turned into another id.
			if err := store.CheckGrant(tool, task, ttl, strings.TrimSpace(reason)); err != nil {
				return usagef("%v", err)
			}
			// A reason is kept and printed: a secret typed into it is
			// redacted like every other string toolwright keeps.
			reason = policy.NewRedactor(cfg.RedactedValues()).Redact(reason)
			return g.withStore(func(st store.Store) error {
				gr, err := st.AddGrant(cmd.Context(), tool, task, ttl, reason, operator())
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
