package sqlstore

import (
	"context"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/toolwright/toolwright/engine/store"
)

// SaveSession implements store.Sessions. The sealed bytes are kept as
// base64 text, one portable type on SQLite and PostgreSQL.
func (s *DB) SaveSession(ctx context.Context, ss *store.Session) error {
	if s.isClosed() {
		return store.ErrClosed
	}
	if ss.Purpose == "" || len(ss.Sealed) == 0 {
		return fmt.Errorf("store: save session: a purpose and sealed data are required")
	}
	_, err := s.execW(ctx, `INSERT INTO sessions (purpose, sealed, key_id, saved_ms, expires_ms, saved_by)
		VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (purpose) DO UPDATE SET sealed = excluded.sealed, key_id = excluded.key_id,
			saved_ms = excluded.saved_ms, expires_ms = excluded.expires_ms, saved_by = excluded.saved_by`,
		ss.Purpose, base64.StdEncoding.EncodeToString(ss.Sealed), ss.KeyID, store.MS(ss.Saved), store.MS(ss.Expires), ss.SavedBy)
	if err != nil {
		return fmt.Errorf("store: save session: %w", err)
	}
	return nil
}

// GetSession implements store.Sessions.
func (s *DB) GetSession(ctx context.Context, purpose string) (*store.Session, error) {
	if s.isClosed() {
		return nil, store.ErrClosed
	}
	var ss store.Session
	var sealed string
	var saved, expires int64
	err := s.rdb.QueryRowContext(ctx, `SELECT purpose, sealed, key_id, saved_ms, expires_ms, saved_by FROM sessions
		WHERE purpose = $1 AND expires_ms > $2`, purpose, s.nowMS()).Scan(&ss.Purpose, &sealed, &ss.KeyID, &saved, &expires, &ss.SavedBy)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("session of purpose %q: %w", purpose, store.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: get session: %w", err)
	}
	if ss.Sealed, err = base64.StdEncoding.DecodeString(sealed); err != nil {
		return nil, fmt.Errorf("store: session of purpose %q is not readable: %w", purpose, err)
	}
	ss.Saved, ss.Expires, ss.Bytes = store.FromMS(saved), store.FromMS(expires), len(ss.Sealed)
	return &ss, nil
}

// ListSessions implements store.Sessions.
func (s *DB) ListSessions(ctx context.Context) ([]store.Session, error) {
	if s.isClosed() {
		return nil, store.ErrClosed
	}
	return queryAll(ctx, s, "list sessions", func(r scanner) (store.Session, error) {
		var ss store.Session
		var saved, expires int64
		var n int
		err := r.Scan(&ss.Purpose, &ss.KeyID, &saved, &expires, &ss.SavedBy, &n)
		ss.Saved, ss.Expires, ss.Bytes = store.FromMS(saved), store.FromMS(expires), n*3/4
		return ss, err
	}, `SELECT purpose, key_id, saved_ms, expires_ms, saved_by, LENGTH(sealed) FROM sessions ORDER BY purpose`)
}

// DeleteSessions implements store.Sessions.
func (s *DB) DeleteSessions(ctx context.Context, purpose string) (int64, error) {
	if s.isClosed() {
		return 0, store.ErrClosed
	}
	q, args := `DELETE FROM sessions`, []any{}
	if purpose != "" {
		q, args = q+` WHERE purpose = $1`, append(args, purpose)
	}
	res, err := s.execW(ctx, q, args...)
	if err != nil {
		return 0, fmt.Errorf("store: delete sessions: %w", err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}

// SaveHandoff implements store.Sessions.
func (s *DB) SaveHandoff(ctx context.Context, h *store.Handoff) error {
	if s.isClosed() {
		return store.ErrClosed
	}
	if h.Created.IsZero() {
		h.Created = store.FromMS(s.nowMS())
	}
	_, err := s.execW(ctx, `INSERT INTO handoffs (env_id, purpose, message, endpoint, target_id, trace_id, created_ms, expires_ms, finished_ms, finished_by)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
		ON CONFLICT (env_id) DO UPDATE SET purpose = excluded.purpose, message = excluded.message, endpoint = excluded.endpoint,
			target_id = excluded.target_id, trace_id = excluded.trace_id, created_ms = excluded.created_ms,
			expires_ms = excluded.expires_ms, finished_ms = excluded.finished_ms, finished_by = excluded.finished_by`,
		h.EnvID, h.Purpose, h.Message, h.Endpoint, h.TargetID, h.TraceID, store.MS(h.Created), store.MS(h.Expires), msOrZero(h), h.FinishedBy)
	if err != nil {
		return fmt.Errorf("store: save handoff: %w", err)
	}
	return nil
}

func msOrZero(h *store.Handoff) int64 {
	if h.Finished.IsZero() {
		return 0
	}
	return store.MS(h.Finished)
}

// ListHandoffs implements store.Sessions.
func (s *DB) ListHandoffs(ctx context.Context, openOnly bool) ([]store.Handoff, error) {
	if openOnly {
		return s.handoffs(ctx, ` WHERE finished_ms = 0 AND expires_ms > $1`, s.nowMS())
	}
	return s.handoffs(ctx, "")
}

// UnfinishedHandoffs implements store.Sessions.
func (s *DB) UnfinishedHandoffs(ctx context.Context) ([]store.Handoff, error) {
	return s.handoffs(ctx, ` WHERE finished_ms = 0`)
}

func (s *DB) handoffs(ctx context.Context, where string, args ...any) ([]store.Handoff, error) {
	if s.isClosed() {
		return nil, store.ErrClosed
	}
	q := `SELECT env_id, purpose, message, endpoint, target_id, trace_id, created_ms, expires_ms, finished_ms, finished_by FROM handoffs` +
		where + ` ORDER BY created_ms DESC, env_id`
	return queryAll(ctx, s, "list handoffs", func(r scanner) (store.Handoff, error) {
		var h store.Handoff
		var created, expires, finished int64
		err := r.Scan(&h.EnvID, &h.Purpose, &h.Message, &h.Endpoint, &h.TargetID, &h.TraceID, &created, &expires, &finished, &h.FinishedBy)
		h.Created, h.Expires = store.FromMS(created), store.FromMS(expires)
		if finished != 0 {
			h.Finished = store.FromMS(finished)
		}
		return h, err
	}, q, args...)
}

// FinishHandoff implements store.Sessions.
func (s *DB) FinishHandoff(ctx context.Context, envID, by string) (bool, error) {
	if s.isClosed() {
		return false, store.ErrClosed
	}
	res, err := s.execW(ctx, `UPDATE handoffs SET finished_ms = $1, finished_by = $2 WHERE env_id = $3 AND finished_ms = 0`, s.nowMS(), by, envID)
	if err != nil {
		return false, fmt.Errorf("store: finish handoff: %w", err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}
