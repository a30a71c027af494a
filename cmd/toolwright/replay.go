package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	"github.com/toolwright/toolwright/engine/run"
)

func replayCmd(g *globals) *cobra.Command {
	var taskID string
	cmd := &cobra.Command{
		Use:   "replay TRACE_ID",
		Short: "Run a recorded call again with the same arguments and print the new envelope",
		Long: `Run a recorded call again with the same arguments and print the new envelope.

A call whose task_id already has a stored result (a success, or a failure
that is not retryable) is answered from that record, as idempotency
requires, and nothing runs; replay says so on stderr. Give --task-id to run
it again under another task_id (a write tool needs a grant for that one).`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: g.completeTraceIDs,
		RunE: func(cmd *cobra.Command, args []string) error {
			a, ctx, done, err := g.openApp(cmd, "")
			if err != nil {
				return err
			}
			defer done()
			t, err := a.Store.GetTrace(ctx, args[0])
			if err != nil {
				return fmt.Errorf("trace %s: %w", args[0], err)
			}
			raw, err := run.ReplayArgs(t)
			if err != nil {
				return err
			}
			if taskID != "" {
				if raw, err = withTaskID(raw, taskID); err != nil {
					return fmt.Errorf("trace %s: %w", t.ID, err)
				}
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "replaying %s (%s) with %s\n", t.ID, t.Tool, raw)
			start := time.Now().Truncate(time.Millisecond) // traces keep milliseconds
			env, err := a.Engine.Call(ctx, run.Request{Tool: t.Tool, Args: raw})
			if err != nil {
				return err
			}
			if prev, err := a.Store.GetTrace(ctx, env.TraceID); err == nil && prev.Start.Before(start) {
				fmt.Fprintf(cmd.ErrOrStderr(), "nothing ran: task_id %q already has a stored result (trace %s); use --task-id to run the call again\n", env.TaskID, env.TraceID)
			}
			return printEnvelope(cmd, env)
		},
	}
	cmd.Flags().StringVar(&taskID, "task-id", "", "run under this task_id instead of the recorded one")
	return cmd
}

// withTaskID replaces the task_id in recorded arguments.
func withTaskID(raw json.RawMessage, taskID string) (json.RawMessage, error) {
	args := map[string]any{}
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, fmt.Errorf("recorded arguments: %w", err)
	}
	args["task_id"] = taskID
	return json.Marshal(args)
}
