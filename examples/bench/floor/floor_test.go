package main

import (
	"context"
	"testing"

	"github.com/toolwright/toolwright/internal/rodref"
	"github.com/toolwright/toolwright/internal/testsite"
)

// TestFloorAction: the floor reads the same 15 rows as the workflow, on a
// kept page and again signed in, in pages+2 requests per run.
func TestFloorAction(t *testing.T) {
	site := testsite.Start(t)
	var n rodref.Counter
	b := testsite.RefBrowser(t, &n)
	s, dispose, err := open(b)
	if err != nil {
		t.Fatal(err)
	}
	defer dispose()
	for run := range 2 {
		n.Reset()
		rows, err := s.action(context.Background(), site.URL(""), "a@example.com", "pw", "ACM", 3)
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if len(rows) != 15 || rows[0][0] != "ACM-1001" || rows[5][0] != "ACM-1006" || rows[14][0] != "ACM-1015" || rows[0][2] != "$129.00" {
			t.Fatalf("run %d: rows %v", run, rows)
		}
		if got := n.Total(); got != 5 {
			t.Errorf("run %d: %d CDP requests (%v), want 5: navigate + one evaluate per step", run, got, n.ByMethod())
		}
	}
}
