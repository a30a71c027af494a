package shoptest

import (
	"strings"
	"testing"
)

// TestAFormItsPageRefusesIsNotSent: a form whose page checks it by script
// (the submit held back, the refused field marked, nothing sent) answered
// ok to its submit click: the click happened, and the agent was told it
// subscribed. Now a click whose submit the page held back, with no
// navigation after it, fails invalid_params when the form then shows a
// field its page marks invalid (aria-invalid with its message, Bootstrap's
// is-invalid, the browser's rules run by the page under novalidate), also
// when the page's server said so in a 200 to a save by script. The same
// forms with values they take are sent, and a form handled in the page
// alone (a filter: nothing marked) is ok. Enter in a field does as its
// button: the same refusal, and a submit the page held back and then
// sent itself is waited for (before: the step after the Enter read the
// old page). Enter where the fill left the focus does as Enter in the
// field: a form the browser does not send (an address without @ in a
// required email field) answered ok before, as only a press in a target
// asked whether the form was sent.
func TestAFormItsPageRefusesIsNotSent(t *testing.T) {
	t.Parallel()
	// submit clicks the form's button; enter presses Enter in the field.
	workflow := func(name, send string) string {
		return `
name: ` + name + `
description: Fill one field of a form the page checks by script and submit it.
risk: read
params:
  field: {type: target, prefix: tr.val., description: The field}
  value: {type: string, description: Its value}
  button: {type: target, prefix: tr.val., description: The form's button}
steps:
  - goto: ${{ config.shop_base }}/validate.html
  - fill: {target: "${{ params.field }}", value: "${{ params.value }}"}
  - ` + send + `
  - extract: {from: tr.val.said, into: said}
output:
  said: ${{ vars.said }}
`
	}
	h, _ := truthfulHarness(t, map[string]string{
		"submit": workflow("submit", `click: "${{ params.button }}"`),
		"enter":  workflow("enter", `press: {key: Enter, target: "${{ params.field }}"}`),
		// Enter where the fill left the focus, as a person presses it.
		"enter_here": workflow("enter_here", `press: Enter`),
	})
	call := func(tool, form, field, value string) [2]string {
		return [2]string{tool, `{"field": "tr.val.` + form + `_` + field + `", "value": "` + value + `", "button": "tr.val.` + form + `_go"}`}
	}
	args := func(form, field, value string) [2]string { return call("submit", form, field, value) }
	enter := func(form, field, value string) [2]string { return call("enter", form, field, value) }
	here := func(form, field, value string) [2]string { return call("enter_here", form, field, value) }
	const pageSays = "but the page did not take its form: it "
	refused := []struct {
		call [2]string
		says string
	}{
		{args("aria", "email", "nope"), pageSays + `marks input#aria-email not valid ("Enter an email address")`},
		{args("bs", "name", "Al"), pageSays + `marks input#bs-name.is-invalid not valid ("At least 3 letters")`},
		{args("native", "qty", "0"), pageSays + `marks input#native-qty not valid`},
		{args("server", "user", "admin"), pageSays + `marks input#server-user not valid ("That name is taken")`},
		{enter("aria", "email", "nope"), pageSays + `marks input#aria-email not valid ("Enter an email address")`},
		{here("aria", "email", "nope"), pageSays + `marks input#aria-email not valid ("Enter an email address")`},
		{here("plain", "email", "nope"), "Enter was pressed, but the browser did not send its form: input#plain-email"},
	}
	taken := []struct {
		call [2]string
		said string
	}{
		{args("aria", "email", "a@example.org"), "POST 200"},
		{args("bs", "name", "Alice"), "POST 200"},
		{args("native", "qty", "3"), "POST 200"},
		{args("server", "user", "maria"), "created maria"},
		{args("filter", "q", "an"), "filtered an"},
		// Sent by the page's own form.submit(): the next step reads the
		// page the form led to (before, by Enter: the old page, "").
		{enter("aria", "email", "a@example.org"), "POST 200"},
		// Sent after the page asked its server.
		{args("later", "code", "X1"), "POST 200"},
		{enter("later", "code", "X1"), "POST 200"},
		{here("aria", "email", "a@example.org"), "POST 200"},
		{here("later", "code", "X1"), "POST 200"},
		{here("plain", "email", "a@example.org"), "POST 200"},
	}
	var calls [][2]string
	for _, c := range refused {
		calls = append(calls, c.call)
	}
	for _, c := range taken {
		calls = append(calls, c.call)
	}
	envs := h.CallAll(calls...)
	for i, c := range refused {
		env := envs[i]
		if env.OK || env.Code != "invalid_params" || !strings.Contains(env.Message, c.says) {
			t.Errorf("%s: want invalid_params saying %q, got %s", c.call[1], c.says, env.JSON())
			continue
		}
		if want := map[string]string{"submit": "click ${{ params.button }} (#3)", "enter": "press ${{ params.field }} (#3)", "enter_here": "press Enter (#3)"}[c.call[0]]; env.Step != want {
			t.Errorf("%s: the failure names step %q, want %q", c.call[1], env.Step, want)
		}
	}
	for i, c := range taken {
		if env := envs[len(refused)+i]; !env.OK || env.Data["said"] != c.said {
			t.Errorf("%s: want ok with the page saying %q, got %s", c.call[1], c.said, env.JSON())
		}
	}
}
