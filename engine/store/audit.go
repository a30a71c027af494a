package store

import (
	"bufio"
	"crypto/hmac"
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
//
// Hash is either a plain SHA-256 (64 hex digits: anyone can recompute it, so
// someone who can write the database can rewrite the whole chain) or, when
// the store has audit.key, an HMAC-SHA256 under that key written as
// KeyedPrefix + 64 hex digits: without the key no record can be made or
// changed. A chain may start plain and turn keyed when a key is first set
// (the first keyed record links to the last plain one); it never turns back.
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

// KeyedPrefix starts the Hash of a record keyed by audit.key.
const KeyedPrefix = "hmac-sha256:"

// auditHMACVersion names the canonical encoding under an HMAC of records
// written before keys had ids (KeyedPrefix + 64 hex digits); still read.
const auditHMACVersion = "toolwright-audit-hmac-v1"

// auditHMACVersion2 names the canonical encoding under an HMAC that names
// its key: the key id is the first field after the version.
const auditHMACVersion2 = "toolwright-audit-hmac-v2"

// KeyID names an audit key without giving it away: 12 hex digits of the
// SHA-256 of a tag and the key. Every keyed record carries its key's id
// (KeyedPrefix + KEYID + ":" + 64 hex digits), so a chain can move from
// one key to the next (RotationTool) and be checked across the move.
func KeyID(key []byte) string {
	h := sha256.New()
	h.Write([]byte("toolwright-audit-key-id-v1,"))
	h.Write(key)
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// Keyed reports whether the record's hash is an HMAC under audit.key.
func (r *AuditRecord) Keyed() bool { return strings.HasPrefix(r.Hash, KeyedPrefix) }

// KeyID is the id of the key a keyed record names, or "" for a plain
// record and for a keyed one written before keys had ids.
func (r *AuditRecord) KeyID() string { return sealKeyID(r.Hash) }

// sealKeyID is the key id of a seal (KeyedPrefix + KEYID + ":" + hex).
func sealKeyID(seal string) string {
	rest, ok := strings.CutPrefix(seal, KeyedPrefix)
	if !ok {
		return ""
	}
	if id, _, ok := strings.Cut(rest, ":"); ok && len(id) == 12 {
		return id
	}
	return ""
}

// Seal sets r.Hash: ComputeHMAC(key) with a key, ComputeHash without.
func (r *AuditRecord) Seal(key []byte) {
	if len(key) > 0 {
		r.Hash = r.ComputeHMAC(key)
	} else {
		r.Hash = r.ComputeHash()
	}
}

// ComputeHMAC is KeyedPrefix, the key's id (KeyID), ":" and the hex
// HMAC-SHA256 under key of the record's canonical encoding (ComputeHash's,
// with its own version tag and the key id first).
func (r *AuditRecord) ComputeHMAC(key []byte) string {
	id := KeyID(key)
	m := hmac.New(sha256.New, key)
	r.encodeWith(m, auditHMACVersion2, id)
	return KeyedPrefix + id + ":" + hex.EncodeToString(m.Sum(nil))
}

// computeHMACv1 is the seal of a record written before keys had ids.
func (r *AuditRecord) computeHMACv1(key []byte) string {
	m := hmac.New(sha256.New, key)
	r.encode(m, auditHMACVersion)
	return KeyedPrefix + hex.EncodeToString(m.Sum(nil))
}

// RotationTool is the tool of the record `toolwright audit rotate-key`
// appends to move the chain from one audit.key to another (no tool can
// have this name: tool names have no spaces). Its Hash is sealed by the new
// key; its GrantID holds the same record's seal by the old key (computed
// with GrantID empty), so it proves that whoever rotated held both; its
// TraceID is DigestPrefix and the digest of every record before it
// (ChainChecker.Digest), which the new key's seal covers, so the records
// written under the old key can be checked with the new key alone.
const RotationTool = "audit rotate-key"

// DigestPrefix starts the digest a rotation record carries.
const DigestPrefix = "sha256:"

// Rotation reports whether r is a key rotation record.
func (r *AuditRecord) Rotation() bool { return r.Tool == RotationTool }

// NewRotation is the rotation record appended at seq after prevHash, the
// chain's records before it having the digest digest (ChainChecker.Digest),
// sealed by oldKey and newKey.
func NewRotation(seq int64, t time.Time, prevHash, digest string, oldKey, newKey []byte) AuditRecord {
	r := AuditRecord{Seq: seq, Time: t, Tool: RotationTool, Code: "ok", TraceID: DigestPrefix + digest, PrevHash: prevHash}
	r.GrantID = r.ComputeHMAC(oldKey)
	r.Hash = r.ComputeHMAC(newKey)
	return r
}

// digestNext folds a record's plain hash into the running digest of a chain.
func digestNext(digest string, r *AuditRecord) string {
	h := sha256.New()
	fmt.Fprintf(h, "toolwright-audit-digest-v1,%s,%s", digest, r.ComputeHash())
	return hex.EncodeToString(h.Sum(nil))
}

// ComputeHash is the hex SHA-256 of the record's canonical encoding: the
// version tag, then Seq, Time (Unix milliseconds) and the string fields in a
// fixed order, each written as "<byte length>:<bytes>," so no two different
// records encode the same, then PrevHash. Hash itself is not covered.
func (r *AuditRecord) ComputeHash() string {
	h := sha256.New()
	r.encode(h, auditHashVersion)
	return hex.EncodeToString(h.Sum(nil))
}

// encode writes the canonical encoding, starting with version, to h.
func (r *AuditRecord) encode(h io.Writer, version string) { r.encodeWith(h, version) }

// encodeWith is encode with extra fields after the version.
func (r *AuditRecord) encodeWith(h io.Writer, version string, extra ...string) {
	var buf []byte
	field := func(v string) {
		buf = strconv.AppendInt(buf[:0], int64(len(v)), 10)
		buf = append(buf, ':')
		buf = append(buf, v...)
		buf = append(buf, ',')
		h.Write(buf)
	}
	field(version)
	for _, v := range extra {
		field(v)
	}
	field(strconv.FormatInt(r.Seq, 10))
	field(strconv.FormatInt(MS(r.Time), 10))
	for _, v := range []string{r.TaskID, r.Tool, r.Risk, r.EnvID, r.Purpose, r.GrantID, r.Code, r.TraceID, r.PrevHash} {
		field(v)
	}
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

// AuditAnchor is a head (seq and hash) kept somewhere the database's
// writers cannot reach, printed earlier by `toolwright audit head`. A chain
// checked against it must still hold that record unchanged, so a rewrite of
// the whole chain, or records cut from its end and the head fixed, is caught
// even without audit.key.
type AuditAnchor struct {
	Seq  int64
	Hash string
}

// ParseAuditAnchor reads "SEQ:HASH" (a keyed hash keeps its own prefix:
// "12:hmac-sha256:…").
func ParseAuditAnchor(s string) (AuditAnchor, error) {
	seq, hash, ok := strings.Cut(strings.TrimSpace(s), ":")
	n, err := strconv.ParseInt(seq, 10, 64)
	if !ok || err != nil || n < 1 || hash == "" {
		return AuditAnchor{}, fmt.Errorf("want SEQ:HASH as printed by `toolwright audit head`, got %q", s)
	}
	return AuditAnchor{Seq: n, Hash: hash}, nil
}

func (a AuditAnchor) String() string { return fmt.Sprintf("%d:%s", a.Seq, a.Hash) }

// ChainChecker checks records one by one in seq order; implementations of
// Audit use it for CheckAudit, and VerifyChain for exported records.
//
// With Key set, plain records are accepted only before the first keyed one
// (the chain turned keyed when the key was set), keyed ones must carry the
// HMAC of the key they name, and a chain with records but none keyed fails
// (Finish): it was written, or rewritten, without the key. Without any key
// a keyed record cannot be checked and fails. With Anchor set, the record
// at Anchor.Seq must have Anchor.Hash and must exist (Finish).
//
// Keys rotate (RotationTool): after a rotation record every record must
// name the key it moved to. A record under a key the checker lacks (a
// retired key not in OldKeys) is accepted only when a later rotation
// record sealed by a key the checker has covers it with the digest of the
// records before it; otherwise Finish reports the first such record. So
// the current key alone checks the whole chain, and a retired key given in
// OldKeys checks its records' HMACs and the old seal of its rotation too.
type ChainChecker struct {
	Key []byte
	// OldKeys are retired audit keys (before rotations) to check their
	// records' HMACs with, besides the digest the rotation keeps.
	OldKeys [][]byte
	Anchor  *AuditAnchor

	started   bool
	prevSeq   int64
	prevHash  string
	keyed     bool // a keyed record was seen
	anchored  bool // the anchor's record was seen and matched
	partial   bool // the records do not start at seq 1: no digest
	digest    string
	active    string       // the key id the chain is under since its last rotation or first id'd record
	unchecked *AuditRecord // first record under a key the checker lacks, not yet covered
}

// Last is the seq and hash of the last record checked (0, "" before any).
func (c *ChainChecker) Last() (int64, string) { return c.prevSeq, c.prevHash }

// Digest is the running digest of every record checked so far, what a
// rotation record appended next carries.
func (c *ChainChecker) Digest() string { return c.digest }

// keyFor is the key with id id that the checker holds, or nil.
func (c *ChainChecker) keyFor(id string) []byte {
	for _, k := range append([][]byte{c.Key}, c.OldKeys...) {
		if len(k) > 0 && KeyID(k) == id {
			return k
		}
	}
	return nil
}

// hasKey reports whether the checker holds any key.
func (c *ChainChecker) hasKey() bool {
	if len(c.Key) > 0 {
		return true
	}
	for _, k := range c.OldKeys {
		if len(k) > 0 {
			return true
		}
	}
	return false
}

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
	default:
		c.partial = true
	}
	id := r.KeyID()
	switch {
	case r.Keyed() && !c.hasKey():
		return bad("the record is keyed by audit.key (an HMAC); give the key to verify it")
	case r.Keyed() && r.Rotation():
		if p := c.checkRotation(r, id, bad); p != nil {
			return p
		}
		c.keyed = true
	case r.Keyed():
		switch {
		case id == "" && c.active != "":
			return bad("a record sealed without a key id follows records that name their key: the chain was rewritten")
		case id != "" && c.active == "":
			c.active = id
		case id != "" && id != c.active:
			return bad("the record is keyed by key %s but the chain is under key %s, and no rotation record moved it (a key set without `toolwright audit rotate-key`, or a forged record)", id, c.active)
		}
		if id != "" {
			if k := c.keyFor(id); k != nil {
				if !hmac.Equal([]byte(r.ComputeHMAC(k)), []byte(r.Hash)) {
					return bad("the HMAC does not match the record's fields under audit.key (a record changed, or another key)")
				}
			} else if c.unchecked == nil {
				rr := *r
				c.unchecked = &rr
			}
		} else if !c.legacyMatch(r) && c.unchecked == nil {
			rr := *r
			c.unchecked = &rr
		}
		c.keyed = true
	case c.keyed:
		return bad("a plain-hash record follows keyed records: the chain was rewritten without audit.key")
	case r.ComputeHash() != r.Hash:
		return bad("hash does not match the record's fields")
	}
	if c.Anchor != nil && r.Seq == c.Anchor.Seq {
		if r.Hash != c.Anchor.Hash {
			return bad("the anchored head %s does not match this record's hash: the chain was rewritten since the anchor was taken", c.Anchor)
		}
		c.anchored = true
	}
	c.digest = digestNext(c.digest, r)
	c.started, c.prevSeq, c.prevHash = true, r.Seq, r.Hash
	return nil
}

// legacyMatch reports whether a keyed record without a key id carries the
// HMAC of one of the checker's keys.
func (c *ChainChecker) legacyMatch(r *AuditRecord) bool {
	for _, k := range append([][]byte{c.Key}, c.OldKeys...) {
		if len(k) > 0 && hmac.Equal([]byte(r.computeHMACv1(k)), []byte(r.Hash)) {
			return true
		}
	}
	return false
}

// checkRotation checks a rotation record: it moves the chain from the key
// it is under to another, its seals match the keys the checker holds, and
// under a key the checker holds its digest covers the records before it.
func (c *ChainChecker) checkRotation(r *AuditRecord, id string, bad func(string, ...any) *AuditProblem) *AuditProblem {
	oldID := sealKeyID(r.GrantID)
	switch {
	case id == "" || oldID == "":
		return bad("a key rotation record without both seals (old key in grant_id, new key in hash)")
	case id == oldID:
		return bad("a key rotation record that rotates key %s to itself", id)
	case c.active != "" && oldID != c.active:
		return bad("a key rotation from key %s, but the chain is under key %s: a forged rotation", oldID, c.active)
	}
	if k := c.keyFor(oldID); k != nil {
		o := *r
		o.GrantID, o.Hash = "", ""
		if !hmac.Equal([]byte(o.ComputeHMAC(k)), []byte(r.GrantID)) {
			return bad("the old key's seal of the key rotation does not match (a forged rotation, or a record changed)")
		}
	}
	if k := c.keyFor(id); k != nil {
		if !hmac.Equal([]byte(r.ComputeHMAC(k)), []byte(r.Hash)) {
			return bad("the new key's seal of the key rotation does not match (a forged rotation, or a record changed)")
		}
		if !c.partial {
			if r.TraceID != DigestPrefix+c.digest {
				return bad("the records before this key rotation are not the ones it sealed: one was changed, added or removed")
			}
			c.unchecked = nil // covered by a seal the checker could check
		}
	} else if c.unchecked == nil {
		rr := *r
		c.unchecked = &rr
	}
	c.active = id
	return nil
}

// Finish is the check after the last record: the anchor was met, with a
// key some record is keyed, and every record under a key the checker
// lacks is covered by a later rotation.
func (c *ChainChecker) Finish() *AuditProblem {
	next := &AuditRecord{Seq: c.prevSeq + 1, PrevHash: c.prevHash}
	if c.unchecked != nil {
		reason := "the HMAC does not match the record's fields under audit.key (a record changed, or another key)"
		if id := c.unchecked.KeyID(); id != "" {
			reason = fmt.Sprintf("the HMAC does not match audit.key: the record is keyed by key %s, not by audit.key (key %s), and no later key rotation sealed by audit.key covers it (another key wrote it, or a forged rotation; give a retired key to check its records)", id, KeyID(c.Key))
		}
		return &AuditProblem{Record: c.unchecked, Reason: reason}
	}
	if c.Anchor != nil && !c.anchored {
		return &AuditProblem{Record: next, Reason: fmt.Sprintf("the log ends at seq %d, before the anchored head %s: records were removed from the end", c.prevSeq, c.Anchor)}
	}
	if len(c.Key) > 0 && c.started && !c.keyed {
		return &AuditProblem{Record: next, Reason: "audit.key is set but no record is keyed by it: the chain was written (or rewritten) without the key; records are keyed from the first call recorded with the key"}
	}
	return nil
}

// VerifyChain checks exported records (for example a file written by
// WriteAudit and read back with ReadAudit): consecutive seqs, links and
// hashes, HMACs under key and the retired keys old (none: no HMAC
// expected). A slice that does not start at seq 1 is trusted for its first
// PrevHash. It returns nil when the records are intact.
func VerifyChain(recs []AuditRecord, key []byte, old ...[]byte) *AuditProblem {
	c := ChainChecker{Key: key, OldKeys: old}
	for i := range recs {
		if p := c.Check(&recs[i], false); p != nil {
			return p
		}
	}
	return c.Finish()
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
