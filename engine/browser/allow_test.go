package browser

import (
	"fmt"
	"github.com/go-rod/rod"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestAllowedHostsBlockTopLevelNavigations(t *testing.T) {
	t.Parallel()
	var s *site
	mux := http.NewServeMux()
	s = newSite(t, mux)
	port := s.Listener.Addr().String()
	port = port[strings.LastIndex(port, ":")+1:]
	other := "http://localhost:" + port // the same server, by a host that is not allowed
	mux.HandleFunc("/ok", html(`<p>fine</p><img src="/pixel">`))
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other+"/redirected", http.StatusFound)
	})
	mux.HandleFunc("/link", html(fmt.Sprintf(`<a id="go" href="%s/clicked">go</a>`, other)))
	// The page's own script navigates once asked (go), not on a timer that
	// races the test's wait for its load on a busy machine.
	mux.HandleFunc("/script", html(fmt.Sprintf(`<script>function go() { setTimeout(() => { location.href = %q }, 50) }</script>`, other+"/scripted")))
	mux.HandleFunc("/popup", html(`<p>popup</p>`))
	mux.HandleFunc("/", html("<p>page</p>"))

	m := newTestManager(t, Options{AllowURL: func(raw string) bool {
		u, err := url.Parse(raw)
		return err == nil && u.Hostname() == "127.0.0.1"
	}})
	env := mustOpen(t, m, "", "")
	defer m.Release(env)

	mustNavigate(t, env, s.URL+"/ok")
	if u, ok := env.TakeBlocked(); ok {
		t.Fatalf("allowed page blocked %q", u)
	}
	if !s.seen(s.Listener.Addr().String() + "/pixel") {
		t.Errorf("subresource of an allowed page did not load")
	}

	t.Run("redirect", func(t *testing.T) {
		err := navigate(t, env, s.URL+"/redirect")
		if err == nil || !strings.Contains(err.Error(), "ERR_BLOCKED_BY_CLIENT") {
			t.Errorf("navigate to a redirect: err = %v, want ERR_BLOCKED_BY_CLIENT", err)
		}
		u, ok := env.TakeBlocked()
		if !ok || u != other+"/redirected" {
			t.Errorf("TakeBlocked = %q, %v; want %q", u, ok, other+"/redirected")
		}
	})
	t.Run("link", func(t *testing.T) {
		mustNavigate(t, env, s.URL+"/link")
		p := env.Page().Context(testCtx(t, time.Minute))
		el, err := p.Element("#go")
		if err != nil {
			t.Fatal(err)
		}
		if err := el.Click("left", 1); err != nil {
			t.Fatal(err)
		}
		var u string
		eventually(t, 30*time.Second, "a blocked click", func() bool {
			var ok bool
			u, ok = env.TakeBlocked()
			return ok
		})
		if u != other+"/clicked" {
			t.Errorf("blocked %q, want %q", u, other+"/clicked")
		}
	})
	t.Run("script", func(t *testing.T) {
		mustNavigate(t, env, s.URL+"/script")
		if _, err := env.Page().Context(testCtx(t, time.Minute)).Eval(`() => go()`); err != nil {
			t.Fatal(err)
		}
		var u string
		eventually(t, 30*time.Second, "a blocked script navigation", func() bool {
			var ok bool
			u, ok = env.TakeBlocked()
			return ok
		})
		if u != other+"/scripted" {
			t.Errorf("blocked %q, want %q", u, other+"/scripted")
		}
	})
	t.Run("popup", func(t *testing.T) {
		mustNavigate(t, env, s.URL+"/popup")
		p := env.Page().Context(testCtx(t, time.Minute))
		if _, err := p.Evaluate(rod.Eval(`u => { window.open(u) }`, other+"/popped").ByUser()); err != nil {
			t.Fatal(err)
		}
		var u string
		eventually(t, 30*time.Second, "a blocked popup", func() bool {
			var ok bool
			u, ok = env.TakeBlocked()
			return ok
		})
		if u != other+"/popped" {
			t.Errorf("blocked %q, want %q", u, other+"/popped")
		}
	})
	time.Sleep(200 * time.Millisecond)
	for _, p := range []string{"/redirected", "/clicked", "/scripted", "/popped"} {
		if s.seen("localhost:" + port + p) {
			t.Errorf("a request for localhost:%s%s reached the server", port, p)
		}
	}
	// The page still works after the refusals.
	mustNavigate(t, env, s.URL+"/ok")
	if got := bodyText(t, env); !strings.Contains(got, "fine") {
		t.Errorf("page text = %q", got)
	}
}

// TestNoAllowURLAllowsEverything shows the blocking above is the guard's
// doing: without AllowURL the same navigations reach the server.
func TestNoAllowURLAllowsEverything(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	s := newSite(t, mux)
	port := s.Listener.Addr().String()
	port = port[strings.LastIndex(port, ":")+1:]
	other := "http://localhost:" + port
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other+"/redirected", http.StatusFound)
	})
	mux.HandleFunc("/", html("<p>page</p>"))

	m := newTestManager(t, Options{})
	env := mustOpen(t, m, "", "")
	defer m.Release(env)
	mustNavigate(t, env, s.URL+"/redirect")
	if !s.seen("localhost:" + port + "/redirected") {
		t.Error("the redirect did not reach the server")
	}
	if u, ok := env.TakeBlocked(); ok {
		t.Errorf("blocked %q with no AllowURL", u)
	}
}
