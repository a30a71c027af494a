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
	"github.com/toolwright/toolwright/engine/selector"
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
	dir, err := dl.DownloadDir()
	if err != nil {
		return err
	}
	el, err := element(ctx, x, s, "click", 0)
	if err != nil {
		return err
	}
	page, err := x.Page(ctx)
	if err != nil {
		return err
	}
	d := &download{dl: dl, b: page.Browser(), dir: dir, frame: page.FrameID, max: downloadLimit(dl, s), label: targetLabel(x, s, "click")}
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	events := d.watch(wctx)
	deny, err := d.allow(ctx)
	if err != nil {
		return err
	}
	defer deny()
	if err := selector.Click(ctx, el, selector.ActOptions{Name: d.label}); err != nil {
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
// it, the browser saves it in dir, and it is kept if at most max bytes.
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
// ends; a download not kept leaves no file.
func (d *download) await(ctx context.Context, events <-chan downloadEvent) (map[string]any, error) {
	var begin *proto.BrowserDownloadWillBegin
	for {
		select {
		case <-ctx.Done():
			if begin == nil {
				return nil, errs.Wrap(errs.TargetNotFound, ctx.Err(), "clicking %s started no download", d.label)
			}
			d.cancel(ctx, begin.GUID)
			return nil, ctx.Err()
		case e := <-events:
			switch {
			case e.begin != nil && begin == nil && e.begin.FrameID == d.frame:
				begin = e.begin
			case e.progress != nil && begin != nil && e.progress.GUID == begin.GUID:
				if ref, done, err := d.progress(ctx, begin, e.progress); done {
					return ref, err
				}
			}
		}
	}
}

// progress handles one progress event of download begin: done once it
// completed (ref), went over max_bytes or was cancelled (err).
func (d *download) progress(ctx context.Context, begin *proto.BrowserDownloadWillBegin, p *proto.BrowserDownloadProgress) (ref map[string]any, done bool, err error) {
	if int64(p.ReceivedBytes) > d.max || int64(p.TotalBytes) > d.max {
		d.cancel(ctx, begin.GUID)
		return nil, true, errs.New(errs.LimitExceeded, "the download %q is larger than max_bytes (%d bytes); nothing was kept", begin.SuggestedFilename, d.max)
	}
	switch p.State {
	case proto.BrowserDownloadProgressStateCanceled:
		removeDownload(d.dir, begin.GUID)
		return nil, true, errs.New(errs.NavigationFailed, "the download %q was cancelled by the browser or the site", begin.SuggestedFilename)
	case proto.BrowserDownloadProgressStateCompleted:
		ref, err := keepDownload(d.dl, d.dir, begin, d.max)
		return ref, true, err
	}
	return nil, false, nil
}

// cancel cancels download guid and removes what it saved.
func (d *download) cancel(ctx context.Context, guid string) {
	cancelDownload(d.b.Context(context.WithoutCancel(ctx)), guid, d.b.BrowserContextID, d.dir)
}

// guardTimeout bounds the clean-up calls a download makes after its step.
const guardTimeout = 2 * time.Second

func cancelDownload(c proto.Client, guid string, ctxID proto.BrowserBrowserContextID, dir string) {
	_ = proto.BrowserCancelDownload{GUID: guid, BrowserContextID: ctxID}.Call(c)
	removeDownload(dir, guid)
}

// removeDownload removes a download's file, complete or partial.
func removeDownload(dir, guid string) {
	for _, p := range []string{guid, guid + ".crdownload"} {
		_ = os.Remove(filepath.Join(dir, p))
	}
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._ -]+`)

// keepDownload gives the saved file its suggested name and describes it.
func keepDownload(x step.Downloads, dir string, begin *proto.BrowserDownloadWillBegin, max int64) (map[string]any, error) {
	src := filepath.Join(dir, begin.GUID)
	st, err := os.Stat(src)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, err, "the downloaded file is missing")
	}
	if st.Size() > max {
		_ = os.Remove(src)
		return nil, errs.New(errs.LimitExceeded, "the download %q is larger than max_bytes (%d bytes); nothing was kept", begin.SuggestedFilename, max)
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
