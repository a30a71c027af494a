package store

import (
	"context"
	"time"
)

// EnvRecord is one environment in the registry that replicas share: where
// its browser context lives, who holds it now, and whether it is closed.
type EnvRecord struct {
	ID        string `json:"id"`
	Provider  string `json:"provider"`   // local | cdp | webdriver
	Endpoint  string `json:"endpoint"`   // the browser's DevTools URL ("" while opening)
	ContextID string `json:"context_id"` // the CDP browser context
	TargetID  string `json:"target_id"`  // the CDP target of its page
	Session   string `json:"session"`    // a WebDriver session id, if any
	Region    string `json:"region"`
	Purpose   string `json:"purpose"`
	Temporary bool   `json:"temporary"`
	// LeaseOwner holds the environment for one call until LeaseUntil; ""
	// when no call holds it.
	LeaseOwner string    `json:"lease_owner,omitempty"`
	LeaseUntil time.Time `json:"lease_until"`
	LastUsed   time.Time `json:"last_used"`
	Created    time.Time `json:"created"`
	Closed     bool      `json:"closed"`
	ClosedWhy  string    `json:"closed_why,omitempty"`
}

// Leased reports whether a call holds the environment at now.
func (r *EnvRecord) Leased(now time.Time) bool { return r.LeaseOwner != "" && now.Before(r.LeaseUntil) }

// EnvLimits bound the registry: Reserve refuses a new environment beyond
// them.
type EnvLimits struct {
	Max        int // open environments in all (temporary ones count)
	MaxPerKept int // open environments one purpose keeps (temporary ones do not count)
}

// EnvCounts are the open environments of the registry.
type EnvCounts struct {
	Total     int            `json:"total"`
	ByPurpose map[string]int `json:"by_purpose"` // kept (not temporary) ones
}

// Environments is the registry of browser environments. Every replica
// registers the environments it opens, any replica attaches to one by id,
// a lease (not a mutex in one process) lets one call at a time use it, and
// the pool limits count the registry.
type Environments interface {
	// ReserveEnv inserts rec (ID, Provider, Region, Purpose, Temporary;
	// Endpoint and the ids may still be empty) under lim, leased to owner
	// until leaseUntil. The count and the insert happen under one lock, so
	// replicas opening at once never exceed the limits. Beyond them it
	// returns an *errs.Error with code env_unavailable.
	ReserveEnv(ctx context.Context, rec *EnvRecord, lim EnvLimits, owner string, leaseUntil time.Time) error
	// SetEnvLocation records where a reserved environment lives.
	SetEnvLocation(ctx context.Context, id, endpoint, contextID, targetID, session string) error
	// AdoptEnv gives a ready environment (a spare) its purpose.
	AdoptEnv(ctx context.Context, id, purpose string, temporary bool) error
	// GetEnv returns the record of id; an unknown id wraps ErrNotFound.
	GetEnv(ctx context.Context, id string) (*EnvRecord, error)
	// LeaseEnv holds open environment id for owner until until, when no
	// other owner holds a live lease (owner may renew its own). It
	// reports whether owner holds it now.
	LeaseEnv(ctx context.Context, id, owner string, until time.Time) (bool, error)
	// ReleaseEnv ends owner's lease and stamps LastUsed.
	ReleaseEnv(ctx context.Context, id, owner string) error
	// CloseEnv marks id closed with a reason (a no-op when it already is).
	CloseEnv(ctx context.Context, id, why string) error
	// CloseEnvsAt marks every open environment of the browser at endpoint
	// closed (the browser is gone) and returns how many.
	CloseEnvsAt(ctx context.Context, endpoint, why string) (int64, error)
	// CountEnvs counts the open environments. A temporary environment whose
	// lease ran out belonged to a call on a replica that died: it no longer
	// counts here or in ReserveEnv.
	CountEnvs(ctx context.Context) (EnvCounts, error)
	// IdleEnvs lists open environments of region and purpose (empty: any)
	// that no call holds, kept ones only, most recently used first; with a
	// non-zero usedBefore only those last used before it.
	IdleEnvs(ctx context.Context, region, purpose string, usedBefore time.Time) ([]EnvRecord, error)
	// FindEnvByContext returns the open environment of a browser context,
	// or nil, nil.
	FindEnvByContext(ctx context.Context, contextID string) (*EnvRecord, error)
}

// PublishedEnv is an open environment whose browser no other process can
// share (provider local: the browser dies with its process), published by
// the process that has it so that `toolwright ui`, another process, lists
// it and takes it over. The owner renews its records while it runs; past
// AliveUntil it is taken for dead and its records are neither listed nor
// kept.
type PublishedEnv struct {
	ID         string    `json:"id"`
	Owner      string    `json:"owner"`     // the replica id of the process that has it
	Process    string    `json:"process"`   // where that process runs: "HOST pid N"
	Provider   string    `json:"provider"`  // local
	Endpoint   string    `json:"endpoint"`  // its browser's DevTools URL
	TargetID   string    `json:"target_id"` // its page's CDP target
	Region     string    `json:"region"`
	Purpose    string    `json:"purpose"`
	Temporary  bool      `json:"temporary"`
	Created    time.Time `json:"created"` // when it was first published
	LastUsed   time.Time `json:"last_used"`
	AliveUntil time.Time `json:"alive_until"`
}

// Published is where processes publish the environments the registry
// does not hold.
type Published interface {
	// PublishEnvs makes envs exactly owner's published environments, alive
	// until until (a record keeps the Created of its first publication),
	// and deletes every record whose owner let it run out (a process that
	// died without withdrawing them). An empty envs withdraws all of
	// owner's.
	PublishEnvs(ctx context.Context, owner string, envs []PublishedEnv, until time.Time) error
	// PublishedEnvs lists the published environments whose owner is alive
	// (AliveUntil after now), oldest first.
	PublishedEnvs(ctx context.Context) ([]PublishedEnv, error)
}
