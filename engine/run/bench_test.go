package run_test

// Benchmarks of the executor against plain rod code doing the same browser
// work on the same Chromium. Nothing here asserts on time; run them with
//
//	go test ./engine/run -run '^$' -bench . -benchtime 20x
//
// BenchmarkStepOverhead runs workflows of benchSteps and of 2×benchSteps
// identical steps in an `env: given` environment (one call each) and the same
// rod calls on the same page, alternating. The engine's time per step is the
// difference of its two calls divided by benchSteps, so what a call costs
// once (holding the environment, the trace, waiting out the navigation window
// after the last acting step) is not in it. The rod side does the step's own
// CDP operations (see rodSteps). Per step: toolwright-us/step, rod-us/step and
// toolwright/rod, their ratio (on a loaded machine the difference of the two
// calls is noisy; the ratio is only reported when both times are positive).
// BenchmarkCallOverhead is the fixed
// cost of one call that does no browser work (a set step): binding and
// checking arguments, the environment hold, trace, audit. BenchmarkSearchAction
// is the whole search_catalog action (sign in, search, read 3 pages) through
// engine.Call against a hand-written rod version of it, each in a fresh
// browser context of the same browser, alternating; it reports
// toolwright-ms/op, rod-ms/op and their ratio. The rod side (internal/rodref)
// fills the way toolwright does, so each pair does the same operations.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/toolwright/toolwright/engine/browser"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/run"
	"github.com/toolwright/toolwright/internal/harness"
	"github.com/toolwright/toolwright/internal/rodref"
	"github.com/toolwright/toolwright/internal/testsite"
)

// benchSteps is how many identical steps one measured workflow runs.
const benchSteps = 20

// benchCSS is the primary css of the targets the step benchmarks use
// (examples/demo/selectors.yaml): the rod side queries the same elements.
var benchCSS = map[string]string{
	"acme.catalog.status":     "#status",
	"acme.catalog.search_box": "input[name=q]",
}

// benchWorkflows are the workflows of the step benchmarks: opening a signed-in
// catalog page with results, N identical steps on it, and a call without
// browser work.
func benchWorkflows() map[string]string {
	given := func(name, risk, step string, n int) string {
		return fmt.Sprintf("name: %s\ndescription: benchmark\nrisk: %s\nenv: given\nsteps:\n%s", name, risk, strings.Repeat("  - "+step+"\n", n))
	}
	w := map[string]string{
		"bench_open": `name: bench_open
description: "benchmark: a signed-in catalog page with results, in an environment that stays open"
risk: read
env: new
steps:
  - open_env: {purpose: bench}
  - goto: "${{ config.acme_base }}/setcookie?name=acme_user&value=bench&next=/catalog.html%3Fq%3DACM%26delay%3D0"
  - wait: {visible: acme.catalog.rows}
output:
  env_id: ${{ env.id }}
`,
		"bench_noop": "name: bench_noop\ndescription: benchmark\nrisk: read\nenv: given\nsteps:\n  - set: {x: 1}\n",
	}
	for kind, k := range map[string]struct{ risk, step string }{
		"extract": {"read", "extract: {from: acme.catalog.status, into: s}"},
		"click":   {"write", "click: acme.catalog.search_box"},
		"fill":    {"write", `fill: {target: acme.catalog.search_box, value: "ACM"}`},
	} {
		for _, n := range []int{benchSteps, 2 * benchSteps} {
			name := fmt.Sprintf("bench_%s_%d", kind, n)
			w[name] = given(name, k.risk, k.step, n)
		}
	}
	return w
}

// benchEngine is an engine on real Chromium and SQLite serving the demo
// workflows and the benchmark ones, on the fixture site.
type benchEngine struct {
	site *testsite.Site
	eng  *run.Engine
	bm   *browser.Manager
}

func newBenchEngine(b *testing.B) *benchEngine {
	b.Helper()
	p := harness.Start(b, benchWorkflows(), func(cfg *config.Config) {
		cfg.Policy.AllowedHosts = []string{"127.0.0.1"}
	})
	return &benchEngine{site: p.Site, eng: p.Eng, bm: p.BM}
}

// call runs a tool and fails the benchmark unless it is ok.
func (e *benchEngine) call(b *testing.B, tool string, args any) map[string]any {
	b.Helper()
	raw, _ := json.Marshal(args)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	env, err := e.eng.Call(ctx, run.Request{Tool: tool, Args: raw})
	if err != nil {
		b.Fatal(err)
	}
	if !env.OK {
		b.Fatalf("%s: %s", tool, env.JSON())
	}
	return env.Data
}

// open makes the signed-in catalog environment and returns its id and page.
func (e *benchEngine) open(b *testing.B) (string, *rod.Page) {
	b.Helper()
	id, _ := e.call(b, "bench_open", map[string]any{})["env_id"].(string)
	env, err := e.bm.Get(id)
	if err != nil {
		b.Fatal(err)
	}
	return id, env.Page()
}

// rodStep is the plain rod code of one benchmark step: the same CDP
// operations as the step kind does, without the engine around them. Rod's
// own helpers do much more (el.Click waits for the element to stand still
// over animation frames and checks what is under the point in several
// requests; el.Text resolves the element first), so comparing with them
// measured other work, and made toolwright's "overhead" negative once its
// steps did less: the reference does what the step does.
type rodStep func(p *rod.Page) error

var rodSteps = map[string]rodStep{
	// extract of one text: one function call in the page (the selector
	// engine resolves and reads in one Runtime.callFunctionOn).
	"extract": func(p *rod.Page) error {
		_, err := p.Eval(`(css) => { const el = document.querySelector(css); return el ? el.innerText.trim() : null; }`, benchCSS["acme.catalog.status"])
		return err
	},
	// click: one function call that finds the element, scrolls it into view
	// and checks it is enabled and not covered, returning its centre; then
	// the mouse moves, presses and releases there (selector.Click).
	"click": func(p *rod.Page) error {
		res, err := p.Eval(`(css) => {
			const el = document.querySelector(css);
			el.scrollIntoView({block: 'center', inline: 'center'});
			const r = el.getBoundingClientRect();
			const x = r.left + r.width / 2, y = r.top + r.height / 2;
			const top = document.elementFromPoint(x, y);
			if (el.disabled || !(top === el || el.contains(top))) throw new Error('not clickable');
			return {x, y};
		}`, benchCSS["acme.catalog.search_box"])
		if err != nil {
			return err
		}
		x, y := res.Value.Get("x").Num(), res.Value.Get("y").Num()
		one := 1
		for _, ev := range []proto.InputDispatchMouseEvent{
			{Type: proto.InputDispatchMouseEventTypeMouseMoved, X: x, Y: y},
			{Type: proto.InputDispatchMouseEventTypeMousePressed, X: x, Y: y, Button: proto.InputMouseButtonLeft, Buttons: &one, ClickCount: 1},
			{Type: proto.InputDispatchMouseEventTypeMouseReleased, X: x, Y: y, Button: proto.InputMouseButtonLeft, ClickCount: 1},
		} {
			if err := ev.Call(p); err != nil {
				return err
			}
		}
		return nil
	},
	// fill: value cleared, one insertText, input and change fired
	// (internal/rodref's toolwright fill), not SelectAllText + Input.
	"fill": func(p *rod.Page) error {
		el, err := p.Element(benchCSS["acme.catalog.search_box"])
		if err != nil {
			return err
		}
		return rodref.FillWith(rodref.FillToolwright, el, "ACM")
	},
}

func BenchmarkStepOverhead(b *testing.B) {
	e := newBenchEngine(b)
	id, page := e.open(b)
	for _, kind := range []string{"extract", "click", "fill"} {
		b.Run(kind, func(b *testing.B) {
			n := 0
			args := func() map[string]any {
				n++ // write tools need a task_id; a new one each call runs the call again
				return map[string]any{"env_id": id, "task_id": fmt.Sprintf("bench-%s-%d", kind, n)}
			}
			short, long := fmt.Sprintf("bench_%s_%d", kind, benchSteps), fmt.Sprintf("bench_%s_%d", kind, 2*benchSteps)
			step := rodSteps[kind]
			// Warm both paths up (rod's JS helpers, the engine's statements).
			e.call(b, short, args())
			e.call(b, long, args())
			var tShort, tLong, rd time.Duration
			for b.Loop() {
				a := args()
				start := time.Now()
				e.call(b, short, a)
				tShort += time.Since(start)
				a = args()
				start = time.Now()
				e.call(b, long, a)
				tLong += time.Since(start)
				start = time.Now()
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				p := page.Context(ctx)
				for range benchSteps {
					if err := step(p); err != nil {
						cancel()
						b.Fatal(err)
					}
				}
				cancel()
				rd += time.Since(start)
			}
			reportPerStep(b, tShort, tLong, rd)
		})
	}
}

// reportPerStep reports microseconds per step of each side and their
// ratio, toolwright ÷ rod (1 is parity; it cannot go negative the way a
// difference of two noisy times can). What one call costs besides its steps
// is BenchmarkCallOverhead's to measure.
func reportPerStep(b *testing.B, tShort, tLong, rd time.Duration) {
	n := float64(b.N)
	twUS := float64((tLong - tShort).Microseconds()) / n / benchSteps
	rdUS := float64(rd.Microseconds()) / n / benchSteps
	b.ReportMetric(twUS, "toolwright-us/step")
	b.ReportMetric(rdUS, "rod-us/step")
	if rdUS > 0 && twUS > 0 {
		b.ReportMetric(twUS/rdUS, "toolwright/rod")
	}
}

func BenchmarkCallOverhead(b *testing.B) {
	e := newBenchEngine(b)
	id, _ := e.open(b)
	args := map[string]any{"env_id": id}
	e.call(b, "bench_noop", args)
	var total time.Duration
	for b.Loop() {
		start := time.Now()
		e.call(b, "bench_noop", args)
		total += time.Since(start)
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N), "us/call")
}

func BenchmarkSearchAction(b *testing.B) {
	e := newBenchEngine(b)
	// The rod side gets a browser of its own, launched like the engine's:
	// the engine's connection guards every page of its browser.
	br := launchLikeEngine(b)
	args := map[string]any{"query": "ACM", "max_pages": 3}
	base := e.site.URL("")
	check := func(what string, n int) {
		if n != 15 {
			b.Fatalf("%s read %d rows, want 15", what, n)
		}
	}
	// Warm-up.
	check("toolwright", searchRows(b, e.call(b, "search_catalog", args)))
	rows, err := rodSearch(br, base, harness.User, harness.Password, "ACM", 3)
	if err != nil {
		b.Fatal(err)
	}
	check("rod", len(rows))
	var tw, rd time.Duration
	for b.Loop() {
		start := time.Now()
		check("toolwright", searchRows(b, e.call(b, "search_catalog", args)))
		tw += time.Since(start)
		start = time.Now()
		rows, err := rodSearch(br, base, harness.User, harness.Password, "ACM", 3)
		rd += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		check("rod", len(rows))
	}
	twMS := float64(tw.Microseconds()) / 1000 / float64(b.N)
	rdMS := float64(rd.Microseconds()) / 1000 / float64(b.N)
	b.ReportMetric(twMS, "toolwright-ms/op")
	b.ReportMetric(rdMS, "rod-ms/op")
	b.ReportMetric(twMS/rdMS, "ratio")
}

// launchLikeEngine starts the system Chromium with engine/browser's flags
// (and its own viewport, like the engine's pages), closed when b ends.
func launchLikeEngine(b *testing.B) *rod.Browser {
	b.Helper()
	testsite.NeedChromium(b)
	u, stop, err := rodref.Launch("")
	if err != nil {
		b.Fatal(err)
	}
	br, err := rodref.Connect(u, nil)
	if err != nil {
		stop()
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = br.Close()
		stop()
	})
	return br
}

func searchRows(b *testing.B, data map[string]any) int {
	b.Helper()
	raw, _ := json.Marshal(data["rows"])
	var l struct {
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal(raw, &l); err != nil {
		b.Fatal(err)
	}
	return len(l.Items)
}

// rodSearch is search_catalog written by hand with rod (internal/rodref, as
// examples/bench/rodsearch runs it), filling fields the way toolwright's
// fill step does, in a fresh browser context of br.
func rodSearch(br *rod.Browser, base, user, password, query string, pages int) ([]rodref.Row, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return rodref.Search(ctx, br, rodref.Options{Base: base, User: user, Password: password, Query: query, Pages: pages, Fill: rodref.FillToolwright})
}
