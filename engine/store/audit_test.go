package store

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func auditRec(i int) *AuditRecord {
	return &AuditRecord{TaskID: fmt.Sprintf("T-%d", i), Tool: "place_order", Risk: "write", EnvID: "env_1",
		Purpose: "orders", GrantID: "gr_1", Code: "ok", TraceID: NewTraceID()}
}

// fillAudit appends 50 records: 20 in a row, then 30 concurrently from two
// handles on the same file.
func fillAudit(t *testing.T) (*SQLite, string) {
	t.Helper()
	s, path := openTemp(t, Options{})
	other := openPath(t, path, Options{})
	ctx := context.Background()
	for i := range 20 {
		if err := s.AppendAudit(ctx, auditRec(i)); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for i := 20; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := s
			if i%2 == 0 {
				h = other
			}
			if err := h.AppendAudit(ctx, auditRec(i)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	return s, path
}

func TestAuditChain(t *testing.T) {
	s, _ := fillAudit(t)
	ctx := context.Background()
	bad, err := s.VerifyAudit(ctx)
	if err != nil || bad != nil {
		t.Fatalf("fresh chain: bad %+v, %v", bad, err)
	}
	seq, hash, err := s.AuditHead(ctx)
	if err != nil || seq != 50 || len(hash) != 64 {
		t.Fatalf("head %d %q %v", seq, hash, err)
	}
	recs, _ := s.ExportAudit(ctx, time.Time{}, time.Time{})
	if len(recs) != 50 || recs[49].Hash != hash {
		t.Fatalf("%d records", len(recs))
	}
}

func TestAuditTamper(t *testing.T) {
	swap := []string{
		`UPDATE audit SET seq = -1 WHERE seq = 17`,
		`UPDATE audit SET seq = 17 WHERE seq = 18`,
		`UPDATE audit SET seq = 18 WHERE seq = -1`,
	}
	for _, c := range []struct {
		name    string
		sql     []string
		fix     func(s *SQLite) // an attacker who also recomputes one hash
		wantSeq int64
		reason  string
	}{
		{name: "edit code", sql: []string{`UPDATE audit SET code = 'not_granted' WHERE seq = 17`}, wantSeq: 17, reason: "hash does not match"},
		{name: "edit time", sql: []string{`UPDATE audit SET time_ms = time_ms + 1 WHERE seq = 30`}, wantSeq: 30, reason: "hash does not match"},
		{name: "delete", sql: []string{`DELETE FROM audit WHERE seq = 17`}, wantSeq: 18, reason: "seq 18 follows seq 16"},
		{name: "delete first", sql: []string{`DELETE FROM audit WHERE seq = 1`}, wantSeq: 2, reason: "starts at seq 2"},
		{name: "delete last", sql: []string{`DELETE FROM audit WHERE seq = 50`}, wantSeq: 50, reason: "ends at seq 49"},
		{name: "swap", sql: swap, wantSeq: 17, reason: "hash does not match"},
		{name: "edit and rehash", sql: []string{`UPDATE audit SET code = 'not_granted' WHERE seq = 17`}, fix: func(s *SQLite) {
			recs, _ := s.ExportAudit(context.Background(), time.Time{}, time.Time{})
			r := recs[16]
			s.wdb.Exec(`UPDATE audit SET hash = ? WHERE seq = 17`, r.ComputeHash())
		}, wantSeq: 18, reason: "prev_hash does not match the hash of seq 17"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, path := fillAudit(t)
			// tamper through a separate raw connection, as an editor would
			raw := openPath(t, path, Options{})
			for _, q := range c.sql {
				if _, err := raw.wdb.Exec(q); err != nil {
					t.Fatal(err)
				}
			}
			if c.fix != nil {
				c.fix(raw)
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

func TestAuditExportRoundTrip(t *testing.T) {
	s, _ := openTemp(t, Options{})
	ctx := context.Background()
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
	if p := VerifyChain(part); p != nil {
		t.Fatalf("a slice of the chain: %s", p)
	}
	for _, format := range []string{FormatJSONL, FormatCSV} {
		var buf bytes.Buffer
		if err := WriteAudit(&buf, all, format); err != nil {
			t.Fatal(err)
		}
		back, err := ReadAudit(&buf, format)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(all, back); d != "" {
			t.Fatalf("%s round trip (-want +got):\n%s", format, d)
		}
		if p := VerifyChain(back); p != nil {
			t.Fatalf("%s: %s", format, p)
		}
		back[4].Code = "edited"
		if p := VerifyChain(back); p == nil || p.Record.Seq != 5 {
			t.Fatalf("%s: edit not detected: %v", format, p)
		}
	}
	if err := WriteAudit(&bytes.Buffer{}, all, "xml"); err == nil {
		t.Fatal("unknown format accepted")
	}
}
