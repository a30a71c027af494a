package selcheck

import (
	"strings"
	"testing"

	"github.com/toolwright/toolwright/engine/selector"
)

// TestWrite: the text form is a "== PAGE" line per page, then the page's
// error or its health lines; the JSON form is the list; AllOK needs every
// page loaded and every target by its primary.
func TestWrite(t *testing.T) {
	pages := []*Page{
		{Page: "a.html", URL: "file:///a.html", Targets: []selector.Health{{Name: "x.ok", Status: selector.StatusPrimary, Count: 1}}},
		{Page: "b.html", URL: "file:///b.html", Error: "the page did not load: boom", Targets: []selector.Health{}},
	}
	var text strings.Builder
	if err := Write(&text, pages, "text"); err != nil {
		t.Fatal(err)
	}
	var health strings.Builder
	if err := selector.FormatHealth(&health, pages[0].Targets); err != nil {
		t.Fatal(err)
	}
	if want := "== a.html\n" + health.String() + "== b.html\nerror\tthe page did not load: boom\n"; text.String() != want {
		t.Errorf("text:\n%q\nwant\n%q", text.String(), want)
	}
	var js strings.Builder
	if err := Write(&js, pages, "json"); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(js.String(), "[\n  {\n    \"page\": \"a.html\",") || !strings.Contains(js.String(), `"error": "the page did not load: boom"`) {
		t.Errorf("json:\n%s", js.String())
	}
	if AllOK(pages) {
		t.Error("AllOK with a page that did not load")
	}
	if !AllOK(pages[:1]) {
		t.Error("AllOK false for a page whose targets all resolved by primary")
	}
}
