package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/toolwright/toolwright/engine/browser"
	"github.com/toolwright/toolwright/engine/store"
)

// envRegistry is the store's environment registry as the browser manager
// sees it.
type envRegistry struct{ s store.Environments }

// Registry adapts a store's environment registry for browser.Options.
func Registry(s store.Environments) browser.Registry { return envRegistry{s} }

func toRecord(r *store.EnvRecord) *browser.Record {
	if r == nil {
		return nil
	}
	return &browser.Record{ID: r.ID, Provider: r.Provider, Endpoint: r.Endpoint, ContextID: r.ContextID, TargetID: r.TargetID, Session: r.Session,
		Region: r.Region, Purpose: r.Purpose, Temporary: r.Temporary, LeaseOwner: r.LeaseOwner, LeaseUntil: r.LeaseUntil,
		LastUsed: r.LastUsed, Closed: r.Closed, ClosedWhy: r.ClosedWhy}
}

func (g envRegistry) Reserve(ctx context.Context, r browser.Record, max, maxPer int, owner string, until time.Time) error {
	rec := &store.EnvRecord{ID: r.ID, Provider: r.Provider, Endpoint: r.Endpoint, ContextID: r.ContextID, TargetID: r.TargetID,
		Region: r.Region, Purpose: r.Purpose, Temporary: r.Temporary}
	return g.s.ReserveEnv(ctx, rec, store.EnvLimits{Max: max, MaxPerKept: maxPer}, owner, until)
}

func (g envRegistry) Locate(ctx context.Context, id, endpoint, contextID, targetID, session string) error {
	return g.s.SetEnvLocation(ctx, id, endpoint, contextID, targetID, session)
}

func (g envRegistry) Adopt(ctx context.Context, id, purpose string, temporary bool) error {
	return g.s.AdoptEnv(ctx, id, purpose, temporary)
}

func (g envRegistry) Get(ctx context.Context, id string) (*browser.Record, error) {
	r, err := g.s.GetEnv(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	return toRecord(r), err
}

func (g envRegistry) Lease(ctx context.Context, id, owner string, until time.Time) (bool, error) {
	return g.s.LeaseEnv(ctx, id, owner, until)
}

func (g envRegistry) Release(ctx context.Context, id, owner string) error {
	return g.s.ReleaseEnv(ctx, id, owner)
}

func (g envRegistry) Close(ctx context.Context, id, why string) error {
	return g.s.CloseEnv(ctx, id, why)
}

func (g envRegistry) CloseAt(ctx context.Context, endpoint, why string) error {
	_, err := g.s.CloseEnvsAt(ctx, endpoint, why)
	return err
}

func (g envRegistry) Idle(ctx context.Context, region, purpose string, usedBefore time.Time) ([]browser.Record, error) {
	rs, err := g.s.IdleEnvs(ctx, region, purpose, usedBefore)
	out := make([]browser.Record, 0, len(rs))
	for i := range rs {
		out = append(out, *toRecord(&rs[i]))
	}
	return out, err
}

func (g envRegistry) ByContext(ctx context.Context, contextID string) (*browser.Record, error) {
	r, err := g.s.FindEnvByContext(ctx, contextID)
	return toRecord(r), err
}

// envPublisher publishes a process's environments in the store for
// toolwright ui.
type envPublisher struct {
	s       store.Published
	process string
}

// Publisher adapts a store for browser.Options.Publisher; each record
// names this process (host and pid) for the operator.
func Publisher(s store.Published) browser.Publisher {
	host, _ := os.Hostname()
	return envPublisher{s: s, process: fmt.Sprintf("%s pid %d", host, os.Getpid())}
}

func (p envPublisher) Publish(ctx context.Context, owner string, envs []browser.Record, until time.Time) error {
	out := make([]store.PublishedEnv, 0, len(envs))
	for _, r := range envs {
		out = append(out, store.PublishedEnv{ID: r.ID, Process: p.process, Provider: r.Provider, Endpoint: r.Endpoint, TargetID: r.TargetID,
			Region: r.Region, Purpose: r.Purpose, Temporary: r.Temporary, LastUsed: r.LastUsed})
	}
	return p.s.PublishEnvs(ctx, owner, out, until)
}
