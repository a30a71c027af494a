package selector

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/toolwright/toolwright/engine/errs"
)

// TestClickHeldBackWhenThePageMoves: the page moves between the engine's
// aim and its press (testdata/real/resolve/shift.html: a notice is inserted
// above the actions once the pointer moves, as phpMyAdmin's operations page
// did after load). The press at the old place would land on the row above,
// "Empty the table", and the click was answered ok. The press must go to the
// target, or to nothing: the guard holds the stray press back and the click
// is aimed again.
func TestClickHeldBackWhenThePageMoves(t *testing.T) {
	t.Parallel()
	m := loadMap(t, `
s.drop:
  css: "#drop"
`)
	for _, c := range []struct {
		what  string
		click func(context.Context, *rod.Page) error
	}{
		{"click", func(ctx context.Context, p *rod.Page) error {
			mt, err := m.Resolve(ctx, p, "s.drop", Options{Visible: true})
			if err != nil {
				return err
			}
			return Click(ctx, mt.Element(), ActOptions{Name: "s.drop"})
		}},
		{"ready click", func(ctx context.Context, p *rod.Page) error {
			rd, err := m.Ready(ctx, p, "s.drop", ReadyOptions{})
			if err != nil || rd == nil {
				return fmt.Errorf("ready: %v, %v", rd, err)
			}
			return rd.Click(ctx)
		}},
		// paginate's way: the wait after the click asks what the press
		// came to in its first look.
		{"ready click then a wait", func(ctx context.Context, p *rod.Page) error {
			rd, err := m.Ready(ctx, p, "s.drop", ReadyOptions{})
			if err != nil || rd == nil {
				return fmt.Errorf("ready: %v, %v", rd, err)
			}
			waits := 0
			err = rd.ClickThen(ctx, func(ctx context.Context) error {
				waits++
				_, err := WaitChanged(ctx, p, nil, Before{URL: "about:never", Pressed: true}, nil)
				return err
			})
			// The notice may come before the aim (a mouse move the browser
			// makes up after layout) or between the aim and the press: a
			// wait for each press, the one held back included.
			if presses := p.MustEval(`() => window.presses`).Int(); waits != presses {
				return fmt.Errorf("the wait ran %d times for %d presses, want one for each (%v)", waits, presses, err)
			}
			return err
		}},
	} {
		t.Run(c.what, func(t *testing.T) {
			_, p := openReal(t, "/shift.html")
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			if err := c.click(ctx, p); err != nil {
				t.Fatalf("%s: %v", c.what, err)
			}
			got := p.MustEval(`() => JSON.stringify(window.clicks)`).Str()
			if got != `["drop"]` {
				t.Errorf("%s answered ok and the page saw the clicks %s, want [\"drop\"] only", c.what, got)
			}
		})
	}
}

// saveMap names the button of testdata/real/resolve/frame-over.html.
const saveMap = `
s.save:
  css: "#save"
`

// openFrameOver opens frame-over.html once its frame from another site has
// loaded.
func openFrameOver(t *testing.T) *rod.Page {
	t.Helper()
	_, p := openReal(t, "/frame-over.html")
	p.MustEval(`() => window.offerLoaded`)
	return p
}

// TestPressThatAFrameTook: between the engine's aim and its press, the
// page moves a frame from another site over the target
// (testdata/real/resolve/frame-over.html: an ad sliding in). The browser
// sends the press to the frame's process; the target's page sees no press
// at all. That answered ok (no press seen was taken for a press that
// navigated), and nothing had been clicked: it is a miss, to aim again.
func TestPressThatAFrameTook(t *testing.T) {
	t.Parallel()
	m := loadMap(t, saveMap)
	// aim prepares the target and moves the mouse onto it; it answers the
	// element (nil after Ready) and the point.
	for _, c := range []struct {
		what string
		aim  func(context.Context, *rod.Page) (*proto.RuntimeRemoteObject, point, error)
	}{
		{"click", func(ctx context.Context, p *rod.Page) (*proto.RuntimeRemoteObject, point, error) {
			mt, err := m.Resolve(ctx, p, "s.save", Options{Visible: true})
			if err != nil {
				return nil, point{}, err
			}
			el := mt.Element()
			pt, err := prepare(ctx, el, "s.save", prep{press: true})
			return el.Object, pt, err
		}},
		{"ready click", func(ctx context.Context, p *rod.Page) (*proto.RuntimeRemoteObject, point, error) {
			rd, err := m.Ready(ctx, p, "s.save", ReadyOptions{})
			if err != nil || rd == nil {
				return nil, point{}, fmt.Errorf("ready: %v, %v", rd, err)
			}
			return nil, rd.pt, nil
		}},
	} {
		t.Run(c.what, func(t *testing.T) {
			p := openFrameOver(t)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			// The browser routes the press by what it last drew: on a very
			// busy machine the frame may not be drawn there yet, and the
			// page itself holds the press back (its guard sees the iframe).
			// Only a press the frame took tells; try until one does.
			for try := 1; ; try++ {
				this, pt, err := c.aim(ctx, p)
				if err != nil {
					t.Fatalf("aim: %v", err)
				}
				if !pt.Verify {
					t.Fatalf("a page with a frame from another site must have its moves checked")
				}
				if ok, err := moveTo(ctx, p, this, pt, "s.save", true); !ok || err != nil {
					t.Fatalf("the move to the uncovered button: %v, %v", ok, err)
				}
				p.MustEval(`() => window.coverSave()`)
				away := 0
				done, err := pressChecked(ctx, p, this, pt, "s.save", &away)
				took := p.MustEval(`() => new Promise((resolve) => {
					const end = performance.now() + 2000;
					const poll = () => window.framePresses > 0 || performance.now() > end ? resolve(window.framePresses) : setTimeout(poll, 20);
					poll();
				})`).Int()
				p.MustEval(`() => { window.framePresses = 0; window.uncover(); }`)
				if took == 0 {
					if try == 5 {
						t.Fatalf("in 5 tries the frame never took the press (last: done %v, %v)", done, err)
					}
					continue
				}
				if clicks := p.MustEval(`() => window.clicks`).Int(); done || err != nil || clicks != 0 {
					t.Fatalf("the frame took the press: want a miss to aim again (false, nil) and no click, got %v, %v, %d clicks", done, err, clicks)
				}
				return
			}
		})
	}
}

// TestClickWhereAFrameSlidesIn: Click on a target that a frame from
// another site slides over as the pointer reaches it, and away once it was
// pressed. Whatever the timing, ok means the page saw exactly one click;
// otherwise the click fails target_covered with nothing clicked.
func TestClickWhereAFrameSlidesIn(t *testing.T) {
	t.Parallel()
	m := loadMap(t, saveMap)
	for i := 0; i < 3; i++ {
		p := openFrameOver(t)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		p.MustEval(`() => { window.coverOnMove = true; }`)
		rd, err := m.Ready(ctx, p, "s.save", ReadyOptions{})
		if err != nil || rd == nil {
			cancel()
			t.Fatalf("ready: %v, %v", rd, err)
		}
		err = rd.Click(ctx)
		cancel()
		clicks := p.MustEval(`() => window.clicks`).Int()
		switch {
		case err == nil && clicks != 1:
			t.Errorf("load %d: ok, and the page saw %d clicks", i, clicks)
		case err != nil && (errs.CodeOf(err) != errs.TargetCovered || clicks != 0):
			t.Errorf("load %d: %v with %d clicks, want ok with one click or target_covered with none", i, err, clicks)
		}
	}
}

// TestPressesHiddenFromTheGuard: on a page with a frame from another site,
// a press the guard never sees counts as one the frame took, and is made
// again; a page whose own listener stops every press before the guard
// (testdata/real/resolve/frame-over.html with swallow) is pressed maxAway
// times, then the click fails target_covered instead of pressing forever.
func TestPressesHiddenFromTheGuard(t *testing.T) {
	t.Parallel()
	m := loadMap(t, saveMap)
	p := openFrameOver(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p.MustEval(`() => { window.swallow = true; }`)
	rd, err := m.Ready(ctx, p, "s.save", ReadyOptions{})
	if err != nil || rd == nil {
		t.Fatalf("ready: %v, %v", rd, err)
	}
	err = rd.Click(ctx)
	if errs.CodeOf(err) != errs.TargetCovered || ctx.Err() != nil {
		t.Fatalf("want target_covered before the step's time ends, got %v", err)
	}
	if n := p.MustEval(`() => window.swallowed`).Int(); n != maxAway {
		t.Errorf("the page was pressed %d times, want %d", n, maxAway)
	}
}
