package tick

import (
	"testing"
	"time"
)

// Every stops when fn says so, NowAndEvery calls at once, and both stop
// when done closes.
func TestEvery(t *testing.T) {
	t.Parallel()
	n := 0
	Every(nil, time.Millisecond, func() bool { n++; return n < 3 })
	if n != 3 {
		t.Fatalf("fn ran %d times, want 3", n)
	}
	done := make(chan struct{})
	calls := make(chan struct{}, 100)
	go func() {
		NowAndEvery(done, time.Hour, func() { calls <- struct{}{} })
		close(calls)
	}()
	<-calls // the call at once, not an hour later
	close(done)
	for range calls { // NowAndEvery returned
	}
}
