package store

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/result"
)

func openTemp(t testing.TB, opts Options) (*SQLite, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state", FileName)
	s, err := OpenWith(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

func openPath(t testing.TB, path string, opts Options) *SQLite {
	t.Helper()
	s, err := OpenWith(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// fakeClock is a settable clock for TTL tests.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func okEnv(taskID string, n int) *result.Envelope {
	e := result.Success(map[string]any{"n": n, "who": "first"})
	e.TaskID, e.TraceID, e.Attempts, e.DurationMS = taskID, NewTraceID(), 1, 12
	return e
}

// runClaims has n goroutines claim (tool, taskID) on the given handles in
// turn; the one that gets the lease "runs" (counted) and completes. It
// returns the number of runs and every caller's final envelope as JSON.
func runClaims(t *testing.T, handles []*SQLite, n int, taskID string) (int32, [][]byte) {
	t.Helper()
	var runs atomic.Int32
	out := make([][]byte, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			s := handles[i%len(handles)]
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			c, err := s.Claim(ctx, "place_order", taskID, "hash-a", 0)
			if err != nil {
				t.Errorf("claim %d: %v", i, err)
				return
			}
			if c.Stored != nil {
				out[i] = c.Stored.JSON()
				return
			}
			defer c.Release(ctx)
			runs.Add(1)
			time.Sleep(50 * time.Millisecond) // the call runs a while
			env := okEnv(taskID, 1)
			if err := c.Complete(ctx, env); err != nil {
				t.Errorf("complete: %v", err)
			}
			out[i] = env.JSON()
		}()
	}
	close(start)
	wg.Wait()
	return runs.Load(), out
}

func checkOneRun(t *testing.T, runs int32, out [][]byte) {
	t.Helper()
	if runs != 1 {
		t.Fatalf("the call ran %d times, want exactly once", runs)
	}
	for i, b := range out {
		if !bytes.Equal(b, out[0]) {
			t.Fatalf("caller %d got %s, caller 0 got %s", i, b, out[0])
		}
	}
}

func TestClaimConcurrentOneHandle(t *testing.T) {
	s, _ := openTemp(t, Options{})
	runs, out := runClaims(t, []*SQLite{s}, 20, "T-1")
	checkOneRun(t, runs, out)
}

func TestClaimConcurrentTwoHandles(t *testing.T) {
	// Two Open handles on one file behave like two processes: no shared
	// memory, only the database.
	a, path := openTemp(t, Options{})
	b := openPath(t, path, Options{})
	runs, out := runClaims(t, []*SQLite{a, b}, 20, "T-2")
	checkOneRun(t, runs, out)
}

func TestClaimConflict(t *testing.T) {
	s, _ := openTemp(t, Options{})
	ctx := context.Background()
	c, err := s.Claim(ctx, "place_order", "T-1", "hash-a", 0)
	if err != nil || !c.Leased() {
		t.Fatalf("first claim: %v, leased=%v", err, c.Leased())
	}
	// pending with other args: conflict at once, no waiting
	_, err = s.Claim(ctx, "place_order", "T-1", "hash-b", 0)
	wantConflict(t, err)
	if err := c.Complete(ctx, okEnv("T-1", 1)); err != nil {
		t.Fatal(err)
	}
	_, err = s.Claim(ctx, "place_order", "T-1", "hash-b", 0)
	wantConflict(t, err)
	// the same task_id on another tool is another key
	c2, err := s.Claim(ctx, "cancel_order", "T-1", "hash-b", 0)
	if err != nil || !c2.Leased() {
		t.Fatalf("claim on another tool: %v", err)
	}
	c2.Release(ctx)
}

func wantConflict(t *testing.T, err error) {
	t.Helper()
	var e *errs.Error
	if !errors.As(err, &e) || e.Code != errs.TaskIDConflict {
		t.Fatalf("got %v, want task_id_conflict", err)
	}
	if want := `task_id "T-1" was used before with other arguments`; e.Message != want {
		t.Fatalf("message %q, want %q", e.Message, want)
	}
}

func TestClaimReleaseRunsAgain(t *testing.T) {
	s, _ := openTemp(t, Options{})
	ctx := context.Background()
	c, err := s.Claim(ctx, "place_order", "T-1", "h", 0)
	if err != nil || !c.Leased() {
		t.Fatal(err)
	}
	// a waiter queued behind the lease takes it over after the release
	got := make(chan *Claim)
	go func() {
		c2, err := s.Claim(ctx, "place_order", "T-1", "h", 0)
		if err != nil {
			t.Error(err)
		}
		got <- c2
	}()
	time.Sleep(30 * time.Millisecond)
	fail := result.Failure(errs.New(errs.TargetNotFound, "target x not found"))
	if err := c.Finish(ctx, fail); err != nil { // retryable: released
		t.Fatal(err)
	}
	c2 := <-got
	if !c2.Leased() {
		t.Fatalf("after a retryable release the next claim must run, got stored %+v", c2.Stored)
	}
	if err := c.Release(ctx); err != nil { // second release: no-op
		t.Fatal(err)
	}
	// a non-retryable failure is stored
	fail = result.Failure(errs.New(errs.AssertionFailed, "price changed"))
	if err := c2.Finish(ctx, fail); err != nil {
		t.Fatal(err)
	}
	c3, err := s.Claim(ctx, "place_order", "T-1", "h", 0)
	if err != nil || c3.Stored == nil || c3.Stored.Code != errs.AssertionFailed {
		t.Fatalf("got %+v, %v; want the stored assertion_failed", c3, err)
	}
}

func TestClaimSurvivesReopen(t *testing.T) {
	s, path := openTemp(t, Options{})
	ctx := context.Background()
	c, err := s.Claim(ctx, "place_order", "T-1", "h", 0)
	if err != nil {
		t.Fatal(err)
	}
	env := okEnv("T-1", 7)
	if err := c.Complete(ctx, env); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := openPath(t, path, Options{})
	c2, err := s2.Claim(ctx, "place_order", "T-1", "h", 0)
	if err != nil || c2.Stored == nil {
		t.Fatalf("after reopen: %+v, %v", c2, err)
	}
	if !bytes.Equal(c2.Stored.JSON(), env.JSON()) {
		t.Fatalf("stored %s, want %s", c2.Stored.JSON(), env.JSON())
	}
}

func TestClaimTTL(t *testing.T) {
	s, _ := openTemp(t, Options{})
	clk := &fakeClock{t: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	s.now = clk.now
	ctx := context.Background()
	c, _ := s.Claim(ctx, "place_order", "T-1", "h", time.Hour)
	if err := c.Complete(ctx, okEnv("T-1", 1)); err != nil {
		t.Fatal(err)
	}
	clk.add(59 * time.Minute)
	if c, _ := s.Claim(ctx, "place_order", "T-1", "h", time.Hour); c == nil || c.Stored == nil {
		t.Fatal("record gone before its ttl")
	}
	clk.add(2 * time.Minute)
	// expired: ignored, so even other arguments run
	c, err := s.Claim(ctx, "place_order", "T-1", "other", time.Hour)
	if err != nil || !c.Leased() {
		t.Fatalf("expired record still answers: %+v, %v", c, err)
	}
	c.Release(ctx)
	clk.add(3 * time.Hour)
	if _, err := s.Claim(ctx, "place_order", "T-2", "h", time.Hour); err != nil {
		t.Fatal(err)
	}
	// Purge drops expired records
	c, _ = s.Claim(ctx, "place_order", "T-3", "h", time.Minute)
	c.Complete(ctx, okEnv("T-3", 1))
	clk.add(2 * time.Minute)
	p, err := s.Purge(ctx, time.Time{})
	if err != nil || p.IdempotencyRecords < 1 {
		t.Fatalf("purge: %+v, %v", p, err)
	}
}

func TestClaimStaleLeaseTakenOver(t *testing.T) {
	opts := Options{LeaseDuration: 300 * time.Millisecond}
	a, path := openTemp(t, opts)
	b := openPath(t, path, opts)
	ctx := context.Background()
	c, err := a.Claim(ctx, "place_order", "T-1", "h", 0)
	if err != nil || !c.Leased() {
		t.Fatal(err)
	}
	a.Close() // the process dies: no release, no more heartbeats
	start := time.Now()
	c2, err := b.Claim(ctx, "place_order", "T-1", "h", 0)
	if err != nil || !c2.Leased() {
		t.Fatalf("stale lease not taken over: %+v, %v", c2, err)
	}
	if waited := time.Since(start); waited > 2*time.Second {
		t.Fatalf("took %s to take over a stale lease", waited)
	}
	if err := c2.Complete(ctx, okEnv("T-1", 2)); err != nil {
		t.Fatal(err)
	}
}

func TestClaimHeartbeatKeepsLease(t *testing.T) {
	opts := Options{LeaseDuration: 150 * time.Millisecond}
	a, path := openTemp(t, opts)
	b := openPath(t, path, opts)
	ctx := context.Background()
	c, err := a.Claim(ctx, "place_order", "T-1", "h", 0)
	if err != nil || !c.Leased() {
		t.Fatal(err)
	}
	// a long call: the other process must keep waiting, not take over
	wctx, cancel := context.WithTimeout(ctx, 600*time.Millisecond)
	defer cancel()
	_, err = b.Claim(wctx, "place_order", "T-1", "h", 0)
	if errs.CodeOf(err) != errs.DeadlineExceeded {
		t.Fatalf("waiting past ctx: got %v, want deadline_exceeded", err)
	}
	if err := c.Complete(ctx, okEnv("T-1", 1)); err != nil {
		t.Fatalf("complete after a long call: %v", err)
	}
	c2, err := b.Claim(ctx, "place_order", "T-1", "h", 0)
	if err != nil || c2.Stored == nil {
		t.Fatalf("got %+v, %v", c2, err)
	}
}

func TestClaimWaitCancelled(t *testing.T) {
	s, _ := openTemp(t, Options{})
	ctx := context.Background()
	c, _ := s.Claim(ctx, "place_order", "T-1", "h", 0)
	defer c.Release(ctx)
	cctx, cancel := context.WithCancel(ctx)
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	_, err := s.Claim(cctx, "place_order", "T-1", "h", 0)
	if errs.CodeOf(err) != errs.Cancelled {
		t.Fatalf("got %v, want cancelled", err)
	}
}

func TestCompleteAfterCancelStillStores(t *testing.T) {
	s, _ := openTemp(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	c, _ := s.Claim(ctx, "place_order", "T-1", "h", 0)
	cancel()
	if err := c.Complete(ctx, okEnv("T-1", 1)); err != nil {
		t.Fatal(err)
	}
	c2, err := s.Claim(context.Background(), "place_order", "T-1", "h", 0)
	if err != nil || c2.Stored == nil {
		t.Fatalf("got %+v, %v", c2, err)
	}
}

func TestArgsHash(t *testing.T) {
	a, err := ArgsHashJSON([]byte(`{"b": [1, 2.50, "x"], "a": {"z": 1, "y": null}}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := ArgsHash(map[string]any{"a": map[string]any{"y": nil, "z": 1}, "b": []any{1, 2.50, "x"}})
	c, _ := ArgsHashJSON([]byte(`{"a": {"z": 1, "y": null}, "b": [1, 2.5, "x"]}`))
	if len(a) != 64 {
		t.Fatalf("hash %q", a)
	}
	if c == "" || a == "" || b == "" {
		t.Fatal("empty hash")
	}
	d, _ := ArgsHashJSON([]byte(`{"a": {"z": 2, "y": null}, "b": [1, 2.5, "x"]}`))
	if c == d {
		t.Fatal("different arguments hash the same")
	}
	e, _ := ArgsHashJSON([]byte(`{"b":[1,2.5,"x"],"a":{"y":null,"z":1}}`))
	if c != e {
		t.Fatal("key order changes the hash")
	}
}

func TestSchemaVersion(t *testing.T) {
	s, path := openTemp(t, Options{})
	s.Close()
	s = openPath(t, path, Options{})
	var n, v int
	if err := s.rdb.QueryRow(`SELECT COUNT(*), MAX(version) FROM schema_version`).Scan(&n, &v); err != nil {
		t.Fatal(err)
	}
	if n != SchemaVersion() || v != SchemaVersion() {
		t.Fatalf("schema_version has %d rows, max %d; want %d", n, v, SchemaVersion())
	}
	var mode string
	s.rdb.QueryRow(`PRAGMA journal_mode`).Scan(&mode)
	if mode != "wal" {
		t.Fatalf("journal_mode %q, want wal", mode)
	}
	if _, err := s.wdb.Exec(`UPDATE schema_version SET version = 99`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := Open(path); err == nil {
		t.Fatal("opened a database from a newer toolwright")
	}
}
