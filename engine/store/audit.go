package store

import (
	"bufio"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// AuditRecord is one line of the audit log. Seq, PrevHash and Hash are set by
// AppendAudit; Hash covers every other field and PrevHash, so a record cannot
// be edited, removed or moved without breaking the chain.
type AuditRecord struct {
	Seq      int64     `json:"seq"`
	Time     time.Time `json:"time"`
	TaskID   string    `json:"task_id"`
	Tool     string    `json:"tool"`
	Risk     string    `json:"risk"`
	EnvID    string    `json:"env_id"`
	Purpose  string    `json:"purpose"`
	GrantID  string    `json:"grant_id"`
	Code     string    `json:"code"`
	TraceID  string    `json:"trace_id"`
	PrevHash string    `json:"prev_hash"`
	Hash     string    `json:"hash"`
}

// auditHashVersion names the canonical encoding; change it (and keep the old
// one readable) if the fields ever change.
const auditHashVersion = "toolwright-audit-v1"

// ComputeHash is the hex SHA-256 of the record's canonical encoding: the
// version tag, then Seq, Time (Unix milliseconds) and the string fields in a
// fixed order, each written as "<byte length>:<bytes>," so no two different
// records encode the same, then PrevHash. Hash itself is not covered.
func (r *AuditRecord) ComputeHash() string {
	h := sha256.New()
	var buf []byte
	field := func(v string) {
		buf = strconv.AppendInt(buf[:0], int64(len(v)), 10)
		buf = append(buf, ':')
		buf = append(buf, v...)
		buf = append(buf, ',')
		h.Write(buf)
	}
	field(auditHashVersion)
	field(strconv.FormatInt(r.Seq, 10))
	field(strconv.FormatInt(timeMS(r.Time), 10))
	for _, v := range []string{r.TaskID, r.Tool, r.Risk, r.EnvID, r.Purpose, r.GrantID, r.Code, r.TraceID, r.PrevHash} {
		field(v)
	}
	return hex.EncodeToString(h.Sum(nil))
}

var errHeadMoved = errors.New("audit head moved")

// AppendAudit appends rec to the log and fills in its Seq, Time (now when
// zero; always cut to milliseconds, UTC), PrevHash and Hash. Reading the head,
// inserting the row and moving the head happen in one write transaction, and
// the head moves with a compare-and-set on its seq, so concurrent appends from
// goroutines or processes never fork the chain.
func (s *SQLite) AppendAudit(ctx context.Context, rec *AuditRecord) error {
	if rec == nil {
		return errors.New("store: append a nil audit record")
	}
	if rec.Time.IsZero() {
		rec.Time = s.now()
	}
	rec.Time = msTime(rec.Time.UnixMilli())
	for attempt := 0; ; attempt++ {
		var out AuditRecord
		err := s.writeTx(ctx, func(tx *sql.Tx) error {
			var seq int64
			var hash string
			err := tx.StmtContext(ctx, s.stmts.auditHead).QueryRowContext(ctx).Scan(&seq, &hash)
			first := errors.Is(err, sql.ErrNoRows)
			if err != nil && !first {
				return err
			}
			out = *rec
			out.Seq, out.PrevHash = seq+1, hash
			out.Hash = out.ComputeHash()
			if _, err := tx.StmtContext(ctx, s.stmts.auditInsert).ExecContext(ctx, out.Seq, timeMS(out.Time), out.TaskID, out.Tool,
				out.Risk, out.EnvID, out.Purpose, out.GrantID, out.Code, out.TraceID, out.PrevHash, out.Hash); err != nil {
				return err
			}
			if first {
				_, err = tx.StmtContext(ctx, s.stmts.auditHeadNew).ExecContext(ctx, out.Seq, out.Hash)
				return err
			}
			res, err := tx.StmtContext(ctx, s.stmts.auditHeadSet).ExecContext(ctx, out.Seq, out.Hash, seq)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n != 1 {
				return errHeadMoved
			}
			return nil
		})
		if err == nil {
			*rec = out
			return nil
		}
		// Only a database without a write lock (PostgreSQL under READ
		// COMMITTED) can see the head move; try again there.
		if !errors.Is(err, errHeadMoved) || attempt >= 5 {
			return fmt.Errorf("store: append audit record: %w", err)
		}
	}
}

// AuditHead is the seq and hash of the last record (0 and "" when the log is
// empty). Keeping it somewhere else as well (a ticket, a log line) lets a
// later VerifyAudit prove that nobody rewrote the whole chain.
func (s *SQLite) AuditHead(ctx context.Context) (int64, string, error) {
	if s.isClosed() {
		return 0, "", ErrClosed
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

func scanAudit(r scanner) (AuditRecord, error) {
	var a AuditRecord
	var ms int64
	err := r.Scan(&a.Seq, &ms, &a.TaskID, &a.Tool, &a.Risk, &a.EnvID, &a.Purpose, &a.GrantID, &a.Code, &a.TraceID, &a.PrevHash, &a.Hash)
	a.Time = msTime(ms)
	return a, err
}

// ExportAudit returns the records with since <= Time < until, in chain order.
// A zero since or until leaves that side open.
func (s *SQLite) ExportAudit(ctx context.Context, since, until time.Time) ([]AuditRecord, error) {
	if s.isClosed() {
		return nil, ErrClosed
	}
	var where []string
	var args []any
	if !since.IsZero() {
		where = append(where, `time_ms >= ?`)
		args = append(args, since.UnixMilli())
	}
	if !until.IsZero() {
		where = append(where, `time_ms < ?`)
		args = append(args, until.UnixMilli())
	}
	q := `SELECT ` + auditCols + ` FROM audit`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, ` AND `)
	}
	q += ` ORDER BY seq`
	rows, err := s.rdb.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: export audit: %w", err)
	}
	defer rows.Close()
	var out []AuditRecord
	for rows.Next() {
		a, err := scanAudit(rows)
		if err != nil {
			return nil, fmt.Errorf("store: export audit: %w", err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: export audit: %w", err)
	}
	return out, nil
}

// AuditProblem says where and why the chain is broken.
type AuditProblem struct {
	// Record is the first record that fails. When records were cut from the
	// end of the log, it is a placeholder for the first missing one: Seq is
	// the seq it should have and PrevHash the hash it should follow, Hash is
	// empty.
	Record *AuditRecord
	Reason string
}

func (p *AuditProblem) String() string {
	return fmt.Sprintf("audit chain broken at seq %d: %s", p.Record.Seq, p.Reason)
}

// chainChecker checks records one by one in seq order.
type chainChecker struct {
	started  bool
	prevSeq  int64
	prevHash string
}

func (c *chainChecker) check(r *AuditRecord, fromStart bool) *AuditProblem {
	bad := func(format string, args ...any) *AuditProblem {
		rr := *r
		return &AuditProblem{Record: &rr, Reason: fmt.Sprintf(format, args...)}
	}
	switch {
	case !c.started && (fromStart || r.Seq == 1):
		if r.Seq != 1 {
			return bad("the log starts at seq %d instead of 1", r.Seq)
		}
		if r.PrevHash != "" {
			return bad("the first record has a prev_hash")
		}
	case c.started:
		if r.Seq != c.prevSeq+1 {
			return bad("seq %d follows seq %d", r.Seq, c.prevSeq)
		}
		if r.PrevHash != c.prevHash {
			return bad("prev_hash does not match the hash of seq %d", c.prevSeq)
		}
	}
	if r.ComputeHash() != r.Hash {
		return bad("hash does not match the record's fields")
	}
	c.started, c.prevSeq, c.prevHash = true, r.Seq, r.Hash
	return nil
}

// VerifyAudit checks the whole chain and returns the first bad record, or
// nil when the chain is intact. See CheckAudit for the reason.
func (s *SQLite) VerifyAudit(ctx context.Context) (*AuditRecord, error) {
	p, err := s.CheckAudit(ctx)
	if p == nil || err != nil {
		return nil, err
	}
	return p.Record, nil
}

// CheckAudit checks the whole chain in one consistent snapshot: seqs run
// 1, 2, 3, … without gaps, each record's PrevHash is the previous Hash, each
// Hash matches its record, and the last record is the stored head. An edited,
// deleted, inserted or reordered row makes it return the first bad record
// with a reason; nil means intact. The error is for failures to read.
//
// The chain has no secret key: someone who can write the file can rebuild
// the whole chain. Compare AuditHead with a copy kept elsewhere to rule that
// out.
func (s *SQLite) CheckAudit(ctx context.Context) (*AuditProblem, error) {
	if s.isClosed() {
		return nil, ErrClosed
	}
	tx, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, fmt.Errorf("store: verify audit: %w", err)
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT `+auditCols+` FROM audit ORDER BY seq`)
	if err != nil {
		return nil, fmt.Errorf("store: verify audit: %w", err)
	}
	var c chainChecker
	for rows.Next() {
		a, err := scanAudit(rows)
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("store: verify audit: %w", err)
		}
		if p := c.check(&a, true); p != nil {
			rows.Close()
			return p, nil
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: verify audit: %w", err)
	}
	var headSeq int64
	var headHash string
	err = tx.QueryRowContext(ctx, `SELECT seq, hash FROM audit_head WHERE id = 1`).Scan(&headSeq, &headHash)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		if c.started {
			return &AuditProblem{Record: &AuditRecord{Seq: c.prevSeq + 1, PrevHash: c.prevHash}, Reason: "the audit head is missing"}, nil
		}
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("store: verify audit: %w", err)
	}
	if headSeq != c.prevSeq || headHash != c.prevHash {
		return &AuditProblem{
			Record: &AuditRecord{Seq: c.prevSeq + 1, PrevHash: c.prevHash},
			Reason: fmt.Sprintf("the log ends at seq %d but its head is seq %d: records were removed from the end or the head was changed", c.prevSeq, headSeq),
		}, nil
	}
	return nil, nil
}

// VerifyChain checks exported records (for example a file written by
// WriteAudit and read back with ReadAudit): consecutive seqs, links and
// hashes. A slice that does not start at seq 1 is trusted for its first
// PrevHash. It returns nil when the records are intact.
func VerifyChain(recs []AuditRecord) *AuditProblem {
	var c chainChecker
	for i := range recs {
		if p := c.check(&recs[i], false); p != nil {
			return p
		}
	}
	return nil
}

// Audit export formats.
const (
	FormatJSONL = "jsonl"
	FormatCSV   = "csv"
)

var csvHeader = []string{"seq", "time", "task_id", "tool", "risk", "env_id", "purpose", "grant_id", "code", "trace_id", "prev_hash", "hash"}

const csvTime = "2006-01-02T15:04:05.000Z07:00"

// WriteAudit writes recs as JSON Lines (one object per line) or CSV (with a
// header row; time in RFC 3339 UTC with milliseconds).
func WriteAudit(w io.Writer, recs []AuditRecord, format string) error {
	switch format {
	case FormatJSONL:
		bw := bufio.NewWriter(w)
		enc := json.NewEncoder(bw)
		enc.SetEscapeHTML(false)
		for i := range recs {
			if err := enc.Encode(&recs[i]); err != nil {
				return err
			}
		}
		return bw.Flush()
	case FormatCSV:
		cw := csv.NewWriter(w)
		if err := cw.Write(csvHeader); err != nil {
			return err
		}
		for _, r := range recs {
			if err := cw.Write([]string{strconv.FormatInt(r.Seq, 10), r.Time.UTC().Format(csvTime), r.TaskID, r.Tool, r.Risk,
				r.EnvID, r.Purpose, r.GrantID, r.Code, r.TraceID, r.PrevHash, r.Hash}); err != nil {
				return err
			}
		}
		cw.Flush()
		return cw.Error()
	}
	return fmt.Errorf("unknown audit format %q (expected %q or %q)", format, FormatJSONL, FormatCSV)
}

// ReadAudit reads what WriteAudit wrote.
func ReadAudit(r io.Reader, format string) ([]AuditRecord, error) {
	var out []AuditRecord
	switch format {
	case FormatJSONL:
		dec := json.NewDecoder(r)
		for {
			var a AuditRecord
			err := dec.Decode(&a)
			if err == io.EOF {
				return out, nil
			}
			if err != nil {
				return nil, fmt.Errorf("audit record %d: %w", len(out)+1, err)
			}
			a.Time = a.Time.UTC()
			out = append(out, a)
		}
	case FormatCSV:
		cr := csv.NewReader(r)
		cr.FieldsPerRecord = len(csvHeader)
		head, err := cr.Read()
		if err == io.EOF {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if strings.Join(head, ",") != strings.Join(csvHeader, ",") {
			return nil, fmt.Errorf("unexpected audit csv header %q", strings.Join(head, ","))
		}
		for {
			f, err := cr.Read()
			if err == io.EOF {
				return out, nil
			}
			if err != nil {
				return nil, err
			}
			seq, err := strconv.ParseInt(f[0], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("audit csv line %d: seq %q: %w", len(out)+2, f[0], err)
			}
			t, err := time.Parse(time.RFC3339Nano, f[1])
			if err != nil {
				return nil, fmt.Errorf("audit csv line %d: time %q: %w", len(out)+2, f[1], err)
			}
			out = append(out, AuditRecord{Seq: seq, Time: t.UTC(), TaskID: f[2], Tool: f[3], Risk: f[4], EnvID: f[5],
				Purpose: f[6], GrantID: f[7], Code: f[8], TraceID: f[9], PrevHash: f[10], Hash: f[11]})
		}
	}
	return nil, fmt.Errorf("unknown audit format %q (expected %q or %q)", format, FormatJSONL, FormatCSV)
}
