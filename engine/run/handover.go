package run

import (
	"context"
	"net/url"
	"strings"
	"time"

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
	h := &store.Handoff{EnvID: env.ID, Purpose: env.Purpose, Message: message, Endpoint: env.Endpoint(),
		TargetID: string(env.Page().TargetID), TraceID: c.traceID, Created: time.Now(), Expires: expires}
	if err := st.SaveHandoff(ctx, h); err != nil {
		return nil, errs.Wrap(errs.StoreUnavailable, err, "the handoff cannot be recorded in the store")
	}
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
			if _, err := st.FinishHandoff(fctx, env.ID, "the call"); err != nil {
				c.e.log.Warn("cannot finish a handoff in the store", "env", env.ID, "err", err)
			}
			return nil
		}
		c.e.browsers.KeepFor(env, expires)
		e := errs.New(errs.HumanRequired, "%s: no person finished it in time; the environment %s is kept for a person until %s: open handoff.url, then call again",
			message, env.ID, expires.UTC().Format(time.RFC3339))
		e.Handoff = &errs.Handoff{URL: HandoffURL(c.e.cfg.UI.URL, env.ID), EnvID: env.ID, ExpiresAt: expires.UTC()}
		return e
	}
	return finish, nil
}

// HandoffURL is the ui's take-over link of environment id under base
// (ui.url).
func HandoffURL(base, id string) string {
	return strings.TrimSuffix(base, "/") + "/env/" + url.PathEscape(id) + "/"
}
