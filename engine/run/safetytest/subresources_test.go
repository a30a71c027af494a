package safetytest

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"

	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/internal/harness"
	"github.com/toolwright/toolwright/internal/testbrowser"
)

// TestSubresourcesCountedInTrace: under policy.subresources: allowed_hosts a
// page's own requests to another host (here 127.0.0.2) never arrive, the
// call still works, and the step's trace record counts them with their
// URLs. Under the default (any) they arrive and nothing is counted.
func TestSubresourcesCountedInTrace(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no second loopback address: %v", err)
	}
	var mu sync.Mutex
	var arrived []string
	other := &httptest.Server{Listener: l, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		arrived = append(arrived, r.URL.Path)
		mu.Unlock()
	})}}
	other.Start()
	defer other.Close()
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><title>leaky</title><script>
const E = %q;
let left = 2;
const one = () => { if (--left === 0) document.body.append("all refused") };
navigator.sendBeacon(E + "/beacon", "secret");
const img = new Image(); img.onerror = img.onload = one; img.src = E + "/img";
try { const ws = new WebSocket(E.replace("http", "ws") + "/ws"); ws.onerror = one } catch (e) { one() }
</script><body></body>`, other.URL)
	}))
	defer page.Close()
	const wf = `
name: leaky_page
description: Open a page whose scripts send requests elsewhere.
risk: read
deadline: 3m
steps:
  - goto: ${{ config.leaky }}
    timeout: 2m
  - wait: {text: all refused}
    timeout: 2m
output:
  title: ${{ page.title }}
`
	for _, mode := range []string{"allowed_hosts", "any"} {
		t.Run(mode, func(t *testing.T) {
			mu.Lock()
			arrived = nil
			mu.Unlock()
			h := harness.New(t, map[string]string{"leaky_page": wf}, func(c *config.Config) {
				c.Policy.AllowedHosts = []string{"127.0.0.1"}
				c.Policy.Subresources = mode
				c.Vars["leaky"] = page.URL + "/"
			})
			env := h.OK(h.Call("leaky_page", `{}`))
			if env.Data["title"] != "leaky" {
				t.Errorf("title = %v", env.Data["title"])
			}
			held, urls := 0, []string{}
			for _, s := range h.Trace(env).Steps {
				held += s.Held
				urls = append(urls, s.HeldURLs...)
			}
			mu.Lock()
			got := append([]string(nil), arrived...)
			mu.Unlock()
			if mode == "any" {
				if held != 0 {
					t.Errorf("subresources: any held %d requests: %v", held, urls)
				}
				harness.WaitFor(t, time.Minute, "the page's requests to arrive", func() bool {
					mu.Lock()
					defer mu.Unlock()
					return len(arrived) >= 3
				})
				return
			}
			if len(got) != 0 {
				t.Errorf("requests reached the other host: %v", got)
			}
			want := []string{"/beacon", "/img", "/ws"}
			for _, w := range want {
				found := false
				for _, u := range urls {
					found = found || strings.HasSuffix(u, w)
				}
				if !found {
					t.Errorf("the trace does not name %s among the held requests %v", w, urls)
				}
			}
			if held < len(want) {
				t.Errorf("the trace counts %d held requests, want at least %d", held, len(want))
			}
		})
	}
}

// TestRendererCrashIsEnvUnavailable: when the renderer of the page a call
// works in dies (Page.crash here, as a renderer bug or the out-of-memory
// killer would), the call answers env_unavailable (retryable) at once,
// naming the crash, instead of waiting out its step's timeout; the
// environment is closed (env_not_found afterwards) and a new one works.
func TestRendererCrashIsEnvUnavailable(t *testing.T) {
	t.Parallel()
	testbrowser.OwnBrowser(t) // it crashes a renderer
	wfs := map[string]string{
		"crash_open": `name: crash_open
description: Open an environment on the demo site.
risk: read
deadline: 3m
env: new
steps:
  - open_env: {purpose: crash}
    timeout: 2m
  - goto: ${{ config.acme_base }}
    timeout: 2m
output:
  env_id: ${{ env.id }}
`,
		"crash_wait": `name: crash_wait
description: Wait for a text that never comes.
risk: read
deadline: 5m
env: given
steps:
  - wait: {text: never there, timeout: 4m}
`,
	}
	h := harness.New(t, wfs, nil)
	id, _ := h.OK(h.Call("crash_open", `{}`)).Data["env_id"].(string)
	benv, err := h.BM.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan *result.Envelope, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
		defer cancel()
		done <- h.CallCtx(ctx, "crash_wait", fmt.Sprintf(`{"env_id":%q}`, id))
	}()
	// Crash the page once the wait is under way (the call holds the
	// environment then).
	harness.WaitFor(t, 30*time.Second, "the call to hold the environment", benv.Busy)
	crashed := time.Now()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = proto.PageCrash{}.Call(benv.Page().Context(ctx))
	}()
	var env *result.Envelope
	select {
	case env = <-done:
		t.Logf("the call answered %s after the crash", time.Since(crashed).Round(time.Millisecond))
	case <-time.After(2 * time.Minute):
		t.Fatal("the call on a crashed page still waits after two minutes (its wait allows 4m)")
	}
	if h.Code(env, "env_unavailable", "crashed"); !env.Retryable {
		t.Errorf("crashed page, not retryable: %s", env.JSON())
	}
	h.Code(h.Call("crash_wait", fmt.Sprintf(`{"env_id":%q}`, id)), "env_not_found")
	id2, _ := h.OK(h.Call("crash_open", `{}`)).Data["env_id"].(string)
	if id2 == "" || id2 == id {
		t.Errorf("a new environment after the crash: %q", id2)
	}
}
