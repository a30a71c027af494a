package run

import (
	"context"
	"errors"
	"time"

	"github.com/toolwright/toolwright/engine/store"
	"github.com/toolwright/toolwright/engine/tick"
)

// EnvAlive reports whether environment id is still open somewhere:
// published by a live process (pub is PublishedEnvs' list: browsers that
// die with their process, provider local) or open in the shared registry
// (remote browsers outlive the process that opened them).
func EnvAlive(ctx context.Context, st store.Store, pub []store.PublishedEnv, id string) (bool, error) {
	for _, p := range pub {
		if p.ID == id {
			return true, nil
		}
	}
	rec, err := st.GetEnv(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return !rec.Closed, nil
}

// HandoffSweepEvery is how often a server looks for handoffs no process
// will finish (KeepHandoffs).
const HandoffSweepEvery = 10 * time.Second

// SweepHandoffs finishes the handoffs whose own server can no longer
// finish them, each once and audited as the server would have: one past
// its expires_at that nobody finished (its server stopped before its timer
// fired) as "expired", and one whose environment is gone (its server died
// or stopped, and the browser with it) as "lost". A handoff whose
// environment another live process still has is left to that process. It
// returns how many it finished.
func (e *Engine) SweepHandoffs(ctx context.Context) (int, error) {
	if e.store == nil {
		return 0, nil
	}
	hs, err := e.store.UnfinishedHandoffs(ctx)
	if err != nil || len(hs) == 0 {
		return 0, err
	}
	pub, err := e.store.PublishedEnvs(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, h := range hs {
		code := "expired"
		if time.Now().Before(h.Expires) {
			alive, err := EnvAlive(ctx, e.store, pub, h.EnvID)
			if err != nil {
				return n, err
			}
			if alive {
				continue
			}
			code = "lost"
		}
		first, err := e.store.FinishHandoff(ctx, h.EnvID, code)
		if err != nil {
			return n, err
		}
		if !first {
			continue // its server, or another, finished it meanwhile
		}
		n++
		e.log.Info("handoff finished by a later server", "env", h.EnvID, "purpose", h.Purpose, "as", code,
			"expires", h.Expires.UTC().Format(time.RFC3339))
		rec := &store.AuditRecord{Time: time.Now(), Tool: "handoff", TaskID: code, EnvID: h.EnvID, Purpose: h.Purpose, Code: code, TraceID: h.TraceID}
		if err := e.store.AppendAudit(ctx, rec); err != nil {
			return n, err
		}
	}
	return n, nil
}

// KeepHandoffs sweeps the handoffs (SweepHandoffs) now and then every
// `every` until ctx ends; `serve` runs it with HandoffSweepEvery, so a
// restart finishes what the server before it left open.
func (e *Engine) KeepHandoffs(ctx context.Context, every time.Duration) {
	failing := false
	tick.NowAndEvery(ctx.Done(), every, func() {
		_, err := e.SweepHandoffs(ctx)
		if err != nil && ctx.Err() == nil && !failing {
			e.log.Warn("cannot finish the handoffs left open; will retry", "err", e.redactor.Redact(err.Error()))
		}
		failing = err != nil
	})
}
