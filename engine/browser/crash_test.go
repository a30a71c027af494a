package browser

import (
	"context"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/launcher"
	"github.com/go-rod/rod/lib/proto"

	"github.com/toolwright/toolwright/engine/browser/provider/cdp"
	"github.com/toolwright/toolwright/engine/errs"
)

func TestBrowserCrashFailsFastAndRelaunches(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/", html("fast"))
	s := newSite(t, mux)
	defer close(release)

	m := newTestManager(t, Options{})
	env := mustOpen(t, m, "", "crash")
	other := mustOpen(t, m, "", "bystander")
	m.Release(other)
	conn, dir := localOf(t, m).current()
	pid := conn.pid

	result := make(chan error, 1)
	go func() { result <- navigate(t, env, s.URL+"/slow") }()
	eventually(t, 30*time.Second, "the slow request to arrive", func() bool { return s.seen(s.Listener.Addr().String() + "/slow") })

	killed := time.Now()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var err error
	select {
	case err = <-result:
	case <-time.After(30 * time.Second):
		t.Fatal("the call on a killed browser still hangs after 30s")
	}
	if took := time.Since(killed); took > 10*time.Second {
		t.Errorf("the call took %s to fail", took)
	}
	t.Logf("failed %s after the kill", time.Since(killed))
	wantCode(t, err, errs.EnvUnavailable)
	if !errs.As(err).Retryable {
		t.Error("env_unavailable is not retryable")
	}
	wantCode(t, env.Err(), errs.EnvUnavailable)

	// Every environment of that browser is gone.
	for _, id := range []string{env.ID, other.ID} {
		_, err := m.Get(id)
		wantCode(t, err, errs.EnvNotFound)
		if !strings.Contains(err.Error(), "browser stopped") {
			t.Errorf("Get(%s) message: %v", id, err)
		}
	}
	// A call that comes later fails at once too.
	start := time.Now()
	_, err = env.Page().Context(testCtx(t, 60*time.Second)).Eval(`() => 1`)
	wantCode(t, env.Check(err), errs.EnvUnavailable)
	if time.Since(start) > 10*time.Second {
		t.Errorf("a call on a dead browser took %s", time.Since(start))
	}
	m.Release(env)

	// The next Open launches a fresh browser; the old one left nothing behind.
	fresh := mustOpen(t, m, "", "crash")
	defer m.Release(fresh)
	mustNavigate(t, fresh, s.URL+"/")
	if got := bodyText(t, fresh); got != "fast" {
		t.Errorf("fresh page text = %q", got)
	}
	c2, dir2 := localOf(t, m).current()
	if c2 == conn || c2.pid == pid || dir2 == dir {
		t.Error("the browser was not relaunched")
	}
	eventually(t, 30*time.Second, "the killed browser's processes to end", func() bool { return len(processesUsing(dir)) == 0 })
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the killed browser's profile %s is still there", dir)
	}
}

func TestShutdownLeavesNoChromium(t *testing.T) {
	t.Parallel()
	s := newSite(t, html("x"))
	m := newTestManager(t, Options{})
	a := mustOpen(t, m, "", "a")
	b := mustOpen(t, m, "", "b")
	mustNavigate(t, a, s.URL)
	mustNavigate(t, b, s.URL)
	m.Release(b)
	_, dir := localOf(t, m).current()
	if len(processesUsing(dir)) < 2 {
		t.Fatalf("expected the browser's processes to run, found %v", processesUsing(dir))
	}
	if err := m.Shutdown(testCtx(t, time.Minute)); err != nil {
		t.Fatal(err)
	}
	if pids := processesUsing(dir); len(pids) != 0 {
		t.Errorf("chromium processes still running after Shutdown: %v", pids)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("profile %s is still there", dir)
	}
	wantCode(t, a.Err(), errs.EnvUnavailable)
	_, err := m.Get(b.ID)
	wantCode(t, err, errs.EnvNotFound)
	_, err = m.Open(testCtx(t, 5*time.Second), "", "a")
	wantCode(t, err, errs.EnvUnavailable)
	m.Release(a) // after shutdown: harmless
	if err := m.Shutdown(context.Background()); err != nil {
		t.Errorf("second Shutdown: %v", err)
	}
}

// TestCDPProvider attaches to a Chromium the test launches itself, as a
// remote grid or a profile manager would hand one over, for what the
// provider contract (providertest, run by engine/browser/provider/all's
// TestContract: pages, cookies apart, allowed hosts, crashes) does
// not look at: Shutdown leaves the remote browser running without the
// contexts it made, and a dead endpoint is named in Open's error.
func TestCDPProvider(t *testing.T) {
	t.Parallel()
	bin := needChromium(t)

	dir := t.TempDir()
	l := launcher.New().Bin(bin).Leakless(false).Headless(true).UserDataDir(dir).NoSandbox(os.Geteuid() == 0).Set("disable-gpu")
	u, err := l.Launch()
	if err != nil {
		t.Fatalf("launch the remote browser: %v", err)
	}
	defer func() {
		_ = syscall.Kill(-l.PID(), syscall.SIGKILL)
		l.Cleanup()
	}()

	m, err := NewManager(Options{Provider: cdp.Name, Endpoints: []string{u}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = m.Shutdown(context.Background()) }()
	if m.Provider().Name() != cdp.Name {
		t.Fatalf("provider = %s", m.Provider().Name())
	}
	a := mustOpen(t, m, "", "a")
	b := mustOpen(t, m, "", "b")
	if a.Endpoint() != u {
		t.Errorf("Endpoint = %q, want %q", a.Endpoint(), u)
	}

	// Watch the remote browser from a second connection.
	watcher := rod.New().ControlURL(u)
	if err := watcher.Connect(); err != nil {
		t.Fatal(err)
	}
	ctxs, err := proto.TargetGetBrowserContexts{}.Call(watcher)
	if err != nil || len(ctxs.BrowserContextIDs) < 2 {
		t.Fatalf("remote contexts = %v, %v", ctxs, err)
	}

	m.Release(a)
	m.Release(b)
	if err := m.Shutdown(testCtx(t, time.Minute)); err != nil {
		t.Fatal(err)
	}
	// The remote browser still runs, without our contexts.
	if _, err := (proto.BrowserGetVersion{}).Call(watcher); err != nil {
		t.Fatalf("the remote browser is gone after Shutdown: %v", err)
	}
	eventually(t, 30*time.Second, "our contexts to be disposed", func() bool {
		res, err := proto.TargetGetBrowserContexts{}.Call(watcher)
		for _, id := range res.BrowserContextIDs {
			if string(id) == a.BrowserContextID() || string(id) == b.BrowserContextID() {
				return false
			}
		}
		return err == nil
	})

	// When the remote browser dies, its environments are gone at once and
	// Open says no endpoint answers.
	m2, err := NewManager(Options{Provider: cdp.Name, Endpoints: []string{u}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = m2.Shutdown(context.Background()) }()
	env := mustOpen(t, m2, "", "")
	_ = syscall.Kill(-l.PID(), syscall.SIGKILL)
	// At once: its connection closes (the health check would take 20-30 s).
	eventually(t, 10*time.Second, "the environment to be gone", func() bool { return env.Err() != nil })
	wantCode(t, env.Err(), errs.EnvUnavailable)
	_, err = m2.Get(env.ID)
	wantCode(t, err, errs.EnvNotFound)
	m2.Release(env)
	_, err = m2.Open(testCtx(t, 10*time.Second), "", "")
	wantCode(t, err, errs.EnvUnavailable)
	if !strings.Contains(err.Error(), "no browser endpoint answers") {
		t.Errorf("Open with a dead endpoint: %v", err)
	}
}

// TestRendererCrashFailsAtOnce crashes the renderer of an environment's
// page (Page.crash, as the out-of-memory killer or a renderer bug would)
// while a call waits for an element that never comes: the call fails with
// env_unavailable at once instead of waiting out its timeout, the
// environment is closed, and the browser and its other environments go on.
func TestRendererCrashFailsAtOnce(t *testing.T) {
	t.Parallel()
	s := newSite(t, html(`<p id="here">here</p>`))
	m := newTestManager(t, Options{})
	env := mustOpen(t, m, "", "crash")
	other := mustOpen(t, m, "", "bystander")
	defer m.Release(other)
	mustNavigate(t, env, s.URL+"/")
	mustNavigate(t, other, s.URL+"/")

	const wait = 2 * time.Minute // the step's own timeout: far longer than the test allows
	result := make(chan error, 1)
	go func() {
		ctx, cancel := env.Bind(testCtx(t, wait))
		defer cancel()
		_, err := env.Page().Context(ctx).Element("#never")
		result <- env.Check(err)
	}()
	// Page.crash never answers: the renderer is gone before it can.
	go func() { _ = proto.PageCrash{}.Call(env.Page().Context(testCtx(t, 30*time.Second))) }()

	var err error
	select {
	case err = <-result:
	case <-time.After(wait / 2):
		t.Fatal("the wait on a crashed page still hangs")
	}
	wantCode(t, err, errs.EnvUnavailable)
	if !strings.Contains(err.Error(), "crashed") {
		t.Errorf("message %q does not say the page crashed", err)
	}
	wantCode(t, env.Err(), errs.EnvUnavailable)
	_, err = m.Get(env.ID)
	wantCode(t, err, errs.EnvNotFound)
	if !strings.Contains(err.Error(), "crashed") {
		t.Errorf("Get after the crash: %v", err)
	}
	m.Release(env)

	// The browser lives on: the other environment still answers, and a
	// new one opens.
	if got := bodyText(t, other); got != "here" {
		t.Errorf("the other environment's page says %q", got)
	}
	fresh := mustOpen(t, m, "", "crash")
	defer m.Release(fresh)
	mustNavigate(t, fresh, s.URL+"/")
	if got := bodyText(t, fresh); got != "here" {
		t.Errorf("a new environment's page says %q", got)
	}
}
