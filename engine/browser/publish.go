package browser

import (
	"context"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/toolwright/toolwright/engine/store"
)

// process names this process in its published environments, for the
// operator: "HOST pid N".
var process = func() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s pid %d", host, os.Getpid())
}()

// Publisher is where a manager whose browsers die with this process (a
// provider without Attacher, so no Registry holds them) announces its open
// environments, for another process to list and take over (`toolwright
// ui`): the store's published environments, as they are. The manager
// publishes its whole list when it changes and every third of
// Options.LeaseDuration; a list not renewed within LeaseDuration belonged
// to a process that died, and is neither listed nor kept.
type Publisher = store.Published

// publishLoop publishes the manager's environments now, on every change
// (changed) and every third of the lease, until Shutdown, which withdraws
// them.
func (m *Manager) publishLoop() {
	defer m.wg.Done()
	t := time.NewTicker(m.opts.LeaseDuration / 3)
	defer t.Stop()
	failing := false
	for {
		ctx, cancel := regCtx(context.Background())
		err := m.pub.PublishEnvs(ctx, m.replica, m.openRecords(), m.leaseUntil())
		cancel()
		switch {
		case err != nil && !failing:
			m.log.Warn("cannot publish the open environments for toolwright ui; will retry", "err", err)
		case err == nil && failing:
			m.log.Info("open environments published again for toolwright ui")
		}
		failing = err != nil
		select {
		case <-m.stop:
			return
		case <-m.changes:
		case <-t.C:
		}
	}
}

// changed tells the publisher that the open environments changed.
func (m *Manager) changed() {
	if m.changes == nil {
		return
	}
	select {
	case m.changes <- struct{}{}:
	default: // one is pending already
	}
}

// openRecords are the open environments (spares, which have no purpose
// yet, aside), by id.
func (m *Manager) openRecords() []store.PublishedEnv {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]store.PublishedEnv, 0, len(m.envs))
	for _, e := range m.envs {
		if e.Err() != nil || e.page == nil {
			continue
		}
		out = append(out, store.PublishedEnv{ID: e.ID, Process: process, Provider: m.opts.Provider, Endpoint: e.Endpoint(),
			TargetID: string(e.page.TargetID), Region: e.Region, Purpose: e.Purpose, Temporary: e.Temporary, LastUsed: e.LastUsed()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// withdraw removes this process's published environments (Shutdown).
func (m *Manager) withdraw() {
	if m.pub == nil {
		return
	}
	ctx, cancel := regCtx(context.Background())
	defer cancel()
	if err := m.pub.PublishEnvs(ctx, m.replica, nil, time.Now()); err != nil {
		m.log.Warn("cannot withdraw the published environments; they expire on their own", "err", err, "after", m.opts.LeaseDuration)
	}
}

// PublishNow publishes the open environments at once, when the manager
// publishes them (Options.Publisher without a Registry): an ask_human step
// does before it records its handoff, so no other process finds the
// handoff without its environment.
func (m *Manager) PublishNow(ctx context.Context) error {
	if m.pub == nil {
		return nil
	}
	rctx, cancel := regCtx(ctx)
	defer cancel()
	return m.pub.PublishEnvs(rctx, m.replica, m.openRecords(), m.leaseUntil())
}
