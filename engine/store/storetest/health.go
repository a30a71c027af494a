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
	if s.Backend() == "sqlite" {
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
