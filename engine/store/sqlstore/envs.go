package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/store"
)

const envCols = `id, provider, endpoint, context_id, target_id, session, region, purpose, temporary,
	lease_owner, lease_until_ms, last_used_ms, created_ms, closed, closed_why`

func scanEnv(r scanner) (*store.EnvRecord, error) {
	var e store.EnvRecord
	var temp, closed int
	var until, used, created int64
	if err := r.Scan(&e.ID, &e.Provider, &e.Endpoint, &e.ContextID, &e.TargetID, &e.Session, &e.Region, &e.Purpose, &temp,
		&e.LeaseOwner, &until, &used, &created, &closed, &e.ClosedWhy); err != nil {
		return nil, err
	}
	e.Temporary, e.Closed = temp != 0, closed != 0
	e.LeaseUntil, e.LastUsed, e.Created = store.FromMS(until), store.FromMS(used), store.FromMS(created)
	return &e, nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// lostTemporary is the closed_why of a temporary environment closed because
// its lease ran out.
const lostTemporary = "lost: the replica running its call stopped renewing its lease (it died mid-call)"

// ReserveEnv implements store.Environments: the env_pool row is locked
// (FOR UPDATE on PostgreSQL; SQLite's write transaction serialises), the
// open environments counted, and the row inserted in one transaction.
func (s *DB) ReserveEnv(ctx context.Context, rec *store.EnvRecord, lim store.EnvLimits, owner string, leaseUntil time.Time) error {
	if rec == nil || rec.ID == "" {
		return errors.New("store: reserve an environment without an id")
	}
	now := s.nowMS()
	err := s.writeTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var one int
		if err := tx.QueryRowContext(ctx, `SELECT id FROM env_pool WHERE id = 1`+s.d.lockRow).Scan(&one); err != nil {
			return err
		}
		// A temporary environment is leased for its whole life (its call
		// renews the lease); one whose lease ran out lost its call with its
		// replica, and its browser context died with that connection.
		if _, err := tx.ExecContext(ctx, `UPDATE environments SET closed = 1, closed_ms = $1, closed_why = $2, lease_owner = '', lease_until_ms = 0
			WHERE closed = 0 AND temporary = 1 AND lease_until_ms <= $1`, now, lostTemporary); err != nil {
			return err
		}
		var total, kept int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*),
			COALESCE(SUM(CASE WHEN purpose = $1 AND temporary = 0 THEN 1 ELSE 0 END), 0)
			FROM environments WHERE closed = 0 AND (temporary = 0 OR lease_until_ms > $2)`, rec.Purpose, now).Scan(&total, &kept); err != nil {
			return err
		}
		if lim.Max > 0 && total >= lim.Max {
			return errs.New(errs.EnvUnavailable, "environment pool is full (%d open, browser.max_environments)", total)
		}
		if !rec.Temporary && lim.MaxPerKept > 0 && kept >= lim.MaxPerKept {
			return errs.New(errs.EnvUnavailable, "purpose %q already holds %d environments (browser.max_per_purpose)", rec.Purpose, kept)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO environments (id, provider, endpoint, context_id, target_id, session, region, purpose,
			temporary, lease_owner, lease_until_ms, last_used_ms, created_ms)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12)`,
			rec.ID, rec.Provider, rec.Endpoint, rec.ContextID, rec.TargetID, rec.Session, rec.Region, rec.Purpose,
			b2i(rec.Temporary), owner, store.MS(leaseUntil), now)
		return err
	})
	if err != nil {
		if e := (*errs.Error)(nil); errors.As(err, &e) {
			return err
		}
		return fmt.Errorf("store: reserve environment %q: %w", rec.ID, err)
	}
	rec.LeaseOwner, rec.LeaseUntil = owner, leaseUntil
	rec.LastUsed, rec.Created = store.FromMS(now), store.FromMS(now)
	return nil
}

// SetEnvLocation implements store.Environments.
func (s *DB) SetEnvLocation(ctx context.Context, id, endpoint, contextID, targetID, session string) error {
	return s.envExec(ctx, "locate", id, `UPDATE environments SET endpoint = $2, context_id = $3, target_id = $4, session = $5 WHERE id = $1`,
		id, endpoint, contextID, targetID, session)
}

// AdoptEnv implements store.Environments.
func (s *DB) AdoptEnv(ctx context.Context, id, purpose string, temporary bool) error {
	return s.envExec(ctx, "adopt", id, `UPDATE environments SET purpose = $2, temporary = $3, last_used_ms = $4 WHERE id = $1`,
		id, purpose, b2i(temporary), s.nowMS())
}

func (s *DB) envExec(ctx context.Context, what, id, q string, args ...any) error {
	if s.isClosed() {
		return store.ErrClosed
	}
	if _, err := s.execW(ctx, q, args...); err != nil {
		return fmt.Errorf("store: %s environment %q: %w", what, id, err)
	}
	return nil
}

// GetEnv implements store.Environments.
func (s *DB) GetEnv(ctx context.Context, id string) (*store.EnvRecord, error) {
	if s.isClosed() {
		return nil, store.ErrClosed
	}
	e, err := scanEnv(s.rdb.QueryRowContext(ctx, `SELECT `+envCols+` FROM environments WHERE id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("environment %q: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: get environment %q: %w", id, err)
	}
	return e, nil
}

// LeaseEnv implements store.Environments with one conditional UPDATE.
func (s *DB) LeaseEnv(ctx context.Context, id, owner string, until time.Time) (bool, error) {
	if s.isClosed() {
		return false, store.ErrClosed
	}
	now := s.nowMS()
	res, err := s.execW(ctx, `UPDATE environments SET lease_owner = $2, lease_until_ms = $3, last_used_ms = $4
		WHERE id = $1 AND closed = 0 AND (lease_owner = '' OR lease_owner = $2 OR lease_until_ms <= $4)`,
		id, owner, store.MS(until), now)
	if err != nil {
		return false, fmt.Errorf("store: lease environment %q: %w", id, err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// ReleaseEnv implements store.Environments.
func (s *DB) ReleaseEnv(ctx context.Context, id, owner string) error {
	return s.envExec(ctx, "release", id, `UPDATE environments SET lease_owner = '', lease_until_ms = 0, last_used_ms = $3
		WHERE id = $1 AND lease_owner = $2`, id, owner, s.nowMS())
}

// CloseEnv implements store.Environments.
func (s *DB) CloseEnv(ctx context.Context, id, why string) error {
	return s.envExec(ctx, "close", id, `UPDATE environments SET closed = 1, closed_ms = $3, closed_why = $2, lease_owner = '', lease_until_ms = 0
		WHERE id = $1 AND closed = 0`, id, why, s.nowMS())
}

// CloseEnvsAt implements store.Environments.
func (s *DB) CloseEnvsAt(ctx context.Context, endpoint, why string) (int64, error) {
	if s.isClosed() {
		return 0, store.ErrClosed
	}
	res, err := s.execW(ctx, `UPDATE environments SET closed = 1, closed_ms = $3, closed_why = $2, lease_owner = '', lease_until_ms = 0
		WHERE endpoint = $1 AND closed = 0`, endpoint, why, s.nowMS())
	if err != nil {
		return 0, fmt.Errorf("store: close the environments at %s: %w", endpoint, err)
	}
	return res.RowsAffected()
}

// CountEnvs implements store.Environments.
func (s *DB) CountEnvs(ctx context.Context) (store.EnvCounts, error) {
	c := store.EnvCounts{ByPurpose: map[string]int{}}
	if s.isClosed() {
		return c, store.ErrClosed
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT purpose, temporary, COUNT(*) FROM environments
		WHERE closed = 0 AND (temporary = 0 OR lease_until_ms > $1) GROUP BY purpose, temporary`, s.nowMS())
	if err != nil {
		return c, fmt.Errorf("store: count environments: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var purpose string
		var temp, n int
		if err := rows.Scan(&purpose, &temp, &n); err != nil {
			return c, fmt.Errorf("store: count environments: %w", err)
		}
		c.Total += n
		if temp == 0 {
			c.ByPurpose[purpose] += n
		}
	}
	return c, rows.Err()
}

// IdleEnvs implements store.Environments.
func (s *DB) IdleEnvs(ctx context.Context, region, purpose string, usedBefore time.Time) ([]store.EnvRecord, error) {
	if s.isClosed() {
		return nil, store.ErrClosed
	}
	var w where
	w.addRaw(`closed = 0`)
	w.addRaw(`temporary = 0`)
	w.addRaw(`endpoint <> ''`)
	w.add(`(lease_owner = '' OR lease_until_ms <= ?)`, s.nowMS())
	if region != "" {
		w.add(`region = ?`, region)
	}
	if purpose != "" {
		w.add(`purpose = ?`, purpose)
	}
	if !usedBefore.IsZero() {
		w.add(`last_used_ms < ?`, store.MS(usedBefore))
	}
	return queryAll(ctx, s, "idle environments", deref(scanEnv), `SELECT `+envCols+` FROM environments`+w.String()+` ORDER BY last_used_ms DESC, id`, w.args...)
}

// FindEnvByContext implements store.Environments.
func (s *DB) FindEnvByContext(ctx context.Context, contextID string) (*store.EnvRecord, error) {
	if s.isClosed() {
		return nil, store.ErrClosed
	}
	e, err := scanEnv(s.rdb.QueryRowContext(ctx, `SELECT `+envCols+` FROM environments WHERE context_id = $1 AND closed = 0`, contextID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: find environment of context %q: %w", contextID, err)
	}
	return e, nil
}
