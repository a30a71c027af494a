package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/browser"
	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/engine/run"
	"github.com/toolwright/toolwright/engine/selector"
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
			a, ctx, done, err := g.openApp(cmd)
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

// openApp assembles toolwright for a command that runs calls. ctx ends on
// Ctrl-C; done closes the browsers and the store.
func (g *globals) openApp(cmd *cobra.Command) (*app.App, context.Context, func(), error) {
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
	a, err := app.Open(cfg, log)
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

func selectorsCmd(g *globals) *cobra.Command {
	sel := &cobra.Command{Use: "selectors", Short: "Selector map tools"}
	var pages []string
	var prefix, format string
	check := &cobra.Command{
		Use:   "check --page URL|FILE ...",
		Short: "Open pages and report, per target, which locator resolves it (exit 0 when all by primary)",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(pages) == 0 {
				return usagef("give at least one --page URL or FILE")
			}
			if err := checkFormat(format); err != nil {
				return err
			}
			cfg, err := g.load()
			if err != nil {
				return err
			}
			m, ps := selector.Load(cfg.Selectors)
			if len(ps) > 0 {
				return usagef("the selector map has problems (run toolwright validate):\n%w", ps.Err())
			}
			names := m.WithPrefix(prefix)
			log, err := g.logger(cmd, cfg)
			if err != nil {
				return err
			}
			bo, err := app.BrowserOptions(cfg, log)
			if err != nil {
				return err
			}
			bo.AllowURL = nil // an operator's own check, not an agent's call
			bo.Spare = 0      // one environment for the whole check
			bm, err := browser.NewManager(bo)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			defer bm.Shutdown(context.WithoutCancel(ctx))
			env, err := bm.OpenTemporary(ctx, "", "selectors-check")
			if err != nil {
				return err
			}
			defer bm.Release(env)
			out := cmd.OutOrStdout()
			all := true
			var reports []map[string]any
			for _, p := range pages {
				u := pageURL(p)
				page := env.Page().Context(ctx)
				if err := page.Navigate(u); err != nil {
					return fmt.Errorf("open %s: %w", p, err)
				}
				if err := page.WaitLoad(); err != nil {
					return fmt.Errorf("load %s: %w", p, err)
				}
				hs := selector.Check(ctx, page, m, names)
				all = all && selector.AllPrimary(hs)
				if format == "json" {
					reports = append(reports, map[string]any{"page": p, "targets": hs})
					continue
				}
				fmt.Fprintf(out, "== %s\n", p)
				if err := selector.FormatHealth(out, hs); err != nil {
					return err
				}
			}
			if format == "json" {
				if err := printJSON(out, reports); err != nil {
					return err
				}
			}
			if !all {
				return exitCode(1)
			}
			return nil
		},
	}
	check.Flags().StringArrayVar(&pages, "page", nil, "a page URL or a local HTML file (repeatable)")
	check.Flags().StringVar(&prefix, "prefix", "", "check only targets whose name starts with this")
	formatFlag(check, &format)
	sel.AddCommand(check)
	return sel
}

// pageURL turns a file path into a file:// URL; URLs pass through.
func pageURL(p string) string {
	if strings.Contains(p, "://") {
		return p
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return "file://" + filepath.ToSlash(abs)
}
