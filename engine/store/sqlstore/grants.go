package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/toolwright/toolwright/engine/store"
)

const grantCols = `id, tool, task_id, reason, granted_by, created_ms, expires_ms, revoked`

func scanGrant(r scanner) (*store.Grant, error) {
	var g store.Grant
	var created, expires int64
	var revoked int
	if err := r.Scan(&g.ID, &g.Tool, &g.TaskID, &g.Reason, &g.By, &created, &expires, &revoked); err != nil {
		return nil, err
	}
	g.Created, g.Expires, g.Revoked = store.FromMS(created), store.FromMS(expires), revoked != 0
	return &g, nil
}

// AddGrant implements store.Grants.
func (s *DB) AddGrant(ctx context.Context, tool, taskID string, ttl time.Duration, reason, by string) (*store.Grant, error) {
	// The task_id is taken as it is: "T-1\n" is not "T-1", and no call can
	// carry it, so it is refused rather than trimmed into another id.
	tool, reason = strings.TrimSpace(tool), strings.TrimSpace(reason)
	if err := store.CheckGrant(tool, taskID, ttl, reason); err != nil {
		return nil, err
	}
	if s.isClosed() {
		return nil, store.ErrClosed
	}
	now := store.FromMS(s.nowMS())
	g := &store.Grant{ID: store.NewGrantID(), Tool: tool, TaskID: taskID, Reason: reason, By: strings.TrimSpace(by),
		Created: now, Expires: now.Add(ttl)}
	_, err := s.execW(ctx, `INSERT INTO grants (id, tool, task_id, reason, granted_by, created_ms, expires_ms, revoked)
		VALUES ($1, $2, $3, $4, $5, $6, $7, 0)`, g.ID, g.Tool, g.TaskID, g.Reason, g.By, store.MS(g.Created), store.MS(g.Expires))
	if err != nil {
		return nil, fmt.Errorf("store: add grant: %w", err)
	}
	return g, nil
}

// ListGrants returns live grants, newest first; with includeInactive also
// expired and revoked ones.
func (s *DB) ListGrants(ctx context.Context, includeInactive bool) ([]store.Grant, error) {
	if s.isClosed() {
		return nil, store.ErrClosed
	}
	q := `SELECT ` + grantCols + ` FROM grants`
	var args []any
	if !includeInactive {
		q += ` WHERE revoked = 0 AND expires_ms > $1`
		args = append(args, s.nowMS())
	}
	q += ` ORDER BY created_ms DESC, id DESC`
	return queryAll(ctx, s, "list grants", deref(scanGrant), q, args...)
}

// Revoke ends the grant with id at once. Revoking a revoked grant is not an
// error; an unknown id gives an error wrapping store.ErrNotFound.
func (s *DB) Revoke(ctx context.Context, id string) error {
	if s.isClosed() {
		return store.ErrClosed
	}
	res, err := s.execW(ctx, `UPDATE grants SET revoked = 1, revoked_ms = $1 WHERE id = $2 AND revoked = 0`, s.nowMS(), id)
	if err != nil {
		return fmt.Errorf("store: revoke grant %q: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n > 0 {
		return nil
	}
	var one int
	err = s.wdb.QueryRowContext(ctx, `SELECT 1 FROM grants WHERE id = $1`, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("grant %q: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("store: revoke grant %q: %w", id, err)
	}
	return nil
}

// LiveGrant returns the grant that lets tool run for taskID at now (the one
// that lasts longest when several do), or nil, nil when there is none. It
// reads the database every time, so grants made by another process count at
// once.
func (s *DB) LiveGrant(ctx context.Context, tool, taskID string, now time.Time) (*store.Grant, error) {
	if s.isClosed() {
		return nil, store.ErrClosed
	}
	// The grant is read before a write runs: a lock held by another
	// session answers store_busy within the lock wait.
	var g *store.Grant
	err := s.locked(ctx, s.opts.LockWait, func(ctx context.Context) (err error) {
		g, err = scanGrant(s.q.grantLive.row(ctx, nil, tool, taskID, now.UnixMilli()))
		if errors.Is(err, sql.ErrNoRows) {
			g, err = nil, nil
		}
		return err
	})
	if err != nil {
		return nil, s.fail(fmt.Sprintf("look up grant for %q, task_id %q", tool, taskID), err)
	}
	return g, nil
}

// LiveGrantID is LiveGrant's id ("" when there is none); it makes the store a
// policy.GrantSource.
func (s *DB) LiveGrantID(ctx context.Context, tool, taskID string, now time.Time) (string, error) {
	g, err := s.LiveGrant(ctx, tool, taskID, now)
	if g == nil || err != nil {
		return "", err
	}
	return g.ID, nil
}
