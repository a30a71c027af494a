// Package store keeps toolwright's state: idempotency records, traces, the
// hash-chained audit log and grants.
//
// The engine talks to the Store interface only. The one implementation today
// is SQLite (pure Go, modernc.org/sqlite) in one file, <state_dir>/toolwright.db,
// opened in WAL mode so a running `toolwright serve` and a CLI command such as
// `toolwright grant` can use the same file at the same time. The SQL is kept
// portable (no SQLite-only syntax beyond the PRAGMAs set at open, `?`
// placeholders that a PostgreSQL driver would rebind to `$n`) so a PostgreSQL
// implementation can take its place when several replicas share state. No call
// state lives only in one process's memory: a second process or replica sees
// every pending idempotency lease, grant and audit head through the database.
//
// Times are stored as integer Unix milliseconds (UTC); values read back have
// millisecond precision.
package store

import (
	"context"
	"errors"
	"io"
	"time"
)

// FileName is the database file inside the state directory.
const FileName = "toolwright.db"

// DefaultIdempotencyTTL is how long a stored envelope answers repeats of its
// (tool, task_id) when Claim is given no ttl.
const DefaultIdempotencyTTL = 24 * time.Hour

// MaxGrantTTL is the longest a grant may live.
const MaxGrantTTL = 24 * time.Hour

// ErrNotFound is wrapped by errors for an unknown trace or grant id.
var ErrNotFound = errors.New("not found")

// ErrLeaseLost is wrapped by Claim.Complete when the lease expired and another
// caller took the task_id over, so the envelope was not stored.
var ErrLeaseLost = errors.New("idempotency lease lost")

// ErrClosed is returned by calls on a closed store.
var ErrClosed = errors.New("store is closed")

// Idempotency stores final envelopes by (tool, task_id).
type Idempotency interface {
	// Claim is the one entry point of a call that has a task_id; see
	// (*SQLite).Claim for the full contract.
	Claim(ctx context.Context, tool, taskID, argsHash string, ttl time.Duration) (*Claim, error)
}

// Traces keeps one Trace per call.
type Traces interface {
	SaveTrace(ctx context.Context, t *Trace) error
	GetTrace(ctx context.Context, id string) (*Trace, error)
	ListTraces(ctx context.Context, f TraceFilter) ([]Trace, error)
}

// Audit is the append-only, hash-chained audit log.
type Audit interface {
	AppendAudit(ctx context.Context, rec *AuditRecord) error
	ExportAudit(ctx context.Context, since, until time.Time) ([]AuditRecord, error)
	VerifyAudit(ctx context.Context) (firstBad *AuditRecord, err error)
	CheckAudit(ctx context.Context) (*AuditProblem, error)
	AuditHead(ctx context.Context) (seq int64, hash string, err error)
}

// Grants are operator permissions for one write tool and one task_id.
type Grants interface {
	AddGrant(ctx context.Context, tool, taskID string, ttl time.Duration, reason, by string) (*Grant, error)
	ListGrants(ctx context.Context, includeInactive bool) ([]Grant, error)
	Revoke(ctx context.Context, id string) error
	LiveGrant(ctx context.Context, tool, taskID string, now time.Time) (*Grant, error)
	LiveGrantID(ctx context.Context, tool, taskID string, now time.Time) (string, error)
}

// Store is all of toolwright's persistent state.
type Store interface {
	Idempotency
	Traces
	Audit
	Grants
	Stats(ctx context.Context) (Stats, error)
	Purge(ctx context.Context, olderThan time.Time) (Purged, error)
	io.Closer
}

var _ Store = (*SQLite)(nil)
