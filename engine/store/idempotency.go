package store

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"sync"
	"time"

	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/result"
)

// Claim is the answer to (*SQLite).Claim. Exactly one of these holds:
//
//   - Stored != nil: an earlier call with the same arguments finished; return
//     Stored as it is and do not run the tool.
//   - Leased() is true: this caller owns the (tool, task_id) and must run the
//     tool, then call exactly one of Complete (store the envelope) or Release
//     (store nothing). Calling Release after Complete is a no-op, so
//     `defer c.Release(ctx)` right after Claim is a safe guard.
type Claim struct {
	// Stored is the envelope a previous call stored, or nil.
	Stored *result.Envelope

	s                     *SQLite
	tool, taskID, owner   string
	ttl                   time.Duration
	mu                    sync.Mutex
	finished              bool
	stop                  chan struct{} // stops the heartbeat
	gate                  chan struct{} // closed when finished: wakes in-process waiters
	gateKey               string
	onceStop, onceRelease sync.Once
}

// Leased reports whether the caller holds the lease and must run the tool.
func (c *Claim) Leased() bool { return c != nil && c.Stored == nil && c.s != nil }

// ArgsHash is the hash Claim compares: SHA-256 (hex) of args encoded as
// canonical JSON (object keys sorted, numbers kept exactly as written). Pass
// the arguments after defaults are applied and without task_id, so the same
// request always hashes the same.
func ArgsHash(args any) (string, error) {
	b, err := json.Marshal(args)
	if err != nil {
		return "", fmt.Errorf("hash arguments: %w", err)
	}
	return ArgsHashJSON(b)
}

// ArgsHashJSON is ArgsHash for arguments already encoded as JSON.
func ArgsHashJSON(raw []byte) (string, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return "", fmt.Errorf("hash arguments: %w", err)
	}
	b, err := json.Marshal(v) // map keys come out sorted
	if err != nil {
		return "", fmt.Errorf("hash arguments: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// Claim is the idempotency check of a call with a task_id. It returns:
//
//   - a *Claim with Stored set when (tool, taskID) finished before with the
//     same argsHash and its record has not expired: return that envelope and
//     never run again;
//   - an *errs.Error with code task_id_conflict when the stored or pending
//     record has another argsHash;
//   - a leased *Claim otherwise: run the call, then Complete or Release.
//
// A repeat that arrives while another caller holds the lease waits for it to
// finish (in this process on a per-key channel, across processes by polling
// the pending row with a short backoff) and then gets the stored envelope, or
// takes the lease itself when the first caller released it. Waiting ends with
// ctx (the error is ctx's, which errs.As maps to deadline_exceeded or
// cancelled). A lease whose holder died expires after Options.LeaseDuration
// and is taken over; an expired stale lease is treated as no record at all,
// so the new caller's arguments win.
//
// ttl is how long a stored envelope answers repeats (0: Options.IdempotencyTTL,
// 24h by default); expired records are ignored and purged.
func (s *SQLite) Claim(ctx context.Context, tool, taskID, argsHash string, ttl time.Duration) (*Claim, error) {
	if tool == "" || taskID == "" {
		return nil, fmt.Errorf("store: claim needs a tool and a task_id (got %q, %q)", tool, taskID)
	}
	if ttl <= 0 {
		ttl = s.opts.IdempotencyTTL
	}
	s.maybePurge(ctx)
	// Waiters with the same arguments queue on one in-process gate; other
	// arguments get their own gate and the database decides between them
	// (one leases, the other sees a conflict), so a stored record always
	// answers correctly.
	key := tool + "\x00" + taskID + "\x00" + argsHash
	for {
		if s.isClosed() {
			return nil, ErrClosed
		}
		s.gateMu.Lock()
		if ch, ok := s.inflight[key]; ok {
			s.gateMu.Unlock()
			select {
			case <-ch:
				continue
			case <-s.closing:
				return nil, ErrClosed
			case <-ctx.Done():
				return nil, fmt.Errorf("waiting for task_id %q: %w", taskID, ctx.Err())
			}
		}
		gate := make(chan struct{})
		s.inflight[key] = gate
		s.gateMu.Unlock()

		c, err := s.claimDB(ctx, tool, taskID, argsHash, ttl)
		if err != nil || !c.Leased() {
			s.leaveGate(key, gate)
			return c, err
		}
		c.gate, c.gateKey = gate, key
		s.startHeartbeat(c)
		return c, nil
	}
}

func (s *SQLite) leaveGate(key string, gate chan struct{}) {
	s.gateMu.Lock()
	if s.inflight[key] == gate {
		delete(s.inflight, key)
	}
	s.gateMu.Unlock()
	close(gate)
}

// claimDB loops until the database gives a lease, a stored envelope or a
// conflict, polling while another process holds the lease.
func (s *SQLite) claimDB(ctx context.Context, tool, taskID, argsHash string, ttl time.Duration) (*Claim, error) {
	backoff := 2 * time.Millisecond
	for {
		c, pending, err := s.claimOnce(ctx, tool, taskID, argsHash, ttl)
		if err != nil || !pending {
			return c, err
		}
		// jittered so several waiters do not poll in step
		d := backoff/2 + mrand.N(backoff/2+1)
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("waiting for task_id %q: %w", taskID, ctx.Err())
		case <-s.closing:
			t.Stop()
			return nil, ErrClosed
		}
		backoff = min(backoff*2, 50*time.Millisecond)
	}
}

type idemRow struct {
	argsHash, status, owner string
	leaseUntil, expires     int64
	envelope                sql.NullString
}

func scanIdem(row *sql.Row) (*idemRow, error) {
	var r idemRow
	err := row.Scan(&r.argsHash, &r.status, &r.owner, &r.leaseUntil, &r.envelope, &r.expires)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &r, nil
}

// decide says what a row means now: a stored envelope, a conflict, a live
// lease of someone else (pending) or nothing usable (free).
func (s *SQLite) decide(r *idemRow, taskID, argsHash string, now int64) (c *Claim, pending, free bool, err error) {
	if r == nil {
		return nil, false, true, nil
	}
	switch {
	case r.status == "done" && r.expires > now:
		if r.argsHash != argsHash {
			return nil, false, false, conflict(taskID)
		}
		var env result.Envelope
		if err := json.Unmarshal([]byte(r.envelope.String), &env); err != nil {
			return nil, false, false, fmt.Errorf("store: stored envelope of task_id %q: %w", taskID, err)
		}
		return &Claim{Stored: &env}, false, false, nil
	case r.status == "pending" && r.leaseUntil > now:
		if r.argsHash != argsHash {
			return nil, false, false, conflict(taskID)
		}
		return nil, true, false, nil
	}
	return nil, false, true, nil // expired record or stale lease
}

func conflict(taskID string) error {
	return errs.New(errs.TaskIDConflict, "task_id %q was used before with other arguments", taskID)
}

// claimOnce makes one attempt. A cheap read on the read pool answers stored
// envelopes, conflicts and live leases; only when the key looks free does it
// take the write lock and check again inside the transaction.
func (s *SQLite) claimOnce(ctx context.Context, tool, taskID, argsHash string, ttl time.Duration) (*Claim, bool, error) {
	r, err := scanIdem(s.stmts.idemGetR.QueryRowContext(ctx, tool, taskID))
	if err != nil {
		return nil, false, fmt.Errorf("store: read idempotency record: %w", err)
	}
	if c, pending, free, err := s.decide(r, taskID, argsHash, s.nowMS()); !free {
		return c, pending, err
	}

	var out *Claim
	var pending bool
	err = s.writeTx(ctx, func(tx *sql.Tx) error {
		now := s.nowMS()
		r, err := scanIdem(tx.StmtContext(ctx, s.stmts.idemGetW).QueryRowContext(ctx, tool, taskID))
		if err != nil {
			return err
		}
		c, p, free, err := s.decide(r, taskID, argsHash, now)
		if !free {
			out, pending = c, p
			return err
		}
		owner := newOwner()
		leaseUntil := now + s.opts.LeaseDuration.Milliseconds()
		expires := now + ttl.Milliseconds()
		if r == nil {
			_, err = tx.StmtContext(ctx, s.stmts.idemInsert).ExecContext(ctx, tool, taskID, argsHash, owner, leaseUntil, now, expires)
		} else {
			_, err = tx.StmtContext(ctx, s.stmts.idemTakeOver).ExecContext(ctx, argsHash, owner, leaseUntil, now, expires, tool, taskID)
		}
		if err != nil {
			return err
		}
		out = &Claim{s: s, tool: tool, taskID: taskID, owner: owner, ttl: ttl, stop: make(chan struct{})}
		return nil
	})
	if err != nil {
		if e := (*errs.Error)(nil); errors.As(err, &e) {
			return nil, false, err
		}
		return nil, false, fmt.Errorf("store: claim task_id %q: %w", taskID, err)
	}
	return out, pending, nil
}

func newOwner() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// startHeartbeat renews the lease every LeaseDuration/3 until the claim is
// finished or the store closes, so a long call keeps its task_id while a
// dead process's lease runs out.
func (s *SQLite) startHeartbeat(c *Claim) {
	every := s.opts.LeaseDuration / 3
	s.bg.Add(1)
	go func() {
		defer s.bg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-c.stop:
				return
			case <-s.closing:
				return
			case <-t.C:
				ctx, cancel := context.WithTimeout(context.Background(), every)
				_, _ = s.stmts.idemRenew.ExecContext(ctx, s.nowMS()+s.opts.LeaseDuration.Milliseconds(), c.tool, c.taskID, c.owner)
				cancel()
			}
		}
	}()
}

// finishCtx detaches the caller's cancellation (a cancelled call must still
// store or release its record) but bounds the write.
func finishCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
}

// Complete stores env as the final envelope of the task_id for the claim's
// ttl and wakes every waiter, which then returns it. Store only envelopes
// that a repeat must get unchanged: successes and failures that are not
// retryable (DESIGN.md); for a retryable failure call Release instead, or
// use Finish, which picks. Complete runs even when ctx is already cancelled.
// It returns an error wrapping ErrLeaseLost when the lease expired and
// another caller took the task_id over.
func (c *Claim) Complete(ctx context.Context, env *result.Envelope) error {
	if !c.Leased() {
		return errors.New("store: complete on a claim that holds no lease")
	}
	if env == nil {
		return errors.New("store: complete with a nil envelope")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.finished {
		return errors.New("store: claim already completed or released")
	}
	c.finished = true
	defer c.end()
	ctx, cancel := finishCtx(ctx)
	defer cancel()
	res, err := c.s.stmts.idemComplete.ExecContext(ctx, string(env.JSON()), c.s.nowMS()+c.ttl.Milliseconds(), c.tool, c.taskID, c.owner)
	if err != nil {
		return fmt.Errorf("store: store envelope of task_id %q: %w", c.taskID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("store: task_id %q: %w", c.taskID, ErrLeaseLost)
	}
	return nil
}

// Release gives the task_id up without storing anything (a retryable
// failure): the next claim runs the call again, and one waiter takes the
// lease. Release after Complete or Release is a no-op. It runs even when ctx
// is already cancelled.
func (c *Claim) Release(ctx context.Context) error {
	if !c.Leased() {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.finished {
		return nil
	}
	c.finished = true
	defer c.end()
	ctx, cancel := finishCtx(ctx)
	defer cancel()
	if _, err := c.s.stmts.idemRelease.ExecContext(ctx, c.tool, c.taskID, c.owner); err != nil {
		return fmt.Errorf("store: release task_id %q: %w", c.taskID, err)
	}
	return nil
}

// Finish stores env when a repeat must get it unchanged (ok, or a failure
// that is not retryable) and releases the task_id otherwise.
func (c *Claim) Finish(ctx context.Context, env *result.Envelope) error {
	if env != nil && (env.OK || !env.Retryable) {
		return c.Complete(ctx, env)
	}
	return c.Release(ctx)
}

// end stops the heartbeat and opens the in-process gate.
func (c *Claim) end() {
	c.onceStop.Do(func() { close(c.stop) })
	c.onceRelease.Do(func() {
		if c.gate != nil {
			c.s.leaveGate(c.gateKey, c.gate)
		}
	})
}
