package run

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/toolwright/toolwright/engine/backoff"
	"github.com/toolwright/toolwright/engine/browser"
	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/policy"
	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/step"
	"github.com/toolwright/toolwright/engine/store"
	"github.com/toolwright/toolwright/engine/tmpl"
	"github.com/toolwright/toolwright/engine/workflow"
)

// runner runs the steps of one workflow (the called tool, or a workflow it
// calls) and implements step.Exec for them.
type runner struct {
	c         *call
	w         *workflow.Workflow
	scope     tmpl.Env
	vars      map[string]any
	truncated map[string]bool
	frames    []*step.Frame
	prefix    string     // path prefix of a called workflow's steps in the trace
	depth     int        // call depth
	current   int        // the trace record of the step running now; -1 for none
	active    *step.Step // the innermost step running now (nil: the output), for messages
	handled   []int      // how many times each of w.Handlers ran in this call
	handling  bool       // a handler's steps are running (no handler runs inside them)
	ahead     *readAhead // what the running step reads, or read, ahead for the steps after it
	arrived   *readAhead // what Arrive read ahead for the next run of its steps
}

// failure is a step's error with the step that raised it.
type failure struct {
	err  error
	step string
	// earlier: the failure is an earlier step's, noticed as this one
	// began (the page a click led to, judged once it came): trying this
	// step again or skipping it (retry, optional) must not lose it.
	earlier bool
}

func (f *failure) Error() string { return f.step + ": " + f.err.Error() }
func (f *failure) Unwrap() error { return f.err }

// isEarlier reports whether err is an earlier step's failure (failure.earlier).
func isEarlier(err error) bool {
	var fe *failure
	return errors.As(err, &fe) && fe.earlier
}

func newRunner(c *call, w *workflow.Workflow, params map[string]any) *runner {
	secrets := map[string]any{}
	for k, v := range c.e.cfg.SecretValues() {
		secrets[k] = v
	}
	r := &runner{c: c, w: w, vars: map[string]any{}, truncated: map[string]bool{}, current: -1}
	r.scope = tmpl.Env{
		tmpl.Params:  params,
		tmpl.Config:  c.e.cfg.Vars,
		tmpl.Secrets: secrets,
		tmpl.Vars:    r.vars,
		tmpl.EnvName: map[string]any{"id": "", "region": "", "purpose": ""},
		tmpl.Page:    map[string]any{"url": "", "title": "", "dialog": ""},
	}
	return r
}

// refreshEnvScope exposes the call's environment as env.*.
func (r *runner) refreshEnvScope() {
	if env := r.c.currentEnv(); env != nil {
		r.scope[tmpl.EnvName] = map[string]any{"id": env.ID, "region": env.Region, "purpose": env.Purpose}
	} else {
		r.scope[tmpl.EnvName] = map[string]any{"id": "", "region": "", "purpose": ""}
	}
}

// runSteps runs steps in order; the first failure ends them.
func (r *runner) runSteps(ctx context.Context, steps []*step.Step, f *step.Frame) error {
	if f != nil {
		r.push(f)
		defer r.pop()
	}
	// What a step read ahead is for its own list's next steps (ahead.go)
	// and the blocks it was planned into: not for steps nested in it, nor
	// after steps nested here ran; what Arrive read is for the steps it
	// was read for.
	outer := r.ahead
	r.ahead = nil
	if a := r.arrived; a != nil && len(steps) > 0 && &a.steps[0] == &steps[0] {
		r.ahead = a
	} else if outer.enters(steps) {
		r.ahead = outer
	}
	r.arrived = nil
	defer func() { r.ahead = nil }()
	for k, s := range steps {
		if !r.ahead.covers(s) {
			r.ahead = r.planAhead(steps, k)
		}
		if err := r.runStep(ctx, s); err != nil {
			return err
		}
		if r.depth == 0 && len(r.frames) == 0 && !strings.Contains(s.Path, ".") {
			r.c.mu.Lock()
			r.c.done++
			r.c.mu.Unlock()
		}
	}
	return nil
}

func (r *runner) push(f *step.Frame) {
	r.frames = append(r.frames, f)
	r.bindFrame()
}

func (r *runner) pop() {
	top := r.frames[len(r.frames)-1]
	r.frames = r.frames[:len(r.frames)-1]
	for name := range top.Names {
		delete(r.scope, name)
	}
	r.bindFrame()
}

// bindFrame exposes the innermost frame's loop as loop.* and the names of
// every enclosing frame (inner ones last, so they hide outer ones).
func (r *runner) bindFrame() {
	delete(r.scope, tmpl.Loop)
	for _, f := range r.frames {
		loop := map[string]any{"index": f.Index}
		for k, v := range f.Loop {
			loop[k] = v
		}
		r.scope[tmpl.Loop] = loop
		for name, v := range f.Names {
			r.scope[name] = v
		}
	}
}

// runStep runs one step with its condition, timeout, retries and optional flag.
func (r *runner) runStep(ctx context.Context, s *step.Step) error {
	outer := r.active
	r.active = s
	defer func() { r.active = outer }()
	if s.If != nil {
		ok, err := r.Test(ctx, s.If)
		if err != nil {
			return &failure{err: r.classify(ctx, ctx, s, err), step: r.label(s)}
		}
		if !ok {
			r.record(s, 0, time.Now(), "", "skipped", "")
			return nil
		}
	}
	if s.When != nil {
		ok, err := r.holds(ctx, s, s.When)
		if err != nil {
			return &failure{err: err, step: r.label(s)}
		}
		if !ok {
			r.record(s, 0, time.Now(), "", "skipped", "when: the condition did not hold")
			return nil
		}
	}
	if s.Spec.Acts {
		if _, err := r.handle(ctx, s); err != nil {
			return err
		}
	}
	r.progress(s)
	attempts := s.Retry.Attempts
	if attempts < 1 {
		attempts = 1
	}
	var err error
	for a := 1; a <= attempts; a++ {
		err = r.attempt(ctx, s, a)
		if err == nil {
			return nil
		}
		e := errs.As(err)
		if s.Spec.Acts && ctx.Err() == nil && strings.HasPrefix(e.Code, "target_") { // covered, not found, unreachable
			// What stood in the way may be what a handler answers, come
			// after the look before the step (a late banner): answer it
			// and try the step once more.
			ran, herr := r.handle(ctx, s)
			if herr != nil {
				return herr
			}
			if ran {
				if err = r.attempt(ctx, s, a+1); err == nil {
					return nil
				}
				break
			}
		}
		if !e.Retryable || a == attempts || ctx.Err() != nil || isEarlier(err) {
			break
		}
		if !backoff.Wait(ctx, s.Retry.Backoff) {
			break
		}
	}
	// A refused navigation is never skipped: the agent must hear of it;
	// nor an earlier step's failure.
	if s.Optional && ctx.Err() == nil && errs.CodeOf(err) != errs.HostNotAllowed && !isEarlier(err) {
		return nil
	}
	var fe *failure
	if errors.As(err, &fe) {
		return err // a nested step already named itself
	}
	return &failure{err: err, step: r.label(s)}
}

// holds checks a condition (a step's or a handler's when) once, without
// waiting, in s's time.
func (r *runner) holds(ctx context.Context, s *step.Step, cond *step.Step) (bool, error) {
	hctx := ctx
	if timeout := r.stepTimeout(s); timeout > 0 {
		var cancel context.CancelFunc
		hctx, cancel = selector.WithBudget(ctx, timeout)
		defer cancel()
	}
	if env := r.c.currentEnv(); env != nil {
		var unbind context.CancelFunc
		hctx, unbind = env.Bind(hctx)
		defer unbind()
	}
	// The page a late navigation of the latest acting step leads to, not
	// the one it leaves (navwatch.go).
	if err := r.c.deferRefusal(r.c.awaitNav(hctx, false), false); err != nil {
		return false, err
	}
	bound, err := cond.Bind(r.scope)
	if err != nil {
		return false, r.exprFailure(err, func() error { return errs.Wrap(errs.Internal, err, "step %s when: %v", r.label(s), err) })
	}
	conds, err := bound.Spec.Condition(hctx, r, bound)
	if err == nil {
		var i int
		i, err = r.Holds(hctx, conds)
		if err == nil {
			return i >= 0, nil
		}
	}
	return false, r.classify(ctx, hctx, s, err)
}

// handle runs, before step s acts, the steps of every handler whose
// condition holds now and that has runs left in this call; it reports
// whether one ran. A handler's own steps run no handler.
func (r *runner) handle(ctx context.Context, s *step.Step) (bool, error) {
	if len(r.w.Handlers) == 0 || r.handling || r.c.currentEnv() == nil {
		return false, nil
	}
	if r.handled == nil {
		r.handled = make([]int, len(r.w.Handlers))
	}
	ran := false
	for i, h := range r.w.Handlers {
		if r.handled[i] >= h.Max {
			continue
		}
		ok, err := r.holds(ctx, s, h.When)
		if err != nil {
			return ran, &failure{err: err, step: fmt.Sprintf("handler %d (before %s)", i+1, r.label(s))}
		}
		if !ok {
			continue
		}
		r.handled[i]++
		r.handling = true
		err = r.runSteps(ctx, h.Steps, nil)
		r.handling = false
		if err != nil {
			return ran, err
		}
		ran = true
	}
	return ran, nil
}

// Handle is handle for a kind that acts on the page itself (step.Handling).
func (r *runner) Handle(ctx context.Context, s *step.Step) (bool, error) { return r.handle(ctx, s) }

var _ step.Handling = (*runner)(nil)

// attempt runs a step once, records it and classifies its error.
func (r *runner) attempt(ctx context.Context, s *step.Step, n int) error {
	sctx := ctx
	cancel := func() {}
	if timeout := r.stepTimeout(s); timeout > 0 {
		sctx, cancel = selector.WithBudget(ctx, timeout)
	}
	defer cancel()
	if s.Dialog != nil {
		a, err := r.stepDialog(ctx, s)
		if err != nil {
			return r.classify(ctx, ctx, s, err)
		}
		defer r.c.setDialog(r.c.setDialog(a))
	}
	if env := r.c.currentEnv(); env != nil {
		var unbind context.CancelFunc
		sctx, unbind = env.Bind(sctx)
		defer unbind()
	}
	// A refused navigation ends the step (navwatch.go).
	sctx, stepCancel := context.WithCancelCause(sctx)
	defer stepCancel(nil)
	outer := r.c.swapStepCancel(stepCancel)
	defer func() { r.c.swapStepCancel(outer) }()
	start := time.Now()
	rec := r.record(s, n, start, "", "", "")
	prev := r.current
	r.current = rec
	defer r.c.setRunning(r.c.setRunning(rec))
	defer r.c.enterStep(r.label(s), s.Spec.Navigates, container(s))()
	// A navigation the latest acting step started, however late, has
	// arrived before this step acts (navwatch.go).
	if err := r.beforeAct(sctx, s); err != nil {
		r.current = prev
		r.endAttempt(rec, start, n, err)
		return err
	}
	// An acting step watches for a navigation it starts (navwatch.go).
	var nav *navWatch
	mode := "auto"
	if (s.Spec.Navigates || s.Spec.Acts) && !container(s) {
		if m := s.Navigation(); m != "" {
			mode = m
		}
		nav = r.watchNavigation(ctx, r.label(s), mode, s.Spec.Submits)
		if nav != nil {
			nav.judges = s.Spec.Navigates || s.Spec.Sends
			nav.typed = s.Spec.Types
		}
		r.c.keepNav(nav)
	}
	// A read step may see the targets healed so far (heal.go).
	r.useRepairs(s)
	bound, err := s.Bind(r.scope) // nth: ${{ params.n }} and the like
	if err != nil {
		err = r.exprFailure(err, func() error { return errs.Wrap(errs.Internal, err, "step %s: %v", r.label(s), err) })
	} else {
		err = s.Spec.Run(sctx, r, bound)
	}
	r.current = prev
	err = r.afterAct(ctx, sctx, s, rec, nav, mode, start, err)
	var fe *failure
	if err != nil && !errors.As(err, &fe) {
		err = r.refusedByPage(ctx, r.c.saidByDialog(rec, r.classify(ctx, sctx, s, err)))
	}
	r.endAttempt(rec, start, n, err)
	return r.healed(ctx, s, n, rec, err)
}

// beforeAct waits, before step s (not a container) runs, for what the
// latest acting step set going and judges it (navwatch.go): a refusal it
// met is kept while s only looks, and ends an acting s.
func (r *runner) beforeAct(sctx context.Context, s *step.Step) error {
	if container(s) {
		return nil
	}
	acts := s.Spec.Acts || s.Spec.Navigates
	err := r.c.deferRefusal(r.c.awaitNav(sctx, acts), acts)
	if err == nil && acts {
		// A refusal a step before saw is this acting step's end: it never
		// acts on a page that refused what was sent.
		err = r.c.takeRefusal()
	}
	return err
}

// afterAct is step s's outcome once it ran, begun at start (err, the run's
// own): what the page did after it decides too. A navigation it had to
// start (mode expect), one it started that was refused or that failed, a
// request it began that the server refused, a question the page asked it
// that the workflow does not answer.
func (r *runner) afterAct(ctx, sctx context.Context, s *step.Step, rec int, nav *navWatch, mode string, start time.Time, err error) error {
	if err != nil && sctx.Err() != nil && ctx.Err() == nil && !container(s) {
		// The step's own time ran out: it waited all along for something
		// that did not happen (a condition polled to its end, a target
		// that never came).
		r.c.addIdle(time.Since(start))
	}
	if err == nil && mode == "expect" {
		err = nav.expect(sctx, start)
	}
	nav.stepDone()
	if err == nil {
		nav.settle(sctx, false)
	}
	if err == nil {
		err = r.blocked()
	}
	if err == nil {
		err = r.c.deferRefusal(nav.answered(ctx), false)
	}
	if s.Spec.Risk == policy.RiskWrite {
		// Taken after a failure too, so no later step is blamed for it.
		if q := r.c.declinedBy(rec, r.label(s)); err == nil {
			err = q
		}
	}
	return err
}

// refusedByPage is err, a step's failure to find what it looked for after
// an acting step, as what the page says when it shows a person why
// (selector.PageSays: an alert region, an error box or a field's message
// that appeared since that step acted, such as "Wrong email or
// password"): invalid_params, not retryable (the same input is refused
// again), quoting it. Any other failure stands.
func (r *runner) refusedByPage(ctx context.Context, err error) error {
	env := r.c.currentEnv()
	if errs.CodeOf(err) != errs.TargetNotFound || env == nil || r.c.latestNav() == nil {
		return err
	}
	lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	says := selector.PageSays(lctx, r.actPage(env))
	if says == "" {
		return err
	}
	return errs.Wrap(errs.InvalidParams, err, "%s; the page says %q: it refused what was sent, and the same input is refused again", errs.As(err).Message, says)
}

// stepDialog is how step s answers dialogs (its dialog: rule, the text
// evaluated).
func (r *runner) stepDialog(ctx context.Context, s *step.Step) (*dialogAnswer, error) {
	a := &dialogAnswer{accept: s.Dialog.Accept}
	if s.Dialog.Text != nil {
		text, err := r.Text(ctx, s.Dialog.Text)
		if err != nil {
			return nil, err
		}
		a.text = text
	}
	return a, nil
}

// endAttempt records in step record rec how attempt n, begun at start,
// ended (err), and notes the environment as held by the call.
func (r *runner) endAttempt(rec int, start time.Time, n int, err error) {
	if env := r.c.currentEnv(); env != nil {
		r.c.noteHeld(env)
	}
	r.c.updateStep(rec, func(sr *store.StepRecord) {
		sr.DurationMS = time.Since(start).Milliseconds()
		sr.Code = errs.CodeOf(err)
		if err != nil {
			sr.Error = causeText(err)
		}
		if n > r.c.attempts {
			r.c.attempts = n
		}
	})
}

// stepTimeout is how long one attempt of s may take: its `timeout` key or
// its kind's own timeout field; else the default step timeout, except for a
// container (its steps have their own), which only the call's deadline
// bounds (0). The call's deadline always bounds it too.
func (r *runner) stepTimeout(s *step.Step) time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	if d := s.OwnTimeout(); d > 0 {
		return d
	}
	if container(s) || s.Spec.CallBound {
		return 0
	}
	return r.c.e.stepTimeout
}

// setRunning makes rec the trace record dialogs are noted on and returns
// the one before.
func (c *call) setRunning(rec int) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.running
	c.running = rec
	return old
}

// container steps are bounded by the call's deadline, not a step timeout.
func container(s *step.Step) bool {
	if s.Spec.Body == step.Steps {
		return true
	}
	for _, f := range s.Spec.Fields {
		if f.Type == step.Steps || f.Type == step.Tool {
			return true
		}
	}
	return false
}

// record appends a step record to the trace and returns its index for
// updates (an index, not a pointer: nested steps append and move the slice).
func (r *runner) record(s *step.Step, attempt int, start time.Time, strategy, code, errText string) int {
	r.c.mu.Lock()
	defer r.c.mu.Unlock()
	r.c.steps = append(r.c.steps, store.StepRecord{
		Index: len(r.c.steps), Path: r.prefix + s.Path, Kind: s.Spec.Kind, Name: s.Name,
		Target: s.TargetName(), Strategy: strategy, Code: code, Attempt: attempt, Error: errText,
	})
	return len(r.c.steps) - 1
}

// updateStep changes the trace record at index i under the call's lock.
func (c *call) updateStep(i int, f func(*store.StepRecord)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f(&c.steps[i])
}

// addIdle notes on the running step's record d spent waiting for
// something that did not happen (StepRecord.IdleMS).
func (c *call) addIdle(d time.Duration) {
	if d <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running >= 0 && c.running < len(c.steps) {
		c.steps[c.running].IdleMS += d.Milliseconds()
	}
}

func (r *runner) label(s *step.Step) string {
	if r.prefix == "" {
		return s.Label()
	}
	return fmt.Sprintf("%s %s", strings.TrimSuffix(r.prefix, "/"), s.Label())
}

func (r *runner) progress(s *step.Step) {
	if r.c.req.Progress == nil {
		return
	}
	r.c.mu.Lock()
	done := r.c.done
	r.c.mu.Unlock()
	r.c.req.Progress(done, len(r.c.w.Steps), r.label(s))
}

// blocked turns a navigation the browser refused into host_not_allowed;
// one a navigation watch noticed names the acting step that started it.
func (r *runner) blocked() error {
	r.c.mu.Lock()
	u, by := r.c.blockedURL, r.c.blockedBy
	r.c.blockedURL, r.c.blockedBy = "", ""
	r.c.mu.Unlock()
	if u == "" {
		env := r.c.currentEnv()
		if env == nil {
			return nil
		}
		var ok bool
		if u, ok = env.TakeBlocked(); !ok {
			return nil
		}
		by = r.c.passiveActor()
	}
	host := u
	if _, h := r.c.e.hosts.AllowedURL(u); h != "" {
		host = h
	}
	err := errs.New(errs.HostNotAllowed, "navigation to host %q was blocked: it is not in policy.allowed_hosts", host)
	if by != "" {
		return &failure{err: err, step: by}
	}
	return err
}

// classify maps any error from a step to a coded error, in one place:
// blocked navigations, a gone environment, the call's deadline and
// cancellation, the step's timeout, and rod's typed errors.
func (r *runner) classify(callCtx, stepCtx context.Context, s *step.Step, err error) error {
	if b := r.blocked(); b != nil {
		return b
	}
	// Past the call's deadline the code is deadline_exceeded, whatever
	// the step was doing (a wait's own expiry included).
	if e := r.c.pastDeadline(err); e != nil {
		return e
	}
	if errors.Is(callCtx.Err(), context.Canceled) {
		return errs.Wrap(errs.Cancelled, err, "the call was cancelled")
	}
	if env := r.c.currentEnv(); env != nil && env.Err() != nil {
		return env.Check(err)
	}
	var e *errs.Error
	if errors.As(err, &e) && e.Code != errs.Cancelled && e.Code != errs.DeadlineExceeded {
		return err
	}
	switch {
	case callCtx.Err() != nil:
		if c := context.Cause(callCtx); c != nil && !errors.Is(c, context.DeadlineExceeded) {
			return errs.Wrap(errs.DeadlineExceeded, err, "%s", errs.As(c).Message)
		}
		return errs.Wrap(errs.DeadlineExceeded, err, "the call ran past its deadline")
	case stepCtx.Err() != nil && s != nil:
		d := r.stepTimeout(s)
		switch {
		case s.Spec.TimeoutCode == errs.NavigationFailed:
			return errs.Wrap(errs.NavigationFailed, err, "the page did not load within %s", d)
		case s.Spec.TimeoutCode != "":
			return errs.Wrap(s.Spec.TimeoutCode, err, "step %s did not finish within %s", s.Spec.Kind, d)
		case s.TargetName() != "":
			name, _ := r.targetName(s.TargetName())
			where := ""
			if p, err := r.Page(callCtx); err == nil {
				where = " on " + selector.PagePath(callCtx, p) // the popup's, in one
			}
			return errs.Wrap(errs.TargetNotFound, err, "target %s was not ready within %s%s", name, d, where)
		}
		return errs.Wrap(errs.DeadlineExceeded, err, "step %s timed out after %s", s.Spec.Kind, d)
	}
	if e != nil {
		return err
	}
	var nav *rod.NavigationError
	var notFound *rod.ElementNotFoundError
	var notInteractable *rod.NotInteractableError
	var invisible *rod.InvisibleShapeError
	var covered *rod.CoveredError
	switch {
	case errors.As(err, &nav):
		return errs.Wrap(errs.NavigationFailed, err, "the page did not load: %s", nav.Reason)
	case errors.As(err, &notFound):
		return errs.Wrap(errs.TargetNotFound, err, "the element was not found")
	case errors.As(err, &notInteractable), errors.As(err, &invisible), errors.As(err, &covered):
		what := "the element"
		if s != nil && s.TargetName() != "" {
			what = "target " + s.TargetName()
		}
		return errs.Wrap(errs.TargetNotFound, err, "%s is not interactable (hidden or covered)", what)
	}
	return errs.Wrap(errs.Internal, err, "internal error; the trace has the details")
}

// --- step.Exec -------------------------------------------------------------

// The runner offers every kind all it may ask for: step.Exec and each
// optional interface (step.Handover in handover.go).
var (
	_ step.Exec         = (*runner)(nil)
	_ step.Nesting      = (*runner)(nil)
	_ step.Lists        = (*runner)(nil)
	_ step.Readying     = (*runner)(nil)
	_ step.Scrolling    = (*runner)(nil)
	_ step.Popups       = (*runner)(nil)
	_ step.Caller       = (*runner)(nil)
	_ step.Environments = (*runner)(nil)
	_ step.Artifacts    = (*runner)(nil)
	_ step.Uploads      = (*runner)(nil)
	_ step.Downloads    = (*runner)(nil)
)

// refreshPage puts the current page's url, title and last dialog in the
// scope's page.*. Without an open environment (an env: new workflow
// before open_env) they are empty; a page that cannot be read is an
// error, never an empty page.url a workflow would go on with.
func (r *runner) refreshPage(ctx context.Context) error {
	r.c.mu.Lock()
	dialog := r.c.lastDialog
	r.c.mu.Unlock()
	page := map[string]any{"url": "", "title": "", "dialog": dialog}
	r.scope[tmpl.Page] = page
	if r.c.currentEnv() == nil {
		return nil
	}
	p, err := r.Page(ctx)
	if err != nil {
		return err
	}
	url, title, err := pageInfo(p)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return errs.Wrap(errs.EnvUnavailable, err, "page.url and page.title could not be read: the page was closed (by itself, or with its browser) or does not answer")
	}
	page["url"], page["title"] = url, title
	return nil
}

// pageInfo is the page's URL and title. The browser's record of the URL
// is empty until it has taken note of the first document's commit, which
// a loaded machine can delay past the moment the document is read; the
// document itself then says where it is.
func pageInfo(p *rod.Page) (url, title string, err error) {
	info, err := p.Info()
	if err != nil {
		return "", "", err
	}
	if info.URL != "" {
		return info.URL, info.Title, nil
	}
	v, err := p.Eval(`() => [location.href, document.title]`)
	if err != nil {
		return "", "", err
	}
	arr := v.Value.Arr()
	if len(arr) != 2 {
		return "", "", fmt.Errorf("the page's location: unexpected answer %s", v.Value.Raw())
	}
	return arr[0].Str(), arr[1].Str(), nil
}

// Eval evaluates a template in the current scope.
func (r *runner) Eval(ctx context.Context, t *tmpl.Template) (any, error) {
	if t == nil {
		return nil, nil
	}
	if t.UsesPage {
		if err := r.refreshPage(ctx); err != nil {
			return nil, err
		}
	}
	v, err := t.Eval(r.scope)
	if err != nil {
		return nil, r.exprFailure(err, nil)
	}
	return v, nil
}

// Text evaluates a template as text.
func (r *runner) Text(ctx context.Context, t *tmpl.Template) (string, error) {
	v, err := r.Eval(ctx, t)
	text := tmpl.Text(v)
	r.c.noteTyped(text) // a secret about to be typed: no screenshots of this page
	return text, err
}

// Test evaluates a condition.
func (r *runner) Test(ctx context.Context, e *tmpl.Expr) (bool, error) {
	if e.UsesPage {
		if err := r.refreshPage(ctx); err != nil {
			return false, err
		}
	}
	ok, err := e.Bool(r.scope)
	if err != nil {
		return false, r.exprFailure(err, nil)
	}
	return ok, nil
}

// exprFailure is the error of an expression that failed while the call ran
// (an *tmpl.EvalError in err): its message names the expression and the
// step, in words, and the trace keeps expr-lang's text. Any other error is
// other() (nil: an internal error without its raw text).
func (r *runner) exprFailure(err error, other func() error) error {
	var ee *tmpl.EvalError
	if !errors.As(err, &ee) {
		if other != nil {
			return other()
		}
		return errs.Wrap(errs.Internal, err, "internal error; the trace has the details")
	}
	where := "in the output"
	if r.active != nil {
		where = "in step " + r.label(r.active)
	}
	if ee.NoValue {
		// The page's data had no value where the workflow compared one
		// (find found nothing): an assertion that did not hold, not a bug.
		return errs.Wrap(errs.AssertionFailed, err, "the expression %q %s met no value: %s (find and findLast give no value when nothing matches; test it first, or write x ?? default)", ee.Source, where, ee.Reason)
	}
	if ee.PastEnd {
		// The list had fewer items than the workflow reads (a search with
		// fewer results): like a comparison that met no value, the data was
		// not what the workflow expected. Not internal (a bug of the engine,
		// for a person) and not config_error (the server config lacks
		// nothing); an empty value instead would answer ok for a read that
		// did not happen.
		return errs.Wrap(errs.AssertionFailed, err, "the expression %q %s read past the end: %s (the list had fewer items than the workflow expects; test len(...) first, or write get(list, N) ?? default, which gives no value past the end)", ee.Source, where, ee.Reason)
	}
	return errs.Wrap(errs.Internal, err, "the expression %q %s failed: %s; fix the workflow", ee.Source, where, ee.Reason)
}

// TestIn checks a condition with f's loop.* in scope.
func (r *runner) TestIn(ctx context.Context, e *tmpl.Expr, f *step.Frame) (bool, error) {
	r.push(f)
	defer r.pop()
	return r.Test(ctx, e)
}

// Value evaluates a bare expression.
func (r *runner) Value(ctx context.Context, e *tmpl.Expr) (any, error) {
	if e.UsesPage {
		if err := r.refreshPage(ctx); err != nil {
			return nil, err
		}
	}
	v, err := e.Run(r.scope)
	if err != nil {
		return nil, r.exprFailure(err, nil)
	}
	return v, nil
}

// BoundOf evaluates a loop bound; a parameter's value was checked against its max.
func (r *runner) BoundOf(b step.LoopBound) (int, error) {
	if b.Param == "" {
		return b.N, nil
	}
	params, _ := r.scope[tmpl.Params].(map[string]any)
	n, ok := params[b.Param].(int)
	if !ok || n < 0 {
		return 0, errs.New(errs.InvalidParams, "loop bound params.%s is not a whole number", b.Param)
	}
	if n > b.N {
		n = b.N
	}
	return n, nil
}

// env returns the call's environment or the error a step gets without one.
func (r *runner) env() (*browser.Env, error) {
	env := r.c.currentEnv()
	if env == nil {
		return nil, errs.New(errs.EnvUnavailable, "no environment is open: an env: new workflow must run open_env first")
	}
	if err := env.Err(); err != nil {
		return nil, err
	}
	return env, nil
}

// Page is the environment's page bound to ctx.
func (r *runner) Page(ctx context.Context) (*rod.Page, error) {
	env, err := r.env()
	if err != nil {
		return nil, err
	}
	return r.actPage(env).Context(ctx), nil
}

// actPage is the page the running step acts in: the window of the popup
// step it is in (the innermost), else env's page.
func (r *runner) actPage(env *browser.Env) *rod.Page {
	for i := len(r.frames) - 1; i >= 0; i-- {
		if w := r.frames[i].Window; w != nil {
			return w
		}
	}
	return env.Page()
}

// Target looks up a selector-map entry.
func (r *runner) Target(name string) *selector.Target {
	name, err := r.targetName(name)
	if err != nil {
		return nil
	}
	t, _ := r.c.set.Selectors.Lookup(name)
	return t
}

// Find resolves a target and records the strategy that matched.
func (r *runner) Find(ctx context.Context, name string, opt step.FindOpt) (*selector.Match, error) {
	name, err := r.targetName(name)
	if err != nil {
		return nil, err
	}
	t := r.Target(name)
	if t == nil {
		return nil, errs.New(errs.Internal, "unknown target %q", name)
	}
	page, err := r.Page(ctx)
	if err != nil {
		return nil, err
	}
	m, err := r.c.set.Selectors.ResolveIn(ctx, page, opt.Parent, name, selector.Options{Visible: opt.Visible, Once: opt.Once, First: opt.First})
	if err != nil {
		return nil, r.frameBlocked(name, err)
	}
	if opt.Parent == nil && !opt.Quiet {
		r.recordStrategy(name, m.Describe())
	}
	if opt.Parent == nil && !m.Hidden {
		r.fingerprint(ctx, name, page, m.Element())
	}
	return m, nil
}

// recordStrategy notes in the current step's record the strategy that
// found its target (the first one found, when a step finds several).
func (r *runner) recordStrategy(name, strategy string) {
	if r.current < 0 {
		return
	}
	r.c.updateStep(r.current, func(sr *store.StepRecord) {
		if sr.Strategy == "" {
			sr.Strategy = strategy
			if sr.Target == "" || strings.HasPrefix(sr.Target, "${{") {
				sr.Target = name
			}
		}
	})
}

// Ready finds a one-element target and readies it for a click in one
// round trip when the page can do both (selector.Map.Ready).
func (r *runner) Ready(ctx context.Context, name string, o selector.ReadyOptions) (*selector.Ready, error) {
	name, page, err := r.targetPage(ctx, name)
	if err != nil {
		return nil, err
	}
	rd, err := r.c.set.Selectors.Ready(ctx, page, name, o)
	if err != nil || rd == nil {
		return nil, err
	}
	r.recordStrategy(name, rd.Describe())
	if !rd.Disabled {
		r.fingerprint(ctx, name, page, nil)
	}
	return rd, nil
}

// Typing finds a one-element target and readies it for typing in one
// round trip when the page can do both (selector.Map.Typing).
func (r *runner) Typing(ctx context.Context, name string, fill *string, secret bool) (*selector.Typing, error) {
	name, page, err := r.targetPage(ctx, name)
	if err != nil {
		return nil, err
	}
	ty, err := r.c.set.Selectors.Typing(ctx, page, name, fill, secret)
	if err != nil || ty == nil {
		return nil, err
	}
	r.recordStrategy(name, ty.Describe())
	r.fingerprint(ctx, name, page, nil)
	return ty, nil
}

// targetPage is a target field's selector-map name (see targetName) and
// the page it is looked for in.
func (r *runner) targetPage(ctx context.Context, name string) (string, *rod.Page, error) {
	name, err := r.targetName(name)
	if err != nil {
		return "", nil, err
	}
	page, err := r.Page(ctx)
	return name, page, err
}

// List is the many target name as the page watches it (step.Readying).
func (r *runner) List(name string) selector.List {
	return r.c.set.Selectors.List(name)
}

// targetName resolves a target field: a selector-map name as written, or
// ${{ params.NAME }} of a type: target parameter, whose argument the schema
// restricted to the names under its prefix.
func (r *runner) targetName(name string) (string, error) {
	p, ok := step.TargetParam(name)
	if !ok {
		return name, nil
	}
	params, _ := r.scope[tmpl.Params].(map[string]any)
	v, _ := params[p].(string)
	if _, ok := r.c.set.Selectors.Lookup(v); v == "" || !ok {
		return "", errs.New(errs.InvalidParams, "params.%s: %q is not a target of the selector map", p, v)
	}
	return v, nil
}

// Extract reads a target's matches and records the strategies that matched:
// the from target's, and each field's where it is not the primary.
func (r *runner) Extract(ctx context.Context, spec selector.ExtractSpec) (ex *selector.Extracted, err error) {
	if spec, err = r.resolveSpec(spec); err != nil {
		return nil, err
	}
	page, err := r.Page(ctx)
	if err != nil {
		return nil, err
	}
	if ex = r.readBefore(ctx, page, spec); ex == nil {
		ex, err = r.extract(ctx, page, spec)
	}
	if err != nil {
		return nil, r.frameBlocked(spec.From, err)
	}
	if spec.Parent == nil && ex.Match != "" {
		r.fingerprint(ctx, spec.From, page, nil)
	}
	if r.current >= 0 && spec.Parent == nil && ex.Match != "" {
		strategy := ex.Match
		if len(ex.Fields) > 0 {
			strategy += "; " + strings.Join(ex.Fields, ", ")
		}
		r.c.updateStep(r.current, func(sr *store.StepRecord) {
			if sr.Strategy == "" {
				sr.Strategy = strategy
				if sr.Target == "" {
					sr.Target = spec.From
				}
			}
		})
	}
	return ex, nil
}

// Wait waits until one of conds holds in the environment's page; a wait
// step reads ahead for the extract steps after it (ahead.go).
func (r *runner) Wait(ctx context.Context, conds []selector.Cond) (int, error) {
	a := r.owning()
	if a == nil {
		return r.wait(ctx, conds, r.c.set.Selectors.Wait)
	}
	return r.wait(ctx, conds, func(ctx context.Context, page *rod.Page, conds []selector.Cond) (int, error) {
		i, got, err := r.c.set.Selectors.WaitAhead(ctx, page, conds, a.specs)
		if err == nil {
			r.keep(ctx, a, page, got)
		}
		return i, err
	})
}

// Holds looks once whether one of conds holds (selector.Map.Holds).
func (r *runner) Holds(ctx context.Context, conds []selector.Cond) (int, error) {
	return r.wait(ctx, conds, r.c.set.Selectors.Holds)
}

// ScrollWait waits after a screen of scrolling (selector.Map.ScrollWait).
func (r *runner) ScrollWait(ctx context.Context, cond selector.Cond, el *rod.Element, height int, more bool, d time.Duration) (selector.Settled, error) {
	var st selector.Settled
	_, err := r.wait(ctx, []selector.Cond{cond}, func(ctx context.Context, page *rod.Page, conds []selector.Cond) (int, error) {
		var err error
		st, err = r.c.set.Selectors.ScrollWait(ctx, page, conds[0], el, height, more, d)
		return 0, err
	})
	return st, err
}

func (r *runner) wait(ctx context.Context, conds []selector.Cond, look func(context.Context, *rod.Page, []selector.Cond) (int, error)) (int, error) {
	for i := range conds {
		if conds[i].Target == "" {
			continue
		}
		var err error
		if conds[i].Target, err = r.targetName(conds[i].Target); err != nil {
			return -1, err
		}
	}
	page, err := r.Page(ctx)
	if err != nil {
		return -1, err
	}
	i, err := look(ctx, page, conds)
	if err != nil && len(conds) == 1 && conds[0].Target != "" {
		err = r.frameBlocked(conds[0].Target, err)
	}
	return i, err
}

// frameBlocked turns a target not found inside a frame whose document the
// browser refused (its host is not in policy.allowed_hosts) into
// host_not_allowed, naming the host.
func (r *runner) frameBlocked(name string, err error) error {
	if errs.CodeOf(err) != errs.TargetNotFound || !r.c.set.Selectors.InFrame(name) {
		return err
	}
	env := r.c.currentEnv()
	if env == nil {
		return err
	}
	u, ok := env.BlockedFrame()
	if !ok {
		return err
	}
	host := u
	if pu, perr := url.Parse(u); perr == nil && pu.Host != "" {
		host = pu.Host
	}
	return errs.Wrap(errs.HostNotAllowed, err, "target %s is in a frame whose document the browser refused: host %q is not in policy.allowed_hosts", name, host)
}

// Navigate opens url, enforcing allowed hosts before and in the browser.
func (r *runner) Navigate(ctx context.Context, url, waitUntil string) (int, error) {
	if ok, host := r.c.e.hosts.AllowedURL(url); !ok {
		return 0, errs.New(errs.HostNotAllowed, "host %q is not in policy.allowed_hosts", host)
	}
	page, err := r.Page(ctx)
	if err != nil {
		return 0, err
	}
	wait := waitLoaded(page, waitUntil == "domcontentloaded")
	r.c.ownNavigation()
	r.c.stayed()
	if err := page.Navigate(url); err != nil {
		if b := r.blocked(); b != nil {
			return 0, b
		}
		if r.c.stayed() {
			return 0, stayedErr(err, "", "")
		}
		return 0, err
	}
	wait()
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if err := r.blocked(); err != nil {
		return 0, err
	}
	quietLoaded(ctx, page, r.c.addIdle)
	return selector.DocumentStatus(ctx, page), nil
}

// waitLoaded returns a wait for the page's next document to fire its load
// event (or DOMContentLoaded): the main frame must commit a new document
// first, so a load event of the document being left (stopped by the
// navigation) does not count; a navigation within the document before any
// commit (a goto to a new #fragment) ends the wait too. It listens to the Page domain's own
// events, which every page has enabled, instead of switching lifecycle
// events on and off around each navigation (two requests).
func waitLoaded(page *rod.Page, dcl bool) func() {
	committed := false
	return page.EachEvent(
		func(e *proto.PageFrameNavigated) bool {
			if e.Frame != nil && e.Frame.ParentID == "" {
				committed = true
			}
			return false
		},
		func(e *proto.PageNavigatedWithinDocument) bool { return !committed && e.FrameID == page.FrameID },
		func(*proto.PageDomContentEventFired) bool { return dcl && committed },
		func(*proto.PageLoadEventFired) bool { return committed },
	)
}

// SetVar sets or appends to a variable.
func (r *runner) SetVar(name string, v any, appendTo bool) {
	if !appendTo {
		r.vars[name] = v
		r.truncated[name] = false
		return
	}
	list, _ := r.vars[name].([]any)
	if items, ok := v.([]any); ok {
		list = append(list, items...)
	} else {
		list = append(list, v)
	}
	r.vars[name] = list
	for _, f := range r.frames {
		if f.Touched != nil {
			f.Touched[name] = true
		}
	}
}

// MarkTruncated marks a list variable as cut short.
func (r *runner) MarkTruncated(name string) { r.truncated[name] = true }

// Truncated reports whether a list variable was cut short (step.Lists).
func (r *runner) Truncated(name string) bool { return r.truncated[name] }

// RunSteps runs nested steps.
// A frame with a Window runs its steps in that page (a popup): its dialogs
// are answered and its requests followed like the environment page's, and a
// refused first navigation fails at once, and what its last acting step
// set going is judged before the step ends.
func (r *runner) RunSteps(ctx context.Context, steps []*step.Step, f *step.Frame) error {
	if f != nil && f.Window != nil {
		if !f.Watched {
			stop := r.c.watchPage(f.Window)
			defer stop()
		}
		if err := r.blocked(); err != nil {
			return err
		}
		if err := r.runSteps(ctx, steps, f); err != nil {
			return err
		}
		// Its last acting step's navigation, late save and answer are
		// waited for and judged before the page is closed (a person
		// closes a tab once what they did there is done).
		return r.c.awaitNavIn(ctx, f.Window)
	}
	return r.runSteps(ctx, steps, f)
}

// Watch answers a page's dialogs and follows its requests until stop.
func (r *runner) Watch(page *rod.Page) (stop func()) { return r.c.watchPage(page) }

// WatchPopups answers the dialogs of the pages opener opens from before
// they run (the environment's guard hands them over paused).
func (r *runner) WatchPopups(opener *rod.Page) (stop func()) { return r.c.watchPopups(opener.TargetID) }

// maxCallDepth bounds nested calls (cycles are load errors; this is a backstop).
const maxCallDepth = 8

// Call runs another workflow in the same environment and returns its data.
func (r *runner) Call(ctx context.Context, tool string, args map[string]any) (map[string]any, error) {
	w, ok := r.c.set.Tool(tool)
	if !ok {
		return nil, errs.New(errs.Internal, "the step calls unknown tool %q", tool)
	}
	if r.depth >= maxCallDepth {
		return nil, errs.New(errs.LimitExceeded, "calls nest deeper than %d", maxCallDepth)
	}
	bound, err := w.BindMap(args)
	if err != nil {
		return nil, errs.As(err)
	}
	child := newRunner(r.c, w, bound.Params)
	child.depth = r.depth + 1
	child.prefix = r.prefix + r.currentPath() + "/"
	child.scope[tmpl.EnvName] = r.scope[tmpl.EnvName]
	// The callee's pages have its size while it runs, then the caller's.
	if err := child.sizePage(ctx); err != nil {
		return nil, err
	}
	if err := child.runSteps(ctx, w.Steps, nil); err != nil {
		return nil, err
	}
	if err := r.sizePage(ctx); err != nil {
		return nil, err
	}
	return child.output(ctx)
}

func (r *runner) currentPath() string {
	if r.current < 0 {
		return ""
	}
	r.c.mu.Lock()
	defer r.c.mu.Unlock()
	return strings.TrimPrefix(r.c.steps[r.current].Path, r.prefix)
}

// activeKind is the kind of the innermost step running now, for records
// that say what did something ("" for the output).
func (r *runner) activeKind() string {
	if r.active == nil {
		return ""
	}
	return r.active.Spec.Kind
}

// OpenEnv opens (or reuses) an environment for an env: new call.
func (r *runner) OpenEnv(ctx context.Context, region, purpose string) error {
	if r.c.currentEnv() != nil {
		return errs.New(errs.Internal, "this call already has an environment: it cannot open another")
	}
	env, err := r.c.e.browsers.Open(ctx, region, purpose)
	if err != nil {
		return err
	}
	r.c.setEnv(env)
	r.c.e.sessions.restore(ctx, env)
	r.refreshEnvScope()
	return r.sizePage(ctx)
}

// sizePage gives the environment's page the size of r's workflow: its
// viewport:, else browser.viewport (nothing is sent when it has it).
func (r *runner) sizePage(ctx context.Context) error {
	env := r.c.currentEnv()
	if env == nil {
		return nil
	}
	v := r.c.e.cfg.Browser.Viewport
	if r.w.Viewport != nil {
		v = *r.w.Viewport
	}
	return env.SetViewport(ctx, browser.Viewport{Width: v.Width, Height: v.Height})
}

// CloseEnv closes the call's environment.
func (r *runner) CloseEnv(ctx context.Context) error {
	env, err := r.env()
	if err != nil {
		return err
	}
	r.c.e.sessions.save(ctx, env, r.activeKind())
	r.c.e.sessions.forget(env.ID)
	// Close while this call still holds it, so no other call can take it
	// in between; the later Release of a closed environment does nothing.
	if err := r.c.e.browsers.Close(ctx, env.ID); err != nil && errs.CodeOf(err) != errs.EnvNotFound {
		return err
	}
	r.c.e.browsers.Release(env)
	r.c.setEnv(nil)
	r.refreshEnvScope()
	return nil
}

// CheckEgress checks the region's egress through the environment.
func (r *runner) CheckEgress(ctx context.Context) error {
	env, err := r.env()
	if err != nil {
		return err
	}
	region := r.c.e.cfg.Regions[env.Region]
	if region.EgressCheck == nil {
		return nil // direct egress: nothing to check
	}
	return browser.CheckEgress(ctx, env, region.EgressCheck.URL, region.EgressCheck.ExpectStatus)
}

// Artifact reserves a file for this call under the state dir.
func (r *runner) Artifact(ext string) (string, string, error) {
	dir, err := r.c.e.artifactDir(r.c.traceID)
	if err != nil {
		return "", "", err
	}
	r.c.mu.Lock()
	r.c.artifact++
	n := r.c.artifact
	r.c.mu.Unlock()
	path := filepath.Join(dir, fmt.Sprintf("%d.%s", n, ext))
	return path, "file://" + filepath.ToSlash(path), nil
}

// MaskSecrets hides the secrets shown on the current page (mask.go).
func (r *runner) MaskSecrets(ctx context.Context) (func(), error) {
	page, err := r.Page(ctx)
	if err != nil {
		return func() {}, err
	}
	if env := r.c.currentEnv(); env != nil {
		if name := r.c.e.typedInto(env.ID); name != "" {
			return func() {}, screenshotRefused(name)
		}
	}
	return maskSecrets(ctx, page, r.c.e.secretValues())
}

// MaxListItems is limits.max_list_items.
func (r *runner) MaxListItems() int { return r.c.e.cfg.Limits.MaxListItems }

// UploadsDir is config uploads_dir.
func (r *runner) UploadsDir() string { return r.c.e.cfg.UploadsDir }

// DownloadDir is state_dir/downloads/TRACE_ID, made on first use.
func (r *runner) DownloadDir() (string, error) {
	dir := filepath.Join(r.c.e.cfg.StateDir, "downloads", r.c.traceID)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", errs.Wrap(errs.Internal, err, "the downloads folder cannot be made")
	}
	return dir, nil
}

// IncomingDir is a new folder state_dir/downloads/.incoming/TRACE_ID.N.
func (r *runner) IncomingDir() (string, error) {
	root := filepath.Join(r.c.e.cfg.StateDir, "downloads", incomingDir)
	if err := os.MkdirAll(root, 0o700); err != nil {
		return "", errs.Wrap(errs.Internal, err, "the downloads folder cannot be made")
	}
	dir, err := os.MkdirTemp(root, r.c.traceID+".")
	if err != nil {
		return "", errs.Wrap(errs.Internal, err, "the downloads folder cannot be made")
	}
	return dir, nil
}

// incomingDir is the folder under state_dir/downloads of the folders
// downloads arrive in (IncomingDir).
const incomingDir = ".incoming"

// MaxDownloadBytes is limits.max_download_bytes.
func (r *runner) MaxDownloadBytes() int64 { return r.c.e.cfg.Limits.MaxDownloadBytes }

// MaxArtifactBytes is limits.max_artifact_bytes.
func (r *runner) MaxArtifactBytes() int64 { return r.c.e.cfg.Limits.MaxArtifactBytes }

// output evaluates the workflow's output into the envelope's data.
func (r *runner) output(ctx context.Context) (map[string]any, error) {
	data := make(map[string]any, len(r.w.Output))
	max := r.MaxListItems()
	for _, o := range r.w.Output {
		v, err := r.Eval(ctx, o.Value)
		if err != nil {
			return nil, err
		}
		items, isList := v.([]any)
		isList = isList || (v == nil && o.List)     // an unset list is an empty one
		truncated := o.Value.Truncated(r.Truncated) // a list derived from one keeps its mark
		switch {
		case o.Format == workflow.FormatTable && (isList || v == nil):
			v = result.NewTable(items, truncated, max, o.Columns)
		case o.Format == workflow.FormatTable:
			return nil, errs.New(errs.Internal, "output %q is written format: table but its rows are not a list (%T)", o.Name, v)
		case isList:
			v = result.NewList(items, truncated, max)
		}
		data[o.Name] = v
	}
	return data, nil
}
