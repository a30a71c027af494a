package selector

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/internal/testsite"
)

// countingPage opens path of testdata/real/resolve in a browser whose CDP
// requests are counted, with page.js in its documents as an environment's
// page has it (DocumentScript).
func countingPage(t testing.TB, path string) (*rod.Page, *testsite.Counter) {
	t.Helper()
	site := testsite.StartDir(t, "real/resolve")
	b, c := testsite.LaunchCounting(t)
	p := testsite.NewPage(t, b, "")
	if _, err := (proto.PageAddScriptToEvaluateOnNewDocument{Source: DocumentScript()}).Call(p); err != nil {
		t.Fatal(err)
	}
	testsite.Goto(t, p, site.URL(path))
	return p, c
}

// TestRequestsPerAction counts the CDP requests of each action with its
// resolve (visible wait included), on an element already there: fill and
// press stay within 6, a click within 7 (it asks whether its press went to
// the element: one request), and reading a page of rows in an extract is
// one request whatever the rows and fields.
func TestRequestsPerAction(t *testing.T) {
	t.Parallel() // its own counting browser
	p, c := countingPage(t, "/banner.html")
	m := loadMap(t, `
b.name:
  label: Your name
b.free:
  css: "#free"
b.field:
  css: "#name"
b.gone:
  css: "#not-on-this-page"
b.by_label:
  css: "#not-on-this-page"
  fallbacks:
    - label: Your name
b.size:
  css: "#size"
b.with_role:
  css: "#free"
  fallbacks:
    - role: button
      name: Free
b.buttons:
  css: "button"
  many: true
  fallbacks:
    - role: button
b.by_role:
  css: "#not-on-this-page"
  fallbacks:
    - role: button
      name: Free
`)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cost := func(what string, f func() error) int64 {
		t.Helper()
		for range 2 { // the first call of a page also fetches its window object
			if err := f(); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
		}
		before := c.Requests()
		if err := f(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return c.Requests() - before
	}
	el := func(name string) *rod.Element {
		mt, err := m.Resolve(ctx, p, name, Options{Visible: true})
		if err != nil {
			t.Fatal(err)
		}
		return mt.Element()
	}
	got := map[string]int64{
		"click": cost("click", func() error { return Click(ctx, el("b.free"), ActOptions{Name: "b.free"}) }),
		"fill":  cost("fill", func() error { return Fill(ctx, el("b.name"), "Ann", ActOptions{Name: "b.name"}) }),
		"press": cost("press", func() error { return Press(ctx, el("b.name"), tabKey, ActOptions{Name: "b.name"}) }),
	}
	for what, n := range got {
		t.Logf("%s: %d CDP requests (resolve 2 + action)", what, n)
		limit := int64(6)
		if what == "click" {
			limit = 7
		}
		if n > limit {
			t.Errorf("%s took %d CDP requests, want at most %d", what, n, limit)
		}
	}
	// A click found and readied in one request (the click step's way when
	// the page can find its target alone): ready (1) + the mouse (3) + did
	// the press go to the element (1), what leaves room in 7 for the two
	// requests the guard lets through when the click navigates.
	n := cost("ready click", func() error {
		rd, err := m.Ready(ctx, p, "b.free", ReadyOptions{})
		if err != nil || rd == nil {
			return fmt.Errorf("ready: %v, %v", rd, err)
		}
		return rd.Click(ctx)
	})
	t.Logf("ready click: %d CDP requests", n)
	if n > 5 {
		t.Errorf("a ready click took %d CDP requests, want at most 5", n)
	}
	// A native <select> found, readied and set in one request (the
	// select step's way when the page can find its target alone).
	for _, v := range []string{"Large", "s"} {
		n = cost("ready select", func() error {
			rd, err := m.Ready(ctx, p, "b.size", ReadyOptions{Choose: &v})
			if err != nil || rd == nil || !rd.Chosen {
				return fmt.Errorf("ready select: %v, %v", rd, err)
			}
			return nil
		})
		t.Logf("ready select: %d CDP requests", n)
		if n > 1 {
			t.Errorf("a ready select took %d CDP requests, want 1", n)
		}
		if got, want := p.MustElement("#out").MustText(), map[string]string{"Large": "size l", "s": "size s"}[v]; got != want {
			t.Errorf("after choosing %q the page says %q, want %q", v, got, want)
		}
	}
	none := "Medium"
	if _, err := m.Ready(ctx, p, "b.size", ReadyOptions{Choose: &none}); errs.CodeOf(err) != errs.TargetNotFound || !strings.Contains(err.Error(), "options: Small, Large") {
		t.Errorf("choosing an option the select lacks: %v, want target_not_found naming the options", err)
	}
	// A fill and a press found and readied in one request (the fill and
	// press steps' way when the page can find the target alone): typing
	// (1) + insertText and the events (2), or the key down and up (2); one
	// more when a fallback matched (the page names it, then readies it).
	typing := func(name, value string, act func(*Typing) error) func() error {
		return func() error {
			ty, err := m.Typing(ctx, p, name, &value, false)
			if err != nil || ty == nil {
				return fmt.Errorf("typing %s: %v, %v", name, ty, err)
			}
			return act(ty)
		}
	}
	for _, c := range []struct {
		what string
		max  int64
		f    func() error
	}{
		{"typing fill", 3, typing("b.field", "Ann", func(ty *Typing) error { return ty.Fill(ctx, "Ann") })},
		{"typing press", 3, typing("b.field", "", func(ty *Typing) error { return ty.Press(ctx, tabKey) })},
		{"typing fill by a fallback", 4, typing("b.by_label", "Bo", func(ty *Typing) error {
			if ty.Describe() != "fallback 1 (label)" {
				return fmt.Errorf("strategy %q, want fallback 1 (label)", ty.Describe())
			}
			return ty.Fill(ctx, "Bo")
		})},
	} {
		n := cost(c.what, c.f)
		t.Logf("%s: %d CDP requests", c.what, n)
		if n > c.max {
			t.Errorf("%s took %d CDP requests, want at most %d", c.what, n, c.max)
		}
	}
	// A wait whose text is on the page already: the page's one answer
	// settles it (the text's part answered from Go, in cross-site frames,
	// cannot change a condition that holds).
	for _, c := range []struct {
		what  string
		conds []Cond
	}{
		{"wait for a text that is there", []Cond{{Kind: CondText, Text: "cookie banner"}}},
		{"wait for the second of two, a text", []Cond{{Kind: CondVisible, Target: "b.gone"}, {Kind: CondText, Text: "cookie banner"}}},
		// A target with a role fallback whose css shows it (a MediaWiki
		// button): the page says so, no accessibility tree, no element.
		{"wait for a target with a role fallback, first of an any with a text", []Cond{{Kind: CondVisible, Target: "b.with_role"}, {Kind: CondText, Text: "could not be deleted"}}},
		{"wait for a count of a target with a role fallback", []Cond{{Kind: CondCount, Target: "b.buttons", Min: 2}}},
	} {
		n := cost(c.what, func() error {
			i, err := m.Wait(ctx, p, c.conds)
			if want := len(c.conds) - 1; c.conds[0].Target == "b.gone" && err == nil && i != want {
				err = fmt.Errorf("condition %d held, want %d", i, want)
			} else if c.conds[0].Target != "b.gone" && err == nil && i != 0 {
				err = fmt.Errorf("condition %d held, want 0", i)
			}
			return err
		})
		t.Logf("%s: %d CDP requests", c.what, n)
		if n > 1 {
			t.Errorf("%s took %d CDP requests, want 1", c.what, n)
		}
	}
	// Only the role fallback finds it: answered from Go, which counts
	// the matches without wrapping each as an element.
	n = cost("wait for a target only its role fallback finds", func() error {
		_, err := m.Wait(ctx, p, []Cond{{Kind: CondVisible, Target: "b.by_role"}})
		return err
	})
	t.Logf("wait for a target only its role fallback finds: %d CDP requests", n)
	if n > 7 {
		t.Errorf("a wait for a target only its role fallback finds took %d CDP requests, want at most 7 (the page's look at its css, then the accessibility tree)", n)
	}
	if v, err := p.MustElement("#name").Property("value"); err != nil || v.Str() != "Bo" {
		t.Errorf("after the fills the field holds %v (%v), want Bo", v, err)
	}
	// The first look on a document the page went to by itself (a link, a
	// form): one request too, not a request that finds the last
	// document's window gone and another that asks for the new one first.
	if _, err := (proto.RuntimeEvaluate{Expression: `location.href = "/banner.html?next"`}).Call(p); err != nil {
		t.Fatal(err)
	}
	for {
		res, err := proto.RuntimeEvaluate{Expression: `document.readyState + " " + location.search`, ReturnByValue: true}.Call(p)
		if err == nil && res.Result.Value.Str() == "complete ?next" {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("the page did not go to ?next")
		}
		time.Sleep(10 * time.Millisecond)
	}
	before := c.Requests()
	if i, err := m.Wait(ctx, p, []Cond{{Kind: CondText, Text: "cookie banner"}}); err != nil || i != 0 {
		t.Fatalf("wait on the next document: %d, %v", i, err)
	}
	if n := c.Requests() - before; n != 1 {
		t.Errorf("the first wait on the next document took %d CDP requests, want 1", n)
	}

	lp, lc := countingPage(t, "/list.html?n=200&fields=8")
	lm := loadMap(t, listMap(8))
	ctx, cancel = context.WithTimeout(context.Background(), 30*time.Second) // after the second browser started
	defer cancel()
	for _, fields := range []int{1, 8} {
		spec := extractSpec(fields)
		if _, err := lm.Extract(ctx, lp, spec); err != nil {
			t.Fatal(err)
		}
		before := lc.Requests()
		ex, err := lm.Extract(ctx, lp, spec)
		if err != nil {
			t.Fatal(err)
		}
		if n := lc.Requests() - before; n != 1 || len(ex.Items) != 200 {
			t.Errorf("extract of 200 rows × %d fields: %d requests, %d items; want 1 request", fields, n, len(ex.Items))
		}
	}
}

// listMap declares list.html's rows and up to n fields.
func listMap(n int) string {
	s := "l.rows:\n  css: \"#results tr.row\"\n  many: true\nl.f0:\n  within: l.rows\n  css: td.sku\n"
	for f := 1; f < n; f++ {
		s += fmt.Sprintf("l.f%d:\n  within: l.rows\n  css: td.f%d\n", f, f)
	}
	return s
}

func extractSpec(fields int) ExtractSpec {
	spec := ExtractSpec{From: "l.rows", List: true}
	for f := range fields {
		spec.Fields = append(spec.Fields, FieldSpec{Name: fmt.Sprintf("f%d", f), Target: fmt.Sprintf("l.f%d", f)})
	}
	return spec
}

// handRead is the baseline of the extract benchmark: one hand-written
// Runtime.evaluate reading the same cells (text of each field's cell, by
// the same css) into the same shape.
func handRead(p *rod.Page, fields int) (int, error) {
	res, err := proto.RuntimeEvaluate{ReturnByValue: true, Expression: fmt.Sprintf(`(() => {
		const sel = ["td.sku"]; for (let f = 1; f < %d; f++) sel.push("td.f" + f);
		return Array.from(document.querySelectorAll("#results tr.row")).map((r) => {
			const o = {};
			sel.forEach((s, i) => { const c = r.querySelector(s); o["f" + i] = c ? c.innerText.replace(/\s+/g, " ").trim() : null; });
			return o;
		});
	})()`, fields)}.Call(p)
	if err != nil {
		return 0, err
	}
	return len(res.Result.Value.Arr()), nil
}

// samples runs each named operation n times, interleaved (so a busy moment
// of the shared machine hits all alike), and returns each one's median.
func samples(b *testing.B, n int, ops map[string]func() error) map[string]time.Duration {
	b.Helper()
	names := make([]string, 0, len(ops))
	for k := range ops {
		names = append(names, k)
	}
	sort.Strings(names)
	durs := map[string][]time.Duration{}
	for range n {
		for _, k := range names {
			start := time.Now()
			if err := ops[k](); err != nil {
				b.Fatalf("%s: %v", k, err)
			}
			durs[k] = append(durs[k], time.Since(start))
		}
	}
	out := map[string]time.Duration{}
	for k, ds := range durs {
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		out[k] = ds[len(ds)/2]
	}
	return out
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// BenchmarkResolveCost: the median cost of one Resolve of a light-DOM css
// target, of a target inside two nested shadow roots and of a target inside
// a cross-site (out-of-process) frame, measured interleaved; the ratios to
// light DOM are the figures to quote (target ≤ 2).
//
//	go test ./engine/selector -run '^$' -bench 'ResolveCost|ExtractCost' -benchtime 1x
func BenchmarkResolveCost(b *testing.B) {
	_, sp := openReal(b, "/shadow.html")
	_, fp := openReal(b, "/frames.html")
	m := loadMap(b, realMap)
	ctx := context.Background()
	light := target(b, "css: \"#light-button\"")
	resolve := func(p *rod.Page, name string, t *Target) func() error {
		return func() error {
			var err error
			if t != nil {
				_, err = Resolve(ctx, p, nil, t, Options{Visible: true})
			} else {
				_, err = m.Resolve(ctx, p, name, Options{Visible: true})
			}
			return err
		}
	}
	ops := map[string]func() error{
		"light":  resolve(sp, "", light),
		"shadow": resolve(sp, "real.shadow.deep", nil),
		"frame":  resolve(fp, "real.card.number", nil),
	}
	samples(b, 20, ops) // warm up
	var med map[string]time.Duration
	for b.Loop() {
		med = samples(b, 100, ops)
	}
	b.ReportMetric(ms(med["light"]), "light-ms")
	b.ReportMetric(ms(med["shadow"]), "shadow2-ms")
	b.ReportMetric(ms(med["frame"]), "oopif-ms")
	b.ReportMetric(float64(med["shadow"])/float64(med["light"]), "shadow/light")
	b.ReportMetric(float64(med["frame"])/float64(med["light"]), "oopif/light")
}

// BenchmarkExtractCost: the median cost of an extract of 5, 50 and 200 rows
// × 8 fields (Map.Extract: locators, fallbacks, password rule and all)
// against one hand-written Runtime.evaluate reading the same cells (target
// ≤ 3), and how each grows from 1 field to 8 (extract-8f/1f beside
// evaluate-8f/1f: the extract should grow like the page's own reading).
func BenchmarkExtractCost(b *testing.B) {
	ctx := context.Background()
	m := loadMap(b, listMap(8))
	for _, rows := range []int{5, 50, 200} {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			_, p := openReal(b, fmt.Sprintf("/list.html?n=%d&fields=8", rows))
			ops := map[string]func() error{
				"extract8": func() error {
					ex, err := m.Extract(ctx, p, extractSpec(8))
					if err == nil && len(ex.Items) != rows {
						err = fmt.Errorf("%d items", len(ex.Items))
					}
					return err
				},
				"extract1":  func() error { _, err := m.Extract(ctx, p, extractSpec(1)); return err },
				"evaluate1": func() error { _, err := handRead(p, 1); return err },
				"evaluate8": func() error {
					n, err := handRead(p, 8)
					if err == nil && n != rows {
						err = fmt.Errorf("%d rows", n)
					}
					return err
				},
			}
			samples(b, 10, ops)
			var med map[string]time.Duration
			for b.Loop() {
				med = samples(b, 50, ops)
			}
			b.ReportMetric(ms(med["extract8"]), "extract-ms")
			b.ReportMetric(ms(med["evaluate8"]), "evaluate-ms")
			b.ReportMetric(float64(med["extract8"])/float64(med["evaluate8"]), "extract/evaluate")
			b.ReportMetric(float64(med["extract8"])/float64(med["extract1"]), "extract-8f/1f")
			b.ReportMetric(float64(med["evaluate8"])/float64(med["evaluate1"]), "evaluate-8f/1f")
		})
	}
}

// TestPageJSKeptInTheDocument: a call names page.js where the document
// has it (an environment's page, DocumentScript) and sends it whole only to
// a document without it, once: that call defines it there. A page's own
// script can neither replace nor redefine it.
func TestPageJSKeptInTheDocument(t *testing.T) {
	t.Parallel() // its own counting browser
	site := testsite.StartDir(t, "real/resolve")
	b, c := testsite.LaunchCounting(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m := loadMap(t, "b.name:\n  label: Your name\n")
	look := func(p *rod.Page) int64 {
		t.Helper()
		before := c.Requests()
		if _, err := m.Resolve(ctx, p, "b.name", Options{Visible: true}); err != nil {
			t.Fatal(err)
		}
		return c.Requests() - before
	}
	// A page with it from the start: as many requests from the first look
	// on as from the second.
	p := testsite.NewPage(t, b, "")
	if _, err := (proto.PageAddScriptToEvaluateOnNewDocument{Source: DocumentScript()}).Call(p); err != nil {
		t.Fatal(err)
	}
	testsite.Goto(t, p, site.URL("/banner.html"))
	first, second := look(p), look(p)
	if first != second {
		t.Errorf("looks in a document with page.js: %d requests, then %d; want as many", first, second)
	}
	// A page without the script: its first look sends page.js whole after
	// the named call failed (one request more), the next ones name it.
	bare := testsite.NewPage(t, b, site.URL("/banner.html"))
	if n := look(bare); n != second+1 {
		t.Errorf("first look in a document without page.js: %d requests, want %d (named, then whole)", n, second+1)
	}
	if n := look(bare); n != second {
		t.Errorf("second look in that document: %d requests, want %d (page.js defined by the first)", n, second)
	}
	// The page's scripts cannot swap it.
	res, err := p.Eval(`(key) => {
		const was = window[key];
		try { window[key] = () => "forged"; } catch (e) { /* strict mode */ }
		let redefined = true;
		try { Object.defineProperty(window, key, { value: () => "forged" }); } catch (e) { redefined = false; }
		try { delete window[key]; } catch (e) { /* strict mode */ }
		return { same: window[key] === was, redefined };
	}`, pageKey)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Value.Get("same").Bool() || res.Value.Get("redefined").Bool() {
		t.Errorf("a page's script changed page.js in its document: %s", res.Value.JSON("", ""))
	}
	if n := look(p); n != second {
		t.Errorf("look after the page tried to swap page.js: %d requests, want %d", n, second)
	}
}
