// Package tick is the one loop that does something on a schedule until
// told to stop: a health ping, a lease heartbeat, a keep-alive, a sweep.
package tick

import "time"

// Every calls fn every d until done is closed or fn returns false. The
// first call is d after Every starts.
func Every(done <-chan struct{}, d time.Duration, fn func() bool) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		if !fn() {
			return
		}
	}
}

// NowAndEvery calls fn at once, then every d, until done is closed.
func NowAndEvery(done <-chan struct{}, d time.Duration, fn func()) {
	fn()
	Every(done, d, func() bool { fn(); return true })
}
