package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Grant lets one write or destructive tool run for one task_id until it
// expires or is revoked. Grants are made by operators through the CLI, never
// by a tool.
type Grant struct {
	ID      string    `json:"id"`
	Tool    string    `json:"tool"`
	TaskID  string    `json:"task_id"`
	Reason  string    `json:"reason"`
	By      string    `json:"by,omitempty"`
	Created time.Time `json:"created"`
	Expires time.Time `json:"expires"`
	Revoked bool      `json:"revoked"`
}

// Live reports whether g allows calls at now.
func (g *Grant) Live(now time.Time) bool { return !g.Revoked && now.Before(g.Expires) }

const grantCols = `id, tool, task_id, reason, granted_by, created_ms, expires_ms, revoked`

func scanGrant(r scanner) (*Grant, error) {
	var g Grant
	var created, expires int64
	var revoked int
	if err := r.Scan(&g.ID, &g.Tool, &g.TaskID, &g.Reason, &g.By, &created, &expires, &revoked); err != nil {
		return nil, err
	}
	g.Created, g.Expires, g.Revoked = msTime(created), msTime(expires), revoked != 0
	return &g, nil
}

// AddGrant lets tool run for taskID during ttl (more than 0, at most 24h).
// reason is required; by names the operator (may be empty).
func (s *SQLite) AddGrant(ctx context.Context, tool, taskID string, ttl time.Duration, reason, by string) (*Grant, error) {
	tool, taskID, reason = strings.TrimSpace(tool), strings.TrimSpace(taskID), strings.TrimSpace(reason)
	switch {
	case tool == "":
		return nil, errors.New("a grant needs a tool")
	case taskID == "":
		return nil, errors.New("a grant needs a task_id")
	case reason == "":
		return nil, errors.New("a grant needs a reason")
	case ttl <= 0:
		return nil, fmt.Errorf("grant ttl must be more than 0, got %s", ttl)
	case ttl > MaxGrantTTL:
		return nil, fmt.Errorf("grant ttl must be at most %s, got %s", MaxGrantTTL, ttl)
	}
	if s.isClosed() {
		return nil, ErrClosed
	}
	now := msTime(s.nowMS())
	g := &Grant{ID: NewGrantID(), Tool: tool, TaskID: taskID, Reason: reason, By: strings.TrimSpace(by),
		Created: now, Expires: now.Add(ttl)}
	_, err := s.wdb.ExecContext(ctx, `INSERT INTO grants (id, tool, task_id, reason, granted_by, created_ms, expires_ms, revoked)
		VALUES (?, ?, ?, ?, ?, ?, ?, 0)`, g.ID, g.Tool, g.TaskID, g.Reason, g.By, timeMS(g.Created), timeMS(g.Expires))
	if err != nil {
		return nil, fmt.Errorf("store: add grant: %w", err)
	}
	return g, nil
}

// ListGrants returns live grants, newest first; with includeInactive also
// expired and revoked ones.
func (s *SQLite) ListGrants(ctx context.Context, includeInactive bool) ([]Grant, error) {
	if s.isClosed() {
		return nil, ErrClosed
	}
	q := `SELECT ` + grantCols + ` FROM grants`
	var args []any
	if !includeInactive {
		q += ` WHERE revoked = 0 AND expires_ms > ?`
		args = append(args, s.nowMS())
	}
	q += ` ORDER BY created_ms DESC, id DESC`
	rows, err := s.rdb.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list grants: %w", err)
	}
	defer rows.Close()
	var out []Grant
	for rows.Next() {
		g, err := scanGrant(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list grants: %w", err)
		}
		out = append(out, *g)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list grants: %w", err)
	}
	return out, nil
}

// Revoke ends the grant with id at once. Revoking a revoked grant is not an
// error; an unknown id gives an error wrapping ErrNotFound.
func (s *SQLite) Revoke(ctx context.Context, id string) error {
	if s.isClosed() {
		return ErrClosed
	}
	res, err := s.wdb.ExecContext(ctx, `UPDATE grants SET revoked = 1, revoked_ms = ? WHERE id = ? AND revoked = 0`, s.nowMS(), id)
	if err != nil {
		return fmt.Errorf("store: revoke grant %q: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n > 0 {
		return nil
	}
	var one int
	err = s.wdb.QueryRowContext(ctx, `SELECT 1 FROM grants WHERE id = ?`, id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("grant %q: %w", id, ErrNotFound)
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
func (s *SQLite) LiveGrant(ctx context.Context, tool, taskID string, now time.Time) (*Grant, error) {
	if s.isClosed() {
		return nil, ErrClosed
	}
	g, err := scanGrant(s.stmts.grantLive.QueryRowContext(ctx, tool, taskID, now.UnixMilli()))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: look up grant for %q, task_id %q: %w", tool, taskID, err)
	}
	return g, nil
}

// LiveGrantID is LiveGrant's id ("" when there is none); it makes the store a
// policy.GrantSource.
func (s *SQLite) LiveGrantID(ctx context.Context, tool, taskID string, now time.Time) (string, error) {
	g, err := s.LiveGrant(ctx, tool, taskID, now)
	if g == nil || err != nil {
		return "", err
	}
	return g.ID, nil
}
