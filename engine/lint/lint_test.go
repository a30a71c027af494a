package lint_test

import (
	"testing"

	"github.com/toolwright/toolwright/engine/lint"
)

func TestSuggest(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cands []string
		want  string
	}{
		{"clik", []string{"click", "fill", "goto"}, ` (did you mean "click"?)`},
		{"fil", []string{"click", "fill", "goto"}, ` (did you mean "fill"?)`},
		{"visibel", []string{"visible", "hidden"}, ` (did you mean "visible"?)`}, // a transposition
		{"zzzzzz", []string{"click", "fill"}, ""},
		{"acme.login.emial", []string{"acme.login.email", "acme.catalog.rows"}, ` (did you mean "acme.login.email"?)`},
		{"shop.login.email", []string{"acme.login.email"}, ` (did you mean "acme.login.email"?)`}, // the same tail
		{"x", nil, ""},
	} {
		if got := lint.Suggest(tc.name, tc.cands); got != tc.want {
			t.Errorf("Suggest(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestProblemsSortAndString(t *testing.T) {
	var ps lint.Problems
	ps.Addf(lint.Pos{File: "b.yaml", Line: 2, Col: 1}, lint.BadValue, "second file")
	ps.Addf(lint.Pos{File: "a.yaml", Line: 9, Col: 3}, lint.BadValue, "later line")
	ps.Addf(lint.Pos{File: "a.yaml", Line: 1, Col: 5}, lint.Missing, "first")
	ps.Addf(lint.Pos{File: "a.yaml", Line: 1, Col: 5}, lint.Missing, "first") // an exact repeat
	ps = ps.Sort()
	want := []string{"a.yaml:1:5: first", "a.yaml:9:3: later line", "b.yaml:2:1: second file"}
	if len(ps) != len(want) {
		t.Fatalf("got %v", ps)
	}
	for i, p := range ps {
		if p.String() != want[i] {
			t.Errorf("%d: %s, want %s", i, p, want[i])
		}
	}
	if (lint.Problems{}).Err() != nil || ps.Err() == nil {
		t.Error("Err")
	}
	if got := (lint.Pos{File: "f"}).String(); got != "f" {
		t.Errorf("a position without a line: %q", got)
	}
}

// TestSuggestRanksExtensions: a name that is the start of a candidate (the
// author wrote part of it) is offered before a short name at a smaller edit
// distance. Failed before: nw.orders.filter → nw.orders.next.
func TestSuggestRanksExtensions(t *testing.T) {
	orders := []string{"nw.orders.next", "nw.orders.filter_orders", "nw.orders.rows", "nw.order.place"}
	for _, tc := range []struct {
		name  string
		cands []string
		want  string
	}{
		{"nw.orders.filter", orders, "nw.orders.filter_orders"},
		{"nw.orders.rows_all", orders, "nw.orders.rows"},
		{"nw.orders.nxt", orders, "nw.orders.next"},   // a typo still goes by spelling
		{"max", []string{"max_length", "min"}, "min"}, // too short to be a prefix
	} {
		if got := lint.Closest(tc.name, tc.cands); got != tc.want {
			t.Errorf("Closest(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}
