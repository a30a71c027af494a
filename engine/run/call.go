package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/toolwright/toolwright/engine/browser"
	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/policy"
	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/engine/store"
	"github.com/toolwright/toolwright/engine/tmpl"
	"github.com/toolwright/toolwright/engine/workflow"
)

// call is the state of one tool call.
type call struct {
	e       *Engine
	set     *workflow.Set
	w       *workflow.Workflow
	req     Request
	traceID string
	start   time.Time
	// traceStart is when the call the trace records began, when that is
	// not this one: an interrupted call this one answers outcome_unknown for.
	traceStart time.Time
	taskID     string
	grantID    string
	body       NativeFunc // a native tool's body; nil for a workflow's steps

	mu       sync.Mutex
	steps    []store.StepRecord
	attempts int
	env      *browser.Env
	lent     bool // env is a native body's, kept by it (NativeCall.UseEnv)
	artifact int
	done     int       // top-level steps finished, for progress
	nav      *navWatch // the last acting step's navigation watch (navwatch.go)
	// a refused navigation noticed by a watch, and the acting step that
	// started it, until blocked() reports it
	blockedURL, blockedBy string
	stepCancel            context.CancelCauseFunc  // ends the step running now
	deadline              context.Context          // ends at the call's deadline (execute)
	running               int                      // the trace record of the innermost step running; -1 for none
	dialog                *dialogAnswer            // how the running step answers dialogs (nil: the default)
	lastDialog            string                   // page.dialog
	unloadDismissed       bool                     // a beforeunload was dismissed since Navigate began
	refusal               error                    // the first refusal a page showed (navwatch.go's noteRefusal)
	declined              *declined                // the running step's first question dismissed by default, not yet judged (dialogs.go)
	stopDialogs           func()                   // ends watchDialogs on the environment's page
	capture               string                   // why the failure capture kept less (artifacts.go)
	repairs               map[string]*repairSought // the repair looked for per broken target in this call (repairs.go)
	heals                 *heals                   // the proposals read steps go on with (repair: use; heal.go)
	// the running step, whether it can navigate, and the latest step that
	// acted on the page or navigated it (navwatch.go)
	stepLabel, actor string
	passive          bool
}

func (e *Engine) newCall(set *workflow.Set, w *workflow.Workflow, req Request) *call {
	return &call{e: e, set: set, w: w, req: req, traceID: store.NewTraceID(), start: time.Now(), attempts: 1, running: -1}
}

// run is the whole call: checks, idempotency, steps, and the record.
func (c *call) run(ctx context.Context) *result.Envelope {
	bound, err := c.w.Bind(c.req.Args)
	if bound != nil {
		c.taskID = bound.TaskID
	} else {
		c.taskID = taskIDOf(c.req.Args)
	}
	// A task_id is the agent's text like any other: a secret in it never
	// reaches the envelope, the trace, the audit log or the idempotency key.
	c.taskID = c.e.redactor.Redact(c.taskID)
	if err != nil {
		return c.finish(ctx, nil, result.Failure(err), err)
	}
	// The store fails closed: a call it cannot record (the database is
	// gone, replaced, read-only, full or locked) does not run at all.
	if c.e.store != nil {
		if err := c.e.store.Ready(ctx); err != nil {
			return c.refused(err)
		}
	}
	// The idempotency check comes first: a repeat of a finished call gets
	// its stored envelope even when the grant has expired since.
	var claim store.Claim
	if c.taskID != "" && c.e.store != nil && !c.w.Repeats {
		hash, herr := store.ArgsHashJSON(canonicalArgs(bound))
		if herr == nil {
			claim, herr = c.e.store.Claim(ctx, c.w.Name, c.taskID, hash, store.DefaultIdempotencyTTL)
		}
		if herr != nil {
			if isStoreCode(herr) {
				return c.refused(herr)
			}
			return c.finish(ctx, nil, result.Failure(herr), herr)
		}
		if stored := claim.Stored(); stored != nil {
			if err := c.audit(ctx, stored, ""); err != nil {
				return c.unrecorded(stored, err)
			}
			return stored
		}
	}
	if err := c.admit(ctx, bound); err != nil {
		// Refused before any step ran: nothing to remember for a repeat.
		if claim != nil {
			_ = claim.Release(ctx)
		}
		if isStoreCode(err) {
			return c.refused(err)
		}
		return c.finish(ctx, nil, result.Failure(err), err)
	}
	if claim != nil && claim.Interrupted() && c.w.Writes() {
		// A write that was running when its server died: it may have taken
		// effect. Never run it a second time; a person checks, starting
		// from the interrupted call's trace, which this answer completes.
		return c.finish(ctx, claim, nil, c.interrupted(ctx))
	}
	if claim != nil && c.w.Writes() {
		if err := c.saveStub(ctx); err != nil {
			_ = claim.Release(ctx)
			return c.refused(err)
		}
	}
	env, runErr := c.execute(ctx, bound)
	return c.finish(ctx, claim, env, runErr)
}

// saveStub records that this write call started (store.TraceRunning),
// before any step runs: should the server die mid-call, the repeat that
// answers outcome_unknown names this trace. finish replaces it.
// A write whose stub cannot be stored (the store is locked or lost) does
// not run: the store could not answer its repeat truthfully.
func (c *call) saveStub(ctx context.Context) error {
	t := &store.Trace{ID: c.traceID, TaskID: c.taskID, Tool: c.w.Name, Args: summarize(c.req.Args, c.e.redactor),
		Start: c.start, Code: store.TraceRunning, Attempts: 1, Steps: []store.StepRecord{}}
	err := c.e.store.SaveTrace(ctx, t)
	if err == nil {
		return nil
	}
	if !isStoreCode(err) {
		err = errs.Wrap(errs.StoreUnavailable, err, "the state store cannot record the call, so it did not run; try again later")
	}
	return err
}

// interrupted is the outcome_unknown error of a write whose earlier call
// died mid-call, and makes this call's record that call's trace: its stub
// (saved when it started) is completed with the answer, so the envelope's
// trace_id leads to the interrupted call's arguments and start.
func (c *call) interrupted(ctx context.Context) error {
	when := ""
	trs, err := c.e.store.ListTraces(ctx, store.TraceFilter{Tool: c.w.Name, TaskID: c.taskID, Limit: 20})
	if err == nil {
		for _, t := range trs {
			if t.Code == store.TraceRunning {
				c.traceID, c.traceStart = t.ID, t.Start
				when = " at " + t.Start.UTC().Format(time.RFC3339)
				break
			}
		}
	}
	return errs.New(errs.OutcomeUnknown, "an earlier call of %s with task_id %q, started%s, was interrupted before it finished (the server stopped); whether it took effect is unknown, so it is not run again: a person must check", c.w.Name, c.taskID, when)
}

// admit runs the checks that come before any browser work: the grant and
// the hosts of url parameters.
func (c *call) admit(ctx context.Context, bound *workflow.Call) error {
	var grants policy.GrantSource
	if c.e.store != nil {
		grants = c.e.store
	}
	if err := c.secretsReadable(); err != nil {
		return err
	}
	id, err := policy.DecideWith(ctx, policy.WriteMode(c.e.cfg.Policy.WriteTools), c.w.Risk, c.w.Name, bound.TaskID, grants, c.e.cfg.GrantCommand)
	if err != nil {
		return err
	}
	c.grantID = id
	for name, u := range c.w.URLParams(bound) {
		if ok, host := c.e.hosts.AllowedURL(u); !ok {
			return errs.New(errs.HostNotAllowed, "argument %q: host %q is not in policy.allowed_hosts", name, host)
		}
	}
	return nil
}

// secretsReadable refuses a call whose workflow (or a workflow it calls)
// reads a secret the server could not read at start: config_error, naming
// the secret and where it comes from, never a value.
func (c *call) secretsReadable() error {
	for _, name := range c.set.SecretsOf(c.w) {
		if why := c.e.cfg.MissingSecret(name); why != "" {
			return errs.New(errs.ConfigError, "tool %q needs secret %q, which the server cannot read (%s); an operator must provide it and restart the server", c.w.Name, name, why)
		}
	}
	return nil
}

// execute runs the steps under the deadline and builds the envelope.
func (c *call) execute(ctx context.Context, bound *workflow.Call) (*result.Envelope, error) {
	r := newRunner(c, c.w, bound.Params)
	deadline, err := c.w.DeadlineOf(r.scope, c.e.cfg.Limits.MaxDeadline)
	if err != nil {
		var ee *tmpl.EvalError
		if errors.As(err, &ee) {
			return nil, errs.Wrap(errs.InvalidParams, err, "the deadline of %s is not usable: the expression %q failed: %s", c.w.Name, ee.Source, ee.Reason)
		}
		return nil, errs.Wrap(errs.InvalidParams, err, "the deadline of %s is not usable: %v", c.w.Name, err)
	}
	ctx, cancel := context.WithTimeoutCause(ctx, deadline, errs.New(errs.DeadlineExceeded, "the call ran past its deadline of %s", deadline))
	defer cancel()
	c.mu.Lock()
	c.deadline = ctx
	c.mu.Unlock()
	defer c.releaseEnv()
	if c.body != nil {
		return c.runNative(ctx, bound)
	}
	defer c.keepNav(nil)
	if err := c.prepareEnv(ctx, r, bound.EnvID); err != nil {
		c.setCapture(noPageCapture)
		return nil, err
	}
	err = r.runSteps(ctx, c.w.Steps, nil)
	if err == nil {
		err = r.settleLast(ctx)
	}
	if err = c.withRefusal(err); err != nil {
		c.saveFailure(ctx)
		return nil, err
	}
	data, err := r.output(ctx)
	if err != nil {
		return nil, r.classify(ctx, ctx, nil, err)
	}
	if c.w.Session == "save" {
		c.e.sessions.save(ctx, c.currentEnv(), "call of "+c.w.Name)
	}
	return result.Success(data), nil
}

// prepareEnv opens or holds the environment the call's env: asks for and
// sizes its page; an error is the call's, before its page was ready.
func (c *call) prepareEnv(ctx context.Context, r *runner, envID string) error {
	switch c.w.Env {
	case workflow.EnvNew:
		// The browser starts now, under the call's deadline: its launch
		// (11 s for a Chromium on a loaded machine) never counts against
		// open_env's step timeout.
		if err := c.e.browsers.Start(ctx); err != nil {
			return r.classify(ctx, ctx, nil, err)
		}
	case workflow.EnvGiven:
		if err := c.acquireGiven(ctx, envID); err != nil {
			return err
		}
	case workflow.EnvTemporary:
		purpose := ""
		if len(c.w.Purposes) == 1 {
			purpose = c.w.Purposes[0]
		}
		env, err := c.e.browsers.OpenTemporary(ctx, "", purpose)
		if err != nil {
			return r.classify(ctx, ctx, nil, err)
		}
		c.setEnv(env)
		c.e.sessions.restore(ctx, env)
	}
	r.refreshEnvScope()
	if err := r.sizePage(ctx); err != nil {
		return r.classify(ctx, ctx, nil, err)
	}
	return nil
}

// acquireGiven holds the environment an env: given call names.
func (c *call) acquireGiven(ctx context.Context, id string) error {
	_, purpose, err := c.e.browsers.Describe(ctx, id)
	if err != nil {
		return err
	}
	if len(c.w.Purposes) > 0 && !slices.Contains(c.w.Purposes, purpose) {
		return errs.New(errs.EnvPurposeMismatch, "environment %s belongs to purpose %q; %s runs only on %v", id, purpose, c.w.Name, c.w.Purposes)
	}
	env, err := c.e.browsers.Acquire(ctx, id)
	if err != nil {
		return err
	}
	c.setEnv(env)
	c.e.sessions.restore(ctx, env)
	return nil
}

func (c *call) setEnv(env *browser.Env) {
	if env != nil {
		env.TakeHeld() // refusals from before this call are not its own
	}
	c.mu.Lock()
	c.env = env
	stop := c.stopDialogs
	c.stopDialogs = nil
	c.mu.Unlock()
	if stop != nil {
		stop()
	}
	if env != nil {
		stop := c.watchPage(env.Page())
		c.mu.Lock()
		c.stopDialogs = stop
		c.mu.Unlock()
	}
}

// pastDeadline reports whether the call's deadline has passed, and the
// error it ends with then (cancelled when the client went away first).
func (c *call) pastDeadline(cause error) error {
	c.mu.Lock()
	d := c.deadline
	c.mu.Unlock()
	if d == nil || d.Err() == nil {
		return nil
	}
	if errors.Is(d.Err(), context.Canceled) {
		return errs.Wrap(errs.Cancelled, cause, "the call was cancelled")
	}
	msg := "the call ran past its deadline"
	if dc := context.Cause(d); dc != nil && !errors.Is(dc, context.DeadlineExceeded) {
		msg = errs.As(dc).Message
	}
	return errs.Wrap(errs.DeadlineExceeded, cause, "%s", msg)
}

// noteHeld adds the requests env's pages had refused since the last look
// (policy.subresources: allowed_hosts) to the trace record of the step
// running, or else the last one.
func (c *call) noteHeld(env *browser.Env) {
	n, urls := env.TakeHeld()
	if n == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	i := c.running
	if i < 0 || i >= len(c.steps) {
		i = len(c.steps) - 1
	}
	if i < 0 {
		return
	}
	sr := &c.steps[i]
	sr.Held += n
	for _, u := range urls {
		if len(sr.HeldURLs) < maxHeldURLs && !slices.Contains(sr.HeldURLs, u) {
			sr.HeldURLs = append(sr.HeldURLs, u)
		}
	}
}

// maxHeldURLs is how many refused request URLs one step record keeps.
const maxHeldURLs = 10

func (c *call) currentEnv() *browser.Env {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.env
}

func (c *call) releaseEnv() {
	c.mu.Lock()
	env, lent := c.env, c.lent
	stop := c.stopDialogs
	c.stopDialogs = nil
	c.mu.Unlock()
	if stop != nil {
		stop()
	}
	if lent {
		return // the native body's, kept across its session's calls
	}
	if env != nil && env.Temporary {
		c.e.sessions.forget(env.ID)
		c.e.typed.Delete(env.ID) // its page ends with the call
	}
	c.e.browsers.Release(env)
}

// recordWait bounds recording a call that ran. The store bounds its own
// wait for another writer's lock (store.Options.BusyTimeout); this is
// the time a record may queue behind the other calls of this process on
// SQLite's one write connection: 32 calls ending together on a loaded
// machine queued past the 10 s it once was, and their results were
// withheld (TestHTTPSessionBurst).
const recordWait = 2 * time.Minute

// finish records the call: artifacts of a failure, redaction, trace,
// audit, and the idempotency record.
func (c *call) finish(ctx context.Context, claim store.Claim, env *result.Envelope, runErr error) *result.Envelope {
	if env == nil {
		env = result.Failure(runErr)
		if fe := (*failure)(nil); errors.As(runErr, &fe) {
			env = result.Failure(fe.err)
			env.Step = fe.step
		}
	}
	env.TaskID = c.taskID
	env.TraceID = c.traceID
	env.Healed = c.heals.names()
	env.Attempts = c.attempts
	env.DurationMS = time.Since(c.start).Milliseconds()
	red := c.e.redactor
	env.Message = red.Redact(env.Message)
	env.Step = red.Redact(env.Step)
	if env.Data != nil {
		env.Data, _ = red.RedactAny(env.Data).(map[string]any)
	}
	if env.OK {
		if err := c.checkSize(env); err != nil {
			runErr = err
			ok := result.Failure(err)
			ok.TaskID, ok.TraceID, ok.Attempts, ok.DurationMS = env.TaskID, env.TraceID, env.Attempts, env.DurationMS
			ok.Healed = env.Healed
			env = ok
		}
	}
	// Recording outlives a cancelled call: use a fresh, bounded context.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordWait)
	defer cancel()
	if err := c.audit(rctx, env, c.envID()); err != nil && !c.w.Writes() && !isStoreCode(runErr) {
		// No unaudited result leaves: a read that ran but cannot be
		// recorded is withheld (running it again is safe). A write keeps
		// its true envelope, since its effect happened; its repeat is
		// guarded by the idempotency record.
		env = c.unrecorded(env, err)
		runErr = err
	}
	c.saveTrace(rctx, env, runErr)
	if claim != nil {
		if (env.OK || !env.Retryable) && !c.refusedByBody(env) {
			if err := claim.Complete(rctx, env); err != nil {
				c.e.log.Warn("idempotency record not stored", "trace_id", c.traceID, "task_id", c.taskID, "err", red.Redact(err.Error()))
				if env.OK && c.w.Writes() {
					env = c.unstoredWrite(env)
				}
			}
		} else {
			_ = claim.Release(rctx)
		}
	}
	lvl := c.e.log.Info
	if !env.OK {
		lvl = c.e.log.Warn
	}
	lvl("tool call", "tool", c.w.Name, "trace_id", c.traceID, "task_id", c.taskID, "code", env.Code, "duration_ms", env.DurationMS)
	return env
}

// refusedByBody reports a native body's invalid_params: a native body
// checks what it is asked before it acts (there are no steps before which
// it could be refused), so, like a call refused before any step ran, its
// refusal is not kept for a repeat: the agent fixes the call and sends it
// again with the same task_id.
func (c *call) refusedByBody(env *result.Envelope) bool {
	return c.body != nil && env.Code == errs.InvalidParams
}

// checkSize enforces limits.max_response_bytes on an ok envelope.
func (c *call) checkSize(env *result.Envelope) error {
	max := c.e.cfg.Limits.MaxResponseBytes
	if max <= 0 {
		return nil
	}
	if n := len(env.JSON()); n > max {
		return errs.New(errs.LimitExceeded, "the result is %d bytes, above limits.max_response_bytes (%d): lower the limits or narrow the call", n, max)
	}
	return nil
}

func (c *call) envID() string {
	if env := c.currentEnv(); env != nil {
		return env.ID
	}
	return ""
}

func (c *call) saveTrace(ctx context.Context, env *result.Envelope, runErr error) {
	if c.e.store == nil {
		return
	}
	red := c.e.redactor
	t := &store.Trace{
		ID: c.traceID, TaskID: c.taskID, Tool: c.w.Name,
		Args: summarize(c.req.Args, red), Start: c.start, DurationMS: env.DurationMS,
		Code: env.Code, Message: env.Message, Attempts: env.Attempts,
	}
	if !c.traceStart.IsZero() {
		t.Start = c.traceStart
	}
	if e := c.currentEnv(); e != nil {
		t.EnvID, t.Purpose = e.ID, e.Purpose
		c.noteHeld(e) // refusals that arrived after the last step ended
	}
	c.mu.Lock()
	t.Steps = append([]store.StepRecord(nil), c.steps...)
	c.mu.Unlock()
	for i := range t.Steps {
		t.Steps[i].Error = red.Redact(t.Steps[i].Error)
		t.Steps[i].HeldURLs = slices.Clone(t.Steps[i].HeldURLs)
		for j, u := range t.Steps[i].HeldURLs {
			t.Steps[i].HeldURLs[j] = cut(red.Redact(u)).(string)
		}
	}
	if runErr != nil {
		t.Error = red.Redact(causeText(runErr))
	}
	t.Artifacts = c.artifacts()
	t.Envelope = traceEnvelope(env, red)
	for i := range t.Steps {
		sr := &t.Steps[i]
		if sr.Code == "ok" || sr.Code == "skipped" || sr.Target == "" || c.set == nil {
			continue
		}
		if tg, ok := c.set.Selectors.Lookup(sr.Target); ok {
			for _, l := range tg.Locators {
				sr.Locators = append(sr.Locators, red.Redact(l.Describe()))
			}
		}
	}
	c.mu.Lock()
	if c.capture != "" {
		t.Error += " (" + red.Redact(c.capture) + ")"
	}
	c.mu.Unlock()
	if err := c.e.store.SaveTrace(ctx, t); err != nil {
		c.e.log.Warn("trace not stored", "trace_id", c.traceID, "err", red.Redact(err.Error()))
	}
}

// traceEnvelope is the envelope as the agent got it, for the trace: whole
// up to store.MaxTraceEnvelope bytes, else with its data replaced by a note
// of its size.
func traceEnvelope(env *result.Envelope, red *policy.Redactor) json.RawMessage {
	b := []byte(red.Redact(string(env.JSON())))
	if len(b) <= store.MaxTraceEnvelope {
		return b
	}
	cut := *env
	cut.Data = map[string]any{"_cut": fmt.Sprintf("%d bytes of data, not kept in the trace (over %d)", len(b), store.MaxTraceEnvelope)}
	return []byte(red.Redact(string(cut.JSON())))
}

// refused answers a call the store cannot record, before anything ran. It
// records nothing (the store just failed; trying again would only hold the
// answer past the store's lock wait) and logs the refusal instead.
func (c *call) refused(err error) *result.Envelope {
	env := result.Failure(err)
	env.TaskID, env.TraceID, env.Attempts = c.taskID, c.traceID, c.attempts
	env.DurationMS = time.Since(c.start).Milliseconds()
	c.e.log.Error("call refused: the store cannot record it", "tool", c.w.Name, "trace_id", c.traceID, "task_id", c.taskID,
		"code", env.Code, "err", c.e.redactor.Redact(causeText(err)))
	return env
}

func isStoreCode(err error) bool {
	code := errs.CodeOf(err)
	return code == errs.StoreUnavailable || code == errs.StoreBusy
}

// unrecorded replaces env, whose audit record could not be written, with
// the store's failure.
func (c *call) unrecorded(env *result.Envelope, err error) *result.Envelope {
	code := errs.CodeOf(err)
	if code != errs.StoreBusy {
		code = errs.StoreUnavailable
	}
	out := result.Failure(errs.Wrap(code, err, "the call's audit record could not be written, so its result is withheld; try again"))
	out.TaskID, out.TraceID, out.Attempts, out.DurationMS = env.TaskID, env.TraceID, env.Attempts, env.DurationMS
	return out
}

// unstoredWrite replaces the ok envelope of a write whose idempotency
// record could not be stored (the store went away mid-call): its repeat,
// on this replica or another, finds the claim unfinished and answers
// outcome_unknown without running it again, so this call answers the same
// rather than an ok no record backs.
func (c *call) unstoredWrite(env *result.Envelope) *result.Envelope {
	out := result.Failure(errs.New(errs.OutcomeUnknown, "%s ran and its steps ended ok, but the state store could not record the result (it was unreachable), so the call is not known to have taken effect: a repeat with task_id %q will not run it again; a person must check, starting from trace %s", c.w.Name, c.taskID, c.traceID))
	out.TaskID, out.TraceID, out.Attempts, out.DurationMS = env.TaskID, env.TraceID, env.Attempts, env.DurationMS
	return out
}

// audit appends the call's audit record; a failure is logged and returned.
func (c *call) audit(ctx context.Context, env *result.Envelope, envID string) error {
	if c.e.store == nil {
		return nil
	}
	rec := &store.AuditRecord{
		Time: time.Now(), TaskID: c.taskID, Tool: c.w.Name, Risk: c.w.Risk,
		EnvID: envID, GrantID: c.grantID, Code: env.Code, TraceID: env.TraceID,
	}
	if e := c.currentEnv(); e != nil {
		rec.Purpose = e.Purpose
	}
	if err := c.e.store.AppendAudit(ctx, rec); err != nil {
		c.e.log.Error("audit record not appended", "trace_id", c.traceID, "tool", c.w.Name, "code", env.Code, "err", c.e.redactor.Redact(err.Error()))
		return err
	}
	return nil
}

// taskIDOf reads task_id from arguments that failed validation.
func taskIDOf(raw json.RawMessage) string {
	var a struct {
		TaskID any `json:"task_id"`
	}
	if json.Unmarshal(raw, &a) == nil {
		if s, ok := a.TaskID.(string); ok && len(s) <= 128 {
			return s
		}
	}
	return ""
}

// canonicalArgs is what idempotency compares: the parameters after
// defaults and the environment, in a stable encoding.
func canonicalArgs(b *workflow.Call) []byte {
	out, _ := json.Marshal(map[string]any{"params": b.Params, "env_id": b.EnvID})
	return out
}

// summarize keeps arguments for the trace with long strings cut and secrets redacted.
func summarize(raw json.RawMessage, red *policy.Redactor) json.RawMessage {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return json.RawMessage(`{}`)
	}
	v = cut(red.RedactAny(v))
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage(`{}`)
	}
	return b
}

const maxTraceString = 1000

// cutMark marks a string cut short in a trace.
const cutMark = "… ("

func cut(v any) any {
	switch x := v.(type) {
	case string:
		if r := []rune(x); len(r) > maxTraceString {
			return string(r[:maxTraceString]) + fmt.Sprintf("%s%d more)", cutMark, len(r)-maxTraceString)
		}
	case map[string]any:
		for k, it := range x {
			x[k] = cut(it)
		}
	case []any:
		for i, it := range x {
			x[i] = cut(it)
		}
	}
	return v
}

// causeText is the raw error chain for the trace.
func causeText(err error) string {
	var fe *failure
	if errors.As(err, &fe) {
		err = fe.err
	}
	var e *errs.Error
	if errors.As(err, &e) && e.Cause != nil {
		return e.Message + ": " + e.Cause.Error()
	}
	return err.Error()
}

// ReplayArgs returns the arguments of a recorded call for replay. Traces
// cut very long strings; such a call cannot be replayed faithfully.
func ReplayArgs(t *store.Trace) (json.RawMessage, error) {
	if len(t.Args) == 0 {
		return json.RawMessage(`{}`), nil
	}
	if strings.Contains(string(t.Args), cutMark) {
		return nil, fmt.Errorf("trace %s cut long arguments; it cannot be replayed exactly", t.ID)
	}
	return t.Args, nil
}
