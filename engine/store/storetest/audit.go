package storetest

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolwright/toolwright/engine/store"
)

func auditRec(i int) *store.AuditRecord {
	return &store.AuditRecord{TaskID: fmt.Sprintf("T-%d", i), Tool: "place_order", Risk: "write", EnvID: "env_1",
		Purpose: "orders", GrantID: "gr_1", Code: "ok", TraceID: store.NewTraceID()}
}

// appendConcurrently appends perWriter records from each handle, each
// handle from 4 goroutines at once.
func appendConcurrently(t *testing.T, hs []store.Store, perWriter int) {
	t.Helper()
	ctx := context.Background()
	var wg sync.WaitGroup
	for w, h := range hs {
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := g; i < perWriter; i += 4 {
					if err := h.AppendAudit(ctx, auditRec(w*perWriter+i)); err != nil {
						t.Errorf("writer %d: %v", w, err)
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
}

// Three writers (replicas) append 100 records each at once: all 300 are in
// the one chain, which verifies.
func testAuditChainConcurrentWriters(t *testing.T, b Backend) {
	hs := handles(t, b, 3, Options{})
	appendConcurrently(t, hs, 100)
	ctx := context.Background()
	for i, h := range hs {
		p, err := h.CheckAudit(ctx)
		if err != nil || p != nil {
			t.Fatalf("handle %d: chain after concurrent writers: %v, %v", i, p, err)
		}
	}
	seq, hash, err := hs[1].AuditHead(ctx)
	if err != nil || seq != 300 || len(hash) != 64 {
		t.Fatalf("head %d %q %v; want seq 300", seq, hash, err)
	}
	recs, err := hs[2].ExportAudit(ctx, time.Time{}, time.Time{})
	if err != nil || len(recs) != 300 || recs[299].Hash != hash {
		t.Fatalf("%d records, %v; want 300", len(recs), err)
	}
	seen := map[string]bool{}
	for _, r := range recs {
		seen[r.TaskID] = true
	}
	if len(seen) != 300 {
		t.Fatalf("%d distinct records, want 300: some were lost or doubled", len(seen))
	}
}

// fillAudit appends 50 records: 20 in a row, then 30 concurrently from two
// handles on the same database.
func fillAudit(t *testing.T, db Database) store.Store {
	t.Helper()
	s := db.Open(t, Options{})
	other := db.Open(t, Options{})
	ctx := context.Background()
	for i := range 20 {
		if err := s.AppendAudit(ctx, auditRec(i)); err != nil {
			t.Fatal(err)
		}
	}
	appendConcurrently(t, []store.Store{s, other}, 15)
	return s
}

func testAuditTamper(t *testing.T, b Backend) {
	swap := []string{
		`UPDATE audit SET seq = -1 WHERE seq = 17`,
		`UPDATE audit SET seq = 17 WHERE seq = 18`,
		`UPDATE audit SET seq = 18 WHERE seq = -1`,
	}
	for _, c := range []struct {
		name    string
		sql     []string
		rehash  int64 // an attacker who also recomputes this record's hash
		wantSeq int64
		reason  string
	}{
		{name: "edit code", sql: []string{`UPDATE audit SET code = 'not_granted' WHERE seq = 17`}, wantSeq: 17, reason: "hash does not match"},
		{name: "edit time", sql: []string{`UPDATE audit SET time_ms = time_ms + 1 WHERE seq = 30`}, wantSeq: 30, reason: "hash does not match"},
		{name: "delete", sql: []string{`DELETE FROM audit WHERE seq = 17`}, wantSeq: 18, reason: "seq 18 follows seq 16"},
		{name: "delete first", sql: []string{`DELETE FROM audit WHERE seq = 1`}, wantSeq: 2, reason: "starts at seq 2"},
		{name: "delete last", sql: []string{`DELETE FROM audit WHERE seq = 50`}, wantSeq: 50, reason: "ends at seq 49"},
		{name: "delete head", sql: []string{`DELETE FROM audit_head`}, wantSeq: 51, reason: "head is missing"},
		{name: "swap", sql: swap, wantSeq: 17, reason: "hash does not match"},
		{name: "edit and rehash", sql: []string{`UPDATE audit SET code = 'not_granted' WHERE seq = 17`}, rehash: 17,
			wantSeq: 18, reason: "prev_hash does not match the hash of seq 17"},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := b(t)
			if db.Exec == nil {
				t.Skip("the backend cannot run raw SQL")
			}
			s := fillAudit(t, db)
			for _, q := range c.sql {
				db.Exec(t, q)
			}
			if c.rehash > 0 {
				recs, _ := s.ExportAudit(context.Background(), time.Time{}, time.Time{})
				db.Exec(t, `UPDATE audit SET hash = $1 WHERE seq = $2`, recs[c.rehash-1].ComputeHash(), c.rehash)
			}
			p, err := s.CheckAudit(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if p == nil {
				t.Fatal("tampering not detected")
			}
			if p.Record.Seq != c.wantSeq || !strings.Contains(p.Reason, c.reason) {
				t.Fatalf("got %s, want seq %d with %q", p, c.wantSeq, c.reason)
			}
			bad, _ := s.VerifyAudit(context.Background())
			if bad == nil || bad.Seq != c.wantSeq {
				t.Fatalf("VerifyAudit: %+v", bad)
			}
		})
	}
}

func testAuditExportRoundTrip(t *testing.T, b Backend) {
	s := handles(t, b, 1, Options{})[0]
	ctx := context.Background()
	if p, err := s.CheckAudit(ctx); p != nil || err != nil {
		t.Fatalf("empty log: %v, %v", p, err)
	}
	if seq, hash, err := s.AuditHead(ctx); seq != 0 || hash != "" || err != nil {
		t.Fatalf("empty head: %d %q %v", seq, hash, err)
	}
	base := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	for i := range 10 {
		r := auditRec(i)
		r.Time = base.Add(time.Duration(i)*time.Hour + 123456789) // cut to ms
		if i == 3 {
			r.Purpose = `tricky, "quoted"` + "\nnew line <&>"
		}
		if err := s.AppendAudit(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	all, err := s.ExportAudit(ctx, time.Time{}, time.Time{})
	if err != nil || len(all) != 10 {
		t.Fatalf("%d, %v", len(all), err)
	}
	if all[0].Time != base.Add(123*time.Millisecond) {
		t.Fatalf("time %s", all[0].Time)
	}
	part, _ := s.ExportAudit(ctx, base.Add(2*time.Hour), base.Add(5*time.Hour))
	if len(part) != 3 || part[0].Seq != 3 {
		t.Fatalf("since/until: %d records", len(part))
	}
	if p := store.VerifyChain(part, nil); p != nil {
		t.Fatalf("a slice of the chain: %s", p)
	}
	for _, format := range []string{store.FormatJSONL, store.FormatCSV} {
		var buf bytes.Buffer
		if err := store.WriteAudit(&buf, all, format); err != nil {
			t.Fatal(err)
		}
		back, err := store.ReadAudit(&buf, format)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(all, back); d != "" {
			t.Fatalf("%s round trip (-want +got):\n%s", format, d)
		}
		if p := store.VerifyChain(back, nil); p != nil {
			t.Fatalf("%s: %s", format, p)
		}
		back[4].Code = "edited"
		if p := store.VerifyChain(back, nil); p == nil || p.Record.Seq != 5 {
			t.Fatalf("%s: edit not detected: %v", format, p)
		}
	}
}
