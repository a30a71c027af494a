package run_test

import (
	"strings"
	"testing"

	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/internal/harness"
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
posts.rows:
  css: "#posts li.post"
  many: true
posts.title:
  within: posts.rows
  css: a.title
posts.time:
  within: posts.rows
  css: time
viewport.size:
  css: "#size"
viewport.authors:
  css: "#posts td.column-author"
  many: true
`

func withLangSelectors(t *testing.T) func(*config.Config) {
	return func(c *config.Config) { harness.AddSelectors(t, c, langSelectors) }
}

// TestURLTemplatesEncodeArguments: an argument a template puts into a URL
// is one value, whatever it holds: "x&injected=1#frag" reaches the site as
// the value of q (no parameter "injected", no fragment), and a wait.url
// built the same way matches the page it led to. urlraw() puts a value in
// as it is. Before: the value went in raw, and the site saw injected=1.
func TestURLTemplatesEncodeArguments(t *testing.T) {
	t.Parallel()
	h := harness.New(t, map[string]string{
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

	env := h.OK(h.Call("url_q", `{"q": "x&injected=1#frag"}`))
	if env.Data["q"] != "x&injected=1#frag" || env.Data["params"] != "q=x&injected=1#frag | n=1" || env.Data["hash"] != "" {
		t.Errorf("an argument in the query: %s", env.JSON())
	}
	env = h.OK(h.Call("url_q", `{"q": "a b/c?d=e"}`))
	if env.Data["q"] != "a b/c?d=e" {
		t.Errorf("an argument with a space, a slash and a question mark: %s", env.JSON())
	}
}

// TestURLRawOptsOut: urlraw() puts a value into a URL as it is.
func TestURLRawOptsOut(t *testing.T) {
	t.Parallel()
	h := harness.New(t, map[string]string{
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
	env := h.OK(h.Call("url_raw", `{"qs": "a=1&b=2"}`))
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
	t.Parallel()
	h := harness.New(t, map[string]string{
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
	env := h.OK(h.Call("shortcuts", `{}`))
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
	t.Parallel()
	h := harness.New(t, map[string]string{
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

	env := h.OK(h.Call("start_app", `{"welcome": 1}`))
	if env.Data["out"] != "started" {
		t.Errorf("after the second goto: %s", env.JSON())
	}
	var paths []string
	for _, s := range h.Trace(env).Steps {
		paths = append(paths, s.Path+":"+s.Code)
	}
	if got, want := strings.Join(paths, " "), "1:ok h1.1:ok 2:ok 3:ok 4:ok 5:ok 6:ok"; got != want {
		t.Errorf("with the welcome panel: steps %s, want %s", got, want)
	}

	env = h.OK(h.Call("start_app", `{"welcome": 0}`))
	paths = nil
	for _, s := range h.Trace(env).Steps {
		paths = append(paths, s.Path+":"+s.Code)
	}
	if got, want := strings.Join(paths, " "), "1:ok 2:skipped h1.1:ok 3:ok 4:ok 5:ok 6:ok"; got != want {
		t.Errorf("without the welcome panel: steps %s, want %s", got, want)
	}
}

// viewportWorkflow reads viewport.html's size and author column.
func viewportWorkflow(name, extra string) string {
	return "name: " + name + "\ndescription: Read the posts list.\nrisk: read\n" + extra + `steps:
  - goto: ${{ config.acme_base }}/viewport.html
  - extract: {from: viewport.size, into: size}
  - extract: {from: viewport.authors, into: authors}
output:
  size: ${{ vars.size }}
  authors: ${{ vars.authors }}
`
}

// TestViewportDefault: pages are browser.viewport's size, 1280×800 by
// default, wide enough for an admin screen's desktop layout. Before: every
// page was Chromium's headless window, 780×493, where admin screens switch
// to their phone layout (under 782 px).
func TestViewportDefault(t *testing.T) {
	t.Parallel()
	h := harness.New(t, map[string]string{"posts_default": viewportWorkflow("posts_default", "")}, withLangSelectors(t))
	env := h.OK(h.Call("posts_default", `{}`))
	if env.Data["size"] != "1280x800" || harness.List(t, env, "authors").Count != 2 {
		t.Errorf("default viewport: %s", env.JSON())
	}
}

// TestWorkflowViewport: a workflow's viewport: sizes its calls' pages, and
// browser.viewport sizes the others. Before: no key changed the size.
func TestWorkflowViewport(t *testing.T) {
	t.Parallel()
	h := harness.New(t, map[string]string{
		"posts_wide":  viewportWorkflow("posts_wide", "viewport: {width: 1440, height: 900}\n"),
		"posts_other": viewportWorkflow("posts_other", ""),
	}, func(c *config.Config) {
		harness.AddSelectors(t, c, langSelectors)
		c.Browser.Viewport = config.Viewport{Width: 1024, Height: 700}
	})
	env := h.OK(h.Call("posts_wide", `{}`))
	if env.Data["size"] != "1440x900" {
		t.Errorf("viewport: {width: 1440, height: 900}: %s", env.JSON())
	}
	env = h.OK(h.Call("posts_other", `{}`))
	if env.Data["size"] != "1024x700" {
		t.Errorf("browser.viewport 1024×700: %s", env.JSON())
	}
}

// TestExtractFieldAttr: a field may read its own attr: a link's text and
// its href (absolute, resolved against the page), a <time>'s text and its
// datetime (null where the attribute is absent), in one extract. Before:
// {target, attr} was refused at load, so it took two extracts zipped with
// map().
func TestExtractFieldAttr(t *testing.T) {
	t.Parallel()
	h := harness.New(t, map[string]string{
		"read_posts": `name: read_posts
description: Read the posts with their links and times.
risk: read
steps:
  - goto: ${{ config.acme_base }}/posts.html
  - extract:
      from: posts.rows
      fields:
        title: posts.title
        url: {target: posts.title, attr: href}
        day: posts.time
        at: {target: posts.time, attr: datetime}
      into: posts
output:
  posts: ${{ vars.posts }}
`,
	}, withLangSelectors(t))
	env := h.OK(h.Call("read_posts", `{}`))
	items := harness.List(t, env, "posts").Items
	if len(items) != 5 {
		t.Fatalf("posts: %s", env.JSON())
	}
	first, _ := items[0].(map[string]any)
	if first["title"] != "First post" || first["url"] != h.Site.URL("/post/1") || first["day"] != "Jan 1" || first["at"] != "2024-01-01T09:00:00Z" {
		t.Errorf("first post: %v", first)
	}
	if last, _ := items[4].(map[string]any); last["at"] != nil || last["day"] != "Jan 5" {
		t.Errorf("a time without datetime: %v", last)
	}
}

// TestDerivedListsKeepTruncated: a list derived from one list (map,
// filter, a slice), in the output or through set, keeps its source's
// truncated mark. Before: only ${{ vars.NAME }} itself carried it, so a
// zipped or filtered list cut by limit said truncated: false.
func TestDerivedListsKeepTruncated(t *testing.T) {
	t.Parallel()
	h := harness.New(t, map[string]string{
		"post_titles": `name: post_titles
description: Read the first posts' titles.
risk: read
steps:
  - goto: ${{ config.acme_base }}/posts.html
  - extract: {from: posts.rows, fields: {title: posts.title}, limit: 3, into: posts}
  - extract: {from: posts.rows, fields: {title: posts.title}, into: all}
  - set:
      firsts: '${{ filter(vars.posts, #.title != "") }}'
      every: "${{ map(vars.all, #.title) }}"
output:
  titles: "${{ map(vars.posts, #.title) }}"
  two: ${{ vars.posts[0:2] }}
  firsts: ${{ vars.firsts }}
  every: ${{ vars.every }}
`,
	}, withLangSelectors(t))
	env := h.OK(h.Call("post_titles", `{}`))
	for name, want := range map[string]bool{"titles": true, "two": true, "firsts": true, "every": false} {
		if l := harness.List(t, env, name); l.Truncated != want {
			t.Errorf("%s: truncated %v, want %v: %s", name, l.Truncated, want, env.JSON())
		}
	}
}

// TestFallbacksKeepTruncated: `??` and the ternary keep a list's truncated
// mark, in the output and through set: `${{ vars.posts ?? [] }}` of a list
// cut by limit says truncated, a whole one does not. Before (issue 48): both
// said truncated: false (a search answered 25 of 55 rows as whole).
func TestFallbacksKeepTruncated(t *testing.T) {
	t.Parallel()
	h := harness.New(t, map[string]string{
		"post_fallbacks": `name: post_fallbacks
description: Read the first posts' titles through fallbacks.
risk: read
steps:
  - goto: ${{ config.acme_base }}/posts.html
  - extract: {from: posts.rows, fields: {title: posts.title}, limit: 3, into: posts}
  - extract: {from: posts.rows, fields: {title: posts.title}, into: all}
  - set:
      kept: "${{ vars.posts ?? [] }}"
output:
  fallback: ${{ vars.posts ?? [] }}
  ternary: '${{ len(vars.all) > 0 ? vars.posts : [] }}'
  kept: ${{ vars.kept }}
  whole: ${{ vars.all ?? [] }}
`,
	}, withLangSelectors(t))
	env := h.OK(h.Call("post_fallbacks", `{}`))
	for name, want := range map[string]bool{"fallback": true, "ternary": true, "kept": true, "whole": false} {
		if l := harness.List(t, env, name); l.Truncated != want {
			t.Errorf("%s: truncated %v, want %v: %s", name, l.Truncated, want, env.JSON())
		}
	}
}

// TestIndexPastEndIsNotInternal: an output that reads a position past a
// list's end (the page had fewer rows than the workflow expects) ends
// assertion_failed, not needs_human, naming the expression and the way out
// (get(list, N) ?? default), which works. Before (issue 48): internal,
// needs_human, as if the engine had a bug.
func TestIndexPastEndIsNotInternal(t *testing.T) {
	t.Parallel()
	h := harness.New(t, map[string]string{
		"fourth_post": `name: fourth_post
description: Read the fourth post's title of the first three.
risk: read
steps:
  - goto: ${{ config.acme_base }}/posts.html
  - extract: {from: posts.rows, fields: {title: posts.title}, limit: 3, into: posts}
output:
  fourth: ${{ vars.posts[3].title }}
`,
		"fourth_or_none": `name: fourth_or_none
description: Read the fourth post's title of the first three, or none.
risk: read
steps:
  - goto: ${{ config.acme_base }}/posts.html
  - extract: {from: posts.rows, fields: {title: posts.title}, limit: 3, into: posts}
output:
  fourth: ${{ get(vars.posts, 3)?.title ?? "none" }}
`,
	}, withLangSelectors(t))
	env := h.Code(h.Call("fourth_post", `{}`), "assertion_failed", "read past the end")
	if env.NeedsHuman || env.Retryable || !strings.Contains(env.Message, "vars.posts[3].title") || !strings.Contains(env.Message, "get(list, N) ?? default") {
		t.Errorf("a position past the end: %s", env.JSON())
	}
	if env := h.OK(h.Call("fourth_or_none", `{}`)); env.Data["fourth"] != "none" {
		t.Errorf("get(list, N) ?? default: %s", env.JSON())
	}
}

// TestTemplatedLimitBelowOne: an extract limit a template gives (here an
// argument) below 1 fails the step invalid_params, naming the rule; 2 reads
// two. Before (issue 48): limit 0 read every match.
func TestTemplatedLimitBelowOne(t *testing.T) {
	t.Parallel()
	h := harness.New(t, map[string]string{
		"some_posts": `name: some_posts
description: Read some posts' titles.
risk: read
params:
  n: {type: integer, description: how many, min: 0, max: 5, default: 2}
steps:
  - goto: ${{ config.acme_base }}/posts.html
  - extract: {from: posts.rows, fields: {title: posts.title}, limit: "${{ params.n }}", into: posts}
output:
  posts: ${{ vars.posts }}
`,
	}, withLangSelectors(t))
	h.Code(h.Call("some_posts", `{"n": 0}`), "invalid_params", "limit is 0, and it must be at least 1")
	if l := harness.List(t, h.OK(h.Call("some_posts", `{"n": 2}`)), "posts"); l.Count != 2 || !l.Truncated {
		t.Errorf("limit 2: %+v", l)
	}
}

// TestNoMatchIsNotInternal: findIndex with no match gives -1, so
// `vars.i < 0` means "not found"; a comparison that meets no value (find
// found nothing) ends assertion_failed, naming the expression, not internal
// (needs_human). Before: findIndex gave nil and `vars.i < 0` failed as
// internal.
func TestNoMatchIsNotInternal(t *testing.T) {
	t.Parallel()
	h := harness.New(t, map[string]string{
		"find_post": `name: find_post
description: Find a post by its title.
risk: read
params:
  title: {type: string, description: the title}
steps:
  - goto: ${{ config.acme_base }}/posts.html
  - extract: {from: posts.rows, fields: {title: posts.title}, into: posts}
  - set: {i: "${{ findIndex(vars.posts, #.title == params.title) }}"}
  - set: {missing: "${{ vars.i < 0 }}"}
output:
  i: ${{ vars.i }}
  missing: ${{ vars.missing }}
`,
		"compare_missing": `name: compare_missing
description: Compare what find did not find.
risk: read
steps:
  - goto: ${{ config.acme_base }}/posts.html
  - extract: {from: posts.rows, fields: {title: posts.title}, into: posts}
  - set: {late: "${{ find(map(vars.posts, #.title), # == 'Nope') < 'M' }}"}
`,
	}, withLangSelectors(t))
	env := h.OK(h.Call("find_post", `{"title": "No such post"}`))
	if env.Data["i"] != -1 || env.Data["missing"] != true {
		t.Errorf("no match: %s", env.JSON())
	}
	env = h.OK(h.Call("find_post", `{"title": "Third post"}`))
	if env.Data["i"] != 2 || env.Data["missing"] != false {
		t.Errorf("a match: %s", env.JSON())
	}
	env = h.Code(h.Call("compare_missing", `{}`), "assertion_failed", "no value")
	if env.NeedsHuman {
		t.Errorf("a comparison with no value: %s", env.JSON())
	}
}
