package storetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/store"
)

var (
	auditKey   = []byte("k3y-of-the-operator-0123456789abcdef")
	otherKey   = []byte("a key the attacker made up")
	everything = time.Time{}
)

func appendN(t *testing.T, s store.Store, from, n int) {
	t.Helper()
	for i := range n {
		if err := s.AppendAudit(context.Background(), auditRec(from+i)); err != nil {
			t.Fatal(err)
		}
	}
}

// rewriteChain rewrites every record and the head as someone who can write
// the database would: edit changes the records, then each is sealed with key
// (nil: plain hashes) and linked again, so the chain is consistent.
func rewriteChain(t *testing.T, db Database, s store.Store, key []byte, edit func(r *store.AuditRecord)) {
	t.Helper()
	recs, err := s.ExportAudit(context.Background(), everything, everything)
	if err != nil {
		t.Fatal(err)
	}
	prev := ""
	for i := range recs {
		r := &recs[i]
		if edit != nil {
			edit(r)
		}
		r.PrevHash = prev
		r.Seal(key)
		db.Exec(t, `UPDATE audit SET code = $1, prev_hash = $2, hash = $3 WHERE seq = $4`, r.Code, r.PrevHash, r.Hash, r.Seq)
		prev = r.Hash
	}
	db.Exec(t, `UPDATE audit_head SET hash = $1 WHERE id = 1`, prev)
}

func wantProblem(t *testing.T, what string, p *store.AuditProblem, err error, reason string) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if p == nil || !strings.Contains(p.Reason, reason) {
		t.Fatalf("%s: got %v, want a problem with %q", what, p, reason)
	}
}

// With audit.key every record is an HMAC under it, so a rewrite by someone
// who lacks the key is caught however consistent it is: recomputed plain
// hashes, or HMACs under a key of their own. (A plain chain takes both.)
func testAuditKeyedChain(t *testing.T, b Backend) {
	db := b(t)
	if db.Exec == nil {
		t.Skip("the backend cannot run raw SQL")
	}
	s := db.Open(t, Options{AuditKey: auditKey})
	appendN(t, s, 0, 6)
	ctx := context.Background()
	if p, err := s.CheckAudit(ctx); p != nil || err != nil {
		t.Fatalf("keyed chain: %v, %v", p, err)
	}
	recs, _ := s.ExportAudit(ctx, everything, everything)
	for _, r := range recs {
		if !r.Keyed() {
			t.Fatalf("record %d is not keyed: %s", r.Seq, r.Hash)
		}
	}
	_, head, _ := s.AuditHead(ctx)
	if !strings.HasPrefix(head, store.KeyedPrefix) {
		t.Fatalf("head %q", head)
	}
	// an exported file verifies with the key, and only with it
	if p := store.VerifyChain(recs, auditKey); p != nil {
		t.Fatalf("export with the key: %s", p)
	}
	if p := store.VerifyChain(recs, nil); p == nil || !strings.Contains(p.Reason, "give the key") {
		t.Fatalf("export without the key: %v", p)
	}

	edit := func(r *store.AuditRecord) {
		if r.Seq == 3 {
			r.Code = "not_granted"
		}
	}
	rewriteChain(t, db, s, otherKey, edit)
	p, err := s.CheckAudit(ctx)
	wantProblem(t, "rewritten under another key", p, err, "HMAC does not match")
	if p.Record.Seq != 1 {
		t.Fatalf("first bad record %d, want 1", p.Record.Seq)
	}
	rewriteChain(t, db, s, nil, edit)
	p, err = s.CheckAudit(ctx)
	wantProblem(t, "rewritten as a plain chain", p, err, "no record is keyed")
	// A store without the key sees the plain rewrite as intact: the key is
	// what makes the difference.
	if p, err := db.Open(t, Options{}).CheckAudit(ctx); p != nil || err != nil {
		t.Fatalf("the plain rewrite, checked without the key: %v, %v", p, err)
	}
}

// Setting audit.key on a store with a plain chain: older records stay plain,
// the chain goes on keyed from the next record, and verifies with the key. A
// store that lacks the key then refuses to append (a plain record after
// keyed ones would break the chain) and cannot verify the keyed records.
func testAuditKeyMigration(t *testing.T, b Backend) {
	db := b(t)
	plain := db.Open(t, Options{})
	appendN(t, plain, 0, 3)
	ctx := context.Background()
	_, plainHead, _ := plain.AuditHead(ctx)
	keyed := db.Open(t, Options{AuditKey: auditKey})
	if p, err := keyed.CheckAudit(ctx); p == nil || err != nil || !strings.Contains(p.Reason, "no record is keyed") {
		t.Fatalf("a plain chain checked with a key before any keyed record: %v, %v", p, err)
	}
	appendN(t, keyed, 3, 2)
	if p, err := keyed.CheckAudit(ctx); p != nil || err != nil {
		t.Fatalf("plain then keyed: %v, %v", p, err)
	}
	recs, _ := keyed.ExportAudit(ctx, everything, everything)
	if len(recs) != 5 || recs[2].Keyed() || !recs[3].Keyed() || recs[3].PrevHash != plainHead {
		t.Fatalf("migrated chain: %+v", recs)
	}
	err := plain.AppendAudit(ctx, auditRec(9))
	if errs.CodeOf(err) != errs.StoreUnavailable {
		t.Fatalf("append without the key to a keyed chain: %v", err)
	}
	p, err := plain.CheckAudit(ctx)
	wantProblem(t, "keyed records checked without the key", p, err, "give the key")
	if p.Record.Seq != 4 {
		t.Fatalf("first unverifiable record %d, want 4", p.Record.Seq)
	}
}

// An anchor (a head kept elsewhere) catches what a plain chain cannot: the
// whole chain rewritten consistently, and records cut from the end with
// the head row fixed to match.
func testAuditAnchor(t *testing.T, b Backend) {
	db := b(t)
	if db.Exec == nil {
		t.Skip("the backend cannot run raw SQL")
	}
	s := db.Open(t, Options{})
	appendN(t, s, 0, 5)
	ctx := context.Background()
	seq, hash, err := s.AuditHead(ctx)
	if err != nil || seq != 5 {
		t.Fatal(seq, err)
	}
	anchor, err := store.ParseAuditAnchor(store.AuditAnchor{Seq: seq, Hash: hash}.String())
	if err != nil || anchor.Seq != 5 || anchor.Hash != hash {
		t.Fatalf("anchor round trip: %+v %v", anchor, err)
	}
	if p, err := s.CheckAuditAnchor(ctx, anchor); p != nil || err != nil {
		t.Fatalf("anchored, intact: %v, %v", p, err)
	}
	appendN(t, s, 5, 2) // the chain grows past its anchor
	if p, err := s.CheckAuditAnchor(ctx, anchor); p != nil || err != nil {
		t.Fatalf("anchored, grown: %v, %v", p, err)
	}

	// cut the last three records and fix the head: intact to CheckAudit
	recs, _ := s.ExportAudit(ctx, everything, everything)
	db.Exec(t, `DELETE FROM audit WHERE seq > 4`)
	db.Exec(t, `UPDATE audit_head SET seq = 4, hash = $1 WHERE id = 1`, recs[3].Hash)
	if p, err := s.CheckAudit(ctx); p != nil || err != nil {
		t.Fatalf("a cut tail with the head fixed is invisible without an anchor: %v, %v", p, err)
	}
	p, err := s.CheckAuditAnchor(ctx, anchor)
	wantProblem(t, "cut below the anchor", p, err, "before the anchored head 5:")

	// rewrite the whole chain consistently (a plain chain cannot tell)
	rewriteChain(t, db, s, nil, func(r *store.AuditRecord) { r.Code = "ok_" })
	if p, err := s.CheckAudit(ctx); p != nil || err != nil {
		t.Fatalf("a consistent rewrite is invisible without an anchor: %v, %v", p, err)
	}
	early := store.AuditAnchor{Seq: 2, Hash: recs[1].Hash}
	p, err = s.CheckAuditAnchor(ctx, early)
	wantProblem(t, "rewritten under the anchor", p, err, "does not match this record's hash")
	for _, bad := range []string{"", "5", "x:abc", "0:abc", "5:"} {
		if _, err := store.ParseAuditAnchor(bad); err == nil {
			t.Errorf("ParseAuditAnchor(%q) accepted", bad)
		}
	}
}

// A key rotation (`toolwright audit rotate-key`): the chain moves from one
// audit.key to the next with a record sealed by both, and verifies across
// it with the new key alone (the rotation's digest covers the old records)
// or with both; the old records still verify with the old key; a server
// still holding the old key records nothing more; an old record changed
// afterwards, by someone holding the old key, is caught with the new key;
// and a rotation forged without the keys, to a key of the forger's own,
// fails.
func testAuditKeyRotation(t *testing.T, b Backend) {
	db := b(t)
	ctx := context.Background()
	newKey := []byte("the operator's next key 9876543210")
	plain := db.Open(t, Options{})
	appendN(t, plain, 0, 2) // a chain that started plain
	oldS := db.Open(t, Options{AuditKey: auditKey})
	appendN(t, oldS, 2, 3)
	if _, err := db.Open(t, Options{}).RotateAuditKey(ctx, newKey); err == nil {
		t.Fatal("a store without audit.key rotated")
	}
	if _, err := oldS.RotateAuditKey(ctx, auditKey); err == nil {
		t.Fatal("rotated to the same key")
	}
	rot, err := oldS.RotateAuditKey(ctx, newKey)
	if err != nil {
		t.Fatal(err)
	}
	if rot.Seq != 6 || !rot.Rotation() || rot.KeyID() != store.KeyID(newKey) || !strings.HasPrefix(rot.GrantID, store.KeyedPrefix+store.KeyID(auditKey)+":") {
		t.Fatalf("rotation record: %+v", rot)
	}
	// a server with the old key records nothing more
	if err := oldS.AppendAudit(ctx, auditRec(9)); errs.CodeOf(err) != errs.StoreUnavailable || !strings.Contains(err.Error(), "rotate") {
		t.Fatalf("append with the retired key: %v", err)
	}
	newS := db.Open(t, Options{AuditKey: newKey})
	appendN(t, newS, 5, 3)
	if p, err := newS.CheckAudit(ctx); p != nil || err != nil {
		t.Fatalf("across the rotation, with the new key alone: %v, %v", p, err)
	}
	both := db.Open(t, Options{AuditKey: newKey, OldAuditKeys: [][]byte{auditKey}})
	if p, err := both.CheckAudit(ctx); p != nil || err != nil {
		t.Fatalf("across the rotation, with both keys: %v, %v", p, err)
	}
	p, err := oldS.CheckAudit(ctx)
	wantProblem(t, "the new records with the old key", p, err, "no later key rotation sealed by audit.key covers it")
	if p.Record.Seq != 6 {
		t.Fatalf("first record the old key cannot check: %d, want 6", p.Record.Seq)
	}
	recs, _ := newS.ExportAudit(ctx, everything, everything)
	if len(recs) != 9 {
		t.Fatalf("%d records", len(recs))
	}
	for _, r := range recs[6:] {
		if r.KeyID() != store.KeyID(newKey) {
			t.Fatalf("record %d after the rotation is keyed by %q", r.Seq, r.KeyID())
		}
	}
	// the old records, exported, verify with the old key; the whole export
	// with the new key, alone or with the old one
	if p := store.VerifyChain(recs[:5], auditKey); p != nil {
		t.Fatalf("the records before the rotation with the old key: %s", p)
	}
	if p := store.VerifyChain(recs, newKey); p != nil {
		t.Fatalf("the export with the new key: %s", p)
	}
	if p := store.VerifyChain(recs, newKey, auditKey); p != nil {
		t.Fatalf("the export with both keys: %s", p)
	}
	if db.Exec == nil {
		return
	}

	// someone holding the old key changes an old record and seals the
	// chain up to the rotation again: the rotation's digest does not match
	db.Exec(t, `UPDATE audit SET code = 'not_granted' WHERE seq = 4`)
	r4 := recs[3]
	r4.Code = "not_granted"
	r4.Seal(auditKey)
	db.Exec(t, `UPDATE audit SET hash = $1 WHERE seq = 4`, r4.Hash)
	r5 := recs[4]
	r5.PrevHash = r4.Hash
	r5.Seal(auditKey)
	db.Exec(t, `UPDATE audit SET prev_hash = $1, hash = $2 WHERE seq = 5`, r5.PrevHash, r5.Hash)
	db.Exec(t, `UPDATE audit SET prev_hash = $1 WHERE seq = 6`, r5.Hash)
	p, err = newS.CheckAudit(ctx)
	if err != nil || p == nil || p.Record.Seq != 6 {
		t.Fatalf("an old record changed under the old key, checked with the new: %v, %v", p, err)
	}
	for _, r := range []store.AuditRecord{recs[3], recs[4]} {
		db.Exec(t, `UPDATE audit SET code = $1, prev_hash = $2, hash = $3 WHERE seq = $4`, r.Code, r.PrevHash, r.Hash, r.Seq)
	}
	db.Exec(t, `UPDATE audit SET prev_hash = $1 WHERE seq = 6`, recs[4].Hash)
	if p, err := newS.CheckAudit(ctx); p != nil || err != nil {
		t.Fatalf("restored: %v, %v", p, err)
	}

	// a rotation forged without the keys: from the new key to the forger's
	// own, then a record under it
	forged := store.NewRotation(10, time.Now(), recs[8].Hash, "0", []byte("a guess at the old key"), otherKey)
	forged.GrantID = store.KeyedPrefix + store.KeyID(newKey) + ":" + strings.Repeat("0", 64)
	forged.Hash = ""
	forged.Hash = forged.ComputeHMAC(otherKey)
	next := store.AuditRecord{Seq: 11, Time: time.Now(), Tool: "place_order", Code: "ok", PrevHash: forged.Hash}
	next.Seal(otherKey)
	for _, r := range []store.AuditRecord{forged, next} {
		db.Exec(t, `INSERT INTO audit (seq, time_ms, task_id, tool, risk, env_id, purpose, grant_id, code, trace_id, prev_hash, hash)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`, r.Seq, store.MS(r.Time), r.TaskID, r.Tool, r.Risk, r.EnvID, r.Purpose, r.GrantID, r.Code, r.TraceID, r.PrevHash, r.Hash)
	}
	db.Exec(t, `UPDATE audit_head SET seq = 11, hash = $1 WHERE id = 1`, next.Hash)
	for _, s := range []store.Store{newS, both} {
		p, err = s.CheckAudit(ctx)
		wantProblem(t, "a forged rotation", p, err, "old key's seal of the key rotation does not match (a forged rotation")
		if p.Record.Seq != 10 {
			t.Fatalf("first bad record %d, want the forged rotation (10)", p.Record.Seq)
		}
	}
	// forged from a key the chain is not under (the retired one, which may
	// have leaked): refused whatever its seals
	forged = store.NewRotation(10, time.Now(), recs[8].Hash, "0", auditKey, otherKey)
	db.Exec(t, `UPDATE audit SET grant_id = $1, trace_id = $2, hash = $3 WHERE seq = 10`, forged.GrantID, forged.TraceID, forged.Hash)
	next.PrevHash = forged.Hash
	next.Seal(otherKey)
	db.Exec(t, `UPDATE audit SET prev_hash = $1, hash = $2 WHERE seq = 11`, next.PrevHash, next.Hash)
	db.Exec(t, `UPDATE audit_head SET hash = $1 WHERE id = 1`, next.Hash)
	p, err = newS.CheckAudit(ctx)
	wantProblem(t, "a rotation forged with the retired key", p, err, "but the chain is under key "+store.KeyID(newKey)+": a forged rotation")
}
