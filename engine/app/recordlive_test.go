package app_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/internal/testbrowser"
	"github.com/toolwright/toolwright/internal/testsite"
)

// liveConfig is a project whose policy allows 127.0.0.1 only.
func liveConfig(t *testing.T) *config.Config {
	t.Helper()
	dir := t.TempDir()
	body := "workflows: workflows\nselectors: selectors.yaml\nstate_dir: state\npolicy:\n  allowed_hosts: [127.0.0.1]\n"
	if err := os.MkdirAll(filepath.Join(dir, "workflows"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "toolwright.yaml"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(filepath.Join(dir, "toolwright.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	testbrowser.Config(t, cfg)
	return cfg
}

// `record --live` with a --page outside policy.allowed_hosts is refused
// as a usage error (exit 2) before any browser opens. Before, the live
// view served the page to whoever opened it.
func TestRecordLiveRefusesPageOutsidePolicy(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	out := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>outside</title>`)
	}))
	t.Cleanup(out.Close)
	cfg := liveConfig(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	served := make(chan struct{})
	var once atomic.Bool
	outside := strings.Replace(out.URL, "127.0.0.1", "localhost", 1)
	rec, err := app.Record(ctx, cfg, slog.New(slog.DiscardHandler), app.RecordOptions{
		Name: "outside", URL: outside + "/", LiveAddr: "127.0.0.1:0",
		Say: func(s string) {
			if strings.HasPrefix(s, "no display: open") && once.CompareAndSwap(false, true) {
				close(served)
				cancel() // the page is shown already: that is the failure
			}
		},
	})
	if rec != nil {
		rec.Close()
	}
	select {
	case <-served:
		t.Fatalf("the live view served %s, outside policy.allowed_hosts [127.0.0.1]", outside)
	default:
	}
	var usage app.UsageError
	if !errors.As(err, &usage) || !strings.Contains(err.Error(), "outside policy.allowed_hosts") {
		t.Fatalf("Record = %v, want a usage error naming policy.allowed_hosts", err)
	}
}

// The person's click in the live view on a link to a host outside
// policy.allowed_hosts is refused by the browser's host guard: that host
// never gets a request. Before, the live recording's browser had no guard.
func TestRecordLiveKeepsHostGuard(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	var reached atomic.Int64
	out := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		fmt.Fprint(w, `<!doctype html><title>outside</title>`)
	}))
	t.Cleanup(out.Close)
	outside := strings.Replace(out.URL, "127.0.0.1", "localhost", 1)
	gone := make(chan struct{}, 1)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/gone" { // the start page left: the navigation was decided
			select {
			case gone <- struct{}{}:
			default:
			}
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><title>start</title>
<a id="out" href="%s/" style="position:fixed;left:0;top:0;width:100%%;height:60%%;display:block;background:#ddd">leave</a>
<script>addEventListener('pagehide', () => navigator.sendBeacon('/gone'))</script>`, outside)
	}))
	t.Cleanup(site.Close)
	cfg := liveConfig(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	urls := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		rec, err := app.Record(ctx, cfg, slog.New(slog.DiscardHandler), app.RecordOptions{
			Name: "leave", URL: site.URL + "/", LiveAddr: "127.0.0.1:0",
			Say: func(s string) {
				if u, ok := strings.CutPrefix(s, "no display: open "); ok {
					urls <- strings.Fields(u)[0]
				}
			},
		})
		if rec != nil {
			rec.Close()
		}
		done <- err
	}()
	var live string
	select {
	case live = <-urls:
	case err := <-done:
		t.Fatalf("Record ended before serving the live view: %v", err)
	}
	for _, ev := range []string{`{"t":"mousePressed","x":100,"y":100,"button":"left","buttons":1,"clicks":1}`, `{"t":"mouseReleased","x":100,"y":100,"button":"left","clicks":1}`} {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, live+"input", bytes.NewReader([]byte(ev)))
		req.Header.Set("X-Toolwright-Live", "1")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusNoContent {
			t.Fatalf("input %s: %d", ev, res.StatusCode)
		}
	}
	select {
	case <-gone: // a navigation that went out has reached that host before the page is left
	case <-ctx.Done():
		t.Fatal("the click on the link never left the start page")
	}
	if n := reached.Load(); n != 0 {
		t.Errorf("the person's click reached %s (%d requests), outside policy.allowed_hosts [127.0.0.1]", outside, n)
	}
	cancel()
	if err := <-done; !errors.Is(err, app.ErrRecordingStopped) {
		t.Errorf("Record after Ctrl-C = %v", err)
	}
}
