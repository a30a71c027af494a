package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/engine/store"
)

// callOverhead is what the store adds to one tool call: check it can
// record the call (Ready), claim the task_id, store the envelope, save the
// trace (5 steps) and append the audit record.
func callOverhead(b *testing.B, s store.Store, i int64) {
	ctx := context.Background()
	if err := s.Ready(ctx); err != nil {
		b.Fatalf("ready: %v", err)
	}
	taskID := fmt.Sprintf("T-%d", i)
	c, err := s.Claim(ctx, "place_order", taskID, "0f3a9c", 0)
	if err != nil || !c.Leased() {
		b.Fatalf("claim: %v", err)
	}
	traceID := store.NewTraceID()
	env := result.Success(map[string]any{"order": "A-1", "total": 12.5})
	env.TaskID, env.TraceID, env.Attempts, env.DurationMS = taskID, traceID, 1, 812
	if err := c.Complete(ctx, env); err != nil {
		b.Fatal(err)
	}
	steps := make([]store.StepRecord, 5)
	for j := range steps {
		steps[j] = store.StepRecord{Index: j, Path: fmt.Sprint(j), Kind: "click", Target: "acme.checkout.place_order", Strategy: "css", DurationMS: 40, Code: "ok", Attempt: 1}
	}
	tr := &store.Trace{ID: traceID, TaskID: taskID, Tool: "place_order", Args: json.RawMessage(`{"sku":"B-12","qty":3}`),
		Start: time.Now(), DurationMS: 812, Code: "ok", Attempts: 1, EnvID: "env_1", Purpose: "orders", Steps: steps}
	if err := s.SaveTrace(ctx, tr); err != nil {
		b.Fatal(err)
	}
	if err := s.AppendAudit(ctx, &store.AuditRecord{TaskID: taskID, Tool: "place_order", Risk: "write", EnvID: "env_1",
		Purpose: "orders", GrantID: "gr_1", Code: "ok", TraceID: traceID}); err != nil {
		b.Fatal(err)
	}
}

// backends are the stores the benchmarks compare, side by side in one run.
func benchBackends(b *testing.B, fn func(b *testing.B, s store.Store)) {
	b.Run("sqlite", func(b *testing.B) {
		fn(b, openT(b, func() (*DB, error) { return OpenSQLite(filepath.Join(b.TempDir(), FileName), Options{}) }))
	})
	b.Run("postgres", func(b *testing.B) {
		u := pgURL(b)
		fn(b, openT(b, func() (*DB, error) { return OpenPostgres(u, Options{}) }))
	})
}

// BenchmarkStoreCallOverhead is the store's share of one call; compare the
// sqlite and postgres medians (benchstat, -count 6).
func BenchmarkStoreCallOverhead(b *testing.B) {
	benchBackends(b, func(b *testing.B, s store.Store) {
		var i int64
		b.ReportAllocs()
		for b.Loop() {
			i++
			callOverhead(b, s, i)
		}
	})
}

func BenchmarkStoreCallOverheadParallel(b *testing.B) {
	benchBackends(b, func(b *testing.B, s store.Store) {
		var n atomic.Int64
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				callOverhead(b, s, n.Add(1))
			}
		})
	})
}

// BenchmarkReady is the check before every call (a write on SQLite, one
// query on PostgreSQL).
func BenchmarkReady(b *testing.B) {
	benchBackends(b, func(b *testing.B, s store.Store) {
		ctx := context.Background()
		for b.Loop() {
			if err := s.Ready(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkClaimReplay(b *testing.B) {
	benchBackends(b, func(b *testing.B, s store.Store) {
		ctx := context.Background()
		c, _ := s.Claim(ctx, "place_order", "T-1", "h", 0)
		c.Complete(ctx, result.Success(map[string]any{"x": 1}))
		for b.Loop() {
			c, err := s.Claim(ctx, "place_order", "T-1", "h", 0)
			if err != nil || c.Stored() == nil {
				b.Fatal(err)
			}
		}
	})
}
