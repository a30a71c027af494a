package record_test

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestFlushWaitsForEveryMessage: the field typed in last is sent by the
// capture script when it is flushed (an agent's page_fill, save_workflow),
// a message the browser hands on apart from the call's answer. Flush
// returns once every message was captured. Before, the answer could come
// first and a draft lacked the last action (seen in TestAgentRecords on a
// loaded machine: the value marked last was missing): 6 of 20 flushes.
func TestFlushWaitsForEveryMessage(t *testing.T) {
	t.Parallel()
	s := newProject(t, nil).start("many.html")
	h := s.hand
	h.wait(`!!document.getElementById("f20")`)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for i := 1; i <= 20; i++ {
		if _, err := h.p.Eval(fmt.Sprintf(`() => document.getElementById("f%d").focus()`, i)); err != nil {
			t.Fatal(err)
		}
		h.typeText(fmt.Sprintf("v%d", i))
		if err := s.rec.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		fills := 0
		for _, ev := range s.rec.Recording().Events {
			if ev.K == "fill" {
				fills++
			}
		}
		if fills != i {
			t.Errorf("right after flush %d the recording holds %d fills, want %d", i, fills, i)
		}
	}
}
