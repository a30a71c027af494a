package run_test

import (
	"strings"
	"testing"
	"time"
)

// TestPopupLeftOpen: a plain click on a target=_blank link leaves the new
// tab open in front of the opener; later clicks on the opener must still
// work, and never outlive the call's deadline.
func TestPopupLeftOpen(t *testing.T) {
	h := newRealHarness(t, map[string]string{
		"left_open": `
name: left_open
description: Open a product tab with a plain click, then go on in the opener.
risk: read
deadline: 12s
steps:
  - goto: ${{ config.shop_base }}/products.html
  - click: nw.cookies.accept
  - click: nw.products.open_tab.ridge
  - click: nw.products.open_tab.summit
  - click: nw.products.quick_view.basecamp
  - extract: {from: nw.products.partner_offer, into: back}
output:
  back: ${{ vars.back }}
`,
	}, nil)
	start := time.Now()
	env := h.call("left_open", `{}`)
	took := time.Since(start)
	if !env.OK {
		t.Errorf("%s\n%s", env.JSON(), h.trace(env).Error)
		for _, s := range h.trace(env).Steps {
			t.Logf("%s %s %dms", s.Path, s.Code, s.DurationMS)
		}
	}
	if took > 12*time.Second+5*time.Second {
		t.Errorf("the call took %s, past its 12s deadline", took)
	}
}

// TestFrameBelowTheFold: a fill and a click into the payment provider's
// cross-site frame, which sits below the fold, work without a scroll step.
func TestFrameBelowTheFold(t *testing.T) {
	h := newRealHarness(t, map[string]string{
		"card_low": `
name: card_low
description: Type card details into the provider's frame below the fold.
risk: read
steps:
  - goto: ${{ config.shop_base }}/order.html
  - click: nw.cookies.accept
  - fill: {target: nw.order.card_number, value: "4242424242424242"}
  - fill: {target: nw.order.card_expiry, value: "12/30"}
  - fill: {target: nw.order.card_cvc, value: "123"}
  - wait: {text: "Card: complete"}
  - extract: {from: nw.order.card_status, into: status}
output:
  status: ${{ vars.status }}
`,
	}, nil)
	env := h.call("card_low", `{}`)
	if !env.OK {
		t.Errorf("%s\n%s", env.JSON(), h.trace(env).Error)
	} else if env.Data["status"] != "Card: complete" {
		t.Errorf("status: %v", env.Data["status"])
	}
}

// TestWaitCountTemplated: at_least takes a template (a parameter, a
// variable, an expression), at the top of a wait and inside any.
func TestWaitCountTemplated(t *testing.T) {
	t.Parallel()
	h, _ := realHarness(t, map[string]string{
		"wait_rows": `
name: wait_rows
description: Wait for as many rows as asked.
risk: read
params:
  want: {type: integer, description: rows to wait for, min: 1, max: 50, required: true}
  how: {type: string, enum: [param, any, vars], description: where the number comes from, required: true}
steps:
  - goto: ${{ config.real_base }}/list.html?n=5&delay=300
  - set: {half: "${{ params.want / 2 }}"}
  - wait: {count: real.list.rows, at_least: "${{ params.want }}", timeout: 2s}
    if: params.how == "param"
  - wait: {any: [{count: real.list.rows, at_least: "${{ params.want }}"}, {text: Never shown}], timeout: 2s}
    if: params.how == "any"
  - wait: {count: real.list.rows, at_least: "${{ vars.half * 2 }}", timeout: 2s}
    if: params.how == "vars"
  - extract: {from: real.list.rows, list: true, fields: {sku: real.list.row_sku}, into: rows}
output:
  rows: ${{ vars.rows }}
`}, nil)
	for _, how := range []string{"param", "any", "vars"} {
		env := h.ok(h.call("wait_rows", `{"want": 5, "how": "`+how+`"}`))
		if n := list(t, env, "rows").Count; n != 5 {
			t.Errorf("%s: want 5: %d rows", how, n)
		}
		env = h.code(h.call("wait_rows", `{"want": 6, "how": "`+how+`"}`), "target_not_found")
		if how != "any" && !strings.Contains(env.Message, "target real.list.rows did not reach 6 visible matches") {
			t.Errorf("%s: want 6: %s", how, env.Message)
		}
		if how == "any" && !strings.Contains(env.Message, "count real.list.rows at least 6") {
			t.Errorf("%s: want 6: %s", how, env.Message)
		}
	}
}

// TestNetworkIdleInFlight: a wait for network quiet sees a request that
// was already in flight when it started (a fetch a click began).
func TestNetworkIdleInFlight(t *testing.T) {
	t.Parallel()
	h, _ := realHarness(t, map[string]string{
		"load_report": `
name: load_report
description: Click, let the report's request run, wait for quiet, read.
risk: read
params:
  ms: {type: integer, description: how long the request takes, min: 0, max: 20000, default: 2000}
  short: {type: boolean, description: give the wait 1s, default: false}
steps:
  - goto: ${{ config.real_base }}/busy.html?ms=${{ params.ms }}
  - click: real.busy.load
  - wait: {text: loading}
  - sleep: 300ms  # the request has surely started before the wait below
  - wait: {network_idle: 200ms, timeout: 10s}
    if: "!params.short"
  - wait: {network_idle: 200ms, timeout: 1s}
    if: params.short
  - extract: {from: real.busy.out, into: out}
output:
  out: ${{ vars.out }}
`}, nil)
	env := h.ok(h.call("load_report", `{}`))
	if env.Data["out"] != "loaded" {
		t.Errorf("the wait ended while the report's request was in flight: out %v", env.Data["out"])
	}
	env = h.code(h.call("load_report", `{"ms": 20000, "short": true}`), "navigation_failed")
	if !strings.Contains(env.Message, "the network did not stay quiet for 200ms on /busy.html") || !strings.Contains(env.Message, "(1 request still in flight)") {
		t.Errorf("message: %s", env.Message)
	}
}
