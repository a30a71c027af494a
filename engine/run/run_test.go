package run_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/engine/run"
	"github.com/toolwright/toolwright/internal/harness"
	"github.com/toolwright/toolwright/internal/testbrowser"
	"github.com/toolwright/toolwright/internal/testsite"
)

func TestMain(m *testing.M) { testsite.Main(m) }

const kindsTour = `
name: kinds_tour
description: Every step kind on the fixture site.
risk: read
params:
  query: {type: string, description: Search words, max_length: 50, default: ""}
  limit: {type: integer, description: Rows to keep, min: 1, max: 5, default: 2}
steps:
  - goto: ${{ config.acme_base }}/login.html
  - assert: {url: "*/login.html"}
  - assert: {text: "Sign in to Acme"}
  - screenshot: {into: shot}   # before a secret is typed: afterwards no screenshot is kept
  - hover: acme.login.submit
  - fill: {target: acme.login.email, value: "${{ secrets.acme_user }}"}
  - fill: {target: acme.login.password, value: "${{ secrets.acme_password }}"}
  - extract: {from: acme.login.password, attr: value, into: pw}
  - extract: {from: acme.login.email, attr: value, into: email}
  - click: acme.login.submit
  - wait: {url: "*/catalog.html*"}
  - wait: {text: "Signed in as"}
  - wait: {hidden: acme.login.error}
  - assert: {visible: acme.catalog.signed_in}
  - extract: {from: acme.catalog.signed_in, into: user}
  - fill: {target: acme.catalog.search_box, value: "${{ params.query }}"}
  - press: Enter
  - wait: {visible: acme.catalog.rows}
  - select: {target: acme.catalog.sort, value: "Price: high to low"}
  - sleep: 400ms
  - wait: {visible: acme.catalog.rows}
  - extract:
      from: acme.catalog.rows
      list: true
      limit: ${{ params.limit }}
      fields: {sku: acme.catalog.row_sku, price: acme.catalog.row_price}
      into: top
  - extract: {from: acme.catalog.detail_link, attr: href, into: first_link}
  - set: {count: "${{ len(vars.top) }}", greeting: "hi ${{ vars.user }}"}
  - do:
      - set: {branch: taken}
    if: vars.count == 2
  - do:
      - set: {branch: wrong}
    if: vars.count == 99
  - repeat:
      max: 5
      until: vars.n >= 3
      steps:
        - set: {n: "${{ (vars.n ?? 0) + 1 }}"}
  - repeat:
      max: 5
      while: loop.index < 2
      steps:
        - set: {rounds: "${{ loop.index + 1 }}"}
  - for_each:
      items: vars.top
      as: row
      max: 5
      steps:
        - set: {last_sku: "${{ row.sku }}", last_index: "${{ loop.index }}"}
  - call: {tool: read_status, into: status}
output:
  pw: ${{ vars.pw }}
  email: ${{ vars.email }}
  user: ${{ vars.user }}
  top: ${{ vars.top }}
  first_link: ${{ vars.first_link }}
  count: ${{ vars.count }}
  greeting: ${{ vars.greeting }}
  branch: ${{ vars.branch }}
  n: ${{ vars.n }}
  rounds: ${{ vars.rounds }}
  last_sku: ${{ vars.last_sku }}
  last_index: ${{ vars.last_index }}
  shot: ${{ vars.shot }}
  status: ${{ vars.status }}
  title: ${{ page.title }}
`

const readStatus = `
name: read_status
description: Read the catalog's status line.
risk: read
steps:
  - extract: {from: acme.catalog.status, into: s}
output:
  text: ${{ vars.s }}
`

func TestEveryStepKind(t *testing.T) {
	t.Parallel()
	h := harness.New(t, map[string]string{"kinds_tour": kindsTour, "read_status": readStatus}, nil)
	env := h.OK(h.Call("kinds_tour", `{"query":"o"}`))
	d := env.Data
	if d["pw"] != "" {
		t.Errorf("extract read a password value: %q", d["pw"])
	}
	if d["email"] != "[redacted:acme_user]" {
		t.Errorf("the secret typed into the email field must come back redacted, got %q", d["email"])
	}
	if d["user"] != "[redacted:acme_user]" {
		t.Errorf("user = %q", d["user"])
	}
	top := harness.List(t, env, "top")
	if top.Count != 2 || !top.Truncated {
		t.Errorf("top = %+v, want 2 items cut by limit", top)
	}
	first := top.Items[0].(map[string]any)
	if first["price"] != "$249.50" && !strings.HasPrefix(first["price"].(string), "$") {
		t.Errorf("first row price = %v", first["price"])
	}
	if !strings.Contains(d["first_link"].(string), "product.html?sku=") {
		t.Errorf("first_link = %v", d["first_link"])
	}
	if d["count"] != 2 || d["branch"] != "taken" || d["n"] != 3 || d["last_index"] != 1 {
		t.Errorf("count=%v branch=%v n=%v last_index=%v", d["count"], d["branch"], d["n"], d["last_index"])
	}
	// limit: ${{ params.limit }} kept its type; while: saw its own round's loop.index.
	if d["rounds"] != 2 {
		t.Errorf("rounds = %v, want 2 (while: loop.index < 2)", d["rounds"])
	}
	if d["last_sku"] != first["sku"] && d["last_sku"] != top.Items[1].(map[string]any)["sku"] {
		t.Errorf("last_sku = %v", d["last_sku"])
	}
	shot := d["shot"].(map[string]any)
	if fi, err := os.Stat(shot["file"].(string)); err != nil || fi.Size() == 0 || shot["width"].(int) < 100 {
		t.Errorf("screenshot %v: %v", shot, err)
	}
	status := d["status"].(map[string]any)
	if !strings.Contains(status["text"].(string), "result") {
		t.Errorf("called workflow read %v", status)
	}
	tr := h.Trace(env)
	if len(tr.Steps) < 25 || tr.Code != "ok" {
		t.Errorf("trace has %d steps, code %s", len(tr.Steps), tr.Code)
	}
	var sawSkip, sawNested bool
	for _, s := range tr.Steps {
		sawSkip = sawSkip || s.Code == "skipped"
		sawNested = sawNested || strings.Contains(s.Path, "/")
	}
	if !sawSkip || !sawNested {
		t.Errorf("trace lacks a skipped step (%v) or a called workflow's steps (%v)", sawSkip, sawNested)
	}
}

func TestSearchPaginate(t *testing.T) {
	t.Parallel()
	h := harness.New(t, nil, nil)
	for _, tc := range []struct {
		args      string
		count     int
		truncated bool
	}{
		{`{"max_pages": 2}`, 10, true},
		{`{"max_pages": 5}`, 23, false},
		{`{"query": "rocket", "max_pages": 5}`, 0, false},
	} {
		env := h.OK(h.Call("search_catalog", tc.args))
		for _, sr := range h.Trace(env).Steps {
			// Container steps keep their record while their nested steps append theirs.
			if sr.Code != "ok" || (sr.Kind == "paginate" && (sr.DurationMS == 0 || sr.Strategy == "")) {
				t.Errorf("%s: trace step %+v", tc.args, sr)
			}
		}
		rows := harness.List(t, env, "rows")
		if tc.count > 0 && (rows.Count != tc.count || rows.Truncated != tc.truncated) {
			t.Errorf("%s: %d rows, truncated %v; want %d, %v", tc.args, rows.Count, rows.Truncated, tc.count, tc.truncated)
		}
		if tc.count == 0 && (rows.Count == 0 || rows.Count > 5 || rows.Truncated) {
			t.Errorf("%s: %d rows, truncated %v", tc.args, rows.Count, rows.Truncated)
		}
		seen := map[any]bool{}
		for _, it := range rows.Items {
			sku := it.(map[string]any)["sku"]
			if seen[sku] {
				t.Errorf("%s: row %v read twice: the page change was not detected", tc.args, sku)
			}
			seen[sku] = true
		}
	}
}

func TestFallbackIsTraced(t *testing.T) {
	t.Parallel()
	h := harness.New(t, map[string]string{"broken_login": `
name: broken_login
description: Sign in on the redesigned page, where only fallbacks match.
risk: read
steps:
  - goto: ${{ config.acme_base }}/broken.html
  - fill: {target: acme.login.email, value: "${{ secrets.acme_user }}"}
  - click: acme.login.submit
`}, nil)
	env := h.OK(h.Call("broken_login", `{}`))
	tr := h.Trace(env)
	got := map[string]string{}
	for _, s := range tr.Steps {
		got[s.Kind] = s.Strategy
	}
	if !strings.HasPrefix(got["fill"], "fallback 1") || !strings.HasPrefix(got["click"], "fallback") {
		t.Errorf("strategies: %v", got)
	}
}

func TestFailuresAndTimeouts(t *testing.T) {
	t.Parallel()
	h := harness.New(t, map[string]string{
		"business_fail": `
name: business_fail
description: A business failure of the workflow's own code.
risk: read
params:
  stock: {type: integer, description: Units in stock, min: 0, max: 10, default: 0}
steps:
  - fail: {code: out_of_stock, message: "nothing left (stock ${{ params.stock }})", needs_human: true}
    if: params.stock == 0
  - set: {ok: true}
output:
  ok: ${{ vars.ok }}
`,
		"slow_page": `
name: slow_page
description: Open a page slower than the deadline.
risk: read
deadline: 1s
steps:
  - goto: ${{ config.acme_base }}/slow?ms=30000
`,
		"missing_target": `
name: missing_target
description: Wait for a target that never comes, retrying.
risk: read
steps:
  - goto: ${{ config.acme_base }}/login.html
  - click: acme.missing
    timeout: 300ms
    retry: {attempts: 3, backoff: 50ms}
`,
		"hurried_click": `
name: hurried_click
description: Click with no time to do it.
risk: read
steps:
  - goto: ${{ config.acme_base }}/login.html
  - click: acme.login.submit
    timeout: 1ms
`,
		"optional_step": `
name: optional_step
description: An optional step that fails is skipped.
risk: read
steps:
  - goto: ${{ config.acme_base }}/login.html
  - click: acme.missing
    timeout: 200ms
    optional: true
  - set: {after: yes}
output:
  after: ${{ vars.after }}
`,
		"assert_code": `
name: assert_code
description: An assertion with its own code.
risk: read
steps:
  - goto: ${{ config.acme_base }}/login.html
  - assert: {visible: acme.catalog.rows, code: not_signed_in, message: "sign in first"}
`,
		"bad_nav": `
name: bad_nav
description: Navigate to a port nobody listens on.
risk: read
steps:
  - goto: http://127.0.0.1:1/nothing
`,
	}, nil)

	env := h.Code(h.Call("business_fail", `{}`), "out_of_stock")
	if env.Message != "nothing left (stock 0)" || !env.NeedsHuman || env.Retryable || env.Step != "fail (#1)" {
		t.Errorf("business fail envelope: %s", env.JSON())
	}
	h.OK(h.Call("business_fail", `{"stock": 3}`))

	start := time.Now()
	env = h.Code(h.Call("slow_page", `{}`), "deadline_exceeded")
	if took := time.Since(start); took > 25*time.Second || !env.Retryable { // the page answers after 30s
		t.Errorf("deadline: took %s, envelope %s", took, env.JSON())
	}

	env = h.Code(h.Call("missing_target", `{}`), "target_not_found", "acme.missing", "/login.html")
	if env.Attempts != 3 || !env.Retryable {
		t.Errorf("retries: %s", env.JSON())
	}
	// The capture is bounded (3 s): on a busy machine it may keep less,
	// and the trace then says why.
	tr := h.Trace(env)
	if len(tr.Artifacts) < 2 && !strings.Contains(tr.Error, "failure capture") {
		t.Errorf("a failed call keeps a screenshot and the page HTML, or says why not; got %v (%q)", tr.Artifacts, tr.Error)
	}

	// Time out wherever the step is, the message says on which page: before,
	// a step that ran out before its target was looked for said only "was
	// not ready within 1ms" (and missing_target's 300 ms, at a load of 40).
	h.Code(h.Call("hurried_click", `{}`), "target_not_found", "acme.login.submit", " on /login.html")

	env = h.OK(h.Call("optional_step", `{}`))
	if env.Data["after"] != "yes" {
		t.Errorf("optional: %s", env.JSON())
	}
	env = h.Code(h.Call("assert_code", `{}`), "not_signed_in")
	if env.Message != "sign in first" || env.Retryable {
		t.Errorf("assert: %s", env.JSON())
	}
	env = h.Code(h.Call("bad_nav", `{}`), "navigation_failed")
	if strings.Contains(env.Message, "net::") && strings.Contains(env.Message, "rod") {
		t.Errorf("raw error leaked: %s", env.Message)
	}
	h.Code(h.Call("business_fail", `{"stock": 11}`), "invalid_params")
}

// slowRead opens a page that answers after 30s.
const slowRead = `
name: slow_read
description: A page that takes 30s.
risk: read
steps:
  - goto: ${{ config.acme_base }}/slow?ms=30000
    timeout: 50s
`

func TestCancelMidCall(t *testing.T) {
	t.Parallel()
	h := harness.New(t, map[string]string{"slow_read": slowRead}, nil)
	h.OK(h.Call("search_catalog", `{}`)) // the browser is up: the cancel lands mid-navigation
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(700*time.Millisecond, cancel)
	start := time.Now()
	env := h.Code(h.CallCtx(ctx, "slow_read", `{}`), "cancelled")
	if took := time.Since(start); took > 25*time.Second { // the page answers after 30s
		t.Errorf("cancel took %s", took)
	}
	if env.Retryable {
		t.Errorf("cancelled is not retryable: %s", env.JSON())
	}
}

func TestBrowserKilledMidCall(t *testing.T) {
	t.Parallel()
	testbrowser.OwnBrowser(t) // it kills its browser
	h := harness.New(t, map[string]string{"slow_read": slowRead}, nil)
	h.OK(h.Call("search_catalog", `{}`)) // the browser is up
	done := make(chan *result.Envelope)
	going := make(chan struct{}, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		env, err := h.Eng.Call(ctx, run.Request{Tool: "slow_read", Args: json.RawMessage(`{}`), Progress: func(_, _ int, step string) {
			if strings.HasPrefix(step, "goto") {
				select {
				case going <- struct{}{}:
				default:
				}
			}
		}})
		if err != nil {
			t.Errorf("slow_read: %v", err)
		}
		done <- env
	}()
	// Kill once the call holds its environment and navigates (a kill
	// before that is a browser the call would relaunch, not one dying
	// under it, however busy the machine is).
	select {
	case <-going:
	case <-time.After(30 * time.Second):
		t.Fatal("the slow call never started its goto")
	}
	time.Sleep(200 * time.Millisecond)
	killChromium(t, h)
	select {
	case env := <-done:
		h.Code(env, "env_unavailable")
		if !env.Retryable {
			t.Errorf("env_unavailable is retryable: %s", env.JSON())
		}
	case <-time.After(25 * time.Second):
		t.Fatal("the call hung after the browser died")
	}
	h.OK(h.Call("search_catalog", `{}`)) // relaunched
}

// killChromium kills every Chromium process whose profile lives under the
// harness's state dir, as a crash would.
func killChromium(t *testing.T, h *harness.Harness) {
	t.Helper()
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	killed := 0
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(b), h.Cfg.StateDir) || !strings.Contains(string(b), "user-data-dir") {
			continue
		}
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if err == nil && syscall.Kill(pid, syscall.SIGKILL) == nil {
			killed++
		}
	}
	if killed == 0 {
		t.Fatal("no Chromium process of this harness found to kill")
	}
}

const openAccount = `
name: open_account
description: Open an environment for an account and sign in there.
env: new
risk: read
params:
  purpose: {type: string, description: The account, pattern: "^[a-z]+$", max_length: 20, required: true}
  sign_in: {type: boolean, description: Sign in, default: true}
steps:
  - open_env: {purpose: "${{ params.purpose }}"}
  - goto: "${{ config.acme_base }}/setcookie?name=acme_user&value=${{ params.purpose }}@example.com&next=/catalog.html"
    if: params.sign_in
output:
  env_id: ${{ env.id }}
  purpose: ${{ env.purpose }}
`

const whoAmI = `
name: who_am_i
description: Read who is signed in, in a given environment.
env: given
risk: read
steps:
  - goto: ${{ config.acme_base }}/cookies
  - extract: {from: acme.page_body, into: cookies}
output:
  cookies: ${{ vars.cookies }}
  env_id: ${{ env.id }}
`

const catalogOnly = `
name: catalog_only
description: Runs only on catalog environments.
env: given
purposes: [catalog]
risk: read
steps:
  - goto: ${{ config.acme_base }}/index.html
`

func TestEnvironmentsAcrossCalls(t *testing.T) {
	t.Parallel()
	h := harness.New(t, map[string]string{"open_account": openAccount, "who_am_i": whoAmI, "catalog_only": catalogOnly}, nil)
	a := h.OK(h.Call("open_account", `{"purpose":"alice"}`))
	b := h.OK(h.Call("open_account", `{"purpose":"bob"}`))
	idA, idB := a.Data["env_id"].(string), b.Data["env_id"].(string)
	if idA == "" || idA == idB || !strings.HasPrefix(idA, "env_") {
		t.Fatalf("env ids %q and %q", idA, idB)
	}
	gotA := h.OK(h.Call("who_am_i", `{"env_id":"`+idA+`"}`)).Data["cookies"].(string)
	gotB := h.OK(h.Call("who_am_i", `{"env_id":"`+idB+`"}`)).Data["cookies"].(string)
	if !strings.Contains(gotA, "alice@example.com") || strings.Contains(gotA, "bob") {
		t.Errorf("alice's environment sees %q", gotA)
	}
	if !strings.Contains(gotB, "bob@example.com") || strings.Contains(gotB, "alice") {
		t.Errorf("bob's environment sees %q", gotB)
	}
	h.Code(h.Call("catalog_only", `{"env_id":"`+idA+`"}`), "env_purpose_mismatch")
	h.Code(h.Call("who_am_i", `{"env_id":"env_doesnotexist"}`), "env_not_found")
	h.Code(h.Call("who_am_i", `{}`), "invalid_params")
	// An idle environment of the same purpose is reused, cookies and all.
	again := h.OK(h.Call("open_account", `{"purpose":"alice","sign_in":false}`))
	if again.Data["env_id"] != idA {
		t.Errorf("open_account for alice again gave %v, want the idle %s", again.Data["env_id"], idA)
	}
}
