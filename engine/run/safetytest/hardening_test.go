package safetytest

import (
	"bytes"
	"context"
	"encoding/base64"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/internal/harness"
)

// Selector targets of testdata/site/echo.html, added to the demo map.
const echoSelectors = `
echo.input:
  css: "#echo-in"
echo.go:
  css: "#echo-go"
echo.text:
  css: "#echo-text"
echo.component:
  css: "#enc-component"
echo.uri:
  css: "#enc-uri"
echo.form:
  css: "#enc-form"
echo.json:
  css: "#enc-json"
echo.base64:
  css: "#enc-base64"
echo.entities:
  css: "#enc-entities"
echo.link:
  css: "#enc-link"
echo.missing:
  css: "#not-on-this-page"
`

// withEchoSelectors points the config at the demo map plus echoSelectors.
func withEchoSelectors(t *testing.T, c *config.Config) { harness.AddSelectors(t, c, echoSelectors) }

// A secret with a space and each of !'()*~@&/+, and a second one that is
// a valid task_id. Each has a core of letters that percent-encoding keeps.
const (
	encSecret     = "Qz7Core p!a'(s)*~w@r&d/+x"
	encSecretCore = "Qz7Core"
	taskSecret    = "tok.Zq81TaskCore:42"
	taskCore      = "Zq81TaskCore"
)

const echoWorkflow = `
name: echo_encoded
description: Type a secret into the echo page and read back how the page encodes it.
risk: read
params:
  fail: {type: boolean, description: End on a missing target, default: false}
steps:
  - goto: ${{ config.acme_base }}/echo.html
  - fill: {target: echo.input, value: "${{ secrets.enc }}"}
  - click: echo.go
  - wait: {visible: echo.text}
  - extract: {from: echo.component, into: component}
  - extract: {from: echo.uri, into: uri}
  - extract: {from: echo.form, into: form}
  - extract: {from: echo.json, into: json}
  - extract: {from: echo.base64, into: b64}
  - extract: {from: echo.entities, into: entities}
  - extract: {from: echo.link, attr: href, into: href}
  - click: echo.missing
    if: params.fail
    timeout: 300ms
output:
  component: ${{ vars.component }}
  uri: ${{ vars.uri }}
  form: ${{ vars.form }}
  json: ${{ vars.json }}
  b64: ${{ vars.b64 }}
  entities: ${{ vars.entities }}
  href: ${{ vars.href }}
  url: ${{ page.url }}
`

// encodedLeaks lists where a core of the secrets (which survives percent
// encoding), or their base64, appears in b.
func encodedLeaks(b []byte) []string {
	return foundIn(b, encSecretCore, taskCore, base64.StdEncoding.EncodeToString([]byte(encSecret)), base64.RawStdEncoding.EncodeToString([]byte(encSecret)))
}

// TestSecretEncodingsRedacted: a page encodes a typed secret with
// encodeURIComponent, encodeURI, form encoding, JSON, base64 and hex
// entities and puts it in its URL and a link; a task_id equals a secret.
// Nothing of either reaches the envelope, the trace, the audit log, the
// artifacts or the logs. Before: the encoded forms and the task_id survived.
func TestSecretEncodingsRedacted(t *testing.T) {
	t.Parallel()
	h := harness.New(t, map[string]string{"echo_encoded": echoWorkflow}, func(c *config.Config) {
		withEchoSelectors(t, c)
		c.SetSecretValue("enc", encSecret)
		c.SetSecretValue("task", taskSecret)
	})
	env := h.OK(h.Call("echo_encoded", `{"task_id":"`+taskSecret+`"}`))
	for k, v := range env.Data {
		if s, _ := v.(string); !strings.Contains(s, "[redacted:enc]") {
			t.Errorf("data.%s = %q, want it redacted", k, v)
		}
	}
	if env.TaskID != "[redacted:task]" {
		t.Errorf("task_id in the envelope: %q", env.TaskID)
	}
	for _, hit := range encodedLeaks(env.JSON()) {
		t.Errorf("secret in the envelope: …%s…", hit)
	}
	failed := h.Code(h.Call("echo_encoded", `{"fail":true}`), "target_not_found")
	for _, hit := range encodedLeaks(failed.JSON()) {
		t.Errorf("secret in the failure envelope: …%s…", hit)
	}
	// a repeat answers from the stored envelope
	again := h.OK(h.Call("echo_encoded", `{"task_id":"`+taskSecret+`"}`))
	for _, hit := range encodedLeaks(again.JSON()) {
		t.Errorf("secret in the stored envelope: …%s…", hit)
	}
	noLeaksOnDisk(t, h, failed.TraceID, "[redacted:enc]", encodedLeaks)
}

// redPixels counts the pure red pixels of a PNG file.
func redPixels(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r>>8 == 0xff && g>>8 == 0 && bl>>8 == 0 {
				n++
			}
		}
	}
	return n
}

const echoShot = `
name: echo_shot
description: Type a secret into a visible field, echo it, take a screenshot, then fail if asked.
risk: read
params:
  fail: {type: boolean, description: End on a missing target, default: false}
  secret: {type: boolean, description: Type the secret (else a plain word), default: true}
steps:
  - goto: ${{ config.acme_base }}/echo.html
  - fill: {target: echo.input, value: "${{ secrets.enc }}"}
    if: params.secret
  - fill: {target: echo.input, value: "plain words"}
    if: "!params.secret"
  - click: echo.go
  - wait: {visible: echo.text}
  - screenshot: {into: shot}
  - wait: {visible: echo.text}
    timeout: 30s
  - click: echo.missing
    if: params.fail
    timeout: 300ms
output:
  shot: ${{ vars.shot }}
`

// TestScreenshotsMaskSecrets: a screenshot of a page no secret was typed
// into shows it (the red field and text); once a secret was typed into the
// page, the screenshot step, whose file goes to the agent, fails
// limit_exceeded saying why (typed.go), while the failed call keeps its
// screenshot for the operator with the field and the text holding the
// secret masked, and names it nowhere in the envelope. Before (issue 48):
// the failure kept no screenshot at all, so a failed call of any workflow
// that signs in left the operator no picture.
func TestScreenshotsMaskSecrets(t *testing.T) {
	t.Parallel()
	h := harness.New(t, map[string]string{"echo_shot": echoShot}, func(c *config.Config) {
		withEchoSelectors(t, c)
		c.SetSecretValue("enc", encSecret)
	})
	// Without a secret the red field and text are in the picture: the
	// check below can see them.
	plain := h.OK(h.Call("echo_shot", `{"secret":false}`))
	file := plain.Data["shot"].(map[string]any)["file"].(string)
	if n := redPixels(t, file); n < 500 {
		t.Fatalf("the plain screenshot shows only %d red pixels: the test proves nothing", n)
	}
	env := h.Code(h.Call("echo_shot", `{}`), "limit_exceeded", "secrets.enc was typed into this environment's page")
	shot := filepath.Join(h.Cfg.StateDir, "artifacts", env.TraceID, "failure.png")
	if _, err := os.Stat(shot); err != nil {
		t.Fatalf("the failed call kept no screenshot for the operator: %v (trace: %q)", err, h.Trace(env).Error)
	}
	if n := redPixels(t, shot); n > 0 {
		t.Errorf("the failure screenshot shows %d red pixels: the field or text holding the secret was not masked", n)
	}
	if b := env.JSON(); bytes.Contains(b, []byte("failure.png")) || bytes.Contains(b, []byte("artifacts")) {
		t.Errorf("the envelope offers the failure screenshot to the agent: %s", b)
	}
}

const tallShot = `
name: tall_shot
description: A full-page screenshot of a very tall page.
risk: read
deadline: 120s
steps:
  - goto: ${{ config.acme_base }}/tall.html
  - screenshot: {full_page: true, into: shot}
    timeout: 90s
output:
  shot: ${{ vars.shot }}
`

// TestTallScreenshotClipped: a full-page screenshot of a 60000 px page is
// clipped to 16384 px and says so. Before: the call failed with internal.
func TestTallScreenshotClipped(t *testing.T) {
	t.Parallel()
	h := harness.New(t, map[string]string{"tall_shot": tallShot}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	env := h.OK(h.CallCtx(ctx, "tall_shot", `{}`))
	shot := env.Data["shot"].(map[string]any)
	if shot["clipped"] != true || shot["height"] != 16384 || shot["page_height"].(int) < 60000 {
		t.Errorf("shot = %v, want height 16384, clipped, page_height ≥ 60000", shot)
	}
}

const wideShot = `
name: wide_shot
description: A full-page screenshot of a very wide and tall page.
risk: read
deadline: 120s
steps:
  - goto: ${{ config.acme_base }}/wide.html
  - screenshot: {full_page: true, into: shot}
    timeout: 90s
output:
  shot: ${{ vars.shot }}
`

// TestWideScreenshotClipped: a full-page screenshot of a 300000×30000 px
// page is clipped like a tall one (to a bounded number of pixels) and says
// so. Before: a 16384×16384 capture, and the call ended deadline_exceeded.
// Capturing costs about a microsecond a pixel on a loaded machine: the step
// has 90 s, which the tall page's budget (21 Mpx) fits under a load of 40
// and the old square (268 Mpx) does not.
func TestWideScreenshotClipped(t *testing.T) {
	t.Parallel()
	h := harness.New(t, map[string]string{"wide_shot": wideShot}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	env := h.OK(h.CallCtx(ctx, "wide_shot", `{}`))
	shot := env.Data["shot"].(map[string]any)
	w, hh := shot["width"].(int), shot["height"].(int)
	if shot["clipped"] != true || w > 16384 || hh > 16384 || w*hh > 16384*1280 || shot["page_width"].(int) < 300000 || shot["page_height"].(int) < 30000 {
		t.Errorf("shot = %v, want at most 16384 px each way and 16384×1280 px in all, clipped, page 300000×30000", shot)
	}
}

// TestRepeatAnsweredBeforeGrantCheck: a finished write repeated after its
// grant was revoked gets its stored envelope, not not_granted; a refused
// call is still not stored. Before: the repeat got not_granted.
func TestRepeatAnsweredBeforeGrantCheck(t *testing.T) {
	t.Parallel()
	orders := newCounter(t, nil)
	h := harness.New(t, map[string]string{"place_order": placeOrder}, func(c *config.Config) {
		c.Vars["orders"] = orders.URL
		c.Policy.WriteTools = "grant"
	})
	ctx := context.Background()
	call := func(task string) *result.Envelope {
		return h.Call("place_order", `{"task_id":"`+task+`","item":"bolt"}`)
	}
	h.Code(call("T-g"), "not_granted") // refused, not stored
	g, err := h.St.AddGrant(ctx, "place_order", "T-g", time.Hour, "ticket 7", "tester")
	if err != nil {
		t.Fatal(err)
	}
	first := h.OK(call("T-g"))
	if err := h.St.Revoke(ctx, g.ID); err != nil {
		t.Fatal(err)
	}
	again := h.OK(call("T-g"))
	if again.TraceID != first.TraceID || orders.count("/order?item=bolt") != 1 {
		t.Errorf("repeat after the grant ended: trace %s (want %s), %d orders", again.TraceID, first.TraceID, orders.count("/order?item=bolt"))
	}
	h.Code(call("T-other"), "not_granted") // no grant, nothing stored: still refused
}

const floodSelectors = `
flood.button:
  css: "#flood"
flood.clicks:
  css: "#clicks"
`

const dialogFlood = `
name: dialog_flood
description: Click a button that opens 600 dialogs, then read how often it was clicked.
risk: write
deadline: 150s
steps:
  - goto: ${{ config.acme_base }}/flood.html
  - click: flood.button
  - wait: {text: all 600 dialogs answered}
    timeout: 120s
  - extract: {from: flood.clicks, into: clicks}
output:
  clicks: ${{ vars.clicks }}
  dialog: ${{ page.dialog }}
`

// TestDialogFloodClickIsDone: a click whose handler opens 600 alerts in a
// row took place, once: the call answers ok with every dialog answered,
// never a retryable failure an agent would answer by clicking again.
// Before: target_not_found "not ready within 10s" (the mouse release waits
// for the handler, which waits for 600 answers).
func TestDialogFloodClickIsDone(t *testing.T) {
	t.Parallel()
	h := harness.New(t, map[string]string{"dialog_flood": dialogFlood}, func(c *config.Config) { harness.AddSelectors(t, c, floodSelectors) })
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Second)
	defer cancel()
	env := h.OK(h.CallCtx(ctx, "dialog_flood", `{"task_id":"T-flood"}`))
	if env.Data["clicks"] != "1" || env.Data["dialog"] != "dialog 600" || env.Attempts != 1 {
		t.Errorf("data %v, attempts %d: want one click and the 600th dialog", env.Data, env.Attempts)
	}
}
