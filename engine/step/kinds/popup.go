package kinds

import (
	"context"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/step"
)

// popupOpenWait bounds how long the click may take to open the page when
// the step sets no timeout.
const popupOpenWait = 10 * time.Second

// popupCloseWait bounds closing the page a popup step opened. Closing takes
// milliseconds on a quiet machine; 2 s ran out in the test suite at a load
// of 20 and more, leaving the popup open in the environment for the calls
// after it.
const popupCloseWait = 10 * time.Second

func init() {
	step.Register(&step.Spec{
		Kind: "popup",
		Doc: "Click a target that opens a new page (a link with target=_blank, window.open), run steps " +
			"in that page, then close it and go on in the opener. Allowed hosts hold in the new page: one " +
			"opened on a host outside policy.allowed_hosts is host_not_allowed. Its dialogs are answered " +
			"like the opener's, from before its first script runs (an alert it opens while it loads follows the popup step's dialog key).",
		Acts: true,
		Fields: []step.Field{
			{Name: "click", Type: step.Target, Required: true, Doc: "the link or button that opens the page"},
			{Name: "steps", Type: step.Steps, Required: true, Doc: "the steps to run in the new page"},
			{Name: "timeout", Type: step.Duration, Timeout: true, Doc: "how long the popup may take, its steps included (default: the page must open within 10s; its steps have their own timeouts)"},
		},
		// The steps see the same names; they run in the popup's page (Frame.Window).
		TimeoutCode: errs.NavigationFailed,
		Example:     "popup: {click: nw.products.open_tab.ridge, steps: [{extract: {from: nw.product.price, into: price}}]}",
		Run:         runPopup,
	})
}

func runPopup(ctx context.Context, x step.Exec, s *step.Step) error {
	n, err := step.Need[step.Nesting](x, s)
	if err != nil {
		return err
	}
	pops, err := step.Need[step.Popups](x, s)
	if err != nil {
		return err
	}
	name := targetLabel(x, s, "click")
	click, err := clicker(ctx, x, s, "click", 0)
	if err != nil {
		return err
	}
	opener, err := x.Page(ctx)
	if err != nil {
		return err
	}
	b := opener.Browser()
	openCtx, cancelOpen := context.WithTimeout(ctx, popupOpenWait)
	defer cancelOpen()
	created := make(chan proto.TargetTargetID, 1)
	wait := b.Context(openCtx).EachEvent(func(e *proto.TargetTargetCreated) bool {
		if e.TargetInfo != nil && e.TargetInfo.Type == proto.TargetTargetInfoTypePage && e.TargetInfo.OpenerID == opener.TargetID {
			created <- e.TargetInfo.TargetID
			return true
		}
		return false
	})
	go wait()
	// The page it opens is watched from before it runs: a dialog its
	// scripts open while it loads is answered by the step's dialog rule.
	defer pops.WatchPopups(opener)()
	if err := click(openCtx); err != nil {
		if ctx.Err() == nil && openCtx.Err() != nil {
			return errs.Wrap(errs.TargetNotFound, err, "target %s could not be clicked within %s (hidden or covered?)", name, popupOpenWait)
		}
		return err
	}
	var id proto.TargetTargetID
	select {
	case id = <-created:
	case <-openCtx.Done():
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return errs.New(errs.NavigationFailed, "clicking %s opened no new page within %s", name, popupOpenWait)
	}
	// Attaching waits on the page; one that opened a dialog while it loaded,
	// before it could be watched (a page not handed over paused), never
	// answers (and that dialog cannot be answered): it is closed once the
	// page's time to open is up.
	page, err := b.Context(openCtx).PageFromTarget(id)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), popupCloseWait)
		defer cancel()
		_, _ = proto.TargetCloseTarget{TargetID: id}.Call(b.Context(cctx))
		if openCtx.Err() != nil {
			return errs.Wrap(errs.NavigationFailed, err, "the page %s opened did not answer within %s (a dialog it opened while loading, before it could be answered, blocks it); it was closed", name, popupOpenWait)
		}
		return err
	}
	page = page.Context(context.WithoutCancel(ctx))
	// Its requests followed (network_idle), and its dialogs answered unless
	// WatchPopups does (a page the guard did not hand over paused).
	stop := pops.Watch(page)
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), popupCloseWait)
		defer cancel()
		_ = page.Context(cctx).Close()
		stop()
	}()
	if err := waitOpened(openCtx, page.Context(openCtx)); err != nil && ctx.Err() != nil {
		return err
	}
	return n.RunSteps(ctx, s.Steps("steps"), &step.Frame{Window: page, Watched: true})
}

// waitOpened waits until the new page left about:blank and loaded (or its
// navigation was refused: the steps then report host_not_allowed).
func waitOpened(ctx context.Context, p *rod.Page) error {
	if err := poll(ctx, func() (bool, error) {
		info, err := p.Info()
		if err != nil {
			return false, nil
		}
		return info.URL != "" && info.URL != "about:blank", nil
	}); err != nil {
		return err
	}
	return p.WaitLoad()
}
