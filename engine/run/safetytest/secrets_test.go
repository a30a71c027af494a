package safetytest

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/internal/harness"
)

// legacySite is a site that declares no charset, as old applications do:
// Chromium reads its pages as windows-1252 and its GET form submits a
// typed value in windows-1252 (ü as %FC). The form's script also shows the
// value's UTF-8 bytes in hex in the title and sends them with the form,
// and the result page puts them in its title and text.
func legacySite(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html") // no charset
		switch r.URL.Path {
		case "/form":
			fmt.Fprint(w, `<!doctype html><html><head><title>Legacy</title></head><body>
<form id="f" action="/result" method="get">
<input id="q" name="q" type="text"><input id="h" name="h" type="hidden">
<button id="go" type="submit">Go</button></form>
<script>
document.getElementById("f").addEventListener("submit", () => {
  const v = document.getElementById("q").value;
  const hex = Array.from(new TextEncoder().encode(v)).map((b) => b.toString(16).padStart(2, "0")).join("");
  document.title = hex;
  document.getElementById("h").value = hex.toUpperCase();
});
</script></body></html>`)
		case "/result":
			h := r.URL.Query().Get("h")
			fmt.Fprintf(w, `<!doctype html><html><head><title>%s</title></head><body>
<p id="done">Saved <span id="hex">%s</span></p></body></html>`, html.EscapeString(strings.ToLower(h)), html.EscapeString(h))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

const legacySelectors = `
legacy.q:
  css: "#q"
legacy.go:
  css: "#go"
legacy.done:
  css: "#done"
legacy.hex:
  css: "#hex"
legacy.missing:
  css: "#not-on-this-page"
`

const legacyWorkflow = `
name: legacy_form
description: Type a secret into a form of a page without a charset and read what comes back.
risk: read
params:
  fail: {type: boolean, description: End on a missing target, default: false}
steps:
  - goto: ${{ config.legacy }}/form
  - fill: {target: legacy.q, value: "${{ secrets.legacy }}"}
  - click: legacy.go
  - wait: {visible: legacy.done}
  - extract: {from: legacy.hex, into: hex}
  - click: legacy.missing
    if: params.fail
    timeout: 300ms
output:
  url: ${{ page.url }}
  title: ${{ page.title }}
  hex: ${{ vars.hex }}
`

// A secret with characters windows-1252 holds in one byte (ü, ß, €) and a
// core of letters every encoding keeps.
const (
	legacySecret = "Grüße€ Qz7Legacy"
	legacyCore   = "Qz7Legacy"
)

// legacyLeaks lists where the secret's core, its hex (either case) or its
// windows-1252 bytes percent-encoded appear in b.
func legacyLeaks(b []byte) []string {
	hx := hex.EncodeToString([]byte(legacySecret))
	return foundIn(b, legacyCore, hx, strings.ToUpper(hx), "Gr%FC%DFe", hex.EncodeToString([]byte(legacyCore)))
}

// foundIn lists, for each of leaks that appears in b, its first place with
// 60 bytes either side (encodedLeaks, legacyLeaks).
func foundIn(b []byte, leaks ...string) []string {
	var out []string
	for _, f := range leaks {
		if i := bytes.Index(b, []byte(f)); i >= 0 {
			lo, hi := max(0, i-60), min(len(b), i+len(f)+60)
			out = append(out, string(b[lo:hi]))
		}
	}
	return out
}

// TestSecretLegacyCharsetAndHexRedacted: a GET form on a page without a
// charset submits a typed secret in windows-1252, and the page shows it in
// hex in its title, URL and text. Neither reaches the envelope, the stored
// trace, page.html or any file of the state dir. Before: data.url held the
// whole secret as %FC-style windows-1252, and the hex went everywhere.
func TestSecretLegacyCharsetAndHexRedacted(t *testing.T) {
	t.Parallel()
	site := legacySite(t)
	h := harness.New(t, map[string]string{"legacy_form": legacyWorkflow}, func(c *config.Config) {
		harness.AddSelectors(t, c, legacySelectors)
		c.Vars["legacy"] = site.URL
		c.SetSecretValue("legacy", legacySecret)
	})
	env := h.OK(h.Call("legacy_form", `{}`))
	url, _ := env.Data["url"].(string)
	if !strings.Contains(url, "/result?q=[redacted:legacy]") {
		t.Errorf("data.url = %q, want the windows-1252 form redacted", url)
	}
	for _, k := range []string{"title", "hex"} {
		if s, _ := env.Data[k].(string); s != "[redacted:legacy]" {
			t.Errorf("data.%s = %q, want the hex redacted", k, s)
		}
	}
	for _, hit := range legacyLeaks(env.JSON()) {
		t.Errorf("secret in the envelope: …%s…", hit)
	}
	failed := h.Code(h.Call("legacy_form", `{"fail":true}`), "target_not_found")
	noLeaksOnDisk(t, h, failed.TraceID, "[redacted:legacy]", legacyLeaks)
}

// noLeaksOnDisk checks that the failure capture of traceID shows marker (a
// secret's redaction) and that leaks finds nothing in it, nor in any file
// under the state dir's parent once the harness restarted (the WAL
// checkpointed, the browser ended).
func noLeaksOnDisk(t *testing.T, h *harness.Harness, traceID, marker string, leaks func([]byte) []string) {
	t.Helper()
	page, err := os.ReadFile(filepath.Join(h.Cfg.StateDir, "artifacts", traceID, "page.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(page, []byte(marker)) {
		t.Errorf("page.html does not show %s:\n%s", marker, page)
	}
	for _, hit := range leaks(page) {
		t.Errorf("secret in page.html: …%s…", hit)
	}
	h.Restart() // checkpoint the WAL, end the browser
	err = filepath.WalkDir(filepath.Dir(h.Cfg.StateDir), func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		b, _ := os.ReadFile(path)
		for _, hit := range leaks(b) {
			t.Errorf("secret in %s: …%q…", path, hit)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// adminSite is a sign-in form whose answer is an admin screen at
// /wp-admin/ greeting the user by name, as WordPress does.
func adminSite(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/wp-login.php":
			if r.Method == http.MethodPost {
				r.ParseForm()
				http.Redirect(w, r, "/wp-admin/profile.php?user="+r.PostForm.Get("log")+"&len="+fmt.Sprint(len(r.PostForm.Get("pwd"))), http.StatusSeeOther)
				return
			}
			fmt.Fprint(w, `<!doctype html><title>Log in</title><form method="post">
<input id="user_login" name="log"><input id="user_pass" name="pwd" type="password">
<button id="wp-submit">Log in</button></form>`)
		case "/wp-admin/profile.php":
			fmt.Fprintf(w, `<!doctype html><title>Profile</title><p id="howdy">Howdy, %s</p>`, html.EscapeString(r.URL.Query().Get("user")))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

const adminSelectors = `
wp.login.user:
  css: "#user_login"
wp.login.password:
  css: "#user_pass"
wp.login.submit:
  css: "#wp-submit"
wp.howdy:
  css: "#howdy"
`

const adminWorkflow = `
name: wp_profile
description: Sign in and read the greeting of the profile screen.
risk: read
steps:
  - goto: ${{ config.wp }}/wp-login.php
  - fill: {target: wp.login.user, value: "${{ secrets.wp_user }}"}
  - fill: {target: wp.login.password, value: "${{ secrets.wp_password }}"}
  - click: wp.login.submit
  - wait: {visible: wp.howdy}
  - extract: {from: wp.howdy, into: howdy}
output:
  url: ${{ page.url }}
  howdy: ${{ vars.howdy }}
`

// TestIdentitySecretNotRedacted: a user name declared redact: false is
// typed like a secret but left as it is in what comes back, while the
// password beside it is still redacted. Before (issue 19 (5)): every URL
// read wp-[redacted:wp_user] and the greeting Howdy, [redacted:wp_user];
// there was no way to say a secret is an identity.
func TestIdentitySecretNotRedacted(t *testing.T) {
	t.Parallel()
	site := adminSite(t)
	const pass = "Pw-Qz9-Kestrel-44"
	h := harness.New(t, map[string]string{"wp_profile": adminWorkflow}, func(c *config.Config) {
		harness.AddSelectors(t, c, adminSelectors)
		c.Vars["wp"] = site.URL
		c.Secrets["wp_user"] = config.Secret{Env: "WP_USER", NoRedact: true}
		c.SetSecretValue("wp_user", "admin")
		c.SetSecretValue("wp_password", pass)
	})
	env := h.OK(h.Call("wp_profile", `{}`))
	if got := env.Data["howdy"]; got != "Howdy, admin" {
		t.Errorf("data.howdy = %q, want the user name as it is", got)
	}
	if url, _ := env.Data["url"].(string); !strings.Contains(url, "/wp-admin/profile.php?user=admin&len=17") {
		t.Errorf("data.url = %q, want /wp-admin/ and the user name as they are", url)
	}
	if b := env.JSON(); bytes.Contains(b, []byte(pass)) || bytes.Contains(b, []byte("[redacted:wp_user]")) {
		t.Errorf("envelope: %s", b)
	}
	tr := h.Trace(env)
	b := fmt.Sprint(tr)
	if strings.Contains(b, pass) || strings.Contains(b, "[redacted:wp_user]") {
		t.Errorf("trace: %s", b)
	}
}

// drawnSite is a page that draws what is typed where no mask reaches:
// CSS generated content (::after {content: attr(...)}), a canvas, and the
// characters split by spaces, all in pure red so a screenshot of them can
// be counted. The field itself is white.
func drawnSite(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><html><head><title>Drawn</title><style>
#after::after { content: attr(data-v); color: #ff0000; font: bold 40px sans-serif; }
#split { color: #ff0000; font: bold 40px sans-serif; }
</style></head><body>
<input id="in" style="background:#fff;color:#000">
<p id="after" data-v=""></p><p id="split"></p><canvas id="c" width="600" height="60"></canvas>
<script>
document.getElementById("in").addEventListener("input", (e) => {
  const v = e.target.value;
  document.getElementById("after").setAttribute("data-v", v);
  document.getElementById("split").textContent = v.split("").join(" ");
  const g = document.getElementById("c").getContext("2d");
  g.clearRect(0, 0, 600, 60); g.fillStyle = "#ff0000"; g.font = "bold 40px sans-serif"; g.fillText(v, 0, 45);
});
</script></body></html>`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

const drawnWorkflow = `
name: drawn
description: Type a secret into a page that draws it, then fail on a missing target.
risk: read
params:
  secret: {type: boolean, description: Type the secret (else plain words), default: true}
steps:
  - goto: ${{ config.drawn }}/
  - fill: {target: drawn.in, value: "${{ secrets.enc }}"}
    if: params.secret
  - fill: {target: drawn.in, value: "plain words typed here"}
    if: "!params.secret"
  - click: drawn.missing
    timeout: 300ms
`

// TestFailureScreenshotKeptAfterSecretTyped: after a secret was typed into
// a page, a failed call still keeps its screenshot (for the operator, who
// holds the secrets) and page.html, redacted, and the trace notes no
// missing capture; the envelope names neither. Masking hides the field; a
// page that draws the value where no mask reaches (CSS generated content,
// a canvas, split text) is why the screenshot step, whose file goes to the
// agent, is still refused there (TestScreenshotsMaskSecrets). Before
// (issue 48): no failure.png, and the trace said "was typed into".
func TestFailureScreenshotKeptAfterSecretTyped(t *testing.T) {
	t.Parallel()
	site := drawnSite(t)
	h := harness.New(t, map[string]string{"drawn": drawnWorkflow}, func(c *config.Config) {
		harness.AddSelectors(t, c, "\ndrawn.in:\n  css: \"#in\"\ndrawn.missing:\n  css: \"#not-on-this-page\"\n")
		c.Vars["drawn"] = site.URL
		c.SetSecretValue("enc", encSecret)
	})
	failed := h.Code(h.Call("drawn", `{}`), "target_not_found")
	dir := filepath.Join(h.Cfg.StateDir, "artifacts", failed.TraceID)
	for _, name := range []string{"failure.png", "page.html"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	tr := h.Trace(failed)
	if !slices.Contains(tr.Artifacts, failed.TraceID+"/failure.png") {
		t.Errorf("the trace (which toolwright ui shows) lists %v, not the failure screenshot", tr.Artifacts)
	}
	if strings.Contains(tr.Error, "was typed into") || strings.Contains(tr.Error, "capture") {
		t.Errorf("the trace notes a missing capture: %q", tr.Error)
	}
	if b := failed.JSON(); bytes.Contains(b, []byte("failure.png")) || bytes.Contains(b, []byte("page.html")) {
		t.Errorf("the envelope names the failure's artifacts: %s", b)
	}
}
