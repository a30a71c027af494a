package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-rod/rod/lib/proto"
	"github.com/toolwright/toolwright/internal/testsite"
)

const signInWorkflow = `name: sign_in_env
description: Open an environment signed in to Acme, for selectors check --setup.
risk: read
env: new
params:
  next: {type: string, description: The page to land on, max_length: 40, default: catalog.html}
steps:
  - open_env: {purpose: selectors}
  - goto: ${{ config.acme_base }}/login.html
  - fill: {target: acme.login.email, value: "${{ secrets.acme_user }}"}
  - fill: {target: acme.login.password, value: "${{ secrets.acme_password }}"}
  - click: acme.login.submit
  - wait: {visible: acme.catalog.search_box}
output:
  env_id: ${{ env.id }}
`

type checkedPage struct {
	Page     string `json:"page"`
	FinalURL string `json:"final_url"`
	Error    string `json:"error"`
	Targets  []struct {
		Name, Status string
	} `json:"targets"`
}

// selectors check: a page that moves on (catalog.html signed out) or does
// not load is reported and the others are still checked (one redirect used
// to abort the whole run); --setup signs in first; --report writes the
// HTML report, which real Chromium shows with every target boxed.
func TestSelectorsCheckSetupAndReport(t *testing.T) {
	t.Parallel()
	c := newCLISetup(t)
	cliMust(t, os.WriteFile(filepath.Join(filepath.Dir(c.cfg), "workflows", "sign_in_env.yaml"), []byte(signInWorkflow), 0o644))
	pages := []string{
		c.site.URL("/catalog.html"),                           // signed out: a script sends it to login.html
		c.site.URL("/redirect?to=/product.html?sku=ACM-1001"), // an HTTP redirect
		"http://127.0.0.1:1/nothing.html",                     // nothing listens there
		c.site.URL("/login.html"),
	}
	args := []string{"selectors", "check", "--prefix", "acme.", "--format", "json"}
	for _, p := range pages {
		args = append(args, "--page", p)
	}
	out, errOut := c.mustCLI(t, exitFailed, args...)
	var res []checkedPage
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res) != 4 {
		t.Fatalf("%d pages, %v\n%s\n%s", len(res), err, out, errOut)
	}
	if !strings.Contains(res[0].Error, "moved on") || !strings.HasSuffix(res[0].FinalURL, "/login.html?next=catalog.html") {
		t.Errorf("catalog.html signed out: %+v", res[0])
	}
	if !strings.Contains(res[1].Error, "moved on") || !strings.Contains(res[1].FinalURL, "/product.html?sku=ACM-1001") {
		t.Errorf("a redirect: %+v", res[1])
	}
	if !strings.Contains(res[2].Error, "did not load") {
		t.Errorf("an address that does not answer: %+v", res[2])
	}
	status := map[string]string{}
	for _, tg := range res[3].Targets {
		status[tg.Name] = tg.Status
	}
	if res[3].Error != "" || status["acme.login.email"] != "primary" || status["acme.catalog.search_box"] != "not_found" {
		t.Errorf("login.html after the others: %+v", res[3])
	}

	// With --setup the environment is signed in: catalog.html stays.
	report := filepath.Join(t.TempDir(), "report")
	out, _ = c.mustCLI(t, exitFailed, "selectors", "check", "--setup", "sign_in_env", "--arg", "next=catalog.html", "--prefix", "acme.catalog.",
		"--page", c.site.URL("/catalog.html?q=bolt"), "--page", c.site.URL("/product.html?sku=ACM-1002"), "--report", report, "--format", "json")
	res = nil
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res) != 2 {
		t.Fatalf("--setup: %v\n%s", err, out)
	}
	status = map[string]string{}
	for _, tg := range res[0].Targets {
		status[tg.Name] = tg.Status
	}
	if res[0].Error != "" || status["acme.catalog.search_box"] != "primary" || status["acme.catalog.rows"] != "primary" || status["acme.catalog.signed_in"] != "primary" {
		t.Errorf("catalog.html signed in: %+v", res[0])
	}

	// The report: offline files, secrets masked, every target boxed.
	html, err := os.ReadFile(filepath.Join(report, "index.html"))
	cliMust(t, err)
	for _, f := range []string{"page-1.png", "page-2.png"} {
		if _, err := os.Stat(filepath.Join(report, f)); err != nil {
			t.Errorf("report lacks %s", f)
		}
	}
	for _, s := range []string{cliSecretUserCore, cliSecretPassCore} {
		if strings.Contains(string(html), s) {
			t.Errorf("the report contains a secret")
		}
	}
	if strings.Contains(string(html), "<script") || strings.Contains(string(html), "http://") && strings.Contains(string(html), "<link") {
		t.Error("the report loads something: it must work offline")
	}
	b := testsite.Browser(t)
	page := testsite.NewPage(t, b, "file://"+filepath.Join(report, "index.html"))
	wantBoxes := 0
	for _, p := range res {
		for _, tg := range p.Targets {
			if tg.Status != "not_found" {
				els, err := page.Elements(`.box[data-target="` + tg.Name + `"]`)
				if err != nil || len(els) == 0 {
					t.Errorf("%s (%s) has no box in the report", tg.Name, tg.Status)
				}
				wantBoxes++
			}
		}
	}
	rows, _ := page.Elements("tr.target")
	if len(rows) != len(res[0].Targets)+len(res[1].Targets) || wantBoxes == 0 {
		t.Errorf("%d target rows, %d boxed targets", len(rows), wantBoxes)
	}
	green, _ := page.Elements(".box-primary")
	if len(green) == 0 {
		t.Error("no green (primary) boxes")
	}
	shot, err := page.Screenshot(true, &proto.PageCaptureScreenshot{Format: proto.PageCaptureScreenshotFormatPng})
	cliMust(t, err)
	cliMust(t, os.WriteFile(filepath.Join(t.TempDir(), "report.png"), shot, 0o644))
	// The first page's picture shows the user signed in, with the secret masked.
	pngFirst, _ := os.ReadFile(filepath.Join(report, "page-1.png"))
	if len(pngFirst) < 1000 {
		t.Errorf("page-1.png is %d bytes", len(pngFirst))
	}
}
