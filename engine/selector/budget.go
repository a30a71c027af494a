package selector

import (
	"context"
	"errors"
	"time"
)

type budgetKey struct{}

// budget is a timeout as written in a workflow, the deadline it set, and
// the context it was set in (the call's).
type budget struct {
	d      time.Duration
	dl     time.Time
	parent context.Context
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
	return context.WithValue(ctx, budgetKey{}, budget{d: d, dl: dl, parent: parent}), cancel
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

// answerGrace is how long the page's answer to an action it has received
// is still waited for after the step's time ran out (see Outlasting).
const answerGrace = 10 * time.Second

// Outlasting is the context in which the page's answer to an action that
// has reached it is read: whether a click reached its element, whether the
// browser sent the form, whether a listbox kept the choice. An action sent
// just before the step's time runs out (a busy machine, a handler that
// takes long, a dialog to answer first) has happened all the same, and its
// answer decides whether the step did what it says: read in ctx, which has
// ended, it was lost, and the step answered ok. So when ctx's deadline is
// the step's own (WithBudget), Outlasting ends answerGrace after it, and
// never after the call (the budget's parent) ends; ctx cancelled (the
// client gave up, a refused navigation ended the step) ends it at once.
// Any other ctx it follows as is.
func Outlasting(ctx context.Context) (context.Context, context.CancelFunc) {
	dl, ok := ctx.Deadline()
	b, own := ctx.Value(budgetKey{}).(budget)
	if !ok || !own || !b.dl.Equal(dl) {
		return context.WithCancel(ctx)
	}
	c, cancel := context.WithDeadline(context.WithoutCancel(ctx), dl.Add(answerGrace))
	stopCall := context.AfterFunc(b.parent, cancel)
	stopStep := context.AfterFunc(ctx, func() {
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			cancel()
		}
	})
	return c, func() { stopCall(); stopStep(); cancel() }
}
