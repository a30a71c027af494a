package app_test

import (
	"context"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/htmlview"
	"github.com/toolwright/toolwright/internal/harness"
	"github.com/toolwright/toolwright/internal/testsite"
)

// repairMap is testdata/repair's selector map as a maintainer keeps it:
// with comments, which applying a repair must keep.
const repairMap = `# The account page's targets (release 1).

# Sign-in form.
acct.email:   # the sign-in email
  description: Email field on the sign-in form
  # the id release 1 gave it
  css: "#email"
acct.password:
  css: "#password"
acct.bio:
  css: "#bio"
acct.signin:
  css: "#signin"

# Elsewhere on the page.
acct.delete_account:
  css: "#delete-account"
acct.add_to_cart:
  css: "#add"
acct.account_link:
  css: "#account-link"
`

const fillEmail = `name: fill_email
description: Type an email address into the sign-in form of a release of the page.
risk: read
params:
  release: {type: string, description: v1 or v2, pattern: "^v[12]$", max_length: 2, required: true}
steps:
  - goto: ${{ config.shop_base }}/${{ params.release }}.html
  - fill: {target: acct.email, value: "someone@example.com"}
    timeout: 1s
`

// TestApplyRepairFromTheUI: a call on release 2 of the page, whose email
// field's id was renamed, leaves a repair proposal in its trace; toolwright
// ui's /repairs shows it as a diff of the selector map with an apply
// button, and its apply (a POST with the ui's token and header, as the live
// view's input) writes the entry: #login-email first, the old #email kept
// as a fallback, every comment and other line of the file as it was. The
// audit log says who applied it. A POST without the token, without the
// header, or after the map changed is refused and writes nothing; once
// applied, the proposal is no longer pending, and the call succeeds.
func TestApplyRepairFromTheUI(t *testing.T) {
	t.Parallel()
	sel := filepath.Join(t.TempDir(), "selectors.yaml")
	if err := os.WriteFile(sel, []byte(repairMap), 0o640); err != nil {
		t.Fatal(err)
	}
	fx := harness.Fixture{
		Start:     func(tb testing.TB) *testsite.Site { return testsite.StartDir(tb, "repair") },
		Selectors: "testdata/repair/selectors.yaml",
		Workflows: "testdata/repair/workflows-none",
	}
	h := harness.NewColdOn(t, fx, map[string]string{"fill_email": fillEmail}, func(c *config.Config) { c.Selectors = sel })
	h.BrowserUp()
	h.OK(h.Call("fill_email", `{"release": "v1"}`))
	h.Code(h.Call("fill_email", `{"release": "v2"}`), "target_not_found", "acct.email")

	const token = "ui-token-4b1d9e"
	ui := &htmlview.UI{Store: h.St, Token: token, Repairs: &app.RepairDesk{Store: h.St, File: sel}}
	srv := httptest.NewServer(ui)
	t.Cleanup(srv.Close)
	do := func(method, path, body string, hdr map[string]string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	auth := map[string]string{"Authorization": "Bearer " + token}
	code, page := do("GET", "/repairs", "", auth)
	page = html.UnescapeString(page)
	if code != 200 || !strings.Contains(page, `<h2 class="mono">acct.email</h2>`) ||
		!strings.Contains(page, `+   css: '#login-email'`) || !strings.Contains(page, `-   # the id release 1 gave it`) {
		t.Fatalf("/repairs: %d\n%s", code, page)
	}
	m := regexp.MustCompile(`data-id="([^"]+)" data-hash="([^"]+)"`).FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no apply button on /repairs:\n%s", page)
	}
	// The call's trace says a repair was proposed, and where to review it.
	traceID, _, _ := strings.Cut(m[1], "/")
	if _, tr := do("GET", "/trace/"+traceID, "", auth); !strings.Contains(html.UnescapeString(tr), `repair proposed (<a href="../repairs">review it</a>): css "#login-email"`) {
		t.Errorf("the trace page does not point to the proposal:\n%s", tr)
	}
	body := `{"id": "` + m[1] + `", "hash": "` + m[2] + `"}`
	withHeader := map[string]string{"Authorization": "Bearer " + token, "X-Toolwright-UI": "1", "Content-Type": "application/json"}
	for _, refused := range []struct {
		hdr  map[string]string
		body string
		code int
	}{
		{map[string]string{"X-Toolwright-UI": "1"}, body, http.StatusUnauthorized},
		{auth, body, http.StatusForbidden},
		{withHeader, `{"id": "` + m[1] + `", "hash": "0123"}`, http.StatusConflict},
	} {
		if code, msg := do("POST", "/repairs/apply", refused.body, refused.hdr); code != refused.code {
			t.Errorf("POST %v: %d %s, want %d", refused.hdr, code, msg, refused.code)
		}
	}
	if b, _ := os.ReadFile(sel); string(b) != repairMap {
		t.Fatalf("a refused apply wrote the map:\n%s", b)
	}
	code, msg := do("POST", "/repairs/apply", body, withHeader)
	if code != 200 || !strings.Contains(msg, `acct.email now starts with css "#login-email"`) {
		t.Fatalf("apply: %d %s", code, msg)
	}
	b, err := os.ReadFile(sel)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(repairMap, `acct.email:   # the sign-in email
  description: Email field on the sign-in form
  # the id release 1 gave it
  css: "#email"
`, `acct.email: # the sign-in email
  description: Email field on the sign-in form
  css: '#login-email'
  fallbacks:
    - label: Email
    - role: textbox
      name: Email
    - # the id release 1 gave it
      css: "#email"
`, 1)
	if string(b) != want {
		t.Errorf("the map after apply:\n%s\nwant:\n%s", b, want)
	}
	if fi, _ := os.Stat(sel); fi.Mode().Perm() != 0o640 {
		t.Errorf("the map's mode is %v, want 0640 as it was", fi.Mode().Perm())
	}
	all, err := h.St.ExportAudit(context.Background(), time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	last := all[len(all)-1]
	if last.Tool != app.AuditRepairApply || !strings.HasPrefix(last.TaskID, "ui 127.0.0.1:") || last.Purpose != "acct.email" || last.Code != "applied" || !strings.HasPrefix(m[1], last.TraceID+"/") {
		t.Errorf("the audit record of the apply: %+v", last)
	}
	if _, page := do("GET", "/repairs", "", auth); !strings.Contains(page, "no pending repairs") {
		t.Errorf("/repairs after the apply:\n%s", page)
	}
}
