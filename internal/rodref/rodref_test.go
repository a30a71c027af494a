package rodref_test

import (
	"context"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/google/go-cmp/cmp"
	"github.com/toolwright/toolwright/internal/rodref"
	"github.com/toolwright/toolwright/internal/testsite"
)

// TestSearchBothFills: the reference reads the same 15 rows filling either
// way, in a fresh context and in a kept page, and counts its requests.
func TestSearchBothFills(t *testing.T) {
	s := testsite.Start(t)
	var n rodref.Counter
	b := testsite.RefBrowser(t, &n)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	o := rodref.Options{Base: s.URL(""), User: "a@example.com", Password: "pw", Query: "ACM", Pages: 3}
	var first []rodref.Row
	for _, f := range []rodref.Fill{rodref.FillToolwright, rodref.FillRod} {
		o.Fill = f
		n.Reset()
		rows, err := rodref.Search(ctx, b, o)
		if err != nil {
			t.Fatalf("fill %s: %v", f, err)
		}
		if len(rows) != 15 || rows[0].SKU != "ACM-1001" || rows[14].SKU != "ACM-1015" {
			t.Fatalf("fill %s: rows %v", f, rows)
		}
		if first == nil {
			first = rows
		} else if diff := cmp.Diff(first, rows); diff != "" {
			t.Errorf("the two fills read other rows (-toolwright +rod):\n%s", diff)
		}
		if got := n.ByMethod()["Input.insertText"]; got != 3 {
			t.Errorf("fill %s: %d Input.insertText, want one per filled field (3)", f, got)
		}
		if n.Total() < 20 {
			t.Errorf("fill %s: only %d CDP requests counted", f, n.Total())
		}
	}
	inc, err := b.Incognito()
	if err != nil {
		t.Fatal(err)
	}
	if o.Page, err = inc.Page(proto.TargetCreateTarget{}); err != nil {
		t.Fatal(err)
	}
	for range 2 { // the second run starts signed in on the kept page
		if rows, err := rodref.Search(ctx, b, o); err != nil || len(rows) != 15 {
			t.Fatalf("kept page: %d rows, %v", len(rows), err)
		}
	}
	if err := rodref.FillWith("typewriter", nil, "x"); err == nil {
		t.Error("an unknown fill was accepted")
	}
}
