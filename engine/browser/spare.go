package browser

import (
	"context"
	"time"

	"github.com/toolwright/toolwright/engine/errs"
)

// spareTimeout bounds the making of one spare environment.
const spareTimeout = 30 * time.Second

// The spare environments (browser.spare, Options.Spare): browser contexts of
// the default region opened ahead of need, each with its page made and its
// guard in place, so an `env: temporary` call (or an Open that finds no idle
// environment) starts in a warm one instead of paying for a browser context,
// a target and its rules. A spare has no cookies and no purpose until it is
// taken; it counts toward max_environments (not max_per_purpose), is dropped
// when a call needs its room, is discarded with its browser when that dies,
// and is closed on Shutdown.
//
// A spare is refilled in the background when a call ends (Release, or an
// environment closing), not when one is taken: making a browser context and
// its page costs a renderer process's start, and on a small machine doing
// that beside a running call slows the call more than the spare saves it. An
// agent thinks between calls, which is when the spare is made; a call that
// comes while one is being made waits for it rather than opening another.
// So the first spare is made when the first call ends, and no browser
// starts before a call needs one.

// totalLocked counts everything toward max_environments: open, being
// opened, spare and being made spare.
func (m *Manager) totalLocked() int {
	n := len(m.envs) + m.pending + len(m.spares)
	if m.filling != nil {
		n++
	}
	return n
}

// takeSpareLocked hands a ready spare of region to the caller as an
// environment of purpose, held for it; nil when there is none.
func (m *Manager) takeSpareLocked(region, purpose string, temporary bool) *Env {
	if region != m.spareRegion {
		return nil
	}
	if m.reg != nil && !temporary {
		// A spare's context dies with this connection; a kept environment
		// of a shared browser must outlive it.
		return nil
	}
	for len(m.spares) > 0 {
		e := m.spares[0]
		m.spares = m.spares[1:]
		if e.Err() != nil {
			m.disposeLater(e, e.Err())
			continue
		}
		e.Purpose = purpose
		e.Temporary = temporary
		e.touch()
		m.envs[e.ID] = e
		return e
	}
	return nil
}

// dropSpareLocked closes one spare to make room; false when there is none.
func (m *Manager) dropSpareLocked() bool {
	if len(m.spares) == 0 {
		return false
	}
	e := m.spares[len(m.spares)-1]
	m.spares = m.spares[:len(m.spares)-1]
	m.disposeLater(e, errs.New(errs.EnvUnavailable, "a spare environment made room for a call"))
	return true
}

// disposeLater disposes of env outside the lock; Shutdown waits for it.
func (m *Manager) disposeLater(env *Env, cause error) {
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		m.dispose(env, cause)
	}()
}

// refill starts making a spare when fewer than Options.Spare are ready,
// none is being made, the pool has room for one, and no call is opening an
// environment: a spare made then would take the room (and the cores) a
// waiting call needs. Their calls' ends call refill again.
func (m *Manager) refill() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed || m.filling != nil || m.wanting > 0 || m.spareRegion == "" || len(m.spares) >= m.opts.Spare || m.totalLocked() >= m.opts.MaxEnvironments {
		return
	}
	done := make(chan struct{})
	m.filling = done
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		// Shutdown stops a spare half made.
		ctx, cancel := context.WithTimeout(context.Background(), spareTimeout)
		go func() {
			select {
			case <-m.stop:
				cancel()
			case <-ctx.Done():
			}
		}()
		start := time.Now()
		env, err := m.create(ctx, m.spareRegion, DefaultPurpose, m.proxies[m.spareRegion], true)
		cancel()

		m.mu.Lock()
		m.filling = nil
		close(done)
		if err != nil {
			m.freedLocked()
		}
		if err == nil && m.closed {
			m.mu.Unlock()
			m.dispose(env, errClosed)
			return
		}
		if err != nil {
			m.mu.Unlock()
			m.log.Debug("cannot make a spare environment", "err", err)
			return
		}
		// Its token stays taken (as create left it): a spare is held for
		// the call that will take it, so nothing reaps or reuses it.
		m.spares = append(m.spares, env)
		m.mu.Unlock()
		m.log.Debug("spare environment ready", "env", env.ID, "took", time.Since(start).Round(time.Millisecond))
		m.refill()
	}()
}
