package run_test

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"
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
		"blocks": `name: blocks
description: Read ahead.html's rows in blocks after a wait.
risk: read
steps:
  - goto: ${{ config.acme_base }}/ahead.html?delay=0
  - wait: {any: [{visible: ahead.rows}, {text: "No rows"}], into: state}
  - do:
      - set: {n: 1}
      - extract: {from: ahead.heading, into: heading}
      - do:
          - extract: {from: ahead.rows, fields: {name: ahead.name}, into: rows}
        if: vars.n == 1
    if: vars.state == 0
  - do:
      - extract: {from: ahead.heading, into: never}
    if: vars.state == 1
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

	// Without a wait in the page's steps: the wait before the paginate
	// (2) read the first page's two extracts, in its own request; each
	// next page's were read by the paginate step (3) in the request that
	// saw that page arrive. (Before the read went on into the paginate's
	// first page, the first page's rows were read by their own step and
	// read its heading ahead: one request more, behind a page just loaded.)
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
	if want := []string{"3.1<2", "3.2<2", "3.1<3", "3.2<3", "3.1<3", "3.2<3"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("direct: extracts (path<read_with) %v, want %v", got, want)
	}

	// The wait reads on into the blocks that run at once after it, nested
	// ones too, whatever their if: the first block's two extracts.
	env = h.OK(h.Call("blocks", `{}`))
	if got := names(env.Data["rows"]); got != "row 1;row 2;row 3;row 4;" || env.Data["heading"] != "Ahead" {
		t.Errorf("blocks: %s", env.JSON())
	}
	got = nil
	for _, s := range h.Trace(env).Steps {
		if s.Kind == "extract" {
			got = append(got, s.Path+"<"+s.ReadWith)
		}
	}
	if want := []string{"3.2<2", "3.3.1<2"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("blocks: extracts (path<read_with) %v, want %v", got, want)
	}
}

// TestPaginateArrivesWithItsList: a list paginated in place has arrived
// once its rows stood still after the page's requests ended. On a page
// that never stops moving (a script-driven ticker changes its DOM every
// 16 ms), waiting for the whole DOM to be quiet never ended: the step ran
// out of time (navigation_failed) though every page was there. A list
// emptied at the press and drawn 120 ms later (after the 50 ms the DOM
// stood still) was read empty: ok, with a page of rows missing. A next
// page with no rows at all has arrived once none came for 500 ms, however
// the rest of the page moves; and a pager drawn a moment after its list
// is not the last page.
func TestPaginateArrivesWithItsList(t *testing.T) {
	t.Parallel()
	page := func(name, query, first string) string {
		return `name: ` + name + `
description: Read three pages of ahead.html's rows.
risk: read
steps:
  - goto: ${{ config.acme_base }}/ahead.html?delay=0&` + query + `
  - wait: {visible: ahead.rows}
  - paginate:
      next: ahead.more
      max_pages: 3
      steps:` + first + `
        - extract: {from: ahead.rows, fields: {name: ahead.name}, into: rows, append: true}
    timeout: 5s
output:
  rows: ${{ vars.rows }}
`
	}
	h := harness.New(t, map[string]string{
		// The page's first extract is read as the page arrives.
		"busy": page("busy", "busy=1", ""),
		// A wait first: nothing is read ahead, the list is still watched.
		"busywait": page("busywait", "busy=1", "\n        - wait: {visible: ahead.rows}"),
		"late":     page("late", "redraw=120", ""),
		// Next found by its role: clicked the other way, the list watched too.
		"laterole": strings.Replace(page("laterole", "redraw=120", ""), "next: ahead.more", "next: ahead.more_role", 1),
		// Next drawn again 80 ms after the rows: not the last page.
		"pager": page("pager", "pager=80", ""),
		// Rows drawn, then their names filled 120 ms later by a timer the
		// drawing set: read once the click's work has run (the follow
		// hook), not once the list stood still for a moment.
		"details": page("details", "details=120", ""),
		// Pages with no rows on a page that never stands still.
		"busyempty": page("busyempty", "busy=1&empty=1", ""),
	}, func(c *config.Config) {
		harness.AddSelectors(t, c, "ahead.rows:\n  css: \"#rows li.row\"\n  many: true\nahead.name:\n  within: ahead.rows\n  css: .name\nahead.more:\n  css: \"#more\"\nahead.more_role:\n  role: button\n  name: More\n")
	})
	want := map[string]string{"busyempty": "[row 1 row 2 row 3 row 4]"}
	for _, name := range []string{"busy", "busywait", "late", "laterole", "pager", "details", "busyempty"} {
		env := h.Call(name, `{}`)
		if !env.OK {
			t.Errorf("%s: %s", name, env.JSON())
			continue
		}
		b, _ := json.Marshal(env.Data["rows"])
		var l struct {
			Items     []struct{ Name string }
			Truncated bool
		}
		_ = json.Unmarshal(b, &l)
		var got []string
		for _, it := range l.Items {
			got = append(got, it.Name)
		}
		want := cmp.Or(want[name], "[row 1 row 2 row 3 row 4 row 5 row 6 row 7 row 8 row 9 row 10 row 11 row 12]")
		if fmt.Sprint(got) != want || !l.Truncated {
			t.Errorf("%s: rows %v (truncated %v), want %s (truncated)", name, got, l.Truncated, want)
		}
	}
}
