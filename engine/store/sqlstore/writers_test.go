package sqlstore

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/store"
)

// TestOwnWritersAreNotALock: 64 calls starting at once in one process
// (Ready, then a write's trace stub, both bound by the lock wait) all get
// through; they queue for SQLite's one write connection, and waiting behind
// this process's own writes is not waiting for another writer's lock.
// Before: the queue counted against the 100 ms lock wait, and calls behind
// it answered store_busy ("locked by another writer") with no other writer
// there (2 of 32 concurrent HTTP calls in TestHTTPSessionBurst).
func TestOwnWritersAreNotALock(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), FileName)
	s := openT(t, func() (*DB, error) { return OpenSQLite(path, Options{LockWait: 100 * time.Millisecond}) })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	errc := make(chan error, 64)
	for i := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.Ready(ctx); err != nil {
				errc <- err
				return
			}
			tr := &store.Trace{ID: store.NewTraceID(), TaskID: "T-" + string(rune('a'+i%26)), Tool: "place_order",
				Start: time.Now(), Code: store.TraceRunning, Attempts: 1, Steps: []store.StepRecord{}}
			if err := s.SaveTrace(ctx, tr); err != nil {
				errc <- err
			}
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Errorf("a call of 64 at once: %v (code %s)", err, errs.CodeOf(err))
	}
}

// TestQueuedWritersBusyWhileLocked: while another process holds the write
// lock, 32 calls of this process queued behind one another all answer
// store_busy about when the first does (the lock has been held their whole
// wait), not one lock wait after another (32 × 1.5 s).
func TestQueuedWritersBusyWhileLocked(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), FileName)
	s := openT(t, func() (*DB, error) { return OpenSQLite(path, Options{}) })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := s.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	unlock := holdLock(t, "sqlite", path, `BEGIN IMMEDIATE`)
	defer unlock()
	start := time.Now()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var last time.Duration
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := s.Ready(ctx)
			took := time.Since(start)
			mu.Lock()
			last = max(last, took)
			mu.Unlock()
			if errs.CodeOf(err) != errs.StoreBusy {
				t.Errorf("Ready on a locked store: %v, want store_busy", err)
			}
		}()
	}
	wg.Wait()
	t.Logf("32 queued calls on a locked store: the last answered store_busy after %s", last.Round(time.Millisecond))
	// 32 lock waits of 1.5 s one after another would take 48 s; a loaded
	// machine is given far more than the one wait it needs.
	if last > 30*time.Second {
		t.Errorf("the last of 32 queued calls answered after %s", last)
	}
}
