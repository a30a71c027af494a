package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/store"
)

// AppendAudit implements store.Audit. The head row (seeded by the
// migration) is read with a row lock (SELECT ... FOR UPDATE on PostgreSQL;
// on SQLite the write transaction already holds the file's one write lock),
// so appends from every goroutine, process and replica queue on it and the
// chain never forks or loses a record. The head then moves with a
// compare-and-set on its seq as a second guard.
func (s *DB) AppendAudit(ctx context.Context, rec *store.AuditRecord) error {
	if rec == nil {
		return errors.New("store: append a nil audit record")
	}
	if rec.Time.IsZero() {
		rec.Time = s.now()
	}
	rec.Time = store.FromMS(rec.Time.UnixMilli())
	// A deleted file would take the record and lose it with the file.
	if err := s.sameFile(); err != nil {
		return err
	}
	var out store.AuditRecord
	err := s.writeTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		var seq int64
		var hash string
		if err := s.q.auditHead.row(ctx, tx).Scan(&seq, &hash); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return errors.New("the audit head row is missing (the database was edited)")
			}
			return err
		}
		if len(s.opts.AuditKey) == 0 && strings.HasPrefix(hash, store.KeyedPrefix) {
			// a plain record after keyed ones would break the chain for good
			return errs.New(errs.StoreUnavailable, "the audit chain is keyed by audit.key, which this server lacks, so the call is not recorded; an operator must set audit.key")
		}
		if id := (&store.AuditRecord{Hash: hash}).KeyID(); id != "" && len(s.opts.AuditKey) > 0 && id != store.KeyID(s.opts.AuditKey) {
			// a record under another key would break the chain for good
			return errs.New(errs.StoreUnavailable, "the audit chain is under another audit.key (key %s; this server has key %s): it was rotated (toolwright audit rotate-key) or another server has another key, so the call is not recorded; an operator must give this server the chain's key", id, store.KeyID(s.opts.AuditKey))
		}
		out = *rec
		out.Seq, out.PrevHash = seq+1, hash
		out.Seal(s.opts.AuditKey)
		return s.insertAudit(ctx, tx, &out, seq, "append")
	})
	if err != nil {
		return s.fail("append audit record", err)
	}
	*rec = out
	return nil
}

// rotateWait bounds a key rotation's transaction, which reads the whole
// chain while it holds the audit head (calls recorded meanwhile wait, or
// answer store_busy).
const rotateWait = 2 * time.Minute

// RotateAuditKey implements store.Audit. Under the head row's lock it
// checks the whole chain with the store's key (and the digests of earlier
// rotations), then appends the rotation record: sealed by the store's key
// and by newKey, carrying the digest of every record before it.
func (s *DB) RotateAuditKey(ctx context.Context, newKey []byte) (*store.AuditRecord, error) {
	old := s.opts.AuditKey
	switch {
	case len(old) == 0:
		return nil, errors.New("no audit.key to rotate from: the chain is a plain hash chain; set audit.key (records are keyed from the next call)")
	case len(newKey) == 0:
		return nil, errors.New("the new audit key is empty")
	case store.KeyID(newKey) == store.KeyID(old):
		return nil, errors.New("the new audit key is the current audit.key")
	}
	if err := s.sameFile(); err != nil {
		return nil, err
	}
	var out store.AuditRecord
	err := s.writeTxWait(ctx, max(s.opts.BusyTimeout, rotateWait), func(ctx context.Context, tx *sql.Tx) error {
		var seq int64
		var hash string
		if err := s.q.auditHead.row(ctx, tx).Scan(&seq, &hash); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return errors.New("the audit head row is missing (the database was edited)")
			}
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT `+auditCols+` FROM audit ORDER BY seq`)
		if err != nil {
			return err
		}
		c := store.ChainChecker{Key: old}
		var p *store.AuditProblem
		for rows.Next() && p == nil {
			a, err := scanAudit(rows)
			if err != nil {
				rows.Close()
				return err
			}
			p = c.Check(&a, true)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if p == nil {
			p = c.Finish()
		}
		if last, lastHash := c.Last(); p == nil && (last != seq || lastHash != hash) {
			p = &store.AuditProblem{Record: &store.AuditRecord{Seq: last + 1, PrevHash: lastHash}, Reason: fmt.Sprintf("the log ends at seq %d but its head is seq %d", last, seq)}
		}
		switch {
		case p != nil:
			return fmt.Errorf("the audit chain does not verify under audit.key, so it is not rotated: %s", p)
		case seq == 0:
			return errors.New("the audit chain has no records yet: there is nothing to rotate; set audit.key to the new key instead")
		}
		out = store.NewRotation(seq+1, store.FromMS(s.now().UnixMilli()), hash, c.Digest(), old, newKey)
		return s.insertAudit(ctx, tx, &out, seq, "rotation")
	})
	if err != nil {
		return nil, fmt.Errorf("store: rotate the audit key: %w", err)
	}
	return &out, nil
}

// AuditHead implements store.Audit.
func (s *DB) AuditHead(ctx context.Context) (int64, string, error) {
	if s.isClosed() {
		return 0, "", store.ErrClosed
	}
	var seq int64
	var hash string
	err := s.rdb.QueryRowContext(ctx, `SELECT seq, hash FROM audit_head WHERE id = 1`).Scan(&seq, &hash)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, "", nil
	}
	if err != nil {
		return 0, "", fmt.Errorf("store: read audit head: %w", err)
	}
	return seq, hash, nil
}

const auditCols = `seq, time_ms, task_id, tool, risk, env_id, purpose, grant_id, code, trace_id, prev_hash, hash`

func scanAudit(r scanner) (store.AuditRecord, error) {
	var a store.AuditRecord
	var ms int64
	err := r.Scan(&a.Seq, &ms, &a.TaskID, &a.Tool, &a.Risk, &a.EnvID, &a.Purpose, &a.GrantID, &a.Code, &a.TraceID, &a.PrevHash, &a.Hash)
	a.Time = store.FromMS(ms)
	return a, err
}

// where builds a WHERE clause with $n placeholders from conditions that
// each hold one "?".
type where struct {
	conds []string
	args  []any
}

func (w *where) add(cond string, arg any) {
	w.args = append(w.args, arg)
	w.conds = append(w.conds, strings.Replace(cond, "?", fmt.Sprintf("$%d", len(w.args)), 1))
}

func (w *where) addRaw(cond string) { w.conds = append(w.conds, cond) }

// next is the placeholder of one more argument.
func (w *where) next(arg any) string {
	w.args = append(w.args, arg)
	return fmt.Sprintf("$%d", len(w.args))
}

func (w *where) String() string {
	if len(w.conds) == 0 {
		return ""
	}
	return ` WHERE ` + strings.Join(w.conds, ` AND `)
}

// ExportAudit implements store.Audit.
func (s *DB) ExportAudit(ctx context.Context, since, until time.Time) ([]store.AuditRecord, error) {
	if s.isClosed() {
		return nil, store.ErrClosed
	}
	var w where
	if !since.IsZero() {
		w.add(`time_ms >= ?`, since.UnixMilli())
	}
	if !until.IsZero() {
		w.add(`time_ms < ?`, until.UnixMilli())
	}
	return queryAll(ctx, s, "export audit", scanAudit, `SELECT `+auditCols+` FROM audit`+w.String()+` ORDER BY seq`, w.args...)
}

// VerifyAudit implements store.Audit.
func (s *DB) VerifyAudit(ctx context.Context) (*store.AuditRecord, error) {
	p, err := s.CheckAudit(ctx)
	if p == nil || err != nil {
		return nil, err
	}
	return p.Record, nil
}

// CheckAudit implements store.Audit: seqs run 1, 2, 3, … without gaps, each
// record's PrevHash is the previous Hash, each Hash matches its record, and
// the last record is the stored head. An edited, deleted, inserted or
// reordered row makes it return the first bad record with a reason.
//
// Without an audit key the chain is a plain hash chain: someone who can
// write the database can rebuild it whole. Keep AuditHead somewhere else and
// check against it (CheckAuditAnchor) to rule that out, or set audit.key.
func (s *DB) CheckAudit(ctx context.Context) (*store.AuditProblem, error) {
	return s.checkAudit(ctx, nil)
}

// CheckAuditAnchor implements store.Audit.
func (s *DB) CheckAuditAnchor(ctx context.Context, anchor store.AuditAnchor) (*store.AuditProblem, error) {
	return s.checkAudit(ctx, &anchor)
}

func (s *DB) checkAudit(ctx context.Context, anchor *store.AuditAnchor) (*store.AuditProblem, error) {
	if s.isClosed() {
		return nil, store.ErrClosed
	}
	tx, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true, Isolation: s.d.snapshot})
	if err != nil {
		return nil, fmt.Errorf("store: verify audit: %w", err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT `+auditCols+` FROM audit ORDER BY seq`)
	if err != nil {
		return nil, fmt.Errorf("store: verify audit: %w", err)
	}
	c := store.ChainChecker{Key: s.opts.AuditKey, OldKeys: s.opts.OldAuditKeys, Anchor: anchor}
	for rows.Next() {
		a, err := scanAudit(rows)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("store: verify audit: %w", err)
		}
		if p := c.Check(&a, true); p != nil {
			rows.Close()
			return p, nil
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: verify audit: %w", err)
	}
	lastSeq, lastHash := c.Last()
	var headSeq int64
	var headHash string
	err = tx.QueryRowContext(ctx, `SELECT seq, hash FROM audit_head WHERE id = 1`).Scan(&headSeq, &headHash)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return &store.AuditProblem{Record: &store.AuditRecord{Seq: lastSeq + 1, PrevHash: lastHash}, Reason: "the audit head is missing"}, nil
	case err != nil:
		return nil, fmt.Errorf("store: verify audit: %w", err)
	}
	if headSeq != lastSeq || headHash != lastHash {
		return &store.AuditProblem{
			Record: &store.AuditRecord{Seq: lastSeq + 1, PrevHash: lastHash},
			Reason: fmt.Sprintf("the log ends at seq %d but its head is seq %d: records were removed from the end or the head was changed", lastSeq, headSeq),
		}, nil
	}
	return c.Finish(), nil
}

// insertAudit appends out after the head at seq and moves the head to it,
// in tx; what names the operation when the head moved meanwhile.
func (s *DB) insertAudit(ctx context.Context, tx *sql.Tx, out *store.AuditRecord, seq int64, what string) error {
	if _, err := s.q.auditInsert.exec(ctx, tx, out.Seq, store.MS(out.Time), out.TaskID, out.Tool,
		out.Risk, out.EnvID, out.Purpose, out.GrantID, out.Code, out.TraceID, out.PrevHash, out.Hash); err != nil {
		return err
	}
	res, err := s.q.auditHeadSet.exec(ctx, tx, out.Seq, out.Hash, seq)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return errors.New("the audit head moved during the " + what)
	}
	return nil
}
