// Package backoff is the one wait between attempts that polls something
// another process holds (a lease, a lock): each pause doubles up to a cap,
// optionally jittered so several waiters do not poll in step, and ends
// early when its context does. Wait is the plain pause of that kind: one
// length, ended by the context.
package backoff

import (
	"context"
	"math/rand/v2"
	"time"
)

// Backoff is the pauses of one polling loop. Its zero value is not usable:
// make it with New.
type Backoff struct {
	next, max time.Duration
	jitter    bool
}

// New starts at first and doubles each pause up to max.
func New(first, max time.Duration) *Backoff { return &Backoff{next: first, max: max} }

// Jittered makes each pause a random length between half the pause and the
// pause, and returns b.
func (b *Backoff) Jittered() *Backoff {
	b.jitter = true
	return b
}

// Pause is the next pause, and doubles the one after (up to the cap).
func (b *Backoff) Pause() time.Duration {
	d := b.next
	if b.jitter {
		d = d/2 + rand.N(d/2+1)
	}
	b.next = min(b.next*2, b.max)
	return d
}

// Sleep waits out the next pause. It returns false at once when ctx ends
// or stop (nil: never) is closed first.
func (b *Backoff) Sleep(ctx context.Context, stop <-chan struct{}) bool {
	return pause(ctx, b.Pause(), stop)
}

// Wait waits d and reports true, or false as soon as ctx ends (at once when
// it has ended, whatever d).
func Wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	return pause(ctx, d, nil)
}

// pause waits d and reports true, or false as soon as ctx ends or stop
// (nil: never) is closed.
func pause(ctx context.Context, d time.Duration, stop <-chan struct{}) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-stop:
		return false
	}
}
