package browser

import (
	"strconv"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/toolwright/toolwright/engine/selector"
)

// TestUnansweredCallsRunInOrder: a call marked selector.Unanswered returns
// once it is written, and the browser handles it before the next call of
// its session, which is waited for: twenty script runs sent unanswered,
// then one waited for, find all twenty done, in order. (Clicks send their
// mouse move and press so, and wait for the release.)
func TestUnansweredCallsRunInOrder(t *testing.T) {
	t.Parallel()
	s := newSite(t, html("order"))
	m := newTestManager(t, Options{})
	env := mustOpen(t, m, "", "order")
	mustNavigate(t, env, s.URL+"/")
	ctx := testCtx(t, time.Minute)
	p := env.Page().Context(ctx)
	if _, err := p.Eval(`() => { window.seen = [] }`); err != nil {
		t.Fatal(err)
	}
	q := env.Page().Context(selector.Unanswered(ctx))
	for i := range 20 {
		res, err := proto.RuntimeEvaluate{Expression: "window.seen.push(" + strconv.Itoa(i) + ")"}.Call(q)
		if err != nil {
			t.Fatalf("unanswered call %d: %v", i, err)
		}
		if res.Result != nil {
			t.Fatalf("unanswered call %d came back with an answer %+v", i, res.Result)
		}
	}
	res, err := p.Eval(`() => window.seen.join(",")`)
	if err != nil {
		t.Fatal(err)
	}
	want := "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19"
	if got := res.Value.Str(); got != want {
		t.Errorf("after twenty unanswered calls the page saw %q, want %q", got, want)
	}
}
