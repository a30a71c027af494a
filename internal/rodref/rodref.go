// Package rodref is the hand-written go-rod reference that toolwright's
// benchmarks hold the engine against (examples/bench/rodsearch and the Go
// benchmarks of engine/run): the search_catalog action of the Acme demo site
// (sign in, search, read N result pages) written with plain rod calls, on
// the system Chromium launched with engine/browser's flags.
//
// A baseline must do the same operations as what it is compared with, or
// say where it differs. Filling a field is where rod code and toolwright
// differ most, so the reference fills either way, by name:
//
//   - FillToolwright does what toolwright's fill step does: set the field's
//     value to "" and focus it (one evaluate), insert the text in one
//     Input.insertText (as an IME would), then fire input and change (one
//     evaluate). No wait for the field to stand still.
//   - FillRod is what rod code gets by default: el.SelectAllText then
//     el.Input, which scrolls the field into view after waiting until it
//     kept its shape over two animation frames, focuses it and inserts the
//     text.
//
// Benchmark code only: it uses rod's error-returning API like the engine,
// but it is not part of toolwright.
package rodref

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/input"
	"github.com/go-rod/rod/lib/proto"
	"github.com/go-rod/rod/lib/utils"

	"github.com/toolwright/toolwright/engine/browser/chromium"
)

// Selectors: the primary css of examples/demo/selectors.yaml.
const (
	CSSEmail     = "#login-form input[name=email]"
	CSSPassword  = "#login-form input[name=password]"
	CSSSubmit    = "#login-form button[type=submit]"
	CSSSearchBox = "input[name=q]"
	CSSRows      = "#results tbody tr"
	CSSNext      = "#next-page"
)

// StepTimeout is toolwright's default step timeout.
const StepTimeout = 10 * time.Second

// Row is one catalog row.
type Row struct {
	SKU   string `json:"sku"`
	Name  string `json:"name"`
	Price string `json:"price"`
}

// Fill names a way of filling a field.
type Fill string

// The two ways of filling (see the package comment).
const (
	FillToolwright Fill = "toolwright"
	FillRod        Fill = "rod"
)

// FillWith fills el with value the way f names.
func FillWith(f Fill, el *rod.Element, value string) error {
	switch f {
	case FillToolwright:
		return fillToolwright(el, value)
	case FillRod:
		return fillRod(el, value)
	}
	return fmt.Errorf("unknown fill %q (toolwright or rod)", f)
}

// fillToolwright clears and focuses the field, inserts the text, fires
// input and change: toolwright's fill step.
func fillToolwright(el *rod.Element, value string) error {
	if _, err := el.Eval(`function () {
		this.scrollIntoViewIfNeeded ? this.scrollIntoViewIfNeeded() : this.scrollIntoView({block: 'center'});
		this.focus();
		this.value = '';
	}`); err != nil {
		return err
	}
	events := `function () { this.dispatchEvent(new Event('change', {bubbles: true})); }`
	if value != "" {
		if err := (proto.InputInsertText{Text: value}).Call(el.Page()); err != nil {
			return err
		}
		events = `function () {
			this.dispatchEvent(new Event('input', {bubbles: true}));
			this.dispatchEvent(new Event('change', {bubbles: true}));
		}`
	}
	_, err := el.Eval(events)
	return err
}

// fillRod is idiomatic rod: select the text, type over it.
func fillRod(el *rod.Element, value string) error {
	if err := el.SelectAllText(); err != nil {
		return err
	}
	if value == "" {
		_, err := el.Eval(`function () { this.value = ''; this.dispatchEvent(new Event('input', {bubbles: true})); }`)
		return err
	}
	return el.Input(value)
}

// Every makes rod sleepers that re-check every d (rod's default backs off
// 200, 400, 800 ms, then 1 s).
func Every(d time.Duration) func() utils.Sleeper {
	return func() utils.Sleeper { return utils.BackoffSleeper(d, d, nil) }
}

// Launch starts the system Chromium (bin, or the one the engine's local
// provider picks; never a downloaded one) with the engine's command line
// (package chromium) and returns its DevTools URL
// and a stop function that kills it and removes its profile.
func Launch(bin string) (string, func(), error) {
	bin, err := chromium.Find(bin, true)
	if err != nil {
		return "", nil, err
	}
	dir, err := os.MkdirTemp("", "rodref-chromium-")
	if err != nil {
		return "", nil, err
	}
	l := chromium.Launcher(context.Background(), bin, dir, true).Leakless(false)
	u, err := l.Launch()
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("launch %s: %w", bin, err)
	}
	return u, func() { l.Kill(); l.Cleanup() }, nil
}

// Counter counts the CDP requests a connection sends, by method.
type Counter struct {
	mu       sync.Mutex
	total    int
	byMethod map[string]int
}

// Reset forgets the counts so far.
func (c *Counter) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total, c.byMethod = 0, map[string]int{}
}

// Total is the number of requests since the last Reset.
func (c *Counter) Total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// ByMethod is the number of requests of each method since the last Reset.
func (c *Counter) ByMethod() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.byMethod))
	for k, v := range c.byMethod {
		out[k] = v
	}
	return out
}

type countingClient struct {
	*cdp.Client
	n *Counter
}

func (c countingClient) Call(ctx context.Context, sessionID, method string, params any) ([]byte, error) {
	c.n.mu.Lock()
	c.n.total++
	if c.n.byMethod == nil {
		c.n.byMethod = map[string]int{}
	}
	c.n.byMethod[method]++
	c.n.mu.Unlock()
	return c.Client.Call(ctx, sessionID, method, params)
}

// Connect attaches to the browser at u (Chromium's own viewport and user
// agent, like toolwright), counting its requests in n when n is not nil.
func Connect(u string, n *Counter) (*rod.Browser, error) {
	b := rod.New().ControlURL(u).NoDefaultDevice()
	if n != nil {
		ws := &cdp.WebSocket{}
		if err := ws.Connect(context.Background(), u, nil); err != nil {
			return nil, err
		}
		b = rod.New().Client(countingClient{cdp.New().Start(ws), n}).NoDefaultDevice()
	}
	if err := b.Connect(); err != nil {
		return nil, err
	}
	return b, nil
}

// Start launches the system Chromium (Launch) and connects to it (Connect,
// counting in n when n is not nil); stop closes both.
func Start(bin string, n *Counter) (b *rod.Browser, stop func(), err error) {
	u, kill, err := Launch(bin)
	if err != nil {
		return nil, nil, err
	}
	if b, err = Connect(u, n); err != nil {
		kill()
		return nil, nil, err
	}
	return b, func() { _ = b.Close(); kill() }, nil
}

// Options of one Search.
type Options struct {
	Base, User, Password, Query string
	Pages                       int
	Fill                        Fill
	// ElementPoll and ChangePoll re-check a missing element and the page
	// change after Next; nil: every 100 ms and every 50 ms, the intervals
	// toolwright's selector engine and paginate use.
	ElementPoll, ChangePoll func() utils.Sleeper
	// Page, when set, is used as it is (an environment kept across calls,
	// like env: given); otherwise Search runs in a fresh browser context,
	// disposed afterwards (like env: temporary).
	Page *rod.Page
	// Step, when set, is called before each step with its name (timing).
	Step func(name string)
}

// Search signs in, searches and reads up to o.Pages result pages: the steps
// of examples/demo/workflows/search_catalog.yaml.
func Search(ctx context.Context, b *rod.Browser, o Options) ([]Row, error) {
	o.defaults()
	page := o.Page
	if page == nil {
		o.Step("open a browser context and its page")
		inc, err := b.Incognito()
		if err != nil {
			return nil, err
		}
		defer func() { _ = proto.TargetDisposeBrowserContext{BrowserContextID: inc.BrowserContextID}.Call(b) }()
		if page, err = inc.Page(proto.TargetCreateTarget{}); err != nil {
			return nil, err
		}
	}
	s := &searcher{ctx: ctx, o: o, page: page}
	if err := s.signIn(); err != nil {
		return nil, err
	}
	if err := s.search(); err != nil {
		return nil, err
	}
	return s.paginate()
}

// defaults fills the options left out.
func (o *Options) defaults() {
	if o.ElementPoll == nil {
		o.ElementPoll = Every(100 * time.Millisecond)
	}
	if o.ChangePoll == nil {
		o.ChangePoll = Every(50 * time.Millisecond)
	}
	if o.Step == nil {
		o.Step = func(string) {}
	}
	if o.Fill == "" {
		o.Fill = FillToolwright
	}
}

// searcher runs Search's steps on one page.
type searcher struct {
	ctx  context.Context
	o    Options
	page *rod.Page
}

// step starts a named step: the page bound to a StepTimeout context.
func (s *searcher) step(name string) (*rod.Page, context.CancelFunc) {
	s.o.Step(name)
	c, cancel := context.WithTimeout(s.ctx, StepTimeout)
	return s.page.Context(c).Sleeper(s.o.ElementPoll), cancel
}

func (s *searcher) fill(css, value string) error {
	p, cancel := s.step("fill " + css)
	defer cancel()
	el, err := p.Element(css)
	if err != nil {
		return fmt.Errorf("%s: %w", css, err)
	}
	return FillWith(s.o.Fill, el, value)
}

// signIn opens login.html, fills the form and clicks submit, which goes
// to catalog.html.
func (s *searcher) signIn() error {
	p, cancel := s.step("goto login.html")
	wait := p.WaitNavigation(proto.PageLifecycleEventNameLoad)
	if err := p.Navigate(s.o.Base + "/login.html"); err != nil {
		cancel()
		return err
	}
	wait()
	cancel()
	if err := s.fill(CSSEmail, s.o.User); err != nil {
		return err
	}
	if err := s.fill(CSSPassword, s.o.Password); err != nil {
		return err
	}
	p, cancel = s.step("click sign in")
	el, err := p.Element(CSSSubmit)
	if err == nil {
		wait := p.WaitNavigation(proto.PageLifecycleEventNameLoad)
		if err = el.Click(proto.InputMouseButtonLeft, 1); err == nil {
			wait()
		}
	}
	cancel()
	if err != nil {
		return fmt.Errorf("sign in: %w", err)
	}
	return nil
}

// search waits for the search box, fills it and presses Enter.
func (s *searcher) search() error {
	p, cancel := s.step("wait for the search box")
	el, err := p.Element(CSSSearchBox)
	if err == nil {
		err = el.WaitVisible()
	}
	cancel()
	if err != nil {
		return fmt.Errorf("search box: %w", err)
	}
	if err := s.fill(CSSSearchBox, s.o.Query); err != nil {
		return err
	}
	p, cancel = s.step("press Enter")
	err = p.Keyboard.Type(input.Enter)
	cancel()
	return err
}

// paginate reads up to o.Pages result pages.
func (s *searcher) paginate() ([]Row, error) {
	var rows []Row
	for n := 1; ; n++ {
		p, cancel := s.step(fmt.Sprintf("read page %d", n))
		got, err := readPage(p)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("page %d: %w", n, err)
		}
		rows = append(rows, got...)
		if n >= s.o.Pages {
			return rows, nil
		}
		p, cancel = s.step(fmt.Sprintf("next page after %d", n))
		more, err := nextPage(p, s.o.ChangePoll, got[0].SKU)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("next page after %d: %w", n, err)
		}
		if !more {
			return rows, nil
		}
	}
}

// readPage waits for the result rows and reads sku, name and price of each.
func readPage(p *rod.Page) ([]Row, error) {
	first, err := p.Element(CSSRows)
	if err != nil {
		return nil, err
	}
	if err := first.WaitVisible(); err != nil {
		return nil, err
	}
	els, err := p.Elements(CSSRows)
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
func nextPage(p *rod.Page, poll func() utils.Sleeper, firstSKU string) (bool, error) {
	has, next, err := p.Has(CSSNext)
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
	err = p.Sleeper(poll).Wait(rod.Eval(`(sku) => {
		const td = document.querySelector('#results tbody tr td.sku');
		return !!td && td.textContent !== sku;
	}`, firstSKU))
	return err == nil, err
}
