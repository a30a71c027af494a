package run_test

import (
	"strings"
	"testing"

	"github.com/toolwright/toolwright/engine/config"
)

// Targets of the test pages of issue 19's language items.
const langSelectors = `
urlecho.params:
  css: "#params"
urlecho.q:
  css: "#q"
urlecho.hash:
  css: "#hash"
keys.selected:
  css: "#selected"
keys.marked:
  css: "#marked"
keys.search:
  css: "#search"
keys.log:
  css: "#log"
notice.cookie:
  css: "#cookie"
notice.accept:
  css: "#accept"
notice.welcome:
  css: "#welcome"
notice.welcome_close:
  css: "#welcome-close"
notice.start:
  css: "#start"
notice.out:
  css: "#out"
`

func withLangSelectors(t *testing.T) func(*config.Config) {
	return func(c *config.Config) { addSelectors(t, c, langSelectors) }
}

// TestURLTemplatesEncodeArguments: an argument a template puts into a URL
// is one value, whatever it holds: "x&injected=1#frag" reaches the site as
// the value of q (no parameter "injected", no fragment), and a wait.url
// built the same way matches the page it led to. urlraw() puts a value in
// as it is. Before: the value went in raw, and the site saw injected=1.
func TestURLTemplatesEncodeArguments(t *testing.T) {
	h := newHarness(t, map[string]string{
		"url_q": `name: url_q
description: Open the echo page with a query.
risk: read
params:
  q: {type: string, description: the query}
steps:
  - goto: ${{ config.acme_base }}/urlecho.html?q=${{ params.q }}&n=1
  - wait: {url: "*/urlecho.html?q=${{ params.q }}&n=1", timeout: 10s}
  - extract: {from: urlecho.params, into: params}
  - extract: {from: urlecho.q, into: q}
  - extract: {from: urlecho.hash, into: hash}
output:
  params: ${{ vars.params }}
  q: ${{ vars.q }}
  hash: ${{ vars.hash }}
`,
	}, withLangSelectors(t))

	env := h.ok(h.call("url_q", `{"q": "x&injected=1#frag"}`))
	if env.Data["q"] != "x&injected=1#frag" || env.Data["params"] != "q=x&injected=1#frag | n=1" || env.Data["hash"] != "" {
		t.Errorf("an argument in the query: %s", env.JSON())
	}
	env = h.ok(h.call("url_q", `{"q": "a b/c?d=e"}`))
	if env.Data["q"] != "a b/c?d=e" {
		t.Errorf("an argument with a space, a slash and a question mark: %s", env.JSON())
	}
}

// TestURLRawOptsOut: urlraw() puts a value into a URL as it is.
func TestURLRawOptsOut(t *testing.T) {
	h := newHarness(t, map[string]string{
		"url_raw": `name: url_raw
description: Open the echo page with a query string as given.
risk: read
params:
  qs: {type: string, description: the query string}
steps:
  - goto: ${{ config.acme_base }}/urlecho.html?${{ urlraw(params.qs) }}
  - extract: {from: urlecho.params, into: params}
output:
  params: ${{ vars.params }}
`,
	}, withLangSelectors(t))
	env := h.ok(h.call("url_raw", `{"qs": "a=1&b=2"}`))
	if env.Data["params"] != "a=1 | b=2" {
		t.Errorf("urlraw: %s", env.JSON())
	}
}

// TestPressCharactersAndChords: press takes an application's shortcuts: a
// character (j, /) reaches the page's keydown listener with its e.key and
// types into a focused field (keydown, keypress, input), and chords hold
// their modifiers (Control+a selects the field's text, Shift+Tab moves
// focus back, Meta+Shift+K). Before: every one of these keys was refused
// at load ("unknown key").
func TestPressCharactersAndChords(t *testing.T) {
	h := newHarness(t, map[string]string{
		"shortcuts": `name: shortcuts
description: Use a feed reader's shortcuts.
risk: read
steps:
  - goto: ${{ config.acme_base }}/keys.html
  - press: j
  - press: j
  - press: Meta+Shift+K
  - press: /
  - press: x
  - press: "y"
  - press: Control+a
  - press: Z
  - press: Tab
  - press: Shift+Tab
  - extract: {from: keys.selected, into: selected}
  - extract: {from: keys.marked, into: marked}
  - extract: {from: keys.search, attr: value, into: search}
  - extract: {from: keys.log, into: log}
output:
  selected: ${{ vars.selected }}
  marked: ${{ vars.marked }}
  search: ${{ vars.search }}
  log: ${{ vars.log }}
`,
	}, withLangSelectors(t))
	env := h.ok(h.call("shortcuts", `{}`))
	if env.Data["selected"] != "two" || env.Data["marked"] != "all read" || env.Data["search"] != "Z" {
		t.Errorf("shortcuts: %s", env.JSON())
	}
	log, _ := env.Data["log"].(string)
	for _, want := range []string{"down:j press:j", "down:shift+meta+K", "down:/ focus:search", "down:x press:x input:x", "down:ctrl+a", "input:Z", "focus:other", "down:shift+Tab focus:search"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q: %s", want, log)
		}
	}
	if strings.Contains(log, "press:a") || strings.Contains(log, "input:xya") {
		t.Errorf("Control+a typed an a: %s", log)
	}
}

// TestWhenAndHandlers: an optional element costs no waiting. A step with
// when: runs only if its condition holds as it starts (the welcome panel),
// and is recorded as skipped otherwise; a handler answers the cookie notice
// before the first step that acts, once, and not again when it is gone.
// Before: when and handlers were unknown keys (load errors).
func TestWhenAndHandlers(t *testing.T) {
	h := newHarness(t, map[string]string{
		"start_app": `name: start_app
description: Start the app, past its cookie notice and welcome panel.
risk: read
params:
  welcome: {type: integer, description: 1 on a first visit, min: 0, max: 1}
handlers:
  - when: {visible: notice.cookie}
    steps:
      - click: notice.accept
    max: 2
steps:
  - goto: ${{ config.acme_base }}/notice.html?welcome=${{ params.welcome }}
  - click: notice.welcome_close
    when: {visible: notice.welcome}
    timeout: 30s
  - click: notice.start
  - goto: ${{ config.acme_base }}/notice.html
  - click: notice.start
  - extract: {from: notice.out, into: out}
output:
  out: ${{ vars.out }}
`,
	}, withLangSelectors(t))

	env := h.ok(h.call("start_app", `{"welcome": 1}`))
	if env.Data["out"] != "started" {
		t.Errorf("after the second goto: %s", env.JSON())
	}
	var paths []string
	for _, s := range h.trace(env).Steps {
		paths = append(paths, s.Path+":"+s.Code)
	}
	if got, want := strings.Join(paths, " "), "1:ok h1.1:ok 2:ok 3:ok 4:ok 5:ok 6:ok"; got != want {
		t.Errorf("with the welcome panel: steps %s, want %s", got, want)
	}

	env = h.ok(h.call("start_app", `{"welcome": 0}`))
	paths = nil
	for _, s := range h.trace(env).Steps {
		paths = append(paths, s.Path+":"+s.Code)
	}
	if got, want := strings.Join(paths, " "), "1:ok 2:skipped h1.1:ok 3:ok 4:ok 5:ok 6:ok"; got != want {
		t.Errorf("without the welcome panel: steps %s, want %s", got, want)
	}
}
