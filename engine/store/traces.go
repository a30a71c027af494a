package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Trace is the record of one call. Every string in it must already be
// redacted by the caller; the store writes what it is given.
type Trace struct {
	ID         string          `json:"id"`
	TaskID     string          `json:"task_id,omitempty"`
	Tool       string          `json:"tool"`
	Args       json.RawMessage `json:"args,omitempty"`
	Start      time.Time       `json:"start"`
	DurationMS int64           `json:"duration_ms"`
	Code       string          `json:"code"`
	Message    string          `json:"message,omitempty"`
	Attempts   int             `json:"attempts"`
	EnvID      string          `json:"env_id,omitempty"`
	Purpose    string          `json:"purpose,omitempty"`
	Steps      []StepRecord    `json:"steps"`
	Artifacts  []string        `json:"artifacts,omitempty"`
	// Error is the raw cause of a failure, for people reading traces.
	Error string `json:"error,omitempty"`
}

// StepRecord is one executed step of a trace.
type StepRecord struct {
	Index int `json:"index"`
	// Path locates nested steps: "3" is the fourth top-level step, "3.1"
	// the second step inside it.
	Path       string `json:"path"`
	Kind       string `json:"kind"`
	Name       string `json:"name,omitempty"`
	Target     string `json:"target,omitempty"`
	Strategy   string `json:"strategy,omitempty"`
	DurationMS int64  `json:"duration_ms"`
	Code       string `json:"code"`
	Attempt    int    `json:"attempt"`
	Error      string `json:"error,omitempty"`
	// Dialog notes the JavaScript dialogs answered while the step ran:
	// type, message and the answer.
	Dialog string `json:"dialog,omitempty"`
}

// Failed reports whether the call did not end ok.
func (t *Trace) Failed() bool { return t.Code != "ok" }

// TraceFilter selects traces for ListTraces.
type TraceFilter struct {
	FailedOnly bool      // only calls whose code is not "ok"
	Since      time.Time // only calls that started at or after Since (zero: all)
	Tool       string    // only this tool (empty: all)
	TaskID     string    // only this task_id (empty: all)
	Limit      int       // at most this many (0: 100; capped at 10000)
}

// SaveTrace stores t. An empty ID is filled with NewTraceID(), a zero Start
// with the current time. Saving an id twice is an error.
func (s *SQLite) SaveTrace(ctx context.Context, t *Trace) error {
	if t == nil {
		return errors.New("store: save a nil trace")
	}
	if s.isClosed() {
		return ErrClosed
	}
	if t.ID == "" {
		t.ID = NewTraceID()
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
	_, err = s.stmts.traceInsert.ExecContext(ctx, t.ID, t.TaskID, t.Tool, args, t.Start.UnixMilli(), t.DurationMS,
		t.Code, t.Message, t.Attempts, t.EnvID, t.Purpose, string(steps), nullBytes(artifacts), t.Error)
	if err != nil {
		return fmt.Errorf("store: save trace %q: %w", t.ID, err)
	}
	return nil
}

func nullBytes(b []byte) any {
	if b == nil {
		return nil
	}
	return string(b)
}

const traceCols = `id, task_id, tool, args, start_ms, duration_ms, code, message, attempts, env_id, purpose, steps, artifacts, error_text`

type scanner interface{ Scan(dest ...any) error }

func scanTrace(r scanner) (*Trace, error) {
	var t Trace
	var args, steps, artifacts sql.NullString
	var start int64
	if err := r.Scan(&t.ID, &t.TaskID, &t.Tool, &args, &start, &t.DurationMS, &t.Code, &t.Message,
		&t.Attempts, &t.EnvID, &t.Purpose, &steps, &artifacts, &t.Error); err != nil {
		return nil, err
	}
	t.Start = msTime(start)
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
// ErrNotFound.
func (s *SQLite) GetTrace(ctx context.Context, id string) (*Trace, error) {
	if s.isClosed() {
		return nil, ErrClosed
	}
	t, err := scanTrace(s.rdb.QueryRowContext(ctx, `SELECT `+traceCols+` FROM traces WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("trace %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("store: get trace %q: %w", id, err)
	}
	return t, nil
}

// ListTraces returns traces matching f, newest first.
func (s *SQLite) ListTraces(ctx context.Context, f TraceFilter) ([]Trace, error) {
	if s.isClosed() {
		return nil, ErrClosed
	}
	var where []string
	var args []any
	if f.FailedOnly {
		where = append(where, `code <> 'ok'`)
	}
	if !f.Since.IsZero() {
		where = append(where, `start_ms >= ?`)
		args = append(args, f.Since.UnixMilli())
	}
	if f.Tool != "" {
		where = append(where, `tool = ?`)
		args = append(args, f.Tool)
	}
	if f.TaskID != "" {
		where = append(where, `task_id = ?`)
		args = append(args, f.TaskID)
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	limit = min(limit, 10000)
	q := `SELECT ` + traceCols + ` FROM traces`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, ` AND `)
	}
	q += ` ORDER BY start_ms DESC, id DESC LIMIT ?`
	args = append(args, limit)
	rows, err := s.rdb.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list traces: %w", err)
	}
	defer rows.Close()
	var out []Trace
	for rows.Next() {
		t, err := scanTrace(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list traces: %w", err)
		}
		out = append(out, *t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: list traces: %w", err)
	}
	return out, nil
}
