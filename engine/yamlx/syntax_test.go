package yamlx

import (
	"testing"

	"github.com/toolwright/toolwright/engine/lint"
)

// TestSyntaxExplained: each kind of parser error is said in an author's
// words, with the fix, at the place to change.
func TestSyntaxExplained(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"name: x\nsteps:\n\t- goto: u\n", "f:3:1: a tab in the indentation: YAML indents with spaces only; replace the tab with spaces (set your editor to insert spaces)"},
		{"name: x\nsteps:\n  - goto: u\n  \t- click: a\n", "f:4:3: a tab in the indentation: YAML indents with spaces only; replace the tab with spaces (set your editor to insert spaces)"},
		{"name: x\nsteps:\n  - fill: {target: a, value: ${{ params.q }}}\n", `f:3:30: inside a {...} or [...] flow collection a bare ${{ reads as a map: quote the template, as in value: "${{ params.query }}"`},
		{"name: \"x\nsteps: []\n", `f:1:7: the double quote " opened here is never closed: end the value with " (to put a " inside, quote the value with the other kind of quote)`},
		{"name: x\ntitle: 'it\ndescription: d\n", `f:2:8: the single quote ' opened here is never closed: end the value with ' (to put a ' inside, quote the value with the other kind of quote)`},
		{"name: x\n  title: y\n", `f:2:3: this line is indented deeper than the line above, whose key already has a value: line it up with "name" (or move that value onto its own lines)`},
		{"steps:\n  - goto: u\n   - click: b\n", "f:3:4: this list item is indented 3 spaces, the item above 2: line them up (or end the line above with a key and a colon to start a nested list)"},
		{"css: * > a\n", `f:1:6: a value starting with * is a YAML alias: quote it, as in "* > a"`},
		{"css: *foo\n", `f:1:6: a value starting with * is a YAML alias: quote it, as in "*foo"`},
		{"text: @user\n", "f:1:7: a value cannot start with @ in YAML: quote it, as in '@user'"},
		{"text: `code`\n", "f:1:7: a value cannot start with ` in YAML: quote it, as in '`code`'"},
		{"text: Note: this\n", `f:1:11: the value contains ": ", which YAML reads as another key: quote the value, as in 'Note: this'`},
		// A quoted template with text before it is not bare: the cause is the
		// colon further down, not the flow map above it.
		{"steps:\n  - set: {w: \"word ${{ vars.w }}\"}\n  - set: {v: 'it''s ${{ vars.w }}'}\noutput:\n  odd: ${{ 1 == 2 ? 3 : 4 }}\n", `f:5:23: the value contains ": ", which YAML reads as another key: quote the value, as in '${{ 1 == 2 ? 3 : 4 }}'`},
		{"steps:\n  - set: {a: 1, w: ${{ vars.w }}}\n", `f:2:20: inside a {...} or [...] flow collection a bare ${{ reads as a map: quote the template, as in value: "${{ params.query }}"`},
		{"a: [1, 2\n", "f:1:4: the [ opened here is not closed on its line: add ] at the end (or check for a missing comma between entries)"},
		{"a: {b: 1\n", "f:1:4: the { opened here is not closed on its line: add } at the end (or check for a missing comma between entries)"},
		{"a: - b\n", `f:1:4: a list cannot start on its key's line: put "- b" on the next line, indented, or write [b]`},
		{"a: b\n- c\n", "f:2:1: a list item where a key was expected: indent the list under its key (for example steps:)"},
		{"a: \"b\" c\n", `f:1:8: text after the closing quote: quote the whole value, as in '"b" c'`},
		{"a: {b: c}}\n", "f:1:10: one } too many at the end of the line: remove it"},
		{"name x\nsteps: []\n", "f:1:1: this line is not key: value: put a colon after the key, as in name: ..., or indent it as part of the value above"},
		{"steps:\n  - goto: u\n  wait: 1s\n", `f:3:3: this key is at the indentation of the list item above: indent it 2 more spaces to belong to that item, or give it a "- " to start a new item`},
	} {
		var ps lint.Problems
		Doc("f", []byte(c.src), &ps)
		if len(ps) != 1 || ps[0].String() != c.want {
			t.Errorf("%q:\n got %v\nwant %s", c.src, ps, c.want)
		}
	}
}

func TestDuplicateKey(t *testing.T) {
	var ps lint.Problems
	n := Doc("f", []byte("name: a\ntitle: t\nname: b\n"), &ps)
	Map("f", n, "workflow", &ps)
	want := `f:3:1: workflow: key "name" appears twice (first on line 1): YAML keeps one value per key; remove one or rename it`
	if len(ps) != 1 || ps[0].String() != want {
		t.Errorf("got %v\nwant %s", ps, want)
	}
}
