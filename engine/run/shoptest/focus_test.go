package shoptest

import (
	"slices"
	"testing"

	"github.com/toolwright/toolwright/engine/result"
)

// focusWorkflow presses a key in, or fills, one target of
// testdata/real/truthful/focus.html (modal: with its modal dialog open),
// then reads the fields and the page's keydown log.
func focusWorkflow(name, step string) string {
	return `
name: ` + name + `
description: Use the keyboard on one target of the focus page and read what happened.
risk: read
params:
  target: {type: target, prefix: tr.focus., description: The target}
  modal: {type: integer, description: 1 to open the modal dialog, min: 0, max: 1, default: 0}
  trap: {type: integer, description: 1 for the drawer that keeps the focus, min: 0, max: 1, default: 0}
steps:
  - goto: ${{ config.shop_base }}/focus.html?modal=${{ params.modal }}&trap=${{ params.trap }}
  - ` + step + `
    timeout: 3s
  - extract: {from: tr.focus.field, attr: value, into: field}
  - extract: {from: tr.focus.frozen, attr: value, into: frozen}
  - extract: {from: tr.focus.behind, attr: value, into: behind}
  - extract: {from: tr.focus.log, list: true, into: log}
output:
  field: ${{ vars.field }}
  frozen: ${{ vars.frozen }}
  behind: ${{ vars.behind }}
  log: ${{ vars.log }}
`
}

// TestKeysGoWhereTheFocusCan: a press in a target that takes no keyboard
// focus (a box without tabindex) answered ok while the key went to the
// page, and so would a press or a fill whose focus the page moved away (a
// drawer keeping the focus inside it). An inert field was said to be
// "covered by body". Now a target the focus does not reach fails before
// anything is pressed, cleared or typed, saying why and what the focus
// went to; an inert one says the page made it inert; a label passes the
// key to its field, and a modal dialog still covers what is behind it.
func TestKeysGoWhereTheFocusCan(t *testing.T) {
	t.Parallel()
	h, _ := truthfulHarness(t, map[string]string{
		"press_in": focusWorkflow("press_in", `press: {key: x, target: "${{ params.target }}"}`),
		"fill_in":  focusWorkflow("fill_in", `fill: {target: "${{ params.target }}", value: "new"}`),
		"click_on": focusWorkflow("click_on", `click: "${{ params.target }}"`),
	})
	logOf := func(env *result.Envelope) []any {
		l, _ := env.Data["log"].(result.List)
		return l.Items
	}
	for _, c := range []struct{ target, want string }{{"tabbed", "tabbed:x"}, {"label", "field:x"}, {"field", "field:x"}} {
		if env := h.OK(h.Call("press_in", `{"target": "tr.focus.`+c.target+`"}`)); !slices.Equal(logOf(env), []any{c.want}) {
			t.Errorf("a press of x in %s: the page saw %v, want [%s]", c.target, logOf(env), c.want)
		}
	}
	for _, c := range []struct {
		step, target string
		page         string
		code, msg    string
	}{
		{"press_in", "box", "", "target_not_found", "target tr.focus.box is a <div> that takes no keyboard focus (no tabindex), so a key pressed in it would go to the page: press the key without a target to send it to the page"},
		{"press_in", "frozen", "", "target_covered", "target tr.focus.frozen cannot be used now: the page made it inert"},
		{"fill_in", "frozen", "", "target_covered", "target tr.focus.frozen cannot be used now: the page made it inert"},
		{"click_on", "frozen", "", "target_covered", "target tr.focus.frozen cannot be used now: the page made it inert"},
		{"press_in", "behind", "modal", "target_covered", `target tr.focus.behind is covered by dialog#dlg "A modal dialog Close"`},
		{"fill_in", "behind", "modal", "target_covered", `target tr.focus.behind is covered by dialog#dlg "A modal dialog Close"`},
		{"press_in", "field", "trap", "target_not_found", `target tr.focus.field takes no keyboard focus now: the page moved the focus to button#drawer-btn "Drawer button" (a dialog that keeps the focus inside it)`},
		{"fill_in", "field", "trap", "target_not_found", `target tr.focus.field takes no keyboard focus now: the page moved the focus to button#drawer-btn`},
	} {
		args := `{"target": "tr.focus.` + c.target + `"`
		if c.page != "" {
			args += `, "` + c.page + `": 1`
		}
		args += "}"
		h.Code(h.Call(c.step, args), c.code, c.msg)
	}
}
