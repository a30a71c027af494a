package record_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// TestRecordOrder: a select chosen with the keyboard, a checkbox, a file
// given to the file input (as the file chooser does), terms accepted in a
// popup, and a confirm dialog the person accepts. The workflow has a
// select parameter with the options as its enum, the check, the upload of
// a file from uploads_dir, a popup step with its own steps and the
// click's dialog: accept; its replay returns the status the person saw.
func TestRecordOrder(t *testing.T) {
	t.Parallel() // its own site, project and browser context
	p := newProject(t, nil)
	photo := filepath.Join(p.cfg.UploadsDir, "room.png")
	if err := os.WriteFile(photo, []byte("\x89PNG\r\n\x1a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := p.start("order.html")
	h := s.hand
	h.clickJS(`document.querySelector("label[for=size]")`)
	h.key("ArrowDown", 40, "")
	h.wait(`document.querySelector("#size").value === "m"`)
	h.click("#gift")
	el, err := h.p.Element("#photo")
	if err != nil {
		t.Fatal(err)
	}
	if err := el.SetFiles([]string{photo}); err != nil {
		t.Fatal(err)
	}
	h.click("#terms")
	popup := waitPage(t, h.p.Browser(), "/terms.html")
	ph := hand{t: t, p: popup}
	ph.recording()
	ph.click("#accept-terms")
	h.wait(`document.querySelector("#terms-state").textContent === "accepted"`)
	if err := popup.Close(); err != nil { // the person closes the popup's tab
		t.Fatal(err)
	}
	// The click opens a confirm; the person presses OK.
	x, y := h.box(`document.querySelector("#place")`)
	wait := h.p.Timeout(waitFor).WaitEvent(&proto.PageJavascriptDialogOpening{})
	clicked := make(chan struct{})
	go func() {
		defer close(clicked)
		for _, ev := range []proto.InputDispatchMouseEvent{
			{Type: proto.InputDispatchMouseEventTypeMouseMoved, X: x, Y: y},
			{Type: proto.InputDispatchMouseEventTypeMousePressed, X: x, Y: y, Button: proto.InputMouseButtonLeft, ClickCount: 1},
			{Type: proto.InputDispatchMouseEventTypeMouseReleased, X: x, Y: y, Button: proto.InputMouseButtonLeft, ClickCount: 1},
		} {
			_ = ev.Call(h.p.Timeout(waitFor))
		}
	}()
	wait()
	if err := (proto.PageHandleJavaScriptDialog{Accept: true}).Call(h.p.Timeout(waitFor)); err != nil {
		t.Fatal(err)
	}
	<-clicked
	want := "placed, size m, gift wrap, photo room.png, terms accepted"
	h.wait(`document.querySelector("#order-status").textContent === "` + want + `"`)
	h.toolbar("value")
	h.click("#order-status")
	d, env, diffs := s.finish("order_lamp")
	t.Logf("workflow:\n%s", d.Workflow)
	if len(diffs) > 0 {
		t.Fatalf("the replay differs from what was seen: %v\nenvelope %+v", diffs, env)
	}
	for _, w := range []string{"enum: [s, m, l]", "checked: true", "files: [room.png]", "popup:", "dialog: accept", "- click: lumen.order_lamp.i_accept"} {
		if !strings.Contains(d.Workflow, w) {
			t.Errorf("workflow lacks %q", w)
		}
	}
	if d.Args["size"] != "m" || d.Observed["order_status"] != want {
		t.Errorf("args %v observed %v", d.Args, d.Observed)
	}
}

// waitPage is the page whose URL ends with suffix, once it opened.
func waitPage(t *testing.T, b *rod.Browser, suffix string) *rod.Page {
	t.Helper()
	deadline := time.Now().Add(waitFor)
	for {
		pages, err := b.Pages()
		if err == nil {
			for _, p := range pages {
				if info, err := p.Info(); err == nil && strings.HasSuffix(info.URL, suffix) {
					return p
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no page %s opened", suffix)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
