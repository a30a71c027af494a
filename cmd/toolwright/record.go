package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/policy"
	"github.com/toolwright/toolwright/engine/record"
	"github.com/toolwright/toolwright/engine/selcheck"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/testrun"
)

const recordLong = `Open the page in a Chromium window and record what you do there: clicks,
typing, choices, checkboxes, keys, uploads, popups and dialogs, in frames and
web components too. With the toolbar the recorder adds to the page, mark what
the tool returns (Value: one value; Rows: click a row, then each field in it;
Next page: the control that turns the page), then press Finish.

Out come workflows/NAME.yaml (typed text becomes bounded parameters, a value
equal to a configured secret becomes ${{ secrets.NAME }}), the new selector
entries (appended to the selector map under PREFIX, existing targets reused)
and tests/NAME.yaml. The workflow is validated, then run once in a fresh
environment with the recorded arguments; exit 0 only when it returned what you
saw. A password that matches no configured secret stops the recording and
names the secret to add: no secret is ever written to a file.

The window needs a display (DISPLAY). Without one, --live 127.0.0.1:PORT serves
the page's live view (its pixels, your mouse and keyboard forwarded; secrets
masked) at a link printed on stderr, to open in your own browser. Whoever opens that link drives the
browser, so a live recording is held to policy.allowed_hosts: a --page outside it is refused, and so is
every navigation outside it. --setup TOOL runs an env: new tool first (to sign in) and records in the
environment it made.`

func recordCmd(g *globals) *cobra.Command {
	r := &recordRun{g: g}
	cmd := &cobra.Command{
		Use:   "record NAME --page URL [--setup TOOL [--arg k=v]] [--prefix P]",
		Short: "Record a workflow: do the action once in a browser window, get the tool (exit 0 when its replay matched)",
		Long:  recordLong,
		Args:  cobra.ExactArgs(1),
		RunE:  func(cmd *cobra.Command, args []string) error { return r.run(cmd, args[0]) },
	}
	cmd.Flags().StringVar(&r.page, "page", "", "the page URL (or a local HTML file) to start on")
	cmd.Flags().StringVar(&r.prefix, "prefix", "", "name new selector entries PREFIX.NAME (default rec.NAME)")
	cmd.Flags().StringVar(&r.description, "description", "", "the tool's description (default: written from the steps)")
	cmd.Flags().StringVar(&r.liveAddr, "live", "", "serve the page's live view at http://ADDR/ (loopback only) for you to work in from your browser, instead of a window (for a machine without a display)")
	cmd.Flags().StringVar(&r.setup, "setup", "", "an env: new tool to run first (to sign in); the recording happens in its environment")
	cmd.Flags().StringArrayVar(&r.setupArgs, "arg", nil, "an argument NAME=VALUE of the --setup tool (repeatable)")
	_ = cmd.RegisterFlagCompletionFunc("setup", g.completeTools(false))
	return cmd
}

// recordRun is one `toolwright record`: its flags and its steps.
type recordRun struct {
	g                                          *globals
	page, prefix, setup, description, liveAddr string
	setupArgs                                  []string
}

// run checks the flags and files, records in a window (or the live
// view), writes the draft and replays it.
func (r *recordRun) run(cmd *cobra.Command, name string) error {
	if r.page == "" {
		return usagef("give --page URL or FILE")
	}
	if len(r.setupArgs) > 0 && r.setup == "" {
		return usagef("--arg goes with --setup TOOL")
	}
	cfg, stopDemo, err := r.g.loadRunnable(cmd)
	if err != nil {
		return err
	}
	defer stopDemo()
	paths, err := r.check(cfg, name)
	if err != nil {
		return err
	}
	var m *selector.Map
	if fileExists(cfg.Selectors) {
		var ps lint.Problems
		if m, ps = selector.Load(cfg.Selectors); len(ps) > 0 {
			return usagef("the selector map has problems (run toolwright validate):\n%w", ps.Err())
		}
	}
	log, err := r.g.logger(cmd, cfg)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
	defer stop()
	url := selcheck.URLOf(r.page)
	errw := cmd.ErrOrStderr()
	rec, err := app.Record(ctx, cfg, log, app.RecordOptions{
		Name: name, URL: url, Setup: r.setup, SetupArgs: r.setupArgs, Map: m, LiveAddr: r.liveAddr,
		Say: func(s string) { fmt.Fprintln(errw, s) },
	})
	if err != nil {
		return err
	}
	defer rec.Close()
	return r.finish(ctx, cmd, cfg, log, m, rec, paths, name, url)
}

// check makes sure nothing is overwritten and the recording can be seen:
// a display, or a loopback --live address.
func (r *recordRun) check(cfg *config.Config, name string) (record.Paths, error) {
	paths := record.Paths{
		Workflow:  filepath.Join(cfg.Workflows, name+".yaml"),
		Selectors: cfg.Selectors,
		Test:      filepath.Join(testrun.DefaultDir(cfg), name+".yaml"),
	}
	if _, err := record.MakeDraft(&record.Recording{}, record.DraftOptions{Name: name, Prefix: r.prefix}); err != nil {
		return paths, usageError{err}
	}
	for _, f := range []string{paths.Workflow, paths.Test} {
		if _, err := os.Stat(f); err == nil {
			return paths, usagef("%s exists: a recording never overwrites a file; choose another name", f)
		}
	}
	if r.liveAddr != "" {
		if host, _, err := net.SplitHostPort(r.liveAddr); err != nil || !config.IsLoopback(host) {
			return paths, usagef("--live %q: a loopback address and port, such as 127.0.0.1:8091", r.liveAddr)
		}
		return paths, nil
	}
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return paths, usagef("record opens a Chromium window for you to work in, and this machine has no display (DISPLAY is not set): give --live ADDR (such as 127.0.0.1:8091) to work in the live view in your own browser instead")
	}
	return paths, nil
}

// finish writes the draft, replays the tool and says whether it returned
// what the person saw (exit 1 when not).
func (r *recordRun) finish(ctx context.Context, cmd *cobra.Command, cfg *config.Config, log *slog.Logger, m *selector.Map, rec *app.Recorded, paths record.Paths, name, url string) error {
	errw := cmd.ErrOrStderr()
	red := policy.NewRedactor(cfg.SecretValues())
	d, err := record.MakeDraft(rec.Recording, record.DraftOptions{
		Name: name, Description: r.description, Prefix: r.prefix, StartURL: url, Map: m,
		Secrets: cfg.SecretValues(), Vars: cfg.Vars, MaxLoop: cfg.Limits.MaxLoop, UploadsDir: cfg.UploadsDir,
		Redact: red.Redact,
	})
	if err != nil {
		return err
	}
	if err := record.Write(d, paths); err != nil {
		return err
	}
	fmt.Fprintf(errw, "wrote %s, %s and %d selector entries in %s\n", paths.Workflow, paths.Test, len(d.Entries), paths.Selectors)
	env, diffs, err := app.Replay(ctx, cfg, log, d, operator())
	if err != nil {
		return err
	}
	fmt.Fprintf(errw, "record → validated, replayed tool in %s\n", time.Since(rec.Started).Round(time.Millisecond))
	if err := printJSON(cmd.OutOrStdout(), env); err != nil {
		return err
	}
	if len(diffs) > 0 {
		for _, df := range diffs {
			fmt.Fprintf(errw, "differs: %s\n", red.Redact(df))
		}
		return exitCode(exitFailed)
	}
	fmt.Fprintf(errw, "the replay returned what you saw: %s is ready (review it, then serve)\n", name)
	return nil
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }
