package browser

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/toolwright/toolwright/engine/errs"
)

func TestLazyLaunch(t *testing.T) {
	t.Parallel()
	s := newSite(t, html(`<h1 id="h">hello</h1>`))
	m := newTestManager(t, Options{})
	lp := localOf(t, m)
	if c, _ := lp.current(); c != nil {
		t.Fatal("a browser started before the first Open")
	}
	if st := m.Stats(testCtx(t, time.Minute)); st.Browsers != 0 || st.Environments != 0 {
		t.Fatalf("stats before Open = %+v", st)
	}
	env := mustOpen(t, m, "", "")
	defer m.Release(env)
	if c, _ := lp.current(); c == nil || c.Err() != nil {
		t.Fatal("no live browser after Open")
	}
	if !strings.HasPrefix(env.ID, "env_") || env.Region != DefaultRegion || env.Purpose != DefaultPurpose {
		t.Errorf("env = %q %q %q", env.ID, env.Region, env.Purpose)
	}
	mustNavigate(t, env, s.URL)
	if got := bodyText(t, env); got != "hello" {
		t.Errorf("page text = %q", got)
	}
	st := m.Stats(testCtx(t, time.Minute))
	if st.Environments != 1 || st.Busy != 1 || st.ByPurpose[DefaultPurpose] != 1 || st.Browsers != 1 || st.Processes < 2 {
		t.Errorf("stats = %+v", st)
	}
}

func TestPurposesAreIsolatedAndIdleEnvsReused(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/set", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "who", Value: r.URL.Query().Get("v"), Path: "/"})
		html("set")(w, r)
	})
	mux.HandleFunc("/show", func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie("who")
		v := "none"
		if err == nil {
			v = c.Value
		}
		html("cookie="+v)(w, r)
	})
	s := newSite(t, mux)
	m := newTestManager(t, Options{})

	a := mustOpen(t, m, "local", "alpha")
	b := mustOpen(t, m, "local", "beta")
	if a.ID == b.ID {
		t.Fatal("two purposes share an environment")
	}
	mustNavigate(t, a, s.URL+"/set?v=alpha")
	mustNavigate(t, a, s.URL+"/show")
	if got := bodyText(t, a); got != "cookie=alpha" {
		t.Fatalf("alpha sees %q", got)
	}
	mustNavigate(t, b, s.URL+"/show")
	if got := bodyText(t, b); got != "cookie=none" {
		t.Fatalf("beta sees %q, want no cookie", got)
	}
	// localStorage is separate as well.
	pa := a.Page().Context(testCtx(t, time.Minute))
	if _, err := pa.Eval(`() => localStorage.setItem("k", "alpha")`); err != nil {
		t.Fatal(err)
	}
	pb := b.Page().Context(testCtx(t, time.Minute))
	if res, err := pb.Eval(`() => String(localStorage.getItem("k"))`); err != nil || res.Value.Str() != "null" {
		t.Fatalf("beta's localStorage k = %v, %v", res, err)
	}

	// A held environment is not handed out again.
	a2 := mustOpen(t, m, "local", "alpha")
	if a2.ID == a.ID {
		t.Fatal("Open returned an environment another call holds")
	}
	mustNavigate(t, a2, s.URL+"/show")
	if got := bodyText(t, a2); got != "cookie=none" {
		t.Fatalf("a second alpha environment sees %q, want none", got)
	}
	m.Release(a2)

	// An idle one of the same region and purpose is reused, cookies and all;
	// the most recently used first.
	m.Release(a)
	again := mustOpen(t, m, "local", "alpha")
	if again.ID != a.ID {
		t.Fatalf("Open gave %s, want the idle %s", again.ID, a.ID)
	}
	mustNavigate(t, again, s.URL+"/show")
	if got := bodyText(t, again); got != "cookie=alpha" {
		t.Fatalf("reused alpha sees %q", got)
	}
	m.Release(again)
	m.Release(b)

	// A temporary environment is never reused and closes on Release.
	tmp, err := m.OpenTemporary(testCtx(t, 2*time.Minute), "local", "alpha")
	if err != nil {
		t.Fatal(err)
	}
	if tmp.ID == a.ID || tmp.ID == a2.ID || !tmp.Temporary {
		t.Fatalf("OpenTemporary reused %s", tmp.ID)
	}
	mustNavigate(t, tmp, s.URL+"/show")
	if got := bodyText(t, tmp); got != "cookie=none" {
		t.Fatalf("temporary sees %q", got)
	}
	m.Release(tmp)
	_, err = m.Get(tmp.ID)
	wantCode(t, err, errs.EnvNotFound)
	// Its browser context goes too (disposed of in the background, so
	// the call that released it answers at once).
	eventually(t, 30*time.Second, "the temporary context to be disposed of", func() bool {
		res, err := proto.TargetGetBrowserContexts{}.Call(a.Page().Browser())
		return err == nil && !slices.Contains(res.BrowserContextIDs, proto.BrowserBrowserContextID(tmp.BrowserContextID()))
	})
	if re := mustOpen(t, m, "local", "alpha"); re.ID == tmp.ID {
		t.Fatal("a temporary environment was reused")
	} else {
		m.Release(re)
	}
}

func TestLimitsAndLookups(t *testing.T) {
	t.Parallel()
	m := newTestManager(t, Options{MaxEnvironments: 3, MaxPerPurpose: 2, Regions: map[string]Region{"eu": {}, "us": {}}})
	ctx := testCtx(t, 2*time.Minute)

	_, err := m.Open(ctx, "mars", "x")
	wantCode(t, err, errs.InvalidParams)
	if !strings.Contains(err.Error(), `"mars"`) || !strings.Contains(err.Error(), "eu, us") {
		t.Errorf("unknown region message: %v", err)
	}

	x1 := mustOpen(t, m, "eu", "x")
	x2 := mustOpen(t, m, "us", "x")
	_, err = m.Open(ctx, "eu", "x")
	wantCode(t, err, errs.EnvUnavailable)
	if !strings.Contains(err.Error(), "max_per_purpose") {
		t.Errorf("per-purpose message: %v", err)
	}
	if !errs.As(err).Retryable {
		t.Error("a full pool is not retryable")
	}
	// A temporary environment counts toward the pool, not the purpose.
	tmp, err := m.OpenTemporary(ctx, "eu", "x")
	if err != nil {
		t.Fatalf("a temporary environment of a full purpose: %v", err)
	}
	// The pool (3) is full now: a call waits for room within its own
	// deadline, then gives up.
	_, err = m.OpenTemporary(testCtx(t, time.Second), "eu", "x")
	wantCode(t, err, errs.EnvUnavailable)
	m.Release(tmp)

	y := mustOpen(t, m, "eu", "y")
	_, err = m.Open(testCtx(t, time.Second), "eu", "z")
	wantCode(t, err, errs.EnvUnavailable)
	if !strings.Contains(err.Error(), "environment pool is full (3 open") {
		t.Errorf("pool-full message: %v", err)
	}
	// Reuse needs no room.
	m.Release(x1)
	if got := mustOpen(t, m, "eu", "x"); got.ID != x1.ID {
		t.Errorf("reuse at the limit gave %s, want %s", got.ID, x1.ID)
	}
	// Closing makes room.
	if err := m.Close(ctx, y.ID); err != nil {
		t.Fatal(err)
	}
	z := mustOpen(t, m, "eu", "z")

	_, err = m.Get("env_nope")
	wantCode(t, err, errs.EnvNotFound)
	_, err = m.Get(y.ID)
	wantCode(t, err, errs.EnvNotFound)
	if !strings.Contains(err.Error(), "close_env") {
		t.Errorf("closed env message: %v", err)
	}
	_, err = m.Acquire(ctx, y.ID)
	wantCode(t, err, errs.EnvNotFound)
	wantCode(t, m.Close(ctx, y.ID), errs.EnvNotFound)
	if got, err := m.Get(z.ID); err != nil || got != z {
		t.Fatalf("Get(%s) = %v, %v", z.ID, got, err)
	}
	// A call on a closed environment fails with env_not_found.
	err = navigate(t, y, "about:blank")
	wantCode(t, err, errs.EnvNotFound)
	_ = x2
}

func TestIdleReaping(t *testing.T) {
	t.Parallel()
	m := newTestManager(t, Options{IdleTimeout: 300 * time.Millisecond})
	idle := mustOpen(t, m, "", "idle")
	busy := mustOpen(t, m, "", "busy")
	m.Release(idle)
	eventually(t, 30*time.Second, "the idle environment to be reaped", func() bool {
		_, err := m.Get(idle.ID)
		return errs.CodeOf(err) == errs.EnvNotFound
	})
	_, err := m.Get(idle.ID)
	if !strings.Contains(err.Error(), "idle") {
		t.Errorf("reaped env message: %v", err)
	}
	if _, err := m.Get(busy.ID); err != nil {
		t.Fatalf("a held environment was reaped: %v", err)
	}
	// Use keeps it alive; idleness after release ends it.
	m.Release(busy)
	eventually(t, 30*time.Second, "the released environment to be reaped", func() bool {
		_, err := m.Get(busy.ID)
		return err != nil
	})
}

func TestAcquireSerialisesCalls(t *testing.T) {
	t.Parallel()
	m := newTestManager(t, Options{})
	env := mustOpen(t, m, "", "")
	m.Release(env)
	ctx := testCtx(t, 2*time.Minute)

	var mu sync.Mutex
	var order []string
	first, err := m.Acquire(ctx, env.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !first.Busy() {
		t.Error("an acquired environment is not busy")
	}
	// A second caller with a short deadline gives up.
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	_, err = m.Acquire(short, env.ID)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Acquire on a held env with a short deadline: %v", err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		second, err := m.Acquire(ctx, env.ID)
		if err != nil {
			t.Errorf("second Acquire: %v", err)
			return
		}
		mu.Lock()
		order = append(order, "second")
		mu.Unlock()
		m.Release(second)
	}()
	time.Sleep(300 * time.Millisecond)
	mu.Lock()
	order = append(order, "first done")
	mu.Unlock()
	m.Release(first)
	<-done
	if strings.Join(order, ",") != "first done,second" {
		t.Fatalf("order = %v", order)
	}
	if env.Busy() {
		t.Error("busy after both released")
	}
	// Release twice is harmless.
	m.Release(env)
}

func TestNoBrowserErrorNamesTheFix(t *testing.T) {
	t.Parallel()
	m, err := NewManager(Options{Bin: "/nonexistent/chromium"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = m.Shutdown(context.Background()) }()
	_, err = m.Open(testCtx(t, 10*time.Second), "", "")
	wantCode(t, err, errs.EnvUnavailable)
	if !strings.Contains(err.Error(), "apt-get install -y chromium") || !strings.Contains(err.Error(), "browser.bin") {
		t.Errorf("message does not name the fix: %v", err)
	}
}

func TestOptionsValidation(t *testing.T) {
	t.Parallel()
	for _, o := range []Options{
		{Provider: "docker"},
		{Provider: "cdp"},
		{Provider: "cdp", Endpoints: []string{"ftp://127.0.0.1:9222"}},
		{Provider: "cdp", Endpoints: []string{"127.0.0.1:9222"}},
		{Regions: map[string]Region{"x": {Proxy: "ftp://proxy:21"}}},
	} {
		if _, err := NewManager(o); err == nil {
			t.Errorf("NewManager(%+v) accepted", o)
		} else {
			wantCode(t, err, errs.InvalidParams)
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("message leaks a password: %v", err)
			}
		}
	}
	p, err := parseProxy("us", "http://user:secret@proxy:3128")
	if err != nil || p.server != "http://proxy:3128" || p.user != "user" || p.password != "secret" || !p.hasAuth {
		t.Errorf("parseProxy = %+v, %v", p, err)
	}
	if got := redactProxy("http://user:secret@proxy:3128"); strings.Contains(got, "secret") {
		t.Errorf("redactProxy = %q", got)
	}
}

// TestConcurrentOpensShareOneBrowser: six concurrent opens on a pool of 4
// launch one browser; four open and two wait for room, which never comes
// (nothing is released), so they end env_unavailable, pool full, when their
// context does. That context is cancelled once the four are open and the
// two are waiting (nothing being made): before, the two waited out the
// test's whole 30 s context.
func TestConcurrentOpensShareOneBrowser(t *testing.T) {
	t.Parallel()
	m := newTestManager(t, Options{MaxEnvironments: 4})
	ctx, cancel := context.WithCancel(testCtx(t, 2*time.Minute)) // Chromium's launch at a load of 80 took over 20s
	defer cancel()
	type opened struct {
		env *Env
		err error
	}
	results := make(chan opened, 6)
	for i := range 6 {
		go func() {
			env, err := m.Open(ctx, "", string(rune('a'+i)))
			results <- opened{env, err}
		}()
	}
	var got []opened
	for len(got) < 6 {
		var r opened
		select {
		case r = <-results:
		case <-time.After(100 * time.Millisecond):
			if waitingForRoom(m, 4, 2) {
				cancel() // the two left can only wait for room now
			}
			continue
		}
		got = append(got, r)
	}
	ok, full := 0, 0
	for _, r := range got {
		switch errs.CodeOf(r.err) {
		case errs.OK:
			ok++
			defer m.Release(r.env)
		case errs.EnvUnavailable:
			full++
			if !strings.Contains(r.err.Error(), "environment pool is full (4 open") {
				t.Errorf("refused Open: %v", r.err)
			}
		default:
			t.Errorf("Open: %v", r.err)
		}
	}
	if ok != 4 || full != 2 {
		t.Errorf("opened %d, refused %d; want 4 and 2", ok, full)
	}
	if st := m.Stats(testCtx(t, time.Minute)); st.Browsers != 1 || st.Environments != 4 {
		t.Errorf("stats = %+v", st)
	}
}

// waitingForRoom reports whether m has open environments, nothing being
// opened, and want open calls under way (which can then only be waiting
// for room).
func waitingForRoom(m *Manager, open, want int) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.envs) == open && m.pending == 0 && m.filling == nil && m.wanting == want
}
