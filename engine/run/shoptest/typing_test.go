package shoptest

import (
	"slices"
	"testing"

	"github.com/toolwright/toolwright/engine/result"
)

// TestFillTypesAsBefore: what a fill does to a field, as a rich editor
// or a framework sees it: the old value is cleared, the text goes in
// through the browser's own editing (a trusted beforeinput, then input),
// input and change follow, in an input, a textarea (a line break kept), a
// contenteditable, a field in an open shadow root, and a field whose own
// input handler rewrites what is typed (its rewrite is what the field
// holds). It holds a fill to its three requests: typing the text from the
// page with document.execCommand("insertText") in the same call as the
// events (two requests) left out the trusted beforeinput that editors
// such as ProseMirror and Lexical type by.
func TestFillTypesAsBefore(t *testing.T) {
	t.Parallel()
	h, _ := truthfulHarness(t, map[string]string{
		"type_all": `
name: type_all
description: Fill every field of the typing page and read what they hold.
risk: write
steps:
  - goto: ${{ config.shop_base }}/typing.html
  - fill: {target: tr.typing.plain, value: "new text"}
  - fill: {target: tr.typing.area, value: "line one\nline two"}
  - fill: {target: tr.typing.upper, value: "quiet"}
  - fill: {target: tr.typing.editor, value: "new editor"}
  - fill: {target: tr.typing.inner, value: "new inner"}
  - extract: {from: tr.typing.plain, attr: value, into: plain}
  - extract: {from: tr.typing.area, attr: value, into: area}
  - extract: {from: tr.typing.upper, attr: value, into: upper}
  - extract: {from: tr.typing.editor, into: editor}
  - extract: {from: tr.typing.inner, attr: value, into: inner}
  - extract: {from: tr.typing.log, into: log}
output:
  plain: ${{ vars.plain }}
  area: ${{ vars.area }}
  upper: ${{ vars.upper }}
  editor: ${{ vars.editor }}
  inner: ${{ vars.inner }}
  log: ${{ vars.log }}
`})
	env := h.OK(h.Call("type_all", `{"task_id": "ty1"}`))
	for k, want := range map[string]string{"plain": "new text", "area": "line one\nline two", "upper": "QUIET", "editor": "new editor", "inner": "new inner"} {
		if got := env.Data[k]; got != want {
			t.Errorf("%s holds %q, want %q", k, got, want)
		}
	}
	var log []string
	l, ok := env.Data["log"].(result.List)
	if !ok {
		t.Fatalf("log: %#v, want a list", env.Data["log"])
	}
	for _, x := range l.Items {
		log = append(log, x.(string))
	}
	for _, id := range []string{"plain", "area", "upper", "editor", "inner"} {
		// The browser's own edit; then change (a contenteditable has none
		// of its own, the fill fires it as it fires input).
		for _, ev := range []string{id + ":beforeinput:true", id + ":input:true", id + ":change:false"} {
			if !slices.Contains(log, ev) {
				t.Errorf("no %s in the page's event log %q", ev, log)
			}
		}
	}
}
