package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/go-rod/rod"

	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/htmlview"
	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/policy"
	"github.com/toolwright/toolwright/engine/record"
	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/engine/run"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/store"
	"github.com/toolwright/toolwright/engine/workflow"
)

// ErrRecordingStopped is Record's error when its context ended before the
// person pressed Finish (Ctrl-C): nothing was recorded.
var ErrRecordingStopped = errors.New("stopped: nothing was written")

// RecordOptions say what `toolwright record` records and how the person
// sees the page.
type RecordOptions struct {
	Name string // the workflow's name (the live view's title)
	URL  string // the page to start on
	// Setup, when set, is an env: new tool (and its NAME=VALUE arguments)
	// run first, such as one that signs in; the recording happens in the
	// environment it opened.
	Setup     string
	SetupArgs []string
	Map       *selector.Map // the selector map, whose targets the recorder reuses (nil: none yet)
	// LiveAddr, when set, serves the page's live view on this loopback
	// address for a person without a display; otherwise the page opens in
	// a Chromium window on this machine's display.
	LiveAddr string
	// Say tells the person what to do (a line on stderr; nil: nobody).
	Say func(string)
}

// Recorded is what the person did once, with when the recorder was in the
// page. Close ends the live view, kept until the caller is done.
type Recorded struct {
	Recording *record.Recording
	Started   time.Time
	Close     func()
}

// Record opens the page (after the setup tool) in a window or the live
// view and records until the person presses Finish. A context that ends
// first stops it with ErrRecordingStopped. On an error nothing is left
// open (the live view is closed too).
func Record(ctx context.Context, cfg *config.Config, log *slog.Logger, o RecordOptions) (_ *Recorded, err error) {
	out := &Recorded{Close: func() {}}
	defer func() {
		if err != nil {
			out.Close()
		}
	}()
	if o.Say == nil {
		o.Say = func(string) {}
	}
	tab, done, err := openRecordPage(ctx, cfg, log, o)
	if err != nil {
		return nil, err
	}
	defer done()
	rec, err := record.Start(ctx, tab, record.Options{Map: o.Map, Log: log})
	if err != nil {
		return nil, err
	}
	out.Started = time.Now()
	if err := rec.Open(ctx, o.URL); err != nil {
		rec.Stop()
		return nil, err
	}
	if o.LiveAddr != "" {
		url, stop, err := htmlview.ServeLive(ctx, o.LiveAddr, tab, htmlview.LiveOptions{
			Title:   "toolwright record " + o.Name,
			Message: "Do the action once. Mark what the tool returns with the recorder's toolbar (Value, Rows, Next page), then press Finish.",
			Secrets: slices.Collect(maps.Values(cfg.SecretValues())),
		})
		if err != nil {
			rec.Stop()
			return nil, err
		}
		out.Close = stop
		o.Say(fmt.Sprintf("no display: open %s in your browser to see and work in the page", url))
	}
	o.Say(fmt.Sprintf("recording %s: do the action in the window; mark what the tool returns with the toolbar (Value, Rows, Next page), then press Finish. Ctrl-C stops without writing anything.", o.Name))
	select {
	case <-rec.Finished():
	case <-ctx.Done():
		rec.Stop()
		return nil, ErrRecordingStopped
	}
	recErr := rec.Err()
	out.Recording = rec.Stop()
	if recErr != nil {
		return nil, recErr
	}
	return out, nil
}

// openRecordPage opens the page to record in: a window on this machine's
// display, or (LiveAddr) a headless page for the live view. The live view
// lets a person who may be anywhere the loopback address is forwarded to
// drive the browser, so that page is held to policy.allowed_hosts as an
// agent's call is: a start page outside it is refused (a UsageError) and
// the browser's host guard refuses every navigation outside it.
func openRecordPage(ctx context.Context, cfg *config.Config, log *slog.Logger, o RecordOptions) (*rod.Page, func(), error) {
	live := o.LiveAddr != ""
	if live && len(cfg.Policy.AllowedHosts) > 0 {
		hosts, err := policy.NewHostMatcher(cfg.Policy.AllowedHosts)
		if err != nil {
			return nil, nil, fmt.Errorf("policy.allowed_hosts: %w", err)
		}
		if ok, _ := hosts.AllowedURL(o.URL); !ok {
			return nil, nil, usagef("--page %s is outside policy.allowed_hosts (%s): a recording in the live view is held to the policy, since whoever opens the view drives the browser; add the page's host to policy.allowed_hosts, or record in a window on this machine's display", o.URL, strings.Join(hosts.Patterns(), ", "))
		}
	}
	headless := cfg.Browser.Headless
	cfg.Browser.Headless = live // the person's window, or the live view's pixels
	defer func() { cfg.Browser.Headless = headless }()
	if o.Setup != "" {
		return openSetupPage(ctx, cfg, log, o.Setup, o.SetupArgs) // the app's own environments: guarded
	}
	return openFreshPage(ctx, cfg, log, live)
}

// Replay validates a recording's written files and runs its tool once in
// a fresh environment with the recorded arguments (let through for its
// task_id when it writes), comparing the result with what the person saw:
// the envelope and the differences (none: it matched).
func Replay(ctx context.Context, cfg *config.Config, log *slog.Logger, d *record.Draft, by string) (*result.Envelope, []string, error) {
	set, ps := workflow.Load(cfg)
	if len(ps) > 0 {
		return nil, nil, fmt.Errorf("the recorded files do not validate (fix them, or record again):\n%w", &lint.Error{Problems: ps})
	}
	cfg.Browser.Spare = 0
	if err := cfg.SecretsErr(); err != nil {
		return nil, nil, err
	}
	a, err := open(cfg, set, log, func(st store.Store) store.Store {
		if d.TaskID == "" {
			return st
		}
		return &replayGrant{Store: st, tool: d.Name, taskID: d.TaskID, id: "record-replay:" + by}
	})
	if err != nil {
		return nil, nil, err
	}
	defer a.Close(context.WithoutCancel(ctx))
	return record.Verify(ctx, d, func(ctx context.Context, tool string, args map[string]any, taskID string) (*result.Envelope, error) {
		if taskID != "" {
			args["task_id"] = taskID
		}
		raw, err := json.Marshal(args)
		if err != nil {
			return nil, err
		}
		return a.Engine.Call(ctx, run.Request{Tool: tool, Args: raw})
	})
}

// replayGrant lets the replay's calls of the recorded write tool, under
// its task_id, through without a grant in the store: the grant lives in
// this replay's engine and ends with it. A stored grant (15 minutes for
// task record-NAME) outlived the replay, and after a failed replay an
// agent could run the tool with its own arguments under that task_id.
// Every other grant is looked up in the store; the audit records id as
// the call's grant.
type replayGrant struct {
	store.Store
	tool, taskID, id string
}

// LiveGrantID implements policy.GrantSource.
func (g *replayGrant) LiveGrantID(ctx context.Context, tool, taskID string, now time.Time) (string, error) {
	if tool == g.tool && taskID == g.taskID {
		return g.id, nil
	}
	return g.Store.LiveGrantID(ctx, tool, taskID, now)
}
