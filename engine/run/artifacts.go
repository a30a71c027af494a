package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-rod/rod/lib/proto"
)

// blankPasswordsJS returns the page's HTML with every password input's
// value removed, without touching the live page.
const blankPasswordsJS = `() => {
	const doc = document.documentElement.cloneNode(true);
	const live = document.querySelectorAll('input');
	const copies = doc.querySelectorAll('input');
	copies.forEach((el, i) => {
		const type = ((live[i] && live[i].type) || el.getAttribute('type') || '').toLowerCase();
		if (type === 'password') { el.removeAttribute('value'); el.setAttribute('value', ''); }
		else if (live[i] && live[i].value !== undefined && type !== 'file') { el.setAttribute('value', live[i].value); }
	});
	return '<!doctype html>\n' + doc.outerHTML;
}`

// blankPasswordsForShotJS clears password fields on the live page before
// the failure screenshot (the call has failed; the page is not reused as is).
const blankPasswordsForShotJS = `() => document.querySelectorAll('input[type=password]').forEach(el => { el.value = ''; })`

// noPageCapture is the trace's note of a call that failed before it had a
// page to capture (its environment not open yet, or not sized).
const noPageCapture = "no failure capture: the call failed before its page was ready"

// Bounds of the failure capture.
const (
	failureCaptureMax   = 3 * time.Second
	failureCaptureGrace = time.Second // past the call's deadline
)

// saveFailure keeps a screenshot and the page's HTML (password values
// blanked, secrets redacted) of a failed call, best effort and bounded.
func (c *call) saveFailure(ctx context.Context) {
	env := c.currentEnv()
	switch {
	case env == nil:
		c.setCapture(noPageCapture)
		return
	case env.Err() != nil:
		c.setCapture("no failure capture: the browser environment is gone")
		return
	}
	// Capture takes at most 3 s, and never runs more than 1 s past the
	// call's deadline.
	limit := failureCaptureMax
	if dl, ok := ctx.Deadline(); ok {
		if left := time.Until(dl.Add(failureCaptureGrace)); left < limit {
			limit = left
		}
	}
	if limit <= 0 {
		c.setCapture("no failure capture: the call was already past its deadline's grace of " + failureCaptureGrace.String())
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), limit)
	defer cancel()
	dir, err := c.e.artifactDir(c.traceID)
	if err != nil {
		c.setCapture("no failure capture: " + err.Error())
		return
	}
	page := env.Page().Context(ctx)
	_ = proto.PageStopLoading{}.Call(page) // a page still loading would hold the capture
	var missed []string
	bound := c.e.cfg.Limits.MaxArtifactBytes
	var why error // the first reason something was not kept
	miss := func(name string, err error) {
		missed = append(missed, name)
		if why == nil {
			why = err
		}
	}
	if res, err := page.Eval(blankPasswordsJS); err != nil {
		miss("page.html", err)
	} else if err := os.WriteFile(filepath.Join(dir, "page.html"), []byte(cutHTML(c.e.redactor.Redact(res.Value.Str()), bound)), 0o600); err != nil {
		miss("page.html", err)
	}
	// The failure screenshot is the operator's (artifacts_dir, toolwright
	// ui; never a link in the envelope), so it is kept even after a secret
	// was typed into the page (typed.go), masked as every screenshot is;
	// none is kept unless every field and text showing a secret is hidden.
	if restore, err := maskSecrets(ctx, page, c.e.secretValues()); err != nil {
		miss("failure.png", err)
	} else {
		if _, err := page.Eval(blankPasswordsForShotJS); err != nil {
			miss("failure.png", err)
		} else if png, err := page.Screenshot(false, &proto.PageCaptureScreenshot{Format: proto.PageCaptureScreenshotFormatPng}); err != nil {
			miss("failure.png", err)
		} else if bound > 0 && int64(len(png)) > bound {
			miss("failure.png", fmt.Errorf("the screenshot is %d bytes, above limits.max_artifact_bytes (%d)", len(png), bound))
		} else if err := os.WriteFile(filepath.Join(dir, "failure.png"), png, 0o600); err != nil {
			miss("failure.png", err)
		}
		restore()
	}
	switch {
	case len(missed) == 0:
	case ctx.Err() != nil:
		c.setCapture(fmt.Sprintf("the failure capture ran out of its %s before %s", limit.Round(time.Millisecond), strings.Join(missed, " and ")))
	default:
		c.setCapture(fmt.Sprintf("the failure capture kept no %s: %v", strings.Join(missed, " or "), why))
	}
}

// cutHTML keeps page.html within max bytes (limits.max_artifact_bytes; 0:
// no bound): the start of the page, cut at a character boundary, then a
// marker saying how much was kept of how much.
func cutHTML(html string, bound int64) string {
	if bound <= 0 || int64(len(html)) <= bound {
		return html
	}
	marker := fmt.Sprintf("\n<!-- toolwright: page.html cut here: %d of its %d bytes kept (limits.max_artifact_bytes) -->\n", bound, len(html))
	keep := bound - int64(len(marker))
	keep = min(max(keep, 0), int64(len(html)))
	for keep > 0 && !utf8.RuneStart(html[keep]) {
		keep--
	}
	return html[:keep] + marker
}

// setCapture notes, in the trace's error, why the failure capture kept less
// than it should: a person reading a trace without a screenshot learns why.
func (c *call) setCapture(note string) {
	c.mu.Lock()
	c.capture = note
	c.mu.Unlock()
}

// artifacts lists the files kept for this call, relative to artifacts_dir
// ("TRACE_ID/NAME", slash-separated), as traces record them.
func (c *call) artifacts() []string {
	entries, err := os.ReadDir(filepath.Join(c.e.artifacts, c.traceID))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		out = append(out, c.traceID+"/"+e.Name())
	}
	sort.Strings(out)
	return out
}
