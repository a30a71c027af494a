package kinds

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/engine/step"
)

func init() {
	step.Register(&step.Spec{
		Kind: "download",
		Doc: "Click a target that downloads a file and save the file under state_dir/downloads/TRACE_ID/. " +
			"The variable gets a file reference {file, uri, name, bytes, mime}, never the content: file is its absolute " +
			"path on the server, uri the MCP resource (toolwright://downloads/TRACE_ID/NAME) a client reads with " +
			"resources/read. A file larger than max_bytes (at most limits.max_download_bytes) is limit_exceeded and nothing is kept.",
		Risk:      "read",
		Acts:      true,
		Navigates: true,
		Fields: []step.Field{
			{Name: "click", Type: step.Target, Required: true, Doc: "the link or button that starts the download"},
			{Name: "into", Type: step.VarName, Required: true, Doc: "the variable that gets {file, uri, name, bytes, mime}"},
			{Name: "max_bytes", Type: step.Int, Doc: "the largest file to accept (default and upper bound: limits.max_download_bytes)"},
		},
		Example: "download: {click: nw.orders.export_csv, into: orders_csv, max_bytes: 1048576}",
		Check: func(c *step.Checker, s *step.Step) {
			if n := int64(s.Int("max_bytes")); s.Has("max_bytes") && (n < 1 || c.MaxDownloadBytes > 0 && n > c.MaxDownloadBytes) {
				c.Addf(s.Pos, lint.Unbounded, "download max_bytes must be between 1 and limits.max_download_bytes (%d), found %d", c.MaxDownloadBytes, n)
			}
		},
		Run: runDownload,
	})
}

type downloadEvent struct {
	begin    *proto.BrowserDownloadWillBegin
	progress *proto.BrowserDownloadProgress
}

func runDownload(ctx context.Context, x step.Exec, s *step.Step) error {
	dl, err := step.Need[step.Downloads](x, s)
	if err != nil {
		return err
	}
	click, err := clicker(ctx, x, s, "click", 0)
	if err != nil {
		return err
	}
	page, err := x.Page(ctx)
	if err != nil {
		return err
	}
	incoming, err := dl.IncomingDir()
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(incoming) }() // last, if empty: see discard
	d := &download{dl: dl, b: page.Browser(), dir: incoming, frame: page.FrameID, max: downloadLimit(dl, s), label: targetLabel(x, s, "click")}
	// The events go on past ctx, for discard to see a download end.
	wctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	events := d.watch(wctx)
	deny, err := d.allow(ctx)
	if err != nil {
		return err
	}
	defer deny()
	if err := click(ctx); err != nil {
		return err
	}
	ref, err := d.await(ctx, events)
	if err != nil {
		return err
	}
	x.SetVar(s.Str("into"), ref, false)
	return nil
}

// downloadLimit is the largest file step s accepts: its max_bytes, at most
// limits.max_download_bytes.
func downloadLimit(dl step.Downloads, s *step.Step) int64 {
	max := dl.MaxDownloadBytes()
	if n := int64(s.Int("max_bytes")); n > 0 && (max <= 0 || n < max) {
		max = n
	}
	return max
}

// download is a download step's file: the click on label in frame starts
// it, the browser saves it in dir (the step's incoming folder, never the
// call's), and it is moved to the call's DownloadDir if at most max bytes.
type download struct {
	dl    step.Downloads
	b     *rod.Browser
	dir   string
	frame proto.PageFrameID
	max   int64
	label string
}

// watch passes the browser's download events on until ctx ends.
func (d *download) watch(ctx context.Context) <-chan downloadEvent {
	events := make(chan downloadEvent, 64)
	send := func(e downloadEvent) {
		select {
		case events <- e:
		case <-ctx.Done():
		}
	}
	wait := d.b.Context(ctx).EachEvent(
		func(e *proto.BrowserDownloadWillBegin) { send(downloadEvent{begin: e}) },
		func(e *proto.BrowserDownloadProgress) { send(downloadEvent{progress: e}) },
	)
	go wait()
	return events
}

// allow lets the browser context save downloads in dir, under their GUID,
// with events; deny stops it again (downloads outside a download step are
// not saved anywhere).
func (d *download) allow(ctx context.Context) (deny func(), err error) {
	ctxID := d.b.BrowserContextID
	if err := (proto.BrowserSetDownloadBehavior{
		Behavior: proto.BrowserSetDownloadBehaviorBehaviorAllowAndName, BrowserContextID: ctxID,
		DownloadPath: d.dir, EventsEnabled: true,
	}).Call(d.b.Context(ctx)); err != nil {
		return nil, err
	}
	return func() {
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), guardTimeout)
		defer cancel()
		_ = proto.BrowserSetDownloadBehavior{Behavior: proto.BrowserSetDownloadBehaviorBehaviorDeny, BrowserContextID: ctxID}.Call(d.b.Context(rctx))
	}, nil
}

// await follows the download the click started in d's frame until it
// completes (its file reference), goes over max_bytes, is cancelled or ctx
// ends; a download not kept is discarded.
func (d *download) await(ctx context.Context, events <-chan downloadEvent) (map[string]any, error) {
	var begin *proto.BrowserDownloadWillBegin
	for {
		select {
		case <-ctx.Done():
			if begin == nil {
				return nil, errs.Wrap(errs.TargetNotFound, ctx.Err(), "clicking %s started no download", d.label)
			}
			d.discard(ctx, events, begin.GUID, proto.BrowserDownloadProgressStateInProgress, guardTimeout)
			return nil, ctx.Err()
		case e := <-events:
			switch {
			case e.begin != nil && begin == nil && e.begin.FrameID == d.frame:
				begin = e.begin
			case e.progress != nil && begin != nil && e.progress.GUID == begin.GUID:
				if ref, done, err := d.progress(begin, e.progress); done {
					if err != nil {
						d.discard(ctx, events, begin.GUID, e.progress.State, settleTimeout)
					}
					return ref, err
				}
			}
		}
	}
}

// progress handles one progress event of download begin: done once it
// completed (ref), went over max_bytes or was cancelled (err).
func (d *download) progress(begin *proto.BrowserDownloadWillBegin, p *proto.BrowserDownloadProgress) (ref map[string]any, done bool, err error) {
	if int64(p.ReceivedBytes) > d.max || int64(p.TotalBytes) > d.max {
		return nil, true, errs.New(errs.LimitExceeded, "the download %q is larger than max_bytes (%d bytes); nothing was kept", begin.SuggestedFilename, d.max)
	}
	switch p.State {
	case proto.BrowserDownloadProgressStateCanceled:
		return nil, true, errs.New(errs.NavigationFailed, "the download %q was cancelled by the browser or the site", begin.SuggestedFilename)
	case proto.BrowserDownloadProgressStateCompleted:
		ref, err := keepDownload(d.dl, d.dir, begin, d.max)
		return ref, true, err
	}
	return nil, false, nil
}

// discard ends download guid, last seen in state, which is not kept, and
// waits at most within for the browser to let go of its file. Its file is
// only ever in d's folder, never the call's, so nothing refused reaches
// the call's folder whenever the browser acts. The step deletes the file
// only once the browser said the download completed: Chromium writes a
// download to a temporary file elsewhere, renames it into d's folder
// (GUID.crdownload, making the folder again if it is gone), renames that
// to GUID (by first making an empty GUID file) and, cancelled, deletes it;
// all on its file thread, which may run well after the cancel was answered
// and the download reported canceled. A file removed under it made that
// rename fail and left the empty GUID file for good; a file removed before
// it was renamed in came back (the bug: "a download over max_bytes left 1
// files"). So a cancelled download's file is left for the browser to
// delete, and the step waits for d's folder to be empty; the folder is
// removed after the step if it is (a folder the browser makes again later
// is empty; retention removes it, as any folder left with a file when the
// wait ran out).
func (d *download) discard(ctx context.Context, events <-chan downloadEvent, guid string, state proto.BrowserDownloadProgressState, within time.Duration) {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), within)
	defer cancel()
	if state == proto.BrowserDownloadProgressStateInProgress {
		_ = proto.BrowserCancelDownload{GUID: guid, BrowserContextID: d.b.BrowserContextID}.Call(d.b.Context(wctx))
		state = lastState(wctx, events, guid)
	}
	if state == proto.BrowserDownloadProgressStateCompleted {
		_ = os.Remove(filepath.Join(d.dir, guid)) // the browser is done with a completed file
	}
	waitEmpty(wctx, d.dir)
}

// lastState waits for download guid to end, cancelled or completed (a small
// file may finish arriving before the cancel reaches the browser); "" if
// ctx ends first.
func lastState(ctx context.Context, events <-chan downloadEvent, guid string) proto.BrowserDownloadProgressState {
	for {
		select {
		case <-ctx.Done():
			return ""
		case e := <-events:
			if e.progress != nil && e.progress.GUID == guid && e.progress.State != proto.BrowserDownloadProgressStateInProgress {
				return e.progress.State
			}
		}
	}
}

// waitEmpty waits until folder dir holds nothing or ctx ends.
func waitEmpty(ctx context.Context, dir string) {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if entries, err := os.ReadDir(dir); err != nil || len(entries) == 0 {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// guardTimeout bounds the clean-up calls a download makes after its step,
// and the wait for a download to end when its call ended.
const guardTimeout = 2 * time.Second

// settleTimeout bounds the wait for the browser to let go of a download
// the step refused (it usually takes milliseconds).
const settleTimeout = 10 * time.Second

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._ -]+`)

// keepDownload moves the file saved in incoming to the call's DownloadDir
// under its suggested name and describes it.
func keepDownload(x step.Downloads, incoming string, begin *proto.BrowserDownloadWillBegin, max int64) (map[string]any, error) {
	src := filepath.Join(incoming, begin.GUID)
	st, err := os.Stat(src)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, err, "the downloaded file is missing")
	}
	if st.Size() > max {
		return nil, errs.New(errs.LimitExceeded, "the download %q is larger than max_bytes (%d bytes); nothing was kept", begin.SuggestedFilename, max)
	}
	dir, err := x.DownloadDir()
	if err != nil {
		return nil, err
	}
	name := strings.Trim(unsafeName.ReplaceAllString(filepath.Base(begin.SuggestedFilename), "_"), ". ")
	if name == "" {
		name = "download"
	}
	dst := filepath.Join(dir, name)
	for i := 2; ; i++ {
		if _, err := os.Stat(dst); os.IsNotExist(err) {
			break
		}
		dst = filepath.Join(dir, fmt.Sprintf("%d-%s", i, name))
	}
	if err := os.Rename(src, dst); err != nil {
		return nil, errs.Wrap(errs.Internal, err, "the downloaded file cannot be kept")
	}
	file, uri := x.DownloadRef(filepath.Base(dst))
	return map[string]any{"file": file, "uri": uri, "name": filepath.Base(dst), "bytes": st.Size(), "mime": result.MediaType(dst)}, nil
}
