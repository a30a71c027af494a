package shoptest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/internal/harness"
	"github.com/toolwright/toolwright/internal/testbrowser"
	"github.com/toolwright/toolwright/internal/testsite"
)

// Browser tests of the steps that real pages need (issue 9), on the shop
// in testdata/real/site.

// TestDialogs: an alert is accepted and a confirm dismissed by default;
// `dialog: accept` answers a confirm; the message is in page.dialog and in
// the trace. A confirm the workflow does not answer fails the click that
// opened it: dismissed, nothing it asked about was done, and `ok` would say
// the history was cleared (before: ok, 10 rows left).
func TestDialogs(t *testing.T) {
	t.Parallel()
	h := harness.NewReal(t, map[string]string{
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
	}{{"default", 10}, {"dismiss", 10}, {"accept", 0}} {
		res := h.Call("clear_orders", `{"task_id": "t-`+c.answer+`", "answer": "`+c.answer+`"}`)
		var env *result.Envelope
		if c.answer == "default" {
			env = h.Code(res, "config_error", `click nw.orders.clear_history (#4): the page asked "Clear your order history?" (a confirm) and the workflow does not answer it: it was dismissed by default, so what it asked about was not done; give the step `+"`dialog: accept`")
			if env.Retryable || !env.NeedsHuman {
				t.Errorf("default: an unanswered confirm is the workflow's to fix (not retryable, needs a human): %s", env.JSON())
			}
		} else {
			env = h.OK(res)
			if env.Data["alert"] != "Printing is not available in this demo" || env.Data["confirm"] != "Clear your order history?" {
				t.Errorf("%s: page.dialog: %s", c.answer, env.JSON())
			}
			if n := harness.List(t, env, "rows").Count; n != c.rows {
				t.Errorf("%s: %d rows left, want %d: %s", c.answer, n, c.rows, env.JSON())
			}
		}
		notes := h.DialogNotes(env)
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
	t.Parallel()
	h := harness.NewReal(t, map[string]string{
		"open": `
name: open
description: Open a path of the shop.
risk: read
params:
  path: {type: string, description: The path and query, default: /index.html}
steps:
  # the argument carries a query on purpose: urlraw keeps its "?" (DESIGN: URL-encoded arguments)
  - goto: ${{ config.shop_base }}${{ urlraw(params.path) }}
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
	if env := h.Code(h.Call("open", `{"path": "/status?code=500"}`), "navigation_failed", "HTTP 500"); !env.Retryable {
		t.Errorf("500 not retryable: %s", env.JSON())
	}
	h.Code(h.Call("open", `{"path": "/gone.html"}`), "navigation_failed", "HTTP 404")
	h.OK(h.Call("open", `{"path": "/status?code=201"}`))
	h.OK(h.Call("open_missing", `{}`))
	h.OK(h.Call("open_strict", `{}`))
	h.Code(h.Call("open_strict", `{"code": 201}`), "navigation_failed", "HTTP 201, expected one of [200]")
	for _, u := range []string{"data:text/html,<h1>hi</h1>", "javascript:alert(1)", " DATA:text/plain,x"} {
		env := h.Code(h.Call("open_any", `{"url": "`+u+`"}`), "host_not_allowed")
		if !env.NeedsHuman {
			t.Errorf("%s: %s", u, env.JSON())
		}
	}
	if env := h.OK(h.Call("open_literal_data", `{}`)); env.Data["title"] != "inline" {
		t.Errorf("literal data: URL: %s", env.JSON())
	}
}

// TestDeadlines: the call's deadline wins over whatever step runs; a
// step's own timeout is honoured beyond the default step timeout (10s) and
// below it.
func TestDeadlines(t *testing.T) {
	t.Parallel()
	h := harness.NewReal(t, map[string]string{
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
  - wait: {visible: nw.late.report, timeout: 40s}
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
	}, nil, harness.RealSite.WithDefaultStepTimeout())
	// The browser is up first: a 2s deadline is for the wait, not for
	// starting Chromium on a busy machine.
	h.OK(h.Call("late_report", `{"ms": 0}`))
	// A wait still running at the deadline: deadline_exceeded, and the
	// failure capture keeps the call within 1s past the deadline.
	start := time.Now()
	env := h.Code(h.Call("late_report", `{"ms": 20000, "deadline": "2s"}`), "deadline_exceeded")
	if took := time.Since(start); took > 10*time.Second || !env.Retryable {
		t.Errorf("deadline: took %s: %s", took, env.JSON())
	}
	// A wait for a text reports its own expiry as target_not_found; at the
	// call's deadline it is deadline_exceeded all the same.
	start = time.Now()
	env = h.Code(h.Call("late_report", `{"ms": 20000, "deadline": "2s", "wait": "text"}`), "deadline_exceeded")
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("deadline: took %s: %s", took, env.JSON())
	}
	// The capture is bounded by the deadline + 1 s: on a busy machine it
	// may keep less, and the trace then says why.
	if tr := h.Trace(env); len(tr.Artifacts) == 0 && !strings.Contains(tr.Error, "failure capture") {
		t.Errorf("the failure capture kept nothing and the trace does not say why: %q", tr.Error)
	}
	// wait.timeout beyond the default step timeout of 10s.
	h.OK(h.Call("late_report", `{"ms": 11000}`))
	// Without one, the default step timeout applies: target_not_found (the
	// report comes 10s after it, so a late start on a busy machine cannot
	// let the wait see it).
	h.Code(h.Call("late_report", `{"ms": 20000, "wait": "none"}`), "target_not_found")
	// A common timeout shorter than the default: were the default 10s
	// applied instead, the wait would see the report at 8s and end ok.
	h.Code(h.Call("late_report", `{"ms": 8000, "wait": "common"}`), "target_not_found")
}

// TestNoPageCaptureSaysWhy: a call that fails before it has a page (here:
// its deadline passes while it waits for room in a full pool) keeps no
// failure capture, and its trace says why. Before, the trace said nothing
// of it: TestDeadlines failed so at a load of 17, its 2 s call's page not
// open in time.
func TestNoPageCaptureSaysWhy(t *testing.T) {
	t.Parallel()
	h := harness.NewReal(t, map[string]string{
		"hold": `
name: hold
description: Open an environment and keep it.
risk: read
env: new
steps:
  - open_env: {}
output:
  env_id: ${{ env.id }}
`,
		"glance": `
name: glance
description: Open the home page.
risk: read
deadline: 2s
steps:
  - goto: ${{ config.shop_base }}/
`}, func(c *config.Config) { c.Browser.MaxEnvironments, c.Browser.Spare = 1, 0 })
	h.OK(h.Call("hold", `{}`))
	env := h.Call("glance", `{}`)
	if env.OK {
		t.Fatalf("a call with no room in the pool: %s", env.JSON())
	}
	if tr := h.Trace(env); len(tr.Artifacts) != 0 || !strings.Contains(tr.Error, "no failure capture: the call failed before its page was ready") {
		t.Errorf("a call that never had a page: artifacts %v, trace error %q", tr.Artifacts, tr.Error)
	}
}

// TestStepTimeoutFromConfig: limits.step_timeout is the timeout of a step
// that sets none, and a step's own timeout still overrides it.
func TestStepTimeoutFromConfig(t *testing.T) {
	t.Parallel()
	h := harness.NewReal(t, map[string]string{
		"late_report": `
name: late_report
description: Wait for a report that takes ms milliseconds.
risk: read
params:
  ms: {type: integer, description: How late the report is, min: 0, max: 20000, default: 1000}
  own: {type: boolean, description: The wait sets its own timeout, default: false}
steps:
  - goto: ${{ config.shop_base }}/late.html?ms=${{ params.ms }}
    timeout: 50s
  - wait: {visible: nw.late.report}
    if: params.own == false
  - wait: {visible: nw.late.report, timeout: 50s}
    if: params.own
`}, func(c *config.Config) { c.Limits.StepTimeout = 1500 * time.Millisecond })
	// A wait with no timeout, under limits.step_timeout 1.5s.
	h.Code(h.Call("late_report", `{"ms": 20000}`), "target_not_found", "after 1.5s")
	h.OK(h.Call("late_report", `{"ms": 3000, "own": true}`))
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
	t.Parallel()
	h := harness.NewReal(t, map[string]string{
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
	env := h.OK(h.Call("order_extras", `{"task_id": "o-1", "shipping": "nw.order.shipping.express"}`))
	want := map[string]any{"number": "NW-5001", "extras": "gift wrap", "shipping": "express", "payment": "invoice", "exemption": "none"}
	for k, v := range want {
		if env.Data[k] != v {
			t.Errorf("%s = %v, want %v: %s", k, env.Data[k], v, env.JSON())
		}
	}
	tr := h.Trace(env)
	if s := tr.Steps[6]; s.Kind != "check" || s.Target != "nw.order.shipping.express" {
		t.Errorf("the target parameter's step is traced as %+v", s)
	}
	env = h.OK(h.Call("order_extras", `{"task_id": "o-2", "shipping": "nw.order.shipping.standard"}`))
	if env.Data["shipping"] != "standard" {
		t.Errorf("standard: %s", env.JSON())
	}
	h.Code(h.Call("order_extras", `{"task_id": "o-3", "shipping": "nw.order.place"}`), "invalid_params")
	h.Code(h.Call("untick_radio", `{"task_id": "r"}`), "assertion_failed", "radio")
	h.Code(h.Call("check_button", `{"task_id": "b"}`), "target_not_found", "not a checkbox")
}

// TestUpload: files come from uploads_dir only; a templated name outside
// it or missing is invalid_params, a missing literal one config_error.
func TestUpload(t *testing.T) {
	t.Parallel()
	h := harness.NewReal(t, map[string]string{
		"order_exempt": `
name: order_exempt
description: Order on invoice with a tax exemption certificate.
risk: write
params:
  file: {type: string, description: The certificate's file name in uploads_dir, default: exemption.txt}
steps:
  - goto: ${{ config.shop_base }}/order.html
  - click: nw.cookies.accept
  - check: nw.order.payment.invoice
  - upload: {target: nw.order.exemption, files: ["${{ params.file }}"]}
  - extract: {from: nw.order.attached, into: attached}
  - click: nw.order.place
    dialog: accept
` + strings.Replace(orderRead, "output:\n", "output:\n  attached: ${{ vars.attached }}\n", 1),
		"upload_missing": `
name: upload_missing
description: Upload a literal file that is not there.
risk: write
steps:
  - goto: ${{ config.shop_base }}/order.html
  - upload: {target: nw.order.exemption, files: [not-there.pdf]}
`,
		"upload_wrong_input": `
name: upload_wrong_input
description: Upload into a text field.
risk: write
steps:
  - goto: ${{ config.shop_base }}/order.html
  - upload: {target: nw.order.quantity, files: [exemption.txt]}
`,
	}, nil)
	env := h.OK(h.Call("order_exempt", `{"task_id": "u-1"}`))
	if env.Data["exemption"] != "exemption.txt" || !strings.HasPrefix(env.Data["attached"].(string), "Attached: exemption.txt (") {
		t.Errorf("upload: %s", env.JSON())
	}
	for i, bad := range []string{"../toolwright.yaml", "/etc/passwd", "sub/../../x", "missing.txt"} {
		if env := h.Code(h.Call("order_exempt", fmt.Sprintf(`{"task_id": "u-bad-%d", "file": %q}`, i, bad)), "invalid_params", "uploads_dir"); env.Retryable {
			t.Errorf("%s retryable: %s", bad, env.JSON())
		}
	}
	h.Code(h.Call("upload_missing", `{"task_id": "u-m"}`), "config_error", `"not-there.pdf" is not in uploads_dir`)
	h.Code(h.Call("upload_wrong_input", `{"task_id": "u-w"}`), "target_not_found", "not a file input")
}

// TestDownload: a download is saved under state_dir/downloads/TRACE_ID/
// and returned as a file reference; one over max_bytes is limit_exceeded
// and leaves no file.
func TestDownload(t *testing.T) {
	t.Parallel()
	h := harness.NewReal(t, map[string]string{
		"export_orders": `
name: export_orders
description: Download my orders as CSV.
risk: read
params:
  max_bytes: {type: integer, description: Largest file, min: 1, max: 1000000, default: 1000000}
steps:
  - goto: ${{ config.shop_base }}/orders.html
  - download: {click: nw.orders.export_csv, into: csv, max_bytes: 1000000}
    if: params.max_bytes == 1000000
  - download: {click: nw.orders.export_csv, into: csv, max_bytes: 100}
    if: params.max_bytes == 100
output:
  csv: ${{ vars.csv }}
`,
	}, nil)
	env := h.OK(h.Call("export_orders", `{}`))
	ref, ok := env.Data["csv"].(map[string]any)
	if !ok {
		t.Fatalf("csv is not a file reference: %s", env.JSON())
	}
	want, err := os.ReadFile(filepath.Join(testsite.RealDir(), "export", "orders.csv"))
	if err != nil {
		t.Fatal(err)
	}
	// file is the saved file's absolute path; uri is the MCP resource that serves it.
	file, _ := ref["file"].(string)
	got, err := os.ReadFile(file)
	if err != nil || string(got) != string(want) {
		t.Errorf("the saved file %s differs (%v)", file, err)
	}
	if wantFile, _ := filepath.Abs(filepath.Join(h.Cfg.StateDir, "downloads", env.TraceID, "orders.csv")); file != wantFile {
		t.Errorf("saved as %s, want %s", file, wantFile)
	}
	if ref["name"] != "orders.csv" || fmt.Sprint(ref["bytes"]) != fmt.Sprint(len(want)) || ref["mime"] != "text/csv" || ref["uri"] != "toolwright://downloads/"+env.TraceID+"/orders.csv" {
		t.Errorf("file reference: %v", ref)
	}
	if strings.Contains(string(env.JSON()), "NW-4959") {
		t.Errorf("the content was inlined: %s", env.JSON())
	}
	env = h.Code(h.Call("export_orders", `{"max_bytes": 100}`), "limit_exceeded", "max_bytes (100 bytes)")
	if env.Retryable {
		t.Errorf("over max_bytes, retryable: %s", env.JSON())
	}
	entries, _ := os.ReadDir(filepath.Join(h.Cfg.StateDir, "downloads", env.TraceID))
	if len(entries) != 0 {
		t.Errorf("a download over max_bytes left %d files", len(entries))
	}
}

// TestPopup: steps run in the page a click opens (target=_blank and
// window.open), which is closed afterwards; the call goes on in the opener.
func TestPopup(t *testing.T) {
	t.Parallel()
	popups := map[string]string{
		"product_popup": `
name: product_popup
description: Read a product from its own tab.
risk: read
params:
  how: {type: string, enum: [tab, window], description: Link or window.open, default: tab}
steps:
  - goto: ${{ config.shop_base }}/products.html
  - popup:
      click: nw.products.open_tab.ridge
      steps:
        - wait: {text: "$249.00"}
        - extract: {from: nw.product.name, into: name}
        - extract: {from: nw.product.price, into: price}
        - set: {url: "${{ page.url }}"}
    if: params.how == "tab"
  - popup:
      click: nw.products.quick_view.basecamp
      timeout: 30s
      steps:
        - wait: {text: "Back order"}
        - extract: {from: nw.product.name, into: name}
        - extract: {from: nw.product.stock, into: price}
        - set: {url: "${{ page.url }}"}
    if: params.how == "window"
  - extract: {from: nw.products.partner_offer, into: back}
output:
  name: ${{ vars.name }}
  price: ${{ vars.price }}
  url: ${{ vars.url }}
  back: ${{ vars.back }}
  opener: ${{ page.url }}
`,
		"partner_popup": `
name: partner_popup
description: Open the partner's page (another host).
risk: read
deadline: 60s
steps:
  - goto: ${{ config.shop_base }}/products.html
  - click: nw.cookies.accept
  - popup:
      click: nw.products.partner_offer
      steps:
        - wait: {text: Partner deal}
        - extract: {from: nw.product.name, into: name}
output:
  name: ${{ vars.name }}
`,
	}
	popups["open_shop"] = `
name: open_shop
description: Open an environment for the shop.
risk: read
env: new
steps:
  - open_env: {}
output:
  env_id: ${{ env.id }}
`
	popups["product_popup_given"] = strings.Replace(strings.Replace(popups["product_popup"], "name: product_popup", "name: product_popup_given", 1), "risk: read\n", "risk: read\nenv: given\n", 1)
	h := harness.NewReal(t, popups, nil)
	env := h.OK(h.Call("product_popup", `{}`))
	if env.Data["name"] != "Ridge 2P Tent" || env.Data["price"] != "$249.00" || !strings.Contains(env.Data["url"].(string), "product.html?id=tent-2p") ||
		env.Data["back"] != "See our partner's deal" || !strings.HasSuffix(env.Data["opener"].(string), "/products.html") {
		t.Errorf("popup tab: %s", env.JSON())
	}
	env = h.OK(h.Call("product_popup", `{"how": "window"}`))
	if env.Data["name"] != "Basecamp 4P Tent" || env.Data["price"] != "Back order" {
		t.Errorf("popup window: %s", env.JSON())
	}
	// The popup is closed afterwards: its environment has one page again.
	env = h.OK(h.Call("open_shop", `{}`))
	id, _ := env.Data["env_id"].(string)
	h.OK(h.Call("product_popup_given", `{"env_id": "`+id+`"}`))
	e, err := h.BM.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	targets, err := proto.TargetGetTargets{}.Call(e.Page().Browser().Context(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	pages := 0
	for _, ti := range targets.TargetInfos {
		if ti.Type == proto.TargetTargetInfoTypePage && string(ti.BrowserContextID) == e.BrowserContextID() {
			pages++
		}
	}
	if pages != 1 {
		t.Errorf("the environment has %d pages after a popup, want 1", pages)
	}
	// Without allowed hosts the partner page opens; with them it is refused.
	if env := h.OK(h.Call("partner_popup", `{}`)); env.Data["name"] != "Partner deal" {
		t.Errorf("partner popup: %s", env.JSON())
	}
	t.Run("allowed hosts", func(t *testing.T) {
		// A browser of its own: in the package's shared browser, the guard
		// of another test's manager (which leaves pages it did not make
		// alone, resuming them) may resume this popup before this
		// manager's guard has set its rules, and the partner page loads.
		testbrowser.OwnBrowser(t)
		strict := harness.NewReal(t, popups, func(c *config.Config) { c.Policy.AllowedHosts = []string{"127.0.0.1"} })
		strict.Code(strict.Call("partner_popup", `{}`), "host_not_allowed", "localhost")
	})
}

// TestScroll: scrolling an infinite list until enough items or its end,
// bounded by max.
func TestScroll(t *testing.T) {
	t.Parallel()
	h := harness.NewReal(t, map[string]string{
		"read_feed": `
name: read_feed
description: Read the new arrivals.
risk: read
params:
  until: {type: string, enum: [count, end], description: What ends the scrolling, default: count}
  max: {type: integer, description: Screens, min: 1, max: 30, default: 30}
steps:
  - goto: ${{ config.shop_base }}/feed.html
  - scroll: {until: {count: nw.feed.items, at_least: 35}, max: "${{ params.max }}"}
    if: params.until == "count"
  - scroll: {until: {visible: nw.feed.end}, max: "${{ params.max }}"}
    if: params.until == "end"
    timeout: 20s
  - extract: {from: nw.feed.items, list: true, fields: {title: nw.feed.title, sku: nw.feed.sku}, into: items}
output:
  items: ${{ vars.items }}
`,
		"scroll_into_view": `
name: scroll_into_view
description: Bring the order button into view.
risk: read
steps:
  - goto: ${{ config.shop_base }}/order.html
  - scroll: nw.order.place
  - set: {y: true}
output:
  y: ${{ vars.y }}
`,
	}, nil)
	env := h.OK(h.Call("read_feed", `{}`))
	if l := harness.List(t, env, "items"); l.Count < 35 || l.Count >= 60 {
		t.Errorf("until 35 items: %d", l.Count)
	}
	env = h.OK(h.Call("read_feed", `{"until": "end"}`))
	if l := harness.List(t, env, "items"); l.Count != 60 {
		t.Errorf("until the end: %d items", l.Count)
	}
	h.Code(h.Call("read_feed", `{"until": "end", "max": 1}`), "limit_exceeded", "scrolled 1 screens and visible nw.feed.end never held")
	h.OK(h.Call("scroll_into_view", `{}`))
}

// TestDefaultToolsOnOrdinaryPages: list_links and read_page_text read any
// page: links wherever they are (also ones a script added), text in divs
// and sections, and an empty page gives empty lists, not an error.
func TestDefaultToolsOnOrdinaryPages(t *testing.T) {
	t.Parallel()
	h := harness.NewReal(t, nil, nil, harness.DefaultTools)
	env := h.OK(h.Call("prepare_environment", `{}`))
	id := env.Data["env_id"].(string)
	open := func(path string) {
		t.Helper()
		h.OK(h.Call("open_page", fmt.Sprintf(`{"env_id": %q, "url": %q}`, id, h.Site.URL(path))))
	}
	open("/index.html")
	env = h.OK(h.Call("list_links", `{"env_id": "`+id+`"}`))
	texts := harness.List(t, env, "texts")
	joined := fmt.Sprint(texts.Items)
	for _, want := range []string{"Search the catalogue", "Download your orders (CSV)", "My orders"} { // the last from the script-made top bar
		if !strings.Contains(joined, want) {
			t.Errorf("list_links misses %q: %s", want, joined)
		}
	}
	if hrefs := harness.List(t, env, "hrefs"); hrefs.Count != texts.Count || hrefs.Count < 10 {
		t.Errorf("list_links: %d hrefs, %d texts", hrefs.Count, texts.Count)
	}
	env = h.OK(h.Call("read_page_text", `{"env_id": "`+id+`"}`))
	blocks := fmt.Sprint(harness.List(t, env, "blocks").Items)
	for _, want := range []string{"Gear for every trail", "Tents, packs and boots tested on real mountains. Free returns within 30 days."} {
		if !strings.Contains(blocks, want) {
			t.Errorf("read_page_text misses %q (a div's text): %s", want, blocks)
		}
	}
	if strings.Contains(blocks, "customElements") || strings.Contains(blocks, "function") {
		t.Errorf("read_page_text read a script: %s", blocks)
	}
	open("/empty.html")
	for _, tool := range []string{"list_links", "read_page_text"} {
		env = h.OK(h.Call(tool, `{"env_id": "`+id+`"}`))
		for name, v := range env.Data {
			if l, ok := v.(result.List); ok && (l.Count != 0 || l.Truncated) {
				t.Errorf("%s on an empty page: %s = %+v", tool, name, l)
			}
		}
	}
	h.OK(h.Call("close_environment", `{"env_id": "`+id+`"}`))
}

// TestRealsiteFrameAndShadow: the example workflows that need shadow DOM
// piercing and frame: targets run on the shop (its card frame comes from
// another site, so Chromium runs it out of process).
func TestRealsiteFrameAndShadow(t *testing.T) {
	t.Parallel()
	h := harness.NewReal(t, nil, nil)
	env := h.OK(h.Call("pay_by_card", `{"task_id": "card-1", "card_number": "4242424242424242", "expiry": "12/29", "cvc": "123"}`))
	if env.Data["payment"] != "card ending 4242" {
		t.Errorf("pay by card: %s", env.JSON())
	}
	env = h.OK(h.Call("sign_in", `{}`))
	if env.Data["signed_in"] != true {
		t.Errorf("sign in: %s", env.JSON())
	}
}
