package browser

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/go-rod/rod/lib/proto"

	"github.com/toolwright/toolwright/engine/backoff"
	"github.com/toolwright/toolwright/engine/browser/provider"
	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/store"
)

// Registry is the shared list of environments that lets several replicas
// use one pool of browsers: the store's environment registry, as it is.
// With one, every environment is registered when it is opened, a lease in
// the registry (renewed while a call runs) lets one call at a time use it,
// the pool limits count the registry, any replica attaches to an
// environment of a cdp endpoint by its id, and a lost browser marks its
// environments closed. Without one (nil), the Manager keeps all of that in
// its own memory.
type Registry = store.Environments

// Record is one registered environment.
type Record = store.EnvRecord

// getRecord is the record of id, or nil, nil when the registry has none.
func (m *Manager) getRecord(ctx context.Context, id string) (*Record, error) {
	rec, err := m.reg.GetEnv(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	return rec, err
}

// DefaultLeaseDuration is how long an environment's lease lasts without a
// heartbeat: a replica that dies mid-call frees its environments after it.
const DefaultLeaseDuration = 30 * time.Second

// registryTimeout bounds one registry call.
const registryTimeout = 10 * time.Second

func regCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), registryTimeout)
}

// newOwner names one hold of an environment by this manager.
func (m *Manager) newOwner() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return m.replica + "/" + hex.EncodeToString(b)
}

// leaseUntil is the expiry of a lease taken or renewed now.
func (m *Manager) leaseUntil() time.Time { return time.Now().Add(m.opts.LeaseDuration) }

// hold records that a call holds env under owner in the registry, and
// renews the lease until unhold.
func (m *Manager) hold(env *Env, owner string) {
	if m.reg == nil {
		return
	}
	stop := make(chan struct{})
	env.mu.Lock()
	env.owner, env.stopBeat = owner, stop
	env.mu.Unlock()
	every := m.opts.LeaseDuration / 3
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-env.Done():
				return
			case <-t.C:
				ctx, cancel := regCtx(context.Background())
				ok, err := m.reg.LeaseEnv(ctx, env.ID, owner, m.leaseUntil())
				cancel()
				if err == nil && !ok {
					m.log.Warn("environment lease lost", "env", env.ID)
					return
				}
			}
		}
	}()
}

// unhold ends the call's lease on env.
func (m *Manager) unhold(env *Env) {
	if m.reg == nil {
		return
	}
	env.mu.Lock()
	owner, stop := env.owner, env.stopBeat
	env.owner, env.stopBeat = "", nil
	env.mu.Unlock()
	if stop == nil {
		return
	}
	close(stop)
	ctx, cancel := regCtx(context.Background())
	defer cancel()
	if err := m.reg.ReleaseEnv(ctx, env.ID, owner); err != nil {
		m.log.Warn("cannot release an environment lease", "env", env.ID, "err", err)
	}
}

// leaseWait takes the registry lease of id for owner, polling while another
// replica's call holds it.
func (m *Manager) leaseWait(ctx context.Context, id, owner string) error {
	pause := backoff.New(20*time.Millisecond, 500*time.Millisecond)
	for {
		rctx, cancel := regCtx(ctx)
		ok, err := m.reg.LeaseEnv(rctx, id, owner, m.leaseUntil())
		cancel()
		if err != nil {
			return registryErr(err)
		}
		if ok {
			return nil
		}
		rctx, cancel = regCtx(ctx)
		rec, err := m.getRecord(rctx, id)
		cancel()
		if err != nil {
			return registryErr(err)
		}
		if rec == nil || rec.Closed {
			return closedErr(id, rec)
		}
		if !pause.Sleep(ctx, nil) {
			return ctx.Err()
		}
	}
}

// registryErr keeps an env_* error of the registry (a full pool) and
// context errors, and makes any other failure env_unavailable: without the
// registry no environment can be opened or shared safely.
func registryErr(err error) error {
	var typed *errs.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &typed) && (typed.Code == errs.EnvUnavailable || typed.Code == errs.EnvNotFound):
		return err
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return err
	}
	return errs.Wrap(errs.EnvUnavailable, err, "the environment registry cannot be reached")
}

// closedErr is env_not_found for a registry record that is gone or closed.
func closedErr(id string, rec *Record) error {
	if rec == nil {
		return errs.New(errs.EnvNotFound, "no environment %q (open one with an env: new tool)", id)
	}
	why := rec.ClosedWhy
	if why == "" {
		why = "closed"
	}
	return errs.New(errs.EnvNotFound, "environment %q is closed: %s", id, why)
}

// errBusy is attach's answer, when it may not wait, for an environment
// another call holds.
var errBusy = errs.New(errs.EnvUnavailable, "the environment is in use")

// leaseOnce takes the registry lease of id for owner if no call holds it.
func (m *Manager) leaseOnce(ctx context.Context, id, owner string) error {
	rctx, cancel := regCtx(ctx)
	defer cancel()
	ok, err := m.reg.LeaseEnv(rctx, id, owner, m.leaseUntil())
	if err != nil {
		return registryErr(err)
	}
	if !ok {
		return errBusy
	}
	return nil
}

// reuseShared hands Open an idle kept environment of region and purpose
// that another replica made or let go of (one this process has is found
// by idleLocked): attached here and held for the caller, its cookies
// carried over as they are within one replica. nil when there is none
// or none can be reached.
func (m *Manager) reuseShared(ctx context.Context, region, purpose string) *Env {
	if m.reg == nil {
		return nil
	}
	rctx, cancel := regCtx(ctx)
	recs, err := m.reg.IdleEnvs(rctx, region, purpose, time.Time{})
	cancel()
	if err != nil {
		m.log.Warn("cannot list idle environments in the registry", "err", err)
		return nil
	}
	for _, rec := range recs {
		if !m.unknownLocked(rec.ID) {
			continue // this process has it: held by a call here, or closed
		}
		env, _, err := m.attach(ctx, rec.ID, false)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			m.log.Debug("cannot reuse a registered environment", "env", rec.ID, "err", err)
			continue
		}
		env.touch()
		m.log.Debug("environment reused from the registry", "env", env.ID, "region", region, "purpose", purpose)
		return env
	}
	return nil
}

// reapShared closes the kept environments of the registry that no call
// used for IdleTimeout and that this process does not have (its own reaper
// handles those): made by a replica that died, shut down or simply never
// came back to them. It takes each one's lease, so one replica does it,
// closes its browser context (or deletes its WebDriver session) and marks
// it closed for everyone. A browser that does not answer is tried again
// at the next round; one that is gone only needs the mark.
func (m *Manager) reapShared() {
	ap, ok := m.provider.(provider.Attacher)
	if !ok || m.reg == nil {
		return
	}
	ctx, cancel := regCtx(context.Background())
	defer cancel()
	recs, err := m.reg.IdleEnvs(ctx, "", "", time.Now().Add(-m.opts.IdleTimeout))
	if err != nil {
		m.log.Warn("cannot list idle environments in the registry", "err", err)
		return
	}
	why := fmt.Sprintf("idle for %s", m.opts.IdleTimeout)
	for _, rec := range recs {
		select {
		case <-m.stop:
			return
		default:
		}
		if !m.unknownLocked(rec.ID) {
			continue
		}
		cur, err := m.getRecord(ctx, rec.ID)
		if err != nil || cur == nil || cur.Closed || time.Since(cur.LastUsed) < m.opts.IdleTimeout {
			continue // used meanwhile
		}
		owner := m.newOwner()
		if ok, err := m.reg.LeaseEnv(ctx, rec.ID, owner, m.leaseUntil()); err != nil || !ok {
			continue
		}
		if err := m.disposeRegistered(ctx, ap, cur); err != nil {
			_ = m.reg.ReleaseEnv(ctx, rec.ID, owner)
			m.log.Warn("cannot close an idle environment another replica made", "env", rec.ID, "err", err)
			continue
		}
		if err := m.reg.CloseEnv(ctx, rec.ID, why); err != nil {
			m.log.Warn("cannot mark an environment closed in the registry", "env", rec.ID, "err", err)
			continue
		}
		m.log.Info("environment closed", "env", rec.ID, "purpose", rec.Purpose, "why", why, "held_by", "no replica")
	}
}

// disposeRegistered ends the browser side of a registered environment this
// process never had: its WebDriver session, or its browser context. A
// browser that is gone (env_not_found) has nothing left to end.
func (m *Manager) disposeRegistered(ctx context.Context, ap provider.Attacher, rec *Record) error {
	if rec.Session != "" {
		m.endSession(rec.Session)
		return nil
	}
	conn, err := own(ap.Attach(ctx, rec.Endpoint))
	if errs.CodeOf(err) == errs.EnvNotFound {
		return nil
	}
	if err != nil {
		return err
	}
	m.watch(conn)
	dctx, cancel := context.WithTimeout(ctx, closeTimeout)
	defer cancel()
	if err := (proto.TargetDisposeBrowserContext{BrowserContextID: proto.BrowserBrowserContextID(rec.ContextID)}).Call(conn.browser.Context(dctx)); err != nil && conn.Err() == nil {
		m.log.Debug("browser context already gone", "env", rec.ID, "err", err)
	}
	return conn.Err()
}
