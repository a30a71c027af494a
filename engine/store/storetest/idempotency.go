package storetest

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/engine/store"
)

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
	e.TaskID, e.TraceID, e.Attempts, e.DurationMS = taskID, store.NewTraceID(), 1, 12
	return e
}

// handles opens n handles on one fresh database.
func handles(t *testing.T, b Backend, n int, o Options) []store.Store {
	db := b(t)
	out := make([]store.Store, n)
	for i := range out {
		out[i] = db.Open(t, o)
	}
	return out
}

// runClaims has n goroutines claim (tool, taskID) on the given handles in
// turn; the one that gets the lease "runs" (counted) and completes. It
// returns the number of runs and every caller's final envelope as JSON.
// Any error (a raw duplicate-key error from a lost insert race above all)
// fails the test.
func runClaims(t *testing.T, hs []store.Store, n int, taskID string) (int32, [][]byte) {
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
			s := hs[i%len(hs)]
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			c, err := s.Claim(ctx, "place_order", taskID, "hash-a", 0)
			if err != nil {
				t.Errorf("claim %d: %v", i, err)
				return
			}
			if c.Stored() != nil {
				out[i] = c.Stored().JSON()
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
	if t.Failed() {
		t.FailNow()
	}
	if runs != 1 {
		t.Fatalf("the call ran %d times, want exactly once", runs)
	}
	for i, b := range out {
		if !bytes.Equal(b, out[0]) {
			t.Fatalf("caller %d got %s, caller 0 got %s", i, b, out[0])
		}
	}
}

func testClaimConcurrentOneHandle(t *testing.T, b Backend) {
	hs := handles(t, b, 1, Options{})
	runs, out := runClaims(t, hs, 20, "T-1")
	checkOneRun(t, runs, out)
}

// Three handles behave like three replicas: no shared memory, so all 20
// callers race on the database itself.
func testClaimConcurrentThreeHandles(t *testing.T, b Backend) {
	hs := handles(t, b, 3, Options{})
	for round := range 3 {
		runs, out := runClaims(t, hs, 20, "T-round-"+string(rune('a'+round)))
		checkOneRun(t, runs, out)
	}
}

func testClaimConflict(t *testing.T, b Backend) {
	s := handles(t, b, 1, Options{})[0]
	ctx := context.Background()
	c, err := s.Claim(ctx, "place_order", "T-1", "hash-a", 0)
	if err != nil || !c.Leased() {
		t.Fatalf("first claim: %v", err)
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

func testClaimReleaseRunsAgain(t *testing.T, b Backend) {
	s := handles(t, b, 1, Options{})[0]
	ctx := context.Background()
	c, err := s.Claim(ctx, "place_order", "T-1", "h", 0)
	if err != nil || !c.Leased() {
		t.Fatal(err)
	}
	// a waiter queued behind the lease takes it over after the release
	got := make(chan store.Claim)
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
	if c2 == nil || !c2.Leased() {
		t.Fatalf("after a retryable release the next claim must run, got %+v", c2)
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
	if err != nil || c3.Stored() == nil || c3.Stored().Code != errs.AssertionFailed {
		t.Fatalf("got %+v, %v; want the stored assertion_failed", c3, err)
	}
}

func testClaimSurvivesReopen(t *testing.T, b Backend) {
	db := b(t)
	s := db.Open(t, Options{})
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
	s2 := db.Open(t, Options{})
	c2, err := s2.Claim(ctx, "place_order", "T-1", "h", 0)
	if err != nil || c2.Stored() == nil {
		t.Fatalf("after reopen: %+v, %v", c2, err)
	}
	if !bytes.Equal(c2.Stored().JSON(), env.JSON()) {
		t.Fatalf("stored %s, want %s", c2.Stored().JSON(), env.JSON())
	}
}

func testClaimTTL(t *testing.T, b Backend) {
	clk := &fakeClock{t: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	s := handles(t, b, 1, Options{Now: clk.now})[0]
	ctx := context.Background()
	c, _ := s.Claim(ctx, "place_order", "T-1", "h", time.Hour)
	if err := c.Complete(ctx, okEnv("T-1", 1)); err != nil {
		t.Fatal(err)
	}
	clk.add(59 * time.Minute)
	if c, _ := s.Claim(ctx, "place_order", "T-1", "h", time.Hour); c == nil || c.Stored() == nil {
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

func testClaimStaleLeaseTakenOver(t *testing.T, b Backend) {
	hs := handles(t, b, 2, Options{LeaseDuration: 300 * time.Millisecond})
	a, o := hs[0], hs[1]
	ctx := context.Background()
	c, err := a.Claim(ctx, "place_order", "T-1", "h", 0)
	if err != nil || !c.Leased() {
		t.Fatal(err)
	}
	a.Close() // the process dies: no release, no more heartbeats
	start := time.Now()
	c2, err := o.Claim(ctx, "place_order", "T-1", "h", 0)
	if err != nil || !c2.Leased() {
		t.Fatalf("stale lease not taken over: %+v, %v", c2, err)
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Fatalf("took %s to take over a stale lease", waited)
	}
	// The taker learns the first call was interrupted (the engine answers
	// outcome_unknown for a write instead of running it again).
	if !c2.Interrupted() || c.Interrupted() {
		t.Errorf("Interrupted(): taker %v, first %v; want true, false", c2.Interrupted(), c.Interrupted())
	}
	if err := c2.Complete(ctx, okEnv("T-1", 2)); err != nil {
		t.Fatal(err)
	}
	// A released claim is no interruption: the next caller runs afresh.
	r, err := o.Claim(ctx, "place_order", "T-2", "h", 0)
	if err != nil {
		t.Fatal(err)
	}
	_ = r.Release(ctx)
	if r2, err := o.Claim(ctx, "place_order", "T-2", "h", 0); err != nil || r2.Interrupted() {
		t.Errorf("after a release: interrupted %v, %v", r2 != nil && r2.Interrupted(), err)
	} else {
		_ = r2.Release(ctx)
	}
}

// Several replicas find the same stale lease at once: the conditional
// takeover lets exactly one of them run.
func testClaimStaleLeaseRace(t *testing.T, b Backend) {
	hs := handles(t, b, 4, Options{LeaseDuration: 300 * time.Millisecond})
	ctx := context.Background()
	c, err := hs[0].Claim(ctx, "place_order", "T-stale", "hash-a", 0)
	if err != nil || !c.Leased() {
		t.Fatal(err)
	}
	hs[0].Close()
	time.Sleep(350 * time.Millisecond) // the lease is stale before anyone looks
	runs, out := runClaims(t, hs[1:], 12, "T-stale")
	checkOneRun(t, runs, out)
}

func testClaimHeartbeatKeepsLease(t *testing.T, b Backend) {
	hs := handles(t, b, 2, Options{LeaseDuration: time.Second})
	a, o := hs[0], hs[1]
	ctx := context.Background()
	c, err := a.Claim(ctx, "place_order", "T-1", "h", 0)
	if err != nil || !c.Leased() {
		t.Fatal(err)
	}
	// a long call (three leases): the other process must keep waiting, not
	// take over; the lease is long enough for a heartbeat to land on a busy
	// machine
	wctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	_, err = o.Claim(wctx, "place_order", "T-1", "h", 0)
	if errs.CodeOf(err) != errs.DeadlineExceeded {
		t.Fatalf("waiting past ctx: got %v, want deadline_exceeded", err)
	}
	if err := c.Complete(ctx, okEnv("T-1", 1)); err != nil {
		t.Fatalf("complete after a long call: %v", err)
	}
	c2, err := o.Claim(ctx, "place_order", "T-1", "h", 0)
	if err != nil || c2.Stored() == nil {
		t.Fatalf("got %+v, %v", c2, err)
	}
}

func testClaimWaitCancelled(t *testing.T, b Backend) {
	s := handles(t, b, 1, Options{})[0]
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

func testCompleteAfterCancelStillStores(t *testing.T, b Backend) {
	s := handles(t, b, 1, Options{})[0]
	ctx, cancel := context.WithCancel(context.Background())
	c, _ := s.Claim(ctx, "place_order", "T-1", "h", 0)
	cancel()
	if err := c.Complete(ctx, okEnv("T-1", 1)); err != nil {
		t.Fatal(err)
	}
	c2, err := s.Claim(context.Background(), "place_order", "T-1", "h", 0)
	if err != nil || c2.Stored() == nil {
		t.Fatalf("got %+v, %v", c2, err)
	}
}
