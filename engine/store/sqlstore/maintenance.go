package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/toolwright/toolwright/engine/store"
)

// Stats counts rows.
func (s *DB) Stats(ctx context.Context) (store.Stats, error) {
	var st store.Stats
	if s.isClosed() {
		return st, store.ErrClosed
	}
	now := s.nowMS()
	qs := []struct {
		dst  *int64
		q    string
		args []any
	}{
		{&st.Traces, `SELECT COUNT(*) FROM traces`, nil},
		{&st.FailedTraces, `SELECT COUNT(*) FROM traces WHERE code <> 'ok'`, nil},
		{&st.IdempotencyRecords, `SELECT COUNT(*) FROM idempotency WHERE status = 'done'`, nil},
		{&st.PendingLeases, `SELECT COUNT(*) FROM idempotency WHERE status = 'pending' AND lease_until_ms > $1`, []any{now}},
		{&st.AuditRecords, `SELECT COUNT(*) FROM audit`, nil},
		{&st.Grants, `SELECT COUNT(*) FROM grants`, nil},
		{&st.LiveGrants, `SELECT COUNT(*) FROM grants WHERE revoked = 0 AND expires_ms > $1`, []any{now}},
	}
	for _, q := range qs {
		if err := s.rdb.QueryRowContext(ctx, q.q, q.args...).Scan(q.dst); err != nil {
			return st, fmt.Errorf("store: stats: %w", err)
		}
	}
	return st, nil
}

// Purge deletes traces that started before olderThan, and idempotency records
// that expired or whose lease went stale (a zero olderThan keeps all traces).
// The audit log and grants are never purged.
func (s *DB) Purge(ctx context.Context, olderThan time.Time) (store.Purged, error) {
	var p store.Purged
	err := s.writeTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if !olderThan.IsZero() {
			res, err := tx.ExecContext(ctx, `DELETE FROM traces WHERE start_ms < $1`, olderThan.UnixMilli())
			if err != nil {
				return err
			}
			p.Traces, _ = res.RowsAffected()
		}
		n, err := purgeIdempotency(ctx, tx, s.nowMS())
		p.IdempotencyRecords = n
		return err
	})
	if err != nil {
		return store.Purged{}, fmt.Errorf("store: purge: %w", err)
	}
	return p, nil
}

func purgeIdempotency(ctx context.Context, tx *sql.Tx, now int64) (int64, error) {
	res, err := tx.ExecContext(ctx, `DELETE FROM idempotency
		WHERE (status = 'done' AND expires_ms <= $1) OR (status = 'pending' AND lease_until_ms <= $1)`, now)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// purgeEvery is how often Claim deletes expired idempotency records.
const purgeEvery = time.Hour

// maybePurge deletes expired idempotency records at most once per purgeEvery
// per process; Claim already ignores them, this only keeps the table small.
func (s *DB) maybePurge(ctx context.Context) {
	now := s.now()
	s.purgeMu.Lock()
	due := now.Sub(s.lastPurge) >= purgeEvery
	if due {
		s.lastPurge = now
	}
	s.purgeMu.Unlock()
	if !due {
		return
	}
	pctx := context.WithoutCancel(ctx)
	_ = s.writeTxWait(pctx, s.opts.LockWait, func(ctx context.Context, tx *sql.Tx) error {
		_, err := purgeIdempotency(ctx, tx, now.UnixMilli())
		return err
	})
}
