// Command floor is the physical floor of the benchmarks' business action
// (sign in, search, read N result pages of the Acme demo site): the same
// action on an open browser with the fewest CDP round trips we know of.
//
//	ACME_USER=... ACME_PASSWORD=... floor -base http://127.0.0.1:PORT [-query ACM] [-pages 3] [-runs 7] [-fresh]
//	floor -base URL -wide 5,50,200 [-runs 7]     # one evaluate reading the wide page, N rows × 8 fields
//
// Per run, on a page that stays open between runs (like toolwright's
// env: given; -fresh opens a browser context and page per run instead, like
// env: temporary):
//
//  1. Page.navigate to login.html, then wait for its load event;
//  2. one Runtime.evaluate fills email and password by value (focus, value,
//     input and change events) and clicks Sign in; wait for catalog.html's
//     load event;
//  3. one Runtime.evaluate (awaiting a promise) waits for the search box,
//     fills the query by value, submits the search form (what Enter in the
//     box does), waits with a MutationObserver until the rows are there and
//     returns page 1's rows;
//  4. per further page, one Runtime.evaluate clicks Next, waits with a
//     MutationObserver until the first row is another product, and returns
//     the page's rows.
//
// That is pages+2 requests per run, plus the navigation. There is no
// visibility, enabled or covered check and no retry: the floor assumes the
// page behaves; toolwright may not. It prints JSON: runs_ms, cdp_requests
// per run, cdp_by_method, the rows read; with -wide, per row count the times
// of one evaluate reading every row's 8 fields (td.sku, td.name, ... as the
// bench selector map targets them) and the bytes it returned.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/toolwright/toolwright/internal/rodref"
)

// until is the page-side wait: resolve with test()'s first truthy value,
// checked now and after every DOM change, or reject after ms.
const until = `const until = (test, ms) => new Promise((resolve, reject) => {
	let v = test();
	if (v) return resolve(v);
	const mo = new MutationObserver(() => { v = test(); if (v) { mo.disconnect(); clearTimeout(t); resolve(v); } });
	const t = setTimeout(() => { mo.disconnect(); reject(new Error('timed out')); }, ms);
	mo.observe(document, {subtree: true, childList: true, characterData: true, attributes: true});
});
const setValue = (el, v) => {
	el.focus();
	el.value = v;
	el.dispatchEvent(new Event('input', {bubbles: true}));
	el.dispatchEvent(new Event('change', {bubbles: true}));
};
const rows = () => Array.from(document.querySelectorAll('#results tbody tr')).map((tr) =>
	['td.sku', 'td.name', 'td.price'].map((c) => tr.querySelector(c).textContent.trim()));
`

// signIn fills both fields and clicks Sign in (the page then navigates).
const signIn = `(user, password) => {
	` + until + `
	setValue(document.querySelector('#login-form input[name=email]'), user);
	setValue(document.querySelector('#login-form input[name=password]'), password);
	document.querySelector('#login-form button[type=submit]').click();
}`

// search fills the box, submits, and returns page 1's rows once they are there.
const search = `async (query) => {
	` + until + `
	const box = await until(() => { const el = document.querySelector('input[name=q]'); return el && el.offsetParent !== null && el; }, 10000);
	setValue(box, query);
	box.form.requestSubmit();
	await until(() => document.querySelector('#results tbody tr'), 10000);
	return rows();
}`

// next clicks Next and returns the next page's rows once the first row changed.
const next = `async (firstSKU) => {
	` + until + `
	const btn = document.querySelector('#next-page');
	if (!btn || btn.disabled) return null;
	btn.click();
	await until(() => { const td = document.querySelector('#results tbody tr td.sku'); return td && td.textContent.trim() !== firstSKU; }, 10000);
	return rows();
}`

// readWide reads every row's 8 fields of the wide page.
const readWide = `() => Array.from(document.querySelectorAll('#wide tbody tr')).map((tr) => {
	const o = {};
	for (const f of ['sku', 'name', 'brand', 'category', 'price', 'stock', 'rating', 'updated']) {
		const td = tr.querySelector('td.' + f);
		o[f] = td ? td.textContent.trim() : null;
	}
	return o;
})`

func main() {
	base := flag.String("base", "", "the Acme site's base URL")
	query := flag.String("query", "", "search words")
	pages := flag.Int("pages", 3, "result pages to read")
	runs := flag.Int("runs", 7, "timed runs (after one warm-up)")
	fresh := flag.Bool("fresh", false, "a fresh browser context and page per run (like env: temporary)")
	wide := flag.String("wide", "", "instead: time one evaluate reading /bench/wide?rows=N, for these N (comma-separated)")
	bin := flag.String("bin", "", "Chromium binary (default: looked up on PATH)")
	flag.Parse()
	if *base == "" {
		fmt.Fprintln(os.Stderr, "floor: need -base")
		os.Exit(2)
	}
	var err error
	if *wide != "" {
		err = runWide(*bin, *base, *wide, *runs)
	} else {
		user, password := os.Getenv("ACME_USER"), os.Getenv("ACME_PASSWORD")
		if user == "" || password == "" {
			fmt.Fprintln(os.Stderr, "floor: need the ACME_USER and ACME_PASSWORD environment variables")
			os.Exit(2)
		}
		err = runAction(*bin, *base, user, password, *query, *pages, *runs, *fresh)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}

// session is one page driven with raw CDP requests.
type session struct {
	b    *rod.Browser
	page *rod.Page
}

// open makes a browser context and a page with the Page domain enabled (for
// its load events).
func open(b *rod.Browser) (*session, func(), error) {
	inc, err := b.Incognito()
	if err != nil {
		return nil, nil, err
	}
	dispose := func() { _ = proto.TargetDisposeBrowserContext{BrowserContextID: inc.BrowserContextID}.Call(b) }
	page, err := inc.Page(proto.TargetCreateTarget{})
	if err == nil {
		err = proto.PageEnable{}.Call(page)
	}
	if err != nil {
		dispose()
		return nil, nil, err
	}
	return &session{b: b, page: page}, dispose, nil
}

// loaded returns a wait for the page's next load event; set it up before
// the request that navigates.
func (s *session) loaded(ctx context.Context) func() {
	return s.page.Context(ctx).EachEvent(func(*proto.PageLoadEventFired) bool { return true })
}

// eval runs one Runtime.evaluate of fn applied to args, awaiting its promise.
func (s *session) eval(ctx context.Context, fn string, args ...any) (json.RawMessage, error) {
	parts := make([]string, len(args))
	for i, a := range args {
		b, err := json.Marshal(a)
		if err != nil {
			return nil, err
		}
		parts[i] = string(b)
	}
	res, err := proto.RuntimeEvaluate{
		Expression:    "(" + fn + ")(" + strings.Join(parts, ",") + ")",
		AwaitPromise:  true,
		ReturnByValue: true,
	}.Call(s.page.Context(ctx))
	if err != nil {
		return nil, err
	}
	if res.ExceptionDetails != nil {
		return nil, fmt.Errorf("page error: %s", res.ExceptionDetails.Exception.Description)
	}
	return json.RawMessage(res.Result.Value.JSON("", "")), nil
}

// action is one run of the business action; it returns the rows read.
func (s *session) action(ctx context.Context, base, user, password, query string, pages int) ([][3]string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	wait := s.loaded(ctx)
	if _, err := (proto.PageNavigate{URL: base + "/login.html"}).Call(s.page.Context(ctx)); err != nil {
		return nil, err
	}
	wait()
	wait = s.loaded(ctx)
	if _, err := s.eval(ctx, signIn, user, password); err != nil {
		return nil, fmt.Errorf("sign in: %w", err)
	}
	wait()
	raw, err := s.eval(ctx, search, query)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	var all [][3]string
	for n := 1; ; n++ {
		var got [][3]string
		if err := json.Unmarshal(raw, &got); err != nil {
			return nil, fmt.Errorf("page %d: %w", n, err)
		}
		if len(got) == 0 {
			return all, nil
		}
		all = append(all, got...)
		if n >= pages {
			return all, nil
		}
		if raw, err = s.eval(ctx, next, got[0][0]); err != nil {
			return nil, fmt.Errorf("page %d: %w", n+1, err)
		}
	}
}

func runAction(bin, base, user, password, query string, pages, runs int, fresh bool) error {
	var n rodref.Counter
	b, stop, err := rodref.Start(bin, &n)
	if err != nil {
		return err
	}
	defer stop()
	ctx := context.Background()
	var kept *session
	if !fresh {
		s, dispose, err := open(b)
		if err != nil {
			return err
		}
		defer dispose()
		kept = s
	}
	var ms []float64
	var reqs []int
	var rows [][3]string
	for i := 0; i <= runs; i++ {
		n.Reset()
		start := time.Now()
		s := kept
		dispose := func() {}
		if s == nil {
			if s, dispose, err = open(b); err != nil {
				return err
			}
		}
		rows, err = s.action(ctx, base, user, password, query, pages)
		dispose()
		if err != nil {
			return err
		}
		if i > 0 { // run 0 is the warm-up
			ms = append(ms, float64(time.Since(start).Microseconds())/1000)
			reqs = append(reqs, n.Total())
		}
	}
	mode := "kept page (like env: given)"
	if fresh {
		mode = "fresh browser context per run (like env: temporary)"
	}
	type row struct {
		SKU   string `json:"sku"`
		Name  string `json:"name"`
		Price string `json:"price"`
	}
	out := make([]row, len(rows))
	for i, r := range rows {
		out[i] = row{r[0], r[1], r[2]}
	}
	return json.NewEncoder(os.Stdout).Encode(map[string]any{
		"mode": mode, "runs_ms": ms, "median_ms": median(ms), "cdp_requests": reqs,
		"cdp_by_method": n.ByMethod(), "rows": out, "count": len(out),
	})
}

func runWide(bin, base, counts string, runs int) error {
	b, stop, err := rodref.Start(bin, nil)
	if err != nil {
		return err
	}
	defer stop()
	s, dispose, err := open(b)
	if err != nil {
		return err
	}
	defer dispose()
	ctx := context.Background()
	out := map[string]any{}
	for _, c := range strings.Split(counts, ",") {
		rows, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil {
			return fmt.Errorf("-wide: %q is not a number", c)
		}
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		wait := s.loaded(wctx)
		_, err = proto.PageNavigate{URL: fmt.Sprintf("%s/bench/wide?rows=%d", base, rows)}.Call(s.page.Context(wctx))
		if err == nil {
			wait()
		}
		cancel()
		if err != nil {
			return err
		}
		var ms []float64
		var size int
		for i := 0; i <= runs; i++ {
			start := time.Now()
			raw, err := s.eval(ctx, readWide)
			d := time.Since(start)
			if err != nil {
				return err
			}
			var got []map[string]any
			if err := json.Unmarshal(raw, &got); err != nil || len(got) != rows {
				return fmt.Errorf("read %d rows of %d (%v)", len(got), rows, err)
			}
			size = len(raw)
			if i > 0 {
				ms = append(ms, float64(d.Microseconds())/1000)
			}
		}
		out[strconv.Itoa(rows)] = map[string]any{"runs_ms": ms, "median_ms": median(ms), "fields": 8, "bytes": size}
	}
	return json.NewEncoder(os.Stdout).Encode(map[string]any{"wide": out, "note": "one Runtime.evaluate reading every row's 8 fields (returnByValue)"})
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
