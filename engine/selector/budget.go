package selector

import (
	"context"
	"time"
)

type budgetKey struct{}

// budget is a timeout as written in a workflow and the deadline it set.
type budget struct {
	d  time.Duration
	dl time.Time
}

// WithBudget is context.WithTimeout that also remembers d, so that a
// search or wait that runs out of it says "after 1s", the budget as written,
// and not the 990ms that were left when the search began on a busy machine.
// When parent's own deadline comes first, nothing is remembered: the
// message then says how long the search was actually allowed.
func WithBudget(parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	own := time.Now().Add(d)
	ctx, cancel := context.WithTimeout(parent, d)
	dl, _ := ctx.Deadline()
	if dl.Before(own) {
		return ctx, cancel
	}
	return context.WithValue(ctx, budgetKey{}, budget{d: d, dl: dl}), cancel
}

// allowed is how long a search that began at start was allowed to run, for
// messages: the budget of WithBudget when that budget is what ran out, the
// time from start to the deadline when some other deadline did, and the
// time spent when ctx has not expired.
func allowed(ctx context.Context, start time.Time) time.Duration {
	dl, ok := ctx.Deadline()
	if !ok || ctx.Err() == nil {
		return time.Since(start)
	}
	if b, ok := ctx.Value(budgetKey{}).(budget); ok && b.dl.Equal(dl) {
		return b.d
	}
	if dl.After(start) {
		return dl.Sub(start)
	}
	return time.Since(start)
}

// Allowed is allowed rounded for a message ("1s", "300ms").
func Allowed(ctx context.Context, start time.Time) string {
	return roundDuration(allowed(ctx, start))
}
