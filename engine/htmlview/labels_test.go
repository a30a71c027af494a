package htmlview

import (
	"fmt"
	"math/rand"
	"testing"
)

// TestLayoutShotNeverOverlaps: however crowded the boxes, the labels of a
// picture overlap neither each other nor the frame's edges, sit on the
// picture or in the gutter beside it, and one is drawn per boxed target.
func TestLayoutShotNeverOverlaps(t *testing.T) {
	for seed := int64(1); seed <= 20; seed++ {
		rnd := rand.New(rand.NewSource(seed))
		p := ReportPage{Width: 400 + float64(rnd.Intn(1000)), Height: 100 + float64(rnd.Intn(900))}
		n := 1 + rnd.Intn(150)
		for i := 0; i < n; i++ {
			name := fmt.Sprintf("t.%d", i)
			if rnd.Intn(4) == 0 {
				name += ".a_much_longer_target_name_that_takes_room"
			}
			// Boxes anywhere, some sticking out of the picture, some tiny.
			b := Box{X: rnd.Float64()*p.Width - 20, Y: rnd.Float64()*p.Height - 20, W: 2 + rnd.Float64()*120, H: 2 + rnd.Float64()*60}
			p.Targets = append(p.Targets, ReportTarget{Name: name, Status: "primary", Locator: "css #x", Boxes: []Box{b}})
		}
		p.Targets = append(p.Targets, ReportTarget{Name: "t.none", Status: "not_found"})
		s := layoutShot(p)
		if len(s.Labels) != n {
			t.Fatalf("seed %d: %d labels for %d boxed targets", seed, len(s.Labels), n)
		}
		var rs []rect
		for _, l := range s.Labels {
			r := rect{l.X, l.Y, l.W, labelH}
			onPicture := r.x >= 0 && r.y >= 0 && r.x+r.w <= p.Width && r.y+r.h <= p.Height
			inGutter := r.x >= p.Width+gutterGap && r.y >= 0 && r.x+r.w <= s.Width && r.y+r.h <= s.Height
			if !onPicture && !inGutter {
				t.Errorf("seed %d: label %s at %+v is neither on the %gx%g picture nor in the gutter (frame %gx%g)", seed, l.Target, r, p.Width, p.Height, s.Width, s.Height)
			}
			for _, q := range rs {
				if r.overlaps(q) {
					t.Errorf("seed %d: label %s at %+v overlaps one at %+v", seed, l.Target, r, q)
				}
			}
			rs = append(rs, r)
		}
	}
}

// TestLayoutShotNextToBox: with room, a label sits right above its box.
func TestLayoutShotNextToBox(t *testing.T) {
	s := layoutShot(ReportPage{Width: 800, Height: 600, Targets: []ReportTarget{
		{Name: "a.b", Status: "primary", Locator: "css #b", Boxes: []Box{{100, 200, 50, 20}}},
	}})
	if len(s.Labels) != 1 || s.Labels[0].X != 100 || s.Labels[0].Y != 200-labelH-labelGap || len(s.Leaders) != 0 || s.Width != 800 || s.Height != 600 {
		t.Errorf("%+v", s)
	}
}
