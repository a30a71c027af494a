package app_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/engine/run"
	"github.com/toolwright/toolwright/engine/store/sqlstore"
	"github.com/toolwright/toolwright/internal/testbrowser"
	"github.com/toolwright/toolwright/internal/testsite"
)

// shopSite is a fixture site with a sign-in and a second-factor page. It
// counts how often the sign-in page is loaded. A session is a random sid
// cookie plus a preference the account page keeps in local storage.
type shopSite struct {
	*httptest.Server
	signIns atomic.Int64 // loads of /login
	mu      sync.Mutex
	sids    map[string]bool
	pending map[string]bool // signed in, second factor not yet given
	Code    string          // the second factor
}

func newShopSite(t testing.TB) *shopSite {
	s := &shopSite{sids: map[string]bool{}, pending: map[string]bool{}, Code: "424242"}
	mux := http.NewServeMux()
	page := func(w http.ResponseWriter, title, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><html><head><title>%s</title></head><body>%s</body></html>", title, body)
	}
	cookie := func(r *http.Request, name string) string {
		c, err := r.Cookie(name)
		if err != nil {
			return ""
		}
		return c.Value
	}
	mux.HandleFunc("/login", func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			if r.FormValue("email") != "ada@example.com" || r.FormValue("password") != "correct horse" {
				http.Redirect(w, r, "/login?bad=1", http.StatusSeeOther)
				return
			}
			p := randHex()
			s.mu.Lock()
			s.pending[p] = true
			s.mu.Unlock()
			http.SetCookie(w, &http.Cookie{Name: "pending", Value: p, Path: "/", HttpOnly: true})
			http.Redirect(w, r, "/otp", http.StatusSeeOther)
			return
		}
		s.signIns.Add(1)
		page(w, "Sign in", `<form id="login" method="post" action="/login">
<label>Email <input name="email" id="email"></label>
<label>Password <input name="password" id="password" type="password"></label>
<button type="submit" id="signin">Sign in</button></form>`)
	})
	mux.HandleFunc("/otp", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		ok := s.pending[cookie(r, "pending")]
		s.mu.Unlock()
		if !ok {
			http.Redirect(w, r, "/login", http.StatusSeeOther)
			return
		}
		if r.Method == http.MethodPost {
			if r.FormValue("code") != s.Code {
				http.Redirect(w, r, "/otp?bad=1", http.StatusSeeOther)
				return
			}
			sid := randHex()
			s.mu.Lock()
			s.sids[sid] = true
			s.mu.Unlock()
			http.SetCookie(w, &http.Cookie{Name: "sid", Value: sid, Path: "/", HttpOnly: true, Expires: time.Now().Add(24 * time.Hour)})
			http.Redirect(w, r, "/account", http.StatusSeeOther)
			return
		}
		page(w, "Second factor", `<form id="otp" method="post" action="/otp">
<label>Code <input name="code" id="code" autocomplete="one-time-code" style="font-size:22px"></label>
<button type="submit" id="verify" style="font-size:22px">Verify</button></form>`)
	})
	mux.HandleFunc("/account", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		ok := s.sids[cookie(r, "sid")]
		s.mu.Unlock()
		if !ok {
			http.Redirect(w, r, "/login", http.StatusSeeOther)
			return
		}
		page(w, "Account", `<h1 id="who">Ada Lovelace</h1><p id="pref"></p>
<script>if (!localStorage.getItem('theme')) localStorage.setItem('theme', 'dark-'+Math.random().toString(16).slice(2)); document.getElementById('pref').textContent = localStorage.getItem('theme');</script>`)
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func randHex() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// SIDs are the session cookie values the site handed out.
func (s *shopSite) SIDs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for k := range s.sids {
		out = append(out, k)
	}
	return out
}

// shopSignInSteps sign in on the shop's sign-in page, second factor
// included.
const shopSignInSteps = `  - fill: {target: shop.login.email, value: "${{ secrets.shop_user }}"}
  - fill: {target: shop.login.password, value: "${{ secrets.shop_password }}"}
  - click: shop.login.submit
  - fill: {target: shop.otp.code, value: "${{ secrets.shop_code }}"}
  - click: shop.otp.verify
  - wait: {visible: shop.account.name}
`

// shopProject writes a project whose read_account tool signs in (with
// the second factor) only when the saved session does not take it to the
// account page. Its secrets and sessions.key (shopKey) are files of the
// project (setShopKey changes the key), not environment variables, so
// its tests run in parallel. Its servers open their environments in the
// package's shared Chromium unless the test calls testbrowser.OwnBrowser
// (openShop).
func shopProject(t testing.TB, base, storeURL, ttl string) string {
	return shopProjectKey(t, base, storeURL, ttl, shopKey)
}

// shopProjectKey is shopProject with sessions.key key; with "" the
// project has no sessions.key (sessions are off).
func shopProjectKey(t testing.TB, base, storeURL, ttl, key string) string {
	dir := t.TempDir()
	must := func(name, body string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	must("secrets/shop_user", "ada@example.com")
	must("secrets/shop_password", "correct horse")
	must("secrets/shop_code", "424242")
	cfg := fmt.Sprintf(`workflows: workflows
selectors: selectors.yaml
state_dir: state
vars: {shop_base: %q}
secrets:
  shop_user: {file: secrets/shop_user}
  shop_password: {file: secrets/shop_password}
  shop_code: {file: secrets/shop_code}
browser: {spare: 0}
`, base)
	if key != "" || ttl != "" {
		cfg += "sessions:\n"
	}
	if key != "" {
		must("secrets/session_key", key)
		cfg += "  key: {file: secrets/session_key}\n"
	}
	if ttl != "" {
		cfg += "  ttl: " + ttl + "\n"
	}
	if storeURL != "" {
		cfg += "store: {url: \"" + storeURL + "\"}\n"
	}
	must("toolwright.yaml", cfg)
	must("selectors.yaml", `shop.login.email: {css: "#email"}
shop.login.password: {css: "#password"}
shop.login.submit: {css: "#signin"}
shop.otp.code: {css: "#code"}
shop.otp.verify: {css: "#verify"}
shop.account.name: {css: "#who"}
shop.account.pref: {css: "#pref"}
`)
	must("workflows/sign_in.yaml", `name: sign_in
description: Sign in to the shop with the second factor.
risk: read
purposes: [shop]
session: save
steps:
`+shopSignInSteps)
	must("workflows/read_account.yaml", `name: read_account
description: Read the account holder's name, signing in only when the saved session no longer works.
risk: read
purposes: [shop]
session: save
steps:
  - goto: ${{ config.shop_base }}/account
  - call: {tool: sign_in}
    if: page.url contains "/login"
  - extract: {from: shop.account.name, into: name}
  - extract: {from: shop.account.pref, into: pref}
output:
  name: ${{ vars.name }}
  pref: ${{ vars.pref }}
`)
	return filepath.Join(dir, "toolwright.yaml")
}

// setShopKey makes key the sessions.key of the project at cfgPath (for the
// servers opened after).
func setShopKey(t testing.TB, cfgPath, key string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(filepath.Dir(cfgPath), "secrets", "session_key"), []byte(key), 0o600); err != nil {
		t.Fatal(err)
	}
}

// openShop opens an App (a server process) on the project, logging into
// logs.
func openShop(t testing.TB, cfgPath string, logs *bytes.Buffer) *app.App {
	t.Helper()
	return openApp(t, cfgPath, &syncWriter{b: logs})
}

// openApp opens the project of cfgPath, its environments in the package's
// shared Chromium and its debug log written to logs; closed at cleanup.
func openApp(t testing.TB, cfgPath string, logs io.Writer) *app.App {
	t.Helper()
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	testbrowser.Config(t, cfg)
	a, err := app.Open(cfg, slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = a.Close(ctx)
	})
	return a
}

type syncWriter struct {
	mu sync.Mutex
	b  *bytes.Buffer
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.b == nil {
		return len(p), nil
	}
	return w.b.Write(p)
}

func callShop(t testing.TB, a *app.App) *result.Envelope {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	env, err := a.Engine.Call(ctx, run.Request{Tool: "read_account", Args: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if !env.OK {
		b, _ := json.Marshal(env)
		t.Fatalf("read_account: %s", b)
	}
	return env
}

const shopKey = "a session key of the test, 32 chars"

// TestSessionAcrossRestart: the first call signs in (second factor too)
// and saves; a new server on the same store runs the next call signed in
// without loading the sign-in page, with the local storage restored; the
// database file holds no cookie value in clear.
func TestSessionAcrossRestart(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	site := newShopSite(t)
	cfgPath := shopProject(t, site.URL, "", "")

	var logs bytes.Buffer
	a := openShop(t, cfgPath, &logs)
	first := callShop(t, a)
	if n := site.signIns.Load(); n != 1 {
		t.Fatalf("first call: %d sign-in page loads, want 1", n)
	}
	ctx := context.Background()
	_ = a.Close(ctx)

	b := openShop(t, cfgPath, &logs)
	second := callShop(t, b)
	if n := site.signIns.Load(); n != 1 {
		t.Errorf("after a restart: %d sign-in page loads, want still 1 (the saved session)\n%s", n, logs.String())
	}
	fd, _ := json.Marshal(first.Data)
	sd, _ := json.Marshal(second.Data)
	if !strings.Contains(string(sd), "Ada Lovelace") || string(fd) != string(sd) {
		t.Errorf("data after restart %s, first %s (the local storage preference must come back too)\n%s", sd, fd, logs.String())
	}
	_ = b.Close(ctx)

	db, err := os.ReadFile(filepath.Join(filepath.Dir(cfgPath), "state", "toolwright.db"))
	if err != nil {
		t.Fatal(err)
	}
	wal, _ := os.ReadFile(filepath.Join(filepath.Dir(cfgPath), "state", "toolwright.db-wal"))
	sids := site.SIDs()
	if len(sids) != 1 {
		t.Fatalf("the site handed out %d sessions, want 1", len(sids))
	}
	for _, sid := range sids {
		if bytes.Contains(db, []byte(sid)) || bytes.Contains(wal, []byte(sid)) {
			t.Errorf("the database holds the sid cookie value %s in clear", sid)
		}
	}
	if !strings.Contains(logs.String(), "sessions are on") {
		t.Errorf("no startup line about sessions:\n%s", logs.String())
	}
}

// TestSessionExpired: a session past sessions.ttl costs exactly one
// sign-in, never an error. The ttl is long enough for the last call to
// find the session saved by the one before on a loaded machine (with 3 s,
// it had expired again at a load of 47), and the wait for it to run out
// overlaps the package's other tests.
func TestSessionExpired(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	site := newShopSite(t)
	cfgPath := shopProject(t, site.URL, "", "30s")
	a := openShop(t, cfgPath, nil)
	callShop(t, a)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if _, err := a.Store.GetSession(context.Background(), "shop"); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the session did not expire")
		}
		time.Sleep(200 * time.Millisecond)
	}
	callShop(t, a)
	if n := site.signIns.Load(); n != 2 {
		t.Errorf("after the session expired: %d sign-in page loads, want 2 (one more)", n)
	}
	callShop(t, a)
	if n := site.signIns.Load(); n != 2 {
		t.Errorf("with the new session saved: %d sign-in page loads, want still 2", n)
	}
}

// TestSessionWrongKey: a server with another sessions.key logs that the
// stored session is ignored, signs in, and replaces it; no crash, no error.
func TestSessionWrongKey(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	site := newShopSite(t)
	cfgPath := shopProject(t, site.URL, "", "")
	a := openShop(t, cfgPath, nil)
	callShop(t, a)
	_ = a.Close(context.Background())

	setShopKey(t, cfgPath, "another key entirely, 32 chars..")
	var logs bytes.Buffer
	b := openShop(t, cfgPath, &logs)
	callShop(t, b)
	if n := site.signIns.Load(); n != 2 {
		t.Errorf("with a wrong key: %d sign-in page loads, want 2", n)
	}
	if !strings.Contains(logs.String(), "does not open with this sessions.key") {
		t.Errorf("no log line about the wrong key:\n%s", logs.String())
	}
	callShop(t, b)
	if n := site.signIns.Load(); n != 2 {
		t.Errorf("after the new key saved its own session: %d sign-in loads, want 2", n)
	}
}

// TestSessionsOffWithoutKey: no key, one startup line, every call signs in.
func TestSessionsOffWithoutKey(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	site := newShopSite(t)
	cfgPath := shopProjectKey(t, site.URL, "", "", "")
	var logs bytes.Buffer
	a := openShop(t, cfgPath, &logs)
	callShop(t, a)
	callShop(t, a)
	if n := site.signIns.Load(); n != 2 {
		t.Errorf("sessions off: %d sign-in loads, want 2", n)
	}
	if c := strings.Count(logs.String(), "sessions are off"); c != 1 {
		t.Errorf("%d lines saying sessions are off, want 1:\n%s", c, logs.String())
	}
}

// TestSessionSharedByReplicas: two replicas on one PostgreSQL store; the
// first signs in, the second runs signed in.
func TestSessionSharedByReplicas(t *testing.T) {
	pg := os.Getenv("TOOLWRIGHT_TEST_PG")
	if pg == "" {
		t.Skip("TOOLWRIGHT_TEST_PG is not set (bash examples/scale/pg.sh start DIR PORT)")
	}
	testsite.NeedChromium(t)
	site := newShopSite(t)
	url := freshPGDatabase(t, pg)
	cfgPath := shopProject(t, site.URL, url, "")
	r1 := openShop(t, cfgPath, nil)
	r2 := openShop(t, cfgPath, nil)
	callShop(t, r1)
	callShop(t, r2)
	if n := site.signIns.Load(); n != 1 {
		t.Errorf("two replicas: %d sign-in page loads, want 1", n)
	}
}

// freshPGDatabase is a fresh schema of TOOLWRIGHT_TEST_PG (dropped at the
// end) as a store.url.
func freshPGDatabase(t *testing.T, u string) string {
	admin := openStore(t, func() (*sqlstore.DB, error) { return sqlstore.OpenPostgres(u, sqlstore.Options{}) })
	schema := fmt.Sprintf("tw_sess_%d", time.Now().UnixNano())
	if err := admin.ExecRaw(context.Background(), `CREATE SCHEMA `+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.ExecRaw(context.Background(), `DROP SCHEMA `+schema+` CASCADE`) })
	if strings.Contains(u, "?") {
		return u + "&search_path=" + schema
	}
	return u + "?search_path=" + schema
}

// BenchmarkSavedSession: a read action (read_account, env: temporary) on
// a saved session against the same action signing in every time (the
// sign-in with its second factor; sessions off), run alternating, one call
// each a round; it reports both medians in ms and their ratio.
//
//	go test ./engine/app -run '^$' -bench SavedSession -benchtime 10x
func BenchmarkSavedSession(b *testing.B) {
	testsite.NeedChromium(b)
	site := newShopSite(b)
	saved := openShop(b, shopProject(b, site.URL, "", ""), nil)
	every := openShop(b, shopProjectKey(b, site.URL, "", "", ""), nil)
	callShop(b, saved) // signs in once and saves
	callShop(b, every) // both browsers started
	var withSession, signingIn []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, side := range []struct {
			a   *app.App
			out *[]float64
		}{{saved, &withSession}, {every, &signingIn}} {
			t0 := time.Now()
			callShop(b, side.a)
			*side.out = append(*side.out, float64(time.Since(t0).Microseconds())/1000)
		}
	}
	b.StopTimer()
	ms, mi := median(withSession), median(signingIn)
	b.ReportMetric(ms, "saved-ms")
	b.ReportMetric(mi, "signin-ms")
	b.ReportMetric(ms/mi, "ratio")
	b.Logf("saved session: median %.0f ms %v; signing in every time: median %.0f ms %v (%d rounds)", ms, withSession, mi, signingIn, b.N)
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// keptShopProject adds to shopProject two tools of a kept environment:
// sign_in_kept opens an environment of purpose shop and signs in by hand
// (no session: save), close_kept closes a given one. Environments idle
// for idle are reaped.
func keptShopProject(t testing.TB, base, idle string) string {
	cfgPath := shopProject(t, base, "", "")
	dir := filepath.Dir(cfgPath)
	b, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg := strings.Replace(string(b), "browser: {spare: 0}", "browser: {spare: 0, idle_timeout: "+idle+"}", 1)
	files := map[string]string{
		"toolwright.yaml": cfg,
		"workflows/sign_in_kept.yaml": `name: sign_in_kept
description: Open a kept environment of the shop and sign in there, without saving a session.
risk: read
env: new
steps:
  - open_env: {purpose: shop}
    timeout: 60s # a browser starting on a loaded machine
  - goto: ${{ config.shop_base }}/account
` + shopSignInSteps + `output:
  env_id: ${{ env.id }}
`,
		"workflows/close_kept.yaml": `name: close_kept
description: Close a kept environment of the shop.
risk: read
env: given
purposes: [shop]
steps:
  - close_env: {}
`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return cfgPath
}

// TestSessionSavedOnCloseAndReaping (issue 21): a kept environment
// signed in without session: save leaves its sign-in as the purpose's
// session when close_env closes it and when the idle reaper does, so the
// next temporary call of that purpose loads no sign-in page. Reaping
// saved nothing before (the config's doc promised it).
func TestSessionSavedOnCloseAndReaping(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	for _, how := range []string{"close_env", "reaping"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			site := newShopSite(t)
			var logs bytes.Buffer
			// close_env closes it: no reaper may come first (with 2 s, it
			// reaped the environment before close_kept ran at a load of 40:
			// env_not_found).
			idle := "10m"
			if how == "reaping" {
				idle = "2s"
			}
			a := openShop(t, keptShopProject(t, site.URL, idle), &logs)
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
			defer cancel()
			call := func(tool, args string) *result.Envelope {
				t.Helper()
				env, err := a.Engine.Call(ctx, run.Request{Tool: tool, Args: json.RawMessage(args)})
				if err != nil {
					t.Fatal(err)
				}
				if !env.OK {
					b, _ := json.Marshal(env)
					t.Fatalf("%s: %s\n%s", tool, b, logs.String())
				}
				return env
			}
			opened := call("sign_in_kept", `{}`)
			id, _ := opened.Data["env_id"].(string)
			if how == "close_env" {
				// (Checked here only: with reaping, the reaper may
				// already have saved it.)
				if _, err := a.Store.GetSession(ctx, "shop"); err == nil {
					t.Fatal("a session was saved by a workflow without session: save")
				}
				call("close_kept", fmt.Sprintf(`{"env_id": %q}`, id))
			}
			// Reaped within idle_timeout and a quarter of it; the
			// ceiling is generous for a loaded machine.
			deadline := time.Now().Add(2 * time.Minute)
			for {
				if _, err := a.Store.GetSession(ctx, "shop"); err == nil {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("no session of purpose shop after %s\n%s", how, logs.String())
				}
				time.Sleep(100 * time.Millisecond)
			}
			callShop(t, a)
			if n := site.signIns.Load(); n != 1 {
				t.Errorf("after %s: %d sign-in page loads, want 1 (the kept environment's)\n%s", how, n, logs.String())
			}
		})
	}
}
