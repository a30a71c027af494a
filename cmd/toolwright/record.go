package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/go-rod/rod"
	"github.com/spf13/cobra"
	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/htmlview"
	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/policy"
	"github.com/toolwright/toolwright/engine/record"
	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/engine/run"
	"github.com/toolwright/toolwright/engine/selcheck"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/testrun"
	"github.com/toolwright/toolwright/engine/workflow"
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
masked) at a link printed on stderr, to open in your own browser. --setup TOOL runs an env: new tool first
(to sign in) and records in the environment it made.`

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
	cmd.Flags().StringVar(&r.liveAddr, "live", "", "without a display: serve the page's live view at http://ADDR/ (loopback only) for you to work in from your browser")
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
	paths, display, err := r.check(cfg, name)
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
	recording, started, stopLive, err := r.capture(ctx, cmd.ErrOrStderr(), cfg, log, m, name, url, display)
	defer stopLive()
	if err != nil {
		return err
	}
	return r.finish(ctx, cmd, cfg, log, m, recording, paths, name, url, started)
}

// check makes sure nothing is overwritten and the recording can be seen:
// a display, or a loopback --live address.
func (r *recordRun) check(cfg *config.Config, name string) (paths record.Paths, display bool, err error) {
	paths = record.Paths{
		Workflow:  filepath.Join(cfg.Workflows, name+".yaml"),
		Selectors: cfg.Selectors,
		Test:      filepath.Join(testrun.DefaultDir(cfg), name+".yaml"),
	}
	if _, err := record.MakeDraft(&record.Recording{}, record.DraftOptions{Name: name, Prefix: r.prefix}); err != nil {
		return paths, false, usageError{err}
	}
	for _, f := range []string{paths.Workflow, paths.Test} {
		if _, err := os.Stat(f); err == nil {
			return paths, false, usagef("%s exists: a recording never overwrites a file; choose another name", f)
		}
	}
	if r.liveAddr != "" {
		if host, _, err := net.SplitHostPort(r.liveAddr); err != nil || !config.IsLoopback(host) {
			return paths, false, usagef("--live %q: a loopback address and port, such as 127.0.0.1:8091", r.liveAddr)
		}
	}
	display = os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != ""
	if !display && r.liveAddr == "" {
		return paths, false, usagef("record opens a Chromium window for you to work in, and this machine has no display (DISPLAY is not set): give --live ADDR (such as 127.0.0.1:8091) to work in the live view in your own browser instead")
	}
	return paths, display, nil
}

// capture opens the page (after --setup's tool) and records until the
// person presses Finish; Ctrl-C stops it with nothing written. started is
// when the recorder was in the page; stopLive ends the live view (kept
// until the command ends).
func (r *recordRun) capture(ctx context.Context, errw io.Writer, cfg *config.Config, log *slog.Logger, m *selector.Map, name, url string, display bool) (recording *record.Recording, started time.Time, stopLive func(), err error) {
	stopLive = func() {}
	headless := cfg.Browser.Headless
	cfg.Browser.Headless = !display // the person's window, or the live view's pixels
	tab, done, err := app.OpenPage(ctx, cfg, log, r.setup, r.setupArgs)
	cfg.Browser.Headless = headless
	if err != nil {
		return nil, started, stopLive, err
	}
	rec, err := record.Start(ctx, tab, record.Options{Map: m, Log: log})
	if err != nil {
		done()
		return nil, started, stopLive, err
	}
	started = time.Now()
	if err := rec.Open(ctx, url); err != nil {
		rec.Stop()
		done()
		return nil, started, stopLive, err
	}
	if !display {
		url, stop, err := serveLive(ctx, r.liveAddr, tab, name, cfg)
		if err != nil {
			rec.Stop()
			done()
			return nil, started, stopLive, err
		}
		stopLive = stop
		fmt.Fprintf(errw, "no display: open %s in your browser to see and work in the page\n", url)
	}
	fmt.Fprintf(errw, "recording %s: do the action in the window; mark what the tool returns with the toolbar (Value, Rows, Next page), then press Finish. Ctrl-C stops without writing anything.\n", name)
	select {
	case <-rec.Finished():
	case <-ctx.Done():
		rec.Stop()
		done()
		return nil, started, stopLive, fmt.Errorf("stopped: nothing was written")
	}
	recErr := rec.Err()
	recording = rec.Stop()
	done()
	return recording, started, stopLive, recErr
}

// finish writes the draft, replays the tool and says whether it returned
// what the person saw (exit 1 when not).
func (r *recordRun) finish(ctx context.Context, cmd *cobra.Command, cfg *config.Config, log *slog.Logger, m *selector.Map, recording *record.Recording, paths record.Paths, name, url string, started time.Time) error {
	errw := cmd.ErrOrStderr()
	red := policy.NewRedactor(cfg.SecretValues())
	d, err := record.MakeDraft(recording, record.DraftOptions{
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
	env, diffs, err := replay(ctx, cfg, log, d)
	if err != nil {
		return err
	}
	fmt.Fprintf(errw, "record → validated, replayed tool in %s\n", time.Since(started).Round(time.Millisecond))
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

// replay validates the recorded files and runs the tool once in a fresh
// environment with the recorded arguments (granted for its task_id when
// it writes), comparing its result with what the person saw.
func replay(ctx context.Context, cfg *config.Config, log *slog.Logger, d *record.Draft) (*result.Envelope, []string, error) {
	set, ps := workflow.Load(cfg)
	if len(ps) > 0 {
		return nil, nil, fmt.Errorf("the recorded files do not validate (fix them, or record again):\n%w", &lint.Error{Problems: ps})
	}
	cfg.Browser.Spare = 0
	a, err := app.OpenWith(cfg, set, log)
	if err != nil {
		return nil, nil, err
	}
	defer a.Close(context.WithoutCancel(ctx))
	return record.Verify(ctx, d, func(ctx context.Context, tool string, args map[string]any, taskID string) (*result.Envelope, error) {
		if taskID != "" {
			if _, err := a.Store.AddGrant(ctx, tool, taskID, 15*time.Minute, "toolwright record: the replay of a recording", operator()); err != nil {
				return nil, err
			}
			args["task_id"] = taskID
		}
		raw, err := json.Marshal(args)
		if err != nil {
			return nil, err
		}
		return a.Engine.Call(ctx, run.Request{Tool: tool, Args: raw})
	})
}

// serveLive serves the live view of tab on addr (loopback only) under an
// unguessable path, for a person without a display on this machine.
func serveLive(ctx context.Context, addr string, tab *rod.Page, name string, cfg *config.Config) (string, func(), error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil || !config.IsLoopback(host) {
		return "", nil, usagef("--live %q: a loopback address and port, such as 127.0.0.1:8091", addr)
	}
	var secrets []string
	for _, v := range cfg.SecretValues() {
		secrets = append(secrets, v)
	}
	lv := htmlview.NewLive(tab, htmlview.LiveOptions{
		Title:   "toolwright record " + name,
		Message: "Do the action once. Mark what the tool returns with the recorder's toolbar (Value, Rows, Next page), then press Finish.",
		Secrets: secrets,
	})
	tok := make([]byte, 16)
	if _, err := rand.Read(tok); err != nil {
		return "", nil, err
	}
	prefix := "/live/" + hex.EncodeToString(tok)
	mux := http.NewServeMux()
	mux.Handle(prefix+"/", http.StripPrefix(prefix, lv))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		lv.Close()
		return "", nil, err
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String() + prefix + "/", func() {
		lv.Close()
		_ = srv.Shutdown(context.WithoutCancel(ctx))
	}, nil
}
