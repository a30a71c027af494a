package selector

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestExtractReadsStyledRowsAsShown reads a page of 80 rows × 6 fields
// (enough cells that the extract asks one style query per element that may
// declare text-transform or visibility, not one per cell) whose cells are
// styled every way that changes what a person sees: rules on the cell, on
// its row, on its section and in @media, inline styles, `all: unset`, a
// button the browser's own sheet styles, visibility hidden and visible
// again, nested elements and line breaks. Every value must equal the
// element's innerText (white space collapsed) as the page shows it; a
// field found by its fallback in half the rows is named in Fields; a field
// with two matches in a row takes the visible one; a missing one is null.
func TestExtractReadsStyledRowsAsShown(t *testing.T) {
	t.Parallel()
	_, p := openReal(t, "/styled.html")
	m := loadMap(t, `
s.rows: {css: "#styled tr.row", many: true}
s.a: {within: s.rows, css: td.a}
s.b: {within: s.rows, css: td.b}
s.c: {within: s.rows, css: td.c}
s.d: {within: s.rows, css: "td.d button, td.d span"}
s.e: {within: s.rows, css: td.e}
s.fb:
  within: s.rows
  css: i.fb1
  fallbacks:
    - css: i.fb2
s.two: {within: s.rows, css: b.two}
s.none: {within: s.rows, css: td.nowhere}
`)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	names := []string{"a", "b", "c", "d", "e", "fb", "two", "none"}
	spec := ExtractSpec{From: "s.rows", List: true}
	for _, n := range names {
		spec.Fields = append(spec.Fields, FieldSpec{Name: n, Target: "s." + n})
	}
	ex, err := m.Extract(ctx, p, spec)
	if err != nil {
		t.Fatal(err)
	}
	// What the page shows, read one cell at a time with innerText.
	res, err := p.Eval(`() => Array.from(document.querySelectorAll("#styled tr.row")).map((tr) => {
		const o = {};
		for (const f of ["a", "b", "c", "d", "e", "fb", "two", "none"]) {
			const el = tr.querySelector("[data-want=" + f + "]");
			o[f] = el ? el.innerText.replace(/\s+/g, " ").trim() : null;
		}
		return o;
	})`)
	if err != nil {
		t.Fatal(err)
	}
	want := res.Value.Arr()
	if len(ex.Items) != 80 || len(want) != 80 {
		t.Fatalf("read %d rows, the page has %d", len(ex.Items), len(want))
	}
	differ, transformed, hidden := 0, 0, 0
	for i, it := range ex.Items {
		got := it.(map[string]any)
		for _, n := range names {
			w := want[i].Get(n)
			var ws any
			if !w.Nil() {
				ws = w.Str()
			}
			if got[n] != ws {
				differ++
				if differ <= 10 {
					t.Errorf("row %d field %s: read %q, the page shows %q", i, n, got[n], ws)
				}
			}
			if s, ok := ws.(string); ok {
				switch {
				case s == "":
					hidden++
				case s == strings.ToUpper(s) && s != strings.ToLower(s):
					transformed++
				}
			}
		}
	}
	// The fixture must show what it is meant to test.
	if transformed < 20 || hidden < 10 {
		t.Errorf("the fixture shows %d upper-cased and %d hidden values: it no longer tests styles", transformed, hidden)
	}
	if fmt.Sprint(ex.Fields) != "[fb: fallback 1 (css)]" {
		t.Errorf("fields traced %v, want [fb: fallback 1 (css)]", ex.Fields)
	}
}

// TestStringArray: the quick decoder of extract's values reads what
// encoding/json reads, escapes and all.
func TestStringArray(t *testing.T) {
	vals := []any{"", "plain", `a "quoted" word`, `back\\slash`, "tab\tand\nnewline", "\u2028line sep", "é à ü", "🙂 emoji", "\x00nul", nil, "</script>", "end"}
	raw, err := json.Marshal(vals)
	if err != nil {
		t.Fatal(err)
	}
	got, err := stringArray(string(raw), len(vals))
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprintf("%#v", got) != fmt.Sprintf("%#v", vals) {
		t.Errorf("decoded %#v, want %#v", got, vals)
	}
	for _, bad := range []string{"", "[", `["a"`, `["a",]`, `["a" "b"]`, `[1]`, `{"a":1}`} {
		if _, err := stringArray(bad, 0); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if got, err := stringArray("[]", 0); err != nil || len(got) != 0 {
		t.Errorf("[]: %v, %v", got, err)
	}
}

// TestPageJSCompact: page.js is sent without its comments and indentation,
// which only works while it writes no string or template across lines.
func TestPageJSCompact(t *testing.T) {
	if strings.Contains(pageJS, "`") {
		t.Error("page.js uses a template literal: compactJS could change a multi-line one")
	}
	for i, l := range strings.Split(pageJSSource, "\n") {
		if strings.HasSuffix(strings.TrimRight(l, " \t"), "\\") {
			t.Errorf("page.js line %d continues a string on the next line", i+1)
		}
	}
	if len(pageJS) > len(pageJSSource)*3/4 {
		t.Errorf("compacted page.js is %d of %d bytes", len(pageJS), len(pageJSSource))
	}
}
