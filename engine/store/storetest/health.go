package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/engine/store"
)

// busyBound is how long a test lets a locked store take to answer
// store_busy. The store promises 2 s (Options.LockWait is 1.5 s); the test
// allows far more so a loaded machine never fails it, and still fails the
// old behaviour (a raw "database is locked" after the 10 s busy timeout, or
// a wait with no end).
const busyBound = 30 * time.Second

func wantCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error, want %s", what, code)
	}
	e := errs.As(err)
	if e.Code != code || !e.Retryable || e.NeedsHuman {
		t.Fatalf("%s: %v (code %s, retryable %v); want %s, retryable", what, err, e.Code, e.Retryable, code)
	}
}

func testReadyHealthy(t *testing.T, b Backend) {
	s := handles(t, b, 1, Options{})[0]
	if err := s.Ready(context.Background()); err != nil {
		t.Fatalf("Ready on a fresh store: %v", err)
	}
}

// A second writer holds the write lock: Ready (on SQLite, where it writes)
// and Claim answer store_busy, retryable, instead of waiting it out; once
// the lock is gone both work again.
func testLockedStoreAnswersBusy(t *testing.T, b Backend) {
	db := b(t)
	if db.Lock == nil {
		t.Skip("the backend cannot lock its database from outside")
	}
	s := db.Open(t, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*busyBound)
	defer cancel()
	if err := s.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	unlock := db.Lock(t)
	start := time.Now()
	_, err := s.Claim(ctx, "place_order", "T-busy", "h", 0)
	wantCode(t, "claim on a locked store", err, errs.StoreBusy)
	if took := time.Since(start); took > busyBound {
		t.Fatalf("store_busy came after %s", took)
	}
	if db.ReadyWrites {
		wantCode(t, "Ready on a locked SQLite store", s.Ready(ctx), errs.StoreBusy)
	}
	unlock()
	if err := s.Ready(ctx); err != nil {
		t.Fatalf("Ready after the lock went: %v", err)
	}
	c, err := s.Claim(ctx, "place_order", "T-busy", "h", 0)
	if err != nil || !c.Leased() {
		t.Fatalf("claim after the lock went: %v", err)
	}
	if err := c.Complete(ctx, result.Success(map[string]any{"n": 1})); err != nil {
		t.Fatal(err)
	}
}

// Every table locked against reads too (PostgreSQL's LOCK TABLE ... IN
// ACCESS EXCLUSIVE MODE): everything the engine asks before a call runs
// (Ready, Claim, the grant, a write's trace stub) answers store_busy within
// the lock wait, never waits for the lock to go. Recording a finished call
// may wait longer (BusyTimeout, set far past the test's bound here, so a
// pre-call write that waits it out fails the test). Before, the grant
// lookup waited for the lock with no bound and the stub for the 10 s busy
// timeout: a call waited 7.2 s and then ran.
func testAccessExclusiveLockAnswersBusy(t *testing.T, b Backend) {
	db := b(t)
	if db.LockAll == nil {
		t.Skip("the backend cannot lock its tables against reads")
	}
	s := db.Open(t, Options{BusyTimeout: 10 * time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), 2*busyBound)
	defer cancel()
	if err := s.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddGrant(ctx, "place_order", "T-x", time.Hour, "test", "test"); err != nil {
		t.Fatal(err)
	}
	unlock := db.LockAll(t)
	for _, c := range []struct {
		what string
		fn   func() error
	}{
		{"Ready", func() error { return s.Ready(ctx) }},
		{"Claim", func() error { _, err := s.Claim(ctx, "place_order", "T-x", "h", 0); return err }},
		{"LiveGrantID", func() error { _, err := s.LiveGrantID(ctx, "place_order", "T-x", time.Now()); return err }},
		{"SaveTrace of a stub", func() error {
			return s.SaveTrace(ctx, &store.Trace{TaskID: "T-x", Tool: "place_order", Code: store.TraceRunning, Attempts: 1})
		}},
	} {
		start := time.Now()
		err := c.fn()
		if took := time.Since(start); took > busyBound {
			t.Fatalf("%s on a locked store answered after %s (%v)", c.what, took, err)
		}
		wantCode(t, c.what+" on a store locked against reads", err, errs.StoreBusy)
	}
	unlock()
	if id, err := s.LiveGrantID(ctx, "place_order", "T-x", time.Now()); err != nil || id == "" {
		t.Fatalf("grant after the lock went: %q, %v", id, err)
	}
	c, err := s.Claim(ctx, "place_order", "T-x", "h", 0)
	if err != nil || !c.Leased() {
		t.Fatalf("claim after the lock went: %v", err)
	}
	if err := c.Complete(ctx, result.Success(nil)); err != nil {
		t.Fatal(err)
	}
}

// A database swapped for another under a running store (its store_id
// differs from the one read at open) is unavailable, never written into.
func testReplacedStoreIsUnavailable(t *testing.T, b Backend) {
	db := b(t)
	if db.Exec == nil {
		t.Skip("no raw access")
	}
	s := db.Open(t, Options{})
	ctx := context.Background()
	if err := s.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	db.Exec(t, `UPDATE store_meta SET store_id = 'another-database'`)
	err := s.Ready(ctx)
	wantCode(t, "Ready on a replaced database", err, errs.StoreUnavailable)
	// a handle opened now belongs to the new database and is ready
	if err := db.Open(t, Options{}).Ready(ctx); err != nil {
		t.Fatalf("a new handle on the replacement: %v", err)
	}
}

func testClosedStoreIsUnavailable(t *testing.T, b Backend) {
	s := handles(t, b, 1, Options{})[0]
	s.Close()
	ctx := context.Background()
	wantCode(t, "Ready on a closed store", s.Ready(ctx), errs.StoreUnavailable)
	_, err := s.Claim(ctx, "place_order", "T-1", "h", 0)
	wantCode(t, "Claim on a closed store", err, errs.StoreUnavailable)
	wantCode(t, "AppendAudit on a closed store", s.AppendAudit(ctx, &store.AuditRecord{Tool: "x", Code: "ok"}), errs.StoreUnavailable)
}
