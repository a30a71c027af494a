package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/toolwright/toolwright/engine/browser"
	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/selector"
)

// The browser refuses a navigation to a host outside policy.allowed_hosts
// on its own schedule: a clicked link, a submitted form, a script's
// location.href= or a server redirect reaches the guard some milliseconds
// after the click itself has returned. So a step that may navigate
// (Spec.Navigates: click, press, select) watches the main frame for a
// navigation that starts while it runs or within navGrace after it, until
// the next such step:
//
//   - when the step itself saw the navigation start, it waits until the
//     navigation was let through (a document committed) or ended (loading
//     stopped), at most navSettleMax, so a refusal is known before the step
//     is judged;
//   - when it starts or settles later, a refusal ends the step then running
//     at once (a wait for the next page would otherwise run out its timeout
//     first), and the failure names the acting step;
//   - a call whose steps are done waits for the window and the settling
//     before it can end ok.
const (
	navSettleMax = 2 * time.Second
	navGrace     = 150 * time.Millisecond
)

// A navigation an acting step starts late is waited for before the next
// step acts (navigation: auto, the default; awaitLate): one that started
// until its new document reached DOMContentLoaded; one the page began (a
// handler that posts with fetch, then sets location.href) as the page
// tells: requests the step's page began and still has in flight until
// they end, then (also when they had all ended before the look) until the
// page has run what their ends set going (an idle callback, at most navIdle
// by the page's clock), and a navigation
// it began by then until it arrived; a form submit the page held back
// (preventDefault: an async validation, then form.submit()) up to
// navHeldSubmit after it for the navigation to start. navigation: expect
// fails a click that starts none within its timeout; none waits for
// nothing.
const (
	navIdle       = 2 * time.Second
	navRounds     = 3 // requests, then those their ends began, and so on
	navHeldSubmit = 2 * time.Second
	navLateMax    = 15 * time.Second // bounds the wait for a late navigation
)

// On a page with the follow hook (engine/browser/follow.js, every
// environment page's documents), no window is waited out: the step's
// input is armed before it acts, and the wait before the next step is for
// what its trusted events set going (timers due within 2 s, frames,
// scheduler messages, fetch and XHR, a few rounds deep) to have run, at
// most followMax; a navigation it began is waited for as above, and then
// what the new document set going while it loaded, at most quietMax. A
// goto waits for the latter too. Time a bound ran out on is the step's
// idle time (StepRecord.IdleMS). Without the hook (a popup's page) the
// windows above apply.
//
// One exception: what a fill's typing set going is waited for before the
// next step acts only as far as its timers due within typedSoon. A
// page's reaction to typing that matters to the next action (a live
// search's debounce, suggestions to pick from) comes sooner; a longer one
// is a draft saved, an edit stashed on the server (MediaWiki waits 1 s
// after the last key), which the next click need not wait for. A read
// after a fill waits for all of it, as after any step.
const (
	followMax = 10 * time.Second
	quietMax  = 5 * time.Second
	typedSoon = 500 * time.Millisecond
)

// navWatch follows the main frame of the call's page from the start of an
// acting step.
type navWatch struct {
	label   string // the acting step
	mode    string // auto, expect, none (the click's navigation field)
	submits bool   // a click or a key may submit a form: a held-back submit is asked about
	begin   time.Time
	page    *rod.Page
	src     selector.EventSource // the page's events in order
	reqMark uint64               // the page's requests before the step (selector.RequestMark)
	started chan struct{}
	settled chan struct{}
	cancel  context.CancelFunc
	done    chan struct{}

	mu                   sync.Mutex
	isStarted, isSettled bool
	until                time.Time // a navigation starting later is not the step's (zero while it runs)
	// Any navigation while the watch runs, however late: loading from its
	// start until its new document reached DOMContentLoaded (or loading
	// stopped); seen once one started.
	loading, committed, seen bool
	starts                   int           // navigations started
	changed                  chan struct{} // closed and replaced at each of those events
	awaited                  bool          // awaitLate ran for this watch
	// The main frame's document before the step (selector.DocumentMark;
	// docKnown false: no mark tells), and whether the document the step
	// led to was judged (see answered) or is the engine's own (goto).
	docMark           uint64
	docKnown, docSeen bool
	// The requests the step began run from reqMark to reqEnd, the page's
	// request mark once awaitLate waited for them (lateDone); refusedSeen
	// once one of them was judged (see answered).
	reqEnd                uint64
	lateDone, refusedSeen bool
	// invalid is the step's failure when the page held back the form it
	// submitted and shows it invalid (see unsent); nil once answered.
	invalid error
	// hooked: the page's follow hook was armed for the step (Arm);
	// idle notes time a wait ran out on (call.addIdle).
	hooked bool
	idle   func(time.Duration)
	refuse func(error) // call.noteRefusal
	// judges: the requests the step set going are judged by their
	// answers (a navigating step's, an upload's; not a fill's).
	judges bool
	// typed: the step typed (a fill); actsNext: the step awaiting it acts
	// (see typedSoon).
	typed, actsNext bool
}

// watchNavigation starts watching the page the step acts in (the
// environment's, or a popup step's); nil when there is none. The watch
// outlives the step (and a container the step is in) until stop, which
// keepNav and the end of the call see to.
func (r *runner) watchNavigation(ctx context.Context, label, mode string, submits bool) *navWatch {
	env := r.c.currentEnv()
	if env == nil || env.Err() != nil {
		return nil
	}
	// The page the step acts in: a popup step's page, or the
	// environment's.
	page := r.actPage(env)
	src := env.Events(page)
	if src == nil {
		return nil
	}
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	frame := page.FrameID
	w := &navWatch{label: label, mode: mode, submits: submits, begin: time.Now(), page: page, src: src,
		started: make(chan struct{}), settled: make(chan struct{}), cancel: cancel, done: make(chan struct{}), changed: make(chan struct{})}
	// DocumentMark first: it counts the events the page sent before now,
	// so a request an earlier step began (a field's autosave) is before
	// reqMark, not the step's.
	w.docMark, w.docKnown = selector.DocumentMark(ctx, page)
	w.reqMark = selector.RequestMark(page)
	c := r.c
	w.idle, w.refuse = c.addIdle, c.noteRefusal
	w.hooked = selector.Arm(ctx, page)
	started := func(id proto.PageFrameID) {
		if id == frame {
			w.mark(true)
			w.follow(navStart)
		}
	}
	navigated := func(id proto.PageFrameID) {
		if id == frame {
			w.follow(navCommit)
			if w.mark(false) {
				c.noticeBlocked(env, w.label)
			}
		}
	}
	stopped := func(id proto.PageFrameID) {
		if id == frame {
			w.follow(navStopped)
			if w.mark(false) {
				c.noticeBlocked(env, w.label)
			}
		}
	}
	w.observe(wctx, started, navigated, stopped)
	return w
}

// observe follows the page's navigation events from w.src, in the order
// the browser sent them, so that after a round trip (sync) the watch knows
// what the page reported before its answer; until wctx ends.
func (w *navWatch) observe(wctx context.Context, started, navigated, stopped func(proto.PageFrameID)) {
	stop := w.src.Observe(func(method string, params []byte) {
		var e struct {
			FrameID proto.PageFrameID `json:"frameId"`
			Frame   struct {
				ID proto.PageFrameID `json:"id"`
			} `json:"frame"`
		}
		switch method {
		case "Page.frameStartedLoading":
			if json.Unmarshal(params, &e) == nil {
				started(e.FrameID)
			}
		case "Page.frameNavigated":
			if json.Unmarshal(params, &e) == nil {
				navigated(e.Frame.ID)
			}
		case "Page.domContentEventFired":
			w.follow(navDOMContent)
		case "Page.frameStoppedLoading":
			if json.Unmarshal(params, &e) == nil {
				stopped(e.FrameID)
			}
		}
	})
	go func() {
		defer close(w.done)
		<-wctx.Done()
		stop()
	}()
}

// mark records that a navigation started, or (once one started) that it
// committed or stopped; it reports whether the navigation just settled.
func (w *navWatch) mark(start bool) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case start && !w.isStarted && (w.until.IsZero() || time.Now().Before(w.until)):
		w.isStarted = true
		close(w.started)
	case !start && w.isStarted && !w.isSettled:
		w.isSettled = true
		close(w.settled)
		return true
	}
	return false
}

// Events of a navigation, for follow.
const (
	navStart = iota
	navCommit
	navDOMContent
	navStopped
)

// follow notes an event of any navigation of the main frame.
func (w *navWatch) follow(ev int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch ev {
	case navStart:
		w.loading, w.committed, w.seen = true, false, true
		w.starts++
	case navCommit:
		w.committed = true
	case navDOMContent:
		if w.committed {
			w.loading = false
		}
	case navStopped:
		w.loading = false
	}
	close(w.changed)
	w.changed = make(chan struct{})
}

// state is whether a navigation is on its way now, whether one was seen,
// and a channel closed at the next event.
func (w *navWatch) state() (loading, seen bool, changed chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.loading, w.seen, w.changed
}

// arrive waits until no navigation is on its way (the one that started
// reached its new document's DOMContentLoaded, or stopped), or ctx ends.
func (w *navWatch) arrive(ctx context.Context) error {
	for {
		loading, _, changed := w.state()
		if !loading {
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// startWithin waits up to d for a navigation to start (true), or for
// ctx; with requests, a request the page starts meanwhile ends the wait
// too (false, nil: the caller waits for it and looks again).
func (w *navWatch) startWithin(ctx context.Context, d time.Duration) (bool, error) {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		loading, _, changed := w.state()
		if loading {
			return true, nil
		}
		select {
		case <-changed:
		case <-t.C:
			return false, nil
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
}

// sync returns once the watch (and the page's Traffic) has seen the events
// the page sent before the answers the caller holds.
func (w *navWatch) sync(ctx context.Context) {
	_ = w.src.Sync(ctx)
}

// startCount is how many navigations started so far.
func (w *navWatch) startCount() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.starts
}

// requestsSince waits for the requests the step began (selector.
// RequestsSince, after mark) until they end or a navigation starts: the requests of a
// document being left may never report their end.
func (w *navWatch) requestsSince(ctx context.Context, mark uint64) (bool, error) {
	n := w.startCount()
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		for {
			w.mu.Lock()
			moved, changed := w.starts != n, w.changed
			w.mu.Unlock()
			if moved {
				cancel()
				return
			}
			select {
			case <-changed:
			case <-rctx.Done():
				return
			}
		}
	}()
	busy, err := selector.RequestsSince(rctx, w.page, mark)
	if err != nil && ctx.Err() == nil && w.startCount() != n {
		return true, nil // a navigation started: the caller waits for it
	}
	return busy, err
}

// begun waits for a navigation the page says it began: until one started
// since the watch began (at most navHeldSubmit for its start: the page
// may cancel it in ways it cannot tell, an intercept), then until it
// arrived.
func (w *navWatch) begun(ctx context.Context) {
	w.sync(ctx)
	if _, seen, _ := w.state(); !seen {
		from := time.Now()
		if started, err := w.startWithin(ctx, navHeldSubmit); err != nil || !started {
			if err == nil {
				w.idle(time.Since(from))
			}
			return
		}
	}
	_ = w.arrive(ctx)
}

// awaitLate waits, before the next step acts (or the call ends), for a
// navigation the watched step started, early or late (see navIdle);
// once per watch, never with navigation: none.
func (w *navWatch) awaitLate(ctx context.Context) {
	if w == nil || w.mode == "none" {
		return
	}
	w.mu.Lock()
	done := w.awaited
	w.awaited = true
	w.mu.Unlock()
	if done {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, navLateMax)
	defer cancel()
	late := w.waitLate(ctx)
	mark := selector.RequestMark(w.page)
	w.unsent(ctx, late)
	w.mu.Lock()
	w.reqEnd, w.lateDone = mark, true
	w.mu.Unlock()
}

// waitLate is awaitLate's wait; it returns what the page said of the
// click's form submit (selector.Late) when it asked.
func (w *navWatch) waitLate(ctx context.Context) (late selector.Late) {
	if w.hooked {
		if late, ok := w.waitFollowed(ctx); ok {
			return late
		}
	}
	// After a click or a press, one round trip to its page first: whether a
	// form submit was held back and whether the page began a navigation; the
	// page's events sent before its answer (a request a handler began, a
	// navigation that started) are in once the watch synced.
	if w.submits {
		var err error
		if late, err = selector.LateAfterClick(ctx, w.page, 0); err != nil {
			late = selector.Late{}
		}
		if late.Held && late.Ago > time.Since(w.begin) {
			// A submit before the step began (a key pressed where an
			// earlier click's form was watched) is not the step's.
			late = selector.Late{Leaving: late.Leaving}
		}
	}
	w.sync(ctx)
	askedSubmit := false
	mark := w.reqMark
	for round := 0; ctx.Err() == nil; round++ {
		// A navigation seen since the step began is the one to wait for:
		// until it arrived (at once when it has). The requests the step
		// began were the document's it left.
		if loading, seen, _ := w.state(); loading || seen {
			_ = w.arrive(ctx)
			return late
		}
		if late.Leaving {
			w.begun(ctx)
			return late
		}
		// Requests the step began (a fetch before the navigation), then
		// those their ends began (a second fetch), a few rounds at most: a
		// page that polls always has another. One that already ended
		// before this look counts too: what its end set going (a handler
		// still working on the answer) may be running now.
		busy, err := w.requestsSince(ctx, mark)
		if err != nil {
			return late
		}
		busy = busy || selector.RequestMark(w.page) != mark
		if busy && round < navRounds {
			if loading, _, _ := w.state(); loading {
				continue
			}
			// They ended: the page has run what their ends set going once
			// it is idle, and tells whether it began a navigation.
			mark = selector.RequestMark(w.page)
			l, err := selector.LateAfterClick(ctx, w.page, navIdle)
			w.sync(ctx)
			if err != nil {
				// The document went away while it answered: a navigation.
				w.begun(ctx)
				return late
			}
			late.Leaving = l.Leaving
			continue
		}
		if busy {
			return late
		}
		if !w.submits || askedSubmit {
			return late
		}
		askedSubmit = true
		if !w.heldSubmit(ctx, late) {
			return late
		}
	}
	return late
}

// waitFollowed is waitLate on a page with the follow hook: until what
// the step set going has run (selector.LateFollowed), then a navigation it
// began until it arrived and the new document's loading work has run
// (quiet); false when the page had no hook after all (a document the step
// did not arm: the old one went away first).
func (w *navWatch) waitFollowed(ctx context.Context) (selector.Late, bool) {
	max := followMax
	if dl, ok := ctx.Deadline(); ok {
		max = min(max, time.Until(dl))
	}
	var soon time.Duration
	w.mu.Lock()
	if w.typed && w.actsNext {
		soon = typedSoon
	}
	w.mu.Unlock()
	late, err := selector.LateFollowed(ctx, w.page, max, soon)
	if err != nil {
		// The document went away while it answered: a navigation.
		w.begun(ctx)
		w.quiet(ctx)
		return selector.Late{}, true
	}
	if !late.Followed.Hooked {
		return late, false
	}
	if late.Followed.Idle {
		w.idle(max)
	}
	if late.Held && late.Ago > time.Since(w.begin) {
		// A submit before the step began is not the step's.
		late = selector.Late{Leaving: late.Leaving, Followed: late.Followed}
	}
	w.sync(ctx)
	if loading, seen, _ := w.state(); loading || seen || late.Leaving {
		if !loading && !seen {
			w.begun(ctx)
		} else {
			_ = w.arrive(ctx)
		}
		w.quiet(ctx)
	}
	return late, true
}

// quiet waits, once a navigation arrived, until what its document set
// going while it loaded has run (selector.Quiet, at most quietMax).
func (w *navWatch) quiet(ctx context.Context) {
	if _, seen, _ := w.state(); !seen || ctx.Err() != nil {
		return
	}
	quietLoaded(ctx, w.page, w.idle)
}

// unsent notes, after a click (or Enter) whose form submit the page held
// back and no navigation followed, that the form shows a control the page
// marks invalid (a required field, a format its script checks, or what its
// server answered to a save by script): answered then fails
// invalid_params, as a browser's own check does (selector.unsentErr). The
// form is looked at once the wait is over, so a check the page makes by
// asking its server has answered.
func (w *navWatch) unsent(ctx context.Context, late selector.Late) {
	if !late.Held || ctx.Err() != nil {
		return
	}
	if _, seen, _ := w.state(); seen {
		return
	}
	now, err := selector.LateAfterClick(ctx, w.page, 0)
	if err != nil || !now.Held || now.Invalid == "" {
		return
	}
	msg := ""
	if now.Message != "" {
		msg = fmt.Sprintf(" (%q)", now.Message)
	}
	w.mu.Lock()
	w.invalid = errs.New(errs.InvalidParams, "%s, but the page did not take its form: it marks %s not valid%s; give it a value the form accepts", w.label, now.Invalid, msg)
	w.mu.Unlock()
}

// heldSubmit waits, after a click whose form submit the page held back
// (its own code submits later), until a navigation starts or the page asks
// the server (an async validation), at most navHeldSubmit from the submit;
// false when neither came (nothing more to wait for).
func (w *navWatch) heldSubmit(ctx context.Context, late selector.Late) bool {
	if !late.Held || late.Ago >= navHeldSubmit {
		return false
	}
	for left := navHeldSubmit - late.Ago; left > 0 && ctx.Err() == nil; {
		from := time.Now()
		started, err := w.startWithin(ctx, min(left, 50*time.Millisecond))
		if err != nil {
			return false
		}
		if started {
			break
		}
		if selector.RequestMark(w.page) != w.reqMark {
			break // the validation asks the server: wait for it
		}
		left -= time.Since(from)
	}
	loading, _, _ := w.state()
	if !loading && selector.RequestMark(w.page) == w.reqMark {
		w.idle(navHeldSubmit - late.Ago)
		return false
	}
	return true
}

// expect fails unless a navigation started before ctx ends (navigation:
// expect), and waits until it arrived.
func (w *navWatch) expect(ctx context.Context, start time.Time) error {
	if w == nil {
		return nil
	}
	for {
		_, seen, changed := w.state()
		if seen {
			break
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return errs.Wrap(errs.NavigationFailed, ctx.Err(), "%s started no navigation within %s (navigation: expect)", w.label, selector.Allowed(ctx, start))
		}
	}
	w.mu.Lock()
	w.awaited = true
	w.mu.Unlock()
	if err := w.arrive(ctx); err != nil {
		return errs.Wrap(errs.NavigationFailed, err, "the page %s opened did not finish loading within %s", w.label, selector.Allowed(ctx, start))
	}
	return nil
}

// answered judges what the server answered to what the watched step
// sent: the document a navigation of the step led to, once it has come
// (the main frame committed another document since the step began), and
// the requests the page's scripts sent to change something while the step
// ran and awaitLate waited, once that wait is over (a save by fetch; not
// with navigation: none, which waits for nothing); first, a form the page
// held back and marks invalid (see unsent). A server error (5xx, or 408,
// 429: it was too busy) did not do what the step asked, and fails
// navigation_failed (retryable: the server may recover); a form or
// request sent with another method than GET that the server answered 4xx
// (403, 409, 422: it refused what was sent) fails invalid_params. A link
// followed to a missing page (GET, 404) is a page a person reads, as
// goto's expect_status lets it be. Each watch judges one document and one
// request, named after its step; nil until one came, for the engine's own
// navigation (goto checks its own) and when no mark tells.
func (w *navWatch) answered(ctx context.Context) error {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	invalid := w.invalid
	w.invalid = nil
	w.mu.Unlock()
	if invalid != nil {
		return &failure{err: invalid, step: w.label}
	}
	if err := w.documentAnswered(ctx); err != nil {
		return err
	}
	w.mu.Lock()
	skip, end := w.refusedSeen || !w.lateDone || !w.judges, w.reqEnd
	w.mu.Unlock()
	if skip {
		return nil
	}
	f, ok := selector.RefusedSince(w.page, w.reqMark, end)
	if !ok {
		return nil
	}
	w.mu.Lock()
	w.refusedSeen = true
	w.mu.Unlock()
	sent := f.Method + " " + f.Path
	said := ""
	if r := selector.Reason(ctx, w.page, f); r != "" {
		said = fmt.Sprintf(": %q", r) // the application's own words
	}
	return w.judge(f.Status, f.Method,
		func() error {
			return errs.New(errs.NavigationFailed, "%s sent a request the server failed: %s answered HTTP %d%s (it may have done nothing)", w.label, sent, f.Status, said)
		},
		func() error {
			return errs.New(errs.InvalidParams, "%s sent a request that the server refused: %s answered HTTP %d%s%s", w.label, sent, f.Status, refusedWhy(f.Status), said)
		})
}

// documentAnswered judges the document the step led to (answered).
func (w *navWatch) documentAnswered(ctx context.Context) error {
	w.mu.Lock()
	skip := !w.docKnown || w.docSeen
	w.mu.Unlock()
	if skip {
		return nil
	}
	a, ok := selector.DocumentAnswer(ctx, w.page)
	if !ok || a.Mark == w.docMark {
		return nil
	}
	answeredPage := a.Method == http.MethodPost && a.Status >= 200 && a.Status < 300
	w.mu.Lock()
	if answeredPage && !w.lateDone {
		// Looked at once the step's work has run and the page arrived
		// (awaitLate): before, its document may not be parsed yet.
		w.mu.Unlock()
		return nil
	}
	w.docSeen = true
	w.mu.Unlock()
	if answeredPage {
		// Answered with a page, not sent on (no redirect): a server-
		// rendered app shows the form again with its error box.
		// The workflow may read that error itself and fail with its own
		// code (a sign-in's "wrong password"): the call fails with this
		// only when it would otherwise end ok (call.withRefusal).
		if box := selector.ErrorShown(ctx, w.page); box != "" {
			w.refuse(&failure{err: errs.New(errs.InvalidParams, "%s sent a form that %s answered with the form again and an error: %q; give values the form accepts", w.label, a.Path, box), step: w.label})
		}
	}
	return w.judge(a.Status, a.Method,
		func() error {
			return errs.New(errs.NavigationFailed, "%s led to %s, which answered HTTP %d: the server failed the request (it may have done nothing)", w.label, a.Path, a.Status)
		},
		func() error {
			return errs.New(errs.InvalidParams, "%s sent a form that the server refused: %s answered its %s with HTTP %d%s", w.label, a.Path, a.Method, a.Status, refusedWhy(a.Status))
		})
}

// refusedWhy is what a refusal's status says beyond "not taken", for the
// message: the ones that are not about the values sent. An agent told only
// invalid_params would change its arguments where the session is what ended.
func refusedWhy(status int) string {
	switch status {
	case http.StatusUnauthorized, 419, 440: // 419: Laravel's page expired (its session or CSRF token); 440: IIS's login time-out
		return " (the server asks to sign in: the environment's session has ended; sign in again, then retry)"
	case http.StatusForbidden:
		return " (not allowed: this account may lack the right, or the page's session or token has expired)"
	case http.StatusConflict:
		return " (it conflicts with what the server holds now: read it again first)"
	}
	return ""
}

// judge is the step's failure for an HTTP answer with status to a request
// with method (answered): failed for a server error or a server too busy
// to answer, refused for another 4xx to a method other than GET; nil for
// the rest.
func (w *navWatch) judge(status int, method string, failed, refused func() error) error {
	var err error
	switch {
	case status >= 500, status == http.StatusRequestTimeout, status == http.StatusTooManyRequests:
		err = failed()
	case status >= 400 && method != "" && method != http.MethodGet:
		err = refused()
	default:
		return nil
	}
	return &failure{err: err, step: w.label}
}

// stepDone closes the window for the step's navigation navGrace from now.
func (w *navWatch) stepDone() {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.until = time.Now().Add(navGrace)
	w.mu.Unlock()
}

// settle waits until the step's navigation committed or stopped, at most
// navSettleMax or until ctx ends. With waitStart it first waits for one to
// start until the window closes; without, it returns unless one started.
func (w *navWatch) settle(ctx context.Context, waitStart bool) {
	if w == nil {
		return
	}
	if waitStart {
		w.mu.Lock()
		left := time.Until(w.until)
		w.mu.Unlock()
		if left > 0 {
			t := time.NewTimer(left)
			select {
			case <-w.started:
			case <-t.C:
				w.idle(left)
			case <-ctx.Done():
			}
			t.Stop()
		}
	}
	select {
	case <-w.started:
	default:
		return
	}
	t := time.NewTimer(navSettleMax)
	defer t.Stop()
	select {
	case <-w.settled:
	case <-t.C:
	case <-ctx.Done():
	}
}

func (w *navWatch) stop() {
	if w == nil {
		return
	}
	w.cancel()
	<-w.done
}

// keepNav makes w the watch of the call's latest acting step, ending the
// one before.
func (c *call) keepNav(w *navWatch) {
	c.mu.Lock()
	old := c.nav
	c.nav = w
	c.mu.Unlock()
	old.stop()
}

// ownNavigation marks the navigation about to start as the engine's own
// (goto): the running step becomes the latest to navigate the page, and the
// window of the latest acting step closes when it saw no navigation start.
func (c *call) ownNavigation() {
	c.mu.Lock()
	w := c.nav
	c.actor, c.passive = c.stepLabel, false
	c.mu.Unlock()
	if w == nil {
		return
	}
	w.mu.Lock()
	if !w.isStarted {
		w.until = time.Now()
	}
	w.docSeen = true // the document that comes now is goto's
	w.mu.Unlock()
}

// noteRefusal keeps the first refusal a page showed (a form answered with
// itself and an error box) for withRefusal.
func (c *call) noteRefusal(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.refusal == nil {
		c.refusal = err
	}
}

// deferRefusal keeps err, a server's refusal of what an acting step sent
// (invalid_params: a form or a save answered 4xx), for later when the
// step about to run does not act (acts false): the workflow may read the
// page's own words and fail with its own code (a sign-in's "wrong
// password", needs_human), and the refusal ends the call only before the
// next acting step (takeRefusal) or at its end (withRefusal). Any other
// error is returned as it is.
func (c *call) deferRefusal(err error, acts bool) error {
	if err == nil || acts || errs.CodeOf(err) != errs.InvalidParams {
		return err
	}
	c.noteRefusal(err)
	return nil
}

// takeRefusal is the refusal kept (noteRefusal), once: an acting step
// fails with it, as an earlier step's failure.
func (c *call) takeRefusal() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	err := c.refusal
	c.refusal = nil
	var fe *failure
	if errors.As(err, &fe) {
		fe.earlier = true // never retried or skipped as the acting step's own
	}
	return err
}

// withRefusal is the call's outcome err once its steps ran: the refusal a
// page showed when the call would otherwise end ok, or when a later step
// did not find what it looked for (the page that refused never shows it);
// any other failure (the workflow's own fail step) stands.
func (c *call) withRefusal(err error) error {
	c.mu.Lock()
	refusal := c.refusal
	c.mu.Unlock()
	if refusal != nil && (err == nil || errs.CodeOf(err) == errs.TargetNotFound) {
		return refusal
	}
	return err
}

// quietLoaded waits, after goto's document loaded, until what it set
// going while it loaded has run (a fetch of its data, a timer that fills
// or empties a field), at most quietMax; a bound run out is the step's
// idle time (noted with idle).
func quietLoaded(ctx context.Context, page *rod.Page, idle func(time.Duration)) {
	if f, err := selector.Quiet(ctx, page, quietMax); err == nil && f.Idle {
		idle(quietMax)
	}
}

// errNavBlocked is the cause a refused navigation cancels the running step with.
var errNavBlocked = errs.New(errs.HostNotAllowed, "a navigation was blocked")

// noticeBlocked keeps a navigation the browser refused, named after the
// acting step that started it, and ends the step running now.
func (c *call) noticeBlocked(env *browser.Env, label string) {
	u, ok := env.TakeBlocked()
	if !ok {
		return
	}
	c.mu.Lock()
	if c.blockedURL == "" {
		c.blockedURL, c.blockedBy = u, label
	}
	cancel := c.stepCancel
	c.mu.Unlock()
	if cancel != nil {
		cancel(errNavBlocked)
	}
}

// swapStepCancel makes cancel the one noticeBlocked calls and returns the
// one before (steps nest). A refusal noticed while no step ran ends the
// step at once.
func (c *call) swapStepCancel(cancel context.CancelCauseFunc) context.CancelCauseFunc {
	c.mu.Lock()
	old := c.stepCancel
	c.stepCancel = cancel
	pending := c.blockedURL != ""
	c.mu.Unlock()
	if pending && cancel != nil {
		cancel(errNavBlocked)
	}
	return old
}

// settleLast waits for a navigation the call's latest acting step started
// and turns its refusal into host_not_allowed.
func (r *runner) settleLast(ctx context.Context) error {
	r.c.mu.Lock()
	w := r.c.nav
	r.c.nav = nil
	r.c.mu.Unlock()
	if w == nil {
		return nil
	}
	if w.hooked {
		// What the step set going tells whether it began a navigation:
		// no window for one to start is waited out.
		w.awaitLate(ctx)
		w.settle(ctx, false)
	} else {
		w.settle(ctx, true)
		w.awaitLate(ctx)
	}
	w.stop()
	if err := r.blocked(); err != nil {
		return err
	}
	return w.answered(ctx)
}

// awaitNav waits, before a step acts, for a navigation the latest acting
// step started (navWatch.awaitLate), and judges the page it led to
// (navWatch.answered): a failure then is that earlier step's. acts: the
// step about to run acts (see typedSoon).
func (c *call) awaitNav(ctx context.Context, acts bool) error {
	w := c.latestNav()
	if w != nil {
		w.mu.Lock()
		w.actsNext = acts
		w.mu.Unlock()
	}
	return w.awaitJudged(ctx)
}

// awaitNavIn is awaitNav when the latest acting step acted in page (a
// popup step's, before it is closed); nil otherwise.
func (c *call) awaitNavIn(ctx context.Context, page *rod.Page) error {
	if w := c.latestNav(); w != nil && w.page.TargetID == page.TargetID {
		return w.awaitJudged(ctx)
	}
	return nil
}

// latestNav is the watch of the call's latest acting step (nil: none).
func (c *call) latestNav() *navWatch {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nav
}

// awaitJudged waits for what the watched step set going (awaitLate) and
// judges it (answered), as an earlier step's failure.
func (w *navWatch) awaitJudged(ctx context.Context) error {
	w.awaitLate(ctx)
	err := w.answered(ctx)
	var fe *failure
	if errors.As(err, &fe) {
		fe.earlier = true
	}
	return err
}

// A navigation a page starts late (a script's timer, a slow handler, or
// events handled late on a busy machine) can be refused while a step that
// cannot navigate runs: a sleep, a wait, an extract. Such a refusal is not
// that step's doing; it names the latest step that acted on the page or
// navigated it instead.

// enterStep records the step about to run; leave restores the step it is
// nested in.
func (c *call) enterStep(label string, navigates, nested bool) (leave func()) {
	c.mu.Lock()
	outerLabel, outerPassive := c.stepLabel, c.passive
	c.stepLabel, c.passive = label, !navigates && !nested
	if navigates {
		c.actor = label
	}
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		c.stepLabel, c.passive = outerLabel, outerPassive
		c.mu.Unlock()
	}
}

// passiveActor is the step to name for a refusal noticed now: the latest
// acting step while a passive step runs, else "" (the running step).
func (c *call) passiveActor() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.passive {
		return ""
	}
	return c.actor
}
