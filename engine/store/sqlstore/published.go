package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/toolwright/toolwright/engine/store"
)

// PublishEnvs implements store.Published in one transaction: records whose
// owner let them run out go, owner's records not in envs go, and envs are
// written (a record already there keeps its created_ms).
func (s *DB) PublishEnvs(ctx context.Context, owner string, envs []store.PublishedEnv, until time.Time) error {
	if owner == "" {
		return fmt.Errorf("store: publish environments without an owner")
	}
	now := s.nowMS()
	err := s.writeTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM published_envs WHERE alive_until_ms <= $1`, now); err != nil {
			return err
		}
		q := `DELETE FROM published_envs WHERE owner = $1`
		args := []any{owner}
		if len(envs) > 0 {
			marks := make([]string, len(envs))
			for i := range envs {
				marks[i] = "$" + strconv.Itoa(i+2)
				args = append(args, envs[i].ID)
			}
			q += ` AND id NOT IN (` + strings.Join(marks, ", ") + `)`
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			return err
		}
		for _, e := range envs {
			used := now
			if !e.LastUsed.IsZero() {
				used = store.MS(e.LastUsed)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO published_envs (id, owner, process, provider, endpoint, target_id, region, purpose,
				temporary, created_ms, last_used_ms, alive_until_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
				ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, process = excluded.process, provider = excluded.provider,
					endpoint = excluded.endpoint, target_id = excluded.target_id, region = excluded.region, purpose = excluded.purpose,
					temporary = excluded.temporary, last_used_ms = excluded.last_used_ms, alive_until_ms = excluded.alive_until_ms`,
				e.ID, owner, e.Process, e.Provider, e.Endpoint, e.TargetID, e.Region, e.Purpose, b2i(e.Temporary), now, used, store.MS(until)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: publish the environments of %s: %w", owner, err)
	}
	return nil
}

// PublishedEnvs implements store.Published.
func (s *DB) PublishedEnvs(ctx context.Context) ([]store.PublishedEnv, error) {
	if s.isClosed() {
		return nil, store.ErrClosed
	}
	return queryAll(ctx, s, "published environments", func(r scanner) (store.PublishedEnv, error) {
		var e store.PublishedEnv
		var temp int
		var created, used, until int64
		err := r.Scan(&e.ID, &e.Owner, &e.Process, &e.Provider, &e.Endpoint, &e.TargetID, &e.Region, &e.Purpose, &temp, &created, &used, &until)
		e.Temporary = temp != 0
		e.Created, e.LastUsed, e.AliveUntil = store.FromMS(created), store.FromMS(used), store.FromMS(until)
		return e, err
	}, `SELECT id, owner, process, provider, endpoint, target_id, region, purpose, temporary, created_ms, last_used_ms, alive_until_ms
		FROM published_envs WHERE alive_until_ms > $1 ORDER BY created_ms, id`, s.nowMS())
}
