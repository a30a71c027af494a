package run_test

import (
	"strings"
	"testing"
	"time"
)

// Browser tests of the steps that real pages need (issue 9), on the shop
// in testdata/real/site.

// TestDialogs: an alert is accepted and a confirm dismissed by default;
// `dialog: accept` answers a confirm; the message is in page.dialog and in
// the trace.
func TestDialogs(t *testing.T) {
	h := newRealHarness(t, map[string]string{
		"clear_orders": `
name: clear_orders
description: Press "Clear history" on My orders, answering its confirm as told.
risk: write
params:
  answer: {type: string, enum: [default, accept, dismiss], description: How to answer, default: default}
steps:
  - goto: ${{ config.shop_base }}/orders.html
  - click: nw.orders.print
  - set: {alert: "${{ page.dialog }}"}
  - click: nw.orders.clear_history
    if: params.answer == "default"
  - click: nw.orders.clear_history
    if: params.answer == "accept"
    dialog: accept
  - click: nw.orders.clear_history
    if: params.answer == "dismiss"
    dialog: {accept: false}
  - wait: {hidden: nw.orders.table}
    if: params.answer == "accept"
  - extract: {from: nw.orders.rows, list: true, into: rows}
    if: params.answer != "accept"
output:
  alert: ${{ vars.alert }}
  confirm: ${{ page.dialog }}
  rows: ${{ vars.rows }}
`,
	}, nil)
	for _, c := range []struct {
		answer string
		rows   int
	}{{"default", 2}, {"dismiss", 2}, {"accept", 0}} {
		env := h.ok(h.call("clear_orders", `{"task_id": "t-`+c.answer+`", "answer": "`+c.answer+`"}`))
		if env.Data["alert"] != "Printing is not available in this demo" || env.Data["confirm"] != "Clear your order history?" {
			t.Errorf("%s: page.dialog: %s", c.answer, env.JSON())
		}
		if c.rows == 0 {
			if env.Data["rows"] != nil {
				t.Errorf("accept: the rows are still there: %s", env.JSON())
			}
		} else if n := list(t, env, "rows").Count; n != c.rows {
			t.Errorf("%s: %d rows left, want %d: %s", c.answer, n, c.rows, env.JSON())
		}
		var notes []string
		for _, s := range h.trace(env).Steps {
			if s.Dialog != "" {
				notes = append(notes, s.Path+": "+s.Dialog)
			}
		}
		want := "dismissed by default"
		if c.answer == "accept" {
			want = "accepted as the step's dialog key says"
		} else if c.answer == "dismiss" {
			want = "dismissed as the step's dialog key says"
		}
		got := strings.Join(notes, " | ")
		if len(notes) != 2 || !strings.Contains(notes[0], `alert "Printing is not available in this demo" accepted by default`) ||
			!strings.Contains(notes[1], `confirm "Clear your order history?" `+want) {
			t.Errorf("%s: trace dialog notes: %s", c.answer, got)
		}
	}
}

// TestGotoStatus: 4xx/5xx main documents fail goto unless expected;
// templated data: and javascript: URLs are refused.
func TestGotoStatus(t *testing.T) {
	h := newRealHarness(t, map[string]string{
		"open": `
name: open
description: Open a path of the shop.
risk: read
params:
  path: {type: string, description: The path, default: /index.html}
steps:
  - goto: ${{ config.shop_base }}${{ params.path }}
output:
  title: ${{ page.title }}
`,
		"open_missing": `
name: open_missing
description: Open a page that is gone, expecting that.
risk: read
steps:
  - goto: {url: "${{ config.shop_base }}/gone.html", expect_status: [404, 410]}
output:
  title: ${{ page.title }}
`,
		"open_strict": `
name: open_strict
description: Open a page accepting only 200.
risk: read
params:
  code: {type: integer, description: Status to ask for, min: 200, max: 599, default: 200}
steps:
  - goto: {url: "${{ config.shop_base }}/status?code=${{ params.code }}", expect_status: [200]}
`,
		"open_any": `
name: open_any
description: Open whatever URL the agent gives.
risk: read
params:
  url: {type: string, description: Any URL}
steps:
  - goto: ${{ params.url }}
`,
		"open_literal_data": `
name: open_literal_data
description: A data URL the author wrote.
risk: read
steps:
  - goto: "data:text/html,<title>inline</title>"
output:
  title: ${{ page.title }}
`,
	}, nil)
	env := h.code(h.call("open", `{"path": "/status?code=500"}`), "navigation_failed")
	if !strings.Contains(env.Message, "HTTP 500") || !env.Retryable {
		t.Errorf("500: %s", env.JSON())
	}
	env = h.code(h.call("open", `{"path": "/gone.html"}`), "navigation_failed")
	if !strings.Contains(env.Message, "HTTP 404") {
		t.Errorf("404: %s", env.JSON())
	}
	h.ok(h.call("open", `{"path": "/status?code=201"}`))
	h.ok(h.call("open_missing", `{}`))
	h.ok(h.call("open_strict", `{}`))
	env = h.code(h.call("open_strict", `{"code": 201}`), "navigation_failed")
	if !strings.Contains(env.Message, "HTTP 201, expected one of [200]") {
		t.Errorf("expect_status: %s", env.JSON())
	}
	for _, u := range []string{"data:text/html,<h1>hi</h1>", "javascript:alert(1)", " DATA:text/plain,x"} {
		env = h.code(h.call("open_any", `{"url": "`+u+`"}`), "host_not_allowed")
		if !env.NeedsHuman {
			t.Errorf("%s: %s", u, env.JSON())
		}
	}
	if env := h.ok(h.call("open_literal_data", `{}`)); env.Data["title"] != "inline" {
		t.Errorf("literal data: URL: %s", env.JSON())
	}
}

// TestDeadlines: the call's deadline wins over whatever step runs; a
// step's own timeout is honoured beyond the default step timeout (5s in
// these tests) and below it.
func TestDeadlines(t *testing.T) {
	h := newRealHarness(t, map[string]string{
		"late_report": `
name: late_report
description: Wait for a report that takes ms milliseconds.
risk: read
deadline: ${{ params.deadline }}
params:
  ms: {type: integer, description: How late the report is, min: 0, max: 20000, default: 1000}
  deadline: {type: string, description: The call's deadline, default: 60s}
  wait: {type: string, enum: [own, common, none, text], description: Which timeout the wait has, default: own}
steps:
  - goto: ${{ config.shop_base }}/late.html?ms=${{ params.ms }}
  - wait: {visible: nw.late.report, timeout: 9s}
    if: params.wait == "own"
  - wait: {visible: nw.late.report}
    timeout: 1s
    if: params.wait == "common"
  - wait: {visible: nw.late.report}
    if: params.wait == "none"
  - wait: {text: Report ready, timeout: 30s}
    if: params.wait == "text"
output:
  done: true
`,
	}, nil)
	// A wait still running at the deadline: deadline_exceeded, and the
	// failure capture keeps the call within 1s past the deadline.
	start := time.Now()
	env := h.code(h.call("late_report", `{"ms": 20000, "deadline": "2s"}`), "deadline_exceeded")
	if took := time.Since(start); took > 3500*time.Millisecond || !env.Retryable {
		t.Errorf("deadline: took %s: %s", took, env.JSON())
	}
	// A wait for a text reports its own expiry as target_not_found; at the
	// call's deadline it is deadline_exceeded all the same.
	start = time.Now()
	env = h.code(h.call("late_report", `{"ms": 20000, "deadline": "2s", "wait": "text"}`), "deadline_exceeded")
	if took := time.Since(start); took > 3500*time.Millisecond {
		t.Errorf("deadline: took %s: %s", took, env.JSON())
	}
	if len(h.trace(env).Artifacts) == 0 {
		t.Errorf("the failure capture kept nothing")
	}
	// wait.timeout beyond the default step timeout of 5s.
	h.ok(h.call("late_report", `{"ms": 5500}`))
	// Without one, the default step timeout applies: target_not_found.
	h.code(h.call("late_report", `{"ms": 5500, "wait": "none"}`), "target_not_found")
	// A common timeout shorter than the default.
	start = time.Now()
	env = h.code(h.call("late_report", `{"ms": 4000, "wait": "common"}`), "target_not_found")
	if took := time.Since(start); took > 3500*time.Millisecond {
		t.Errorf("timeout: 1s took %s: %s", took, env.JSON())
	}
}

// orderRead is the order summary the order tests read.
const orderRead = `
  - wait: {visible: nw.order.number}
  - extract: {from: nw.order.number, into: number}
  - extract: {from: nw.order.extras_shown, into: extras}
  - extract: {from: nw.order.shipping_shown, into: shipping}
  - extract: {from: nw.order.payment_shown, into: payment}
  - extract: {from: nw.order.exemption_shown, into: exemption}
output:
  number: ${{ vars.number }}
  extras: ${{ vars.extras }}
  shipping: ${{ vars.shipping }}
  payment: ${{ vars.payment }}
  exemption: ${{ vars.exemption }}
`

// TestCheck: check ticks and unticks checkboxes (a styled one through its
// label), picks radios, does nothing when the state is already right, and
// takes a target parameter.
func TestCheck(t *testing.T) {
	h := newRealHarness(t, map[string]string{
		"order_extras": `
name: order_extras
description: Order with gift wrap, without the newsletter, by express and invoice.
risk: write
params:
  shipping: {type: target, prefix: nw.order.shipping., description: The shipping option}
steps:
  - goto: ${{ config.shop_base }}/order.html
  - click: nw.cookies.accept
  - check: nw.order.gift_wrap
  - check: nw.order.gift_wrap
  - check: {target: nw.order.newsletter, checked: false}
  - check: {target: nw.order.newsletter, checked: false}
  - check: ${{ params.shipping }}
  - check: nw.order.payment.invoice
  - click: nw.order.place
    dialog: accept
` + orderRead,
		"untick_radio": `
name: untick_radio
description: Try to untick a radio.
risk: write
steps:
  - goto: ${{ config.shop_base }}/order.html
  - check: {target: nw.order.shipping.standard, checked: false}
`,
		"check_button": `
name: check_button
description: Check a button.
risk: write
steps:
  - goto: ${{ config.shop_base }}/order.html
  - check: nw.order.place
`,
	}, nil)
	env := h.ok(h.call("order_extras", `{"task_id": "o-1", "shipping": "nw.order.shipping.express"}`))
	want := map[string]any{"number": "NW-5001", "extras": "gift wrap", "shipping": "express", "payment": "invoice", "exemption": "none"}
	for k, v := range want {
		if env.Data[k] != v {
			t.Errorf("%s = %v, want %v: %s", k, env.Data[k], v, env.JSON())
		}
	}
	tr := h.trace(env)
	if s := tr.Steps[6]; s.Kind != "check" || s.Target != "nw.order.shipping.express" {
		t.Errorf("the target parameter's step is traced as %+v", s)
	}
	env = h.ok(h.call("order_extras", `{"task_id": "o-2", "shipping": "nw.order.shipping.standard"}`))
	if env.Data["shipping"] != "standard" {
		t.Errorf("standard: %s", env.JSON())
	}
	h.code(h.call("order_extras", `{"task_id": "o-3", "shipping": "nw.order.place"}`), "invalid_params")
	env = h.code(h.call("untick_radio", `{"task_id": "r"}`), "assertion_failed")
	if !strings.Contains(env.Message, "radio") {
		t.Errorf("untick radio: %s", env.JSON())
	}
	env = h.code(h.call("check_button", `{"task_id": "b"}`), "target_not_found")
	if !strings.Contains(env.Message, "not a checkbox") {
		t.Errorf("check a button: %s", env.JSON())
	}
}
