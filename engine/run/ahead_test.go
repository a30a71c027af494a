package run_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/internal/harness"
)

// TestReadAhead: the extracts after a wait, with only set and fail steps
// between, are read in the wait's own request (the trace's read_with names
// it); an extract whose read a set between changed reads again, and a
// loop's steps read each page anew.
func TestReadAhead(t *testing.T) {
	t.Parallel()
	h := harness.New(t, map[string]string{
		"rows": `name: rows
description: Read ahead.html's rows.
risk: read
steps:
  - set: {n: 4}
  - goto: ${{ config.acme_base }}/ahead.html
  - wait: {any: [{visible: ahead.rows}, {text: "No rows"}], into: state}
  - fail: {code: no_rows, message: the page has no rows}
    if: vars.state == 1
  - extract: {from: ahead.heading, into: heading}
  - extract: {from: ahead.rows, fields: {name: ahead.name}, into: rows}
  - set: {n: 2}
  - extract: {from: ahead.rows, limit: "${{ vars.n }}", fields: {name: ahead.name}, into: two}
output:
  heading: ${{ vars.heading }}
  rows: ${{ vars.rows }}
  two: ${{ vars.two }}
`,
		"pages": `name: pages
description: Read three of ahead.html's pages of rows.
risk: read
steps:
  - goto: ${{ config.acme_base }}/ahead.html
  - paginate:
      next: ahead.more
      max_pages: 3
      steps:
        - wait: {visible: ahead.rows}
        - extract: {from: ahead.rows, fields: {name: ahead.name}, into: rows, append: true}
        - extract: {from: ahead.heading, into: heading}
output:
  rows: ${{ vars.rows }}
  heading: ${{ vars.heading }}
`,
		"direct": `name: direct
description: Read three of ahead.html's pages of rows, without a wait.
risk: read
steps:
  - goto: ${{ config.acme_base }}/ahead.html?delay=0
  - wait: {visible: ahead.rows}
  - paginate:
      next: ahead.more
      max_pages: 3
      steps:
        - extract: {from: ahead.rows, fields: {name: ahead.name}, into: rows, append: true}
        - extract: {from: ahead.heading, into: heading}
output:
  rows: ${{ vars.rows }}
  heading: ${{ vars.heading }}
`,
	}, func(c *config.Config) {
		harness.AddSelectors(t, c, "ahead.heading:\n  css: h1\nahead.rows:\n  css: \"#rows li.row\"\n  many: true\nahead.name:\n  within: ahead.rows\n  css: .name\nahead.more:\n  css: \"#more\"\n")
	})

	names := func(v any) string {
		b, _ := json.Marshal(v)
		var l struct {
			Items     []struct{ Name string }
			Truncated bool
		}
		_ = json.Unmarshal(b, &l)
		s := ""
		for _, it := range l.Items {
			s += it.Name + ";"
		}
		if l.Truncated {
			s += "…"
		}
		return s
	}
	env := h.OK(h.Call("rows", `{}`))
	if env.Data["heading"] != "Ahead" || names(env.Data["rows"]) != "row 1;row 2;row 3;row 4;" || names(env.Data["two"]) != "row 1;row 2;…" {
		t.Errorf("rows: %s", env.JSON())
	}
	readWith := map[string]string{}
	for _, s := range h.Trace(env).Steps {
		readWith[s.Path] = s.ReadWith
	}
	// Steps 5 and 6 (heading, rows) were read by the wait (step 3); step
	// 8 asked for 2 rows where 4 were read ahead, so it read them itself.
	for path, want := range map[string]string{"3": "", "5": "3", "6": "3", "8": ""} {
		if readWith[path] != want {
			t.Errorf("step %s read_with %q, want %q (trace: %v)", path, readWith[path], want, readWith)
		}
	}

	env = h.OK(h.Call("pages", `{}`))
	if got := names(env.Data["rows"]); got != "row 1;row 2;row 3;row 4;row 5;row 6;row 7;row 8;row 9;row 10;row 11;row 12;…" || env.Data["heading"] != "Ahead" {
		t.Errorf("pages: %s", env.JSON())
	}
	// Each page's wait read that page's two extracts.
	n := 0
	for _, s := range h.Trace(env).Steps {
		if s.Kind == "extract" {
			n++
			if s.ReadWith != "2.1" {
				t.Errorf("pages: step %s read_with %q, want 2.1", s.Path, s.ReadWith)
			}
		}
	}
	if n != 6 {
		t.Errorf("pages: %d extract records, want 6", n)
	}

	// Without a wait in the page's steps: the first page's rows read its
	// heading ahead; each next page's two extracts were read by the
	// paginate step (3) in the request that saw that page arrive.
	env = h.OK(h.Call("direct", `{}`))
	if got := names(env.Data["rows"]); got != "row 1;row 2;row 3;row 4;row 5;row 6;row 7;row 8;row 9;row 10;row 11;row 12;…" || env.Data["heading"] != "Ahead" {
		t.Errorf("direct: %s", env.JSON())
	}
	var got []string
	for _, s := range h.Trace(env).Steps {
		if s.Kind == "extract" {
			got = append(got, s.Path+"<"+s.ReadWith)
		}
	}
	if want := []string{"3.1<", "3.2<3.1", "3.1<3", "3.2<3", "3.1<3", "3.2<3"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("direct: extracts (path<read_with) %v, want %v", got, want)
	}
}
