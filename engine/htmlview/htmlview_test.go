package htmlview

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolwright/toolwright/engine/store"
)

var update = flag.Bool("update", false, "rewrite the golden files")

var sampleReport = &Report{
	Selectors: "selectors/selectors.yaml",
	Generated: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC),
	Pages: []ReportPage{
		{URL: "http://127.0.0.1:8000/login.html", Screenshot: "page-1.png", Width: 800, Height: 600, Targets: []ReportTarget{
			{Name: "acme.login.email", Status: "primary", Locator: "css input[name=email]", Message: "css matched 1 element", Boxes: []Box{{100, 200, 300, 30}}},
			{Name: "acme.login.submit", Status: "fallback", Locator: "fallback 1: role button \"Sign in\"", Message: "fallback 1 ...", Boxes: []Box{{100, 300, 80, 30}}},
			{Name: "acme.login.error", Status: "ambiguous", Locator: "css .error", Message: "css matched 2 elements", Boxes: []Box{{0, 0, 10, 10}, {20, 20, 10, 10}}},
			{Name: "acme.login.gone", Status: "not_found", Message: "tried css #gone"},
		}, Elsewhere: []string{"acme.catalog.rows", "acme.catalog.next"}},
		{URL: "http://127.0.0.1:8000/catalog.html", FinalURL: "http://127.0.0.1:8000/login.html", Error: "the page moved on to http://127.0.0.1:8000/login.html"},
	},
}

// structure keeps the elements, classes and data attributes of the
// report: what a reader of the page relies on, not its CSS or wording.
func structure(html string) string {
	var out []string
	tag := regexp.MustCompile(`<(/?)([a-z0-9]+)([^>]*)>`)
	attr := regexp.MustCompile(`\b(class|data-[a-z]+|id|src)="([^"]*)"`)
	depth := 0
	for _, m := range tag.FindAllStringSubmatch(html, -1) {
		if m[2] == "style" || m[2] == "meta" || m[2] == "title" || m[2] == "html" || m[2] == "head" || m[2] == "body" {
			continue
		}
		if m[1] == "/" {
			depth--
			continue
		}
		var as []string
		for _, a := range attr.FindAllStringSubmatch(m[3], -1) {
			as = append(as, a[1]+"="+a[2])
		}
		out = append(out, strings.Repeat("  ", max(depth, 0))+m[2]+" "+strings.Join(as, " "))
		switch m[2] {
		case "img", "br", "input", "link":
		default:
			depth++
		}
	}
	return strings.Join(out, "\n") + "\n"
}

func TestReportGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteReport(&b, sampleReport); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	if strings.Contains(html, "<script") || strings.Contains(html, "<link") {
		t.Error("the report must not load anything")
	}
	// Boxes are placed in CSS pixels of the screenshot, shown at its size.
	if !strings.Contains(html, "left:100.0px;top:200.0px;width:300.0px;height:30.0px") {
		t.Errorf("box of acme.login.email misplaced:\n%s", html)
	}
	got := structure(html)
	golden := filepath.Join("testdata", "report.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./engine/htmlview -update)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("report structure (-golden +now; refresh with -update and review):\n%s", diff)
	}
}

func TestBars(t *testing.T) {
	tr := &store.Trace{DurationMS: 1000, Steps: []store.StepRecord{
		{Path: "0", Kind: "goto", DurationMS: 200, Code: "ok"},
		{Path: "1", Kind: "paginate", DurationMS: 600, Code: "ok"},
		{Path: "1.0", Kind: "wait", DurationMS: 100, Code: "ok"},
		{Path: "1.1", Kind: "extract", DurationMS: 300, Code: "ok"},
		{Path: "2", Kind: "click", Target: "acme.x", DurationMS: 200, Code: "target_not_found", Attempt: 2},
	}}
	var got []string
	for _, b := range Bars(tr) {
		got = append(got, strings.TrimSpace(strings.Join([]string{b.Path, b.Label, ftoa(b.Left), ftoa(b.Width)}, " ")))
	}
	want := []string{"0 goto 0 20", "1 paginate 20 60", "1.0 wait 20 10", "1.1 extract 30 30", "2 click acme.x (attempt 2) 80 20"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("bars (-want +got):\n%s", diff)
	}
	// Requests policy.subresources held show on their step.
	tr.Steps[0].Held, tr.Steps[0].HeldURLs = 3, []string{"http://a.test/x", "ws://b.test/y"}
	if b := Bars(tr)[0]; b.Held != 3 || b.HeldURLs != "http://a.test/x\nws://b.test/y" {
		t.Errorf("held on the bar: %d %q", b.Held, b.HeldURLs)
	}
	// An extract read in an earlier step's request names it.
	tr.Steps[3].ReadWith = "1.0"
	if b := Bars(tr)[3]; b.ReadWith != "1.0" {
		t.Errorf("read_with on the bar: %q", b.ReadWith)
	}
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
