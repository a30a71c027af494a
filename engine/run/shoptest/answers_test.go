package shoptest

import (
	"strings"
	"testing"
)

// answersWorkflow clicks a target on answers.html after the steps before,
// with the click's fields in click (`, navigation: none`), then the steps
// then (read what the page says).
func answersWorkflow(name, before, click, then string) string {
	return `
name: ` + name + `
description: Click a target on the answers page, then read what the page says.
risk: read
params:
  target: {type: target, prefix: tr.ans., description: What to click}
steps:
  - goto: ${{ config.shop_base }}/answers.html
` + before + `  - click: {target: "${{ params.target }}"` + click + `}
` + then
}

// TestAnErrorPageIsNotDone: a click whose form the server answered with
// an error page (500: it failed; 422 to a POST: it refused what was sent)
// answered ok as the workflow's last step; the agent was told it saved.
// Now the acting step fails with the server's answer: navigation_failed
// (retryable) for a server error, however late the navigation (a save
// that first posts with fetch), and invalid_params for a form refused. A
// link to a page the server was too busy to give (429) fails as a server
// error does (before: ok). A link to a missing page (GET 404) is a page a
// person reads: ok, and read on, as is a form the server takes. A next
// step that is optional or retried does not take a late error page for
// its own (before: the late 500 was retried away, ok).
func TestAnErrorPageIsNotDone(t *testing.T) {
	t.Parallel()
	// save clicks as its last step; save_read reads the page it led to.
	workflow := func(name, then string) string { return answersWorkflow(name, "", "", then) }
	h, _ := truthfulHarness(t, map[string]string{
		"save":      workflow("save", ""),
		"save_read": workflow("save_read", "  - extract: {from: tr.ans.said, into: said}\noutput:\n  said: ${{ vars.said }}\n"),
		// A next step that may fail (optional) or try again (retry) does
		// not take the click's failure for its own.
		"save_then": workflow("save_then", "  - extract: {from: tr.ans.said, into: said}\n    optional: true\n    retry: {attempts: 3, backoff: 100ms}\n"),
	})
	args := func(target string) string { return `{"target": "tr.ans.` + target + `"}` }
	for _, c := range []struct{ tool, target, code, msg string }{
		{"save", "post500", "navigation_failed", "click ${{ params.target }} (#2) led to /answer, which answered HTTP 500: the server failed the request"},
		{"save_read", "post500", "navigation_failed", "which answered HTTP 500"},
		{"save", "get503", "navigation_failed", "which answered HTTP 503"},
		{"save", "get429", "navigation_failed", "which answered HTTP 429"},
		{"save", "late500", "navigation_failed", "led to /answer, which answered HTTP 500"},
		{"save_read", "late500", "navigation_failed", "which answered HTTP 500"},
		{"save_then", "post500", "navigation_failed", "which answered HTTP 500"},
		{"save_then", "late500", "navigation_failed", "which answered HTTP 500"},
		{"save_then", "post422", "invalid_params", "answered its POST with HTTP 422"},
		{"save", "post422", "invalid_params", "click ${{ params.target }} (#2) sent a form that the server refused: /answer answered its POST with HTTP 422"},
	} {
		env := h.Call(c.tool, args(c.target))
		h.Code(env, c.code, c.msg)
		if env.Step != "click ${{ params.target }} (#2)" {
			t.Errorf("%s %s: the failure names step %q, want the click", c.tool, c.target, env.Step)
		}
	}
	for _, c := range []struct{ target, said string }{
		{"get404", "GET 404"},
		{"post200", "POST 200"},
	} {
		if env := h.OK(h.Call("save_read", args(c.target))); env.Data["said"] != c.said {
			t.Errorf("click %s: the page says %q, want %q", c.target, env.Data["said"], c.said)
		}
		h.OK(h.Call("save", args(c.target)))
	}
}

// TestAScriptsSaveIsJudgedByItsAnswer: a click whose page saves by script
// (fetch, XMLHttpRequest) answered ok whatever the server said: a page
// that does not check the answer showed "saved" after a 500, and the
// agent was told it saved. Now a request the click's page sent to change
// something (not a GET) is judged as a form's page is: a server error or
// a server too busy (429) fails navigation_failed, retryable; a refusal
// (403, 422) invalid_params, naming the request, and saying when the
// refusal is not about the values sent (401, 419: the session ended, where
// before the message read as if the arguments were wrong). Whatever the page asks
// with GET, a beacon, an autosave the typing before the click began, and a
// click with navigation: none (the author reads the outcome) stay ok.
func TestAScriptsSaveIsJudgedByItsAnswer(t *testing.T) {
	t.Parallel()
	read := "  - extract: {from: tr.ans.said, into: said}\noutput:\n  said: ${{ vars.said }}\n"
	h, _ := truthfulHarness(t, map[string]string{
		"save":       answersWorkflow("save", "", "", ""),
		"save_read":  answersWorkflow("save_read", "", "", read),
		"save_none":  answersWorkflow("save_none", "", ", navigation: none", "  - wait: {text: saved}\n"+read),
		"draft_save": answersWorkflow("draft_save", "  - fill: {target: tr.ans.draft, value: a draft}\n", "", read),
	})
	args := func(target string) string { return `{"target": "tr.ans.` + target + `"}` }
	step := "click ${{ params.target }} (#2)"
	fails := []struct{ tool, target, code, msg string }{
		{"save", "fetch500", "navigation_failed", step + " sent a request the server failed: POST /answer answered HTTP 500 (it may have done nothing)"},
		{"save_read", "fetch500", "navigation_failed", "POST /answer answered HTTP 500"},
		{"save", "fetch429", "navigation_failed", "POST /answer answered HTTP 429"},
		{"save", "slowfetch500", "navigation_failed", "POST /answer answered HTTP 500"},
		{"save_read", "slowfetch500", "navigation_failed", "POST /answer answered HTTP 500"},
		{"save", "fetch422", "invalid_params", step + " sent a request that the server refused: POST /answer answered HTTP 422"},
		{"save_read", "xhr403", "invalid_params", "PUT /answer answered HTTP 403 (not allowed: this account may lack the right, or the page's session or token has expired)"},
		// A refusal that is not about the values sent says so: the session ended.
		{"save", "fetch401", "invalid_params", step + " sent a request that the server refused: POST /answer answered HTTP 401 (the server asks to sign in: the environment's session has ended; sign in again, then retry)"},
		{"save", "fetch419", "invalid_params", "POST /answer answered HTTP 419 (the server asks to sign in"},
	}
	oks := []struct{ tool, target, said string }{
		{"save_read", "fetch200", "saved"},
		{"save_read", "fetchget404", "looked up"},
		{"save_read", "beacon404", "counted"},
		{"save_none", "fetch500", "saved"},
		{"draft_save", "fetch200", "saved"},
	}
	var calls [][2]string
	for _, c := range fails {
		calls = append(calls, [2]string{c.tool, args(c.target)})
	}
	for _, c := range oks {
		calls = append(calls, [2]string{c.tool, args(c.target)})
	}
	envs := h.CallAll(calls...)
	for i, c := range fails {
		env := envs[i]
		if env.OK || env.Code != c.code || !strings.Contains(env.Message, c.msg) {
			t.Errorf("%s %s: want %s saying %q, got %s", c.tool, c.target, c.code, c.msg, env.JSON())
			continue
		}
		if env.Step != step {
			t.Errorf("%s %s: the failure names step %q, want the click", c.tool, c.target, env.Step)
		}
		if env.Retryable != (c.code == "navigation_failed") {
			t.Errorf("%s %s: retryable %v", c.tool, c.target, env.Retryable)
		}
	}
	for i, c := range oks {
		env := envs[len(fails)+i]
		if !env.OK || env.Data["said"] != c.said {
			t.Errorf("%s %s: want ok with the page saying %q, got %s", c.tool, c.target, c.said, env.JSON())
		}
	}
}

// TestASaveInAPopupIsJudgedToo: a click inside a popup step (a page the
// site opens in a new tab or window: a media manager, a quick edit) was
// watched on the opener's page: a form there answered 500, a save by
// script answered 500, a late navigation to an error page, each answered
// ok (the late one read the old page), and as the tab's last step the tab
// was closed with nothing waited for or judged. Now the step's navigation
// watch follows the page it acts in, and the popup step waits for and
// judges what its last acting step set going before it closes the tab.
func TestASaveInAPopupIsJudgedToo(t *testing.T) {
	t.Parallel()
	// save_in_tab reads the tab's page after the click; save_then_back
	// clicks as the tab's last step, then reads the opener's.
	tab := func(name, inTab, after string) string {
		return `
name: ` + name + `
description: Open the answers page in a new tab, click a target there, then read what a page says.
risk: read
params:
  target: {type: target, prefix: tr.ans., description: What to click}
steps:
  - goto: ${{ config.shop_base }}/answers.html
  - popup:
      click: tr.ans.open
      steps:
        - click: "${{ params.target }}"
` + inTab + after + `output:
  said: ${{ vars.said }}
`
	}
	read := "extract: {from: tr.ans.said, into: said}\n"
	h, _ := truthfulHarness(t, map[string]string{
		"save_in_tab":    tab("save_in_tab", "        - "+read, ""),
		"save_then_back": tab("save_then_back", "", "  - "+read),
	})
	var calls [][2]string
	for _, target := range []string{"post500", "fetch500", "late500", "post200", "fetch200"} {
		calls = append(calls, [2]string{"save_in_tab", `{"target": "tr.ans.` + target + `"}`})
	}
	for _, target := range []string{"fetch500", "late500", "slowfetch500", "fetch200"} {
		calls = append(calls, [2]string{"save_then_back", `{"target": "tr.ans.` + target + `"}`})
	}
	envs := h.CallAll(calls...)
	// The tab's last step: its page is judged before the tab is closed
	// (the opener's page says nothing: "").
	for i, c := range []struct{ target, code string }{{"fetch500", "navigation_failed"}, {"late500", "navigation_failed"}, {"slowfetch500", "navigation_failed"}, {"fetch200", "ok"}} {
		if env := envs[5+i]; env.Code != c.code {
			t.Errorf("%s as the tab's last step: want %s, got %s", c.target, c.code, env.JSON())
		}
	}
	for i, c := range []struct{ target, code, msg string }{
		{"post500", "navigation_failed", "led to /answer, which answered HTTP 500"},
		{"fetch500", "navigation_failed", "POST /answer answered HTTP 500"},
		{"late500", "navigation_failed", "led to /answer, which answered HTTP 500"},
	} {
		if env := envs[i]; env.OK || env.Code != c.code || !strings.Contains(env.Message, c.msg) {
			t.Errorf("%s in the tab: want %s saying %q, got %s", c.target, c.code, c.msg, env.JSON())
		}
	}
	for i, c := range []struct{ target, said string }{{"post200", "POST 200"}, {"fetch200", "saved"}} {
		if env := envs[3+i]; !env.OK || env.Data["said"] != c.said {
			t.Errorf("%s in the tab: want ok with the page saying %q, got %s", c.target, c.said, env.JSON())
		}
	}
}
