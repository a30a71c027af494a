package run_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/internal/harness"
)

// dialogList serves /list?page=N (1 to 3): three rows and a Next link
// (none on the last page), and, on every page, a newsletter dialog over
// the whole window from the moment the page is drawn, as many sites show
// one; its Close button removes it.
func dialogList(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("page"))
		if n < 1 || n > 3 {
			http.NotFound(w, r)
			return
		}
		var b strings.Builder
		fmt.Fprintf(&b, `<!doctype html><html><head><title>Page %d</title></head><body><ul id="rows">`, n)
		for i := 1; i <= 3; i++ {
			fmt.Fprintf(&b, `<li class="row">row %d.%d</li>`, n, i)
		}
		b.WriteString(`</ul>`)
		if n < 3 {
			fmt.Fprintf(&b, `<a id="next" href="/list?page=%d">Next</a>`, n+1)
		}
		b.WriteString(`<div id="dialog" style="position:fixed;inset:0;background:rgba(0,0,0,.4);z-index:10">
<div style="background:#fff;margin:100px auto;width:300px;padding:20px">Subscribe to our newsletter?
<button id="close" onclick="document.getElementById('dialog').remove()">Close</button></div></div></body></html>`)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, b.String())
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestHandlersRunBeforePaginateNext: a workflow's handler answers a dialog
// that covers paginate's next control before paginate clicks it, as before
// any acting step, so every page is read. Before (issue 48): paginate's
// steps only read, no handler ran, and the click on next failed
// target_covered (retryable: the agent retried into the same dialog).
func TestHandlersRunBeforePaginateNext(t *testing.T) {
	t.Parallel()
	site := dialogList(t)
	h := harness.New(t, map[string]string{
		"read_pages": `name: read_pages
description: Read every page of a list that shows a newsletter dialog on each.
risk: read
handlers:
  - when: {visible: dl.dialog}
    steps: [{click: dl.close}]
    max: 5
steps:
  - goto: ${{ config.dl_base }}/list?page=1
  - paginate:
      next: dl.next
      max_pages: 5
      steps:
        - extract: {from: dl.rows, list: true, into: rows, append: true}
output:
  rows: ${{ vars.rows }}
`,
	}, func(c *config.Config) {
		harness.AddSelectors(t, c, "\ndl.rows:\n  css: \"#rows li.row\"\n  many: true\ndl.next:\n  css: \"#next\"\ndl.dialog:\n  css: \"#dialog\"\ndl.close:\n  css: \"#close\"\n")
		c.Vars["dl_base"] = site.URL
	})
	env := h.OK(h.Call("read_pages", `{}`))
	rows := harness.List(t, env, "rows")
	if rows.Count != 9 || rows.Truncated {
		t.Errorf("rows: %s", env.JSON())
	}
	var paths []string
	for _, s := range h.Trace(env).Steps {
		paths = append(paths, s.Path+":"+s.Code)
	}
	// The handler ran before each turn of the page, as before an acting
	// step (whether or not its target is there): pages 1, 2 and 3.
	if got := strings.Count(strings.Join(paths, " "), "h1.1:ok"); got != 3 {
		t.Errorf("the handler ran %d times, want 3: %v", got, paths)
	}
}
