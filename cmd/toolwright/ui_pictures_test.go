package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/htmlview"
	"github.com/toolwright/toolwright/internal/testsite"
	"net/http/httptest"
)

const picturesWorkflow = `name: pictures_fallback
description: Read the catalog's heading, found only by a fallback, with a step skipped by if.
risk: read
steps:
  - goto: ${{ config.acme_base }}/catalog.html
  - extract: {from: acme.pics.heading, into: heading}
  - hover: acme.catalog.sort
    if: false
output:
  heading: ${{ vars.heading }}
`

// TestTraceViewerPictures (issue 23): the trace viewer, screenshot by
// headless Chromium, shows what the agent was told and where it went
// wrong. A failed call: the envelope with retryable, needs_human and step,
// and the locators the failing step looked for. A fallback call: the
// fallback match is a coloured badge and a note, not grey text. A step
// skipped by if: is not red. Failed before: the envelope had none of those
// keys, no .looked-for, .fallback-match or skipped state existed.
func TestTraceViewerPictures(t *testing.T) {
	t.Parallel()
	c := newCLISetup(t)
	cfgText, err := os.ReadFile(c.cfg)
	cliMust(t, err)
	demoSel, _ := filepath.Abs(filepath.Join("..", "..", "examples", "demo", "selectors.yaml"))
	sel, err := os.ReadFile(demoSel)
	cliMust(t, err)
	mySel := filepath.Join(filepath.Dir(c.cfg), "selectors.yaml")
	sel = append(sel, []byte("\nacme.pics.heading:\n  css: \"#heading-renamed\"\n  fallbacks:\n    - css: main h1, h1\n")...)
	cliMust(t, os.WriteFile(mySel, sel, 0o644))
	cliMust(t, os.WriteFile(c.cfg, []byte(strings.Replace(string(cfgText), demoSel, mySel, 1)), 0o644))
	cliMust(t, os.WriteFile(filepath.Join(filepath.Dir(c.cfg), "workflows", "pictures_fallback.yaml"), []byte(picturesWorkflow), 0o644))

	failed := envelope(t, first(c.mustCLI(t, exitFailed, "run", "missing_button")))
	fallback := envelope(t, first(c.mustCLI(t, 0, "run", "pictures_fallback")))

	cfg, err := config.Load(c.cfg)
	cliMust(t, err)
	st, err := app.OpenStore(cfg)
	cliMust(t, err)
	defer st.Close()
	srv := httptest.NewServer(&htmlview.UI{Store: st, ArtifactsDir: cfg.Artifacts()})
	defer srv.Close()
	shots := os.Getenv("TOOLWRIGHT_SHOTS") // keep the pictures for a person to look at
	if shots == "" {
		shots = t.TempDir()
	}
	b := testsite.Browser(t)
	shoot := func(page *rod.Page, name string) {
		png, err := page.Screenshot(true, &proto.PageCaptureScreenshot{Format: proto.PageCaptureScreenshotFormatPng})
		cliMust(t, err)
		cliMust(t, os.WriteFile(filepath.Join(shots, name), png, 0o644))
	}
	color := func(el *rod.Element, prop string) string {
		return el.MustEval(`(p) => getComputedStyle(this)[p]`, prop).Str()
	}
	const red = "rgb(207, 34, 46)"

	// A failed call.
	page := testsite.NewPage(t, b, srv.URL+"/trace/"+failed.TraceID)
	shoot(page, "trace-failed.png")
	env := page.MustElement("#envelope").MustText()
	for _, want := range []string{`"retryable": true`, `"needs_human": false`, `"step": "click acme.missing`, `"code": "target_not_found"`} {
		if !strings.Contains(env, want) {
			t.Errorf("the envelope shown lacks %s:\n%s", want, env)
		}
	}
	looked, err := page.Element(".looked-for")
	if err != nil || !strings.Contains(looked.MustText(), "css") || !looked.MustVisible() {
		t.Errorf("the failing step's locators are not shown")
	}
	failedBar := page.MustElement(`.step[data-state="failed"] .bar`)
	if got := color(failedBar, "backgroundColor"); got != red {
		t.Errorf("the failed step's bar is %s, want red", got)
	}

	// A fallback call with a step skipped by if:.
	page = testsite.NewPage(t, b, srv.URL+"/trace/"+fallback.TraceID)
	shoot(page, "trace-fallback-skipped.png")
	badge, err := page.Element(".fallback-match")
	if err != nil || !badge.MustVisible() || !strings.HasPrefix(badge.MustText(), "fallback 1") {
		t.Fatalf("no visible fallback badge")
	}
	if bg := color(badge, "backgroundColor"); bg == "rgba(0, 0, 0, 0)" || bg == "" {
		t.Errorf("the fallback badge has no background: %q", bg)
	}
	if note, err := page.Element("#fallback-note"); err != nil || !note.MustVisible() {
		t.Error("no note that the primary is broken")
	}
	skipped, err := page.Element(`.step[data-state="skipped"]`)
	if err != nil {
		t.Fatal("no skipped step")
	}
	if bg := color(skipped.MustElement(".bar"), "backgroundColor"); bg == red {
		t.Error("a step skipped by if: is red like a failure")
	}
	if _, err := skipped.Element(".status-failed"); err == nil {
		t.Error("a skipped step is labelled failed")
	}
	if !strings.Contains(skipped.MustText(), "skipped") {
		t.Errorf("the skipped step does not say so: %q", skipped.MustText())
	}
	if env := page.MustElement("#envelope").MustText(); !strings.Contains(env, `"data"`) || !strings.Contains(env, `"heading": "`) {
		t.Errorf("the envelope shown lacks the data the agent got:\n%s", env)
	}
}
