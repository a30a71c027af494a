package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	// missing_button typed a secret into its page: no failure screenshot
	// is kept of it (engine/run/typed.go), so the ui shows none.
	if imgs, _ := page.Elements("img.failure"); len(imgs) != 0 {
		t.Error("the ui shows a screenshot of a page a secret was typed into")
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
