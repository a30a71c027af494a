package shoptest

import (
	"strings"
	"testing"
)

// TestClickSendsOnlyWhatTheBrowserAccepts: a click on a form's submit
// button whose fields fail the browser's own checks (required, type=email)
// answered ok: the browser showed its message by the field and sent
// nothing, and the next step waited for a page that never came (or read the
// old one). Now the click fails invalid_params naming the first field the
// browser refused and its message. A form that says novalidate, a field
// checked by the page's own button, and a form whose fields pass are
// clicked as before. Enter pressed in a field, which sends its form the
// same way, likewise.
func TestClickSendsOnlyWhatTheBrowserAccepts(t *testing.T) {
	t.Parallel()
	h, _ := truthfulHarness(t, map[string]string{
		"send": `
name: send
description: Fill the checked form's fields and click a target, then read the status line.
risk: read
params:
  email: {type: string, description: The e-mail field's value, max_length: 40, default: ""}
  name: {type: string, description: The name field's value, max_length: 40, default: ""}
  target: {type: target, prefix: tr.req., description: What to click}
steps:
  - goto: ${{ config.shop_base }}/required.html
  - fill: {target: tr.req.email, value: "${{ params.email }}"}
  - fill: {target: tr.req.email2, value: "${{ params.email }}"}
  - fill: {target: tr.req.name, value: "${{ params.name }}"}
  - click: "${{ params.target }}"
  - wait: {text: "${{ params.target == 'tr.req.look' ? 'fields' : 'sent' }}"}
    timeout: 10s
  - extract: {from: tr.req.status, into: status}
output:
  status: ${{ vars.status }}
`,
		"enter": `
name: enter
description: Fill the forms' fields and press Enter in a target, then read the status line.
risk: read
params:
  email: {type: string, description: The e-mail fields' value, max_length: 40, default: ""}
  name: {type: string, description: The name field's value, max_length: 40, default: ""}
  target: {type: target, prefix: tr.req., description: Where to press Enter}
steps:
  - goto: ${{ config.shop_base }}/required.html
  - fill: {target: tr.req.email, value: "${{ params.email }}"}
  - fill: {target: tr.req.email2, value: "${{ params.email }}"}
  - fill: {target: tr.req.name, value: "${{ params.name }}"}
  - press: {key: Enter, target: "${{ params.target }}"}
  - wait: {text: sent}
    timeout: 10s
  - extract: {from: tr.req.status, into: status}
output:
  status: ${{ vars.status }}
`,
	})
	// Enter in a field sends its form as its submit button does: the
	// browser checks the fields the same way.
	env := h.Call("enter", `{"email": "not-an-address", "name": "Ann", "target": "tr.req.name"}`)
	if want := "Enter was pressed in target tr.req.name, but the browser did not send its form: input#email is not valid"; env.OK || env.Code != "invalid_params" || !strings.Contains(env.Message, want) {
		t.Errorf("Enter in the name field: %s, want invalid_params: %s", env.JSON(), want)
	}
	for _, c := range []struct{ args, status string }{
		{`"email": "ann@example.com", "name": "Ann", "target": "tr.req.name"`, "sent checked ann@example.com"},
		{`"email": "not-an-address", "target": "tr.req.email2"`, "sent unchecked not-an-address"},
	} {
		if env := h.OK(h.Call("enter", "{"+c.args+"}")); env.Data["status"] != c.status {
			t.Errorf("enter {%s}: status %v, want %q", c.args, env.Data["status"], c.status)
		}
	}
	for _, c := range []struct{ args, field, message string }{
		{`"email": "not-an-address", "name": "Ann", "target": "tr.req.send"`, "input#email", "@"},
		{`"email": "ann@example.com", "target": "tr.req.send"`, "input#name", ""},
		{`"name": "Ann", "target": "tr.req.send_label"`, "input#email", ""},
	} {
		env := h.Call("send", "{"+c.args+"}")
		want := "was clicked, but the browser did not send its form: " + c.field + " is not valid"
		if env.OK || env.Code != "invalid_params" || !strings.Contains(env.Message, want) || !strings.Contains(env.Message, c.message) {
			t.Errorf("send {%s}: %s, want invalid_params: ...%s", c.args, env.JSON(), want)
		} else if c.message != "" {
			t.Logf("send {%s}: %s", c.args, env.Message)
		}
	}
	for _, c := range []struct{ args, status string }{
		{`"email": "ann@example.com", "name": "Ann", "target": "tr.req.send"`, "sent checked ann@example.com"},
		{`"email": "not-an-address", "target": "tr.req.send2"`, "sent unchecked not-an-address"},
		{`"email": "not-an-address", "target": "tr.req.look"`, "fields wrong"},
	} {
		if env := h.OK(h.Call("send", "{"+c.args+"}")); env.Data["status"] != c.status {
			t.Errorf("send {%s}: status %v, want %q", c.args, env.Data["status"], c.status)
		}
	}
}
