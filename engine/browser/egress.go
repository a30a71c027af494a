package browser

import (
	"context"
	"fmt"
	"time"

	"github.com/go-rod/rod/lib/proto"

	"github.com/toolwright/toolwright/engine/errs"
)

// DefaultEgressTimeout bounds CheckEgress when ctx has no earlier deadline.
const DefaultEgressTimeout = 30 * time.Second

// CheckEgress loads rawURL in a short-lived page of env's browser context,
// so the region's proxy (and its credentials) apply, and compares the
// document's HTTP status with expectStatus (0 accepts any status below 400).
// The environment's own page is left alone, and the allowed-hosts rule does
// not apply to this operator-configured URL. It returns egress_failed
// (retryable) with the status or the network error when they do not match.
func CheckEgress(ctx context.Context, env *Env, rawURL string, expectStatus int) error {
	if err := env.Err(); err != nil {
		return err
	}
	ctx, cancel := env.Bind(ctx)
	defer cancel()
	if _, ok := ctx.Deadline(); !ok {
		var c context.CancelFunc
		ctx, c = context.WithTimeout(ctx, DefaultEgressTimeout)
		defer c()
	}

	b := env.conn.browser.Context(ctx)
	b.BrowserContextID = env.ctxID
	t, err := proto.TargetCreateTarget{URL: "about:blank", BrowserContextID: env.ctxID}.Call(b)
	if err != nil {
		return env.Check(errs.Wrap(errs.EgressFailed, err, "egress check of region %q could not open a page", env.Region))
	}
	env.exemptTarget(t.TargetID, true)
	defer func() {
		env.exemptTarget(t.TargetID, false)
		cctx, c := context.WithTimeout(context.Background(), closeTimeout)
		defer c()
		_, _ = proto.TargetCloseTarget{TargetID: t.TargetID}.Call(env.conn.browser.Context(cctx))
	}()
	if err := env.conn.guard.waitReady(ctx, t.TargetID, env.ctxID); err != nil {
		return env.Check(errs.Wrap(errs.EgressFailed, err, "egress check of region %q could not open a page", env.Region))
	}
	page, err := b.PageFromTarget(t.TargetID)
	if err != nil {
		return env.Check(errs.Wrap(errs.EgressFailed, err, "egress check of region %q could not open a page", env.Region))
	}

	status := make(chan int, 1)
	wctx, stopWait := context.WithCancel(ctx)
	defer stopWait()
	wait := page.Context(wctx).EachEvent(func(e *proto.NetworkResponseReceived) bool {
		if e.Type == proto.NetworkResourceTypeDocument && e.FrameID == proto.PageFrameID(t.TargetID) && e.Response != nil {
			status <- e.Response.Status
			return true
		}
		return false
	})
	go wait()

	got, err := loadStatus(ctx, page.Context(ctx).Navigate, rawURL, status)
	if err != nil {
		if gone := env.Err(); gone != nil {
			return env.Check(err)
		}
		return errs.Wrap(errs.EgressFailed, err, "egress check of region %q failed: %s did not load", env.Region, rawURL)
	}
	if (expectStatus == 0 && got < 400) || got == expectStatus {
		return nil
	}
	want := "a status below 400"
	if expectStatus != 0 {
		want = fmt.Sprintf("status %d", expectStatus)
	}
	return errs.New(errs.EgressFailed, "egress check of region %q failed: %s answered status %d, want %s", env.Region, rawURL, got, want)
}

// loadStatus navigates and returns the document's status.
func loadStatus(ctx context.Context, navigate func(string) error, rawURL string, status <-chan int) (int, error) {
	if err := navigate(rawURL); err != nil {
		// A response that makes no page (204, a download) aborts the
		// navigation but still has a status.
		select {
		case got := <-status:
			return got, nil
		case <-time.After(200 * time.Millisecond):
			return 0, err
		}
	}
	select {
	case got := <-status:
		return got, nil
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}
