package kinds

import (
	"context"
	"errors"
	"time"

	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/step"
)

func init() {
	step.Register(&step.Spec{
		Kind: "ask_human",
		Doc: "Hand the environment to a person: toolwright ui lists it with a take-over link (the page live, the person's mouse and keyboard forwarded), " +
			"the call reports progress \"waiting for a person: MESSAGE\" and goes on when until holds. Past its timeout the call ends human_required " +
			"with a handoff link, and the environment is kept for the person as long again. It never acts on the page itself.",
		Risk: "read",
		Fields: []step.Field{
			{Name: "message", Type: step.Template, Required: true, Doc: "what the person is asked to do (shown in the ui and in the call's progress)"},
			{Name: "until", Type: step.PageCond, Required: true, Doc: "one of wait's conditions: the call goes on once it holds"},
			{Name: "timeout", Type: step.Duration, Timeout: true, Required: true, Doc: "how long the call waits for the person, up to the call's deadline; the environment is then kept for the person as long again"},
		},
		Example: `ask_human: {message: "Enter the code sent to your phone, then open the catalog", until: {visible: acme.catalog.rows}, timeout: 5m}`,
		Run: func(ctx context.Context, x step.Exec, s *step.Step) error {
			h, ok := x.(step.Handover)
			if !ok {
				return errs.New(errs.ConfigError, "ask_human: this server cannot hand an environment to a person")
			}
			msg, err := x.Text(ctx, s.Tmpl("message"))
			if err != nil {
				return err
			}
			cond := s.Cond("until")
			sp := step.ConditionKind()
			if cond == nil || sp == nil {
				return errs.New(errs.ConfigError, "ask_human: until is not a condition")
			}
			conds, err := sp.Condition(ctx, x, cond)
			if err != nil {
				return err
			}
			// The wait ends a little before the step's own end (its
			// timeout, bounded by the call's deadline), so the call can
			// still answer human_required with the link.
			wait := s.Dur("timeout")
			if dl, ok := ctx.Deadline(); ok {
				left := time.Until(dl)
				wait = min(wait, left-min(2*time.Second, left/10))
			}
			if wait <= 0 {
				return errs.New(errs.DeadlineExceeded, "ask_human: no time is left in the call to wait for a person")
			}
			finish, err := h.HandOver(ctx, msg, time.Now().Add(wait+s.Dur("timeout")))
			if err != nil {
				return err
			}
			wctx, cancel := context.WithTimeout(ctx, wait)
			defer cancel()
			_, werr := x.Wait(wctx, conds)
			if werr == nil {
				return finish(true)
			}
			if ctx.Err() == nil && (wctx.Err() != nil || errors.Is(werr, context.DeadlineExceeded) || errs.CodeOf(werr) == errs.DeadlineExceeded || errs.CodeOf(werr) == errs.TargetNotFound) {
				return finish(false)
			}
			_ = finish(true) // the wait failed otherwise: nothing to keep it for
			return werr
		},
	})
}
