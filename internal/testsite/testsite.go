// Package testsite serves the fixture site on a loopback
// httptest server and launches the system Chromium the same way for every
// package's browser tests.
//
//	func TestMain(m *testing.M) { testsite.Main(m) } // closes the shared browser
//
//	site := testsite.Start(t)
//	page := testsite.NewPage(t, testsite.Browser(t), site.URL("/login.html"))
package testsite

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/proto"

	"github.com/toolwright/toolwright/engine/browser/chromium"
	"github.com/toolwright/toolwright/engine/demo"
)

// Site is a running fixture server.
type Site struct {
	*httptest.Server
}

// The fixture site is the Acme demo site (examples/demo/site: what
// `toolwright demo` serves) with the test-only pages of testdata/site
// (broken.html, links.html, ambiguous.html) beside it, served as one folder.

// Dir is the absolute path of testdata/site, the test-only pages.
func Dir() string { return filepath.Join(Root(), "testdata", "site") }

// DemoDir is the absolute path of examples/demo/site, the Acme pages.
func DemoDir() string { return filepath.Join(Root(), "examples", "demo", "site") }

// Root is the absolute path of the repository, found from this file's
// path at build time: the one way the tests find testdata/ and examples/
// from any package's folder.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// layers is a file system made of others: a name is opened in the first
// that has it.
type layers []fs.FS

func (l layers) Open(name string) (fs.File, error) {
	for _, f := range l {
		file, err := f.Open(name)
		if !errors.Is(err, fs.ErrNotExist) {
			return file, err
		}
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// Start serves the fixture site on 127.0.0.1 until the test ends. Besides the
// static pages it answers:
//
//	/slow?ms=N                   a page sent after N ms (at most 30s; stops when the request does)
//	/redirect?to=URL             302 to URL
//	/setcookie?name=N&value=V    sets a cookie (path=/); with &next=/path, then 302 there
//	/cookies                     the request's cookies, one "name=value" a line
//	/status?code=N               a small page with status N
//
// Signing in is setting the acme_user cookie, so
// /setcookie?name=acme_user&value=a@example.com&next=/catalog.html skips the form.
func Start(t testing.TB) *Site {
	t.Helper()
	return Serve(t, demo.Handler(layers{os.DirFS(Dir()), os.DirFS(DemoDir())}))
}

// Serve serves h until the test ends: a test's own server (one that
// records what it was sent) as a Site.
func Serve(t testing.TB, h http.Handler) *Site {
	t.Helper()
	s := &Site{httptest.NewServer(h)}
	t.Cleanup(s.Close)
	return s
}

// RealDir is the absolute path of testdata/real/site: a shop built the way
// real sites are (web components, a late cookie banner, a client-rendered
// search, infinite scroll, popups, dialogs, a cross-site card frame).
func RealDir() string { return filepath.Join(Dir(), "..", "real", "site") }

// StartReal serves testdata/real/site like Start serves testdata/site.
// Its pages load their cross-site parts (the card frame, the partner
// popup) from AltURL.
func StartReal(t testing.TB) *Site {
	t.Helper()
	return Serve(t, Handler(RealDir()))
}

// Handler serves the static files of dir and the dynamic pages of Start.
func Handler(dir string) http.Handler { return demo.Handler(os.DirFS(dir)) }

// StartDir serves the folder testdata/<dir> (such as "real/resolve") with
// the same dynamic pages as Start, until the test ends.
func StartDir(t testing.TB, dir string) *Site {
	t.Helper()
	return Serve(t, Handler(filepath.Join(Dir(), "..", filepath.FromSlash(dir))))
}

// AltURL is path on the same server reached as another site: localhost
// instead of 127.0.0.1. Chromium runs its frames out of process, and it is
// another host for policy.allowed_hosts.
func (s *Site) AltURL(path string) string {
	u, _ := url.Parse(s.Server.URL)
	return "http://localhost:" + u.Port() + "/" + strings.TrimPrefix(path, "/")
}

// URL is the absolute URL of path ("/login.html", "catalog.html?q=bolt").
func (s *Site) URL(path string) string {
	return s.Server.URL + "/" + strings.TrimPrefix(path, "/")
}

// ErrNoChromium is returned by Launch when no Chromium is installed.
var ErrNoChromium = errors.New("no Chromium found (install the chromium package)")

// Launch starts the system Chromium (never a downloaded one) with the
// project's test flags and profile dir, and connects to it. stop closes the
// browser and waits for it to exit.
func Launch(userDataDir string) (b *rod.Browser, stop func(), err error) {
	b, _, stop, err = launch(userDataDir, nil)
	return b, stop, err
}

// Counter counts the CDP requests a browser's client sends.
type Counter struct {
	rod.CDPClient
	n atomic.Int64
}

// Call implements rod.CDPClient, counting.
func (c *Counter) Call(ctx context.Context, sessionID, method string, params any) ([]byte, error) {
	c.n.Add(1)
	return c.CDPClient.Call(ctx, sessionID, method, params)
}

// Requests is how many requests were sent so far.
func (c *Counter) Requests() int64 { return c.n.Load() }

// LaunchCounting starts a browser of its own for t (closed when t ends)
// whose every CDP request is counted: the request cost of an operation is
// the difference of Requests around it.
func LaunchCounting(t testing.TB) (*rod.Browser, *Counter) {
	t.Helper()
	var c *Counter
	b, _, stop, err := launch(t.TempDir(), func(u string) (rod.CDPClient, error) {
		ws := &cdp.WebSocket{}
		if err := ws.Connect(context.Background(), u, nil); err != nil {
			return nil, err
		}
		c = &Counter{CDPClient: cdp.New().Start(ws)}
		return c, nil
	})
	if errors.Is(err, ErrNoChromium) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return b, c
}

// launch starts the Chromium the engine's local provider starts (package
// chromium: its binary and command line) and connects to it; u is its
// DevTools WebSocket URL.
func launch(userDataDir string, client func(u string) (rod.CDPClient, error)) (b *rod.Browser, u string, stop func(), err error) {
	bin, err := findChromium()
	if err != nil {
		return nil, "", nil, ErrNoChromium
	}
	l := chromium.Launcher(context.Background(), bin, userDataDir, true)
	u, err = l.Launch()
	if err != nil {
		return nil, "", nil, fmt.Errorf("launch %s: %w", bin, err)
	}
	b = rod.New().ControlURL(u).NoDefaultDevice() // as the engine: Chromium's own viewport and user agent
	if client != nil {
		c, err := client(u)
		if err != nil {
			l.Kill()
			return nil, "", nil, fmt.Errorf("connect to %s: %w", bin, err)
		}
		b = rod.New().Client(c).NoDefaultDevice()
	}
	if err := b.Connect(); err != nil {
		l.Kill()
		return nil, "", nil, fmt.Errorf("connect to %s: %w", bin, err)
	}
	stop = func() {
		_ = b.Close()
		done := make(chan struct{})
		go func() { l.Cleanup(); close(done) }() // waits for the exit, removes the profile
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			l.Kill()
			<-done
		}
	}
	return b, u, stop, nil
}

// LaunchBrowser starts a browser of its own for t, closed when t ends. It
// skips t when no Chromium is installed.
func LaunchBrowser(t testing.TB) *rod.Browser {
	t.Helper()
	b, stop, err := Launch(t.TempDir())
	if errors.Is(err, ErrNoChromium) {
		skipNoChromium(t)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return b
}

var shared struct {
	once sync.Once
	b    *rod.Browser
	url  string
	stop func()
	dir  string
	err  error
}

// Browser is one browser shared by the tests of a test binary, launched on
// first use; Main closes it (without Main, leakless ends it with the test
// binary). It skips t when no Chromium is installed.
// Give each test its own incognito context with NewPage.
func Browser(t testing.TB) *rod.Browser {
	t.Helper()
	startShared(t)
	return shared.b
}

// BrowserURL is the DevTools WebSocket URL of Browser's browser, launched
// on first use, for clients of their own (internal/testbrowser connects
// the engine's browser managers to it).
func BrowserURL(t testing.TB) string {
	t.Helper()
	startShared(t)
	return shared.url
}

func startShared(t testing.TB) {
	t.Helper()
	shared.once.Do(func() {
		shared.dir, shared.err = os.MkdirTemp("", "toolwright-chromium-")
		if shared.err == nil {
			shared.b, shared.url, shared.stop, shared.err = launch(shared.dir, nil)
		}
	})
	if errors.Is(shared.err, ErrNoChromium) {
		skipNoChromium(t)
	}
	if shared.err != nil {
		t.Fatal(shared.err)
	}
}

// Parallel is how many parallel tests (t.Parallel) of a browser test
// package run at once unless -parallel says otherwise. Go's default is
// GOMAXPROCS (2 on a 2-core machine), made for tests that keep a core busy;
// a browser test spends most of its time waiting for Chromium, the site or a
// timer, so a 2-core machine runs 4 of them in about the time of 2.
const Parallel = 4

// Main runs the tests, then closes the shared browser. Call it from TestMain.
// Without -parallel, parallel tests run Parallel at a time (at least
// GOMAXPROCS).
func Main(m *testing.M) { os.Exit(Run(m)) }

// Run is Main for a TestMain with more to do after the tests: it returns
// the exit code instead of exiting.
func Run(m *testing.M) int {
	setParallel()
	code := m.Run()
	if shared.stop != nil {
		shared.stop()
	}
	if shared.dir != "" {
		_ = os.RemoveAll(shared.dir)
	}
	return code
}

// setParallel raises -test.parallel to Parallel when the command line did
// not set it.
func setParallel() {
	if !flag.Parsed() {
		flag.Parse()
	}
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set && runtime.GOMAXPROCS(0) < Parallel {
		_ = flag.Set("test.parallel", strconv.Itoa(Parallel))
	}
}

// NewPage opens a page in a fresh incognito context of b (its own cookies
// and storage), goes to u when it is not empty, waits for the load event,
// and closes the context when t ends.
func NewPage(t testing.TB, b *rod.Browser, u string) *rod.Page {
	t.Helper()
	inc, err := b.Incognito()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = proto.TargetDisposeBrowserContext{BrowserContextID: inc.BrowserContextID}.Call(b)
	})
	p, err := inc.Page(proto.TargetCreateTarget{URL: "about:blank"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	if u != "" {
		Goto(t, p, u)
	}
	return p
}

// Goto navigates p to u and waits for the load event (a minute at most: a
// loopback page took over 10s to load with a test suite running beside
// at a load of 70), also when the page goes on to another one by script.
func Goto(t testing.TB, p *rod.Page, u string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pc := p.Context(ctx)
	if err := pc.Navigate(u); err != nil {
		t.Fatalf("navigate to %s: %v", u, err)
	}
	// A page that moves on by script while loading (catalog.html when
	// signed out) destroys the context WaitLoad evaluates in: try again.
	for {
		err := pc.WaitLoad()
		if err == nil {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("load %s: %v", u, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// SignIn sets the fixture's sign-in cookie in p's browser context.
func (s *Site) SignIn(t testing.TB, p *rod.Page, email string) {
	t.Helper()
	Goto(t, p, s.URL("/setcookie?name=acme_user&value="+url.QueryEscape(email)))
}

// ChromiumEnv names the browser the tests' own launches start (the shared
// browser, RemoteChromium's endpoint), as browser.bin names the engine's:
// unset, the one the engine starts by default (the headless shell when it
// is installed). CI runs a package again with it set to chromium, so the
// full browser's behaviour stays tested where the shell is the default.
const ChromiumEnv = "TOOLWRIGHT_TEST_CHROMIUM"

// findChromium is the browser the tests' own launches start ($ChromiumEnv,
// else the engine's default headless browser).
func findChromium() (string, error) { return chromium.Find(os.Getenv(ChromiumEnv), true) }

// RequireChromiumEnv, set to 1 (as CI does), turns every "no Chromium"
// skip into a failure, so a browser test can never pass by not running.
const RequireChromiumEnv = "TOOLWRIGHT_REQUIRE_CHROMIUM"

// NeedChromium skips tb when this machine has no Chromium (fails it when
// TOOLWRIGHT_REQUIRE_CHROMIUM=1), and returns the path of the one a
// headless local provider starts.
func NeedChromium(tb testing.TB) string {
	tb.Helper()
	bin, err := findChromium()
	if err != nil {
		skipNoChromium(tb)
	}
	return bin
}

func skipNoChromium(tb testing.TB) {
	tb.Helper()
	if os.Getenv(RequireChromiumEnv) == "1" {
		tb.Fatalf("%v, and %s=1 forbids skipping", ErrNoChromium, RequireChromiumEnv)
	}
	tb.Skip(ErrNoChromium)
}

// RemoteChromium starts the system Chromium with --remote-debugging-port on
// loopback, as an operator runs a browser endpoint for browser.provider cdp,
// and returns http://127.0.0.1:PORT and a function that SIGKILLs it (also
// called when tb ends). It skips tb when no Chromium is installed.
func RemoteChromium(tb testing.TB) (endpoint string, kill func()) {
	tb.Helper()
	bin := NeedChromium(tb)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	lc := chromium.Launcher(context.Background(), bin, tb.TempDir(), true).Leakless(false).RemoteDebuggingPort(port)
	if _, err := lc.Launch(); err != nil {
		tb.Fatalf("launch a Chromium endpoint: %v", err)
	}
	kill = func() { _ = syscall.Kill(-lc.PID(), syscall.SIGKILL) }
	tb.Cleanup(func() { kill(); lc.Cleanup() })
	return fmt.Sprintf("http://127.0.0.1:%d", port), kill
}

// ChromeDriver starts the system chromedriver (Debian's chromium-driver) on
// loopback, as an operator runs a WebDriver endpoint for browser.provider
// webdriver, and returns http://127.0.0.1:PORT. It and every Chromium its
// sessions started are killed when tb ends. It skips tb when chromedriver
// or Chromium is missing (fails under TOOLWRIGHT_REQUIRE_CHROMIUM=1).
func ChromeDriver(tb testing.TB) string {
	tb.Helper()
	NeedChromium(tb)
	bin, err := exec.LookPath("chromedriver")
	if err != nil {
		if os.Getenv(RequireChromiumEnv) == "1" {
			tb.Fatalf("chromedriver is not installed (apt-get install -y chromium-driver), and %s=1 forbids skipping", RequireChromiumEnv)
		}
		tb.Skip("chromedriver is not installed (apt-get install -y chromium-driver)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, fmt.Sprintf("--port=%d", port))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its browsers too, on cleanup
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start chromedriver: %v", err)
	}
	tb.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	u := fmt.Sprintf("http://127.0.0.1:%d", port)
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := http.Get(u + "/status")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return u
			}
		}
		if time.Now().After(deadline) {
			tb.Fatalf("chromedriver on %s never answered /status: %v", u, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
