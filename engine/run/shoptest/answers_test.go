package shoptest

import "testing"

// TestAnErrorPageIsNotDone: a click whose form the server answered with
// an error page (500: it failed; 422 to a POST: it refused what was sent)
// answered ok as the workflow's last step; the agent was told it saved.
// Now the acting step fails with the server's answer: navigation_failed
// (retryable) for a server error, however late the navigation (a save
// that first posts with fetch), and invalid_params for a form refused. A
// link to a missing page (GET 404) is a page a person reads: ok, and read
// on, as is a form the server takes. A next step that is optional or
// retried does not take a late error page for its own (before: the late
// 500 was retried away, ok).
func TestAnErrorPageIsNotDone(t *testing.T) {
	t.Parallel()
	// save clicks as its last step; save_read reads the page it led to.
	workflow := func(name, then string) string {
		return `
name: ` + name + `
description: Click a target on the answers page, then read what the page says (save_read).
risk: read
params:
  target: {type: target, prefix: tr.ans., description: What to click}
steps:
  - goto: ${{ config.shop_base }}/answers.html
  - click: "${{ params.target }}"
` + then
	}
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
