package selector

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-rod/rod"
	"github.com/toolwright/toolwright/engine/backoff"
	"github.com/toolwright/toolwright/engine/errs"
	"github.com/ysmood/gson"
)

// Condition kinds of Wait.
const (
	CondVisible = "visible" // Target is visible
	CondHidden  = "hidden"  // Target is gone or hidden
	CondText    = "text"    // Text appears anywhere on the page, frames included
	CondURL     = "url"     // the page URL matches the glob Text (also after history.pushState)
	CondCount   = "count"   // Target has at least Min visible matches
	CondIdle    = "idle"    // no request has been in flight for Quiet
)

// Cond is one condition of Wait.
type Cond struct {
	Kind   string
	Target string
	Text   string
	Min    int
	Quiet  time.Duration
}

// Describe is a short form for messages: `visible acme.rows`, `text "No results"`.
func (c Cond) Describe() string {
	switch c.Kind {
	case CondText, CondURL:
		return fmt.Sprintf("%s %q", c.Kind, c.Text)
	case CondCount:
		return fmt.Sprintf("count %s at least %d", c.Target, c.Min)
	case CondIdle:
		return fmt.Sprintf("network idle %s", c.Quiet)
	}
	return c.Kind + " " + c.Target
}

// fastPoll is how often the page re-checks conditions no mutation reveals
// (a pushState URL): about once a frame.
const fastPoll = 16 * time.Millisecond

// Wait waits until one of conds holds and returns its index (the first
// that holds, in order, when several do). The conditions the page can
// answer itself (css, text, label and xpath targets of the top document,
// text, URL) are one promise in the page, settled once the task that made a
// change is over (MutationObserver + a message to itself, which runs after
// the task's microtasks; a poll for what no mutation shows). Targets in frames or found through the accessibility
// tree, text inside out-of-process frames and network idleness are checked
// from Go between short promises. When ctx ends first the error says what
// did not happen (target_not_found; navigation_failed for a URL).
func (m *Map) Wait(ctx context.Context, page *rod.Page, conds []Cond) (int, error) {
	return m.wait(ctx, page, conds, false, nil)
}

// Holds looks once, without waiting, and returns the index of the first of
// conds that holds now, or -1: the same checks as Wait, in one request when
// the page can answer them all (network idleness never holds here).
func (m *Map) Holds(ctx context.Context, page *rod.Page, conds []Cond) (int, error) {
	return m.wait(ctx, page, conds, true, nil)
}

// With a, the looks in the page read its extracts too (see ahead.go).
func (m *Map) wait(ctx context.Context, page *rod.Page, conds []Cond, once bool, a *ahead) (int, error) {
	if len(conds) == 0 {
		return -1, errs.New(errs.Internal, "wait without a condition")
	}
	start := time.Now()
	idleCtx, stopIdle := context.WithCancel(ctx)
	defer stopIdle()
	w, err := m.planWait(idleCtx, page, conds, once)
	if err != nil {
		return -1, err
	}
	w.ahead = a
	slice := maxWaitSlice
	if w.goSide {
		slice = 100 * time.Millisecond
	}
	sc := scope{page: page}
	var cause error
	pageFirst := w.lookFirst(ctx, sc, conds)
	if pageFirst >= 0 && pageFirst <= w.goFirst {
		// No earlier condition is answered from Go; a text the page found
		// holds whatever its cross-site frames hold.
		return pageFirst, nil
	}
	for {
		best := -1
		// Conditions answered from Go, in order.
		if w.goSide {
			if a != nil {
				a.texts = nil // a look in the page after this one only
			}
			var err error
			if best, err = m.holdsGoSide(ctx, page, conds, once, w.idle, &cause); err != nil {
				return -1, err
			}
		}
		if pageFirst > -2 && (best >= 0 || once) {
			// Only whether an earlier condition holds in the page: it
			// answered a moment ago.
			if pageFirst >= 0 && (best < 0 || pageFirst < best) {
				best = pageFirst
			}
			pageFirst = -2
		} else if len(w.inPage) > 0 {
			pageFirst = -2
			d := slice
			if best >= 0 || once {
				d = 0 // only ask whether an earlier condition holds too
			}
			i, err := w.look(ctx, sc, d, pollFor(conds))
			switch {
			case err != nil && once:
				return -1, err
			case err != nil && ctx.Err() == nil:
				cause = err // a navigation dropped the promise: ask the new document
				if !backoff.Wait(ctx, fastPoll) {
					break
				}
			case i >= 0 && (best < 0 || w.inPageIdx[i] < best):
				best = w.inPageIdx[i]
			}
		} else if best < 0 && !once {
			select {
			case i := <-w.idle:
				best = i
			case <-ctx.Done():
			case <-time.After(slice):
			}
		}
		if best >= 0 || once {
			return best, nil
		}
		if ctx.Err() != nil {
			return -1, m.waitFailed(ctx, page, conds, start, cause)
		}
	}
}

// waitPlan is how a wait's conditions are checked: those the page answers
// in one request (inPage, with their indexes in conds), whether any is
// answered from Go, and where network idleness is reported.
type waitPlan struct {
	inPage    []map[string]any
	inPageIdx []int
	goSide    bool
	goFirst   int // the index of the first condition answered from Go (len(conds): none)
	idle      chan int
	ahead     *ahead // the extracts a look that sees a condition hold reads too
}

// look asks the page whether one of the conditions it answers holds,
// waiting up to slice, and with w.ahead reads its extracts once one does.
func (w *waitPlan) look(ctx context.Context, sc scope, slice, poll time.Duration) (int, error) {
	if w.ahead == nil {
		return waitCondsPoll(ctx, sc, w.inPage, slice, poll)
	}
	w.ahead.texts = nil
	i, got, err := waitLook(ctx, sc, w.inPage, slice, poll, w.ahead.reqs)
	if err == nil && i >= 0 {
		w.ahead.texts = got.Arr()
	}
	return i, err
}

// lookFirst asks the page once, before anything is answered from Go, when
// conditions are answered from Go too (a text in cross-site frames, a
// target in a frame): one request answers a look where a condition the
// page answers holds before any answered from Go (or is that one: a text
// the page found), as the first of a wait's `any` usually does, and a
// page busy with its own scripts after load answers each request late. It
// returns the index in conds of the first that held, -1 when none did, -2
// when the page was not asked.
func (w *waitPlan) lookFirst(ctx context.Context, sc scope, conds []Cond) int {
	if !w.goSide || len(w.inPage) == 0 {
		return -2
	}
	i, err := w.look(ctx, sc, 0, pollFor(conds))
	switch {
	case err != nil:
		return -2
	case i < 0:
		return -1
	}
	return w.inPageIdx[i]
}

// planWait sorts conds into those the page answers and those Go answers,
// and starts watching the network for the idleness conditions (not when
// looking once: idleness never holds then) until ctx ends.
func (m *Map) planWait(ctx context.Context, page *rod.Page, conds []Cond, once bool) (*waitPlan, error) {
	w := &waitPlan{idle: make(chan int, len(conds)), goFirst: len(conds)}
	fromGo := func(i int) {
		w.goSide = true
		w.goFirst = min(w.goFirst, i)
	}
	for i, c := range conds {
		switch c.Kind {
		case CondText:
			w.inPage = append(w.inPage, map[string]any{"kind": "text", "text": c.Text})
			w.inPageIdx = append(w.inPageIdx, i)
			fromGo(i) // text inside out-of-process frames
		case CondURL:
			w.inPage = append(w.inPage, map[string]any{"kind": "url", "re": globRE(c.Text), "path": globOnPath(c.Text)})
			w.inPageIdx = append(w.inPageIdx, i)
		case CondIdle:
			if once {
				continue
			}
			go watchIdle(ctx, page, i, c.Quiet, w.idle)
			fromGo(i)
		default:
			jc, ok, err := m.pageCond(c)
			if err != nil {
				return nil, err
			}
			if !ok {
				fromGo(i)
				if jc == nil {
					continue
				}
				// Its locators before the first role one: the page
				// answers when they show it (see pageCond).
			}
			w.inPage = append(w.inPage, jc)
			w.inPageIdx = append(w.inPageIdx, i)
		}
	}
	return w, nil
}

// watchIdle sends i on idle once page's network has been quiet for quiet,
// unless ctx ends first.
func watchIdle(ctx context.Context, page *rod.Page, i int, quiet time.Duration, idle chan<- int) {
	if t := trafficOf(page); t != nil {
		// The page is watched: requests already in flight count.
		if t.idle(ctx, quiet) == nil {
			idle <- i
		}
		return
	}
	wait := page.Context(ctx).WaitRequestIdle(quiet, nil, nil, nil)
	wait()
	if ctx.Err() == nil {
		idle <- i
	}
}

// holdsGoSide returns the first of conds Go finds holding, or an earlier
// idleness one that was reported, or -1. A check's error ends a look once;
// otherwise it is kept in cause while ctx lasts and the next is checked.
func (m *Map) holdsGoSide(ctx context.Context, page *rod.Page, conds []Cond, once bool, idle <-chan int, cause *error) (int, error) {
	best := -1
	for i, c := range conds {
		ok, err := m.holdsFromGo(ctx, page, c)
		if err == nil && ok {
			best = i
			break
		}
		if err != nil && once {
			return -1, err
		}
		if err != nil && ctx.Err() == nil {
			*cause = err
		}
	}
	select {
	case i := <-idle:
		if best < 0 || i < best {
			best = i
		}
	default:
	}
	return best, nil
}

// pageCond is a target condition (visible, hidden, count) as page.js
// checks it; false when the page cannot answer it alone (a target in a
// frame, inside another, or found through the accessibility tree). For a
// target whose role locator comes after others, a visible or count
// condition comes back with false too, on those others: the page answers
// it when it holds, Go when it does not.
func (m *Map) pageCond(c Cond) (map[string]any, bool, error) {
	if c.Kind != CondVisible && c.Kind != CondHidden && c.Kind != CondCount {
		return nil, false, nil
	}
	t, ok := m.Lookup(c.Target)
	if !ok {
		return nil, false, errs.New(errs.Internal, "unknown target %q", c.Target)
	}
	if t.Frame != "" || t.Within != "" {
		return nil, false, nil
	}
	cond := func(locs []jsLoc) map[string]any {
		return map[string]any{"kind": c.Kind, "locs": locs, "many": t.Many || c.Kind == CondCount, "min": c.Min}
	}
	if !needsAX(t) {
		return cond(jsLocs(t)), true, nil
	}
	// A role locator is answered from Go. The locators before it are tried
	// first by Resolve too: when one of them shows the target (visible, or
	// at least Min matches), the condition holds, and the page can say so
	// on its own; when none does, only Go can tell. A hidden condition
	// is never answered this way: those locators missing is not the
	// target missing.
	before := locsBeforeRole(t)
	if c.Kind == CondHidden || len(before) == 0 {
		return nil, false, nil
	}
	return cond(before), false, nil
}

// pollFor is the page's fallback poll: once a frame for URL conditions
// (pushState shows no mutation), else 50ms.
func pollFor(conds []Cond) time.Duration {
	for _, c := range conds {
		if c.Kind == CondURL {
			return fastPoll
		}
	}
	return 50 * time.Millisecond
}

// waitCondsPoll is waitConds with the page's fallback poll interval.
func waitCondsPoll(ctx context.Context, sc scope, conds []map[string]any, slice, poll time.Duration) (int, error) {
	i, _, err := waitLook(ctx, sc, conds, slice, poll, nil)
	return i, err
}

// waitLook is waitCondsPoll that, once a condition holds, reads the
// extracts of reads (page.js's requests, of the page's own document) in
// the same task: their texts.
func waitLook(ctx context.Context, sc scope, conds []map[string]any, slice, poll time.Duration, reads []map[string]any) (int, gson.JSON, error) {
	d := upToDeadline(ctx, slice)
	req := map[string]any{"conds": conds, "timeout": d.Milliseconds(), "frame": sc.frame, "poll": poll.Milliseconds()}
	if len(reads) > 0 {
		req["reads"] = reads
	}
	if sc.pressed {
		req["pressed"] = true
	}
	res, err := evalOp(sc.page.Context(ctx), sc.this, "wait", req, true, true)
	switch {
	case err != nil:
		return -1, gson.JSON{}, err
	case res.Value.Nil():
		return -1, gson.JSON{}, nil
	case res.Value.Has("pressed"):
		return -1, gson.JSON{}, &MissedPress{answer: res.Value.Get("pressed")}
	case len(reads) > 0 && res.Value.Has("reads"):
		return res.Value.Get("i").Int(), res.Value.Get("reads"), nil
	}
	return res.Value.Int(), gson.JSON{}, nil
}

// upToDeadline is d, or the time left before ctx's deadline when that is
// shorter (never below 0).
func upToDeadline(ctx context.Context, d time.Duration) time.Duration {
	if dl, ok := ctx.Deadline(); ok {
		d = min(d, time.Until(dl))
	}
	return max(d, 0)
}

// holdsFromGo checks once the conditions the page cannot answer alone.
func (m *Map) holdsFromGo(ctx context.Context, page *rod.Page, c Cond) (bool, error) {
	switch c.Kind {
	case CondText:
		return textInCrossFrames(ctx, page, c.Text)
	case CondURL, CondIdle:
		return false, nil
	}
	t, _ := m.Lookup(c.Target)
	if t.Frame == "" && t.Within == "" && !needsAX(t) {
		return false, nil // the page answers it
	}
	tt := *t
	if c.Kind == CondCount {
		tt.Many = true
	}
	sc, err := m.scopeOf(ctx, page, &tt, "", Options{Once: true})
	var mt *Match
	if err == nil {
		// The matches are counted, not used: no element wraps them (a
		// request or two each).
		mt, err = resolveScoped(ctx, sc, &tt, Options{Visible: true, Seen: true, Once: true, objects: true}, false)
	}
	found := err == nil
	if err != nil && errs.CodeOf(err) != errs.TargetNotFound {
		return false, err
	}
	switch c.Kind {
	case CondVisible:
		return found, nil
	case CondHidden:
		return !found, nil
	case CondCount:
		return found && len(mt.objs) >= c.Min, nil
	}
	return false, nil
}

// textInCrossFrames looks for text in the out-of-process frames of page
// (one level: the frames of the page and of its same-process frames).
func textInCrossFrames(ctx context.Context, page *rod.Page, text string) (bool, error) {
	p := page.Context(ctx)
	res, err := evalOp(p, nil, "crossframes", map[string]any{}, false, false)
	if err != nil || res.ObjectID == "" {
		return false, err
	}
	defer func() { _ = p.Release(res) }()
	list, err := p.ElementsByJS(rod.Eval(`function () { return this }`).This(res))
	if err != nil {
		return false, err
	}
	for _, el := range list {
		sc, err := enterFrame(ctx, el)
		if err != nil {
			continue
		}
		i, err := waitCondsPoll(ctx, sc, []map[string]any{{"kind": "text", "text": text}}, 0, 0)
		if err == nil && i == 0 {
			return true, nil
		}
	}
	return false, nil
}

// waitFailed explains a wait that ran out of time.
func (m *Map) waitFailed(ctx context.Context, page *rod.Page, conds []Cond, start time.Time, cause error) error {
	if errors.Is(ctx.Err(), context.Canceled) {
		return errs.Wrap(errs.Cancelled, ctx.Err(), "the wait was cancelled")
	}
	if cause == nil {
		cause = ctx.Err()
	}
	after := Allowed(ctx, start)
	where := PagePath(ctx, page)
	if len(conds) > 1 {
		var ds []string
		for _, c := range conds {
			ds = append(ds, c.Describe())
		}
		return errs.Wrap(errs.TargetNotFound, cause, "none of the wait's conditions held on %s after %s (%s)", where, after, strings.Join(ds, "; "))
	}
	c := conds[0]
	switch c.Kind {
	case CondVisible:
		t, _ := m.Lookup(c.Target)
		return errs.Wrap(errs.TargetNotFound, cause, "target %s not found on %s after %s (tried %s)", c.Target, where, after, strings.Join(tried(t), ", "))
	case CondHidden:
		return errs.Wrap(errs.TargetNotFound, cause, "target %s was still visible on %s after %s", c.Target, where, after)
	case CondCount:
		return errs.Wrap(errs.TargetNotFound, cause, "target %s did not reach %d visible matches on %s after %s", c.Target, c.Min, where, after)
	case CondText:
		return errs.Wrap(errs.TargetNotFound, cause, "text %q did not appear on %s after %s", c.Text, where, after)
	case CondURL:
		return errs.Wrap(errs.NavigationFailed, cause, "the page URL did not match %q after %s (it is %s)", c.Text, after, where)
	}
	busy := ""
	if t := trafficOf(page); t != nil {
		if n := t.inFlight(); n == 1 {
			busy = " (1 request still in flight)"
		} else if n > 1 {
			busy = fmt.Sprintf(" (%d requests still in flight)", n)
		}
	}
	return errs.Wrap(errs.NavigationFailed, cause, "the network did not stay quiet for %s on %s within %s%s", c.Quiet, where, after, busy)
}

// A Change is how WaitChanged saw the page move on.
type Change struct {
	// NewDoc: another document replaced the old element's.
	NewDoc bool
	// ByURL: only the URL told it (the old document may still be shown
	// while the new one commits).
	ByURL bool
	// Parsed: the new document was seen parsed to its end (the page's
	// answer waits for that), so it has arrived (WaitArrived has nothing
	// left to wait for).
	Parsed bool
	list   List // Before.List, in the same document
	follow bool // Before.Follow
}

// A List is the list of rows a click on a next-page control must change
// (Ready.List): a page that changed in place has arrived once that list
// stood still (WaitArrived), though other parts of the page still move.
type List struct{ locs []jsLoc }

// Before is the state of the page a click must change (WaitChanged).
type Before struct {
	URL, Text string
	// Pressed: the click was just pressed, and not checked yet
	// (Ready.ClickThen): the page first answers what the press came to,
	// and a press its guard held back ends the wait with a *MissedPress.
	Pressed bool
	// List: the rows the next page shows (the zero List: none known).
	List List
	// Follow: the page's follow hook was armed for the click (Arm,
	// ReadyOptions.Arm). A page that changed in place has then arrived
	// once what the click set going has run, as the hook tells: no window
	// of standing still is waited out (WaitArrived).
	Follow bool
}

// WaitChanged waits until the page moved on from a state seen before: its
// URL is no longer b.URL (a new document, or history.pushState), or el
// went stale (detached, or its text is no longer b.Text); el nil: the
// element Map.Ready kept (ReadyOptions.Mark), on the page's current
// window. The page answers it with a promise, once the task that changed
// it is over. A new document seen parsed reads rd (nil: nothing) in the
// same request.
func WaitChanged(ctx context.Context, page *rod.Page, el *rod.Element, b Before, rd *Reads) (Change, error) {
	url, text := b.URL, b.Text
	sc := scope{page: page}
	cond := []map[string]any{{"kind": "changed", "url": url, "text": text, "mark": true}, {"kind": "unmarked"}}
	reads := rd.reqs()
	if el != nil {
		sc = scope{page: el.Page(), this: el.Object, within: true}
		cond = []map[string]any{{"kind": "changed", "url": url, "text": text}}
		reads = nil // read in the old element's document
	}
	sc.pressed = b.Pressed
	for {
		i, texts, err := waitLook(ctx, sc, cond, maxWaitSlice, fastPoll, reads)
		sc.pressed = false // asked once: the page's answer ended the watch
		var mp *MissedPress
		if errors.As(err, &mp) {
			return Change{}, err
		}
		if ctx.Err() != nil {
			return Change{}, ctx.Err()
		}
		var nf *rod.ObjectNotFoundError
		switch {
		case err == nil && i == 0:
			return Change{list: b.List, follow: b.Follow}, nil // the same document changed
		case err == nil && i == 1:
			// No mark: another document, which answered once parsed (the
			// page's check waits for a document still loading).
			rd.answered(texts, len(reads) > 0)
			return Change{NewDoc: true, Parsed: true}, nil
		case errors.As(err, &nf):
			return Change{NewDoc: true}, nil // the old element's document is gone: a new page
		case err != nil:
			// The promise was dropped (a navigation): has the URL changed?
			if info, ierr := page.Context(ctx).Info(); ierr == nil && info.URL != url {
				return Change{NewDoc: true, ByURL: true}, nil
			}
			if !backoff.Wait(ctx, fastPoll) {
				return Change{}, ctx.Err()
			}
		}
	}
}

// A single-page app's changed list has arrived once nothing the page
// asked for since the click is still coming (at most settleRequests: a
// page that polls always has another) and, after, its DOM has stood still
// for settleQuiet or the list of rows the steps read (Before.List) for
// settleSteady (settleSteadyEmpty while it has no row): a page that never
// stops moving (a ticker, an animation run by script) has arrived when
// its list has. A page whose requests are not watched has arrived once
// its DOM stood still for settleQuietBlind (a list standing still may be
// a "loading" row while its request is out).
const (
	settleQuiet       = 50 * time.Millisecond
	settleSteady      = 30 * time.Millisecond
	settleSteadyEmpty = 500 * time.Millisecond
	settleQuietBlind  = 100 * time.Millisecond
	settleRequests    = 5 * time.Second
)

// WaitArrived waits, once WaitChanged saw the page change (ch), until the next
// page has finished arriving: a new document until its DOMContentLoaded
// (a server-rendered page streamed slowly is read whole, never while
// rows are still coming; with notURL, not while the page still has the
// old URL); the same document (a single-page app that fills the list in
// phases: placeholder rows, then their details) until the requests it
// began since mark (RequestMark before the click) have ended and its DOM
// has not changed for settleQuiet after, or the list of rows it read
// stood still (see settleSteady).
//
// The look that sees it arrived reads rd (nil: nothing) in the same task
// (for a new document seen parsed, WaitChanged's look did).
func WaitArrived(ctx context.Context, page *rod.Page, ch Change, notURL string, mark uint64, rd *Reads) error {
	if ch.Parsed {
		return nil
	}
	if ch.NewDoc {
		return settled(ctx, page, map[string]any{"kind": "settled", "quiet": 0, "url": notURL}, rd)
	}
	t := trafficOf(page)
	if t == nil {
		return settled(ctx, page, map[string]any{"kind": "settled", "quiet": settleQuietBlind.Milliseconds()}, rd)
	}
	quiet := map[string]any{"kind": "settled", "quiet": settleQuiet.Milliseconds()}
	if len(ch.list.locs) > 0 {
		quiet["list"], quiet["steady"], quiet["steadyEmpty"] = ch.list.locs, settleSteady.Milliseconds(), settleSteadyEmpty.Milliseconds()
	}
	if ch.follow {
		quiet["follow"] = settleRequests.Milliseconds()
	}
	bound := time.Now().Add(settleRequests)
	for {
		if left := time.Until(bound); left > 0 {
			rctx, cancel := context.WithTimeout(ctx, left)
			_, err := RequestsSince(rctx, page, mark)
			cancel()
			if err != nil && ctx.Err() != nil {
				return ctx.Err()
			}
		}
		if err := settled(ctx, page, quiet, rd); err != nil {
			return err
		}
		// A request the page began while its DOM stood still: its answer
		// may change the list again.
		if time.Now().After(bound) || !t.busySince(ctx, mark) {
			return nil
		}
	}
}

// settled waits until the page's "settled" condition cond holds, and
// reads rd with the look that saw it hold.
func settled(ctx context.Context, page *rod.Page, cond map[string]any, rd *Reads) error {
	sc := scope{page: page}
	for {
		i, texts, err := waitLook(ctx, sc, []map[string]any{cond}, maxWaitSlice, fastPoll, rd.reqs())
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err == nil && i == 0 {
			rd.answered(texts, rd != nil)
			return nil
		}
		// Not yet, or a navigation dropped the promise: again, in the
		// document there is now.
		if err != nil && !backoff.Wait(ctx, fastPoll) {
			return ctx.Err()
		}
	}
}
