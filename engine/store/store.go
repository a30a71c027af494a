// Package store is the seam to toolwright's state: idempotency records,
// traces, the hash-chained audit log and grants.
//
// The engine, app and cmd talk to the Store interface (and the Claim it
// returns) only. The implementations live beside it: package sqlstore runs
// the same schema and the same SQL on SQLite (one file in state_dir, the
// default) and on PostgreSQL (store.url, for several replicas), with the few
// differences in one dialect file. Package storetest is the contract suite
// every implementation passes. No call state lives only in one process's
// memory: a second process or replica sees every pending idempotency lease,
// grant and audit head through the database.
//
// Times are stored as integer Unix milliseconds (UTC); values read back have
// millisecond precision.
package store

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/toolwright/toolwright/engine/result"
)

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

// ErrNoDatabase is returned by a read-only open of a database that is not
// there (SQLite: no file in the state directory): there is nothing to read,
// and a read-only open never makes one.
var ErrNoDatabase = errors.New("no database")

// ErrNoSchema is returned by a read-only open of a database that holds no
// toolwright schema (an empty file, a wiped or fresh database): there is no
// audit chain to read.
var ErrNoSchema = errors.New("the database holds no toolwright schema")

// Idempotency stores final envelopes by (tool, task_id).
type Idempotency interface {
	// Claim is the idempotency check of a call with a task_id. It returns:
	//
	//   - a Claim whose Stored() is set when (tool, taskID) finished before
	//     with the same argsHash and its record has not expired: return that
	//     envelope and never run again;
	//   - an *errs.Error with code task_id_conflict when the stored or
	//     pending record has another argsHash;
	//   - a leased Claim otherwise: run the call, then Complete or Release.
	//
	// A repeat that arrives while another caller (in this process or any
	// other) holds the lease waits for it to finish and then gets the stored
	// envelope, or takes the lease itself when the first caller released it.
	// Waiting ends with ctx (the error is ctx's, which errs.As maps to
	// deadline_exceeded or cancelled). A lease whose holder died expires
	// after the store's lease duration and is taken over; an expired stale
	// lease is treated as no record at all, so the new caller's arguments
	// win. Concurrent callers never see a database error for a key another
	// caller inserted first.
	//
	// ttl is how long a stored envelope answers repeats (0: the store's
	// default, 24h); expired records are ignored and purged.
	Claim(ctx context.Context, tool, taskID, argsHash string, ttl time.Duration) (Claim, error)
}

// Claim is the answer to Idempotency.Claim. Exactly one of these holds:
//
//   - Stored() != nil: an earlier call with the same arguments finished;
//     return it as it is and do not run the tool.
//   - Leased() is true: this caller owns the (tool, task_id) and must run
//     the tool, then call exactly one of Complete (store the envelope) or
//     Release (store nothing). Calling Release after Complete is a no-op, so
//     `defer c.Release(ctx)` right after Claim is a safe guard.
type Claim interface {
	// Stored is the envelope a previous call stored, or nil.
	Stored() *result.Envelope
	// Leased reports whether the caller holds the lease and must run the tool.
	Leased() bool
	// Complete stores env as the final envelope of the task_id and wakes
	// every waiter, which then returns it. Store only envelopes a repeat
	// must get unchanged: successes and failures that are not retryable;
	// for a retryable failure call Release, or use Finish, which picks. It
	// runs even when ctx is already cancelled, and returns an error
	// wrapping ErrLeaseLost when the lease expired and another caller took
	// the task_id over.
	Complete(ctx context.Context, env *result.Envelope) error
	// Release gives the task_id up without storing anything: the next claim
	// runs the call again. Release after Complete or Release is a no-op.
	Release(ctx context.Context) error
	// Finish is Complete for an envelope a repeat must get unchanged (ok,
	// or a failure that is not retryable) and Release otherwise.
	Finish(ctx context.Context, env *result.Envelope) error
	// Interrupted reports, for a leased claim, that the lease was taken
	// over from an earlier caller with the same arguments that stopped
	// mid-call (its process died: the lease ran out unrenewed) instead of
	// finishing or releasing: whatever that call did may have happened.
	Interrupted() bool
}

// Traces keeps one Trace per call.
type Traces interface {
	// SaveTrace stores t. An empty ID is filled with NewTraceID(), a zero
	// Start with the current time. Saving an id twice is an error, except
	// over a stub (a trace whose Code is TraceRunning), which the new
	// trace replaces.
	SaveTrace(ctx context.Context, t *Trace) error
	// GetTrace returns the trace with id; an unknown id gives an error
	// wrapping ErrNotFound.
	GetTrace(ctx context.Context, id string) (*Trace, error)
	// ListTraces returns traces matching f, newest first.
	ListTraces(ctx context.Context, f TraceFilter) ([]Trace, error)
}

// Audit is the append-only, hash-chained audit log.
type Audit interface {
	// AppendAudit appends rec and fills in its Seq, Time (now when zero;
	// always cut to milliseconds, UTC), PrevHash and Hash. Concurrent
	// appends from goroutines, processes or replicas never fork or lose a
	// record: there is one chain.
	AppendAudit(ctx context.Context, rec *AuditRecord) error
	// ExportAudit returns the records with since <= Time < until, in chain
	// order. A zero since or until leaves that side open.
	ExportAudit(ctx context.Context, since, until time.Time) ([]AuditRecord, error)
	// VerifyAudit is CheckAudit's first bad record (nil: intact).
	VerifyAudit(ctx context.Context) (firstBad *AuditRecord, err error)
	// CheckAudit checks the whole chain in one consistent snapshot; nil
	// means intact. The error is for failures to read. With the store's
	// audit key, keyed records are checked by their HMAC (ChainChecker).
	CheckAudit(ctx context.Context) (*AuditProblem, error)
	// CheckAuditAnchor is CheckAudit that also requires the record at
	// anchor.Seq to exist with anchor.Hash (`audit verify --head`).
	CheckAuditAnchor(ctx context.Context, anchor AuditAnchor) (*AuditProblem, error)
	// AuditHead is the seq and hash of the last record (0 and "" when the
	// log is empty).
	AuditHead(ctx context.Context) (seq int64, hash string, err error)
	// RotateAuditKey moves the chain from the store's audit key to newKey:
	// it checks the chain with the current key and appends a rotation
	// record (RotationTool) sealed by both keys. Records after it must be
	// keyed by newKey; the ones before still verify with the old key, and
	// with newKey alone through the rotation's digest.
	RotateAuditKey(ctx context.Context, newKey []byte) (*AuditRecord, error)
}

// Grants are operator permissions for one write tool and one task_id.
type Grants interface {
	// AddGrant lets tool run for taskID during ttl (more than 0, at most
	// MaxGrantTTL). reason is required; by names the operator (may be empty).
	AddGrant(ctx context.Context, tool, taskID string, ttl time.Duration, reason, by string) (*Grant, error)
	// ListGrants returns live grants, newest first; with includeInactive
	// also expired and revoked ones.
	ListGrants(ctx context.Context, includeInactive bool) ([]Grant, error)
	// Revoke ends the grant with id at once. Revoking a revoked grant is
	// not an error; an unknown id gives an error wrapping ErrNotFound.
	Revoke(ctx context.Context, id string) error
	// LiveGrant returns the grant that lets tool run for taskID at now (the
	// one that lasts longest when several do), or nil, nil. It reads the
	// database every time, so grants made by another process count at once.
	LiveGrant(ctx context.Context, tool, taskID string, now time.Time) (*Grant, error)
	// LiveGrantID is LiveGrant's id ("" when there is none); it makes a
	// Store a policy.GrantSource.
	LiveGrantID(ctx context.Context, tool, taskID string, now time.Time) (string, error)
}

// Store is all of toolwright's persistent state.
type Store interface {
	Idempotency
	Traces
	Audit
	Grants
	Environments
	Published
	Sessions
	Fingerprints
	// Stats counts what the store holds.
	Stats(ctx context.Context) (Stats, error)
	// Purge deletes traces that started before olderThan, and idempotency
	// records that expired or whose lease went stale (a zero olderThan
	// keeps all traces). The audit log and grants are never purged.
	Purge(ctx context.Context, olderThan time.Time) (Purged, error)
	// Ready checks that the store can record a call now: it is still the
	// database that was opened (not deleted or replaced under a running
	// server) and it takes writes, within the store's lock wait (1.5 s by
	// default). The error is an *errs.Error coded store_unavailable or
	// store_busy. The engine asks before every call runs, so a call the
	// store cannot record does not run; /readyz asks on every probe.
	Ready(ctx context.Context) error
	io.Closer
}

// Stats counts what the store holds.
type Stats struct {
	Traces             int64 `json:"traces"`
	FailedTraces       int64 `json:"failed_traces"`
	IdempotencyRecords int64 `json:"idempotency_records"` // stored envelopes, expired or not
	PendingLeases      int64 `json:"pending_leases"`
	AuditRecords       int64 `json:"audit_records"`
	Grants             int64 `json:"grants"`
	LiveGrants         int64 `json:"live_grants"`
}

// Purged counts what Purge deleted.
type Purged struct {
	Traces             int64 `json:"traces"`
	IdempotencyRecords int64 `json:"idempotency_records"`
}
