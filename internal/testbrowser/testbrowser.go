// Package testbrowser lets the browser managers of a test package open
// their environments in the one Chromium the package's tests share
// (testsite.Browser), instead of each launching its own: a new environment
// is then a new browser context in a running browser (milliseconds), not a
// new Chromium process (seconds, and hundreds of megabytes, on a loaded
// machine).
//
//	bo, _ := app.BrowserOptions(cfg, nil)
//	bm, _ := browser.NewManager(testbrowser.Options(t, bo))
//
// It registers a test-only provider, Provider, that each manager reaches
// the shared browser through with a DevTools connection of its own, dialled
// by the manager's Dialer: the manager's rules (allowed hosts, held
// subresources, popups, dialogs, proxies per browser context, downloads per
// browser context, the viewport) apply exactly as on the local provider's
// browser, and as there its browser contexts are disposed of with its
// connection (the manager closes it on Shutdown; a test binary that dies
// takes the browser with it). The guard of each connection resumes and
// leaves alone the pages of browser contexts it did not make, as it does
// for the other clients of a cdp endpoint. So a new page (a popup) may run
// before its own manager's guard has set its rules, when another manager's
// guard resumed it first: a test that a popup meets the allowed hosts
// calls OwnBrowser.
//
// A test that needs a browser of its own (it launches, kills or crashes
// the browser, counts its processes, or tests a provider) calls OwnBrowser
// first; Options leaves a manager on any other provider, or with a
// browser.bin, as it is.
package testbrowser

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/toolwright/toolwright/engine/browser"
	"github.com/toolwright/toolwright/engine/browser/provider"
	_ "github.com/toolwright/toolwright/engine/browser/provider/all" // a test's managers open browsers on any provider, as the server's do
	"github.com/toolwright/toolwright/engine/browser/provider/local"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/internal/testsite"
)

// Provider is the test-only provider's name (browser.provider): it
// connects to the DevTools WebSocket URL of its one endpoint, a browser it
// did not start and never closes.
const Provider = "testsite-shared"

func init() {
	provider.Register(provider.Spec{Name: Provider, Unlisted: true, Check: check, New: newProvider})
}

func check(o provider.Options) error {
	if len(o.Endpoints) != 1 || !strings.HasPrefix(o.Endpoints[0], "ws://") {
		return fmt.Errorf("browser.provider %s needs the shared browser's ws:// DevTools URL as its one endpoint", Provider)
	}
	return nil
}

func newProvider(o provider.Options, d provider.Dialer) provider.Provider {
	return &shared{ws: o.Endpoints[0], dialer: d}
}

// shared hands a manager one connection to the shared browser, dialled
// again if it is lost. It declares no capability: it starts no browser
// (Manager.Start has nothing to do; the first Open connects, in
// milliseconds), keeps no sessions, and its environments live and die
// with the manager's connection, as the local provider's do with its
// browser.
type shared struct {
	ws     string
	dialer provider.Dialer

	mu     sync.Mutex
	conn   provider.Conn
	closed bool
}

func (p *shared) Name() string { return Provider }

func (p *shared) Browser(ctx context.Context) (provider.Conn, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, provider.ErrClosed
	}
	if p.conn != nil && p.conn.Err() == nil {
		return p.conn, nil
	}
	if p.conn != nil {
		p.conn.Close()
		p.conn = nil
	}
	c, err := p.dialer.Dial(ctx, p.ws, 0, nil)
	if err != nil {
		return nil, err
	}
	p.conn = c
	return c, nil
}

// Close closes the connection: Chromium disposes of the browser contexts
// it made (they are DisposeOnDetach), and the browser runs on for the
// other tests.
func (p *shared) Close(context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	if p.conn != nil {
		p.conn.Close()
		p.conn = nil
	}
	return nil
}

var own sync.Map // test name → true: OwnBrowser

// OwnBrowser makes the managers that t and its subtests make through
// Options or Config launch a browser of their own (the local provider):
// for a test that launches, kills or crashes its browser, counts its
// processes, or would hurt the other tests' pages (a flood of popups, a
// page that eats memory).
func OwnBrowser(t testing.TB) {
	own.Store(t.Name(), true)
}

// owns reports whether t or a test it runs under called OwnBrowser.
func owns(t testing.TB) bool {
	name := t.Name()
	for {
		if _, ok := own.Load(name); ok {
			return true
		}
		i := strings.LastIndexByte(name, '/')
		if i < 0 {
			return false
		}
		name = name[:i]
	}
}

// shares reports whether a manager on provider with bin and headless can
// use the shared browser: it would launch the system Chromium headless on
// this machine, which is what the shared browser is.
func shares(t testing.TB, name, bin string, headless bool) bool {
	local := name == "" || name == local.Name
	return local && bin == "" && headless && !owns(t)
}

// Options is o with the shared browser as its provider when o would launch
// the system Chromium headless here (the default provider, no
// browser.bin) and t did not call OwnBrowser; otherwise o as it is. It
// launches the shared browser on first use and skips t when no Chromium is
// installed.
func Options(t testing.TB, o browser.Options) browser.Options {
	t.Helper()
	if !shares(t, o.Provider, o.Bin, o.Headless) {
		return o
	}
	o.Provider, o.Endpoints = Provider, []string{testsite.BrowserURL(t)}
	return o
}

// Config points cfg's browser at the shared browser under the same
// conditions, for harnesses that build their managers from a config
// (app.New).
func Config(t testing.TB, cfg *config.Config) {
	t.Helper()
	if !shares(t, cfg.Browser.Provider, cfg.Browser.Bin, cfg.Browser.Headless) {
		return
	}
	cfg.Browser.Provider, cfg.Browser.Endpoints = Provider, []string{testsite.BrowserURL(t)}
}
