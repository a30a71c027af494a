package pagetest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/internal/harness"
	"github.com/toolwright/toolwright/internal/testsite"
)

// resolveTargets are the targets of testdata/real/resolve, added to the demo
// selector map for the real-pages tests.
const resolveTargets = `
real.readonly.number:
  css: "#ro-number"
real.readonly.plan:
  css: "#ro-plan"
real.readonly.nick:
  label: Nickname
real.shadow.email:
  css: "#s-email"
real.shadow.password:
  label: Password
real.shadow.submit:
  text: Sign in
real.shadow.signed:
  css: "#signed"
real.shadow.items:
  css: li.item
  many: true
real.shadow.item_sku:
  within: real.shadow.items
  css: .sku
real.shadow.item_name:
  within: real.shadow.items
  css: .name
real.frame.same:
  css: "#same-frame"
real.frame.card:
  css: "#card-frame"
real.frame.missing:
  css: "#no-such-frame"
real.same.coupon:
  frame: real.frame.same
  label: Coupon
real.same.apply:
  frame: real.frame.same
  role: button
  name: Apply
real.same.applied:
  frame: real.frame.same
  css: "#applied"
real.card.form:
  frame: real.frame.card
  css: "#card-form"
real.card.number:
  frame: real.frame.card
  label: Card number
real.card.pay:
  frame: real.frame.card
  css: "#pay"
real.card.fields:
  frame: real.frame.card
  css: .field
  many: true
real.card.field_label:
  within: real.card.fields
  css: label
real.card.field_value:
  within: real.card.fields
  css: input
real.card.status:
  frame: real.frame.card
  css: "#card-status"
real.card.form_pay:
  within: real.card.form
  role: button
  name: Pay
real.card.form_number:
  within: real.card.form
  label: Card number
real.card.lost:
  frame: real.frame.missing
  css: "#card-number"
real.banner.continue:
  css: "#continue"
real.banner.free:
  css: "#free"
real.banner.name:
  label: Your name
real.banner.accept:
  css: "#accept"
real.banner.out:
  css: "#out"
real.list.rows:
  css: "#results tr.row"
  many: true
real.list.row_sku:
  within: real.list.rows
  css: td.sku
real.list.row_f1:
  within: real.list.rows
  css: td.f1
  fallbacks:
    - css: td.f1-old
real.list.row_f2:
  within: real.list.rows
  css: td.f2-renamed
  fallbacks:
    - css: td.f2
real.list.first_row:
  css: "#results tr.row"
real.list.status:
  css: "#status"
real.list.next:
  css: "#next"
real.list.password:
  css: "#pw"
real.list.go_push:
  css: "#go-push"
real.combo.size:
  label: Size
real.combo.size_out:
  css: "#size-out"
real.combo.country:
  role: combobox
  name: Country
real.combo.country_out:
  css: "#country-out"
real.combo.lang:
  css: "#lang"
real.combo.lang_out:
  css: "#lang-out"
real.busy.load:
  css: "#load"
real.busy.out:
  css: "#out"
real.dialogs.rename:
  css: "#rename"
real.dialogs.edit:
  css: "#edit"
real.dialogs.name:
  css: "#list-name"
real.dialogs.state:
  css: "#state"
real.dialogs.open_tab:
  css: "#open-tab"
real.dialogs.back:
  css: "#back"
real.dialogs.open_greeting:
  css: "#open-greeting"
real.dialogs.share:
  css: "#share"
real.dialogs.shared:
  css: "#shared"
real.dialogs.open_asking:
  css: "#open-asking"
real.dialogs.answer:
  css: "#answer"
real.far.button:
  css: "#far"
real.far.button_role:
  role: button
  name: Far button
real.far.done:
  css: "#far-done"
real.far.hovered:
  css: "#far-hover"
`

// realHarness is an engine serving the demo workflows plus workflows, with
// the demo selector map plus resolveTargets, and testdata/real/resolve
// served as config.real_base. tweak may adjust the config further.
func realHarness(t *testing.T, workflows map[string]string, tweak func(*config.Config)) (*harness.Harness, *testsite.Site) {
	t.Helper()
	return realHarnessOn(t, harness.DemoSite, workflows, tweak)
}

// realHarnessOn is realHarness with fx's engine settings.
func realHarnessOn(t *testing.T, fx harness.Fixture, workflows map[string]string, tweak func(*config.Config)) (*harness.Harness, *testsite.Site) {
	t.Helper()
	testsite.NeedChromium(t)
	site := testsite.StartDir(t, "real/resolve")
	demo, err := os.ReadFile(filepath.Join(testsite.Root(), "examples", "demo", "selectors.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	sel := filepath.Join(t.TempDir(), "selectors.yaml")
	harness.WriteFile(t, sel, string(demo)+resolveTargets+scrollTargets)
	h := harness.NewColdOn(t, fx, workflows, func(c *config.Config) {
		c.Selectors = sel
		c.Vars["real_base"] = site.URL("")
		c.Vars["real_other"] = site.AltURL("")
		if tweak != nil {
			tweak(c)
		}
	})
	h.BrowserUp()
	return h, site
}

func TestRealShadowDOM(t *testing.T) {
	t.Parallel()
	h, _ := realHarness(t, map[string]string{"shadow_sign_in": `
name: shadow_sign_in
description: Sign in through a web component's shadow root and read a list inside nested shadow roots.
risk: read
steps:
  - goto: ${{ config.real_base }}/shadow.html
  - fill: {target: real.shadow.email, value: a@example.com}
  - fill: {target: real.shadow.password, value: pw}
  - press: {key: Enter, target: real.shadow.password}
  - wait: {visible: real.shadow.signed}
  - extract: {from: real.shadow.signed, into: who}
  - extract: {from: real.shadow.items, fields: {sku: real.shadow.item_sku, name: real.shadow.item_name}, into: items}
output:
  who: ${{ vars.who }}
  items: ${{ vars.items }}
`}, nil)
	env := h.OK(h.Call("shadow_sign_in", `{}`))
	if got := env.Data["who"]; got != "Signed in as a@example.com" {
		t.Errorf("who: %v", got)
	}
	items := harness.List(t, env, "items")
	if items.Count != 3 || len(items.Items) != 3 {
		t.Fatalf("items: %+v", items)
	}
	if row := items.Items[2].(map[string]any); row["sku"] != "D-3" || row["name"] != "Three" {
		t.Errorf("third item: %v", row)
	}
}

func TestRealFrames(t *testing.T) {
	t.Parallel()
	h, _ := realHarness(t, map[string]string{
		"pay_in_frames": `
name: pay_in_frames
description: Fill a same-origin frame and a cross-site card frame.
risk: read
steps:
  - goto: ${{ config.real_base }}/frames.html
  - fill: {target: real.same.coupon, value: SAVE10}
  - click: real.same.apply
  - wait: {text: Applied SAVE10}
  - extract: {from: real.same.applied, into: applied}
  - fill: {target: real.card.number, value: "4242424242424242"}
  - click: real.card.pay
  - wait: {text: Card ending 4242}
  - extract: {from: real.card.status, into: status}
  - extract: {from: real.card.fields, fields: {label: real.card.field_label, value: real.card.field_value}, attr: text, into: labels}
output:
  applied: ${{ vars.applied }}
  status: ${{ vars.status }}
  labels: ${{ vars.labels }}
`,
		"lost_frame": `
name: lost_frame
description: A target inside a frame the page does not have.
risk: read
steps:
  - goto: ${{ config.real_base }}/frames.html
  - fill: {target: real.card.lost, value: x}
    timeout: 500ms
`,
	}, nil)
	env := h.Call("pay_in_frames", `{}`)
	if !h.Succeeded(env, "") {
		t.FailNow()
	}
	if env.Data["applied"] != "Applied SAVE10" || env.Data["status"] != "Card ending 4242" {
		t.Errorf("data: %v", env.Data)
	}
	// within composes with frame: fields read inside each match of a many
	// target in the cross-site frame.
	labels := harness.List(t, env, "labels")
	if labels.Count != 2 || labels.Items[0].(map[string]any)["label"] != "Card number" || labels.Items[1].(map[string]any)["label"] != "Name on card" {
		t.Errorf("labels: %+v", labels)
	}
	tr := h.Trace(env)
	var strategies []string
	for _, s := range tr.Steps {
		strategies = append(strategies, s.Target+"="+s.Strategy)
	}
	if !strings.Contains(strings.Join(strategies, " "), "real.same.apply=role") {
		t.Errorf("trace strategies: %v", strategies)
	}

	h.Code(h.Call("lost_frame", `{}`), "target_not_found", "target real.card.lost not found: its frame real.frame.missing not found on /frames.html")
}

func TestRealCoveredElement(t *testing.T) {
	t.Parallel()
	h, _ := realHarness(t, map[string]string{
		"covered_click": `
name: covered_click
description: Click a button under a cookie banner.
risk: read
params:
  query: {type: string, description: page query, max_length: 20, default: ""}
steps:
  - goto: ${{ config.real_base }}/banner.html${{ params.query }}
  - click: real.banner.free
  - click: real.banner.continue
`,
		"covered_fill": `
name: covered_fill
description: Fill a field under a modal backdrop.
risk: read
steps:
  - goto: ${{ config.real_base }}/banner.html?modal=1
  - fill: {target: real.banner.name, value: Ann}
`,
		"accept_then_click": `
name: accept_then_click
description: Accept the banner, then click.
risk: read
steps:
  - goto: ${{ config.real_base }}/banner.html
  - click: real.banner.accept
  - click: real.banner.continue
  - extract: {from: real.banner.out, into: out}
output:
  out: ${{ vars.out }}
`,
	}, nil)
	env := h.Code(h.Call("covered_click", `{}`), "target_covered")
	for _, s := range h.Trace(env).Steps {
		if s.Kind == "click" && s.Code == "target_covered" && s.DurationMS > harness.StepTimeout.Milliseconds()*8/10 { // it must not wait out the step timeout
			t.Errorf("covered click took %dms", s.DurationMS)
		}
	}
	if !env.Retryable || env.Step != "click real.banner.continue (#3)" ||
		env.Message != `target real.banner.continue is covered by div#cookie-banner.banner.cookie "We use cookies to run this site. Accept"` {
		t.Errorf("envelope: %s", env.JSON())
	}
	h.Code(h.Call("covered_fill", `{}`), "target_covered", `target real.banner.name is covered by div#modal-backdrop.backdrop "Please wait for your modal"`)
	env = h.OK(h.Call("accept_then_click", `{}`))
	if env.Data["out"] != "continue clicked" {
		t.Errorf("out: %v", env.Data["out"])
	}
}

func TestRealEmptyResults(t *testing.T) {
	t.Parallel()
	h, _ := realHarness(t, map[string]string{
		"read_results": `
name: read_results
description: Read a result list that may be empty.
risk: read
params:
  n: {type: integer, description: rows, min: 0, max: 300, default: 0}
steps:
  - goto: ${{ config.real_base }}/list.html?n=${{ params.n }}
  - wait: {text: "of 1"}
    if: params.n > 0
  - extract: {from: real.list.rows, list: true, fields: {sku: real.list.row_sku, f1: real.list.row_f1, f2: real.list.row_f2}, into: rows}
  - extract: {from: real.list.rows, attr: class, into: classes}
  - extract: {from: real.list.password, attr: value, into: pw}
output:
  rows: ${{ vars.rows }}
  classes: ${{ vars.classes }}
  pw: ${{ vars.pw }}
`,
		"read_missing": `
name: read_missing
description: A single value of a missing target.
risk: read
steps:
  - goto: ${{ config.real_base }}/list.html?n=0
  - extract: {from: real.list.first_row, into: first}
    timeout: 400ms
`,
	}, func(c *config.Config) { c.Limits.MaxListItems = 250 })
	env := h.OK(h.Call("read_results", `{"n": 0}`))
	for _, s := range h.Trace(env).Steps {
		if s.Kind == "extract" && s.DurationMS > harness.StepTimeout.Milliseconds()*8/10 { // well below the step timeout
			t.Errorf("extract %s took %dms: an empty list must not wait out the step timeout", s.Target, s.DurationMS)
		}
	}
	rows := harness.List(t, env, "rows")
	if rows.Count != 0 || len(rows.Items) != 0 || rows.Truncated {
		t.Errorf("empty rows: %+v", rows)
	}
	if cl := harness.List(t, env, "classes"); cl.Count != 0 {
		t.Errorf("a many target without list: %+v", cl)
	}
	if env.Data["pw"] != "" {
		t.Errorf("password read as %v", env.Data["pw"])
	}

	env = h.OK(h.Call("read_results", `{"n": 300}`))
	rows = harness.List(t, env, "rows")
	if rows.Count != 250 || !rows.Truncated {
		t.Errorf("300 rows with max_list_items 250: count %d truncated %v", rows.Count, rows.Truncated)
	}
	last := rows.Items[249].(map[string]any)
	if last["sku"] != "P1-250" || last["f1"] != "v1-1-250" || last["f2"] != "v2-1-250" {
		t.Errorf("row 250: %v", last)
	}
	// The trace names the fallback the f2 field used.
	tr := h.Trace(env)
	var got string
	for _, s := range tr.Steps {
		if s.Kind == "extract" && s.Target == "real.list.rows" {
			got = s.Strategy
			break
		}
	}
	if got != "css; f2: fallback 1 (css)" {
		t.Errorf("trace strategy: %q", got)
	}

	env = h.Code(h.Call("read_missing", `{}`), "target_not_found")
	// A loaded machine may end the 400 ms wait while the page is still
	// being read ("was not ready within"): the code is the same.
	if !strings.Contains(env.Message, "target real.list.first_row not found on /list.html") && !strings.Contains(env.Message, "target real.list.first_row was not ready within") {
		t.Errorf("message: %s", env.Message)
	}
}

func TestRealWaitConditions(t *testing.T) {
	t.Parallel()
	h, _ := realHarness(t, map[string]string{
		"wait_any": `
name: wait_any
description: Wait for rows or for "No results", whichever comes.
risk: read
params:
  n: {type: integer, description: rows, min: 0, max: 50, default: 0}
steps:
  - goto: ${{ config.real_base }}/list.html?n=${{ params.n }}&delay=300
  - wait: {any: [{visible: real.list.rows}, {text: No results}], into: outcome}
  - wait: {count: real.list.rows, at_least: 4}
    if: params.n >= 4
  - extract: {from: real.list.rows, fields: {sku: real.list.row_sku}, into: rows}
output:
  outcome: ${{ vars.outcome }}
  rows: ${{ vars.rows }}
`,
		"wait_count_short": `
name: wait_count_short
description: Wait for more rows than there are.
risk: read
steps:
  - goto: ${{ config.real_base }}/list.html?n=3
  - wait: {count: real.list.rows, at_least: 4, timeout: 400ms}
`,
		"wait_push": `
name: wait_push
description: A URL changed by history.pushState, then network quiet.
risk: read
steps:
  - goto: ${{ config.real_base }}/list.html?n=1
  - click: real.list.go_push
  - wait: {url: "*/pushed/done"}
  - wait: {network_idle: 200ms}
  - wait: {hidden: real.list.first_row, timeout: 300ms}
    optional: true
  - wait: {text: "Card ending", timeout: 300ms}
    optional: true
output:
  url: ${{ page.url }}
`,
		"wait_frames": `
name: wait_frames
description: Text inside a cross-site frame, and a frame target.
risk: read
steps:
  - goto: ${{ config.real_base }}/frames.html
  - wait: {text: Card form from another site}
  - wait: {visible: real.card.number}
  - wait: {any: [{visible: real.card.lost}, {text: Inside the same-origin frame}], into: which}
output:
  which: ${{ vars.which }}
`,
	}, nil)
	env := h.OK(h.Call("wait_any", `{"n": 0}`))
	if env.Data["outcome"] != 1 {
		t.Errorf("no results: outcome %v", env.Data["outcome"])
	}
	if rows := harness.List(t, env, "rows"); rows.Count != 0 {
		t.Errorf("no results: rows %+v", rows)
	}
	env = h.OK(h.Call("wait_any", `{"n": 4}`))
	if env.Data["outcome"] != 0 || harness.List(t, env, "rows").Count != 4 {
		t.Errorf("4 rows: %s", env.JSON())
	}

	h.Code(h.Call("wait_count_short", `{}`), "target_not_found", "target real.list.rows did not reach 4 visible matches on /list.html after 400ms")

	env = h.OK(h.Call("wait_push", `{}`))
	if u, _ := env.Data["url"].(string); !strings.HasSuffix(u, "/pushed/done") {
		t.Errorf("url after pushState: %v", env.Data["url"])
	}
	tr := h.Trace(env)
	var codes []string
	for _, s := range tr.Steps {
		codes = append(codes, s.Kind+":"+s.Code)
	}
	if diff := strings.Join(codes, " "); diff != "goto:ok click:ok wait:ok wait:ok wait:target_not_found wait:target_not_found" {
		t.Errorf("steps: %s", diff)
	}

	env = h.OK(h.Call("wait_frames", `{}`))
	if env.Data["which"] != 1 {
		t.Errorf("which: %v", env.Data["which"])
	}
}

// TestRealWaitBeyondStepTimeout: a wait's own timeout is honoured beyond
// the production default step timeout (10s).
func TestRealWaitBeyondStepTimeout(t *testing.T) {
	t.Parallel()
	h, _ := realHarnessOn(t, harness.DemoSite.WithDefaultStepTimeout(), map[string]string{
		"wait_long": `
name: wait_long
description: A wait longer than the default step timeout (10s).
risk: read
steps:
  - goto: ${{ config.real_base }}/list.html?n=2&delay=11000
  - wait: {visible: real.list.rows, timeout: 50s}
  - extract: {from: real.list.rows, fields: {sku: real.list.row_sku}, into: rows}
output:
  rows: ${{ vars.rows }}
`,
	}, nil)
	env := h.OK(h.Call("wait_long", `{}`))
	if harness.List(t, env, "rows").Count != 2 {
		t.Errorf("rows after a long wait: %s", env.JSON())
	}
}

func TestRealPaginatePushState(t *testing.T) {
	t.Parallel()
	h, _ := realHarness(t, map[string]string{"read_pages": `
name: read_pages
description: Read every page of a list whose next page comes by pushState or by a new document.
risk: read
params:
  nav: {type: string, description: push or reload, enum: [push, reload], default: push}
  max: {type: integer, description: pages to read, min: 1, max: 5, default: 5}
steps:
  - goto: ${{ config.real_base }}/list.html?n=3&pages=3&delay=150&nav=${{ params.nav }}
  - paginate:
      next: real.list.next
      max_pages: ${{ params.max }}
      steps:
        - wait: {visible: real.list.rows}
        - extract: {from: real.list.rows, list: true, fields: {sku: real.list.row_sku}, into: rows, append: true}
output:
  rows: ${{ vars.rows }}
`}, nil)
	for _, nav := range []string{"push", "reload"} {
		env := h.OK(h.Call("read_pages", `{"nav": "`+nav+`"}`))
		rows := harness.List(t, env, "rows")
		var skus []string
		for _, r := range rows.Items {
			skus = append(skus, r.(map[string]any)["sku"].(string))
		}
		if got := strings.Join(skus, ","); got != "P1-1,P1-2,P1-3,P2-1,P2-2,P2-3,P3-1,P3-2,P3-3" || rows.Truncated {
			t.Errorf("%s: rows %s truncated %v", nav, got, rows.Truncated)
		}
	}
	env := h.OK(h.Call("read_pages", `{"max": 2}`))
	if rows := harness.List(t, env, "rows"); rows.Count != 6 || !rows.Truncated {
		t.Errorf("max 2 pages: count %d truncated %v", rows.Count, rows.Truncated)
	}
}

func TestRealSelect(t *testing.T) {
	t.Parallel()
	h, _ := realHarness(t, map[string]string{
		"choose": `
name: choose
description: A native select, an ARIA combobox and a button opening a listbox.
risk: read
steps:
  - goto: ${{ config.real_base }}/combobox.html
  - select: {target: real.combo.size, value: Large}
  - select: {target: real.combo.country, value: France}
  - select: {target: real.combo.lang, value: Deutsch}
  - extract: {from: real.combo.size_out, into: size}
  - extract: {from: real.combo.country_out, into: country}
  - extract: {from: real.combo.lang_out, into: lang}
output:
  size: ${{ vars.size }}
  country: ${{ vars.country }}
  lang: ${{ vars.lang }}
`,
		"choose_missing": `
name: choose_missing
description: An option the combobox does not have.
risk: read
params:
  native: {type: boolean, description: the native select, default: false}
steps:
  - goto: ${{ config.real_base }}/combobox.html
  - select: {target: real.combo.size, value: Huge}
    if: params.native
  - wait: {visible: real.combo.country}
  - select: {target: real.combo.country, value: Spain}
    timeout: 15s # the option never comes, so this is waited out; 3 s left the combobox not ready at a load of 40
`,
	}, nil)
	env := h.OK(h.Call("choose", `{}`))
	if env.Data["size"] != "size l" || env.Data["country"] != "chose FR" || env.Data["lang"] != "chose Deutsch" {
		t.Errorf("data: %v", env.Data)
	}
	env = h.Code(h.Call("choose_missing", `{}`), "target_not_found")
	if env.Message != `target real.combo.country has no option "Spain" (options: Germany, France, Italy)` {
		t.Errorf("aria message: %s", env.Message)
	}
	env = h.Code(h.Call("choose_missing", `{"native": true}`), "target_not_found")
	if env.Message != `target real.combo.size has no option "Huge" (options: Small, Medium, Large)` {
		t.Errorf("native message: %s", env.Message)
	}
}

func TestRealFrameAllowedHosts(t *testing.T) {
	t.Parallel()
	h, _ := realHarness(t, map[string]string{
		"frames_allowed": `
name: frames_allowed
description: A page whose card frame comes from a host not allowed.
risk: read
params:
  card: {type: boolean, description: reach into the card frame, default: false}
steps:
  - goto: ${{ config.real_base }}/frames.html
  - fill: {target: real.same.coupon, value: OK}
  - wait: {text: Card form from another site}
    timeout: 800ms
    optional: true
  - fill: {target: real.card.number, value: "4242"}
    if: params.card
    timeout: 10s
`,
	}, func(c *config.Config) { c.Policy.AllowedHosts = []string{"127.0.0.1"} })
	// The page and its same-origin frame work; the card document never loads.
	env := h.OK(h.Call("frames_allowed", `{}`))
	steps := h.Trace(env).Steps
	if len(steps) < 3 || steps[2].Kind != "wait" || steps[2].Code != "target_not_found" {
		t.Errorf("the cross-site frame's text appeared, or the wait did not run: %+v", steps)
	}
	// Reaching into the refused frame names the host.
	env = h.Code(h.Call("frames_allowed", `{"card": true}`), "host_not_allowed", `target real.card.number is in a frame whose document the browser refused: host "localhost:`)
	if !env.NeedsHuman {
		t.Errorf("a refused frame's host does not need a human: %s", env.JSON())
	}
}
