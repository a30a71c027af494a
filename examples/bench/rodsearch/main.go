// Command rodsearch is the hand-written go-rod program the benchmarks hold
// toolwright against: it does exactly the steps of
// examples/demo/workflows/search_catalog.yaml on the Acme demo site — sign in,
// search, read up to N result pages — with plain rod calls, in a fresh
// browser context like toolwright's `env: temporary`, on the system Chromium
// launched with the flags engine/browser uses.
//
//	ACME_USER=... ACME_PASSWORD=... rodsearch -base http://127.0.0.1:PORT [-query ACM] [-pages 3]
//
// It prints {"rows": [...], "count": N} on stdout. With -warm N it launches
// the browser once, runs the search N+1 times (the first is a warm-up) and
// prints {"runs_ms": [...], "rows": [...], "count": N} instead.
//
// Waiting: by default (-sleeper toolwright) rod re-checks a missing element
// every 100 ms and the page change after Next every 50 ms, the intervals
// toolwright's selector engine and paginate use, so the comparison shows the
// engine's own overhead. -sleeper rod keeps rod's default backoff (200 ms,
// 400 ms, 800 ms, then 1 s), which is what rod code gets without tuning.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/toolwright/toolwright/examples/bench/internal/procstat"
	"os"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/input"
	"github.com/go-rod/rod/lib/launcher"
	"github.com/go-rod/rod/lib/proto"
	"github.com/go-rod/rod/lib/utils"
)

// Selectors: the primary css of examples/demo/selectors.yaml.
const (
	cssEmail     = "#login-form input[name=email]"
	cssPassword  = "#login-form input[name=password]"
	cssSubmit    = "#login-form button[type=submit]"
	cssSearchBox = "input[name=q]"
	cssRows      = "#results tbody tr"
	cssNext      = "#next-page"
)

// verbose prints each step's time on stderr.
var verbose = os.Getenv("RODSEARCH_VERBOSE") != ""

// elementPoll and changePoll make the sleepers of element waits and of the
// wait for the next result page.
var elementPoll, changePoll func() utils.Sleeper

// constant re-checks every d.
func constant(d time.Duration) func() utils.Sleeper {
	return func() utils.Sleeper { return utils.BackoffSleeper(d, d, nil) }
}

// stepTimeout is toolwright's default step timeout.
const stepTimeout = 10 * time.Second

// Row is one catalog row.
type Row struct {
	SKU   string `json:"sku"`
	Name  string `json:"name"`
	Price string `json:"price"`
}

func main() {
	base := flag.String("base", "", "the Acme site's base URL, e.g. http://127.0.0.1:8000")
	query := flag.String("query", "", "search words")
	pages := flag.Int("pages", 3, "result pages to read")
	warm := flag.Int("warm", 0, "launch once, then time this many searches on the warm browser")
	bin := flag.String("bin", "", "Chromium binary (default: looked up on PATH like toolwright does)")
	sleeper := flag.String("sleeper", "toolwright", "how waits re-check: toolwright (100 ms, 50 ms for the page change) or rod (rod's default backoff)")
	flag.Parse()
	switch *sleeper {
	case "toolwright":
		elementPoll, changePoll = constant(100*time.Millisecond), constant(50*time.Millisecond)
	case "rod":
		elementPoll, changePoll = rod.DefaultSleeper, rod.DefaultSleeper
	default:
		fmt.Fprintln(os.Stderr, "rodsearch: -sleeper is toolwright or rod")
		os.Exit(2)
	}
	user, password := os.Getenv("ACME_USER"), os.Getenv("ACME_PASSWORD")
	if *base == "" || user == "" || password == "" {
		fmt.Fprintln(os.Stderr, "rodsearch: need -base and the ACME_USER and ACME_PASSWORD environment variables")
		os.Exit(2)
	}
	if err := run(*bin, *base, user, password, *query, *pages, *warm); err != nil {
		fmt.Fprintln(os.Stderr, "rodsearch:", err)
		os.Exit(1)
	}
}

func run(bin, base, user, password, query string, pages, warm int) error {
	b, stop, err := launch(bin)
	if err != nil {
		return err
	}
	defer stop()
	ctx := context.Background()
	if warm <= 0 {
		rows, err := search(ctx, b, base, user, password, query, pages)
		if err != nil {
			return err
		}
		return json.NewEncoder(os.Stdout).Encode(map[string]any{"rows": rows, "count": len(rows)})
	}
	var rows []Row
	var runs []float64
	var cpu0 time.Duration
	for i := 0; i <= warm; i++ {
		if i == 1 {
			cpu0 = procstat.TreeCPU(os.Getpid())
		}
		start := time.Now()
		rows, err = search(ctx, b, base, user, password, query, pages)
		if err != nil {
			return err
		}
		if i > 0 { // run 0 is the warm-up
			runs = append(runs, float64(time.Since(start).Microseconds())/1000)
		}
	}
	cpu := procstat.TreeCPU(os.Getpid()) - cpu0
	return json.NewEncoder(os.Stdout).Encode(map[string]any{"runs_ms": runs, "rows": rows, "count": len(rows),
		"tree_cpu_ms_per_run": float64(cpu.Microseconds()) / 1000 / float64(warm)})
}

// launch starts the system Chromium with engine/browser's flags (never a
// downloaded one) and connects to it.
func launch(bin string) (*rod.Browser, func(), error) {
	if bin == "" {
		found, ok := launcher.LookPath()
		if !ok {
			return nil, nil, errors.New("no Chromium on PATH")
		}
		bin = found
	}
	dir, err := os.MkdirTemp("", "rodsearch-chromium-")
	if err != nil {
		return nil, nil, err
	}
	l := launcher.New().
		Bin(bin).
		Leakless(false).
		Headless(true).
		UserDataDir(dir).
		Set("disable-gpu").
		Set("disable-background-networking").
		Set("disable-component-update").
		Set("no-first-run").
		Set("disable-sync").
		Set("disable-quic")
	if os.Geteuid() == 0 {
		l = l.NoSandbox(true)
	}
	u, err := l.Launch()
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, fmt.Errorf("launch %s: %w", bin, err)
	}
	// Like toolwright: Chromium's own viewport and user agent.
	b := rod.New().ControlURL(u).NoDefaultDevice()
	if err := b.Connect(); err != nil {
		l.Kill()
		os.RemoveAll(dir)
		return nil, nil, err
	}
	stop := func() {
		_ = b.Close()
		l.Cleanup() // waits for the process to exit, removes the profile
	}
	return b, stop, nil
}

// search signs in, searches and reads up to pages result pages in a fresh
// browser context, closed afterwards.
func search(ctx context.Context, b *rod.Browser, base, user, password, query string, pages int) ([]Row, error) {
	inc, err := b.Incognito()
	if err != nil {
		return nil, err
	}
	defer func() { _ = proto.TargetDisposeBrowserContext{BrowserContextID: inc.BrowserContextID}.Call(b) }()
	page, err := inc.Page(proto.TargetCreateTarget{})
	if err != nil {
		return nil, err
	}
	last := time.Now()
	step := func() (*rod.Page, context.CancelFunc) {
		if verbose {
			fmt.Fprintf(os.Stderr, "%6.1fms ", float64(time.Since(last).Microseconds())/1000)
			last = time.Now()
		}
		c, cancel := context.WithTimeout(ctx, stepTimeout)
		return page.Context(c).Sleeper(elementPoll), cancel
	}
	if verbose {
		defer func() { fmt.Fprintf(os.Stderr, "%6.1fms\n", float64(time.Since(last).Microseconds())/1000) }()
	}

	// goto login.html (wait for load)
	p, cancel := step()
	wait := p.WaitNavigation(proto.PageLifecycleEventNameLoad)
	if err := p.Navigate(base + "/login.html"); err != nil {
		cancel()
		return nil, err
	}
	wait()
	cancel()
	// fill email, fill password
	if err := fill(step, cssEmail, user); err != nil {
		return nil, err
	}
	if err := fill(step, cssPassword, password); err != nil {
		return nil, err
	}
	// click submit, which goes to catalog.html
	p, cancel = step()
	el, err := p.Element(cssSubmit)
	if err == nil {
		wait := p.WaitNavigation(proto.PageLifecycleEventNameLoad)
		if err = el.Click(proto.InputMouseButtonLeft, 1); err == nil {
			wait()
		}
	}
	cancel()
	if err != nil {
		return nil, fmt.Errorf("sign in: %w", err)
	}
	// wait for the search box, fill it, press Enter
	p, cancel = step()
	el, err = p.Element(cssSearchBox)
	if err == nil {
		err = el.WaitVisible()
	}
	cancel()
	if err != nil {
		return nil, fmt.Errorf("search box: %w", err)
	}
	if err := fill(step, cssSearchBox, query); err != nil {
		return nil, err
	}
	p, cancel = step()
	err = p.Keyboard.Type(input.Enter)
	cancel()
	if err != nil {
		return nil, err
	}
	// paginate
	var rows []Row
	for n := 1; ; n++ {
		p, cancel = step()
		got, err := readPage(p)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("page %d: %w", n, err)
		}
		rows = append(rows, got...)
		if n >= pages {
			return rows, nil
		}
		p, cancel = step()
		more, err := nextPage(p, got[0].SKU)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("next page after %d: %w", n, err)
		}
		if !more {
			return rows, nil
		}
	}
}

// fill clears a field and types value into it.
func fill(step func() (*rod.Page, context.CancelFunc), css, value string) error {
	p, cancel := step()
	defer cancel()
	el, err := p.Element(css)
	if err != nil {
		return fmt.Errorf("%s: %w", css, err)
	}
	if err := el.SelectAllText(); err != nil {
		return err
	}
	if value == "" {
		_, err := el.Eval(`function () { this.value = ''; this.dispatchEvent(new Event('input', {bubbles: true})); }`)
		return err
	}
	return el.Input(value)
}

// readPage waits for the result rows and reads sku, name and price of each.
func readPage(p *rod.Page) ([]Row, error) {
	first, err := p.Element(cssRows)
	if err != nil {
		return nil, err
	}
	if err := first.WaitVisible(); err != nil {
		return nil, err
	}
	els, err := p.Elements(cssRows)
	if err != nil {
		return nil, err
	}
	rows := make([]Row, 0, len(els))
	for _, tr := range els {
		var r Row
		for _, f := range []struct {
			css string
			to  *string
		}{{"td.sku", &r.SKU}, {"td.name", &r.Name}, {"td.price", &r.Price}} {
			td, err := tr.Element(f.css)
			if err != nil {
				return nil, err
			}
			if *f.to, err = td.Text(); err != nil {
				return nil, err
			}
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// nextPage clicks Next when it is there and enabled, then waits until the
// first row is another product (the URL does not change). It reports false
// when there is no next page.
func nextPage(p *rod.Page, firstSKU string) (bool, error) {
	has, next, err := p.Has(cssNext)
	if err != nil || !has {
		return false, err
	}
	disabled, err := next.Property("disabled")
	if err != nil || disabled.Bool() {
		return false, err
	}
	if err := next.Click(proto.InputMouseButtonLeft, 1); err != nil {
		return false, err
	}
	err = p.Sleeper(changePoll).Wait(rod.Eval(`(sku) => {
		const td = document.querySelector('#results tbody tr td.sku');
		return !!td && td.textContent !== sku;
	}`, firstSKU))
	return err == nil, err
}
