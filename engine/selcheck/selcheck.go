// Package selcheck is `toolwright selectors check`: it opens pages in one
// browser environment (a fresh one, or the one an env: new setup tool made,
// signed in), checks the selector map on each, and reports every page, also
// one that does not load or moves on to another address. With a report
// folder it writes index.html (engine/htmlview) with each page's screenshot
// and every target boxed.
package selcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/toolwright/toolwright/engine/htmlview"
	"github.com/toolwright/toolwright/engine/policy"
	"github.com/toolwright/toolwright/engine/repair"
	"github.com/toolwright/toolwright/engine/selector"
)

// LoadTimeout bounds loading one page.
const LoadTimeout = 30 * time.Second

// maxBoxes bounds the boxes drawn for one many target.
const maxBoxes = 50

// Options configure Run.
type Options struct {
	Map      *selector.Map
	MapPath  string
	Names    []string // the targets to check (all when empty)
	Redactor *policy.Redactor
	Secrets  []string // secret values, masked in the screenshots
	// ReportDir, when set, gets index.html and one screenshot per page.
	ReportDir string
	// Prints keeps the fingerprints of the targets that resolve, and is
	// where a broken target's last one is read for a repair proposal
	// (nil: neither).
	Prints *repair.Keeper
}

// Page is the result for one page.
type Page struct {
	Page     string            `json:"page"`
	URL      string            `json:"url"`
	FinalURL string            `json:"final_url,omitempty"`
	Error    string            `json:"error,omitempty"`
	Targets  []selector.Health `json:"targets"`
	// Elsewhere are the targets not checked here: their pages: (their own,
	// or their prefix's) do not include this page.
	Elsewhere []string `json:"elsewhere,omitempty"`
	// Repairs are the repair proposals for the targets not found here
	// (Options.Prints): for the maintainer to review.
	Repairs []repair.Proposal `json:"repairs,omitempty"`
	report  htmlview.ReportPage
}

// OK reports whether the page loaded where asked and every target resolved by its primary.
func (p *Page) OK() bool { return p.Error == "" && selector.AllPrimary(p.Targets) }

// AllOK reports whether every page passed (Page.OK).
func AllOK(pages []*Page) bool {
	for _, p := range pages {
		if !p.OK() {
			return false
		}
	}
	return true
}

// Write prints the pages as `selectors check` does: format "json" is the
// list as indented JSON; "text" is a "== PAGE" line per page, then its
// error or its targets' health lines.
func Write(w io.Writer, pages []*Page, format string) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(pages)
	}
	for _, p := range pages {
		fmt.Fprintf(w, "== %s\n", p.Page)
		if p.Error != "" {
			fmt.Fprintf(w, "error\t%s\n", p.Error)
			continue
		}
		if err := selector.FormatHealth(w, p.Targets); err != nil {
			return err
		}
		writeRepairs(w, p.Repairs)
		if n := len(p.Elsewhere); n > 0 {
			names := p.Elsewhere
			more := ""
			if n > 6 {
				names, more = names[:6], fmt.Sprintf(" and %d more", n-6)
			}
			what := fmt.Sprintf("%d targets live", n)
			if n == 1 {
				what = "1 target lives"
			}
			fmt.Fprintf(w, "elsewhere\t%s on other pages (pages:), not checked here: %s%s\n", what, strings.Join(names, ", "), more)
		}
	}
	return nil
}

// Run checks every page in page (the environment's tab), one after the
// other. A page that fails is reported and the rest go on.
func Run(ctx context.Context, tab *rod.Page, pages []string, o Options) ([]*Page, error) {
	if o.ReportDir != "" {
		if err := os.MkdirAll(o.ReportDir, 0o755); err != nil {
			return nil, err
		}
	}
	var out []*Page
	for i, p := range pages {
		out = append(out, checkPage(ctx, tab, i, p, o))
		if ctx.Err() != nil {
			break
		}
	}
	if o.ReportDir != "" {
		if err := writeReport(out, o); err != nil {
			return out, err
		}
	}
	return out, nil
}

func checkPage(ctx context.Context, tab *rod.Page, i int, p string, o Options) *Page {
	red := o.Redactor
	nav := URLOf(p)
	res := &Page{Page: red.Redact(p), URL: red.Redact(nav), Targets: []selector.Health{}}
	res.report.URL = res.URL
	lctx, cancel := context.WithTimeout(ctx, LoadTimeout)
	defer cancel()
	page := tab.Context(lctx)
	err := page.Navigate(nav)
	if err == nil {
		err = waitLoad(lctx, page)
	}
	if err != nil {
		res.Error = red.Redact(fmt.Sprintf("the page did not load: %v", err))
		res.report.Error = res.Error
		return res
	}
	before := currentURL(page)
	all := o.Names
	if len(all) == 0 {
		all = o.Map.Names()
	}
	// A target is checked where it lives: a target whose pages: leave
	// this page out is not on this page, which is not broken.
	var names []string
	for _, n := range all {
		if o.Map.OnPage(n, before) {
			names = append(names, n)
		} else {
			res.Elsewhere = append(res.Elsewhere, n)
		}
	}
	res.report.Elsewhere = res.Elsewhere
	hs := []selector.Health{}
	if len(names) > 0 { // (no names would be every target)
		hs = selector.Check(ctx, tab, o.Map, names)
	}
	after := currentURL(page)
	if moved(nav, after) || before != after {
		res.FinalURL = red.Redact(after)
		res.report.FinalURL = red.Redact(after)
		res.Error = red.Redact(fmt.Sprintf("the page moved on to %s (a redirect or a script): its targets were not checked; sign in first with --setup, or check that page itself", after))
		res.report.Error = res.Error
		if o.ReportDir != "" {
			picture(ctx, tab, i, &res.report, nil, nil, o)
		}
		return res
	}
	if o.Prints != nil {
		res.Repairs = repairs(ctx, tab, hs, pathOf(after), o)
	}
	for j := range hs {
		hs[j].Message = red.Redact(hs[j].Message)
	}
	res.Targets = hs
	if o.ReportDir != "" {
		picture(ctx, tab, i, &res.report, hs, res.Repairs, o)
	}
	return res
}

// row is a target's health line in the report.
func row(m *selector.Map, h selector.Health) htmlview.ReportTarget {
	rt := htmlview.ReportTarget{Name: h.Name, Status: h.Status, Message: h.Message}
	t, ok := m.Lookup(h.Name)
	if !ok || h.Status == selector.StatusNotFound || h.Count == 0 {
		return rt
	}
	if h.Locator < len(t.Locators) {
		rt.Locator = t.Locators[h.Locator].Describe()
		if h.Locator > 0 {
			rt.Locator = fmt.Sprintf("fallback %d: %s", h.Locator, rt.Locator)
		}
	}
	return rt
}

// boxCeiling bounds drawing one target's boxes: a ceiling for a loaded
// machine (a 3 s bound left found targets without a box at a load of 80),
// never a wait: the target is looked for once.
const boxCeiling = time.Minute

// boxes are the rectangles of what the target's locator matched, as the
// page is laid out now; an error when what was found could not be measured.
func boxes(ctx context.Context, tab *rod.Page, m *selector.Map, h selector.Health) ([]htmlview.Box, error) {
	if h.Status == selector.StatusNotFound || h.Count == 0 {
		return nil, nil
	}
	rctx, cancel := context.WithTimeout(ctx, boxCeiling)
	defer cancel()
	match, err := m.Resolve(rctx, tab, h.Name, selector.Options{Once: true})
	if err != nil {
		return nil, err
	}
	var out []htmlview.Box
	for k, el := range match.Elements {
		if k == maxBoxes {
			break
		}
		b, ok, err := box(rctx, el)
		if err != nil {
			return out, err
		}
		if ok {
			out = append(out, b)
		}
	}
	return out, nil
}

// box is the element's rectangle in page coordinates; hidden elements have none.
func box(ctx context.Context, el *rod.Element) (htmlview.Box, bool, error) {
	res, err := el.Context(ctx).Eval(`() => { const r = this.getBoundingClientRect(); return [r.left + window.scrollX, r.top + window.scrollY, r.width, r.height]; }`)
	if err != nil {
		return htmlview.Box{}, false, err
	}
	var v []float64
	if err := res.Value.Unmarshal(&v); err != nil || len(v) != 4 || v[2] <= 0 || v[3] <= 0 {
		return htmlview.Box{}, false, nil
	}
	return htmlview.Box{X: v[0], Y: v[1], W: v[2], H: v[3]}, true, nil
}

// maskJS hides what must not appear in a picture: password values, and
// every field value or text that contains a secret.
const maskJS = `(secrets) => {
  const hit = (s) => s && secrets.some((x) => x && s.includes(x));
  for (const el of document.querySelectorAll('input, textarea')) {
    if (el.type === 'password' || hit(el.value)) { el.value = el.value ? '[redacted]' : ''; }
  }
  const w = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_TEXT);
  for (let n = w.nextNode(); n; n = w.nextNode()) {
    if (hit(n.nodeValue)) { let v = n.nodeValue; for (const x of secrets) { if (x) v = v.split(x).join('[redacted]'); } n.nodeValue = v; }
  }
}`

// maxShot bounds the picture of a page each way (CSS pixels), as the
// screenshot step does: Chromium cannot capture more.
const maxShot = 16384

// picture masks secrets, lays the page out at its full size, measures the
// boxes of the targets hs in that layout and saves the screenshot beside
// index.html. The boxes are measured on the very layout the picture shows:
// masking shortens text, and a taller viewport can move what depends on
// it, so boxes measured before would sit off their elements. A target not
// found whose repair was proposed (rs) has the proposed element boxed.
func picture(ctx context.Context, tab *rod.Page, i int, rp *htmlview.ReportPage, hs []selector.Health, rs []repair.Proposal, o Options) {
	for _, h := range hs {
		rp.Targets = append(rp.Targets, row(o.Map, h))
	}
	sctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	page := tab.Context(sctx)
	if _, err := page.Eval(maskJS, append([]string{}, o.Secrets...)); err != nil { // [], not null, when there are none
		rp.Error = strings.TrimSpace(rp.Error + " (the screenshot was not taken: secrets could not be masked)")
		return
	}
	// The window as it was, to give it back afterwards.
	var was []int
	if res, err := page.Eval(`() => [innerWidth, innerHeight]`); err == nil {
		_ = res.Value.Unmarshal(&was)
	}
	metrics, err := proto.PageGetLayoutMetrics{}.Call(page)
	if err != nil || metrics.CSSContentSize == nil || len(was) != 2 {
		return
	}
	full := proto.EmulationSetDeviceMetricsOverride{
		Width:  min(int(metrics.CSSContentSize.Width+0.5), maxShot),
		Height: min(int(metrics.CSSContentSize.Height+0.5), maxShot),
	}
	if full.Width <= 0 || full.Height <= 0 {
		return
	}
	if err := full.Call(page); err != nil {
		return
	}
	defer func() {
		rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer rcancel()
		_ = proto.EmulationSetDeviceMetricsOverride{Width: was[0], Height: was[1]}.Call(tab.Context(rctx))
	}()
	for k, h := range hs {
		bs, err := boxes(ctx, tab, o.Map, h)
		if p := proposedFor(rs, h); p != nil {
			bs, err = proposedBoxes(ctx, tab, p, &rp.Targets[k])
		}
		rp.Targets[k].Boxes = bs
		if err != nil {
			// Found, but not drawn: the report says so beside it.
			rp.Targets[k].Message = strings.TrimSpace(rp.Targets[k].Message + " (not boxed in the screenshot: " + err.Error() + ")")
		}
	}
	shot, err := proto.PageCaptureScreenshot{Format: proto.PageCaptureScreenshotFormatPng}.Call(page)
	if err != nil {
		return
	}
	b := shot.Data
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return
	}
	ratio := 1.0
	if res, err := page.Eval(`() => window.devicePixelRatio || 1`); err == nil && res.Value.Num() > 0 {
		ratio = res.Value.Num()
	}
	name := fmt.Sprintf("page-%d.png", i+1)
	if err := os.WriteFile(filepath.Join(o.ReportDir, name), b, 0o644); err != nil {
		return
	}
	rp.Screenshot = name
	rp.Width, rp.Height = float64(cfg.Width)/ratio, float64(cfg.Height)/ratio
}

func writeReport(pages []*Page, o Options) error {
	r := &htmlview.Report{Selectors: o.MapPath, Generated: time.Now()}
	for _, p := range pages {
		r.Pages = append(r.Pages, p.report)
	}
	f, err := os.Create(filepath.Join(o.ReportDir, "index.html"))
	if err != nil {
		return err
	}
	if err := htmlview.WriteReport(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// waitLoad waits for the load event, also when the page moves on by
// script while loading (which destroys the document the first wait was on).
func waitLoad(ctx context.Context, page *rod.Page) error {
	for {
		err := page.WaitLoad()
		if err == nil || ctx.Err() != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func currentURL(page *rod.Page) string {
	info, err := page.Info()
	if err != nil {
		return ""
	}
	return info.URL
}

// moved reports whether the page is at another address than asked (the
// fragment aside).
func moved(asked, now string) bool {
	norm := func(s string) string {
		u, err := url.Parse(s)
		if err != nil {
			return s
		}
		u.Fragment = ""
		if u.Path == "" {
			u.Path = "/"
		}
		return u.String()
	}
	return now != "" && norm(asked) != norm(now)
}

// pathOf is the path of URL u, as fingerprints record where they were seen.
func pathOf(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Path == "" {
		return "/"
	}
	return p.Path
}

// splitLines splits s into its lines, without a last empty one.
func splitLines(s string) []string { return strings.Split(strings.TrimSuffix(s, "\n"), "\n") }

// URLOf turns a file path into a file:// URL; URLs pass through.
func URLOf(p string) string {
	if strings.Contains(p, "://") {
		return p
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return "file://" + filepath.ToSlash(abs)
}
