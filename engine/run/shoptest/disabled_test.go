package shoptest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/toolwright/toolwright/engine/result"
)

// disabledWorkflow runs one step on a target of
// testdata/real/truthful/disabled.html (unlock: the fieldset is enabled
// that many milliseconds after load; 0: never), then reads the name field
// and the page's log. An optional step's failure leaves them to be read.
func disabledWorkflow(name, step string, optional bool) string {
	return `
name: ` + name + `
description: Act on one control of the disabled fieldset and read what happened.
risk: read
params:
  target: {type: target, prefix: tr.dis., description: The target}
  unlock: {type: integer, description: Milliseconds until the fieldset is enabled (0 never), min: 0, max: 5000, default: 0}
steps:
  - goto: ${{ config.shop_base }}/disabled.html?unlock=${{ params.unlock }}
  - ` + step + `
    timeout: 4s
    optional: ` + fmt.Sprint(optional) + `
  - extract: {from: tr.dis.name, attr: value, into: name}
  - extract: {from: tr.dis.log, list: true, into: log}
output:
  name: ${{ vars.name }}
  log: ${{ vars.log }}
`
}

// TestFieldsetDisablesWhatItHolds: a control inside a disabled <fieldset>
// is disabled though it has no disabled attribute of its own (a form
// disabled while it saves). A click on its button answered ok and nothing
// was clicked, a select chose by script what a person cannot choose, and
// a fill said the focus went to the page. Now each waits for the control
// to be enabled, as for one disabled itself, and fails saying it stayed
// disabled; one enabled meanwhile is used, and a button in the fieldset's
// first legend, which the fieldset does not disable, is clicked at once.
func TestFieldsetDisablesWhatItHolds(t *testing.T) {
	const (
		clickStep  = `click: "${{ params.target }}"`
		fillStep   = `fill: {target: "${{ params.target }}", value: "new name"}`
		checkStep  = `check: "${{ params.target }}"`
		selectStep = `select: {target: "${{ params.target }}", value: pro}`
	)
	t.Parallel()
	h, _ := truthfulHarness(t, map[string]string{
		"click_on":  disabledWorkflow("click_on", clickStep, false),
		"fill_on":   disabledWorkflow("fill_on", fillStep, false),
		"check_on":  disabledWorkflow("check_on", checkStep, false),
		"select_on": disabledWorkflow("select_on", selectStep, false),
		"click_or":  disabledWorkflow("click_or", clickStep, true),
		"fill_or":   disabledWorkflow("fill_or", fillStep, true),
		"check_or":  disabledWorkflow("check_or", checkStep, true),
		"select_or": disabledWorkflow("select_or", selectStep, true),
	})
	logOf := func(env *result.Envelope) string {
		l, _ := env.Data["log"].(result.List)
		return fmt.Sprint(l.Items)
	}
	// Each waits out its step's time: all at once.
	cases := []struct{ step, target string }{
		{"click_on", "save"}, {"fill_on", "name"}, {"check_on", "agree"}, {"select_on", "plan"},
	}
	var calls [][2]string
	for _, c := range cases {
		args := `{"target": "tr.dis.` + c.target + `"}`
		calls = append(calls, [2]string{c.step, args}, [2]string{strings.Replace(c.step, "_on", "_or", 1), args})
	}
	envs := h.CallAll(calls...)
	for i, c := range cases {
		env := envs[2*i]
		if env.OK || env.Code != "target_not_found" || !strings.Contains(env.Message, "target tr.dis."+c.target+" stayed disabled") {
			t.Errorf("%s tr.dis.%s in the disabled fieldset: %s, want target_not_found: stayed disabled", c.step, c.target, env.JSON())
		}
		// Nothing happened: no log line, the name as it was.
		env = h.OK(envs[2*i+1])
		if got := logOf(env); got != "[]" || env.Data["name"] != "old name" {
			t.Errorf("%s tr.dis.%s in the disabled fieldset (optional): log %s, name %v; want [], old name", c.step, c.target, got, env.Data["name"])
		}
	}
	for _, c := range []struct{ step, target, log, name string }{
		{"click_on", "unlock", "[unlock clicked]", "old name"},
		{"click_on", "save", "[saved]", "old name"},
		{"fill_on", "name", "[]", "new name"},
		{"check_on", "agree", "[agree true]", "old name"},
		{"select_on", "plan", "[plan pro]", "old name"},
	} {
		unlock := "300"
		if c.target == "unlock" {
			unlock = "0"
		}
		env := h.OK(h.Call(c.step, `{"target": "tr.dis.`+c.target+`", "unlock": `+unlock+`}`))
		if got := logOf(env); got != c.log || env.Data["name"] != c.name {
			t.Errorf("%s tr.dis.%s (unlock %s): log %s, name %v; want %s, %s", c.step, c.target, unlock, got, env.Data["name"], c.log, c.name)
		}
	}
}
