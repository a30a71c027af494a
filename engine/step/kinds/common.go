package kinds

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-rod/rod"
	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/step"
)

// element resolves the target in field to one visible element (the nth
// match when nth > 0).
func element(ctx context.Context, x step.Exec, s *step.Step, field string, nth int) (*rod.Element, error) {
	m, err := x.Find(ctx, s.Str(field), step.FindOpt{Visible: true, All: nth > 0})
	if err != nil {
		return nil, unreachable(ctx, x, s, field, nth, err)
	}
	if nth >= len(m.Elements) {
		more := ""
		if n, err := selector.Unrendered(ctx, m.Elements); err == nil && n > 0 {
			// A virtualized grid: the item is not in the page until its
			// rows are scrolled into view.
			more = fmt.Sprintf(": the page draws only the items in view and says it holds %d more (scroll the list to it first, or read it page by page)", n)
		}
		return nil, errs.New(errs.TargetNotFound, "target %s has %d matches; nth %d does not exist%s", targetLabel(x, s, field), len(m.Elements), nth, more)
	}
	return m.Elements[nth].Context(ctx), nil
}

// clicker finds the target in field (its nth match) for a click, as the
// click step does: found, in view, still, enabled and not covered in one
// round trip when the page can tell on its own (selector.Map.Ready), else
// found the usual way, which waits for it to show. The click it returns
// does the rest (see selector.Click).
func clicker(ctx context.Context, x step.Exec, s *step.Step, field string, nth int) (func(context.Context) error, error) {
	if nth == 0 {
		rd, err := ready(ctx, x, s.Str(field), selector.ReadyOptions{})
		if err != nil {
			return nil, err
		}
		if rd != nil && !rd.Disabled {
			return rd.Click, nil
		}
	}
	el, err := element(ctx, x, s, field, nth)
	if err != nil {
		return nil, err
	}
	name := targetLabel(x, s, field)
	return func(ctx context.Context) error {
		return selector.Click(ctx, el.Context(ctx), selector.ActOptions{Name: name})
	}, nil
}

// unreachable turns a target that never showed (err, target_not_found)
// into target_unreachable when its match is there, drawn, but of zero
// size: no pointer can reach it, and waiting longer would not help.
func unreachable(ctx context.Context, x step.Exec, s *step.Step, field string, nth int, err error) error {
	if errs.CodeOf(err) != errs.TargetNotFound || errors.Is(err, context.Canceled) {
		return err
	}
	// The step's time is spent: a short look of its own.
	qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	m, ferr := x.Find(qctx, s.Str(field), step.FindOpt{Once: true, All: true, Quiet: true})
	if ferr != nil || nth >= len(m.Elements) {
		return err
	}
	if uerr := selector.Unreachable(qctx, m.Elements[nth], targetLabel(x, s, field)); uerr != nil {
		return uerr
	}
	return err
}

// targetLabel is the selector-map name a target field stands for, for
// messages: a target parameter's value (${{ params.button }} names
// acme.login.submit), else the field as written.
func targetLabel(x step.Exec, s *step.Step, field string) string {
	if t := x.Target(s.Str(field)); t != nil && t.Name != "" {
		return t.Name
	}
	return s.Str(field)
}

// poll calls check every interval until it reports done, fails, or ctx ends.
func poll(ctx context.Context, check func() (bool, error)) error {
	const interval = 50 * time.Millisecond
	for {
		done, err := check()
		if err != nil || done {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(interval):
		}
	}
}

// pagePath is the path of the page's URL, for messages.
func pagePath(p *rod.Page) string {
	info, err := p.Info()
	if err != nil {
		return "the page"
	}
	return selector.URLPath(info.URL)
}

// timeoutErr turns a context expiry during a wait into code, or returns err.
func timeoutErr(ctx context.Context, err error, code, format string, args ...any) error {
	if err != nil && ctx.Err() == context.DeadlineExceeded {
		return errs.Wrap(code, err, format, args...)
	}
	return err
}

// ready is the executor's Readying.Ready when it offers one; nil, nil
// otherwise: the caller finds the target and waits.
func ready(ctx context.Context, x step.Exec, target string, o selector.ReadyOptions) (*selector.Ready, error) {
	if r, ok := x.(step.Readying); ok {
		return r.Ready(ctx, target, o)
	}
	return nil, nil
}

// typing is the executor's Readying.Typing when it offers one; nil, nil
// otherwise: the caller finds the target and waits.
func typing(ctx context.Context, x step.Exec, target string, fill *string, secret bool) (*selector.Typing, error) {
	if r, ok := x.(step.Readying); ok {
		return r.Typing(ctx, target, fill, secret)
	}
	return nil, nil
}
