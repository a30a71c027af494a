package selector

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// Screen is what scrolling one screen did.
type Screen struct {
	Moved  bool `json:"moved"`  // anything moved
	End    bool `json:"end"`    // the end of the scrolled content is in view
	Height int  `json:"height"` // the scrolled height
}

// ScrollScreen scrolls el a screen (90% of it) when it scrolls by itself,
// else the page (el nil: the page).
func ScrollScreen(ctx context.Context, page *rod.Page, el *rod.Element) (Screen, error) {
	p, this := scrollScope(ctx, page, el)
	res, err := evalOp(p, this, "scroll", nil, true, false)
	if err != nil {
		return Screen{}, err
	}
	var s Screen
	err = json.Unmarshal([]byte(res.Value.JSON("", "")), &s)
	return s, err
}

// Settled is how ScrollWait ended.
type Settled struct {
	Held bool    // the condition holds
	Grew bool    // the scrolled height is no longer the one given
	Next *Screen // it grew, and the page scrolled the next screen at once
}

// ScrollWait waits, after a screen that reached the end of el (nil: the
// page), until cond holds or the scrolled height is no longer height, at
// most d; neither within d is the zero Settled. The page watches both
// (mutations, and a poll for what none shows), so the wait ends when the
// page changes, not on a timer.
//
// When the page can answer cond alone (a target of the top document that
// needs neither a frame, a parent nor the accessibility tree) and more is
// set, a page that grew without cond holding scrolls its next screen in
// the same task (Next): an infinite list starts loading its next batch
// without waiting for a round trip. Otherwise cond is checked from Go
// while the page watches its height.
func (m *Map) ScrollWait(ctx context.Context, page *rod.Page, cond Cond, el *rod.Element, height int, more bool, d time.Duration) (Settled, error) {
	sctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	grown := map[string]any{"kind": "grown", "height": height}
	if jc, ok, err := m.pageCond(cond); err != nil {
		return Settled{}, err
	} else if ok {
		st, answered, err := waitScroll(sctx, page, el, []map[string]any{jc, grown}, more, d)
		switch {
		case err != nil && ctx.Err() != nil:
			return Settled{}, ctx.Err()
		case err != nil || sctx.Err() != nil:
			// Out of time, or the document went away (a navigation):
			// the next round looks again.
			return Settled{}, nil
		case answered:
			return st, nil
		}
		// A frame's document: the page cannot answer cond there.
	}
	var wg sync.WaitGroup
	defer wg.Wait() // nothing of this wait runs on after it
	defer cancel()
	held := make(chan struct{})
	grew := make(chan Settled, 1)
	wg.Add(2)
	go func() {
		defer wg.Done()
		if _, err := m.Wait(sctx, page, []Cond{cond}); err == nil {
			close(held)
		}
	}()
	go func() {
		defer wg.Done()
		st, _, _ := waitScroll(sctx, page, el, []map[string]any{grown}, false, d)
		grew <- st
	}()
	select {
	case <-held:
		return Settled{Held: true}, nil
	case st := <-grew:
		select {
		case <-held: // both at once: the condition wins
			return Settled{Held: true}, nil
		default:
		}
		if ctx.Err() != nil {
			return Settled{}, ctx.Err()
		}
		return st, nil
	case <-ctx.Done():
		return Settled{}, ctx.Err()
	}
}

// waitScroll runs page.js's wait in scroll mode on el (nil: the page), at
// most d and never past ctx; answered is false when the page declined (a
// condition on targets, asked inside a frame).
func waitScroll(ctx context.Context, page *rod.Page, el *rod.Element, conds []map[string]any, more bool, d time.Duration) (st Settled, answered bool, err error) {
	if d = upToDeadline(ctx, d); d <= 0 {
		return Settled{}, true, nil
	}
	p, this := scrollScope(ctx, page, el)
	req := map[string]any{"conds": conds, "timeout": d.Milliseconds(), "scroll": map[string]any{"more": more}}
	res, err := evalOp(p, this, "wait", req, true, true)
	if err != nil {
		return Settled{}, false, err
	}
	if res.Value.Nil() {
		return Settled{}, false, nil
	}
	var out struct {
		I      int     `json:"i"`
		Screen *Screen `json:"screen"`
	}
	if err := json.Unmarshal([]byte(res.Value.JSON("", "")), &out); err != nil {
		return Settled{}, false, err
	}
	switch {
	case out.I < 0:
		return Settled{}, true, nil
	case conds[out.I]["kind"] == "grown":
		return Settled{Grew: true, Next: out.Screen}, true, nil
	}
	return Settled{Held: true}, true, nil
}

// scrollScope is the page and `this` of a call on el (nil: the page's
// window), bound to ctx.
func scrollScope(ctx context.Context, page *rod.Page, el *rod.Element) (*rod.Page, *proto.RuntimeRemoteObject) {
	if el == nil {
		return page.Context(ctx), nil
	}
	return el.Page().Context(ctx), el.Object
}
