package record_test

import (
	"strings"
	"testing"
)

// TestRecordFrames: typing and clicking inside a web component's open
// shadow root, a same-site iframe and an iframe of another site (another
// process), then the summary marked as the value to return. Each element
// gets a target that names its frame's target; the replay returns the
// summary the person saw.
func TestRecordFrames(t *testing.T) {
	t.Parallel() // its own site, project and browser context
	p := newProject(t, nil)
	s := p.start("frames.html")
	h := s.hand
	h.clickJS(`document.querySelector("fancy-note").shadowRoot.querySelector("input")`)
	h.typeText("for Ann")
	h.clickJS(`document.querySelector("fancy-note").shadowRoot.querySelector("button")`)
	h.clickIn("#card", "#card-number")
	h.typeText("4242424242424242")
	h.clickIn("#card", "#check-card")
	h.clickIn("#partner", "#coupon")
	h.typeText("spring")
	h.clickIn("#partner", "#apply")
	h.wait(`document.querySelector("#summary").textContent === "note for Ann; card ending 4242; coupon SPRING"`)
	h.toolbar("value")
	h.click("#summary")
	d, env, diffs := s.finish("checkout_frames")
	t.Logf("workflow:\n%s", d.Workflow)
	if len(diffs) > 0 {
		t.Fatalf("the replay differs from what was seen: %v\nenvelope %+v", diffs, env)
	}
	if d.Observed["summary"] != "note for Ann; card ending 4242; coupon SPRING" {
		t.Errorf("observed %v", d.Observed)
	}
	var frames []string
	for _, e := range d.Entries {
		if e.Frame != "" {
			frames = append(frames, e.Name+" in "+e.Frame)
		}
	}
	joined := strings.Join(frames, "; ")
	for _, want := range []string{"card_number in lumen.checkout_frames.card_details_frame", "coupon in lumen.checkout_frames.partner_coupons_frame"} {
		if !strings.Contains(joined, want) {
			t.Errorf("no entry %q among framed entries: %s", want, joined)
		}
	}
}
