package pagetest

import (
	"strings"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/internal/harness"
)

// TestPopupLeftOpen: a plain click on a target=_blank link leaves the new
// tab open in front of the opener; later clicks on the opener must still
// work, and never outlive the call's deadline.
func TestPopupLeftOpen(t *testing.T) {
	t.Parallel()
	h := harness.NewReal(t, map[string]string{
		"left_open": `
name: left_open
description: Open a product tab with a plain click, then go on in the opener.
risk: read
deadline: 60s
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
	h.BrowserUp()
	start := time.Now()
	env := h.Call("left_open", `{}`)
	took := time.Since(start)
	h.Succeeded(env, "")
	if took > 60*time.Second+5*time.Second {
		t.Errorf("the call took %s, past its 60s deadline", took)
	}
}

// TestFrameBelowTheFold: a fill and a click into the payment provider's
// cross-site frame, which sits below the fold, work without a scroll step.
func TestFrameBelowTheFold(t *testing.T) {
	t.Parallel()
	h := harness.NewReal(t, map[string]string{
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
	if env := h.Call("card_low", `{}`); h.Succeeded(env, "") && env.Data["status"] != "Card: complete" {
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
  - wait: {count: real.list.rows, at_least: "${{ params.want }}", timeout: 6s}
    if: params.how == "param"
  - wait: {any: [{count: real.list.rows, at_least: "${{ params.want }}"}, {text: Never shown}], timeout: 6s}
    if: params.how == "any"
  - wait: {count: real.list.rows, at_least: "${{ vars.half * 2 }}", timeout: 6s}
    if: params.how == "vars"
  - extract: {from: real.list.rows, list: true, fields: {sku: real.list.row_sku}, into: rows}
output:
  rows: ${{ vars.rows }}
`}, nil)
	for _, how := range []string{"param", "any", "vars"} {
		env := h.OK(h.Call("wait_rows", `{"want": 5, "how": "`+how+`"}`))
		if n := harness.List(t, env, "rows").Count; n != 5 {
			t.Errorf("%s: want 5: %d rows", how, n)
		}
		env = h.Code(h.Call("wait_rows", `{"want": 6, "how": "`+how+`"}`), "target_not_found")
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
  - click: {target: real.busy.load, navigation: none}  # the request stays in flight for the waits below
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
	env := h.OK(h.Call("load_report", `{}`))
	if env.Data["out"] != "loaded" {
		t.Errorf("the wait ended while the report's request was in flight: out %v", env.Data["out"])
	}
	h.Code(h.Call("load_report", `{"ms": 20000, "short": true}`), "navigation_failed",
		"the network did not stay quiet for 200ms on /busy.html", "(1 request still in flight)")
}

// TestDialogsPromptUnloadPopup: a prompt answered with the dialog key's
// text (or its default, or dismissed); a beforeunload dismissed by default
// keeps the page, accepted it leaves; dialogs inside a popup are answered
// and noted like the opener's. A question the workflow does not answer
// fails the acting step that met it, as goto's beforeunload does: the
// prompt's rename, the link's leaving, the popup's share were not done
// (before: each ok, "(rename cancelled)", the old page, "kept private").
func TestDialogsPromptUnloadPopup(t *testing.T) {
	t.Parallel()
	h, _ := realHarness(t, map[string]string{
		"rename": `
name: rename
description: Rename the list through its prompt.
risk: read
params:
  answer: {type: string, enum: [default, dismiss, text, accept], description: How to answer, default: default}
  name: {type: string, description: The new name, default: ""}
  asked: {type: integer, description: Questions the page asks as it loads, min: 0, max: 40, default: 0}
steps:
  - goto: ${{ config.real_base }}/dialogs.html?ask=${{ params.asked }}
  - click: real.dialogs.rename
    if: params.answer == "default"
  - click: real.dialogs.rename
    if: params.answer == "dismiss"
    dialog: dismiss
  - click: real.dialogs.rename
    if: params.answer == "text"
    dialog: {accept: true, text: "${{ params.name }}"}
  - click: real.dialogs.rename
    if: params.answer == "accept"
    dialog: accept
  - extract: {from: real.dialogs.name, into: name}
output:
  name: ${{ vars.name }}
  asked: ${{ page.dialog }}
`,
		"leave": `
name: leave
description: Leave a page with unsaved changes.
risk: read
params:
  accept: {type: boolean, description: Accept leaving, default: false}
  by_link: {type: boolean, description: Leave by the page's link, default: false}
steps:
  - goto: ${{ config.real_base }}/dialogs.html
  - click: real.dialogs.edit
  - goto: ${{ config.real_base }}/list.html?n=1
    if: "!params.accept && !params.by_link"
  - goto: ${{ config.real_base }}/list.html?n=1
    if: params.accept && !params.by_link
    dialog: accept
  - click: real.dialogs.back
    if: "!params.accept && params.by_link"
  - click: real.dialogs.back
    if: params.accept && params.by_link
    dialog: accept
output:
  url: ${{ page.url }}
  asked: ${{ page.dialog }}
`,
		"share": `
name: share
description: Share the list from its sharing page (a new tab).
risk: read
params:
  accept: {type: boolean, description: Accept sharing, default: false}
  decline: {type: boolean, description: Decline sharing, default: false}
steps:
  - goto: ${{ config.real_base }}/dialogs.html
  - popup:
      click: real.dialogs.open_tab
      steps:
        - click: real.dialogs.share
          if: "!params.accept && !params.decline"
        - click: real.dialogs.share
          if: params.decline
          dialog: dismiss
        - click: real.dialogs.share
          if: params.accept
          dialog: accept
        - extract: {from: real.dialogs.shared, into: shared}
output:
  shared: ${{ vars.shared }}
`,
		"greeted": `
name: greeted
description: The sharing page that greets with an alert while it loads.
risk: read
deadline: 30s
steps:
  - goto: ${{ config.real_base }}/dialogs.html
  - popup:
      click: real.dialogs.open_greeting
      steps:
        - extract: {from: real.dialogs.shared, into: shared}
output:
  shared: ${{ vars.shared }}
`,
	}, nil)
	h.Code(h.Call("rename", `{}`), "config_error", `click real.dialogs.rename (#2): the page asked "New name for the list?" (a prompt) and the workflow does not answer it`)
	// However many questions the page asked before (as it loaded: no
	// step's), the click's own is judged.
	h.Code(h.Call("rename", `{"asked": 20}`), "config_error", `click real.dialogs.rename (#2): the page asked "New name for the list?" (a prompt)`)
	for _, c := range []struct{ args, name string }{
		{`{"answer": "dismiss"}`, "(rename cancelled)"},
		{`{"answer": "text", "name": "Hardware"}`, "Hardware"},
		{`{"answer": "accept"}`, "Groceries 2"}, // accepted without text: the prompt's default
	} {
		env := h.OK(h.Call("rename", c.args))
		if env.Data["name"] != c.name || env.Data["asked"] != "New name for the list?" {
			t.Errorf("rename %s: %s", c.args, env.JSON())
		}
	}
	notes := func(env *result.Envelope) string { return strings.Join(h.DialogNotes(env), " | ") }
	env := h.Code(h.Call("leave", `{}`), "navigation_failed", "the page asked before leaving (beforeunload) and the dialog was dismissed")
	if env.Retryable || notes(env) != `3: beforeunload "" dismissed by default` {
		t.Errorf("leave, dismissed: %s; notes %s", env.JSON(), notes(env))
	}
	env = h.OK(h.Call("leave", `{"accept": true}`))
	if u, _ := env.Data["url"].(string); !strings.Contains(u, "/list.html") || notes(env) != `4: beforeunload "" accepted as the step's dialog key says` {
		t.Errorf("leave, accepted: %s; notes %s", env.JSON(), notes(env))
	}
	env = h.Code(h.Call("leave", `{"by_link": true}`), "navigation_failed", "click real.dialogs.back (#5): the page asked before leaving (beforeunload) and the dialog was dismissed by default, so it stayed")
	if env.Retryable || notes(env) != `5: beforeunload "" dismissed by default` {
		t.Errorf("leave by its link, dismissed: %s; notes %s", env.JSON(), notes(env))
	}
	env = h.OK(h.Call("leave", `{"by_link": true, "accept": true}`))
	if u, _ := env.Data["url"].(string); !strings.Contains(u, "/list.html") {
		t.Errorf("leave by its link, accepted: %s", env.JSON())
	}
	env = h.Code(h.Call("share", `{}`), "config_error", `click real.dialogs.share (#2.1): the page asked "Share with everyone?" (a confirm) and the workflow does not answer it`)
	if notes(env) != `2.1: confirm "Share with everyone?" dismissed by default` {
		t.Errorf("share, default: %s; notes %s", env.JSON(), notes(env))
	}
	env = h.OK(h.Call("share", `{"decline": true}`))
	if env.Data["shared"] != "kept private" || notes(env) != `2.2: confirm "Share with everyone?" dismissed as the step's dialog key says` {
		t.Errorf("share, declined: %s; notes %s", env.JSON(), notes(env))
	}
	env = h.OK(h.Call("share", `{"accept": true}`))
	if env.Data["shared"] != "shared" {
		t.Errorf("share, accepted: %s", env.JSON())
	}
	// An alert while the popup loads is answered too (the page is watched
	// before it runs: TestPopupDialogsWhileLoading), and the call is never
	// held past its deadline.
	start := time.Now()
	env = h.Call("greeted", `{}`)
	if !env.OK || !strings.Contains(notes(env), `alert "Sharing is public" accepted by default`) {
		t.Errorf("greeted: %s; notes %s", env.JSON(), notes(env))
	}
	if took := time.Since(start); took > 45*time.Second { // its deadline is 30s
		t.Errorf("greeted: the call took %s", took)
	}
}

// TestWithinFrameInSteps: a target with within whose parent is in a
// cross-site frame works in every step that takes a target (wait, fill,
// click, extract), not only in extract fields.
func TestWithinFrameInSteps(t *testing.T) {
	t.Parallel()
	h, _ := realHarness(t, map[string]string{
		"pay_within": `
name: pay_within
description: Fill and pay through targets within the card form of the cross-site frame.
risk: read
steps:
  - goto: ${{ config.real_base }}/frames.html
  - wait: {visible: real.card.form_number}
  - fill: {target: real.card.form_number, value: "4242424242421234"}
  - click: real.card.form_pay
  - wait: {text: Card ending 1234}
  - extract: {from: real.card.form_number, attr: value, into: number}
  - extract: {from: real.card.status, into: status}
output:
  number: ${{ vars.number }}
  status: ${{ vars.status }}
`}, nil)
	env := h.Call("pay_within", `{}`)
	if !h.Succeeded(env, "") {
		t.FailNow()
	}
	if env.Data["number"] != "4242424242421234" || env.Data["status"] != "Card ending 1234" {
		t.Errorf("data: %v", env.Data)
	}
}

// TestClickWhereAFrameWas: a button far below a frame from another site
// (out of process) is scrolled into view where that frame was drawn a
// moment before. The browser sends the mouse to the process it last saw
// drawn there, so a click made at once went to the frame and the page never
// saw it (a miss most times); the engine checks that the move reached the
// button and moves again when it did not. Every one of six loads must work.
func TestClickWhereAFrameWas(t *testing.T) {
	t.Parallel()
	// By css the page finds and readies the button in one request
	// (selector.Map.Ready); by role it is resolved, then prepared.
	for _, target := range []string{"real.far.button", "real.far.button_role"} {
		h, _ := realHarness(t, map[string]string{"far": belowFrame("click: "+target, "clicked 1")}, nil)
		h.Succeeded(h.Call("far", `{}`), target)
	}
}

// belowFrame is a workflow that loads testdata/real/resolve/frame-scroll.html
// six times, each time runs step (on the button below the cross-site frame)
// and waits until the page shows text.
func belowFrame(step, text string) string {
	return `
name: far
description: Act on a button below a cross-site frame, six times on fresh loads.
risk: read
deadline: 3m
steps:
  - repeat:
      max: 6
      until: ${{ loop.index >= 5 }}
      steps:
        - goto: ${{ config.real_base }}/frame-scroll.html
        - wait: {text: "Card form from another site"}
        - ` + step + `
        - wait: {text: "` + text + `", timeout: 30s}
`
}

// TestHoverLikeClick: hover has the guarantees of click. With a product tab
// left open in front of the shop (the shop is a background tab, which runs
// no animation frames), a hover on the shop brings it to the front and shows
// the tooltip; a hover on a button far below a cross-site frame reaches the
// button, not the frame drawn there a moment before.
func TestHoverLikeClick(t *testing.T) {
	t.Parallel()
	h := harness.NewReal(t, map[string]string{
		"hover_back": `
name: hover_back
description: Open a product tab, then hover over a button of the shop.
risk: read
deadline: 90s
steps:
  - goto: ${{ config.shop_base }}/products.html
  - click: nw.cookies.accept
  - click: nw.products.open_tab.ridge
  - hover: nw.products.partner_offer
  - wait: {visible: nw.products.partner_tip, timeout: 30s}
  - extract: {from: nw.products.partner_tip, into: tip}
output:
  tip: ${{ vars.tip }}
`,
	}, nil)
	if env := h.Call("hover_back", `{}`); h.Succeeded(env, "background tab") && env.Data["tip"] != "Deals run by Ridge & Co., our partner" {
		t.Errorf("tip: %v", env.Data["tip"])
	}

	rh, _ := realHarness(t, map[string]string{"far": belowFrame("hover: real.far.button", "hovered")}, nil)
	rh.Succeeded(rh.Call("far", `{}`), "below a frame")
}

// TestPopupDialogsWhileLoading: a popup whose page calls alert() and then
// confirm() in an inline script while it loads, before its body exists.
// The environment's guard hands the new page over paused, so it is watched
// before its first script runs: the alert is accepted, the confirm answered
// by the popup step's dialog rule (dismissed by default), both noted in the
// popup step's trace, and the steps inside run in the loaded page.
func TestPopupDialogsWhileLoading(t *testing.T) {
	t.Parallel()
	h, _ := realHarness(t, map[string]string{
		"share_publicly": `
name: share_publicly
description: Open the page that asks while it loads.
risk: read
deadline: 30s
params:
  accept: {type: boolean, description: Accept its confirm, default: false}
steps:
  - goto: ${{ config.real_base }}/dialogs.html
  - popup:
      click: real.dialogs.open_asking
      steps:
        - extract: {from: real.dialogs.answer, into: answer}
    if: "!params.accept"
  - popup:
      click: real.dialogs.open_asking
      steps:
        - extract: {from: real.dialogs.answer, into: answer}
    if: params.accept
    dialog: accept
  - extract: {from: real.dialogs.name, into: back}
output:
  answer: ${{ vars.answer }}
  back: ${{ vars.back }}
  asked: ${{ page.dialog }}
`,
	}, nil)
	for _, c := range []struct {
		args, answer, notes string
	}{
		{`{}`, "private", `2: alert "Welcome to the sharing page" accepted by default; confirm "Share your list publicly?" dismissed by default`},
		{`{"accept": true}`, "public", `3: alert "Welcome to the sharing page" accepted as the step's dialog key says; confirm "Share your list publicly?" accepted as the step's dialog key says`},
	} {
		env := h.Call("share_publicly", c.args)
		if !h.Succeeded(env, c.args) {
			continue
		}
		notes := strings.Join(h.DialogNotes(env), " | ")
		if env.Data["answer"] != c.answer || env.Data["back"] != "Groceries" || env.Data["asked"] != "Share your list publicly?" || notes != c.notes {
			t.Errorf("%s: %s; notes %s", c.args, env.JSON(), notes)
		}
	}
}

// TestFillReadOnly: a field no one can type in is not filled: fill waits
// for it to become editable (as for a disabled one), fails
// target_not_found saying it stayed read-only, and leaves its value as the
// page put it. Before, fill cleared the value (a script may) and typed
// nothing (the browser refuses): ok, with the field emptied.
func TestFillReadOnly(t *testing.T) {
	t.Parallel()
	h, _ := realHarness(t, map[string]string{
		"rename": `
name: rename
description: Type into a field of the account page.
risk: read
params:
  field: {type: target, prefix: real.readonly., description: The field}
  unlock: {type: integer, description: Milliseconds until the nickname is editable (0 never), min: 0, max: 5000, default: 0}
steps:
  - goto: ${{ config.real_base }}/readonly.html?unlock=${{ params.unlock }}
  - fill: {target: "${{ params.field }}", value: changed}
    timeout: 15s # waited out for a field that stays read-only; 5 s left the page not ready at a load of 50
  - extract: {from: "${{ params.field }}", attr: value, into: value}
output:
  value: ${{ vars.value }}
`,
		"try_rename": `
name: try_rename
description: Try to type into a field of the account page, then read it back.
risk: read
params:
  field: {type: target, prefix: real.readonly., description: The field}
  attr: {type: string, enum: [value, text], description: What to read back, default: value}
steps:
  - goto: ${{ config.real_base }}/readonly.html
  - fill: {target: "${{ params.field }}", value: changed}
    timeout: 500ms
    optional: true
  - extract: {from: "${{ params.field }}", attr: value, into: value}
    if: params.attr == "value"
  - extract: {from: "${{ params.field }}", into: value}
    if: params.attr == "text"
output:
  value: ${{ vars.value }}
`}, nil)
	for _, field := range []string{"real.readonly.number", "real.readonly.plan", "real.readonly.nick"} {
		if env := h.Code(h.Call("rename", `{"field": "`+field+`"}`), "target_not_found", "target "+field+" stayed read-only"); !env.Retryable {
			t.Errorf("%s not retryable: %s", field, env.JSON())
		}
	}
	if env := h.OK(h.Call("try_rename", `{"field": "real.readonly.number"}`)); env.Data["value"] != "C-1042" {
		t.Errorf("the read-only field's value after a refused fill: %s", env.JSON())
	}
	if env := h.OK(h.Call("try_rename", `{"field": "real.readonly.plan", "attr": "text"}`)); env.Data["value"] != "Basic" {
		t.Errorf("the aria-readonly box's text after a refused fill: %s", env.JSON())
	}
	// Editable a moment after the page loads: the fill waits for it.
	if env := h.OK(h.Call("rename", `{"field": "real.readonly.nick", "unlock": 300}`)); env.Data["value"] != "changed" {
		t.Errorf("a field editable after 300ms: %s", env.JSON())
	}
}
