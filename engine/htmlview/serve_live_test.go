package htmlview

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/toolwright/toolwright/internal/testsite"
)

// TestServeLive: the live view `toolwright record --live` serves shows
// the page's frames at the URL it returns and nowhere else on its server,
// refuses an address off loopback, and is gone after stop.
func TestServeLive(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"0.0.0.0:0", "192.0.2.1:8091", "127.0.0.1"} {
		if _, _, err := ServeLive(context.Background(), addr, nil, LiveOptions{}); err == nil || !strings.Contains(err.Error(), "loopback") {
			t.Errorf("ServeLive(%q): %v, want a loopback error", addr, err)
		}
	}
	b := testsite.Browser(t)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, secondFactor)
	}))
	defer site.Close()
	env := testsite.NewPage(t, b, site.URL)
	u, stop, err := ServeLive(context.Background(), "127.0.0.1:0", env, LiveOptions{Title: "toolwright record x", Message: "do it once"})
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			stop()
		}
	}()
	p, err := url.Parse(u)
	if err != nil || p.Hostname() != "127.0.0.1" || len(strings.TrimSuffix(strings.TrimPrefix(p.Path, "/live/"), "/")) != 32 {
		t.Fatalf("URL %q: want http://127.0.0.1:PORT/live/<32 hex digits>/", u)
	}
	for _, guess := range []string{"/", "/live/", "/live/00000000000000000000000000000000/"} {
		res, err := http.Get("http://" + p.Host + guess)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404 (only the returned URL serves the view)", guess, res.StatusCode)
		}
	}
	viewer := testsite.NewPage(t, b, u)
	until(t, "a frame in the viewer", func() bool {
		v := viewer.MustEval(`() => document.getElementById('live').getAttribute('data-frames') || '0'`).String()
		return v != "0"
	})
	if got := viewer.MustElement("#message").MustText(); got != "do it once" {
		t.Errorf("message = %q", got)
	}
	stop()
	stopped = true
	if res, err := http.Get(u); err == nil {
		res.Body.Close()
		t.Errorf("GET after stop answered %d, want no server", res.StatusCode)
	}
}
