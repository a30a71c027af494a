package app

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/go-rod/rod"
	"github.com/toolwright/toolwright/engine/browser"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/run"
	"github.com/toolwright/toolwright/engine/workflow"
)

// UsageError is a mistake in what the operator asked for (an unknown
// --setup tool, an argument it cannot take): the CLI exits 2 on it.
type UsageError struct{ Err error }

func (e UsageError) Error() string { return e.Err.Error() }
func (e UsageError) Unwrap() error { return e.Err }

func usagef(format string, args ...any) error { return UsageError{fmt.Errorf(format, args...)} }

// OpenPage opens the browser tab `selectors check` and `selectors suggest`
// work in. Without setup it is a fresh environment of its own; with setup
// (an env: new tool, such as one that signs in, and its NAME=VALUE
// arguments) that tool runs first and the tab is the environment it opened.
// done closes the environment and everything opened for it.
func OpenPage(ctx context.Context, cfg *config.Config, log *slog.Logger, setup string, setupArgs []string) (*rod.Page, func(), error) {
	if setup == "" {
		return openFreshPage(ctx, cfg, log, false)
	}
	return openSetupPage(ctx, cfg, log, setup, setupArgs)
}

// openFreshPage is a temporary environment of a manager of its own; a
// guarded one keeps policy.allowed_hosts (and policy.subresources) as a
// workflow call's environment does.
func openFreshPage(ctx context.Context, cfg *config.Config, log *slog.Logger, guarded bool) (*rod.Page, func(), error) {
	bo, err := BrowserOptions(cfg, log)
	if err != nil {
		return nil, nil, err
	}
	if !guarded {
		// An operator's own check, not an agent's call: any page, and all
		// it loads (policy.subresources holds requests by the allowed
		// hosts, which this environment does not apply).
		bo.AllowURL, bo.HoldSubresources, bo.ConnectSrc = nil, false, nil
	}
	bo.Spare = 0
	bm, err := browser.NewManager(bo)
	if err != nil {
		return nil, nil, err
	}
	env, err := bm.OpenTemporary(ctx, "", "selectors-check")
	if err != nil {
		_ = bm.Shutdown(context.WithoutCancel(ctx))
		return nil, nil, err
	}
	return env.Page(), func() { bm.Release(env); _ = bm.Shutdown(context.WithoutCancel(ctx)) }, nil
}

// openSetupPage runs the setup tool and acquires the environment it opened.
func openSetupPage(ctx context.Context, cfg *config.Config, log *slog.Logger, setup string, setupArgs []string) (*rod.Page, func(), error) {
	a, err := OpenFor(cfg, log, setup)
	if err != nil {
		return nil, nil, UsageError{err}
	}
	closeApp := func() { _ = a.Close(context.WithoutCancel(ctx)) }
	id, traceID, err := runSetup(ctx, a, setup, setupArgs)
	if err != nil {
		closeApp()
		return nil, nil, err
	}
	e, err := a.Browsers.Acquire(ctx, id)
	if err != nil {
		closeApp()
		return nil, nil, fmt.Errorf("--setup %s: its output has no usable env_id (%q): %w", setup, id, err)
	}
	log.Info("checking in the setup environment", "tool", setup, "env_id", id, "trace_id", traceID)
	return e.Page(), func() {
		a.Browsers.Release(e)
		_ = a.Browsers.Close(context.WithoutCancel(ctx), id)
		closeApp()
	}, nil
}

// runSetup checks and runs the setup tool; it returns the env_id of its
// output and the call's trace.
func runSetup(ctx context.Context, a *App, setup string, setupArgs []string) (id, traceID string, err error) {
	w, ok := a.Engine.Workflows().Tool(setup)
	if !ok {
		return "", "", usagef("--setup: unknown tool %q (see toolwright tools)", setup)
	}
	if w.Env != workflow.EnvNew {
		return "", "", usagef("--setup: tool %q is env: %s; it must be an env: new tool that opens the environment to check in", setup, w.Env)
	}
	args, err := ParseArgs(w, setupArgs)
	if err != nil {
		return "", "", UsageError{err}
	}
	// Start the browser before the setup tool runs, so its launch (slow on
	// a loaded machine) never counts against open_env's step timeout.
	if err := a.Browsers.Start(ctx); err != nil {
		return "", "", fmt.Errorf("--setup: the browser did not start: %w", err)
	}
	raw, _ := json.Marshal(args)
	env, err := a.Engine.Call(ctx, run.Request{Tool: setup, Args: raw})
	if err != nil {
		return "", "", err
	}
	if !env.OK {
		return "", "", fmt.Errorf("--setup %s failed: %s: %s (trace %s)", setup, env.Code, env.Message, env.TraceID)
	}
	id, _ = env.Data["env_id"].(string)
	return id, env.TraceID, nil
}
