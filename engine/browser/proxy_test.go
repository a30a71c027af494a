package browser

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/errs"
)

// recordingProxy is a loopback HTTP proxy that answers every request itself
// (no upstream: the tests have no network) and records what it was asked.
type recordingProxy struct {
	*httptest.Server
	mu   sync.Mutex
	reqs []string
}

func newRecordingProxy(t *testing.T, user, password string) *recordingProxy {
	t.Helper()
	p := &recordingProxy{}
	want := "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if user != "" && r.Header.Get("Proxy-Authorization") != want {
			w.Header().Set("Proxy-Authenticate", `Basic realm="test"`)
			w.WriteHeader(http.StatusProxyAuthRequired)
			return
		}
		p.mu.Lock()
		p.reqs = append(p.reqs, r.Method+" "+r.URL.String())
		p.mu.Unlock()
		switch r.URL.Path {
		case "/nocontent":
			w.WriteHeader(http.StatusNoContent)
		case "/missing":
			http.NotFound(w, r)
		default:
			html("via proxy "+r.URL.Host)(w, r)
		}
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *recordingProxy) saw(req string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range p.reqs {
		if r == req {
			return true
		}
	}
	return false
}

func TestRegionProxyAndEgressCheck(t *testing.T) {
	t.Parallel()
	open := newRecordingProxy(t, "", "")
	auth := newRecordingProxy(t, "bob", "s3cret")
	authURL := strings.Replace(auth.URL, "http://", "http://bob:s3cret@", 1)
	m := newTestManager(t, Options{Regions: map[string]Region{
		"local":   {},
		"proxied": {Proxy: open.URL},
		"authed":  {Proxy: authURL},
		"broken":  {Proxy: "http://127.0.0.1:1"},
	}})

	env := mustOpen(t, m, "proxied", "")
	defer m.Release(env)
	mustNavigate(t, env, "http://upstream.test/hello")
	if got := bodyText(t, env); got != "via proxy upstream.test" {
		t.Fatalf("page text = %q", got)
	}
	if !open.saw("GET http://upstream.test/hello") {
		t.Fatalf("the proxy did not see the request: %v", open.reqs)
	}

	direct := mustOpen(t, m, "local", "")
	defer m.Release(direct)
	if err := navigate(t, direct, "http://upstream.test/hello"); err == nil {
		t.Fatal("a region without a proxy reached upstream.test")
	}

	authed := mustOpen(t, m, "authed", "")
	defer m.Release(authed)
	mustNavigate(t, authed, "http://upstream.test/secret")
	if got := bodyText(t, authed); got != "via proxy upstream.test" {
		t.Fatalf("page text through an authenticating proxy = %q", got)
	}
	if !auth.saw("GET http://upstream.test/secret") {
		t.Fatalf("the authenticating proxy did not see the request")
	}

	ctx := testCtx(t, 2*time.Minute)
	if err := CheckEgress(ctx, env, "http://egress.test/ip", 200); err != nil {
		t.Errorf("egress check: %v", err)
	}
	if !open.saw("GET http://egress.test/ip") {
		t.Error("the egress check did not go through the proxy")
	}
	if err := CheckEgress(ctx, authed, "http://egress.test/ip", 0); err != nil {
		t.Errorf("egress check through an authenticating proxy: %v", err)
	}
	err := CheckEgress(ctx, env, "http://egress.test/missing", 200)
	wantCode(t, err, errs.EgressFailed)
	if !strings.Contains(err.Error(), "404") {
		t.Errorf("egress message: %v", err)
	}
	if err := CheckEgress(ctx, env, "http://egress.test/nocontent", 204); err != nil {
		t.Errorf("egress check expecting 204: %v", err)
	}
	broken := mustOpen(t, m, "broken", "")
	defer m.Release(broken)
	err = CheckEgress(ctx, broken, "http://egress.test/ip", 200)
	wantCode(t, err, errs.EgressFailed)
	if !errs.As(err).Retryable {
		t.Error("egress_failed is not retryable")
	}
	// The environment's own page was left where it was.
	if got := bodyText(t, env); got != "via proxy upstream.test" {
		t.Errorf("egress check disturbed the page: %q", got)
	}
}
