package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/htmlview"
	"github.com/toolwright/toolwright/internal/testsite"
)

// toolwright ui on real Chromium: the call list with its filters, a failed
// call's step bars, envelope, arguments, screenshot and sandboxed page HTML.
func TestUI(t *testing.T) {
	t.Parallel()
	c := newCLISetup(t)
	okEnv := envelope(t, first(c.mustCLI(t, 0, "run", "product_details", "--arg", "sku=ACM-1002")))
	failed := envelope(t, first(c.mustCLI(t, exitFailed, "run", "missing_button")))

	cfg, err := config.Load(c.cfg)
	cliMust(t, err)
	st, err := app.OpenStore(cfg)
	cliMust(t, err)
	defer st.Close()
	srv := httptest.NewServer(&htmlview.UI{Store: st, ArtifactsDir: cfg.Artifacts()})
	defer srv.Close()
	tr, err := st.GetTrace(t.Context(), failed.TraceID)
	cliMust(t, err)

	b := testsite.Browser(t)
	page := testsite.NewPage(t, b, srv.URL+"/")
	rows, _ := page.Elements("tr.call")
	if len(rows) != 2 {
		t.Errorf("%d calls listed, want 2", len(rows))
	}
	page = testsite.NewPage(t, b, srv.URL+"/?code=failed")
	rows, _ = page.Elements("tr.call")
	if len(rows) != 1 || rows[0].MustAttribute("data-trace") == nil || *rows[0].MustAttribute("data-trace") != failed.TraceID {
		t.Errorf("failed filter: %d rows", len(rows))
	}
	page = testsite.NewPage(t, b, srv.URL+"/?tool=product_details&since=1h")
	rows, _ = page.Elements("tr.call")
	if len(rows) != 1 || rows[0].MustAttribute("data-trace") == nil || *rows[0].MustAttribute("data-trace") != okEnv.TraceID {
		t.Errorf("tool filter: %d rows", len(rows))
	}

	// The failed call: one bar per step, the last one failed.
	page = testsite.NewPage(t, b, srv.URL+"/trace/"+failed.TraceID)
	bars, _ := page.Elements("#timeline .step")
	if len(bars) != len(tr.Steps) || len(bars) == 0 {
		t.Errorf("%d step bars, the trace has %d steps", len(bars), len(tr.Steps))
	}
	if red, _ := page.Elements(".step .bar.failed"); len(red) == 0 {
		t.Error("no failed bar")
	}
	env := page.MustElement("#envelope").MustText()
	if !strings.Contains(env, `"code": "target_not_found"`) || !strings.Contains(page.MustElement("#arguments").MustText(), "{") {
		t.Errorf("envelope %q", env)
	}
	// missing_button typed a secret into its page: its failure screenshot
	// is kept all the same, masked, for the operator (engine/run/typed.go),
	// and the ui shows it.
	if imgs, _ := page.Elements("img.failure"); len(imgs) != 1 {
		t.Errorf("the ui shows %d failure screenshots, want the one kept", len(imgs))
	}
	frame := page.MustElement("iframe.pagehtml")
	if sb := first(frame.Attribute("sandbox")); sb == nil || *sb != "" {
		t.Errorf("the page HTML iframe is not fully sandboxed: %v", sb)
	}
	// The HTML itself is served with a sandboxing CSP (scripts off even when opened directly).
	resp, err := http.Get(srv.URL + "/artifact/" + failed.TraceID + "/" + htmlArtifact(tr.Artifacts))
	cliMust(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.HasPrefix(csp, "sandbox") || resp.StatusCode != 200 || !strings.Contains(string(body), "Signed in as") {
		t.Errorf("page HTML: %d, CSP %q, %d bytes:\n%.300s", resp.StatusCode, csp, len(body), body)
	}
	if strings.Contains(page.MustHTML(), cliSecretPassCore) {
		t.Error("the trace page shows a secret")
	}
	shot, err := page.Screenshot(true, &proto.PageCaptureScreenshot{Format: proto.PageCaptureScreenshotFormatPng})
	cliMust(t, err)
	cliMust(t, os.WriteFile(filepath.Join(t.TempDir(), "trace.png"), shot, 0o644))

	// Read-only, and a token when one is set.
	resp, _ = http.Post(srv.URL+"/", "text/plain", nil)
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", resp.StatusCode)
	}
	guarded := httptest.NewServer(&htmlview.UI{Store: st, Token: "tok-123"})
	defer guarded.Close()
	if resp, _ := http.Get(guarded.URL + "/"); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("no token: %d", resp.StatusCode)
	}
	page = testsite.NewPage(t, b, guarded.URL+"/?token=tok-123") // sets the cookie, then the list
	if rows, _ := page.Elements("tr.call"); len(rows) != 2 {
		t.Errorf("with the token: %d rows", len(rows))
	}
	// Off loopback without a token, ui refuses to start.
	if _, errOut := c.mustCLI(t, exitUsage, "ui", "--http", "0.0.0.0:0"); !strings.Contains(errOut, "token") {
		t.Errorf("ui off loopback: %q", errOut)
	}
}

func first[T any, U any](v T, _ U) T { return v }

func htmlArtifact(list []string) string {
	for _, a := range list {
		if strings.HasSuffix(a, ".html") {
			return filepath.Base(a)
		}
	}
	return ""
}

// lockedBuffer is a buffer a running command writes while the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

var uiAddrLine = regexp.MustCompile(`toolwright ui: (http://127\.0\.0\.1:\d+/)`)

// startUI runs `toolwright ui --http 127.0.0.1:0` in-process with the
// config at cfg until the test ends, and returns its address.
func startUI(t *testing.T, cfg string) string {
	t.Helper()
	var out, errb lockedBuffer
	root := newRoot(&out, &errb)
	root.SetArgs([]string{"--config", cfg, "ui", "--http", "127.0.0.1:0"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- root.ExecuteContext(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := uiAddrLine.FindStringSubmatch(errb.String()); m != nil {
			return m[1]
		}
		select {
		case err := <-done:
			t.Fatalf("ui ended: %v\n%s", err, errb.String())
		default:
		}
	}
	t.Fatalf("ui printed no address:\n%s", errb.String())
	return ""
}

// A configured http.token applies on loopback too: before, a loopback ui
// served the environments list and took the take-over's input without it.
// Without a token, loopback is served as before.
func TestUITokenOnLoopback(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tokFile := filepath.Join(dir, "token")
	cliMust(t, os.WriteFile(tokFile, []byte("ui-tok-47\n"), 0o600))
	withTok := filepath.Join(dir, "with.yaml")
	cliMust(t, os.WriteFile(withTok, []byte("state_dir: ./state\nhttp:\n  token: {file: "+strconv.Quote(tokFile)+"}\n"), 0o644))
	without := filepath.Join(dir, "without.yaml")
	cliMust(t, os.WriteFile(without, []byte("state_dir: ./state2\nhttp:\n  token: {env: TOOLWRIGHT_UI_TEST_UNSET_TOKEN}\n"), 0o644))

	get := func(method, url, bearer string) int {
		t.Helper()
		req, err := http.NewRequest(method, url, strings.NewReader(`{"type":"done"}`))
		cliMust(t, err)
		if bearer != "" {
			req.Header.Set("Authorization", "Bearer "+bearer)
		}
		resp, err := http.DefaultClient.Do(req)
		cliMust(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	base := startUI(t, withTok)
	for _, c := range []struct{ method, path string }{
		{"GET", "envs"}, {"GET", ""}, {"POST", "env/env_x/input"}, {"GET", "env/env_x/"},
	} {
		if code := get(c.method, base+c.path, ""); code != http.StatusUnauthorized {
			t.Errorf("token configured, loopback, no token: %s /%s answered %d, want 401", c.method, c.path, code)
		}
	}
	if code := get("GET", base+"envs", "ui-tok-47"); code != http.StatusOK {
		t.Errorf("with the token: /envs answered %d", code)
	}
	if code := get("GET", base+"envs", "wrong"); code != http.StatusUnauthorized {
		t.Errorf("a wrong token: /envs answered %d", code)
	}
	open := startUI(t, without)
	if code := get("GET", open+"envs", ""); code != http.StatusOK {
		t.Errorf("no token configured, loopback: /envs answered %d, want 200", code)
	}
}
