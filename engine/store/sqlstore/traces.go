package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/toolwright/toolwright/engine/store"
)

// SaveTrace stores t. An empty ID is filled with store.NewTraceID(), a zero Start
// with the current time. Saving an id twice is an error, except over a stub
// (store.TraceRunning), which t replaces.
func (s *DB) SaveTrace(ctx context.Context, t *store.Trace) error {
	if t == nil {
		return errors.New("store: save a nil trace")
	}
	if s.isClosed() {
		return store.ErrClosed
	}
	if t.ID == "" {
		t.ID = store.NewTraceID()
	}
	if t.Start.IsZero() {
		t.Start = s.now()
	}
	steps, err := json.Marshal(t.Steps)
	if err != nil {
		return fmt.Errorf("store: trace %q steps: %w", t.ID, err)
	}
	var artifacts []byte
	if len(t.Artifacts) > 0 {
		if artifacts, err = json.Marshal(t.Artifacts); err != nil {
			return fmt.Errorf("store: trace %q artifacts: %w", t.ID, err)
		}
	}
	var args any
	if len(t.Args) > 0 {
		args = string(t.Args)
	}
	// A stub is written before its call runs: like a claim, it answers
	// store_busy within the lock wait rather than hold the call.
	wait := s.opts.BusyTimeout
	if t.Code == store.TraceRunning {
		wait = s.opts.LockWait
	}
	var res sql.Result
	err = s.locked(ctx, wait, func(ctx context.Context) (err error) {
		res, err = s.q.traceInsert.exec(ctx, nil, t.ID, t.TaskID, t.Tool, args, t.Start.UnixMilli(), t.DurationMS,
			t.Code, t.Message, t.Attempts, t.EnvID, t.Purpose, string(steps), nullBytes(artifacts), t.Error, nullBytes(t.Envelope))
		return err
	})
	if err != nil {
		return s.fail(fmt.Sprintf("save trace %q", t.ID), err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("store: save trace %q: a finished trace with this id exists", t.ID)
	}
	return nil
}

func nullBytes(b []byte) any {
	if b == nil {
		return nil
	}
	return string(b)
}

const traceCols = `id, task_id, tool, args, start_ms, duration_ms, code, message, attempts, env_id, purpose, steps, artifacts, error_text, envelope`

type scanner interface{ Scan(dest ...any) error }

// queryAll runs q on the read pool and scans every row with scan; what names
// the operation in its errors ("store: list traces: ...").
func queryAll[T any](ctx context.Context, s *DB, what string, scan func(scanner) (T, error), q string, args ...any) ([]T, error) {
	rows, err := s.rdb.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: %s: %w", what, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("store: %s: %w", what, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: %s: %w", what, err)
	}
	return out, nil
}

// deref adapts a scan that returns a pointer to one that returns the value.
func deref[T any](scan func(scanner) (*T, error)) func(scanner) (T, error) {
	return func(r scanner) (T, error) {
		p, err := scan(r)
		if err != nil {
			var zero T
			return zero, err
		}
		return *p, nil
	}
}

func scanTrace(r scanner) (*store.Trace, error) {
	var t store.Trace
	var args, steps, artifacts, envelope sql.NullString
	var start int64
	if err := r.Scan(&t.ID, &t.TaskID, &t.Tool, &args, &start, &t.DurationMS, &t.Code, &t.Message,
		&t.Attempts, &t.EnvID, &t.Purpose, &steps, &artifacts, &t.Error, &envelope); err != nil {
		return nil, err
	}
	if envelope.Valid && envelope.String != "" {
		t.Envelope = json.RawMessage(envelope.String)
	}
	t.Start = store.FromMS(start)
	if args.Valid && args.String != "" {
		t.Args = json.RawMessage(args.String)
	}
	if steps.Valid && steps.String != "" {
		if err := json.Unmarshal([]byte(steps.String), &t.Steps); err != nil {
			return nil, fmt.Errorf("trace %q steps: %w", t.ID, err)
		}
	}
	if artifacts.Valid && artifacts.String != "" {
		if err := json.Unmarshal([]byte(artifacts.String), &t.Artifacts); err != nil {
			return nil, fmt.Errorf("trace %q artifacts: %w", t.ID, err)
		}
	}
	return &t, nil
}

// GetTrace returns the trace with id; an unknown id gives an error wrapping
// store.ErrNotFound.
func (s *DB) GetTrace(ctx context.Context, id string) (*store.Trace, error) {
	if s.isClosed() {
		return nil, store.ErrClosed
	}
	t, err := scanTrace(s.rdb.QueryRowContext(ctx, `SELECT `+traceCols+` FROM traces WHERE id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("trace %q: %w", id, store.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: get trace %q: %w", id, err)
	}
	return t, nil
}

// ListTraces returns traces matching f, newest first.
func (s *DB) ListTraces(ctx context.Context, f store.TraceFilter) ([]store.Trace, error) {
	if s.isClosed() {
		return nil, store.ErrClosed
	}
	var w where
	if f.FailedOnly {
		w.addRaw(`code <> 'ok'`)
	}
	if !f.Since.IsZero() {
		w.add(`start_ms >= ?`, f.Since.UnixMilli())
	}
	if f.Tool != "" {
		w.add(`tool = ?`, f.Tool)
	}
	if f.TaskID != "" {
		w.add(`task_id = ?`, f.TaskID)
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	limit = min(limit, 10000)
	q := `SELECT ` + traceCols + ` FROM traces` + w.String() + ` ORDER BY start_ms DESC, id DESC LIMIT ` + w.next(limit)
	return queryAll(ctx, s, "list traces", deref(scanTrace), q, w.args...)
}
