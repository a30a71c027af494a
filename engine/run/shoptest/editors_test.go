package shoptest

import (
	"strings"
	"testing"

	"github.com/toolwright/toolwright/engine/result"
)

// editorsReads reads back every element of the editors page (a short
// timeout each: one the fill destroyed fails the call quickly).
var editorsReads = func() string {
	var b strings.Builder
	for _, r := range []struct{ name, attr string }{{"wrapped", ""}, {"label", ""}, {"named", "value"}, {"para", ""}, {"size", "value"},
		{"locked", ""}, {"revert", ""}, {"md", ""}, {"model", ""}, {"comp_input", "value"}, {"log", "list"}} {
		attr := ""
		switch r.attr {
		case "list":
			attr = ", list: true"
		case "":
		default:
			attr = ", attr: " + r.attr
		}
		b.WriteString("  - extract: {from: tr.ed." + r.name + attr + ", into: " + r.name + "}\n    timeout: 5s\n")
	}
	return b.String()
}()

// editorsWorkflow fills one element of testdata/real/truthful/editors.html
// and reads back what every element there holds; with optional set, a
// failed fill is skipped and the page is read all the same.
func editorsWorkflow(name, optional string) string {
	return `
name: ` + name + `
description: Fill one element of the editors page and read every element back.
risk: read
params:
  target: {type: target, prefix: tr.ed., description: What to fill}
  value: {type: string, description: What to fill it with, max_length: 100}
steps:
  - goto: ${{ config.shop_base }}/editors.html
  - fill: {target: "${{ params.target }}", value: "${{ params.value }}"}
    optional: ` + optional + `
` + editorsReads + `output:
  wrapped: ${{ vars.wrapped }}
  label: ${{ vars.label }}
  named: ${{ vars.named }}
  para: ${{ vars.para }}
  size: ${{ vars.size }}
  locked: ${{ vars.locked }}
  revert: ${{ vars.revert }}
  md: ${{ vars.md }}
  model: ${{ vars.model }}
  comp_input: ${{ vars.comp_input }}
  log: ${{ vars.log }}
`
}

// TestFillOnlyWhatCanBeTypedInto: a fill pointed at an element no one can
// type into answered ok with nothing typed, and emptied it first: the box
// around an editor lost the editor, a label or a paragraph its text, a
// select its choice. An editor that took none of the typing (locked, or
// putting its own text back) answered ok too, and an editor whose text
// lives in a model of its own (as Lexical's does) kept its old text beside
// the new, because the fill emptied its DOM behind its back. Now a fill
// types only into a text field, a textarea or an editor (contenteditable),
// fails on anything else saying what it is and what to use instead, leaving
// it as it was; an editor's old text is replaced through the browser's own
// editing (selected, then typed over, or deleted by a Backspace to empty
// it), and one that does not hold what was typed fails like a field that
// does not.
func TestFillOnlyWhatCanBeTypedInto(t *testing.T) {
	t.Parallel()
	h, _ := truthfulHarness(t, map[string]string{"fill_ed": editorsWorkflow("fill_ed", "false"), "try_ed": editorsWorkflow("try_ed", "true")})
	args := func(target, value string) string {
		return `{"target": "tr.ed.` + target + `", "value": "` + value + `"}`
	}
	old := map[string]string{"wrapped": "old wrapped", "label": "Named", "named": "old named", "para": "A paragraph of old text.", "size": "m",
		"locked": "old locked", "revert": "old revert", "md": "old md", "model": "old model", "comp_input": "old comp"}
	for _, c := range []struct{ target, msg string }{
		{"wrap", "target tr.ed.wrap is a <div>, not a field: nothing can be typed into it; it holds one, div#wrapped (contenteditable): point the target at that"},
		{"agree_label", "target tr.ed.agree_label is the label of a checkbox, not a field to type into: use a check step"},
		{"para", "target tr.ed.para is a <p>, not a field: nothing can be typed into it (a fill types into a text field, a textarea or an editable element)"},
		{"pair", "target tr.ed.pair is a <div>, not a field: nothing can be typed into it; it holds 2 fields: point the target at the one to fill"},
		{"agree", "target tr.ed.agree is a checkbox, not a field to type into: use a check step"},
		{"size", "target tr.ed.size is a <select>, not a field to type into: use a select step"},
		{"file", "target tr.ed.file is a file field, not a field to type into: use an upload step"},
		{"go", "target tr.ed.go is a <button>, not a field: nothing can be typed into it"},
	} {
		h.Code(h.Call("fill_ed", args(c.target, "new text")), "target_not_found", c.msg)
		env := h.OK(h.Call("try_ed", args(c.target, "new text")))
		for k, want := range old {
			if got := env.Data[k]; got != want {
				t.Errorf("after the refused fill of %s, %s holds %q, want %q untouched", c.target, k, got, want)
			}
		}
	}
	// Editors that took none of the typing, or not all of it.
	h.Code(h.Call("fill_ed", args("locked", "new text")), "invalid_params", `target tr.ed.locked does not hold the text typed into it (it holds "old locked"): the editor's own script refused the typing`)
	if env := h.OK(h.Call("try_ed", args("locked", "new text"))); env.Data["locked"] != "old locked" {
		t.Errorf("the locked editor holds %q after the refused typing, want its old text (it was typed over, not emptied behind its back)", env.Data["locked"])
	}
	h.Code(h.Call("fill_ed", args("revert", "new text")), "invalid_params", `target tr.ed.revert does not hold the text typed into it (it holds "old revert")`)
	// Editors that did take it: replaced through their own editing, a
	// markdown shortcut's rewrite standing.
	// A label's field is filled (a click on the label focuses it), and a
	// component's own field in its shadow tree.
	if env := h.OK(h.Call("fill_ed", args("label", "new named"))); env.Data["named"] != "new named" || env.Data["label"] != "Named" {
		t.Errorf("after filling the label the field holds %q and the label reads %q, want new named and Named", env.Data["named"], env.Data["label"])
	}
	if env := h.OK(h.Call("fill_ed", args("comp", "new comp"))); env.Data["comp_input"] != "new comp" {
		t.Errorf("after filling the component its field holds %q, want new comp", env.Data["comp_input"])
	}
	for _, c := range []struct{ target, value, want string }{
		{"wrapped", "new wrapped", "new wrapped"},
		{"md", "a **bold** word", "a bold word"},
		{"model", "new model", "new model"},
		// Emptied as a person empties it: selected, then a Backspace
		// (before: emptied by script; the model put its text back).
		{"model", "", ""},
		{"wrapped", "", ""},
	} {
		env := h.OK(h.Call("fill_ed", args(c.target, c.value)))
		if got := env.Data[c.target]; got != c.want {
			t.Errorf("after filling %s with %q it holds %q, want %q", c.target, c.value, got, c.want)
		}
		if log, _ := env.Data["log"].(result.List); len(log.Items) == 0 || log.Items[0] != c.target+":beforeinput:true" {
			t.Errorf("after filling %s the page's events were %v, want the browser's own beforeinput first", c.target, log.Items)
		}
	}
}
