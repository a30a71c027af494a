package selsuggest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/toolwright/toolwright/engine/browser"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/internal/testsite"
)

func TestMain(m *testing.M) { testsite.Main(m) }

// TestSuggest: on a form with a web component, every field, button and link
// gets an entry whose every locator resolves to exactly that element; the
// YAML reads back as a selector map whose targets all resolve by primary.
// entriesOf is what SuggestPage proposes for page.
func entriesOf(ctx context.Context, tab *rod.Page, page, prefix string) ([]Entry, error) {
	r, err := SuggestPage(ctx, tab, page, prefix, Options{})
	if err != nil {
		return nil, err
	}
	return r.Entries, nil
}

func TestSuggest(t *testing.T) {
	t.Parallel() // its own server and browser context
	srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Join("..", "..", "testdata", "suggest"))))
	defer srv.Close()
	p := testsite.NewPage(t, testsite.Browser(t), "")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	entries, err := entriesOf(ctx, p, srv.URL+"/form.html", "shop.signup")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Entry{}
	for _, e := range entries {
		got[e.Name] = e
	}
	primary := func(name string) string {
		e, ok := got[name]
		if !ok {
			t.Errorf("no entry %s; got %v", name, entries)
			return ""
		}
		return e.Locators[0].Describe()
	}
	for name, want := range map[string]string{
		"shop.signup.email_address":  `css "#email"`, // a stable id first
		"shop.signup.password":       `css "input[name=\"password\"]"`,
		"shop.signup.nickname":       `css "input[name=\"nickname\"]"`, // react-4821 is not stable
		"shop.signup.country":        `css "select[name=\"country\"]"`,
		"shop.signup.create_account": `css "[data-testid=\"signup-submit\"]"`,
		"shop.signup.terms_of_use":   `css "a[href=\"/terms.html\"]"`,
		"shop.signup.pay_now":        `role "button" name "Pay now"`, // inside an open shadow root
	} {
		if d := primary(name); d != "" && d != want {
			t.Errorf("%s: primary %s, want %s", name, d, want)
		}
	}
	if e := got["shop.signup.email_address"]; len(e.Locators) < 2 || e.Locators[1].Strategy != selector.Label {
		t.Errorf("email: want a label fallback, got %v", e.Locators)
	}
	// Two "Delete" buttons: no locator is unique, so no entry is proposed.
	for name := range got {
		if strings.Contains(name, "delete") {
			t.Errorf("ambiguous element proposed: %s %v", name, got[name].Locators)
		}
	}
	if _, n := readBack(ctx, t, p, srv.URL+"/form.html", entries); n < 7 {
		t.Errorf("%d entries, want at least 7", n)
	}
}

// readBack writes entries as YAML, parses it as a selector map and checks
// that every target resolves on p by its primary to one element; it
// returns the map and how many targets were checked.
func readBack(ctx context.Context, t *testing.T, p *rod.Page, page string, entries []Entry) (*selector.Map, int) {
	t.Helper()
	var yml strings.Builder
	if err := WriteYAML(&yml, page, entries); err != nil {
		t.Fatal(err)
	}
	m, ps := selector.Parse("suggested.yaml", []byte(yml.String()))
	if len(ps) > 0 {
		t.Fatalf("the proposal does not parse:\n%s\n%v", yml.String(), ps.Err())
	}
	hs := selector.Check(ctx, p, m, nil)
	for _, h := range hs {
		if h.Status != selector.StatusPrimary || h.Count != 1 {
			t.Errorf("%s: %s %s", h.Name, h.Status, h.Message)
		}
	}
	if len(hs) != len(entries) {
		t.Errorf("%d entries checked, %d proposed:\n%s", len(hs), len(entries), yml.String())
	}
	return m, len(hs)
}

// TestSuggestFrames: elements inside iframes are proposed too, each naming
// its frame entry: a same-site frame (with a web component and a frame of
// its own) and a frame from another site, which Chromium runs out of
// process. The YAML reads back as a map whose every target resolves by
// primary to one element, frames included.
func TestSuggestFrames(t *testing.T) {
	t.Parallel() // its own server and browser context
	site := testsite.StartDir(t, "suggest")
	p := testsite.NewPage(t, testsite.Browser(t), "")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	entries, err := entriesOf(ctx, p, site.URL("frames.html"), "shop.checkout")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Entry{}
	for _, e := range entries {
		got[e.Name] = e
	}
	for _, want := range []struct{ name, frame, primary string }{
		{"shop.checkout.coupon_code", "", `css "#coupon"`},
		{"shop.checkout.place_order", "", `role "button" name "Place order"`},
		{"shop.checkout.delivery_address_frame", "", `css "#address"`},
		{"shop.checkout.delivery_address.street", "shop.checkout.delivery_address_frame", `css "#street"`},
		{"shop.checkout.delivery_address.city", "shop.checkout.delivery_address_frame", `css "input[name=\"city\"]"`},
		{"shop.checkout.delivery_address.save_address", "shop.checkout.delivery_address_frame", `role "button" name "Save address"`}, // a web component in the frame
		{"shop.checkout.delivery_address.postcode_lookup_frame", "shop.checkout.delivery_address_frame", `css "iframe[title=\"Postcode lookup\"]"`},
		{"shop.checkout.delivery_address.postcode_lookup.postcode", "shop.checkout.delivery_address.postcode_lookup_frame", `css "input[name=\"postcode\"]"`},
		{"shop.checkout.card_payment_frame", "", `css "iframe[name=\"card\"]"`},
		{"shop.checkout.card_payment.card_number", "shop.checkout.card_payment_frame", `css "#number"`}, // another site: out of process
		{"shop.checkout.card_payment.pay", "shop.checkout.card_payment_frame", `css "[data-testid=\"pay\"]"`},
	} {
		e, ok := got[want.name]
		if !ok {
			t.Errorf("no entry %s", want.name)
			continue
		}
		if e.Frame != want.frame || e.Locators[0].Describe() != want.primary {
			t.Errorf("%s: frame %q, primary %s; want frame %q, primary %s", want.name, e.Frame, e.Locators[0].Describe(), want.frame, want.primary)
		}
	}
	if t.Failed() {
		t.Logf("entries: %+v", entries)
	}
	m, _ := readBack(ctx, t, p, site.URL("frames.html"), entries)
	// The marks are gone from every document, frames and shadow roots too.
	for _, name := range []string{"shop.checkout.coupon_code", "shop.checkout.delivery_address.save_address", "shop.checkout.card_payment.pay"} {
		mt, err := m.Resolve(ctx, p, name, selector.Options{Once: true})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if v, err := mt.Element().Eval(`function () { return this.hasAttribute('data-tw-suggest') }`); err != nil || v.Value.Bool() {
			t.Errorf("%s still carries its mark (%v)", name, err)
		}
	}
}

// TestSuggestRedirectTokensStatus (issue 23, 19.5): a page that sends a
// signed-out visitor elsewhere by script is read where it landed, and says
// so (was the raw CDP error "Inspected target navigated or closed"); no
// name or locator holds a secret's value or a session token (sectok=, a
// CSRF token); a long link text gives a name cut after a whole word (was
// cut at 40 characters); a page that answers 405 is an error that says so
// (was an empty list).
func TestSuggestRedirectTokensStatus(t *testing.T) {
	t.Parallel() // its own server and browser context
	files := http.FileServer(http.Dir(filepath.Join("..", "..", "testdata", "suggest")))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/save":
			http.Error(w, "POST only", http.StatusMethodNotAllowed)
			return
		case "/chain":
			// A visitor sent on and on by script: each page moves to the
			// next 30 ms after it opens, the last to the sign-in page.
			n, _ := strconv.Atoi(r.URL.Query().Get("n"))
			next := fmt.Sprintf("chain?n=%d", n-1)
			if n <= 0 {
				next = "signin.html?next=dashboard"
			}
			fmt.Fprintf(w, "<!doctype html><title>Checking</title><p>Checking your session (%d)</p><script>setTimeout(() => location.replace(%q), 30)</script>", n, next)
			return
		}
		files.ServeHTTP(w, r)
	}))
	defer srv.Close()
	p := testsite.NewPage(t, testsite.Browser(t), "")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// A chain of script redirects: the waits for the load see documents
	// replaced under them. It failed "the page did not load: Inspected
	// target navigated or closed" whenever a redirect fell inside such a
	// wait, which redirect.html alone hits only on a loaded machine (CI,
	// stop 25).
	if res, err := SuggestPage(ctx, p, srv.URL+"/chain?n=12", "shop.in", Options{}); err != nil {
		t.Fatalf("a chain of script redirects: %v", err)
	} else if !strings.HasSuffix(res.URL, "/signin.html?next=dashboard") {
		t.Errorf("a chain of script redirects landed at %q, want signin.html", res.URL)
	}
	res, err := SuggestPage(ctx, p, srv.URL+"/redirect.html", "shop.in", Options{Secrets: []string{"wpadmin42"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(res.URL, "/signin.html?next=dashboard") {
		t.Errorf("landed at %q, want signin.html", res.URL)
	}
	names := map[string]bool{}
	for _, e := range res.Entries {
		names[e.Name] = true
		for _, s := range append([]string{e.Name, e.Description}, describeAll(e.Locators)...) {
			if strings.Contains(s, "wpadmin42") || strings.Contains(strings.ToLower(s), "sectok") || strings.Contains(s, "a8f3c9") {
				t.Errorf("entry %s proposes a secret or a token: %q", e.Name, s)
			}
		}
		if last := e.Name[strings.LastIndexByte(e.Name, '.')+1:]; len(last) > maxSlug {
			t.Errorf("name %s is longer than %d", e.Name, maxSlug)
		}
	}
	for _, want := range []string{"shop.in.user_name", "shop.in.password", "shop.in.sign_in", "shop.in.mark_all_the_entries_of_this"} {
		if !names[want] {
			t.Errorf("no entry %s; got %v", want, names)
		}
	}
	if _, err := SuggestPage(ctx, p, srv.URL+"/save", "shop.save", Options{}); err == nil || !strings.Contains(err.Error(), "405 Method Not Allowed") {
		t.Errorf("a 405 page: %v", err)
	}
}

func describeAll(locs []selector.Locator) []string {
	var out []string
	for _, l := range locs {
		out = append(out, l.Describe())
	}
	return out
}

// TestSuggestRows (issue 23): on a paginated table, suggest proposes one
// many entry for the rows, one within entry per control or link that
// repeats in them (not one entry per row: 6 order links, and Edit/Delete
// that no page-wide locator tells apart), and names the next-page control;
// the YAML is a selector map that loads clean and its rows target matches
// every row. Failed before: 6 order-link entries, no rows, no next_page.
func TestSuggestRows(t *testing.T) {
	t.Parallel() // its own server and browser context
	srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Join("..", "..", "testdata", "suggest"))))
	defer srv.Close()
	p := testsite.NewPage(t, testsite.Browser(t), "")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	entries, err := entriesOf(ctx, p, srv.URL+"/orders.html", "shop.orders")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Entry{}
	for _, e := range entries {
		got[e.Name] = e
	}
	rows, ok := got["shop.orders.rows"]
	if !ok || !rows.Many {
		t.Fatalf("no many rows entry; got %v", entries)
	}
	for _, name := range []string{"shop.orders.row_edit", "shop.orders.row_delete"} {
		if e, ok := got[name]; !ok || e.Within != "shop.orders.rows" {
			t.Errorf("%s: want a within shop.orders.rows entry, got %+v", name, e)
		}
	}
	links := 0
	for _, e := range entries {
		if e.Kind == "link" && e.Within == "shop.orders.rows" {
			links++
		}
		if strings.Contains(e.Name, "order_104") {
			t.Errorf("a per-row entry: %s", e.Name)
		}
	}
	if links != 1 {
		t.Errorf("%d row link entries, want 1", links)
	}
	if e, ok := got["shop.orders.next_page"]; !ok || e.Kind != "link" {
		t.Errorf("no next_page entry; got %v", entries)
	}
	if len(entries) > 8 {
		t.Errorf("%d entries, want the rows collapsed (at most 8)", len(entries))
	}
	var b strings.Builder
	if err := WriteYAML(&b, srv.URL+"/orders.html", entries); err != nil {
		t.Fatal(err)
	}
	m, ps := selector.Parse("suggested.yaml", []byte(b.String()))
	if len(ps) > 0 {
		t.Fatalf("the proposed YAML has problems:\n%v\n%s", ps.Err(), b.String())
	}
	tg, _ := m.Lookup("shop.orders.rows")
	n := p.MustEval(`(css) => document.querySelectorAll(css).length`, tg.Locators[0].Value).Int()
	if n != 6 {
		t.Errorf("rows css %q matches %d, want 6", tg.Locators[0].Value, n)
	}
}

// TestResultNotes: a page that moved on, and a page with nothing to
// propose, each get their note; a page read where asked with entries none.
func TestResultNotes(t *testing.T) {
	asked := "http://127.0.0.1:1/account.html"
	r := &Result{URL: "http://127.0.0.1:1/login.html"}
	got := r.Notes(asked)
	if len(got) != 2 || !strings.HasPrefix(got[0], "note: "+asked+" redirected to "+r.URL+";") || got[1] != "no fields, buttons or links with a locator that matches only them on "+r.URL {
		t.Errorf("notes: %q", got)
	}
	r = &Result{URL: asked, Entries: []Entry{{Name: "page.account.save"}}}
	if got := r.Notes(asked); len(got) != 0 {
		t.Errorf("notes for a page read where asked: %q", got)
	}
}

// suggested is what SuggestPage proposes for page of testdata/suggest,
// served on loopback, in a page of its own (with an environment's page
// script first when withScript), by name.
func suggested(t *testing.T, page, prefix string, withScript bool) (*rod.Page, []Entry, map[string]Entry, string) {
	t.Helper()
	srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Join("..", "..", "testdata", "suggest"))))
	t.Cleanup(srv.Close)
	p := testsite.NewPage(t, testsite.Browser(t), "")
	if withScript {
		if _, err := (proto.PageAddScriptToEvaluateOnNewDocument{Source: browser.PageScript()}).Call(p); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	entries, err := entriesOf(ctx, p, srv.URL+page, prefix)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Entry{}
	for _, e := range entries {
		got[e.Name] = e
	}
	return p, entries, got, srv.URL + page
}

// TestSuggestTextRows: rows of plain text (a table's cells, a list's
// items: no link or control in them) get a many entry and a within entry
// per field, a table's columns named by their headers, and every field
// reads its own cell in each row.
func TestSuggestTextRows(t *testing.T) {
	t.Parallel() // its own server and browser context
	p, entries, got, pageURL := suggested(t, "/parts.html", "shop.parts", false)
	// Each field, read in each row of its rows entry.
	read := func(field string) string {
		t.Helper()
		f, ok := got[field]
		if !ok {
			t.Errorf("no entry %s; got %v", field, entries)
			return ""
		}
		rows, ok := got[f.Within]
		if !ok || !rows.Many {
			t.Errorf("%s: within %q, not a many rows entry; got %v", field, f.Within, entries)
			return ""
		}
		return p.MustEval(`(rows, inner) => [...document.querySelectorAll(rows)].map((r) => { const m = r.querySelectorAll(inner); return m.length === 1 ? m[0].textContent.trim() : "#" + m.length; }).join("|")`,
			rows.Locators[0].Value, f.Locators[0].Value).Str()
	}
	for field, want := range map[string]string{
		"shop.parts.row_sku":       "P-1|P-2|P-3|P-4|P-5",
		"shop.parts.row_part_name": "Gear|Spring|Valve|Bolt|Nut",
		"shop.parts.row_price":     "$1.00|$2.00|$3.00|$4.00|$5.00",
		"shop.parts.row_when":      "May 1|May 2|May 3",
		"shop.parts.row_what":      "Gears restocked|Springs on sale|Valves discontinued",
	} {
		if s := read(field); s != want {
			t.Errorf("%s reads %q, want %q", field, s, want)
		}
	}
	if e, ok := got["shop.parts.next_page"]; !ok || e.Kind != "link" {
		t.Errorf("no next_page entry; got %v", entries)
	}
	var b strings.Builder
	if err := WriteYAML(&b, pageURL, entries); err != nil {
		t.Fatal(err)
	}
	if _, ps := selector.Parse("suggested.yaml", []byte(b.String())); len(ps) > 0 {
		t.Fatalf("the proposed YAML has problems:\n%v\n%s", ps.Err(), b.String())
	}
}

// TestSuggestDrawnApp: a single-page app that draws its form after asking
// its server is read once drawn (what its scripts set going while it
// loaded has run, as an environment's page tells), and fields known only by
// a placeholder are proposed by it.
func TestSuggestDrawnApp(t *testing.T) {
	t.Parallel() // its own server and browser context
	_, entries, got, _ := suggested(t, "/drawn.html", "shop.app", true)
	for name, want := range map[string]string{
		"shop.app.search_parts": `role "textbox" name "Search parts"`,
		"shop.app.max_price":    `role "spinbutton" name "Max price"`,
		"shop.app.go":           `role "button" name "Go"`,
	} {
		e, ok := got[name]
		if !ok {
			t.Errorf("no entry %s; got %v", name, entries)
			continue
		}
		if d := e.Locators[0].Describe(); d != want {
			t.Errorf("%s: primary %s, want %s", name, d, want)
		}
	}
}
