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
