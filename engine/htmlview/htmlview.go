// Package htmlview is the HTML that people look at: the selector health
// report of `toolwright selectors check --report` and the trace viewer of
// `toolwright ui`. Plain html/template with a little inline CSS: no build
// step, usable offline; a script only where a person acts (the live view,
// the repairs page's apply).
package htmlview

import (
	"embed"
	"html/template"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
)

//go:embed templates
var files embed.FS

var css = func() string {
	b, err := files.ReadFile("templates/style.css")
	if err != nil {
		panic(err) // embedded at build time
	}
	return string(b)
}()

var pages = template.Must(template.New("").Funcs(template.FuncMap{
	"css":       func() template.CSS { return template.CSS(css) },
	"px":        func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) + "px" },
	"shot":      layoutShot,
	"when":      func(t time.Time) string { return t.Local().Format("2006-01-02 15:04:05") },
	"codeClass": codeClass,
	"traceURL":  func(id string) string { return "trace/" + id },
}).ParseFS(files, "templates/*.html"))

// codeClass is the CSS class of an envelope code.
func codeClass(code string) string {
	if code == "ok" {
		return "status-ok"
	}
	return "status-failed"
}

// Report is the selector health report: one section per page checked.
type Report struct {
	Selectors string // the selector map's path
	Generated time.Time
	Pages     []ReportPage
}

// ReportPage is one checked page.
type ReportPage struct {
	URL        string
	FinalURL   string // where it landed, when that is another address
	Error      string // it did not load, or moved on: no targets were checked
	Screenshot string // the PNG's file name beside index.html
	Width      float64
	Height     float64 // the screenshot's size in CSS pixels (box coordinates use the same)
	Targets    []ReportTarget
	// Elsewhere are the targets not checked on this page: their pages:
	// say they live on other pages (not broken).
	Elsewhere []string
}

// ReportTarget is one target's health on a page, with the boxes of the
// elements its matching locator found (page coordinates, CSS pixels).
type ReportTarget struct {
	Name    string
	Status  string // primary | fallback | ambiguous | not_found
	Locator string // "css input[name=email]", "fallback 1: label Email"; "" when none matched
	Message string
	Boxes   []Box
	// Proposal, for a target not found, is the locator its repair
	// proposal found one element by; Boxes are then that element's, boxed
	// as proposed beside the targets that resolve.
	Proposal string
}

// BoxStatus is how the target's boxes are drawn: its status, or proposed
// for a broken target's proposed element.
func (t ReportTarget) BoxStatus() string {
	if t.Proposal != "" {
		return "proposed"
	}
	return t.Status
}

// Box is an element's rectangle on the page.
type Box struct{ X, Y, W, H float64 }

type total struct {
	Status string
	Count  int
}

// WriteReport writes the report as one HTML document (index.html).
func WriteReport(w io.Writer, r *Report) error {
	counts := map[string]int{}
	for _, p := range r.Pages {
		for _, t := range p.Targets {
			counts[t.Status]++
		}
	}
	var totals []total
	for _, s := range []string{"primary", "fallback", "ambiguous", "not_found"} {
		if counts[s] > 0 {
			totals = append(totals, total{s, counts[s]})
		}
	}
	gen := ""
	if !r.Generated.IsZero() {
		gen = "made " + r.Generated.UTC().Format(time.RFC3339)
	}
	return pages.ExecuteTemplate(w, "report", map[string]any{
		"Title": "selectors check", "Home": "index.html", "Pages": r.Pages, "Totals": totals,
		"Selectors": r.Selectors, "Generated": gen,
	})
}

// sortedKeys returns m's keys, sorted.
func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		if strings.TrimSpace(k) != "" {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
