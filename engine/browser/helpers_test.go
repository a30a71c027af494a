package browser

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/browser/provider/local"
	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/internal/testsite"

	_ "github.com/toolwright/toolwright/engine/browser/provider/all" // the providers the tests open browsers with
)

// TestMain runs the parallel tests testsite.Parallel at a time: most of a
// test here waits for its own Chromium (launch, page loads, timers).
func TestMain(m *testing.M) { testsite.Main(m) }

// needChromium skips the test when this machine has no Chromium.
func needChromium(t *testing.T) string {
	t.Helper()
	return testsite.NeedChromium(t)
}

// newTestManager makes a manager on a headless local Chromium, shut down at
// the end of the test.
func newTestManager(t *testing.T, o Options) *Manager {
	t.Helper()
	needChromium(t)
	o.Headless = true
	if o.StateDir == "" {
		o.StateDir = t.TempDir()
	}
	m, err := NewManager(o)
	if err != nil {
		t.Fatalf("NewManager: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		start := time.Now()
		if err := m.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if took := time.Since(start); took > time.Second {
			t.Logf("Shutdown took %s", took)
		}
	})
	return m
}

func testCtx(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func mustOpen(t *testing.T, m *Manager, region, purpose string) *Env {
	t.Helper()
	env, err := m.Open(testCtx(t, 2*time.Minute), region, purpose) // Chromium's start at a load of 80 took over 20s
	if err != nil {
		t.Fatalf("Open(%q, %q): %v", region, purpose, err)
	}
	return env
}

// codeOf is the errs code of err.
func codeOf(err error) string { return errs.CodeOf(err) }

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if got := codeOf(err); got != code {
		t.Fatalf("error code = %q, want %q (err: %v)", got, code, err)
	}
}

// site is a loopback test site that records the Host of every request,
// and its method ("GET /path", for count).
type site struct {
	*httptest.Server
	mu    sync.Mutex
	hosts []string
	reqs  []string
}

func newSite(t *testing.T, h http.Handler) *site {
	t.Helper()
	s := &site{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hosts = append(s.hosts, r.Host+r.URL.Path)
		s.reqs = append(s.reqs, r.Method+" "+r.URL.Path)
		s.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// seen reports whether a request for host+path reached the site.
func (s *site) seen(hostPath string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, h := range s.hosts {
		if h == hostPath {
			return true
		}
	}
	return false
}

// count is how many requests "METHOD /path" reached the site.
func (s *site) count(req string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.reqs {
		if r == req {
			n++
		}
	}
	return n
}

func html(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte("<!doctype html><html><head><title>t</title></head><body>" + body + "</body></html>"))
	}
}

// bodyText is the text of env's page.
func bodyText(t *testing.T, env *Env) string {
	t.Helper()
	p := env.Page().Context(testCtx(t, time.Minute)) // a ceiling for a loaded machine, not a speed check
	res, err := p.Eval(`() => document.body ? document.body.innerText : ""`)
	if err != nil {
		t.Fatalf("read page text: %v", err)
	}
	return res.Value.Str()
}

func navigate(t *testing.T, env *Env, u string) error {
	t.Helper()
	ctx, cancel := env.Bind(testCtx(t, time.Minute)) // a ceiling for a loaded machine, not a speed check
	defer cancel()
	p := env.Page().Context(ctx)
	if err := p.Navigate(u); err != nil {
		return env.Check(err)
	}
	return env.Check(p.WaitLoad())
}

func mustNavigate(t *testing.T, env *Env, u string) {
	t.Helper()
	if err := navigate(t, env, u); err != nil {
		t.Fatalf("navigate %s: %v", u, err)
	}
}

// eventually polls cond until it holds or d passes.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// processesUsing lists the pids whose command line mentions s.
func processesUsing(s string) []string {
	var pids []string
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, "cmdline"))
		if err != nil {
			continue
		}
		if strings.Contains(string(b), s) {
			// A zombie has an empty cmdline, so this is a live process.
			pids = append(pids, filepath.Base(d))
		}
	}
	return pids
}

// localOf is the local provider of m.
func localOf(t *testing.T, m *Manager) localProvider {
	t.Helper()
	p, ok := m.Provider().(*local.Provider)
	if !ok {
		t.Fatalf("provider is %T, want local", m.Provider())
	}
	return localProvider{p}
}

type localProvider struct{ *local.Provider }

// current is the running browser's connection (nil before a launch) and
// profile folder.
func (p localProvider) current() (*Conn, string) {
	c, dir := p.Current()
	conn, _ := c.(*Conn)
	return conn, dir
}
