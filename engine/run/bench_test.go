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
// after the last acting step) is not in it; it is reported as toolwright-us/call.
// Per step: toolwright-us/step, rod-us/step and overhead-us/step (their
// difference). BenchmarkCallOverhead is the fixed
// cost of one call that does no browser work (a set step): binding and
// checking arguments, the environment hold, trace, audit. BenchmarkSearchAction
// is the whole search_catalog action (sign in, search, read 3 pages) through
// engine.Call against a hand-written rod version of it, each in a fresh
// browser context of the same browser, alternating; it reports
// toolwright-ms/op, rod-ms/op and their ratio.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/input"
	"github.com/go-rod/rod/lib/launcher"
	"github.com/go-rod/rod/lib/proto"
	"github.com/go-rod/rod/lib/utils"
	"github.com/toolwright/toolwright/engine/browser"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/run"
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
	p := startEngine(b, benchWorkflows(), func(cfg *config.Config) {
		cfg.Policy.AllowedHosts = []string{"127.0.0.1"}
	})
	return &benchEngine{site: p.site, eng: p.eng, bm: p.bm}
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

// rodStep is the plain rod code of one benchmark step.
type rodStep func(p *rod.Page) error

var rodSteps = map[string]rodStep{
	"extract": func(p *rod.Page) error {
		el, err := p.Element(benchCSS["acme.catalog.status"])
		if err != nil {
			return err
		}
		_, err = el.Text()
		return err
	},
	"click": func(p *rod.Page) error {
		el, err := p.Element(benchCSS["acme.catalog.search_box"])
		if err != nil {
			return err
		}
		return el.Click(proto.InputMouseButtonLeft, 1)
	},
	"fill": func(p *rod.Page) error {
		el, err := p.Element(benchCSS["acme.catalog.search_box"])
		if err != nil {
			return err
		}
		if err := el.SelectAllText(); err != nil {
			return err
		}
		return el.Input("ACM")
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

// reportPerStep reports microseconds per step of each side, their
// difference, and the engine's fixed cost per call.
func reportPerStep(b *testing.B, tShort, tLong, rd time.Duration) {
	n := float64(b.N)
	twUS := float64((tLong - tShort).Microseconds()) / n / benchSteps
	rdUS := float64(rd.Microseconds()) / n / benchSteps
	b.ReportMetric(twUS, "toolwright-us/step")
	b.ReportMetric(rdUS, "rod-us/step")
	b.ReportMetric(twUS-rdUS, "overhead-us/step")
	b.ReportMetric(float64(tShort.Microseconds())/n-twUS*benchSteps, "toolwright-us/call")
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
	rows, err := rodSearch(br, base, testUser, testPassword, "ACM", 3)
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
		rows, err := rodSearch(br, base, testUser, testPassword, "ACM", 3)
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

// every makes rod sleepers that re-check every d.
func every(d time.Duration) func() utils.Sleeper {
	return func() utils.Sleeper { return utils.BackoffSleeper(d, d, nil) }
}

// launchLikeEngine starts the system Chromium with engine/browser's flags
// (and its own viewport, like the engine's pages), closed when b ends.
func launchLikeEngine(b *testing.B) *rod.Browser {
	b.Helper()
	bin, ok := launcher.LookPath()
	if !ok {
		b.Skip("no Chromium installed")
	}
	l := launcher.New().Bin(bin).Leakless(false).Headless(true).UserDataDir(b.TempDir()).
		Set("disable-gpu").Set("disable-background-networking").Set("disable-component-update").
		Set("no-first-run").Set("disable-sync").Set("disable-quic")
	if os.Geteuid() == 0 {
		l = l.NoSandbox(true)
	}
	u, err := l.Launch()
	if err != nil {
		b.Fatal(err)
	}
	br := rod.New().ControlURL(u).NoDefaultDevice()
	if err := br.Connect(); err != nil {
		l.Kill()
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = br.Close()
		l.Cleanup()
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

// rodSearch is search_catalog written by hand with rod (the same steps as
// examples/bench/rodsearch), in a fresh browser context of br.
func rodSearch(br *rod.Browser, base, user, password, query string, pages int) ([][3]string, error) {
	inc, err := br.Incognito()
	if err != nil {
		return nil, err
	}
	defer func() { _ = proto.TargetDisposeBrowserContext{BrowserContextID: inc.BrowserContextID}.Call(br) }()
	page, err := inc.Page(proto.TargetCreateTarget{})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// Re-check missing elements every 100 ms and the page change every 50 ms,
	// as toolwright's selector engine and paginate do (rod's default backs off
	// to 200, 400, 800 ms), so that the difference is the engine's overhead.
	p := page.Context(ctx).Sleeper(every(100 * time.Millisecond))
	wait := p.WaitNavigation(proto.PageLifecycleEventNameLoad)
	if err := p.Navigate(base + "/login.html"); err != nil {
		return nil, err
	}
	wait()
	fill := func(css, value string) error {
		el, err := p.Element(css)
		if err != nil {
			return err
		}
		if err := el.SelectAllText(); err != nil {
			return err
		}
		return el.Input(value)
	}
	if err := fill("#login-form input[name=email]", user); err != nil {
		return nil, err
	}
	if err := fill("#login-form input[name=password]", password); err != nil {
		return nil, err
	}
	el, err := p.Element("#login-form button[type=submit]")
	if err != nil {
		return nil, err
	}
	wait = p.WaitNavigation(proto.PageLifecycleEventNameLoad)
	if err := el.Click(proto.InputMouseButtonLeft, 1); err != nil {
		return nil, err
	}
	wait()
	if el, err = p.Element("input[name=q]"); err != nil {
		return nil, err
	}
	if err := el.WaitVisible(); err != nil {
		return nil, err
	}
	if err := fill("input[name=q]", query); err != nil {
		return nil, err
	}
	if err := p.Keyboard.Type(input.Enter); err != nil {
		return nil, err
	}
	var rows [][3]string
	for n := 1; ; n++ {
		first, err := p.Element("#results tbody tr")
		if err != nil {
			return nil, err
		}
		if err := first.WaitVisible(); err != nil {
			return nil, err
		}
		trs, err := p.Elements("#results tbody tr")
		if err != nil {
			return nil, err
		}
		for _, tr := range trs {
			var r [3]string
			for i, css := range []string{"td.sku", "td.name", "td.price"} {
				td, err := tr.Element(css)
				if err != nil {
					return nil, err
				}
				if r[i], err = td.Text(); err != nil {
					return nil, err
				}
			}
			rows = append(rows, r)
		}
		if n >= pages {
			return rows, nil
		}
		has, next, err := p.Has("#next-page")
		if err != nil || !has {
			return rows, err
		}
		if off, err := next.Property("disabled"); err != nil || off.Bool() {
			return rows, err
		}
		firstSKU := rows[len(rows)-len(trs)][0]
		if err := next.Click(proto.InputMouseButtonLeft, 1); err != nil {
			return nil, err
		}
		if err := p.Sleeper(every(50 * time.Millisecond)).Wait(rod.Eval(`(sku) => {
			const td = document.querySelector('#results tbody tr td.sku');
			return !!td && td.textContent !== sku;
		}`, firstSKU)); err != nil {
			return nil, err
		}
	}
}
