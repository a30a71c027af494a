package selector

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/input"
	"github.com/go-rod/rod/lib/proto"
	"github.com/toolwright/toolwright/engine/errs"
	"github.com/ysmood/gson"
)

// Actions on a resolved element, in as few CDP requests as their guarantees
// allow. Each one first runs page.js's prepare in one Runtime.callFunctionOn:
// the element is scrolled into view (only when it is not), given an
// animation frame to stand still (a click only: the mouse must land on it;
// a focus lands wherever it is), checked enabled and not covered, and
// focused or cleared; then comes the input itself.
//
//	Click: prepare (1) + mouse moved, pressed, released (3; the move
//	       and the press are sent without waiting for their answers,
//	       see Unanswered: one round trip for the three)
//	       + did the click go to the element (1)                     = 5
//	       (+1 on a page with frames from other sites, or that skips rendering
//	       content (content-visibility): the move is checked)
//	Hover: prepare (1) + mouse moved (1)                              = 2
//	Fill:  prepare with focus and clear (1) + insertText (1) + events (1) = 3
//	Press: prepare with focus (1) + key down, up (2)                   = 3
//	Select (native): prepare (1) + choose (1)                          = 2
//
// (plus the resolve itself: one call for a single match, and one to wrap the
// match as a rod element). Map.Ready (a click; a native select, chosen in
// the same call) and Map.Typing (a fill, a press) find the target and
// prepare it in one call instead.

// ActOptions name the target for messages.
type ActOptions struct {
	Name string // the target's name
	// Secret: Fill types a secret; the element is marked first (SecretMark).
	Secret bool
}

// point is what prepare reports.
type point struct {
	X, Y     float64
	Cover    string
	Disabled bool
	ReadOnly bool // Disabled too: a field to fill that no one can type in
	Gone     bool
	// Verify: the page has frames from other sites (or is one), so the
	// mouse move is checked before a press (page.js "hit").
	Verify bool
	// Unreachable says why no pointer can reach the element after it was
	// scrolled into view: "zero" (no size) or "offscreen" (outside the
	// window W×H, at X, Y); nothing was prepared.
	Unreachable string
	W, H        float64
	// A fill's value the field does not take (nothing was cleared or
	// typed): TooLong is its maxlength, below the value's Len (UTF-16
	// units, as the page counts); Rejected is the field's type, which
	// would keep only Kept of it. Set: the page set the value (a picker
	// field: date, colour, range, ...); nothing is left to type.
	TooLong  *int
	Len      int
	Rejected string
	Kept     string
	Set      bool
	// NotField: what the target is when a fill cannot type into it (not a
	// text field, a textarea or an editable element; nothing was touched):
	// see notField.
	NotField *notField
	// Unfocused says why the element, just focused for a fill or a press,
	// does not hold the keyboard focus (nothing was cleared, typed or
	// pressed): "none" (it takes none: What it is), "moved" (the page moved
	// the focus To another element).
	Unfocused string
	What, To  string
	// Inert: the page made the element inert (the inert attribute: no
	// pointer, focus or typing reaches it); nothing was done.
	Inert bool
}

// stopped is the error of what stops any action on pt's element of target
// name, found before anything was done: not a field (a fill), no keyboard
// focus (a fill, a press), out of a pointer's reach, inert, covered; nil
// when nothing does.
func (pt point) stopped(name string) error {
	switch {
	case pt.NotField != nil:
		return pt.NotField.err(name)
	case pt.Unfocused != "":
		return pt.unfocusedErr(name)
	case pt.Unreachable != "":
		return pt.unreachable(name)
	case pt.Inert:
		return errs.New(errs.TargetCovered, "target %s cannot be used now: the page made it inert (the part of the page that holds it takes no input until the page enables it, "+
			"as behind a drawer or a dialog); nothing was done", name)
	case pt.Cover != "":
		return errs.New(errs.TargetCovered, "target %s is covered by %s", name, pt.Cover)
	}
	return nil
}

// unfocusedErr is the error of pt.Unfocused for target name.
func (pt point) unfocusedErr(name string) error {
	switch pt.Unfocused {
	case "none":
		return errs.New(errs.TargetNotFound, "target %s is %s that takes no keyboard focus (no tabindex), so a key pressed in it would go to the page: "+
			"press the key without a target to send it to the page, or point the target at what takes the key", name, pt.What)
	}
	return errs.New(errs.TargetNotFound, "target %s takes no keyboard focus now: the page moved the focus to %s (a dialog that keeps the focus inside it); "+
		"nothing was typed or pressed: close or finish that first", name, pt.To)
}

// notField is page.js typingTarget's answer for an element a fill cannot
// type into: What it is ("a <div>", "a checkbox"), the step to Use for it,
// the field it Holds (or a label's field), or how many Fields it holds.
type notField struct {
	What   string
	Use    string
	Holds  string
	Fields int
	Label  bool
}

// err is the target_not_found error of a fill of target name that cannot
// type into what it found (as check's for an element that is no checkbox).
func (nf notField) err(name string) error {
	what := nf.What
	if nf.Label {
		what = "the label of " + what
	}
	switch {
	case nf.Use != "":
		return errs.New(errs.TargetNotFound, "target %s is %s, not a field to type into: use %s %s step", name, what, article(nf.Use), nf.Use)
	case nf.Holds != "":
		return errs.New(errs.TargetNotFound, "target %s is %s, not a field: nothing can be typed into it; it holds one, %s: point the target at that", name, what, nf.Holds)
	case nf.Fields > 1:
		return errs.New(errs.TargetNotFound, "target %s is %s, not a field: nothing can be typed into it; it holds %d fields: point the target at the one to fill", name, what, nf.Fields)
	}
	return errs.New(errs.TargetNotFound, "target %s is %s, not a field: nothing can be typed into it (a fill types into a text field, a textarea or an editable element)", name, what)
}

// article is "a" or "an" for a step's name.
func article(step string) string {
	if strings.ContainsRune("aeiou", rune(step[0])) {
		return "an"
	}
	return "a"
}

// prep is what prepare readies an element for.
type prep struct {
	focus bool // a typing action (fill, press): focused, not pointed at
	press bool // a click: its press is watched (see page.js PRESS)
	// submits: a press: a form it sends is watched (see page.js SUBMIT).
	submits bool
	// fill, for a fill: the field is cleared for this value, unless it
	// does not take it (point.TooLong, point.Rejected) or the page sets it
	// (point.Set).
	fill *string
}

// req is page.js's request for p, with front set once the page's tab was
// brought to the front.
func (pr prep) req(front bool) map[string]any {
	r := map[string]any{"focus": pr.focus || pr.fill != nil, "clear": pr.fill != nil, "front": front, "settle": !pr.focus && pr.fill == nil, "press": pr.press, "submits": pr.submits}
	if pr.fill != nil {
		r["value"] = *pr.fill
	}
	return r
}

// unreachable is the target_unreachable error of pt, or nil.
func (pt point) unreachable(name string) error {
	switch pt.Unreachable {
	case "":
		return nil
	case "zero":
		return errs.New(errs.TargetUnreachable, "target %s has zero size, so no pointer can reach it: "+
			"pages draw such an element only when something reveals it (hover or open what holds it first)", name)
	}
	return errs.New(errs.TargetUnreachable, "target %s is off screen (its centre at %.0f, %.0f, outside the %.0f×%.0f window, even after scrolling it into view), "+
		"so no pointer can reach it: pages place row actions there until their row is hovered (hover its row first)", name, pt.X, pt.Y, pt.W, pt.H)
}

// unfit is the invalid_params error of a fill's value that the field does
// not take (pt.TooLong, pt.Rejected): nothing was cleared or typed, so the
// form is as the page left it.
func (pt point) unfit(name, value string) error {
	if pt.TooLong != nil {
		return errs.New(errs.InvalidParams, "target %s takes at most %d characters (its maxlength) and the value has %d, "+
			"so the browser would cut it: nothing was typed; give a shorter value", name, *pt.TooLong, pt.Len)
	}
	return errs.New(errs.InvalidParams, "target %s is a %s field and does not take %q (it would hold %q): nothing was typed; give %s",
		name, pt.Rejected, clipped(value), pt.Kept, fieldKinds[pt.Rejected])
}

// clipped is a value for a message: its first 60 characters, then "…".
func clipped(s string) string { return clipTo(s, 60) }

// clipTo is s's first n characters, then "…" when it had more.
func clipTo(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// fieldKinds says what each kind of field that keeps only its own values
// takes (page.js fitting).
var fieldKinds = map[string]string{
	"number":         "a number such as 1234.5 (a dot before decimals, no grouping)",
	"date":           "a date as YYYY-MM-DD",
	"time":           "a time as HH:MM or HH:MM:SS",
	"datetime-local": "a date and time as YYYY-MM-DDTHH:MM",
	"month":          "a month as YYYY-MM",
	"week":           "a week as YYYY-Www",
	"color":          "a colour as #rrggbb",
	"range":          "a number within the field's min, max and step",
}

// pointOf reads prepare's answer (or ready's).
func pointOf(v gson.JSON) point {
	pt := point{X: v.Get("x").Num(), Y: v.Get("y").Num(), Disabled: v.Get("disabled").Bool(), ReadOnly: v.Get("readonly").Bool(), Gone: v.Get("gone").Bool(), Verify: v.Get("verify").Bool(),
		W: v.Get("w").Num(), H: v.Get("h").Num(), Len: v.Get("len").Int(), Set: v.Get("done").Bool()}
	if n := v.Get("toolong"); !n.Nil() {
		pt.TooLong = gsonInt(n.Int())
	}
	if r := v.Get("rejected"); !r.Nil() {
		pt.Rejected, pt.Kept = r.Str(), v.Get("kept").Str()
	}
	if u := v.Get("unreachable"); !u.Nil() {
		pt.Unreachable = u.Str()
	}
	if c := v.Get("cover"); !c.Nil() {
		pt.Cover = c.Str()
	}
	pt.Unfocused, pt.What, pt.To = strAt(v, "unfocused"), strAt(v, "what"), strAt(v, "to")
	pt.Inert = v.Get("inert").Bool()
	if !v.Get("notfield").Nil() {
		pt.NotField = &notField{What: strAt(v, "notfield"), Use: strAt(v, "use"), Holds: strAt(v, "holds"), Fields: v.Get("fields").Int(), Label: v.Get("label").Bool()}
	}
	return pt
}

// prepare readies el for input. A covered element fails at once with
// target_covered (retryable), naming the cover; a disabled one, or a
// read-only field to fill (clear), is waited for until ctx ends
// (target_not_found then, as rod's enabled wait did). A read-only field
// is never cleared: its value stays what the page put there.
func prepare(ctx context.Context, el *rod.Element, name string, pr prep) (point, error) {
	p := el.Page().Context(ctx)
	front := false
	var last point // the last answer: disabled (or read-only) when the loop goes round
	for {
		res, err := evalOp(p, el.Object, "prepare", pr.req(front), true, true)
		if err != nil {
			var nf *rod.ObjectNotFoundError
			switch {
			case errors.As(err, &nf):
				return point{}, errs.Wrap(errs.TargetNotFound, err, "target %s went away before it could be used", name)
			case ctx.Err() != nil && last.Disabled:
				// The time ran out while asking again after a slice of
				// waiting: the element is as it was.
				return last, last.stayed(ctx, name)
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
		pt := pointOf(v)
		stop := pt.stopped(name)
		switch {
		case pt.Gone:
			return pt, errs.New(errs.TargetNotFound, "target %s went away before it could be used", name)
		case stop != nil:
			return pt, stop
		case pt.TooLong != nil || pt.Rejected != "":
			return pt, pt.unfit(name, *pr.fill)
		case !pt.Disabled:
			return pt, nil
		}
		// Disabled: wait in the page until it is enabled, then prepare again.
		if _, err := pt.waitUsable(ctx, p, el.Object, name, pr.fill != nil); err != nil {
			return pt, err
		}
		last = pt
	}
}

// waitUsable waits in the page, at most one slice (maxWaitSlice), for
// this, which pt found disabled or read-only (writable: a field to type
// in), to become usable: whether it did; the error once ctx ends says it
// stayed so.
func (pt point) waitUsable(ctx context.Context, p *rod.Page, this *proto.RuntimeRemoteObject, name string, writable bool) (bool, error) {
	sc := scope{page: p, this: this, within: true}
	i, err := waitConds(ctx, sc, []map[string]any{{"kind": "enabled", "writable": writable}}, maxWaitSlice)
	if ctx.Err() != nil {
		return false, pt.stayed(ctx, name)
	}
	return err == nil && i == 0, err
}

// stayed is the error of a wait for pt, disabled or read-only, to become
// usable that ctx ended.
func (pt point) stayed(ctx context.Context, name string) error {
	if pt.ReadOnly {
		return errs.Wrap(errs.TargetNotFound, ctx.Err(), "target %s stayed read-only: the page does not let anyone type in it", name)
	}
	return errs.Wrap(errs.TargetNotFound, ctx.Err(), "target %s stayed disabled", name)
}

// Unreachable is the target_unreachable error for el, a match of name
// that never became visible, when CSS draws it but it has no size (no
// pointer can ever reach it); nil otherwise (hidden by CSS, or gone: not
// found stays the answer).
func Unreachable(ctx context.Context, el *rod.Element, name string) error {
	res, err := evalOp(el.Page().Context(ctx), el.Object, "reach", map[string]any{}, true, false)
	if err != nil || !res.Value.Get("zero").Bool() {
		return nil
	}
	return point{Unreachable: "zero"}.unreachable(name)
}

// Click clicks el once with the left button, like a person: the mouse moves
// to its centre, presses and releases.
func Click(ctx context.Context, el *rod.Element, o ActOptions) error {
	return pointer(ctx, el, o, true)
}

// Hover moves the mouse over el's centre, with the guarantees of Click: in
// view, standing still, not covered, its tab in front.
func Hover(ctx context.Context, el *rod.Element, o ActOptions) error {
	return pointer(ctx, el, o, false)
}

// pointer prepares el and moves the mouse to it, and clicks when click is
// set; a move that did not reach el (see moveTo) is prepared and made again.
func pointer(ctx context.Context, el *rod.Element, o ActOptions, click bool) error {
	away := 0
	for {
		pt, err := prepare(ctx, el, o.Name, prep{press: click})
		if err != nil {
			return err
		}
		p := el.Page().Context(ctx)
		ok, err := moveTo(ctx, p, el.Object, pt, o.Name, click)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if !click {
			return nil
		}
		if done, err := pressChecked(ctx, p, el.Object, pt, o.Name, &away); done || err != nil {
			return err
		}
	}
}

// pressChecked presses at pt and asks the page whether the click went to
// the element (this, or the one Map.Ready readied): prepare's guard holds
// back a press that the page moved something else under, and the click of
// a release the page moved away from the element, and a frame from another
// site may have taken the press (see page.js PRESS); then nothing was
// clicked on the page: false, nil, and the caller prepares and
// presses again; an error once ctx ends. A press whose answer cannot be
// read (the click took the page to another document) went to the
// element: the guard lets no other press through. away counts the
// presses of this click that a frame took; at maxAway the click fails.
func pressChecked(ctx context.Context, p *rod.Page, this *proto.RuntimeRemoteObject, pt point, name string, away *int) (bool, error) {
	// Once sent, the press is answered in the step's time and then some
	// (Outlasting): a press held back, or a form the browser did not
	// send, is not a click done because the step's time ran out meanwhile.
	actx, cancel := Outlasting(ctx)
	defer cancel()
	if err := press(ctx, actx, p, pt); err != nil || actx.Err() != nil {
		return true, err
	}
	res, err := evalOp(p.Context(actx), this, "pressed", map[string]any{}, true, false)
	if err != nil {
		return true, nil
	}
	return pressJudged(ctx, res.Value, name, away)
}

// unsentErr is the invalid_params error of an action (did: what was done)
// that the browser answered by not sending a form: its own check of the
// form's fields stopped it (a required field left empty, an address
// without @), a person sees its message by the field, and nothing was
// sent. u is page.js's unsent answer ({what, message}); nil when it is
// none (the form was sent, or none was to be).
func unsentErr(u gson.JSON, did string) error {
	what := strAt(u, "what")
	if what == "" {
		return nil
	}
	return errs.New(errs.InvalidParams, "%s, but the browser did not send its form: %s is not valid (%q); give it a value the form accepts",
		did, what, clipped(strAt(u, "message")))
}

// pressJudged is pressChecked's answer for v, page.js's answer of op
// "pressed".
func pressJudged(ctx context.Context, v gson.JSON, name string, away *int) (bool, error) {
	if err := unsentErr(v.Get("unsent"), "target "+name+" was clicked"); err != nil {
		return true, err
	}
	if !v.Get("missed").Bool() {
		return true, nil
	}
	if v.Get("away").Bool() {
		if *away++; *away >= maxAway || ctx.Err() != nil {
			return false, errs.New(errs.TargetCovered, "target %s: %d presses never reached its page: a frame from another site drawn over it took them "+
				"(an ad or a widget that slides in: close it or wait it out first)", name, *away)
		}
		return false, nil
	}
	if ctx.Err() != nil {
		what := v.Get("what").Str()
		if what == "" {
			what = "something else"
		}
		if v.Get("released").Bool() {
			return false, errs.Wrap(errs.TargetCovered, ctx.Err(), "target %s: the page kept moving between pressing and releasing; the click went to %s and was held back (nothing was clicked)", name, what)
		}
		return false, errs.Wrap(errs.TargetCovered, ctx.Err(), "target %s: the page kept moving between aiming and pressing; the press landed on %s and was held back (nothing was clicked)", name, what)
	}
	return false, nil
}

// unansweredKey marks a context for Unanswered.
type unansweredKey struct{}

// Unanswered marks ctx for a CDP call that is written to the browser and
// not waited for: the connection returns once it is sent (engine/browser
// Conn). The browser handles a session's calls of one kind in order (input
// events in theirs, script runs in theirs), so the next input event that
// is waited for is answered after those sent before it were handled; a
// press sent right behind its mouse move saves the round trip between them
// (the browser answers a move only once the page handled it, at its next
// frame). Calls of different kinds are not ordered so: a script run sent
// after an unanswered Input.insertText read the field still empty. A
// client that does not know the mark waits as usual.
func Unanswered(ctx context.Context) context.Context {
	return context.WithValue(ctx, unansweredKey{}, true)
}

// IsUnanswered reports whether ctx is marked by Unanswered.
func IsUnanswered(ctx context.Context) bool {
	v, _ := ctx.Value(unansweredKey{}).(bool)
	return v
}

// moveTo moves the mouse to pt. When pt.Verify it then asks the page
// whether the move reached the element (this: the element, or nil after
// Map.Ready): false, nil when it did not and the caller should prepare and
// move again (the page has moved since; the mouse went to another process,
// see page.js "hit"); an error once ctx ends. With pressing (a press follows
// at once) a move that is not checked is not waited for: the press's
// answer comes after it.
func moveTo(ctx context.Context, p *rod.Page, this *proto.RuntimeRemoteObject, pt point, name string, pressing bool) (bool, error) {
	mp := p
	if pressing && !pt.Verify {
		mp = p.Context(Unanswered(ctx))
	}
	if err := (proto.InputDispatchMouseEvent{Type: proto.InputDispatchMouseEventTypeMouseMoved, X: pt.X, Y: pt.Y}).Call(mp); err != nil {
		return false, err
	}
	if !pt.Verify {
		return true, nil
	}
	res, err := evalOp(p, this, "hit", map[string]any{}, true, true)
	if err != nil {
		var nf *rod.ObjectNotFoundError
		if errors.As(err, &nf) {
			return false, errs.Wrap(errs.TargetNotFound, err, "target %s went away before it could be used", name)
		}
		return false, err
	}
	v := res.Value
	if v.Get("hit").Bool() {
		return true, nil
	}
	if ctx.Err() != nil {
		if what := v.Get("what").Str(); what != "" {
			return false, errs.Wrap(errs.TargetCovered, ctx.Err(), "target %s: the mouse kept landing on %s", name, what)
		}
		return false, errs.Wrap(errs.TargetNotFound, ctx.Err(), "target %s: the mouse never reached it (the page kept moving)", name)
	}
	return false, nil
}

// maxAway bounds the presses of one click that frames from other sites
// may take (see page.js PRESS). The browser routes by what it last drew,
// which is right again once the page drew the element there (the next
// try, after prepare's settle); a frame that stays over the element is
// a cover, which prepare names. The bound keeps a page whose own
// listener hides every press from the guard from being clicked without end.
const maxAway = 3

// pressGrace bounds how long a click's press and release are still
// delivered after the step's own time ran out (see press).
const pressGrace = 2 * time.Minute

// press presses and releases the left button at pt (the mouse is there).
// Chromium answers each event once the page has handled it (the release's
// answer, the one waited for, once it handled both). Once the press
// is sent the click is the page's: a page that takes long to handle it (a
// handler that opens dialog after dialog, or runs a long script) has been
// clicked all the same. So when ctx ends while the events are being
// handled, the answer is waited for while answer lasts (see Outlasting);
// past that press reports the click done and the events finish being
// delivered in the background (within pressGrace): an agent is never told
// to retry a click that happened, and clicks again.
func press(ctx, answer context.Context, p *rod.Page, pt point) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), pressGrace)
	done := make(chan error, 1)
	go func() {
		defer cancel()
		// The press is not waited for: the release's answer comes once
		// the page handled both.
		down := proto.InputDispatchMouseEvent{Type: proto.InputDispatchMouseEventTypeMousePressed, X: pt.X, Y: pt.Y, Button: proto.InputMouseButtonLeft, Buttons: gsonInt(1), ClickCount: 1}
		if err := down.Call(p.Context(Unanswered(bg))); err != nil {
			done <- err
			return
		}
		done <- proto.InputDispatchMouseEvent{Type: proto.InputDispatchMouseEventTypeMouseReleased, X: pt.X, Y: pt.Y, Button: proto.InputMouseButtonLeft, ClickCount: 1}.Call(p.Context(bg))
	}()
	select {
	case err := <-done:
		return err
	case <-answer.Done():
		return nil
	}
}

func gsonInt(i int) *int { return &i }

// Fill clears el and types value into it: the text is inserted as by an
// IME (one input event), then input and change fire, as rod's el.Input does.
func Fill(ctx context.Context, el *rod.Element, value string, o ActOptions) error {
	pt, err := prepare(ctx, el, o.Name, prep{fill: &value})
	if err != nil || pt.Set {
		return err
	}
	if o.Secret {
		if err := markSecret(el.Page().Context(ctx), el.Object); err != nil {
			return err
		}
	}
	return typeInto(el.Page().Context(ctx), el.Object, value, o.Name)
}

// typeInto types value into el, focused and cleared: the text inserted as
// by an IME (one request; the page fires beforeinput and input), then input
// and change fired on el (one request), as rod's el.Input does. A field of
// target name whose own script threw away the value typed into it, whole
// or some of its letters and digits (a field that keeps digits only),
// fails invalid_params; one whose script rewrote the text (upper case, a
// card number's spaces, a mask's dashes, bullets in place of digits) holds
// its rewrite.
func typeInto(p *rod.Page, el *proto.RuntimeRemoteObject, value, name string) error {
	names := []string{"change"}
	if value != "" {
		if err := (proto.InputInsertText{Text: value}).Call(p); err != nil {
			return err
		}
		names = []string{"input", "keyup", "change"}
	} else if err := emptyEditor(p, el); err != nil {
		return err
	}
	// A person's typing ends with a key let go: a search box that searches
	// on keyup (jQuery-era editors, Node-RED's) sees the last one, fired
	// with the events (no request of its own).
	last, _ := utf8.DecodeLastRuneInString(value)
	res, err := evalOp(p, el, "events", map[string]any{"names": names, "typed": value, "key": string(last)}, true, false)
	if err != nil {
		return err
	}
	v := res.Value
	if v.Get("editor").Bool() {
		return editorKept(v, value, name)
	}
	const accepts = "(it takes only some characters, digits for instance); give a value the field accepts"
	switch {
	case v.Get("emptied").Bool():
		return errs.New(errs.InvalidParams, "target %s kept nothing of the value typed into it: the page's own script emptied the field "+accepts, name)
	case v.Get("partial").Bool():
		holds := "" // a password field's value is not said
		if h := v.Get("held"); !h.Nil() {
			holds = fmt.Sprintf(" (it holds %q)", clipped(h.Str()))
		}
		return errs.New(errs.InvalidParams, "target %s kept only part of the value typed into it%s: the page's own script dropped some of its letters or digits "+accepts, name, holds)
	}
	return nil
}

// emptyEditor empties el, when it is an editor whose text prepare
// selected, as a person does: one Backspace, so the editor's own editing
// deletes it (a trusted beforeinput, the keydown its key map sees). An
// editor that keeps its text in a model of its own puts back text removed
// behind its back. A field was emptied by prepare; an empty editor has
// nothing selected.
func emptyEditor(p *rod.Page, el *proto.RuntimeRemoteObject) error {
	res, err := evalOp(p, el, "selected", map[string]any{}, true, false)
	if err != nil || !res.Value.Bool() {
		return err
	}
	for _, t := range []proto.InputDispatchKeyEventType{proto.InputDispatchKeyEventTypeRawKeyDown, proto.InputDispatchKeyEventTypeKeyUp} {
		if err := keyEvent(input.Backspace.Info(), t, 0, "").Call(p); err != nil {
			return err
		}
	}
	return nil
}

// editorKept is the error of a fill of an editor (contenteditable) of
// target name that does not hold the text typed into it (page.js op
// "events"): its own script refused the typing (a read-only editor, one
// that takes text only another way) or put its old text back.
func editorKept(v gson.JSON, value, name string) error {
	const why = "the editor's own script refused the typing or put its text back (a read-only editor, or one that takes text only another way)"
	switch held := clipped(strAt(v, "held")); {
	case v.Get("emptied").Bool():
		return errs.New(errs.InvalidParams, "target %s kept nothing of the text typed into it: "+why, name)
	case value == "":
		return errs.New(errs.InvalidParams, "target %s still holds %q after it was emptied: "+why, name, held)
	default:
		return errs.New(errs.InvalidParams, "target %s does not hold the text typed into it (it holds %q): "+why, name, held)
	}
}

// Press focuses el and presses key in it.
func Press(ctx context.Context, el *rod.Element, keys Keys, o ActOptions) error {
	if _, err := prepare(ctx, el, o.Name, prep{focus: true, submits: true}); err != nil {
		return err
	}
	return keys.pressIn(ctx, el.Page(), el.Object, "Enter was pressed in target "+o.Name)
}

// Typing is a target found and readied for typing in one round trip (see
// Map.Typing): focused (and cleared, for a fill), in view, enabled and not
// covered.
//
//	Fill:  typing (1) + insertText (1) + events (1) = 3 (was resolve 2 + 3)
//	Press: typing (1) + key down, up (2)            = 3 (was resolve 2 + 3)
//	       and for Enter, whether its form was sent (1)
//
// (one request more when a fallback locator matched: see Map.Typing).
type Typing struct {
	// Strategy and Locator name the locator that matched, as in Match.
	Strategy string
	Locator  int

	page *rod.Page
	el   *proto.RuntimeRemoteObject
	name string // the target's, for messages
	set  bool   // the page set the fill's value (a picker field): nothing to type
}

// Describe names the locator that matched, like Match.Describe.
func (t *Typing) Describe() string {
	return (&Match{Strategy: t.Strategy, Locator: t.Locator}).Describe()
}

// Fill types value, the one Map.Typing readied the element for, into the
// readied (and cleared) element.
func (t *Typing) Fill(ctx context.Context, value string) error {
	if t.set {
		return nil
	}
	return typeInto(t.page.Context(ctx), t.el, value, t.name)
}

// Press presses key in the readied element.
func (t *Typing) Press(ctx context.Context, keys Keys) error {
	return keys.pressIn(ctx, t.page, t.el, "Enter was pressed in target "+t.name)
}

// Typing looks for the one-element target name once and, when the page
// can find it on its own (as Map.Ready: the css, xpath, text or label
// locators before any role locator; no frame, no within), readies its first
// visible match for typing in the same Runtime.callFunctionOn: in view,
// enabled, not covered, focused, marked when a secret is typed (secret: see
// SecretMark), and, for a fill of *fill (nil: a press),
// its value cleared — Resolve (Visible, Once) and prepare in one request
// instead of three; a value the field does not take fails invalid_params
// with nothing cleared (see prepare), and a picker field's value is set
// there (Typing.Fill has nothing left to type). The
// answer is the element itself, for the events that follow the typing. A
// match by a fallback locator is readied by a second call naming that
// locator alone (the page says which one matched, without readying it). A
// covered element fails at once with target_covered, like Fill. It returns
// nil, nil when this way does not apply, or found nothing visible yet, a
// disabled element, or a page behind another tab: the caller then resolves
// and waits (for it to show, to be enabled; brings the tab to the front)
// the usual way.
func (m *Map) Typing(ctx context.Context, page *rod.Page, name string, fill *string, secret bool) (*Typing, error) {
	t, ok := m.Lookup(name)
	if !ok {
		return nil, nil
	}
	locs := pageLocs(t)
	p := page.Context(ctx)
	for from := 0; from < len(locs); {
		req := map[string]any{"locs": locs[from:], "clear": fill != nil, "submits": fill == nil}
		if fill != nil {
			req["value"] = *fill
		}
		if secret {
			req["secret"] = SecretMark // marked before it is typed (see SecretMark)
		}
		res, err := evalOp(p, nil, "typing", req, false, true)
		if err != nil {
			return nil, err
		}
		if res.Subtype == proto.RuntimeRemoteObjectSubtypeNode {
			return &Typing{Strategy: t.Locators[from].Strategy, Locator: from, page: page, el: res, name: name}, nil
		}
		if res.Type != proto.RuntimeRemoteObjectTypeString {
			return nil, errs.New(errs.Internal, "typing: the page answered a %s for %s", res.Type, name)
		}
		var ans gson.JSON
		if err := json.Unmarshal([]byte(res.Value.Str()), &ans); err != nil {
			return nil, errs.Wrap(errs.Internal, err, "typing: reading the page's answer for %s: %v", name, err)
		}
		pt := pointOf(ans)
		if err := pt.stopped(name); err != nil {
			return nil, err
		}
		switch i := ans.Get("i").Int(); {
		case pt.TooLong != nil || pt.Rejected != "":
			return nil, pt.unfit(name, *fill)
		case pt.Set:
			return &Typing{Strategy: t.Locators[from].Strategy, Locator: from, page: page, name: name, set: true}, nil
		case ans.Get("fallback").Bool() && from == 0 && i > 0:
			from = i // that locator alone: readied if it still matches
			continue
		}
		return nil, nil // missing, disabled, gone, behind another tab: the usual way
	}
	return nil, nil
}

// SetFiles puts the files at paths into el, a file input, as a person's
// choice in the browser's file chooser would; the page sees input and
// change. As a person's chooser, it needs the input enabled: a disabled
// one (itself, or by its fieldset) is waited for as any control is, and
// fails target_not_found "stayed disabled". A page whose own script then
// emptied the input (a rule on the files' type or size: "only PDF files")
// refused them: invalid_params, nothing was attached. names are the
// files' names as the workflow gave them, for the message.
func SetFiles(ctx context.Context, el *rod.Element, paths, names []string, o ActOptions) error {
	for {
		enabled, err := point{}.waitUsable(ctx, el.Page().Context(ctx), el.Object, o.Name, false)
		if err != nil {
			return err
		}
		if enabled {
			break
		}
	}
	p := el.Page().Context(ctx)
	said := -1
	if res, err := evalOp(p, el.Object, "took", map[string]any{}, true, false); err == nil {
		said = res.Value.Get("said").Int()
	}
	mark := RequestMark(el.Page())
	if err := el.Context(ctx).SetFiles(paths); err != nil {
		return err
	}
	// The page's answer (its change handler), however late (Outlasting).
	actx, cancel := Outlasting(ctx)
	defer cancel()
	res, err := el.Context(actx).Eval(`function () { return this.files ? this.files.length : 0 }`)
	if err != nil {
		if actx.Err() != nil {
			return err
		}
		return nil // the page went on to another document with the files
	}
	if kept := res.Value.Int(); kept < len(paths) && !tookFiles(actx, el, said, mark, names) {
		what := "none"
		if kept > 0 {
			what = fmt.Sprintf("only %d", kept)
		}
		return errs.New(errs.InvalidParams, "target %s kept %s of the files put into it (%s): the page's own script refused them "+
			"(a rule on their type or size?); give files the page accepts", o.Name, what, clipped(strings.Join(names, ", ")))
	}
	return nil
}

// tookFiles reports whether the page took the files put into el though
// it emptied the input, as uploaders do (plupload, Dropzone, FilePond,
// Uppy: the files are read on change and the input emptied so the same
// file can be chosen again): it said nothing to a person (no dialog since
// said, the page's count before) and it lists the files (names), sent a
// request since mark, or still has work the step set going. What it sent
// is judged by its answer once the step's work has run (navwatch).
func tookFiles(ctx context.Context, el *rod.Element, said int, mark uint64, names []string) bool {
	base := make([]string, len(names))
	for i, n := range names {
		base[i] = path.Base(filepath.ToSlash(n)) // a file's name, as the page sees it
	}
	res, err := evalOp(el.Page().Context(ctx), el.Object, "took", map[string]any{"names": base, "said": said}, true, false)
	if err != nil {
		return false
	}
	v := res.Value
	if v.Get("said").Bool() {
		return false
	}
	return v.Get("shown").Bool() || v.Get("busy").Bool() || RequestMark(el.Page()) != mark
}

// Select chooses value in el: an option's value or label of a native
// <select> (set at once, input and change fired), or, for an ARIA combobox
// or a button that opens a listbox, the option with that accessible name:
// the control is clicked open when its listbox is not showing, the option
// is waited for in the page and clicked like a person would; a listbox that
// then marks another option chosen (aria-selected) took the choice back.
func Select(ctx context.Context, el *rod.Element, value string, o ActOptions) error {
	p := el.Page().Context(ctx)
	// As a person would need: in view, reachable by the pointer, enabled,
	// not covered (a native <select> is then set at once).
	if _, err := prepare(ctx, el, o.Name, prep{}); err != nil {
		return err
	}
	res, err := evalOp(p, el.Object, "select", map[string]any{"value": value}, true, false)
	if err != nil {
		return err
	}
	v := res.Value
	if v.Get("native").Bool() {
		return chosen(v, o.Name, value)
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
			return errs.Wrap(errs.TargetNotFound, ctx.Err(), "target %s has no option %q (options: %s)", o.Name, value, optionNames(v))
		}
		if err != nil {
			return err
		}
		if i == 0 {
			break
		}
	}
	// An option marked aria-disabled ignores a click: nothing would be chosen.
	if res, err := evalOp(p, el.Object, "select", map[string]any{"value": value}, true, false); err != nil {
		return err
	} else if off := strAt(res.Value, "off"); off != "" {
		return offOption(res.Value, o.Name, value, off)
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
	if err := Click(ctx, oel, ActOptions{Name: fmt.Sprintf("%s option %q", o.Name, value)}); err != nil {
		return err
	}
	// Did the listbox keep the choice? Asked however late the click was
	// answered (Outlasting); a listbox gone with its document no longer
	// says: then the choice is taken as kept.
	kctx, cancel := Outlasting(ctx)
	defer cancel()
	kept, err := evalOp(p.Context(kctx), opt, "kept", map[string]any{}, true, false)
	switch {
	case err == nil && strAt(kept.Value, "back") != "":
		return chosen(kept.Value, o.Name, value)
	case err != nil && kctx.Err() != nil:
		return errs.Wrap(errs.TargetNotFound, err, "target %s: the page was still handling the click on option %q %s after the step's time ran out; whether it kept the choice is not known", o.Name, value, answerGrace)
	}
	return nil
}

// chosen is nil when page.js chose value in a native <select> (its answer
// v) and the select kept it; else the error of an option it does not
// have, one a person cannot choose, or a choice the page took back.
func chosen(v gson.JSON, name, value string) error {
	if v.Get("done").Bool() {
		return nil
	}
	if off := strAt(v, "off"); off != "" {
		return offOption(v, name, value, off)
	}
	if back := v.Get("back"); !back.Nil() {
		again := "left nothing chosen"
		if back.Str() != "" {
			again = fmt.Sprintf("chose %q again", back.Str())
		}
		return errs.New(errs.AssertionFailed, "target %s did not keep %q: the page's own script %s (a dialog it asked, dismissed? answer it with dialog: accept)", name, value, again)
	}
	return errs.New(errs.TargetNotFound, "target %s has no option %q (options: %s)", name, value, optionNames(v))
}

// strAt is the string at key of page.js's answer v; "" when it has none
// (gson's Str of an absent value is "<nil>").
func strAt(v gson.JSON, key string) string {
	if x := v.Get(key); !x.Nil() {
		return x.Str()
	}
	return ""
}

// offOption is the error of an option a person cannot choose (off:
// "disabled" or "hidden"), page.js's select answer v naming those that can
// be: nothing was chosen.
func offOption(v gson.JSON, name, value, off string) error {
	return errs.New(errs.InvalidParams, "target %s's option %q is %s: a person cannot choose it (options that can be chosen: %s); nothing was chosen",
		name, clipped(value), off, namesOf(v.Get("can")))
}

// optionNames lists the option names of page.js's select answer v.
func optionNames(v gson.JSON) string { return namesOf(v.Get("names")) }

// namesOf joins a list of names for a message.
func namesOf(l gson.JSON) string {
	var out []string
	for _, n := range l.Arr() {
		out = append(out, n.Str())
	}
	return strings.Join(out, ", ")
}

// Ready is a target found and readied for a click in one round trip (see
// Map.Ready): where to click, and which locator matched.
type Ready struct {
	// Strategy and Locator name the locator that matched, as in Match.
	Strategy string
	Locator  int
	// Disabled is set when the element is disabled (nothing was prepared).
	Disabled bool
	// Marked is set when the mark was kept (ReadyOptions.Mark): URL and
	// Text are then the page's URL and the marked element's text.
	Marked    bool
	URL, Text string
	// Chosen is set when ReadyOptions.Choose was chosen in a native
	// <select> in the same request (nothing else remains to do).
	Chosen bool

	page *rod.Page
	name string
	pt   point
	list List // the marked list (ReadyOptions.MarkTarget)
	// again readies the target anew (a mouse move that missed it).
	again func(context.Context) (*Ready, error)
}

// List is the list the click must change, as Before.List takes it: the
// many target ReadyOptions.MarkTarget when it was marked (none otherwise).
func (r *Ready) List() List { return r.list }

// Describe names the locator that matched, like Match.Describe.
func (r *Ready) Describe() string {
	return (&Match{Strategy: r.Strategy, Locator: r.Locator}).Describe()
}

// ReadyOptions tune Map.Ready.
type ReadyOptions struct {
	// Probe only finds the element and tells whether it is disabled.
	Probe bool
	// ClassDisabled counts a "disabled" class as disabled too (a next-page
	// control drawn as a link).
	ClassDisabled bool
	// Mark keeps, in the same call, what going stale shows that a click
	// changed the page (paginate): the first match of the many target
	// MarkTarget (the body when it is empty or matches nothing), kept on
	// the page's window for WaitChanged, its text and the URL read. A
	// MarkTarget the page cannot find on its own (a role locator, frame
	// or within) is left out: Marked stays false.
	Mark       bool
	MarkTarget string
	// Arm has the page's follow hook follow what the click about to come
	// sets going (see Before.Follow), in the same call.
	Arm bool
	// Choose, when set, is the option to choose in the element when it is
	// a native <select> (the select step): chosen in the same call as
	// Select would, with no press to follow. Another element is only
	// readied (Chosen stays false: Select it the usual way).
	Choose *string
}

// Ready looks for the one-element target name once and, when the page can
// find it on its own (a css, xpath, text or label locator before any role
// locator matches; no frame, no within), readies its first visible match for a click in the same
// Runtime.callFunctionOn: scrolled into view, standing still for a frame,
// checked enabled and not covered — Resolve (Visible, Once) and prepare in
// one request instead of three. A covered element fails at once with
// target_covered, like Click. It returns nil, nil when this way does not
// apply or found nothing visible yet: the caller then resolves (and waits)
// the usual way. A disabled element comes back with Disabled set.
func (m *Map) Ready(ctx context.Context, page *rod.Page, name string, o ReadyOptions) (*Ready, error) {
	t, ok := m.Lookup(name)
	if !ok || t.Many || t.Frame != "" || t.Within != "" {
		return nil, nil
	}
	locs := pageLocs(t)
	if len(locs) == 0 {
		return nil, nil
	}
	p := page.Context(ctx)
	req := map[string]any{"locs": locs, "settle": true, "press": o.Choose == nil, "off": o.ClassDisabled, "probe": o.Probe, "arm": o.Arm}
	if o.Choose != nil {
		req["choose"] = *o.Choose
	}
	var mark []jsLoc
	if o.Mark {
		var ok bool
		if mark, ok = m.markLocs(o.MarkTarget); ok {
			req["mark"] = mark
		}
	}
	res, err := evalOp(p, nil, "ready", req, true, true)
	if err != nil {
		return nil, err
	}
	v := res.Value
	if v.Get("missing").Bool() || v.Get("background").Bool() {
		return nil, nil // not there yet, or behind another tab: Click brings it to the front
	}
	i := v.Get("i").Int()
	if i < 0 || i >= len(t.Locators) {
		return nil, errs.New(errs.Internal, "ready: locator %d of %s", i, name)
	}
	r := &Ready{Strategy: t.Locators[i].Strategy, Locator: i, Disabled: v.Get("disabled").Bool(), page: page, name: name,
		Marked: v.Get("marked").Bool(), URL: v.Get("url").Str(), Text: v.Get("text").Str()}
	if r.Marked {
		r.list = List{locs: mark} // none for the body (MarkTarget "")
	}
	r.pt = pointOf(v)
	r.again = func(ctx context.Context) (*Ready, error) { return m.Ready(ctx, page, name, o) }
	switch {
	case r.Disabled || o.Probe:
		return r, nil
	case r.pt.Gone:
		return nil, nil
	}
	if err := r.pt.stopped(name); err != nil {
		return nil, err
	}
	if c := v.Get("chosen"); c.Get("native").Bool() {
		if err := chosen(c, name, *o.Choose); err != nil {
			return nil, err
		}
		r.Chosen = true
	}
	return r, nil
}

// Click clicks the readied element: the mouse moves to its centre, presses
// and releases, and the page tells whether the press went to it (four
// requests; five on a page with frames from other sites, where the move is
// checked, see moveTo). A move or press that missed readies it again.
func (r *Ready) Click(ctx context.Context) error {
	return r.ClickThen(ctx, nil)
}

// A MissedPress ends a wait that first asked whether the click just made
// went to its element (WaitChanged's pressed): the page's guard held it
// back, and nothing was clicked.
type MissedPress struct{ answer gson.JSON }

func (e *MissedPress) Error() string { return "the press did not reach its element" }

// ClickThen is Click whose check that the click went to the element is
// then (nil: the check alone): the wait that follows the click, which
// first asks the page what its press came to (WaitChanged's pressed) and
// fails with a *MissedPress when the guard held it back; the click is
// then aimed and made again, and then runs again. One request fewer a
// click than the check and the wait apart.
func (r *Ready) ClickThen(ctx context.Context, then func(context.Context) error) error {
	away := 0
	for {
		p := r.page.Context(ctx)
		ok, err := moveTo(ctx, p, nil, r.pt, r.name, true)
		if err != nil {
			return err
		}
		if ok && then == nil {
			done, err := pressChecked(ctx, p, nil, r.pt, r.name, &away)
			if done || err != nil {
				return err
			}
		}
		if ok && then != nil {
			if err := press(ctx, ctx, p, r.pt); err != nil {
				return err
			}
			if ctx.Err() != nil {
				return ctx.Err() // pressed, and no time left to see what it did
			}
			err := then(ctx)
			var mp *MissedPress
			if !errors.As(err, &mp) {
				return err
			}
			if _, err := pressJudged(ctx, mp.answer, r.name, &away); err != nil {
				return err
			}
		}
		// The move or the press missed: ready the target again.
		nr, err := r.again(ctx)
		if err != nil {
			return err
		}
		if nr == nil || nr.Disabled {
			return errs.New(errs.TargetNotFound, "target %s went away before it could be clicked", r.name)
		}
		r = nr
	}
}

// markLocs are the locators of the many target name that the page runs
// alone, all of them ([] for "": the body); false when it cannot (a role
// locator, a frame or within, an unknown name).
func (m *Map) markLocs(name string) ([]jsLoc, bool) {
	if name == "" {
		return []jsLoc{}, true
	}
	t, ok := m.Lookup(name)
	if !ok || t.Frame != "" || t.Within != "" {
		return nil, false
	}
	locs := locsBeforeRole(t)
	return locs, len(locs) == len(t.Locators) && len(locs) > 0
}

// List is the many target name as Before.List takes it: the zero List
// when there is none or the page cannot find it alone (a role locator, a
// frame or within).
func (m *Map) List(name string) List {
	if name == "" {
		return List{}
	}
	locs, ok := m.markLocs(name)
	if !ok {
		return List{}
	}
	return List{locs: locs}
}

// pageLocs are the locators of a one-element target that the page runs
// alone, up to the first that needs the accessibility tree: when one of
// them matches, it is the one Resolve would have taken (the first in order
// that matches). None for a many, frame or within target (Map.Ready,
// Map.Typing).
func pageLocs(t *Target) []jsLoc {
	if t.Many || t.Frame != "" || t.Within != "" {
		return nil
	}
	return locsBeforeRole(t)
}

// locsBeforeRole are t's locators up to the first that needs the
// accessibility tree: the ones the page runs alone, in Resolve's order.
func locsBeforeRole(t *Target) []jsLoc {
	var locs []jsLoc
	for _, l := range t.Locators {
		if l.Strategy == Role {
			break
		}
		locs = append(locs, locJS(l))
	}
	return locs
}

// Late is what the page of the last click tells about what the click set
// going (page.js op "late").
type Late struct {
	Held    bool          // it submitted a form whose submit the page held back (preventDefault)
	Ago     time.Duration // how long ago that submit was
	Leaving bool          // the page began a navigation to another document since the click
	// Invalid describes the first control of the held form that its page
	// marks invalid (aria-invalid, is-invalid, or failing the browser's
	// rules under novalidate), Message the message the page ties to it;
	// "" when none is.
	Invalid, Message string
	// Followed: what the follow hook said (LateFollowed only).
	Followed Followed
}

// lateSubmit bounds how long LateAfterClick waits, by the page's clock,
// for a form submit the page did not hold back to begin its navigation.
const lateSubmit = 2 * time.Second

// LateAfterClick asks the page of the last click (or Enter) what it set
// going. With idle > 0 it first waits until the page has nothing left to
// run (at most idle, by the page's clock): the continuations of the
// requests the page saw end have run then, and a navigation they begin is
// begun. A form submit the page did not hold back begins its navigation
// when the browser runs it, a task after the click (later when the click
// left work queued): the answer waits for that beginning (at most
// lateSubmit), so Leaving is not false while the submit is still on its
// way.
func LateAfterClick(ctx context.Context, page *rod.Page, idle time.Duration) (Late, error) {
	res, err := evalOp(page.Context(ctx), nil, "late", map[string]any{"idle": idle.Milliseconds(), "submit": lateSubmit.Milliseconds()}, true, true)
	if err != nil {
		return Late{}, err
	}
	return lateOf(res.Value), nil
}

// lateOf reads page.js's answer to op "late".
func lateOf(v gson.JSON) Late {
	return Late{Held: v.Get("held").Bool(), Ago: time.Duration(v.Get("ago").Num() * float64(time.Millisecond)), Leaving: v.Get("leaving").Bool(),
		Invalid: strAt(v.Get("invalid"), "what"), Message: strAt(v.Get("invalid"), "message")}
}
