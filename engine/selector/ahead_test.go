package selector

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod"
)

// TestReadAhead: the extracts after a wait (or an extract) that the page
// answers alone are read in the same request, as the page was when the
// condition held, and read what Extract reads; the others (a role
// locator, a within parent, a target not there yet, a value read empty)
// are left to their own step.
func TestReadAhead(t *testing.T) {
	t.Parallel() // its own counting browser
	// The rows render 400 ms after load: the wait's look is still polling
	// when they come.
	p, c := countingPage(t, "/list.html?n=6&fields=3&delay=400")
	m := loadMap(t, listMap(3)+`
l.heading:
  css: h1
l.status:
  css: "#status"
l.next_role:
  role: button
  name: Next
l.sku_within:
  within: l.rows
  css: td.sku
l.later:
  css: "#not-yet"
l.pw:
  css: "#pw"
`)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	next := []ExtractSpec{
		extractSpec(3),                              // the rows: read
		{From: "l.heading"},                         // a single value: read
		{From: "l.status", Attr: "id"},              // an attribute: read
		{From: "l.next_role"},                       // a role locator: not read
		{From: "l.sku_within", List: true},          // a within parent: not read
		{From: "l.later", Opt: Options{Once: true}}, // a single value not there: not read
		{From: "l.later", List: true},               // an empty list: not read
		{From: "l.pw", Attr: "value"},               // an empty value (a password reads ""): not read
		{From: "l.status", Attr: "data-none"},       // an attribute not there (null): not read
	}
	read := []bool{true, true, true, false, false, false, false, false, false}
	before := c.Requests()
	i, got, err := m.WaitAhead(ctx, p, []Cond{{Kind: CondVisible, Target: "l.rows"}}, next)
	if err != nil || i != 0 {
		t.Fatalf("WaitAhead: %d, %v", i, err)
	}
	if n := c.Requests() - before; n != 1 {
		t.Errorf("a wait with %d extracts read ahead took %d CDP requests, want 1", len(next), n)
	}
	check := func(what string, got []*Extracted, specs []ExtractSpec, read []bool) {
		t.Helper()
		for k, spec := range specs {
			if (got[k] != nil) != read[k] {
				t.Errorf("%s: extract %d (%s) read ahead: %v, want %v", what, k, spec.From, got[k] != nil, read[k])
				continue
			}
			if got[k] == nil {
				continue
			}
			want, err := m.Extract(ctx, p, spec)
			if err != nil {
				t.Fatalf("%s: extract %s: %v", what, spec.From, err)
			}
			if !reflect.DeepEqual(got[k], want) {
				t.Errorf("%s: extract %s read ahead %+v, alone %+v", what, spec.From, got[k], want)
			}
		}
	}
	check("after the wait", got, next, read)
	if got[0] == nil || len(got[0].Items) != 6 {
		t.Fatalf("the rows read ahead: %+v, want 6 rows", got[0])
	}

	// An extract reads the ones after it in its own request.
	before = c.Requests()
	first, rest, err := m.ExtractAhead(ctx, p, ExtractSpec{From: "l.status"}, next)
	if err != nil || first == nil || first.Items[0] != "Page 1 of 1" {
		t.Fatalf("ExtractAhead: %+v, %v", first, err)
	}
	if n := c.Requests() - before; n != 1 {
		t.Errorf("an extract with %d extracts read ahead took %d CDP requests, want 1", len(next), n)
	}
	check("after an extract", rest, next, read)

	// An extract whose own list matched nothing has its answer in that
	// one request too (not read again).
	before = c.Requests()
	first, rest, err = m.ExtractAhead(ctx, p, ExtractSpec{From: "l.later", List: true}, next)
	if err != nil || first == nil || len(first.Items) != 0 {
		t.Fatalf("ExtractAhead of an empty list: %+v, %v", first, err)
	}
	if n := c.Requests() - before; n != 1 {
		t.Errorf("an extract of an empty list with %d extracts read ahead took %d CDP requests, want 1", len(next), n)
	}
	check("after an empty list", rest, next, read)

	// An extract the page cannot read alone reads the usual way, and
	// nothing ahead.
	first, rest, err = m.ExtractAhead(ctx, p, ExtractSpec{From: "l.next_role"}, next)
	if err != nil || first == nil || first.Items[0] != "Next" {
		t.Fatalf("ExtractAhead of a role target: %+v, %v", first, err)
	}
	for k := range rest {
		if rest[k] != nil {
			t.Errorf("after an extract read from Go, extract %d was read ahead", k)
		}
	}
}

// TestReadyKeepsTheMark: paginate's next is readied and its list's first
// row kept on the page, with its text and the URL read, in one request
// (the row was found and wrapped in two more before); WaitChanged then
// sees the list replaced in place (pushState) and a new document
// (reload) by that kept row. A marker the page cannot find alone (a role
// locator) is not kept: the caller finds it itself.
func TestReadyKeepsTheMark(t *testing.T) {
	t.Parallel() // its own counting browser
	m := loadMap(t, listMap(1)+`
l.next:
  css: "#next"
l.rows_role:
  role: row
  many: true
`)
	for _, c := range []struct {
		nav    string
		newDoc bool
	}{{"push", false}, {"reload", true}} {
		p, cnt := countingPage(t, "/list.html?n=3&pages=3&fields=1&nav="+c.nav)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		before := cnt.Requests()
		rd, err := m.Ready(ctx, p, "l.next", ReadyOptions{ClassDisabled: true, Mark: true, MarkTarget: "l.rows"})
		if err != nil || rd == nil {
			cancel()
			t.Fatalf("%s: ready: %v, %v", c.nav, rd, err)
		}
		if n := cnt.Requests() - before; n != 1 || !rd.Marked || rd.Text != "P1-1" || !strings.Contains(rd.URL, "/list.html") {
			t.Errorf("%s: %d requests, marked %v, text %q, url %q; want 1 request, the first row P1-1 marked", c.nav, n, rd.Marked, rd.Text, rd.URL)
		}
		if err := rd.Click(ctx); err != nil {
			t.Fatalf("%s: click: %v", c.nav, err)
		}
		ch, err := WaitChanged(ctx, p, nil, Before{URL: rd.URL, Text: rd.Text}, nil)
		if err != nil || ch.NewDoc != c.newDoc {
			t.Errorf("%s: WaitChanged: new document %v, %v; want %v", c.nav, ch.NewDoc, err, c.newDoc)
		}
		rd, err = m.Ready(ctx, p, "l.next", ReadyOptions{ClassDisabled: true, Mark: true, MarkTarget: "l.rows_role"})
		if err != nil || rd == nil || rd.Marked {
			t.Errorf("%s: a role marker: %+v, %v; want readied, not marked", c.nav, rd, err)
		}
		cancel()
	}
}

// TestSettledCountsFromTheChange: once a list changed in place (the wait
// for the change held), a wait for it to settle counts its quiet from the
// last change of the page, which the window kept watching between the two
// requests, not from its own start. Before, a list that had stood still
// for a second still waited the whole quiet again.
func TestSettledCountsFromTheChange(t *testing.T) {
	t.Parallel() // its own counting browser
	m := loadMap(t, listMap(1)+`
l.next:
  css: "#next"
`)
	settledNow := func(ctx context.Context, p *rod.Page, quiet time.Duration) int {
		t.Helper()
		i, err := waitCondsPoll(ctx, scope{page: p}, []map[string]any{{"kind": "settled", "quiet": quiet.Milliseconds()}}, 0, fastPoll)
		if err != nil {
			t.Fatalf("settled: %v", err)
		}
		return i
	}
	for _, late := range []bool{false, true} {
		p, _ := countingPage(t, "/list.html?n=3&pages=3&fields=1&nav=push")
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		rd, err := m.Ready(ctx, p, "l.next", ReadyOptions{ClassDisabled: true, Mark: true, MarkTarget: "l.rows"})
		if err != nil || rd == nil {
			cancel()
			t.Fatalf("ready: %v, %v", rd, err)
		}
		if err := rd.Click(ctx); err != nil {
			cancel()
			t.Fatalf("click: %v", err)
		}
		if ch, err := WaitChanged(ctx, p, nil, Before{URL: rd.URL, Text: rd.Text}, nil); err != nil || ch.NewDoc {
			cancel()
			t.Fatalf("WaitChanged: new document %v, %v; want the list changed in place", ch.NewDoc, err)
		}
		time.Sleep(1100 * time.Millisecond)
		if late {
			// A change after the wait saw the list change: the window saw it.
			p.MustEval(`() => document.body.setAttribute("data-late", "1")`)
			if i := settledNow(ctx, p, time.Second); i != -1 {
				t.Errorf("a change just now: settled (quiet 1s) answered %d, want -1 (not yet)", i)
			}
		} else {
			if i := settledNow(ctx, p, time.Second); i != 0 {
				t.Errorf("a list standing still for 1.1 s: settled (quiet 1s) answered %d, want 0 (at once)", i)
			}
			if i := settledNow(ctx, p, time.Second); i != -1 {
				t.Errorf("a second settled wait answered %d, want -1: it counts from its own start", i)
			}
		}
		cancel()
	}
}
