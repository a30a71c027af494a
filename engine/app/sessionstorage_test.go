package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/run"
	"github.com/toolwright/toolwright/internal/testsite"
)

// tabSite keeps its sign-in in sessionStorage, as many single-page apps
// keep a bearer token: /login's button stores a random token and opens
// /app, which shows it, or sends a tab without one to /login. /plain
// stores nothing. It counts the loads of /login.
func tabSite(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var logins atomic.Int64
	page := func(w http.ResponseWriter, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><html><head><title>Tab</title></head><body>%s</body></html>", body)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/login", func(w http.ResponseWriter, r *http.Request) {
		logins.Add(1)
		page(w, `<button id="signin" onclick="sessionStorage.setItem('token', 'tok-' + Math.random().toString(16).slice(2)); location.href = '/app';">Sign in</button>`)
	})
	mux.HandleFunc("/app", func(w http.ResponseWriter, r *http.Request) {
		page(w, `<script>const t = sessionStorage.getItem('token');
if (t) document.body.innerHTML = '<h1 id="who">' + t + '</h1>'; else location.replace('/login');</script>`)
	})
	mux.HandleFunc("/plain", func(w http.ResponseWriter, r *http.Request) { page(w, `<p id="plain">Nothing kept here</p>`) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv, &logins
}

// tabProject is a project on tabSite with sessions on: read_tab signs in
// only when its tab holds no token, peek saves the session of a purpose
// that stored nothing.
func tabProject(t *testing.T, base string) string {
	dir := t.TempDir()
	files := map[string]string{
		"secrets/session_key": shopKey,
		"toolwright.yaml": fmt.Sprintf(`workflows: workflows
selectors: selectors.yaml
state_dir: state
vars: {tab_base: %q}
browser: {spare: 0}
sessions: {key: {file: secrets/session_key}}
`, base),
		"selectors.yaml": "tab.signin: {css: \"#signin\"}\ntab.who: {css: \"#who\"}\ntab.plain: {css: \"#plain\"}\n",
		"workflows/read_tab.yaml": `name: read_tab
description: Read the signed-in token, signing in only when the tab holds none.
risk: read
purposes: [tab]
session: save
steps:
  - goto: ${{ config.tab_base }}/app
  - wait: {any: [{visible: tab.who}, {visible: tab.signin}]}
  - click: tab.signin
    when: {visible: tab.signin}
  - wait: {visible: tab.who}
  - extract: {from: tab.who, into: who}
output:
  who: ${{ vars.who }}
`,
		"workflows/peek.yaml": `name: peek
description: Open a page that keeps nothing and save the session.
risk: read
purposes: [blank]
session: save
steps:
  - goto: ${{ config.tab_base }}/plain
  - wait: {visible: tab.plain}
`,
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "toolwright.yaml")
}

// TestSessionKeepsSessionStorage: a site whose sign-in lives in
// sessionStorage signs in once; the next call's new environment gets the
// token back before the page's scripts run, and the saved session holds
// it. A purpose whose saved session holds nothing is a warning naming it.
// Before (issue 48): the session was saved empty, with no warning, and
// every call signed in again.
func TestSessionKeepsSessionStorage(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	site, logins := tabSite(t)
	var logs bytes.Buffer
	a := openApp(t, tabProject(t, site.URL), &syncWriter{b: &logs})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	call := func(tool string) map[string]any {
		t.Helper()
		env, err := a.Engine.Call(ctx, run.Request{Tool: tool, Args: json.RawMessage(`{}`)})
		if err != nil {
			t.Fatal(err)
		}
		if !env.OK {
			b, _ := json.Marshal(env)
			t.Fatalf("%s: %s", tool, b)
		}
		return env.Data
	}
	first := call("read_tab")
	second := call("read_tab")
	if n := logins.Load(); n != 1 || first["who"] != second["who"] {
		t.Errorf("%d sign-in page loads (want 1); tokens %v then %v (want the same)\n%s", n, first["who"], second["who"], logs.String())
	}
	key, err := run.SessionKey(a.Config)
	if err != nil {
		t.Fatal(err)
	}
	state, _, err := run.LoadSession(ctx, a.Store, key, "tab")
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(state); !strings.Contains(string(b), `"sessionStorage":[{"name":"token","value":"`+fmt.Sprint(first["who"])) || strings.Contains(string(b), "__toolwright") {
		t.Errorf("saved session %s: want the token under sessionStorage, and not the restore mark", b)
	}
	if strings.Contains(logs.String(), "holds nothing") {
		t.Errorf("a warning about an empty session of a session holding a token:\n%s", logs.String())
	}
	call("peek")
	if l := logs.String(); !strings.Contains(l, "the saved session holds nothing") || !strings.Contains(l, "purpose=blank") {
		t.Errorf("no warning naming purpose blank about its empty session:\n%s", l)
	}
}
