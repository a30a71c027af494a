package browser

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// elsewhere is a loopback server on another address (127.0.0.2), a host
// outside the allowed ones, that records the path of every request.
type elsewhere struct {
	*httptest.Server
	mu    sync.Mutex
	paths []string
}

func newElsewhere(t *testing.T) *elsewhere {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no second loopback address: %v", err)
	}
	e := &elsewhere{}
	e.Server = &httptest.Server{Listener: l, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		e.paths = append(e.paths, r.URL.Path)
		e.mu.Unlock()
		w.Header().Set("Access-Control-Allow-Origin", "*")
		_, _ = w.Write([]byte("x"))
	})}}
	e.Start()
	t.Cleanup(e.Close)
	return e
}

func (e *elsewhere) got() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.paths)
}

// subresourceKinds are the requests the test page makes to another host,
// by the path each uses there.
var subresourceKinds = []string{"/fetch", "/xhr", "/img", "/beacon", "/ws", "/iframe", "/events", "/script", "/style", "/worker-fetch", "/worker-ws", "/data-frame-ws", "/blob-worker-ws", "/srcdoc-fetch"}

// exfiltrationSite serves a page on 127.0.0.1 that sends each kind of
// request to other (and a fetch and a WebSocket to its own host).
func exfiltrationSite(t *testing.T, other *elsewhere) *site {
	t.Helper()
	E := other.URL
	WS := "ws://" + other.Listener.Addr().String()
	mux := http.NewServeMux()
	mux.HandleFunc("/w.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprintf(w, `fetch("/own-worker"); fetch(%q + "/worker-fetch").catch(() => {}); try { new WebSocket(%q + "/worker-ws") } catch (e) {}`, E, WS)
	})
	mux.HandleFunc("/own", html("own"))
	mux.HandleFunc("/set", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "who", Value: "held", Path: "/"})
		http.Redirect(w, r, "/show", http.StatusFound)
	})
	mux.HandleFunc("/show", func(w http.ResponseWriter, r *http.Request) {
		v := "none"
		if c, err := r.Cookie("who"); err == nil {
			v = c.Value
		}
		html("cookie="+v)(w, r)
	})
	mux.HandleFunc("/", html(fmt.Sprintf(`<p>page</p><script>
const E = %q, WS = %q;
fetch(E + "/fetch").catch(() => {});
const x = new XMLHttpRequest(); x.open("GET", E + "/xhr"); x.send();
new Image().src = E + "/img";
navigator.sendBeacon(E + "/beacon", "data");
try { new WebSocket(WS + "/ws") } catch (e) {}
const f = document.createElement("iframe"); f.src = E + "/iframe"; document.body.appendChild(f);
new EventSource(E + "/events");
const s = document.createElement("script"); s.src = E + "/script"; document.head.appendChild(s);
const l = document.createElement("link"); l.rel = "stylesheet"; l.href = E + "/style"; document.head.appendChild(l);
new Worker("/w.js");
const d = document.createElement("iframe");
d.src = "data:text/html," + encodeURIComponent("<script>try { new WebSocket(" + JSON.stringify(WS + "/data-frame-ws") + ") } catch (e) {}<\/script>");
document.body.appendChild(d);
new Worker(URL.createObjectURL(new Blob(["try { new WebSocket(" + JSON.stringify(WS + "/blob-worker-ws") + ") } catch (e) {}"], {type: "text/javascript"})));
const sd = document.createElement("iframe");
sd.srcdoc = "<script>fetch(" + JSON.stringify(E + "/srcdoc-fetch") + ").catch(() => {})<\/script>";
document.body.appendChild(sd);
fetch("/own").catch(() => {});
try { new WebSocket("ws://" + location.host + "/own-ws") } catch (e) {}
</script>`, E, WS)))
	return newSite(t, mux)
}

func onlyLoopback(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && u.Hostname() == "127.0.0.1"
}

func TestSubresourcesHeldToAllowedHosts(t *testing.T) {
	t.Parallel()
	other := newElsewhere(t)
	s := exfiltrationSite(t, other)
	m := newTestManager(t, Options{AllowURL: onlyLoopback, HoldSubresources: true,
		ConnectSrc: []string{"127.0.0.1:*", "ws://127.0.0.1:*", "wss://127.0.0.1:*"}})
	env := mustOpen(t, m, "", "")
	defer m.Release(env)
	mustNavigate(t, env, s.URL+"/")

	held := map[string]bool{}
	total := 0
	eventually(t, time.Minute, "every kind of request to be held", func() bool {
		n, urls := env.TakeHeld()
		total += n
		for _, u := range urls {
			if pu, err := url.Parse(u); err == nil {
				held[pu.Path] = true
			}
		}
		for _, k := range subresourceKinds {
			if !held[k] {
				return false
			}
		}
		return true
	})
	if total < len(subresourceKinds) {
		t.Errorf("counted %d held requests, want at least %d", total, len(subresourceKinds))
	}
	// The page's own host is still reachable, by fetch and WebSocket.
	host := s.Listener.Addr().String()
	eventually(t, time.Minute, "the page's own requests", func() bool { return s.seen(host+"/own") && s.seen(host+"/own-ws") })
	if got := other.got(); len(got) != 0 {
		t.Errorf("requests reached the other host: %v", got)
	}
	if u, ok := env.TakeBlocked(); ok {
		t.Errorf("the page itself was blocked: %s", u)
	}
	if got := bodyText(t, env); !strings.Contains(got, "page") {
		t.Errorf("page text = %q", got)
	}
	// Documents the guard answers itself keep what their headers do: a
	// cookie set on a redirect is sent to the page it leads to.
	mustNavigate(t, env, s.URL+"/set")
	if got := bodyText(t, env); got != "cookie=held" {
		t.Errorf("after a cookie and a redirect the page says %q", got)
	}
}

// TestSubresourcesAnyReachOtherHosts is the rule's control: with allowed
// hosts for navigations only (policy.subresources: any), the same page's
// requests all reach the other host.
func TestSubresourcesAnyReachOtherHosts(t *testing.T) {
	t.Parallel()
	other := newElsewhere(t)
	s := exfiltrationSite(t, other)
	m := newTestManager(t, Options{AllowURL: onlyLoopback})
	env := mustOpen(t, m, "", "")
	defer m.Release(env)
	mustNavigate(t, env, s.URL+"/")
	eventually(t, time.Minute, "every kind of request to reach the other host", func() bool {
		got := other.got()
		for _, k := range subresourceKinds {
			if k != "/iframe" && !slices.Contains(got, k) { // frames are refused by allowed_hosts alone
				return false
			}
		}
		return true
	})
	if n, urls := env.TakeHeld(); n != 0 {
		t.Errorf("held %d requests (%v) under subresources: any", n, urls)
	}
}
