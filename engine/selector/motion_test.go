package selector

import (
	"testing"
)

// TestClickWaitsOnlyForWhatMoves: a click's element in view goes out
// without waiting for an animation frame unless an animation that can move
// things is running (page.js animating). A field's border and shadow
// fading in as it takes the focus moved nothing, yet every click after a
// fill on such a page waited a frame (16 ms at 60 Hz). The frames prepare
// waited are counted by the page in the same script, so the count does not
// depend on the machine's speed: prepare's answer comes in the same task
// (0 frames) or after a frame (1 and more).
func TestClickWaitsOnlyForWhatMoves(t *testing.T) {
	t.Parallel()
	cases := []struct {
		kind  string
		waits bool
	}{
		{"", false},
		{"paint", false},           // border-color, box-shadow, outline-color transitions
		{"paint-keyframes", false}, // background-color and color keyframes
		{"layout", true},           // margin-left
		{"transform", true},
		{"variable", true}, // a custom property may drive anything
	}
	for _, c := range cases {
		t.Run("kind="+c.kind, func(t *testing.T) {
			t.Parallel()
			_, p := openReal(t, "/motion.html")
			if c.kind != "" {
				if n := p.MustEval(`(k) => start(k)`, c.kind).Int(); n == 0 {
					t.Fatalf("start(%q): no animation running", c.kind)
				}
			}
			v := p.MustEval(`async (js) => {
				let frames = 0, on = true;
				const tick = () => { if (on) { frames++; requestAnimationFrame(tick); } };
				requestAnimationFrame(tick);
				const out = await (0, eval)("(" + js + ")").apply(document.getElementById("go"), ["prepare", { press: true, settle: true }]);
				on = false;
				return { frames, out };
			}`, pageJS)
			if out := v.Get("out"); !out.Get("cover").Nil() || !out.Has("x") {
				t.Fatalf("prepare: %s", out.JSON("", ""))
			}
			if waited := v.Get("frames").Int() > 0; waited != c.waits {
				t.Errorf("prepare waited %d frames, want waits=%v", v.Get("frames").Int(), c.waits)
			}
		})
	}
}
