// Package providertest is the contract every browser provider passes,
// whatever it declares: an environment opens and navigates a real page,
// the allowed hosts hold in its browser (popups included), Release keeps or
// ends it as it should and Close leaves nothing in the browser, and each
// capability (Starter, SessionKeeper, Attacher) is honoured where it is
// declared and absent where it is not. A renderer crash closes only its
// environment; a browser that goes away behind the manager's back fails
// its environments at once and never hangs the next Open.
//
// RunRegistered runs it over the provider registry: every registered
// provider, on the fixture its kind of endpoint needs (a Chromium started
// with --remote-debugging-port for DevTools endpoints, Debian's
// chromedriver for WebDriver ones, nothing for a provider that starts its
// own). engine/browser/provider/all's TestContract calls it, so a new
// provider is tested by being registered. It is test support, apart from
// the engine (it starts browsers and drivers through internal/testsite).
package providertest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/proto"

	"github.com/toolwright/toolwright/engine/browser"
	"github.com/toolwright/toolwright/engine/browser/provider"
	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/internal/testsite"
)

// Target is one provider under test.
type Target struct {
	// Options are a Manager's options on the provider (Provider,
	// Endpoints, Bin, StateDir). The suite asks for them for the manager
	// most cases share, and again for each case that needs a manager of
	// its own (Start, Reattach, once for both replicas, and BrowserGone,
	// which runs last and closes the browser it is given from outside).
	// The suite sets Headless, AllowURL, Registry and Replica.
	Options func(t *testing.T) browser.Options
	// Registry is a fresh shared environment registry (the store's), for
	// the replica cases; the suite gives it to every provider, as app does.
	Registry func(t *testing.T) browser.Registry
}

// wait is the ceiling of every wait in the suite: generous, so a loaded
// machine never fails it; conditions end the waits early.
const wait = 60 * time.Second

// RunRegistered runs the contract on every registered provider
// (provider.Names), in parallel, each on browsers of its own; registry
// makes the shared environment registry of the replica cases.
func RunRegistered(t *testing.T, registry func(t *testing.T) browser.Registry) {
	for _, name := range provider.Names() {
		spec, err := provider.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			Run(t, Target{Registry: registry, Options: Fixture(t, spec)})
		})
	}
}

// Fixture is what a provider of spec's kind is tested on, started for t
// and ended with it: a DevTools endpoint (one Chromium for the whole
// contract), a WebDriver endpoint (chromedriver), or, for a provider that
// starts its own browsers, a fresh state dir per manager. It skips t when
// Chromium (or chromedriver) is not installed.
func Fixture(t *testing.T, spec provider.Spec) func(t *testing.T) browser.Options {
	t.Helper()
	var eps []string
	switch spec.Endpoints {
	case provider.DevTools:
		ep, _ := testsite.RemoteChromium(t)
		eps = []string{ep}
	case provider.WebDriver:
		eps = []string{testsite.ChromeDriver(t)}
	case provider.NoEndpoints:
		return func(t *testing.T) browser.Options {
			return browser.Options{Provider: spec.Name, StateDir: t.TempDir()}
		}
	default:
		t.Fatalf("provider %q takes endpoints of kind %q, which providertest has no fixture for: add one to Fixture", spec.Name, spec.Endpoints)
	}
	return func(*testing.T) browser.Options { return browser.Options{Provider: spec.Name, Endpoints: eps} }
}

// Run runs the whole contract against target. The cases that need no
// manager of their own share one, so a provider that starts a browser per
// manager starts few.
func Run(t *testing.T, target Target) {
	var shared *browser.Manager
	for _, c := range []struct {
		name string
		fn   func(*testing.T, Target, *browser.Manager)
	}{
		{"OpenNavigate", testOpenNavigate},
		{"AllowedHosts", testAllowedHosts},
		{"Release", testRelease},
		{"Start", testStart},
		{"Sessions", testSessions},
		{"Reattach", testReattach},
		{"RendererCrash", testRendererCrash},
		{"BrowserGone", testBrowserGone},
	} {
		if shared == nil {
			shared = newManager(t, target) // shut down when Run's test ends
		}
		t.Run(c.name, func(t *testing.T) { c.fn(t, target, shared) })
	}
}

// site serves testdata/site on 127.0.0.1 and records the host and path of
// every request that reaches it.
type site struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string
}

func newSite(t *testing.T) *site {
	s := &site{}
	h := testsite.Handler(testsite.Dir())
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.seen = append(s.seen, r.Host+r.URL.Path)
		s.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *site) url(path string) string { return s.URL + path }

// alt is path on the same server by another host (localhost), which the
// suite's allowed hosts refuse.
func (s *site) alt(path string) string {
	u, _ := url.Parse(s.URL)
	return "http://localhost:" + u.Port() + path
}

func (s *site) reached(hostPath string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, h := range s.seen {
		if h == hostPath {
			return true
		}
	}
	return false
}

// onlyLoopbackIP allows 127.0.0.1 and nothing else (localhost is refused).
func onlyLoopbackIP(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && u.Hostname() == "127.0.0.1"
}

// manager is a Manager on o, shut down when the test ends.
func manager(t *testing.T, o browser.Options) *browser.Manager {
	t.Helper()
	testsite.NeedChromium(t)
	o.Headless = true
	if o.AllowURL == nil {
		o.AllowURL = onlyLoopbackIP
	}
	m, err := browser.NewManager(o)
	if err != nil {
		t.Fatalf("NewManager(%s): %v", o.Provider, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		if err := m.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
	return m
}

func newManager(t *testing.T, target Target) *browser.Manager {
	t.Helper()
	o := target.Options(t)
	if target.Registry != nil {
		o.Registry = target.Registry(t)
	}
	return manager(t, o)
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	t.Cleanup(cancel)
	return ctx
}

func open(t *testing.T, m *browser.Manager, purpose string) *browser.Env {
	t.Helper()
	e, err := m.Open(ctxT(t), "", purpose)
	if err != nil {
		t.Fatalf("Open(%q): %v", purpose, err)
	}
	return e
}

func navigate(t *testing.T, e *browser.Env, u string) error {
	t.Helper()
	ctx, cancel := e.Bind(ctxT(t))
	defer cancel()
	p := e.Page().Context(ctx)
	if err := p.Navigate(u); err != nil {
		return e.Check(err)
	}
	return e.Check(p.WaitLoad())
}

func mustNavigate(t *testing.T, e *browser.Env, u string) {
	t.Helper()
	if err := navigate(t, e, u); err != nil {
		t.Fatalf("navigate %s: %v", u, err)
	}
}

func eval(t *testing.T, e *browser.Env, js string, args ...any) string {
	t.Helper()
	ctx, cancel := e.Bind(ctxT(t))
	defer cancel()
	v, err := e.Page().Context(ctx).Eval(js, args...)
	if err != nil {
		t.Fatalf("eval %s: %v", js, e.Check(err))
	}
	return v.Value.Str()
}

func text(t *testing.T, e *browser.Env) string {
	t.Helper()
	return eval(t, e, `() => document.body ? document.body.innerText : ""`)
}

func wantCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	if got := errs.CodeOf(err); got != code {
		t.Fatalf("%s: code %q, want %q (err: %v)", what, got, code, err)
	}
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", wait, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// watch connects to the browser at endpoint (a DevTools URL) from outside
// the manager, as someone looking at the same browser would, until the
// test ends; nil when it does not answer.
func watch(t *testing.T, endpoint string) *rod.Browser {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws := &cdp.WebSocket{}
	if err := ws.Connect(ctx, endpoint, nil); err != nil {
		return nil
	}
	t.Cleanup(func() { _ = ws.Close() })
	return rod.New().Client(cdp.New().Start(ws))
}

// contextGone says whether the browser context ctxID is gone from the
// browser at endpoint: the browser no longer answers, or has no such
// context.
func contextGone(t *testing.T, endpoint, ctxID string) bool {
	t.Helper()
	b := watch(t, endpoint)
	if b == nil {
		return true
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := proto.TargetGetBrowserContexts{}.Call(b.Context(ctx))
	if err != nil {
		return true
	}
	for _, id := range res.BrowserContextIDs {
		if string(id) == ctxID {
			return false
		}
	}
	return true
}

// answers says whether the browser at endpoint still answers.
func answers(t *testing.T, endpoint string) bool {
	t.Helper()
	b := watch(t, endpoint)
	if b == nil {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := proto.BrowserGetVersion{}.Call(b.Context(ctx))
	return err == nil
}

// An environment opens and shows a testdata page; two environments share
// no cookies.
func testOpenNavigate(t *testing.T, _ Target, m *browser.Manager) {
	s := newSite(t)
	a := open(t, m, "a")
	defer m.Release(a)
	mustNavigate(t, a, s.url("/notice.html"))
	if got := eval(t, a, `() => document.title`); !strings.HasPrefix(got, "Notice") {
		t.Fatalf("title %q, want the notice page's", got)
	}
	mustNavigate(t, a, s.url("/setcookie?name=who&value=a&next=/cookies"))
	if got := text(t, a); !strings.Contains(got, "who=a") {
		t.Fatalf("a's cookies %q, want who=a", got)
	}
	b := open(t, m, "b")
	defer m.Release(b)
	if b.ID == a.ID {
		t.Fatal("a held environment was handed out again")
	}
	mustNavigate(t, b, s.url("/cookies"))
	if got := text(t, b); strings.Contains(got, "who=a") {
		t.Fatalf("b sees a's cookie: %q", got)
	}
}

// The allowed hosts hold in the provider's browser: a navigation and a
// popup to a host not allowed are refused before they leave the browser,
// and the environment says which URL it refused.
func testAllowedHosts(t *testing.T, _ Target, m *browser.Manager) {
	s := newSite(t)
	e := open(t, m, "a")
	defer m.Release(e)
	away := s.alt("/away")
	if err := navigate(t, e, away); err == nil || !strings.Contains(err.Error(), "ERR_BLOCKED_BY_CLIENT") {
		t.Fatalf("navigate to a host not allowed: %v", err)
	}
	if u, ok := e.TakeBlocked(); !ok || u != away {
		t.Fatalf("TakeBlocked = %q %v, want %q", u, ok, away)
	}
	mustNavigate(t, e, s.url("/notice.html"))
	popup := s.alt("/popup")
	// A click's user gesture, as a page's popup has: Chromium's popup
	// blocker refuses a window.open without one.
	ctx, cancel := e.Bind(ctxT(t))
	if _, err := e.Page().Context(ctx).Evaluate(rod.Eval(`u => { window.open(u) }`, popup).ByUser()); err != nil {
		cancel()
		t.Fatalf("window.open: %v", e.Check(err))
	}
	cancel()
	eventually(t, "the popup to be refused", func() bool { u, ok := e.TakeBlocked(); return ok && u == popup })
	host := strings.TrimPrefix(s.alt(""), "http://")
	if s.reached(host+"/away") || s.reached(host+"/popup") {
		t.Fatal("a request to a host not allowed reached the server")
	}
}

// Release keeps a kept environment for its purpose (the next Open gets it,
// cookies and all) and ends a temporary one; Close ends an environment for
// good. Nothing of an ended environment stays in its browser.
func testRelease(t *testing.T, _ Target, m *browser.Manager) {
	s := newSite(t)
	a := open(t, m, "kept")
	mustNavigate(t, a, s.url("/setcookie?name=who&value=kept&next=/cookies"))
	m.Release(a)
	again := open(t, m, "kept")
	if again.ID != a.ID {
		t.Fatalf("Open after Release gave %s, want the kept %s", again.ID, a.ID)
	}
	mustNavigate(t, again, s.url("/cookies"))
	if got := text(t, again); !strings.Contains(got, "who=kept") {
		t.Fatalf("the kept environment lost its cookie: %q", got)
	}

	tmp, err := m.OpenTemporary(ctxT(t), "", "kept")
	if err != nil {
		t.Fatal(err)
	}
	if tmp.ID == a.ID {
		t.Fatal("OpenTemporary reused a kept environment")
	}
	mustNavigate(t, tmp, s.url("/notice.html"))
	tmpAt, tmpCtx := tmp.Endpoint(), tmp.BrowserContextID()
	m.Release(tmp)
	_, err = m.Get(tmp.ID)
	wantCode(t, "Get of a released temporary environment", err, errs.EnvNotFound)
	eventually(t, "the temporary environment's context to leave its browser", func() bool { return contextGone(t, tmpAt, tmpCtx) })

	at, ctxID := again.Endpoint(), again.BrowserContextID()
	if err := m.Close(ctxT(t), again.ID); err != nil {
		t.Fatal(err)
	}
	wantCode(t, "the closed environment", again.Err(), errs.EnvNotFound)
	_, err = m.Get(a.ID)
	wantCode(t, "Get of a closed environment", err, errs.EnvNotFound)
	_, err = m.Acquire(ctxT(t), a.ID)
	wantCode(t, "Acquire of a closed environment", err, errs.EnvNotFound)
	m.Release(again)
	eventually(t, "the closed environment's context to leave its browser", func() bool { return contextGone(t, at, ctxID) })
}

// A Starter starts its browser on Start, before any Open, and the next
// Open uses it; a provider without one starts nothing (no process, no
// connection, no session).
func testStart(t *testing.T, target Target, _ *browser.Manager) {
	m := newManager(t, target)
	if err := m.Start(ctxT(t)); err != nil {
		t.Fatalf("Start: %v", err)
	}
	_, starts := m.Provider().(provider.Starter)
	st := m.Stats(ctxT(t))
	if starts && st.Browsers != 1 {
		t.Fatalf("a Starter's Start left %d browsers, want 1", st.Browsers)
	}
	if !starts && st.Browsers != 0 {
		t.Fatalf("Start of a provider that is no Starter made %d browsers", st.Browsers)
	}
	if !starts {
		return
	}
	e := open(t, m, "")
	defer m.Release(e)
	if st := m.Stats(ctxT(t)); st.Browsers != 1 {
		t.Fatalf("Open after Start: %d browsers, want the started one", st.Browsers)
	}
}

// A SessionKeeper gives every environment a browser session of its own,
// ended with the environment; any other provider's environments have no
// session.
func testSessions(t *testing.T, _ Target, m *browser.Manager) {
	a := open(t, m, "a")
	b := open(t, m, "b")
	defer m.Release(b)
	if _, keeps := m.Provider().(provider.SessionKeeper); !keeps {
		if a.Session() != "" || b.Session() != "" {
			t.Fatalf("sessions %q and %q from a provider that keeps none", a.Session(), b.Session())
		}
		m.Release(a)
		return
	}
	if a.Session() == "" || b.Session() == "" || a.Session() == b.Session() || a.Endpoint() == b.Endpoint() {
		t.Fatalf("sessions %q (%s) and %q (%s): want one browser session each", a.Session(), a.Endpoint(), b.Session(), b.Endpoint())
	}
	at := a.Endpoint()
	if err := m.Close(ctxT(t), a.ID); err != nil {
		t.Fatal(err)
	}
	m.Release(a)
	eventually(t, "the closed environment's browser to end with its session", func() bool { return !answers(t, at) })
	if !answers(t, b.Endpoint()) {
		t.Fatal("closing a ended b's browser too")
	}
}

// An Attacher shares its environments through the registry: another
// replica acquires one by id and finds its page as it was left, and a
// close by either is seen by both. Any other provider's environments stay
// in the replica that opened them.
func testReattach(t *testing.T, target Target, _ *browser.Manager) {
	if target.Registry == nil {
		t.Skip("no registry")
	}
	s := newSite(t)
	o := target.Options(t)
	o.Registry = target.Registry(t)
	o1, o2 := o, o
	o1.Replica, o2.Replica = "replica-1", "replica-2"
	m1, m2 := manager(t, o1), manager(t, o2)
	a := open(t, m1, "shared")
	mustNavigate(t, a, s.url("/setcookie?name=who&value=shared&next=/cookies"))
	m1.Release(a)

	e, err := m2.Acquire(ctxT(t), a.ID)
	if _, shares := m1.Provider().(provider.Attacher); !shares {
		wantCode(t, "another replica's Acquire of an environment in this replica's own browser", err, errs.EnvNotFound)
		return
	}
	if err != nil {
		t.Fatalf("the other replica's Acquire: %v", err)
	}
	if got := eval(t, e, `() => location.pathname + " " + document.body.innerText`); !strings.Contains(got, "/cookies") || !strings.Contains(got, "who=shared") {
		t.Fatalf("the other replica finds %q, want the page a left", got)
	}
	if e.Session() != a.Session() {
		t.Fatalf("attached session %q, want %q", e.Session(), a.Session())
	}
	m2.Release(e)
	if err := m2.Close(ctxT(t), a.ID); err != nil {
		t.Fatal(err)
	}
	_, err = m1.Acquire(ctxT(t), a.ID)
	wantCode(t, "the first replica's Acquire after the other closed it", err, errs.EnvNotFound)
}

// A crashed renderer closes its environment at once (env_unavailable for
// the call, env_not_found after); the manager's other environments go on.
func testRendererCrash(t *testing.T, _ Target, m *browser.Manager) {
	s := newSite(t)
	a := open(t, m, "crash")
	b := open(t, m, "b")
	defer m.Release(b)
	mustNavigate(t, a, s.url("/notice.html"))
	ctx, cancel := a.Bind(ctxT(t))
	_ = proto.PageCrash{}.Call(a.Page().Context(ctx)) // answers with the crash, or not at all
	cancel()
	eventually(t, "the crashed environment to close", func() bool { return a.Err() != nil })
	wantCode(t, "the crashed environment", a.Err(), errs.EnvUnavailable)
	m.Release(a)
	_, err := m.Get(a.ID)
	wantCode(t, "Get of the crashed environment", err, errs.EnvNotFound)
	mustNavigate(t, b, s.url("/notice.html"))
}

// A browser that goes away behind the manager's back (closed from
// outside) fails its environments with env_unavailable at once; the
// next Open never hangs: a Starter starts a new browser, others give a
// new environment or env_unavailable.
func testBrowserGone(t *testing.T, target Target, _ *browser.Manager) {
	s := newSite(t)
	m := newManager(t, target)
	a := open(t, m, "a")
	mustNavigate(t, a, s.url("/notice.html"))
	w := watch(t, a.Endpoint())
	if w == nil {
		t.Fatalf("the environment's browser %s does not answer", a.Endpoint())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	_ = proto.BrowserClose{}.Call(w.Context(ctx))
	cancel()
	eventually(t, "the environment to notice its browser went", func() bool { return a.Err() != nil })
	wantCode(t, "an environment of a gone browser", a.Err(), errs.EnvUnavailable)
	m.Release(a)
	_, err := m.Get(a.ID)
	wantCode(t, "Get after the browser went", err, errs.EnvNotFound)

	e, err := m.Open(ctxT(t), "", "a")
	if _, starts := m.Provider().(provider.Starter); starts && err != nil {
		t.Fatalf("a Starter's Open after its browser went: %v", err)
	}
	if err != nil {
		wantCode(t, "Open after the browser went", err, errs.EnvUnavailable)
		return
	}
	defer m.Release(e)
	mustNavigate(t, e, s.url("/notice.html"))
}
