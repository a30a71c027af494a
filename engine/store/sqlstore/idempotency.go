package sqlstore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/toolwright/toolwright/engine/backoff"
	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/engine/store"
)

// claim is the store.Claim of a DB.
type claim struct {
	stored *result.Envelope

	s                     *DB
	tool, taskID, owner   string
	ttl                   time.Duration
	mu                    sync.Mutex
	finished              bool
	stop                  chan struct{} // stops the heartbeat
	gate                  chan struct{} // closed when finished: wakes in-process waiters
	gateKey               string
	onceStop, onceRelease sync.Once
	interrupted           bool // took over a dead caller's pending lease
}

func (c *claim) Stored() *result.Envelope { return c.stored }
func (c *claim) Interrupted() bool        { return c != nil && c.interrupted }
func (c *claim) Leased() bool             { return c != nil && c.stored == nil && c.s != nil }

// Claim implements store.Idempotency. Waiters with the same arguments in
// this process queue on one channel; across processes they poll the pending
// row with a short jittered backoff. Taking a free key is one INSERT ... ON
// CONFLICT DO NOTHING (its RowsAffected says who won), taking over a stale
// lease or an expired record one conditional UPDATE, so concurrent callers
// on any number of replicas never see a duplicate-key error.
func (s *DB) Claim(ctx context.Context, tool, taskID, argsHash string, ttl time.Duration) (store.Claim, error) {
	if tool == "" || taskID == "" {
		return nil, fmt.Errorf("store: claim needs a tool and a task_id (got %q, %q)", tool, taskID)
	}
	if ttl <= 0 {
		ttl = s.opts.IdempotencyTTL
	}
	s.maybePurge(ctx)
	// Waiters with other arguments get their own gate and the database
	// decides between them (one leases, the other sees a conflict).
	key := tool + "\x00" + taskID + "\x00" + argsHash
	for {
		if s.isClosed() {
			return nil, s.fail("claim", store.ErrClosed)
		}
		s.gateMu.Lock()
		if ch, ok := s.inflight[key]; ok {
			s.gateMu.Unlock()
			select {
			case <-ch:
				continue
			case <-s.closing:
				return nil, store.ErrClosed
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
			if err != nil {
				return nil, s.fail("claim task_id "+fmt.Sprintf("%q", taskID), err)
			}
			return c, nil
		}
		c.gate, c.gateKey = gate, key
		s.startHeartbeat(c)
		return c, nil
	}
}

func (s *DB) leaveGate(key string, gate chan struct{}) {
	s.gateMu.Lock()
	if s.inflight[key] == gate {
		delete(s.inflight, key)
	}
	s.gateMu.Unlock()
	close(gate)
}

// claimDB loops until the database gives a lease, a stored envelope or a
// conflict, polling while another process holds the lease.
func (s *DB) claimDB(ctx context.Context, tool, taskID, argsHash string, ttl time.Duration) (*claim, error) {
	// jittered so several waiters do not poll in step
	pause := backoff.New(2*time.Millisecond, 50*time.Millisecond).Jittered()
	for {
		c, again, err := s.claimOnce(ctx, tool, taskID, argsHash, ttl)
		if err != nil || !again {
			return c, err
		}
		if !pause.Sleep(ctx, s.closing) {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("waiting for task_id %q: %w", taskID, ctx.Err())
			}
			return nil, store.ErrClosed
		}
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
func decide(r *idemRow, taskID, argsHash string, now int64) (c *claim, pending, free bool, err error) {
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
		return &claim{stored: &env}, false, false, nil
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

// claimOnce makes one attempt: read the row; when it is free, take it with
// the insert (no row) or the conditional takeover (an expired or stale row).
// again is true when another caller holds a live lease or won the race for
// the free key; the caller reads again after a pause (a lost race is read
// again at once).
func (s *DB) claimOnce(ctx context.Context, tool, taskID, argsHash string, ttl time.Duration) (*claim, bool, error) {
	for range 3 {
		var r *idemRow
		err := s.locked(ctx, s.opts.LockWait, func(ctx context.Context) (err error) {
			r, err = scanIdem(s.q.idemGet.row(ctx, nil, tool, taskID))
			return err
		})
		if err != nil {
			return nil, false, fmt.Errorf("store: read idempotency record of task_id %q: %w", taskID, err)
		}
		now := s.nowMS()
		c, pending, free, err := decide(r, taskID, argsHash, now)
		if !free {
			return c, pending, err
		}
		owner := newOwner()
		leaseUntil := now + s.opts.LeaseDuration.Milliseconds()
		expires := now + ttl.Milliseconds()
		var res sql.Result
		err = s.locked(ctx, s.opts.LockWait, func(ctx context.Context) (err error) {
			if r == nil {
				res, err = s.q.idemInsert.exec(ctx, nil, tool, taskID, argsHash, owner, leaseUntil, now, expires)
			} else {
				res, err = s.q.idemTakeOver.exec(ctx, nil, tool, taskID, argsHash, owner, leaseUntil, now, expires, now)
			}
			return err
		})
		if err != nil {
			return nil, false, fmt.Errorf("store: claim task_id %q: %w", taskID, err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return nil, false, fmt.Errorf("store: claim task_id %q: %w", taskID, err)
		} else if n == 1 {
			interrupted := r != nil && r.status == "pending" && r.argsHash == argsHash && r.expires > now
			return &claim{s: s, tool: tool, taskID: taskID, owner: owner, ttl: ttl, stop: make(chan struct{}), interrupted: interrupted}, false, nil
		}
		// another caller took the key between the read and the write
	}
	return nil, true, nil
}

func newOwner() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// startHeartbeat renews the lease every LeaseDuration/3 until the claim is
// finished or the store closes, so a long call keeps its task_id while a
// dead process's lease runs out.
func (s *DB) startHeartbeat(c *claim) {
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
				_, _ = s.q.idemRenew.exec(ctx, nil, s.nowMS()+s.opts.LeaseDuration.Milliseconds(), c.tool, c.taskID, c.owner)
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

func (c *claim) Complete(ctx context.Context, env *result.Envelope) error {
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
	var res sql.Result
	err := c.s.locked(ctx, c.s.opts.BusyTimeout, func(ctx context.Context) (err error) {
		res, err = c.s.q.idemComplete.exec(ctx, nil, string(env.JSON()), c.s.nowMS()+c.ttl.Milliseconds(), c.tool, c.taskID, c.owner)
		return err
	})
	if err != nil {
		return c.s.fail(fmt.Sprintf("store envelope of task_id %q", c.taskID), err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("store: task_id %q: %w", c.taskID, store.ErrLeaseLost)
	}
	return nil
}

func (c *claim) Release(ctx context.Context) error {
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
	if err := c.s.locked(ctx, c.s.opts.BusyTimeout, func(ctx context.Context) error {
		_, err := c.s.q.idemRelease.exec(ctx, nil, c.tool, c.taskID, c.owner)
		return err
	}); err != nil {
		return c.s.fail(fmt.Sprintf("release task_id %q", c.taskID), err)
	}
	return nil
}

func (c *claim) Finish(ctx context.Context, env *result.Envelope) error {
	if env != nil && (env.OK || !env.Retryable) {
		return c.Complete(ctx, env)
	}
	return c.Release(ctx)
}

// end stops the heartbeat and opens the in-process gate.
func (c *claim) end() {
	c.onceStop.Do(func() { close(c.stop) })
	c.onceRelease.Do(func() {
		if c.gate != nil {
			c.s.leaveGate(c.gateKey, c.gate)
		}
	})
}
