package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/toolwright/toolwright/engine/store"
)

// SaveFingerprint implements store.Fingerprints: one upsert that keeps
// changed_ms when the hash is the stored one.
func (s *DB) SaveFingerprint(ctx context.Context, fp *store.Fingerprint) error {
	if s.isClosed() {
		return store.ErrClosed
	}
	if fp.Target == "" || len(fp.Data) == 0 || fp.Hash == "" {
		return fmt.Errorf("store: save fingerprint: a target, data and a hash are required")
	}
	if len(fp.Data) > store.MaxFingerprint {
		return fmt.Errorf("store: save fingerprint of %s: %d bytes, above the bound of %d", fp.Target, len(fp.Data), store.MaxFingerprint)
	}
	seen := s.nowMS()
	if !fp.Seen.IsZero() {
		seen = store.MS(fp.Seen)
	}
	_, err := s.execW(ctx, `INSERT INTO fingerprints (target, data, hash, page, seen_ms, changed_ms)
		VALUES ($1, $2, $3, $4, $5, $5)
		ON CONFLICT (target) DO UPDATE SET data = excluded.data, page = excluded.page, seen_ms = excluded.seen_ms,
			changed_ms = CASE WHEN fingerprints.hash = excluded.hash THEN fingerprints.changed_ms ELSE excluded.changed_ms END,
			hash = excluded.hash`,
		fp.Target, string(fp.Data), fp.Hash, fp.Page, seen)
	if err != nil {
		return fmt.Errorf("store: save fingerprint of %s: %w", fp.Target, err)
	}
	return nil
}

// GetFingerprint implements store.Fingerprints.
func (s *DB) GetFingerprint(ctx context.Context, target string) (*store.Fingerprint, error) {
	if s.isClosed() {
		return nil, store.ErrClosed
	}
	fp := store.Fingerprint{Target: target}
	var data string
	var seen, changed int64
	err := s.rdb.QueryRowContext(ctx, `SELECT data, hash, page, seen_ms, changed_ms FROM fingerprints WHERE target = $1`, target).
		Scan(&data, &fp.Hash, &fp.Page, &seen, &changed)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("fingerprint of %s: %w", target, store.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: get fingerprint of %s: %w", target, err)
	}
	fp.Data, fp.Seen, fp.Changed = []byte(data), store.FromMS(seen), store.FromMS(changed)
	return &fp, nil
}
