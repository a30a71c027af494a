package run

import (
	"context"
	"net/url"
	"strings"
	"time"

	"github.com/toolwright/toolwright/engine/browser"
	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/step"
	"github.com/toolwright/toolwright/engine/store"
)

var _ step.Handover = (*runner)(nil)

// HandOver implements step.Handover: the call's environment is recorded as
// a handoff in the store (toolwright ui lists it with its take-over link),
// the call's progress says "waiting for a person: MESSAGE", and finish
// either finishes the handoff or keeps the environment for the person
// until expires and answers human_required with the link.
func (r *runner) HandOver(ctx context.Context, message string, expires time.Time) (func(held bool) error, error) {
	c := r.c
	st := c.e.store
	if st == nil {
		return nil, errs.New(errs.ConfigError, "ask_human needs the store: toolwright ui finds the handoff there")
	}
	env := c.currentEnv()
	if env == nil || env.Page() == nil {
		return nil, errs.New(errs.ConfigError, "ask_human needs an environment to hand over; %s has none", c.w.Name)
	}
	// Its environment is published first (local browsers), so no other
	// process takes the handoff for one whose environment is gone.
	if err := c.e.browsers.PublishNow(ctx); err != nil {
		return nil, errs.Wrap(errs.StoreUnavailable, err, "the environment cannot be published for the handoff in the store")
	}
	h := &store.Handoff{EnvID: env.ID, Purpose: env.Purpose, Message: message, Endpoint: env.Endpoint(),
		TargetID: string(env.Page().TargetID), TraceID: c.traceID, Created: time.Now(), Expires: expires}
	if err := st.SaveHandoff(ctx, h); err != nil {
		return nil, errs.Wrap(errs.StoreUnavailable, err, "the handoff cannot be recorded in the store")
	}
	who := "call of " + c.w.Name
	if c.taskID != "" {
		who += " (task " + c.taskID + ")"
	}
	c.auditHandoff(ctx, env, who, "started")
	c.e.log.Info("waiting for a person", "env", env.ID, "purpose", env.Purpose, "tool", c.w.Name, "expires", expires.UTC().Format(time.RFC3339))
	if c.req.Progress != nil {
		c.mu.Lock()
		done := c.done
		c.mu.Unlock()
		c.req.Progress(done, len(c.w.Steps), "waiting for a person: "+message)
	}
	finish := func(held bool) error {
		if held {
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			// The person may have pressed done in the ui first: that
			// finished (and audited) it already.
			if first, err := st.FinishHandoff(fctx, env.ID, who); err != nil {
				c.e.log.Warn("cannot finish a handoff in the store", "env", env.ID, "err", err)
			} else if first {
				c.auditHandoff(fctx, env, who, "finished")
			}
			return nil
		}
		c.e.browsers.KeepFor(env, expires)
		c.auditHandoff(ctx, env, who, "kept")
		// Past expires the environment is closed for good; the handoff
		// ends as expired unless a person finished it first. (A server
		// that stops before then leaves it to the next one's
		// SweepHandoffs: expired, or lost with its environment.)
		time.AfterFunc(time.Until(expires), func() {
			xctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if first, err := st.FinishHandoff(xctx, env.ID, "expired"); err != nil {
				c.e.log.Warn("cannot mark a handoff expired in the store", "env", env.ID, "err", err)
			} else if first {
				c.auditHandoff(xctx, env, "expired", "expired")
			}
		})
		e := errs.New(errs.HumanRequired, "%s: no person finished it in time; the environment %s is kept for a person until %s: open handoff.url, then call again",
			message, env.ID, expires.UTC().Format(time.RFC3339))
		e.Handoff = &errs.Handoff{URL: HandoffURL(c.e.cfg.UI.URL, env.ID), EnvID: env.ID, ExpiresAt: expires.UTC()}
		return e
	}
	return finish, nil
}

// auditHandoff appends a handoff record: what happened to env's handoff
// (code: started, finished, kept, expired) and who did it (in task_id, as
// the ui's done button records the person).
func (c *call) auditHandoff(ctx context.Context, env *browser.Env, who, code string) {
	rec := &store.AuditRecord{Time: time.Now(), Tool: "handoff", TaskID: who, EnvID: env.ID, Purpose: env.Purpose, Code: code, TraceID: c.traceID}
	if err := c.e.store.AppendAudit(context.WithoutCancel(ctx), rec); err != nil {
		c.e.log.Error("handoff audit record not appended", "env", env.ID, "code", code, "err", c.e.redactor.Redact(err.Error()))
	}
}

// HandoffURL is the ui's take-over link of environment id under base
// (ui.url).
func HandoffURL(base, id string) string {
	return strings.TrimSuffix(base, "/") + "/env/" + url.PathEscape(id) + "/"
}
