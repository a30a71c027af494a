package main

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"os/signal"

	"github.com/spf13/cobra"
	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/engine/run"
)

func runCmd(g *globals) *cobra.Command {
	var pairs []string
	var argsJSON, taskID string
	cmd := &cobra.Command{
		Use:               "run TOOL",
		Short:             "Run one call and print its envelope as JSON (exit 0 ok, 1 not ok)",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: g.completeToolArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			a, ctx, done, err := g.openApp(cmd, args[0])
			if err != nil {
				return err
			}
			defer done()
			w, ok := a.Engine.Workflows().Tool(args[0])
			if !ok {
				return usagef("unknown tool %q (see toolwright tools)", args[0])
			}
			callArgs := map[string]any{}
			if argsJSON != "" {
				if err := json.Unmarshal([]byte(argsJSON), &callArgs); err != nil {
					return usagef("--args-json: %v", err)
				}
			}
			parsed, err := app.ParseArgs(w, pairs)
			if err != nil {
				return printEnvelope(cmd, result.Failure(err))
			}
			for k, v := range parsed {
				callArgs[k] = v
			}
			if taskID != "" {
				callArgs["task_id"] = taskID
			}
			raw, _ := json.Marshal(callArgs)
			env, err := a.Engine.Call(ctx, run.Request{Tool: w.Name, Args: raw})
			if err != nil {
				return err
			}
			return printEnvelope(cmd, env)
		},
	}
	cmd.Flags().StringArrayVar(&pairs, "arg", nil, "an argument NAME=VALUE, read as the parameter's declared type (repeatable)")
	cmd.Flags().StringVar(&argsJSON, "args-json", "", "all arguments as one JSON object")
	cmd.Flags().StringVar(&taskID, "task-id", "", "the task_id (idempotency key; needed for write tools)")
	return cmd
}

// openApp assembles toolwright for a command that runs calls of tool (""
// for any tool: every secret must then be readable). ctx ends on Ctrl-C;
// done closes the browsers and the store.
func (g *globals) openApp(cmd *cobra.Command, tool string) (*app.App, context.Context, func(), error) {
	cfg, stopDemo, err := g.loadRunnable(cmd)
	if err != nil {
		return nil, nil, nil, err
	}
	log, err := g.logger(cmd, cfg)
	if err != nil {
		stopDemo()
		return nil, nil, nil, err
	}
	cfg.Browser.Spare = 0 // one call: a spare environment would only be made to be closed
	open := app.Open
	if tool != "" {
		open = func(cfg *config.Config, log *slog.Logger) (*app.App, error) { return app.OpenFor(cfg, log, tool) }
	}
	a, err := open(cfg, log)
	if err != nil {
		stopDemo()
		if le := (*lint.Error)(nil); cfg.SecretsErr() != nil || errors.As(err, &le) {
			err = usageError{err} // run fails fast on a secret it cannot read or a broken workflow
		}
		return nil, nil, nil, err
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
	return a, ctx, func() {
		stop()
		_ = a.Close(context.WithoutCancel(ctx))
		stopDemo()
	}, nil
}

// printEnvelope writes the envelope and turns not-ok into exit status 1.
func printEnvelope(cmd *cobra.Command, env *result.Envelope) error {
	if err := printJSON(cmd.OutOrStdout(), env); err != nil {
		return err
	}
	if !env.OK {
		return exitCode(exitFailed)
	}
	return nil
}
