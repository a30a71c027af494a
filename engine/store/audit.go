package store

import (
	"bufio"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
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

// MS is t in Unix milliseconds, 0 for the zero time: how the store keeps
// times.
func MS(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// FromMS turns stored milliseconds back into a UTC time (zero stays zero).
func FromMS(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

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
	field(strconv.FormatInt(MS(r.Time), 10))
	for _, v := range []string{r.TaskID, r.Tool, r.Risk, r.EnvID, r.Purpose, r.GrantID, r.Code, r.TraceID, r.PrevHash} {
		field(v)
	}
	return hex.EncodeToString(h.Sum(nil))
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

// ChainChecker checks records one by one in seq order; implementations of
// Audit use it for CheckAudit, and VerifyChain for exported records.
type ChainChecker struct {
	started  bool
	prevSeq  int64
	prevHash string
}

// Last is the seq and hash of the last record checked (0, "" before any).
func (c *ChainChecker) Last() (int64, string) { return c.prevSeq, c.prevHash }

// Check checks the next record. With fromStart the first record must be seq
// 1; otherwise a slice that does not start at seq 1 is trusted for its first
// PrevHash.
func (c *ChainChecker) Check(r *AuditRecord, fromStart bool) *AuditProblem {
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

// VerifyChain checks exported records (for example a file written by
// WriteAudit and read back with ReadAudit): consecutive seqs, links and
// hashes. A slice that does not start at seq 1 is trusted for its first
// PrevHash. It returns nil when the records are intact.
func VerifyChain(recs []AuditRecord) *AuditProblem {
	var c ChainChecker
	for i := range recs {
		if p := c.Check(&recs[i], false); p != nil {
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
