package selector

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/input"
	"github.com/go-rod/rod/lib/proto"
	"github.com/toolwright/toolwright/engine/errs"
)

// Actions on a resolved element, in as few CDP requests as their guarantees
// allow. Each one first runs page.js's prepare in one Runtime.callFunctionOn:
// the element is scrolled into view (only when it is not), given an
// animation frame to stand still, checked enabled and not covered, and
// focused or cleared; then comes the input itself.
//
//	Click: prepare (1) + mouse moved, pressed, released (3)           = 4
//	Fill:  prepare with focus and clear (1) + insertText (1) + events (1) = 3
//	Press: prepare with focus (1) + key down, up (2)                   = 3
//
// (plus the resolve itself: one call for a single match, and one to wrap the
// match as a rod element).

// ActOptions name the target for messages.
type ActOptions struct {
	Name string // the target's name
}

// point is what prepare reports.
type point struct {
	X, Y     float64
	Cover    string
	Disabled bool
	Gone     bool
}

// prepare readies el for input. A covered element fails at once with
// target_covered (retryable), naming the cover; a disabled one is waited for
// until ctx ends (target_not_found then, as rod's enabled wait did).
func prepare(ctx context.Context, el *rod.Element, name string, focus, clear bool) (point, error) {
	p := el.Page().Context(ctx)
	front := false
	for {
		res, err := evalOp(p, el.Object, "prepare", map[string]any{"focus": focus, "clear": clear, "front": front}, true, true)
		if err != nil {
			var nf *rod.ObjectNotFoundError
			if errors.As(err, &nf) {
				return point{}, errs.Wrap(errs.TargetNotFound, err, "target %s went away before it could be used", name)
			}
			return point{}, err
		}
		v := res.Value
		if v.Get("background").Bool() && !front {
			// Behind another tab (a popup left open): a person would switch
			// back to it first.
			front = true
			if err := (proto.PageBringToFront{}).Call(topPage(p)); err != nil {
				return point{}, err
			}
			continue
		}
		pt := point{X: v.Get("x").Num(), Y: v.Get("y").Num(), Disabled: v.Get("disabled").Bool(), Gone: v.Get("gone").Bool()}
		if c := v.Get("cover"); !c.Nil() {
			pt.Cover = c.Str()
		}
		switch {
		case pt.Gone:
			return pt, errs.New(errs.TargetNotFound, "target %s went away before it could be used", name)
		case pt.Cover != "":
			return pt, errs.New(errs.TargetCovered, "target %s is covered by %s", name, pt.Cover)
		case !pt.Disabled:
			return pt, nil
		}
		// Disabled: wait in the page until it is enabled, then prepare again.
		sc := scope{page: p, this: el.Object, within: true}
		i, err := waitConds(ctx, sc, []map[string]any{{"kind": "enabled"}}, maxWaitSlice)
		if ctx.Err() != nil {
			return pt, errs.Wrap(errs.TargetNotFound, ctx.Err(), "target %s stayed disabled", name)
		}
		if err != nil {
			return pt, err
		}
		_ = i
	}
}

// Click clicks el once with the left button, like a person: the mouse moves
// to its centre, presses and releases.
func Click(ctx context.Context, el *rod.Element, o ActOptions) error {
	pt, err := prepare(ctx, el, o.Name, false, false)
	if err != nil {
		return err
	}
	p := el.Page().Context(ctx)
	for _, ev := range []proto.InputDispatchMouseEvent{
		{Type: proto.InputDispatchMouseEventTypeMouseMoved, X: pt.X, Y: pt.Y},
		{Type: proto.InputDispatchMouseEventTypeMousePressed, X: pt.X, Y: pt.Y, Button: proto.InputMouseButtonLeft, Buttons: gsonInt(1), ClickCount: 1},
		{Type: proto.InputDispatchMouseEventTypeMouseReleased, X: pt.X, Y: pt.Y, Button: proto.InputMouseButtonLeft, ClickCount: 1},
	} {
		if err := ev.Call(p); err != nil {
			return err
		}
	}
	return nil
}

func gsonInt(i int) *int { return &i }

// Fill clears el and types value into it: the text is inserted as by an
// IME (one input event), then input and change fire, as rod's el.Input does.
func Fill(ctx context.Context, el *rod.Element, value string, o ActOptions) error {
	if _, err := prepare(ctx, el, o.Name, true, true); err != nil {
		return err
	}
	p := el.Page().Context(ctx)
	names := []string{"change"}
	if value != "" {
		if err := (proto.InputInsertText{Text: value}).Call(p); err != nil {
			return err
		}
		names = []string{"input", "change"}
	}
	_, err := evalOp(p, el.Object, "events", map[string]any{"names": names}, true, false)
	return err
}

// Press focuses el and presses key in it.
func Press(ctx context.Context, el *rod.Element, key input.Key, o ActOptions) error {
	if _, err := prepare(ctx, el, o.Name, true, false); err != nil {
		return err
	}
	return el.Page().Context(ctx).Keyboard.Type(key)
}

// Select chooses value in el: an option's value or label of a native
// <select> (set at once, input and change fired), or, for an ARIA combobox
// or a button that opens a listbox, the option with that accessible name:
// the control is clicked open when its listbox is not showing, the option
// is waited for in the page and clicked like a person would.
func Select(ctx context.Context, el *rod.Element, value string, o ActOptions) error {
	p := el.Page().Context(ctx)
	res, err := evalOp(p, el.Object, "select", map[string]any{"value": value}, true, false)
	if err != nil {
		return err
	}
	v := res.Value
	names := func() string {
		var out []string
		for _, n := range v.Get("names").Arr() {
			out = append(out, n.Str())
		}
		return strings.Join(out, ", ")
	}
	if v.Get("native").Bool() {
		if v.Get("done").Bool() {
			return nil
		}
		return errs.New(errs.TargetNotFound, "target %s has no option %q (options: %s)", o.Name, value, names())
	}
	if !v.Get("open").Bool() {
		if err := Click(ctx, el, o); err != nil {
			return err
		}
	}
	sc := scope{page: p, this: el.Object, within: true}
	for {
		i, err := waitConds(ctx, sc, []map[string]any{{"kind": "option", "value": value}}, maxWaitSlice)
		if ctx.Err() != nil {
			if res, err := evalOp(p.Context(context.WithoutCancel(ctx)), el.Object, "select", map[string]any{"value": value}, true, false); err == nil {
				v = res.Value
			}
			if !v.Get("listbox").Bool() {
				return errs.Wrap(errs.TargetNotFound, ctx.Err(), "target %s opened no listbox (no aria-controls and no role=listbox near it)", o.Name)
			}
			return errs.Wrap(errs.TargetNotFound, ctx.Err(), "target %s has no option %q (options: %s)", o.Name, value, names())
		}
		if err != nil {
			return err
		}
		if i == 0 {
			break
		}
	}
	opt, err := evalOp(p, el.Object, "option", map[string]any{"value": value}, false, false)
	if err != nil {
		return err
	}
	if opt.ObjectID == "" {
		return errs.New(errs.TargetNotFound, "target %s: option %q went away before it could be clicked", o.Name, value)
	}
	oel, err := p.ElementFromObject(opt)
	if err != nil {
		return err
	}
	return Click(ctx, oel, ActOptions{Name: fmt.Sprintf("%s option %q", o.Name, value)})
}
