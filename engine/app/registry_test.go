package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/go-rod/rod"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/launcher"
	"github.com/go-rod/rod/lib/proto"

	"github.com/toolwright/toolwright/engine/browser"
	cdpprovider "github.com/toolwright/toolwright/engine/browser/provider/cdp"
	"github.com/toolwright/toolwright/engine/browser/provider/webdriver"
	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/store"
	"github.com/toolwright/toolwright/engine/store/sqlstore"
	"github.com/toolwright/toolwright/engine/store/storetest"
	"github.com/toolwright/toolwright/internal/testsite"
)

// TestMain runs the parallel tests testsite.Parallel at a time.
func TestMain(m *testing.M) { testsite.Main(m) }

// replica is one toolwright process's browser manager on the shared
// registry.
func replica(t *testing.T, st store.Store, endpoints []string, lease time.Duration) *browser.Manager {
	t.Helper()
	return newReplica(t, st, browser.Options{Provider: cdpprovider.Name, Endpoints: endpoints,
		LeaseDuration: lease, MaxEnvironments: 3, MaxPerPurpose: 2})
}

// newReplica is a headless browser manager on st's registry, shut down at
// the end of the test.
func newReplica(t *testing.T, st store.Store, o browser.Options) *browser.Manager {
	t.Helper()
	o.Headless, o.Registry = true, st
	m, err := browser.NewManager(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		_ = m.Shutdown(ctx)
	})
	return m
}

// wait is the ceiling of one browser or store operation of these tests:
// generous, for a machine at a high load (a 20 s Open failed at a load of
// about 20 with the package's tests in parallel).
const wait = 2 * time.Minute

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// openEnv opens an environment of purpose through m; while the answer is
// that the browser endpoint did not answer (env_unavailable, retryable: the
// cdp provider gives one dial 5 s, which a machine at a load of 40 went
// past), it asks again, as a client does, within wait. Any other error
// fails the test.
func openEnv(t *testing.T, m *browser.Manager, purpose string) *browser.Env {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		env, err := m.Open(ctxT(t, wait), "", purpose)
		if err == nil {
			return env
		}
		if errs.CodeOf(err) != errs.EnvUnavailable || !strings.Contains(err.Error(), "no browser endpoint answers") || time.Now().After(deadline) {
			t.Fatalf("open an environment of %s: %v", purpose, err)
		}
		t.Logf("open again: %v", err)
		time.Sleep(time.Second)
	}
}

func eval(t *testing.T, e *browser.Env, js string) string {
	t.Helper()
	ctx, cancel := e.Bind(ctxT(t, time.Minute))
	defer cancel()
	v, err := e.Page().Context(ctx).Eval(js)
	if err != nil {
		t.Fatalf("eval %s: %v", js, e.Check(err))
	}
	return v.Value.String()
}

func navigate(t *testing.T, e *browser.Env, u string) {
	t.Helper()
	ctx, cancel := e.Bind(ctxT(t, time.Minute))
	defer cancel()
	p := e.Page().Context(ctx)
	if err := p.Navigate(u); err != nil {
		t.Fatalf("navigate %s: %v", u, e.Check(err))
	}
	if err := p.WaitLoad(); err != nil {
		t.Fatalf("load %s: %v", u, e.Check(err))
	}
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	if errs.CodeOf(err) != code {
		t.Fatalf("got %v (%s), want %s", err, errs.CodeOf(err), code)
	}
}

// Two replicas share one registry (two handles on one database, as two
// processes) and one remote browser: an environment opened through A is
// used through B with its page and cookies, one call at a time across
// both, the pool limits count both, a replica that stops without letting
// go frees the environment when its lease runs out, and a killed browser
// leaves env_not_found on every replica.
func testTwoReplicas(t *testing.T, open func(t *testing.T) (store.Store, store.Store)) {
	site := testsite.Start(t)
	ep, kill := testsite.RemoteChromium(t)
	sa, sb := open(t)
	const lease = time.Second
	a := replica(t, sa, []string{ep}, lease)
	b := replica(t, sb, []string{ep}, lease)

	env := openEnv(t, a, "orders")
	navigate(t, env, site.URL("/links.html"))
	eval(t, env, `() => { document.cookie = "who=replica-a; path=/"; return "" }`)
	id := env.ID
	a.Release(env)

	// B attaches by id: same page, same cookies.
	eb, err := b.Acquire(ctxT(t, wait), id)
	if err != nil {
		t.Fatalf("B cannot use A's environment: %v", err)
	}
	if got := eval(t, eb, `() => location.pathname + " " + document.cookie`); got != "/links.html who=replica-a" {
		t.Fatalf("B sees %q", got)
	}
	if region, purpose, err := a.Describe(ctxT(t, wait), id); err != nil || purpose != "orders" || region != "local" {
		t.Fatalf("describe: %s %s %v", region, purpose, err)
	}
	// While B holds it, A waits (and gives up with its ctx).
	wctx, wcancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	_, err = a.Acquire(wctx, id)
	wcancel()
	wantCode(t, err, errs.DeadlineExceeded)
	b.Release(eb)
	ea, err := a.Acquire(ctxT(t, wait), id)
	if err != nil {
		t.Fatalf("A after B released: %v", err)
	}
	navigate(t, ea, site.URL("/links.html?again"))
	if got := eval(t, ea, `() => location.search + " " + document.cookie`); got != "?again who=replica-a" {
		t.Fatalf("A after B sees %q", got)
	}

	// The limits count both replicas: 3 in all, 2 kept per purpose.
	openEnv(t, b, "orders")
	_, err = b.Open(ctxT(t, wait), "", "orders")
	wantCode(t, err, errs.EnvUnavailable)
	if !strings.Contains(err.Error(), "max_per_purpose") {
		t.Fatalf("third orders environment: %v", err)
	}

	// A stops without releasing (as a replica that was SIGKILLed mid-call
	// does): B gets the environment once the lease runs out.
	a.Provider().Close(context.Background())
	start := time.Now()
	eb, err = b.Acquire(ctxT(t, wait), id)
	if err != nil {
		t.Fatalf("after A died: %v", err)
	}
	if waited := time.Since(start); waited > time.Minute { // the lease is a second
		t.Fatalf("waited %s for a dead replica's lease", waited)
	}
	if got := eval(t, eb, `() => document.cookie`); got != "who=replica-a" {
		t.Fatalf("after takeover B sees %q", got)
	}
	_ = ea
	b.Release(eb)

	// The browser dies: the environment is gone for every replica.
	kill()
	eb, _ = b.Acquire(ctxT(t, wait), id)
	if eb != nil {
		waitGone(t, eb)
		b.Release(eb)
	}
	eventually(t, wait, "env_not_found on both replicas", func() bool {
		_, errB := b.Acquire(ctxT(t, 10*time.Second), id)
		_, _, errA := a.Describe(ctxT(t, 10*time.Second), id)
		return errs.CodeOf(errB) == errs.EnvNotFound && errs.CodeOf(errA) == errs.EnvNotFound
	})
}

func waitGone(t *testing.T, e *browser.Env) {
	eventually(t, wait, "the environment to notice its browser died", func() bool { return e.Err() != nil })
}

func eventually(t *testing.T, d time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestTwoReplicasSQLite(t *testing.T) {
	t.Parallel()
	testTwoReplicas(t, func(t *testing.T) (store.Store, store.Store) {
		path := filepath.Join(t.TempDir(), sqlstore.FileName)
		return openStore(t, func() (*sqlstore.DB, error) { return sqlstore.OpenSQLite(path, sqlstore.Options{}) }),
			openStore(t, func() (*sqlstore.DB, error) { return sqlstore.OpenSQLite(path, sqlstore.Options{}) })
	})
}

func TestTwoReplicasPostgres(t *testing.T) { testTwoReplicas(t, postgresPair) }

// postgresPair is two handles (as two replicas) on one fresh schema of
// TOOLWRIGHT_TEST_PG.
func postgresPair(t *testing.T) (store.Store, store.Store) {
	u := storetest.PostgresURL(t)
	s := openStore(t, func() (*sqlstore.DB, error) { return sqlstore.OpenPostgres(u, sqlstore.Options{}) })
	schema := fmt.Sprintf("tw_app_%d", time.Now().UnixNano())
	if err := s.ExecRaw(context.Background(), `CREATE SCHEMA `+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.ExecRaw(context.Background(), `DROP SCHEMA `+schema+` CASCADE`) })
	su := u + "&search_path=" + schema
	if !strings.Contains(u, "?") {
		su = u + "?search_path=" + schema
	}
	return openStore(t, func() (*sqlstore.DB, error) { return sqlstore.OpenPostgres(su, sqlstore.Options{}) }),
		openStore(t, func() (*sqlstore.DB, error) { return sqlstore.OpenPostgres(su, sqlstore.Options{}) })
}

func TestSharedReuseAndReapingPostgres(t *testing.T) { testSharedReuseAndReaping(t, postgresPair) }

func openStore(t *testing.T, open func() (*sqlstore.DB, error)) *sqlstore.DB {
	t.Helper()
	s, err := open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// A popup to a host outside the allowed hosts is stopped while two
// replicas are attached to the same browser: the replica that did not open
// the environment applies the same rules to the popup instead of resuming
// it before the owner's rules are in place.
func TestPopupBlockedWithTwoReplicas(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	seen := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.Path]++
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<p>page</p>")
	}))
	t.Cleanup(srv.Close)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	other := fmt.Sprintf("http://localhost:%d", port) // the same server by a host that is not allowed
	allow := func(raw string) bool {
		u, err := url.Parse(raw)
		return err == nil && (u.Hostname() == "127.0.0.1" || u.Scheme == "about")
	}
	ep, _ := testsite.RemoteChromium(t)
	path := filepath.Join(t.TempDir(), sqlstore.FileName)
	mk := func() *browser.Manager {
		st := openStore(t, func() (*sqlstore.DB, error) { return sqlstore.OpenSQLite(path, sqlstore.Options{}) })
		return newReplica(t, st, browser.Options{Provider: cdpprovider.Name, Endpoints: []string{ep}, AllowURL: allow})
	}
	a, b := mk(), mk()
	envB := openEnv(t, b, "other") // B is attached to the browser too
	defer b.Release(envB)
	env := openEnv(t, a, "shop")
	defer a.Release(env)
	for i := range 5 {
		ctx, cancel := env.Bind(ctxT(t, wait))
		p := env.Page().Context(ctx)
		if err := p.Navigate(srv.URL + "/opener"); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Evaluate(rod.Eval(`u => { window.open(u) }`, fmt.Sprintf("%s/popped-%d", other, i)).ByUser()); err != nil {
			t.Fatal(err)
		}
		cancel()
		eventually(t, wait, "a blocked popup", func() bool { _, ok := env.TakeBlocked(); return ok })
	}
	time.Sleep(300 * time.Millisecond)
	mu.Lock()
	for p, n := range seen {
		if strings.HasPrefix(p, "/popped") {
			t.Errorf("the popup's request %s reached the server %d times", p, n)
		}
	}
	if seen["/opener"] != 5 {
		t.Errorf("opener loaded %d times", seen["/opener"])
	}
	mu.Unlock()
	// B takes A's environment over, opens a popup there, and gives it back:
	// A goes on in it.
	a.Release(env)
	eb, err := b.Acquire(ctxT(t, wait), env.ID)
	if err != nil {
		t.Fatal(err)
	}
	navigate(t, eb, srv.URL+"/opener-b")
	ctx, cancel := eb.Bind(ctxT(t, wait))
	if _, err := eb.Page().Context(ctx).Evaluate(rod.Eval(`u => { window.open(u) }`, other+"/popped-b").ByUser()); err != nil {
		t.Fatal(err)
	}
	cancel()
	eventually(t, wait, "a blocked popup through B", func() bool { _, ok := eb.TakeBlocked(); return ok })
	b.Release(eb)
	env, err = a.Acquire(ctxT(t, wait), env.ID)
	if err != nil {
		t.Fatal(err)
	}
	navigate(t, env, srv.URL+"/after")
	time.Sleep(300 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if seen["/popped-b"] != 0 || seen["/after"] != 1 {
		t.Errorf("seen %v", seen)
	}
}

// browser.provider webdriver with two replicas: an environment is a
// WebDriver session of its own, recorded in the registry with its session
// URL; a replica that shuts down leaves kept sessions alive for the
// others; any replica attaches to the browser by the recorded CDP address,
// and the one that closes the environment deletes the session.
func TestWebDriverTwoReplicas(t *testing.T) {
	t.Parallel()
	site := testsite.Start(t)
	driver := testsite.ChromeDriver(t)
	path := filepath.Join(t.TempDir(), sqlstore.FileName)
	mk := func() (*browser.Manager, store.Store) {
		st := openStore(t, func() (*sqlstore.DB, error) { return sqlstore.OpenSQLite(path, sqlstore.Options{}) })
		return newReplica(t, st, browser.Options{Provider: webdriver.Name, Endpoints: []string{driver}}), st
	}
	a, st := mk()
	b, _ := mk()

	env, err := a.Open(ctxT(t, wait), "", "orders")
	if err != nil {
		t.Fatal(err)
	}
	navigate(t, env, site.URL("/links.html"))
	eval(t, env, `() => { document.cookie = "who=replica-a; path=/"; return "" }`)
	a.Release(env)
	rec, err := st.GetEnv(ctxT(t, wait), env.ID)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Provider != webdriver.Name || !strings.HasPrefix(rec.Session, driver+"/session/") || rec.Endpoint == "" || rec.TargetID == "" {
		t.Fatalf("registry record %+v", rec)
	}
	alive := func() int {
		res, err := http.Get(rec.Session + "/timeouts")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}

	// A shuts down: the kept environment's session lives on, and B uses it.
	if err := a.Shutdown(ctxT(t, wait)); err != nil {
		t.Fatal(err)
	}
	if code := alive(); code != http.StatusOK {
		t.Fatalf("the session answers %d after the replica that made it shut down", code)
	}
	eb, err := b.Acquire(ctxT(t, wait), env.ID)
	if err != nil {
		t.Fatalf("B cannot use A's WebDriver environment: %v", err)
	}
	if got := eval(t, eb, `() => location.pathname + " " + document.cookie`); got != "/links.html who=replica-a" {
		t.Fatalf("B sees %q", got)
	}
	b.Release(eb)

	// B closes it: the session is deleted, for everyone.
	if err := b.Close(ctxT(t, wait), env.ID); err != nil {
		t.Fatal(err)
	}
	if code := alive(); code != http.StatusNotFound {
		t.Fatalf("the session answers %d after close_env, want 404", code)
	}
	c, _ := mk()
	_, err = c.Acquire(ctxT(t, wait), env.ID)
	wantCode(t, err, errs.EnvNotFound)
}

// Across replicas, open_env reuses an idle environment another replica
// made (with its cookies), and idle reaping counts the registry: an
// environment no call used for idle_timeout is closed by a replica that
// never had it (its browser context disposed of, env_not_found for
// everyone), while one a call holds is left alone.
func testSharedReuseAndReaping(t *testing.T, open func(t *testing.T) (store.Store, store.Store)) {
	site := testsite.Start(t)
	ep, _ := testsite.RemoteChromium(t)
	sa, sb := open(t)
	mk := func(st store.Store, idle time.Duration) *browser.Manager {
		return newReplica(t, st, browser.Options{Provider: cdpprovider.Name, Endpoints: []string{ep}, IdleTimeout: idle})
	}
	a, b := mk(sa, time.Hour), mk(sb, time.Hour)

	env := openEnv(t, a, "shop")
	navigate(t, env, site.URL("/links.html"))
	eval(t, env, `() => { document.cookie = "who=signed-in-via-a; path=/"; return "" }`)
	a.Release(env)

	// B's open_env for the same purpose gets A's idle environment.
	eb := openEnv(t, b, "shop")
	if eb.ID != env.ID {
		t.Fatalf("B opened %s instead of reusing A's idle %s", eb.ID, env.ID)
	}
	if got := eval(t, eb, `() => document.cookie`); got != "who=signed-in-via-a" {
		t.Fatalf("B's reused environment has cookies %q", got)
	}
	// While B holds it, A's open_env makes another.
	ea2 := openEnv(t, a, "shop")
	if ea2.ID == env.ID {
		t.Fatal("A reused an environment B's call holds")
	}
	b.Release(eb) // idle from now on; A keeps holding ea2

	// C reaps with a short idle_timeout: the idle one goes, the held one stays.
	c := mk(sb, time.Second)
	eventually(t, wait, "the idle environment to be reaped by a replica that never had it", func() bool {
		rec, err := sa.GetEnv(ctxT(t, wait), env.ID)
		return err == nil && rec.Closed
	})
	rec, _ := sa.GetEnv(ctxT(t, wait), env.ID)
	if !strings.HasPrefix(rec.ClosedWhy, "idle for ") {
		t.Errorf("closed because %q", rec.ClosedWhy)
	}
	_, err := b.Acquire(ctxT(t, wait), env.ID)
	wantCode(t, err, errs.EnvNotFound)
	if ids := contexts(t, ep); ids[rec.ContextID] {
		t.Errorf("the reaped environment's browser context %s is still in the browser", rec.ContextID)
	}
	held, err := sa.GetEnv(ctxT(t, wait), ea2.ID)
	if err != nil || held.Closed {
		t.Fatalf("the held environment was reaped: %+v %v", held, err)
	}
	if got := eval(t, ea2, `() => "alive"`); got != "alive" {
		t.Fatalf("held environment: %q", got)
	}
	a.Release(ea2)
	_ = c
}

// contexts lists the browser contexts of the browser at endpoint.
func contexts(t *testing.T, endpoint string) map[string]bool {
	t.Helper()
	u, err := launcher.ResolveURL(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	ws := &cdp.WebSocket{}
	if err := ws.Connect(ctxT(t, wait), u, nil); err != nil {
		t.Fatal(err)
	}
	defer ws.Close() // the connection only: the browser runs on
	raw, err := cdp.New().Start(ws).Call(ctxT(t, wait), "", "Target.getBrowserContexts", nil)
	if err != nil {
		t.Fatal(err)
	}
	var res proto.TargetGetBrowserContextsResult
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, id := range res.BrowserContextIDs {
		ids[string(id)] = true
	}
	return ids
}

func TestSharedReuseAndReapingSQLite(t *testing.T) {
	t.Parallel()
	testSharedReuseAndReaping(t, func(t *testing.T) (store.Store, store.Store) {
		path := filepath.Join(t.TempDir(), sqlstore.FileName)
		return openStore(t, func() (*sqlstore.DB, error) { return sqlstore.OpenSQLite(path, sqlstore.Options{}) }),
			openStore(t, func() (*sqlstore.DB, error) { return sqlstore.OpenSQLite(path, sqlstore.Options{}) })
	})
}
