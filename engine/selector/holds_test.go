package selector

import (
	"context"
	"testing"
	"time"
)

// TestHolds: Map.Holds answers at once which condition holds now, with
// Wait's checks: counts of visible matches, visibility, text (frames
// included) and targets inside frames (checked from Go); network idleness
// never holds there, and nothing is waited for.
func TestHolds(t *testing.T) {
	t.Parallel()
	m := loadMap(t, realMap+`
real.box.messages:
  css: "#inbox li.msg"
  many: true
real.box.inbox:
  css: "#inbox"
real.box.none:
  css: "#no-such-box"
real.box.by_role:
  css: "#no-such-box"
  fallbacks:
    - role: list
real.box.messages_or_items:
  css: "#inbox li.msg"
  many: true
  fallbacks:
    - role: listitem
`)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	_, p := openReal(t, "/scrollbox.html")
	for _, tc := range []struct {
		name  string
		conds []Cond
		want  int
	}{
		{"5 of 5 messages", []Cond{{Kind: CondCount, Target: "real.box.messages", Min: 5}}, 0},
		{"6 of 5 messages", []Cond{{Kind: CondCount, Target: "real.box.messages", Min: 6}}, -1},
		{"visible box", []Cond{{Kind: CondVisible, Target: "real.box.inbox"}}, 0},
		{"hidden missing box", []Cond{{Kind: CondHidden, Target: "real.box.none"}}, 0},
		{"visible missing box", []Cond{{Kind: CondVisible, Target: "real.box.none"}}, -1},
		{"text", []Cond{{Kind: CondText, Text: "Old 3"}}, 0},
		{"text only a scroll brings", []Cond{{Kind: CondText, Text: "All messages"}}, -1},
		{"the first that holds", []Cond{{Kind: CondVisible, Target: "real.box.none"}, {Kind: CondText, Text: "Message 5"}, {Kind: CondVisible, Target: "real.box.inbox"}}, 1},
		{"idle never holds", []Cond{{Kind: CondIdle, Quiet: time.Millisecond}}, -1},
		// A role fallback after css: the page answers what the css shows,
		// Go the rest (and every hidden condition).
		{"visible by the role fallback", []Cond{{Kind: CondVisible, Target: "real.box.by_role"}}, 0},
		{"not hidden by the role fallback", []Cond{{Kind: CondHidden, Target: "real.box.by_role"}}, -1},
		{"visible by the role fallback, after a text", []Cond{{Kind: CondText, Text: "No such text"}, {Kind: CondVisible, Target: "real.box.by_role"}}, 1},
		{"5 of 5 by css before a role", []Cond{{Kind: CondCount, Target: "real.box.messages_or_items", Min: 5}}, 0},
		{"6 of 5 by css before a role", []Cond{{Kind: CondCount, Target: "real.box.messages_or_items", Min: 6}}, -1},
	} {
		got, err := m.Holds(ctx, p, tc.conds)
		if err != nil || got != tc.want {
			t.Errorf("%s: %d, %v; want %d", tc.name, got, err, tc.want)
		}
	}
	// A target inside a cross-site frame is checked from Go.
	_, fp := openReal(t, "/frames.html")
	// Holds checks once; the cross-site frame's own process may attach
	// after the top document's load (at a load of 80): asked again until it
	// holds, within ctx.
	for {
		got, err := m.Holds(ctx, fp, []Cond{{Kind: CondVisible, Target: "real.card.number"}})
		if err == nil && got == 0 {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("frame target: %d, %v", got, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got, err := m.Holds(ctx, fp, []Cond{{Kind: CondVisible, Target: "real.card.lost"}}); got != -1 {
		t.Errorf("target in a missing frame: %d, %v", got, err)
	}
}
