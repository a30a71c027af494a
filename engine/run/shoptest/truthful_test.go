package shoptest

import (
	"fmt"
	"html"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolwright/toolwright/internal/harness"
	"github.com/toolwright/toolwright/internal/testsite"
)

// Issue 19: an ok always means it happened. The pages of
// testdata/real/truthful each reproduce a way the engine answered ok when
// the action did not happen or a read saw only part of the page; the
// server below adds what a static page cannot: a list streamed slowly,
// and saves that take a while.

// truthfulServer serves testdata/real/truthful and records the saves.
type truthfulServer struct {
	mu    sync.Mutex
	saved []string
}

func (s *truthfulServer) notes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.saved...)
}

// pause waits ms milliseconds, or until the request ends (false).
func pause(r *http.Request, ms string) bool {
	n, _ := strconv.Atoi(ms)
	t := time.NewTimer(time.Duration(n) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

func (s *truthfulServer) handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", testsite.Handler(filepath.Join(testsite.Dir(), "..", "real", "truthful")))
	// /feed?page=N (1..3): 25 rows a page, streamed row by row (?ms=
	// between rows, 30 by default), the next link at the top.
	mux.HandleFunc("/feed", func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		page = max(page, 1)
		ms := r.URL.Query().Get("ms")
		if ms == "" {
			ms = "30"
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		f, _ := w.(http.Flusher)
		fmt.Fprintf(w, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Feed page %d</title></head><body>\n<h1 id=\"heading\">Feed page %d</h1>\n", page, page)
		if page < 3 {
			fmt.Fprintf(w, "<nav><a id=\"next\" href=\"/feed?page=%d&ms=%s\">Next page</a></nav>\n", page+1, ms)
		}
		fmt.Fprint(w, "<ul id=\"rows\">\n")
		for i := 1; i <= 25; i++ {
			// Padding: the browser parses what arrived in chunks.
			fmt.Fprintf(w, "<li class=\"row\">P%d-%d</li><!-- %s -->\n", page, i, strings.Repeat("x", 2048))
			if f != nil {
				f.Flush()
			}
			if i > 3 && !pause(r, ms) {
				return
			}
		}
		fmt.Fprint(w, "</ul></body></html>\n")
	})
	// /check?ms=N: an async validation that takes N ms.
	mux.HandleFunc("/check", func(w http.ResponseWriter, r *http.Request) {
		if pause(r, r.URL.Query().Get("ms")) {
			fmt.Fprint(w, "ok")
		}
	})
	// POST /save: the note form (303 to /saved); with ?ms=N, a fetch that
	// takes N ms (204). A save whose request ended early is not recorded.
	mux.HandleFunc("/save", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		}
		if err := r.ParseForm(); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		note := r.PostForm.Get("note")
		if ms := r.URL.Query().Get("ms"); ms != "" {
			if !pause(r, ms) {
				return
			}
			s.mu.Lock()
			s.saved = append(s.saved, note)
			s.mu.Unlock()
			w.WriteHeader(http.StatusNoContent)
			return
		}
		s.mu.Lock()
		s.saved = append(s.saved, note)
		s.mu.Unlock()
		http.Redirect(w, r, "/saved?note="+url.QueryEscape(note), http.StatusSeeOther)
	})
	// /answer?code=N: a page that says N, with HTTP status N, to any
	// method (a server error, a form refused, a missing page).
	mux.HandleFunc("/answer", func(w http.ResponseWriter, r *http.Request) {
		code, err := strconv.Atoi(r.URL.Query().Get("code"))
		if err != nil || code < 200 || code > 599 {
			code = http.StatusBadRequest
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(code)
		fmt.Fprintf(w, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Answer %d</title></head><body><h1 id=\"heading\">Answer %d</h1><p id=\"said\">%s %d</p></body></html>\n",
			code, code, r.Method, code)
	})
	s.followHandlers(mux)
	mux.HandleFunc("/saved", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Saved</title></head><body><h1 id=\"heading\">Saved</h1><p id=\"saved-note\">%s</p></body></html>\n",
			html.EscapeString(r.URL.Query().Get("note")))
	})
	return mux
}

// truthfulHarness is an engine on the truthful pages with their selector
// map, and the server's record of saves.
func truthfulHarness(t *testing.T, workflows map[string]string) (*harness.Harness, *truthfulServer) {
	t.Helper()
	srv := &truthfulServer{}
	fx := harness.Fixture{
		Start:     func(tb testing.TB) *testsite.Site { return testsite.Serve(tb, srv.handler()) },
		Selectors: "testdata/real/truthful/selectors.yaml",
		Workflows: "testdata/real/truthful/workflows",
	}
	return harness.NewReal(t, workflows, nil, fx), srv
}

// TestClickOffScreenUnreachable: a row action placed off screen until its
// row is hovered (left: -9999em, as admin list tables do) is not clicked
// and reported ok: the click fails target_unreachable, saying to hover the
// row first; hovering the row first makes the same click work. A zero-size
// element fails the same way.
func TestClickOffScreenUnreachable(t *testing.T) {
	t.Parallel()
	h, _ := truthfulHarness(t, map[string]string{
		"trash": `
name: trash
description: Trash the first post from its row actions.
risk: write
params:
  hover: {type: boolean, description: hover the row first, default: false}
  target: {type: target, prefix: tr.posts., description: what to click, default: tr.posts.trash}
steps:
  - goto: ${{ config.shop_base }}/rowactions.html
  - hover: tr.posts.first_row
    if: params.hover
  - click: ${{ params.target }}
    timeout: 10s # the production default: the click ends target_unreachable well inside the call's minute
  - extract: {from: tr.status, into: status}
output:
  status: ${{ vars.status }}
`})
	env := h.Code(h.Call("trash", `{"task_id": "t1"}`), "target_unreachable", "tr.posts.trash", "off screen", "hover")
	if env.Retryable || env.NeedsHuman {
		t.Errorf("retryable %v needs_human %v, want false, false", env.Retryable, env.NeedsHuman)
	}
	env = h.OK(h.Call("trash", `{"task_id": "t2", "hover": true}`))
	if got := env.Data["status"]; got != "Trashed: Hello world" {
		t.Errorf("after hovering the row: status %v", got)
	}
	h.Code(h.Call("trash", `{"task_id": "t3", "target": "tr.posts.zero"}`), "target_unreachable", "zero size")
}

// TestReadsSeeSkippedContent: in rows styled content-visibility: auto,
// reads see every match, rendered or not (a text or role target, a field
// of several text nodes, a wait for text far down the list), and a click
// on the 31st row's button clicks that one; also when the rows live in an
// open shadow root with its own style sheet (?shadow=1).
func TestReadsSeeSkippedContent(t *testing.T) {
	t.Parallel()
	h, _ := truthfulHarness(t, map[string]string{
		"feed_read": `
name: feed_read
description: Read every entry of a feed whose entries skip rendering off screen.
risk: read
params:
  query: {type: string, description: the page's query, enum: ["", "?shadow=1"], default: ""}
steps:
  - goto: ${{ config.shop_base }}/cvrows.html${{ urlraw(params.query) }}
  - wait: {text: "Summary of entry 40."}
  - extract: {from: tr.feed.titles, list: true, into: titles}
  - extract: {from: tr.feed.title_texts, list: true, into: texts}
  - extract: {from: tr.feed.entries, list: true, fields: {title: tr.feed.title, byline: tr.feed.byline}, into: entries}
  - extract: {from: tr.feed.open_buttons, list: true, into: buttons}
output:
  titles: ${{ vars.titles }}
  texts: ${{ vars.texts }}
  entries: ${{ vars.entries }}
  buttons: ${{ vars.buttons }}
`,
		"feed_open": `
name: feed_open
description: Open one entry of the feed.
risk: read
params:
  nth: {type: integer, description: "which entry, 0-based", min: 0, max: 39, required: true}
  target: {type: target, prefix: tr.feed., description: the buttons, default: tr.feed.open_buttons}
  query: {type: string, description: the page's query, enum: ["", "?shadow=1"], default: ""}
steps:
  - goto: ${{ config.shop_base }}/cvrows.html${{ urlraw(params.query) }}
  - click: {target: "${{ params.target }}", nth: "${{ params.nth }}"}
  - extract: {from: tr.status, into: status}
output:
  status: ${{ vars.status }}
`})
	for _, query := range []string{"", "?shadow=1"} {
		arg := `"query": "` + query + `"`
		env := h.OK(h.Call("feed_read", `{`+arg+`}`))
		for _, name := range []string{"titles", "texts", "entries", "buttons"} {
			if n := harness.List(t, env, name).Count; n != 40 {
				t.Errorf("%q: %s: %d matches, want 40", query, name, n)
			}
		}
		entries := harness.List(t, env, "entries").Items
		if len(entries) == 40 {
			last, _ := entries[39].(map[string]any)
			if last["title"] != "Entry 40" || last["byline"] != "by Ann on day 40" {
				t.Errorf("%q: entry 40 read as %v", query, last)
			}
		}
		for _, target := range []string{"tr.feed.open_buttons", "tr.feed.open_css"} {
			env = h.OK(h.Call("feed_open", `{"nth": 30, "target": "`+target+`", `+arg+`}`))
			if got := env.Data["status"]; got != "Opened entry 31" {
				t.Errorf("%q: %s: click nth 30: status %v, want Opened entry 31", query, target, got)
			}
		}
	}
}

// TestPaginateReadsWholePages: paginate reads a server-rendered page only
// once its document has arrived whole: the pages of /feed stream their 25
// rows one by one after the next link, and every row of the 3 pages is
// read, in order.
func TestPaginateReadsWholePages(t *testing.T) {
	t.Parallel()
	h, _ := truthfulHarness(t, map[string]string{
		"feed_pages": `
name: feed_pages
description: Read every row of a streamed feed, page by page.
risk: read
deadline: 60s
steps:
  - goto: ${{ config.shop_base }}/feed?page=1
  - paginate:
      next: tr.stream.next
      max_pages: 5
      steps:
        - extract: {from: tr.stream.rows, list: true, into: rows, append: true}
output:
  rows: ${{ vars.rows }}
`})
	env := h.OK(h.Call("feed_pages", `{}`))
	rows := harness.List(t, env, "rows")
	var want []string
	for p := 1; p <= 3; p++ {
		for i := 1; i <= 25; i++ {
			want = append(want, fmt.Sprintf("P%d-%d", p, i))
		}
	}
	var got []string
	for _, r := range rows.Items {
		got = append(got, fmt.Sprint(r))
	}
	if strings.Join(got, ",") != strings.Join(want, ",") || rows.Truncated {
		t.Errorf("read %d rows (truncated %v), want the 75 of 3 pages:\n%s", rows.Count, rows.Truncated, strings.Join(got, ","))
	}
}

// TestPaginateWaitsForTheListsRequests: a single-page app's list that
// changes in two phases (placeholder rows, then their details from a
// second request) is read once the details are in: the requests the page
// began since next was clicked have ended, and the list stood still
// after. Before, a page counted as arrived once its DOM stood still for
// 100 ms, and page 2 read "Loading…" rows, ok.
func TestPaginateWaitsForTheListsRequests(t *testing.T) {
	t.Parallel()
	h, _ := truthfulHarness(t, map[string]string{
		"read_log": `
name: read_log
description: Read the three pages of the harbour log.
risk: read
steps:
  - goto: ${{ config.shop_base }}/twophase.html?ids=30&details=400
  - paginate:
      next: tr.twophase.next
      max_pages: 3
      steps:
        - extract: {from: tr.twophase.entries, list: true, into: entries, append: true}
output:
  entries: ${{ vars.entries }}
`})
	env := h.OK(h.Call("read_log", `{}`))
	var got []string
	for _, e := range harness.List(t, env, "entries").Items {
		got = append(got, fmt.Sprint(e))
	}
	if want := "P1-1,P1-2,P1-3,P2-1,P2-2,P2-3,P3-1,P3-2,P3-3"; strings.Join(got, ",") != want {
		t.Errorf("read %s, want %s", strings.Join(got, ","), want)
	}
}

// TestLateNavigationWaitedFor: a click whose navigation starts late is
// waited for before the next step acts: a form the page submits itself
// after an async validation (a server check, or a timer), and a handler
// that posts with fetch, then navigates. The next step reads the new page,
// and a goto right after the click does not cancel the save. With
// navigation: expect, a click that navigates nowhere fails
// navigation_failed.
func TestLateNavigationWaitedFor(t *testing.T) {
	t.Parallel()
	h, srv := truthfulHarness(t, map[string]string{
		"save_note": `
name: save_note
description: Save a note, then read the page the save leads to.
risk: write
params:
  note: {type: string, description: the note, required: true}
  how: {type: string, enum: [check, timer, quick], description: which save, required: true}
  leave: {type: boolean, description: go elsewhere right after the click, default: false}
steps:
  - goto: ${{ config.shop_base }}/note.html?check=600&timer=600&post=600
    if: params.how != "timer"
  - goto: ${{ config.shop_base }}/note.html?timer=600
    if: params.how == "timer"
  - fill: {target: tr.note.text, value: "${{ params.note }}"}
  - click: tr.note.save
    if: params.how != "quick"
  - click: tr.note.quick_save
    if: params.how == "quick"
  - goto: ${{ config.shop_base }}/rowactions.html
    if: params.leave
  - extract: {from: tr.heading, into: heading}
    if: params.leave == false
output:
  heading: ${{ vars.heading }}
`,
		"expect_nav": `
name: expect_nav
description: A click that must navigate.
risk: write
steps:
  - goto: ${{ config.shop_base }}/rowactions.html
  - hover: tr.posts.first_row
  - click: {target: tr.posts.trash, navigation: expect}
    timeout: 2s
`})
	n := 0
	for _, how := range []string{"check", "timer", "quick"} {
		n++
		note := fmt.Sprintf("note %d", n)
		env := h.OK(h.Call("save_note", fmt.Sprintf(`{"task_id": "s%d", "note": %q, "how": %q}`, n, note, how)))
		if got := env.Data["heading"]; got != "Saved" {
			t.Errorf("%s: the step after the click read heading %v, want Saved", how, got)
		}
		if saved := srv.notes(); len(saved) == 0 || saved[len(saved)-1] != note {
			t.Errorf("%s: saved %q, want %q last", how, saved, note)
		}
		n++
		note = fmt.Sprintf("note %d", n)
		h.OK(h.Call("save_note", fmt.Sprintf(`{"task_id": "s%d", "note": %q, "how": %q, "leave": true}`, n, note, how)))
		if saved := srv.notes(); len(saved) == 0 || saved[len(saved)-1] != note {
			t.Errorf("%s then goto: saved %q, want %q last", how, saved, note)
		}
	}
	h.Code(h.Call("expect_nav", `{"task_id": "e1"}`), "navigation_failed", "started no navigation")
}

// TestPlainSubmitWaitedFor: a form the page does not hold back navigates
// when the browser runs the submit, a task of its own after the click:
// work the click queued first (?queued) starts the navigation late, and
// the step after the click still reads the page the submit leads to (it
// read "Edit note", ok). A request the page being left began (?ask, as a
// wiki's edit stash does) ends with that page, reported or not: the step
// after the click does not wait for it (it waited out 15 s).
func TestPlainSubmitWaitedFor(t *testing.T) {
	t.Parallel()
	h, srv := truthfulHarness(t, map[string]string{
		"plain_save": `
name: plain_save
description: Save a note with a plain form, then read the page the save leads to.
risk: write
params:
  note: {type: string, description: the note, required: true}
  queued: {type: integer, description: work the click leaves queued (ms), min: 0, max: 5000, default: 0}
  ask: {type: integer, description: how long the submit's own request takes (ms), min: 0, max: 60000, default: 0}
steps:
  - goto: ${{ config.shop_base }}/note.html?queued=${{ params.queued }}&ask=${{ params.ask }}
  - fill: {target: tr.note.plain_text, value: "${{ params.note }}"}
  - click: tr.note.plain_save
  - extract: {from: tr.heading, into: heading}
    timeout: 8s
  - extract: {from: tr.saved.note, into: saved}
output:
  heading: ${{ vars.heading }}
  saved: ${{ vars.saved }}
`,
		"stash_link": `
name: stash_link
description: Follow a link on a page that asks the server something as it leaves.
risk: read
steps:
  - goto: ${{ config.shop_base }}/note.html?stash=1
  - click: tr.note.saved_link
  - extract: {from: tr.heading, into: heading}
    timeout: 8s
output:
  heading: ${{ vars.heading }}
`})
	for i := range 3 {
		if env := h.OK(h.Call("stash_link", "{}")); env.Data["heading"] != "Saved" {
			t.Errorf("stash %d: the step after the click read heading %v, want Saved", i, env.Data["heading"])
		}
	}
	for i, c := range []struct{ queued, ask int }{{400, 0}, {0, 60000}, {400, 60000}} {
		note := fmt.Sprintf("plain %d", i)
		env := h.OK(h.Call("plain_save", fmt.Sprintf(`{"task_id": "p%d", "note": %q, "queued": %d, "ask": %d}`, i, note, c.queued, c.ask)))
		if env.Data["heading"] != "Saved" || env.Data["saved"] != note {
			t.Errorf("queued %d, ask %d: the steps after the click read %v, want heading Saved and note %q", c.queued, c.ask, env.Data, note)
		}
		if saved := srv.notes(); len(saved) == 0 || saved[len(saved)-1] != note {
			t.Errorf("queued %d, ask %d: saved %q, want %q last", c.queued, c.ask, saved, note)
		}
	}
}

// TestLateNavigationAfterSlowContinuation: a click whose handler reads a
// fetch's answer, then works for a second (a busy loop, as a slow page or
// a loaded machine runs it) before it sets location.href: the request
// ended long before the navigation begins, and the step after the click
// still reads the page the handler goes to, not the one it leaves (it
// read "Edit note" while the wait for the navigation was a 300 ms window
// from the request's end). A click whose fetch leads nowhere (Like) is
// waited for until the page ran what the answer set going, not longer.
// When the answer comes at once, the request may have ended before the
// engine looked for requests in flight: it read "Edit note" in 0-2 of 8
// tries per run (and once in CI, with a 500 ms answer on a loaded machine)
// until an ended request counted too.
func TestLateNavigationAfterSlowContinuation(t *testing.T) {
	t.Parallel()
	h, _ := truthfulHarness(t, map[string]string{
		"busy_save": `
name: busy_save
description: Save a note through a slow handler, then read the page it leads to.
risk: write
params:
  busy: {type: integer, description: how long the handler works after the answer (ms), min: 0, max: 5000, default: 1000}
steps:
  - goto: ${{ config.shop_base }}/note.html?check=500&busy=${{ params.busy }}
  - fill: {target: tr.note.text, value: "slow"}
  - click: tr.note.busy_save
  - extract: {from: tr.heading, into: heading}
  - extract: {from: tr.saved.note, into: note}
output:
  heading: ${{ vars.heading }}
  note: ${{ vars.note }}
`,
		"quick_check_save": `
name: quick_check_save
description: Save through a handler whose check answers at once, then read the page it leads to.
risk: write
params:
  n: {type: integer, description: which try, min: 0, max: 100, required: true}
steps:
  - goto: ${{ config.shop_base }}/note.html?check=1&busy=1000&try=${{ params.n }}
  - fill: {target: tr.note.text, value: "quick"}
  - click: tr.note.busy_save
  - extract: {from: tr.heading, into: heading}
output:
  heading: ${{ vars.heading }}
`,
		"like": `
name: like
description: Like, then read the page.
risk: write
steps:
  - goto: ${{ config.shop_base }}/note.html?post=100
  - click: tr.note.like
  - extract: {from: tr.note.likes, into: likes}
output:
  likes: ${{ vars.likes }}
`})
	env := h.OK(h.Call("busy_save", `{"task_id": "b1"}`))
	if got := env.Data["heading"]; got != "Saved" {
		t.Errorf("the step after the click read heading %v, want Saved", got)
	}
	if got := env.Data["note"]; got != "slow" {
		t.Errorf("note %v, want slow", got)
	}
	env = h.OK(h.Call("like", `{"task_id": "l1"}`))
	if got := env.Data["likes"]; got != "Liked" {
		t.Errorf("after Like: %v, want Liked", got)
	}
	// The check answers in a millisecond: its request has often ended
	// before the click step is over, while the handler still works on the
	// answer. A request that ended before the look counts as one in
	// flight: the page is asked once idle, and the navigation waited for.
	for i := range 8 {
		env = h.OK(h.Call("quick_check_save", fmt.Sprintf(`{"task_id": "q%d", "n": %d}`, i, i)))
		if got := env.Data["heading"]; got != "Saved" {
			t.Errorf("try %d: the step after the click read heading %v, want Saved", i, got)
		}
	}
}

// TestPageGoneIsNotEmpty: page.url and page.title are read from the page;
// when it cannot be read (a window that closed itself under the steps
// running in it) the step fails env_unavailable, saying so, instead of
// going on with an empty page.url as if the page had none (a false ok).
func TestPageGoneIsNotEmpty(t *testing.T) {
	t.Parallel()
	h, _ := truthfulHarness(t, map[string]string{
		"closes_itself": `
name: closes_itself
description: Read the URL of a window after it closed itself.
risk: read
steps:
  - goto: ${{ config.shop_base }}/selfclose.html
  - popup:
      click: tr.win.open
      steps:
        - wait: {text: "A window that closes itself"}
        - set: {before: "${{ page.url }}", title: "${{ page.title }}"}
        - click: {target: tr.win.close, navigation: none}
        - set: {after: "${{ page.url }}"}
output:
  before: ${{ vars.before }}
  title: ${{ vars.title }}
  after: ${{ vars.after }}
  opener: ${{ page.url }}
`})
	env := h.Code(h.Call("closes_itself", `{}`), "env_unavailable", "page.url", "closed")
	tr := h.Trace(env)
	var failed []string
	for _, s := range tr.Steps {
		if s.Code != "ok" {
			failed = append(failed, s.Path+" "+s.Kind)
		}
	}
	if len(failed) == 0 || !strings.HasSuffix(failed[len(failed)-1], "set") {
		t.Errorf("the failed steps are %v, want the set after the close", failed)
	}
}

// TestClickReleaseMovedAway: a press on Save takes the focus from a field
// whose blur check shows a hint above Save, so Save moves down before the
// release: the release lands on the hint and the browser clicks their
// common ancestor, not Save. The click answered ok with nothing saved
// (phpMyAdmin's insert lost one click in five this way); now the click
// that missed is held back and Save is pressed again where it stands. An
// item that acts on its press and goes away (a menu closing) was clicked:
// it is not pressed again.
func TestClickReleaseMovedAway(t *testing.T) {
	t.Parallel()
	h, _ := truthfulHarness(t, map[string]string{
		"shift_save": `
name: shift_save
description: Fill the name and save.
risk: write
steps:
  - goto: ${{ config.shop_base }}/shift.html
  - fill: {target: tr.shift.name, value: Ada}
  - click: tr.shift.save
  - extract: {from: tr.shift.saved, into: saved}
  - extract: {from: tr.shift.stray, into: stray}
output:
  saved: ${{ vars.saved }}
  stray: ${{ vars.stray }}
`,
		"shift_archive": `
name: shift_archive
description: Archive from a menu that closes on the press.
risk: write
steps:
  - goto: ${{ config.shop_base }}/shift.html
  - click: tr.shift.archive
  - extract: {from: tr.shift.archived, into: archived}
output:
  archived: ${{ vars.archived }}
`})
	for i := range 3 {
		env := h.OK(h.Call("shift_save", fmt.Sprintf(`{"task_id": "s%d"}`, i)))
		if env.Data["saved"] != "1" || env.Data["stray"] != "0" {
			t.Errorf("run %d: saved %v, stray clicks %v; want Save clicked once and no click elsewhere", i, env.Data["saved"], env.Data["stray"])
		}
	}
	if env := h.OK(h.Call("shift_archive", `{"task_id": "a"}`)); env.Data["archived"] != "1" {
		t.Errorf("archived %v times, want once", env.Data["archived"])
	}
}
