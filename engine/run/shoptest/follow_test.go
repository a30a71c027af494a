package shoptest

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/internal/harness"
)

// Issue 45: what a step set going is followed until it has run, and only
// then is the step judged; nothing is a window of time waited out. Each
// workflow below is how an author writes the action the first time, with
// no wait of its own; each answered ok with what the page showed before
// the work was done (or failed what the page did) before the follow hook.
var followWorkflows = map[string]string{
	// The search form handled by script (preventDefault, a timer, then a
	// fetch): read at once after Enter. Before: 2 s waited for a
	// navigation that never came (the idle assertion below).
	"fw_search": `
name: fw_search
description: Search parts with the page's search form.
risk: read
params:
  q: {type: string, description: words, max_length: 20, default: gear}
steps:
  - goto: ${{ config.shop_base }}/fwsearch.html
  - fill: {target: tr.fw.q, value: "${{ params.q }}"}
  - press: Enter
  - extract: {from: tr.fw.rows, into: rows}
output:
  rows: ${{ vars.rows }}
`,
	// A live filter: a debounced request redraws the list. Before: the 25
	// unfiltered rows.
	"fw_live": `
name: fw_live
description: Filter parts as a person types.
risk: read
steps:
  - goto: ${{ config.shop_base }}/fwsearch.html
  - fill: {target: tr.fw.live, value: valve}
  - extract: {from: tr.fw.live_rows, into: rows}
output:
  rows: ${{ vars.rows }}
`,
	// A click whose handler's work resumes in a promise reaction and goes
	// on by a MessageChannel message to a fetch (React's render and
	// scheduler). Before the hook heard the click itself: no rows.
	"fw_springs": `
name: fw_springs
description: Show the springs.
risk: read
steps:
  - goto: ${{ config.shop_base }}/fwsearch.html
  - click: tr.fw.springs
  - extract: {from: tr.fw.spring_rows, into: rows}
output:
  rows: ${{ vars.rows }}
`,
	// Issue 46's Node-RED: a confirm box that slides down over a shade
	// (a script's animation) is cancelled once it stands still (before:
	// target_covered by the shade at once, retryable); a search box that
	// searches on keyup finds (before: nothing, ok).
	"fw_motion": `
name: fw_motion
description: Decline the deploy, then find the sensors.
risk: write
steps:
  - goto: ${{ config.shop_base }}/fwmotion.html
  - click: tr.fw.deploy
  - click: tr.fw.cancel
  - extract: {from: tr.status, into: status}
  - fill: {target: tr.fw.find, value: sensor}
  - extract: {from: tr.fw.found, into: found}
output:
  status: ${{ vars.status }}
  found: ${{ vars.found }}
`,
	// A click whose handler submits the form 400 ms later. Before: the
	// heading of the old page ("Late").
	"fw_late": `
name: fw_late
description: Save a note with the button that submits late.
risk: write
steps:
  - goto: ${{ config.shop_base }}/fwlate.html
  - fill: {target: tr.fw.note, value: hello}
  - click: tr.fw.late_go
  - extract: {from: tr.heading, into: heading}
output:
  heading: ${{ vars.heading }}
`,
	// An item screen that loads its item by XHR after drawing its form.
	// Before: the form's defaults ("", "Draft").
	"fw_item": `
name: fw_item
description: Read the item.
risk: read
steps:
  - goto: ${{ config.shop_base }}/fwitem.html
  - extract: {from: tr.fw.title, attr: value, into: title}
  - extract: {from: tr.fw.state, attr: value, into: state}
output:
  title: ${{ vars.title }}
  state: ${{ vars.state }}
`,
	// The same, loaded 2.5 s after load (past what is followed): the wait
	// for the heading waits for it to have a size. Before: the empty
	// heading (no height) was visible at once: "".
	"fw_item_late": `
name: fw_item_late
description: Read the item's heading once it shows.
risk: read
steps:
  - goto: ${{ config.shop_base }}/fwitem.html?late=2500
  - wait: {visible: tr.heading, timeout: 10s}
  - extract: {from: tr.heading, into: title}
output:
  title: ${{ vars.title }}
`,
	// An edit stashed on the server after the last key, inside what a read
	// after typing follows: the click after the typing does not wait for it
	// (1.9 s: slow steps on a loaded machine must not reach it first;
	// before, the click waited, as MediaWiki's save waited 1 s for its edit
	// stash), a read after the typing sees it (1.2 s: well inside the 3 s a
	// followed timer may be due in, when the typing's events run late).
	"fw_stash_click": `
name: fw_stash_click
description: Type a note and save it.
risk: read
steps:
  - goto: ${{ config.shop_base }}/fwstash.html?stash=1900
  - fill: {target: tr.fw.stash_note, value: a note}
  - click: tr.fw.stash_save
  - extract: {from: tr.fw.stash_said, into: said}
output:
  said: ${{ vars.said }}
`,
	"fw_stash_read": `
name: fw_stash_read
description: Type a note and read whether it was stashed.
risk: read
steps:
  - goto: ${{ config.shop_base }}/fwstash.html
  - fill: {target: tr.fw.stash_note, value: a note}
  - extract: {from: tr.fw.stash, into: stash}
output:
  stash: ${{ vars.stash }}
`,
	// An uploader that takes the files, empties its input and sends them by
	// XHR. Before: invalid_params "kept none of the files".
	"fw_upload": `
name: fw_upload
description: Upload a file to the media library.
risk: write
params:
  refuse: {type: boolean, description: the server refuses it, default: false}
steps:
  - goto: "${{ config.shop_base }}/fwupload.html?refuse=${{ params.refuse ? 1 : '' }}"
  - upload: {target: tr.fw.files, files: [exemption.txt]}
  - extract: {from: tr.fw.queue, into: queue}
output:
  queue: ${{ vars.queue }}
`,
	// A tag field takes what is typed and moves it into a chip. Before:
	// invalid_params "emptied the field".
	"fw_tag": `
name: fw_tag
description: Tag the item.
risk: write
params:
  field: {type: target, prefix: tr.fw., description: the field, default: tr.fw.tag}
  value: {type: string, description: what to type, max_length: 20, default: urgent}
steps:
  - goto: ${{ config.shop_base }}/fwtags.html
  - fill: {target: "${{ params.field }}", value: "${{ params.value }}"}
  - extract: {from: tr.fw.chips, into: chips}
output:
  chips: ${{ vars.chips }}
`,
	// The same, read by the workflow: its own fail step's code stands.
	"fw_post_checked": `
name: fw_post_checked
description: Create a post, saying when the site refused it.
risk: write
steps:
  - goto: ${{ config.shop_base }}/posts/new
  - click: tr.fw.post_create
  - fail: {code: post_refused, message: the site refused the post}
    when: {visible: tr.fw.error}
  - extract: {from: tr.heading, into: heading}
output:
  heading: ${{ vars.heading }}
`,
	// A sign-in by script that says why it refused. Before: target_not_found,
	// retryable, after the wait's 3 s: the agent signed in again.
	"fw_signin": `
name: fw_signin
description: Sign in and read the account.
risk: write
params:
  pw: {type: string, description: the password, max_length: 20}
steps:
  - goto: ${{ config.shop_base }}/fwsignin.html
  - fill: {target: tr.fw.pw, value: "${{ params.pw }}"}
  - click: tr.fw.signin
  - wait: {visible: tr.fw.saved_note, timeout: 3s}
  - extract: {from: tr.fw.saved_note, into: account}
output:
  account: ${{ vars.account }}
`,
	// The same sign-in, as its author wrote it for a person to fix: the
	// workflow reads the page's words and fails with its own code, though
	// the server refused the sign-in (403) before. Before: the refusal's
	// invalid_params, needs_human false, ended the call first.
	"fw_signin_checked": `
name: fw_signin_checked
description: Sign in, saying when the credentials are refused.
risk: write
params:
  pw: {type: string, description: the password, max_length: 20}
steps:
  - goto: ${{ config.shop_base }}/fwsignin.html
  - fill: {target: tr.fw.pw, value: "${{ params.pw }}"}
  - click: tr.fw.signin
  - wait: {any: [{visible: tr.fw.saved_note}, {visible: tr.fw.problem}], into: outcome, timeout: 3s}
  - fail: {code: sign_in_failed, message: the site refused the account's credentials, needs_human: true}
    if: vars.outcome == 1
output:
  signed_in: true
`,
	// WordPress's log-in page empties its password field 200 ms after it
	// is parsed. Before: on a busy machine the fill came first and the
	// form was sent without it ("" saved, or "emptied the field").
	"fw_login": `
name: fw_login
description: Log in.
risk: write
steps:
  - goto: ${{ config.shop_base }}/fwlogin.html
  - fill: {target: tr.fw.user_pass, value: "s3cret-pass"}
  - click: tr.fw.login
  - extract: {from: tr.fw.saved_note, into: sent}
output:
  sent: ${{ vars.sent }}
`,
	// A server-rendered form answered 200 with itself and an error box.
	// Before: ok, nothing created.
	"fw_post": `
name: fw_post
description: Create a post.
risk: write
params:
  title: {type: string, description: the title, max_length: 40, default: ""}
steps:
  - goto: ${{ config.shop_base }}/posts/new
  - fill: {target: tr.fw.post_title, value: "${{ params.title }}"}
  - click: tr.fw.post_create
  - extract: {from: tr.heading, into: heading}
output:
  heading: ${{ vars.heading }}
`,
}

// items are the items of the list env's data holds under key.
func items(env *result.Envelope, key string) []any {
	var l struct{ Items []any }
	b, _ := json.Marshal(env.Data[key])
	_ = json.Unmarshal(b, &l)
	return l.Items
}

func TestWhatAStepSetGoingIsFollowed(t *testing.T) {
	t.Parallel()
	h, srv := truthfulHarness(t, followWorkflows)
	type check func(*result.Envelope) string
	list := func(key string, want ...any) check {
		return func(env *result.Envelope) string {
			if got := items(env, key); !reflect.DeepEqual(got, want) {
				return fmt.Sprintf("%s %v, want %v", key, got, want)
			}
			return ""
		}
	}
	field := func(key, want string) check {
		return func(env *result.Envelope) string {
			if env.Data[key] != want {
				return fmt.Sprintf("%s %q, want %q", key, env.Data[key], want)
			}
			return ""
		}
	}
	oks := []struct {
		tool, args string
		checks     []check
	}{
		{"fw_search", `{}`, []check{list("rows", "gear 01", "gear 06", "gear 11", "gear 16", "gear 21")}},
		{"fw_springs", `{}`, []check{list("rows", "spring 04", "spring 09", "spring 14", "spring 19", "spring 24")}},
		{"fw_motion", `{"task_id": "motion"}`, []check{field("status", "cancelled"), list("found", "sensor 1", "sensor 2")}},
		{"fw_live", `{}`, []check{list("rows", "valve 05", "valve 10", "valve 15", "valve 20", "valve 25")}},
		{"fw_late", `{"task_id": "late"}`, []check{field("heading", "Saved")}},
		{"fw_item", `{}`, []check{field("title", "Quarterly report"), field("state", "Published")}},
		{"fw_item_late", `{}`, []check{field("title", "Quarterly report")}},
		{"fw_upload", `{"task_id": "up"}`, []check{list("queue", "exemption.txt uploaded")}},
		{"fw_tag", `{"task_id": "tag"}`, []check{list("chips", "urgent")}},
		{"fw_post", `{"task_id": "post", "title": "Hello"}`, []check{field("heading", "Saved")}},
		{"fw_login", `{"task_id": "login"}`, []check{field("sent", "s3cret-pass")}},
		{"fw_signin", `{"task_id": "signin", "pw": "right"}`, []check{field("account", "account")}},
		{"fw_stash_click", `{}`, []check{field("said", "saved before the stash")}},
		{"fw_stash_read", `{}`, []check{field("stash", "stashed")}},
	}
	var calls [][2]string
	for _, c := range oks {
		calls = append(calls, [2]string{c.tool, c.args})
	}
	envs := h.CallAll(calls...)
	for i, c := range oks {
		env := envs[i]
		if !env.OK {
			t.Errorf("%s: want ok, got %s", c.tool, env.JSON())
			continue
		}
		for _, ch := range c.checks {
			if msg := ch(env); msg != "" {
				t.Errorf("%s: %s (%s)", c.tool, msg, env.JSON())
			}
		}
	}
	// What the page refused, as it says so, is not ok.
	refused := h.CallAll(
		[2]string{"fw_upload", `{"task_id": "up-refused", "refuse": true}`},
		[2]string{"fw_post", `{"task_id": "post-blank"}`},
		[2]string{"fw_tag", `{"task_id": "qty", "field": "tr.fw.qty", "value": "call me"}`},
		[2]string{"fw_post_checked", `{"task_id": "post-checked"}`},
		[2]string{"fw_signin", `{"task_id": "signin-wrong", "pw": "wrong"}`},
	)
	h.Code(refused[4], "invalid_params", `the page says "Wrong email or password"`)
	if env := h.Code(h.Call("fw_signin_checked", `{"task_id": "signin-checked", "pw": "wrong"}`), "sign_in_failed", "refused the account's credentials"); !env.NeedsHuman {
		t.Errorf("the workflow's own failure: %s, want needs_human", env.JSON())
	}
	if strings.Contains(refused[4].Message, "Maintenance") || refused[4].Retryable {
		t.Errorf("the refused sign-in: %s, want the page's new words only, not retryable", refused[4].JSON())
	}
	h.Code(refused[3], "post_refused", "the site refused the post")
	h.Code(refused[0], "invalid_params", "upload tr.fw.files", `POST /upload answered HTTP 422: "this file type is not allowed"`)
	h.Code(refused[1], "invalid_params", "click tr.fw.post_create", "Title can't be blank")
	h.Code(refused[2], "invalid_params", "kept nothing of the value typed into it")
	for _, env := range refused[:3] {
		if env.Retryable {
			t.Errorf("%s: retryable, want not (the same input is refused again)", env.JSON())
		}
	}
	saved := map[string]bool{}
	for _, n := range srv.notes() {
		saved[n] = true
	}
	for _, n := range []string{"hello", "upload exemption.txt", "post Hello"} {
		if !saved[n] {
			t.Errorf("the server never received %q (it has %v)", n, srv.notes())
		}
	}
}

// TestNoStepWaitsOnNothing: the fixture actions (a search by script, a
// list read page by page, a sign-in, a save by fetch, an upload) spend no
// time waiting for something that did not happen: every step's idle_ms is
// 0. A count, not a clock: it holds on a loaded machine. Before the follow
// hook, the Enter of a search form handled by script waited 2 s for a
// navigation, and a call's last click a window for one to start.
func TestNoStepWaitsOnNothing(t *testing.T) {
	t.Parallel()
	idle := func(h *harness.Harness, env *result.Envelope) {
		t.Helper()
		if !env.OK {
			t.Errorf("want ok, got %s", env.JSON())
			return
		}
		tr := h.Trace(env)
		for _, s := range tr.Steps {
			if s.IdleMS != 0 {
				t.Errorf("%s: step %s %s %s waited %d ms for nothing", tr.Tool, s.Path, s.Kind, s.Target, s.IdleMS)
			}
		}
	}
	// A search by script, an upload, a late submit, a save by fetch.
	wfs := map[string]string{"save_read": answersWorkflow("save_read", "", "", "  - extract: {from: tr.ans.said, into: said}\n")}
	for k, v := range followWorkflows {
		wfs[k] = v
	}
	h, _ := truthfulHarness(t, wfs)
	for _, env := range h.CallAll(
		[2]string{"fw_search", `{}`},
		[2]string{"fw_upload", `{"task_id": "idle-up"}`},
		[2]string{"fw_late", `{"task_id": "idle-late"}`},
		[2]string{"save_read", `{"target": "tr.ans.fetch200"}`},
	) {
		idle(h, env)
	}
	// The demo: sign in, search by script, read three pages.
	demo := harness.New(t, nil, nil)
	idle(demo, demo.Call("search_catalog", `{"max_pages": 3}`))
	// The shop: a sign-in (its form a web component), a search.
	shop := harness.NewReal(t, nil, nil)
	idle(shop, shop.Call("sign_in", `{}`))
	idle(shop, shop.Call("search_products", `{"query": "tent"}`))
}
