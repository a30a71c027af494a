package selector

import (
	"context"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/ysmood/gson"
)

// What a step set going is followed in the page by the follow hook
// (engine/browser/follow.js, on every document of an environment's page,
// before the page's own scripts): the timers, frames, messages and
// requests the step's trusted input events set going, and what those in
// turn set going, until they have run. The engine waits on that instead
// of a window of time: a handler that set nothing going is done at once.

// Followed is what the hook said of a wait for a cause to be quiet.
type Followed struct {
	Hooked bool          // the page has the hook (false: nothing was followed)
	Waited time.Duration // how long the page had work of the cause pending
	// Idle: the wait ran out with work still pending (Left: its kinds,
	// "timer", "frame", "message", "request"); the time is the caller's
	// bound, spent waiting for something that did not happen.
	Idle bool
	Left []string
}

func followedOf(v gson.JSON) Followed {
	f := Followed{Hooked: v.Get("hooked").Bool(), Waited: time.Duration(v.Get("waited").Num() * float64(time.Millisecond)), Idle: v.Get("idle").Bool()}
	for _, k := range v.Get("left").Arr() {
		f.Left = append(f.Left, k.Str())
	}
	return f
}

// Arm tells the page's follow hook that an acting step's input comes
// now: what its trusted events set going is followed (LateFollowed waits
// for it). False when the page has no hook.
func Arm(ctx context.Context, page *rod.Page) bool {
	// A small expression of its own, not page.js: this comes before every
	// acting step.
	res, err := proto.RuntimeEvaluate{Expression: `(() => { const f = window.__toolwright_follow; return f ? f.arm() : false; })()`, ReturnByValue: true}.Call(page.Context(ctx))
	return err == nil && res.ExceptionDetails == nil && res.Result.Value.Bool()
}

// LateFollowed is LateAfterClick once what the armed step set going has
// run, as the page's follow hook tells (at most max, by the page's
// clock), or once the page began to leave for another document; with
// soon > 0, a timer due later than soon from now is not waited for. Late's
// Followed.Hooked is false when the page has no hook.
func LateFollowed(ctx context.Context, page *rod.Page, max, soon time.Duration) (Late, error) {
	req := map[string]any{"follow": max.Milliseconds(), "submit": lateSubmit.Milliseconds()}
	if soon > 0 {
		req["soon"] = soon.Milliseconds()
	}
	res, err := evalOp(page.Context(ctx), nil, "late", req, true, true)
	if err != nil {
		return Late{}, err
	}
	l := lateOf(res.Value)
	l.Followed = followedOf(res.Value)
	return l, nil
}

// Quiet waits until what the page's current document set going while it
// loaded (its scripts, its DOMContentLoaded and load handlers: a fetch of
// its data, a timer that fills or empties a field) has run, at most max by
// the page's clock.
func Quiet(ctx context.Context, page *rod.Page, max time.Duration) (Followed, error) {
	res, err := evalOp(page.Context(ctx), nil, "quiet", map[string]any{"max": max.Milliseconds()}, true, true)
	if err != nil {
		return Followed{}, err
	}
	return followedOf(res.Value), nil
}

// ErrorShown is the error box the page's document shows beside a form
// (page.js op "errorbox"): what a server-rendered app answers, HTTP 200,
// to a form it refused. "" when it shows none.
func ErrorShown(ctx context.Context, page *rod.Page) string {
	res, err := evalOp(page.Context(ctx), nil, "errorbox", map[string]any{}, true, false)
	if err != nil {
		return ""
	}
	return res.Value.Str()
}

// PageSays is what the page shows a person since the last acting step was
// armed (the follow hook's alerts: an alert region, an error box, a
// field's error message that appeared or changed), the first of them; ""
// when nothing new shows or the page has no hook.
func PageSays(ctx context.Context, page *rod.Page) string {
	res, err := proto.RuntimeEvaluate{Expression: `(() => { const f = window.__toolwright_follow; const a = f ? f.alerts() : []; return a.length ? a[0] : ""; })()`, ReturnByValue: true}.Call(page.Context(ctx))
	if err != nil || res.ExceptionDetails != nil {
		return ""
	}
	return res.Result.Value.Str()
}
