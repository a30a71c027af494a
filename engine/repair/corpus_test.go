package repair_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/toolwright/toolwright/engine/repair"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/store/sqlstore"
	"github.com/toolwright/toolwright/internal/testsite"
	"gopkg.in/yaml.v3"
)

var writeCorpus = flag.Bool("corpus.write", false, "write the repair corpus's table into examples/bench/RESULTS.md (examples/bench/repair-corpus.sh)")

// corpusDir is testdata/repair/corpus: the first release of a fixture
// site's pages and of real applications' pages (MediaWiki's, phpMyAdmin's,
// as they served them), their selector map, and changes.yaml, the site
// changes to measure repairs on.
var corpusDir = filepath.Join(testsite.Root(), "testdata", "repair", "corpus")

// change is one site change of changes.yaml.
type change struct {
	Name   string            `yaml:"name"`
	Kind   string            `yaml:"kind"`
	Page   string            `yaml:"page"`
	What   string            `yaml:"what"`
	File   string            `yaml:"file"`
	Edits  [][]string        `yaml:"edits"`
	Expect map[string]string `yaml:"expect"`
	source string            // the page's source: sourceOf
}

// fixture is the source of a page that names none.
const fixture = "fixture site"

// sourceRE finds the application a page was saved from: its first comment
// begins "source: NAME VERSION, ..." (or "(...").
var sourceRE = regexp.MustCompile(`(?is)^\s*(?:<!doctype[^>]*>\s*)?<!--\s*source:\s*([^,(]+)`)

// sourceOf is the application page was saved from (its first comment's
// "source: ..."), or fixture.
func sourceOf(page string) string {
	b, err := os.ReadFile(filepath.Join(corpusDir, page))
	if m := sourceRE.FindSubmatch(b); err == nil && m != nil {
		return strings.TrimSpace(string(m[1]))
	}
	return fixture
}

// corpusPages are the pages the map has targets on (corp.PAGE.name is a
// target of PAGE.html), in order.
func corpusPages(m *selector.Map) []string {
	seen := map[string]bool{}
	for name := range m.Targets {
		if rest, ok := strings.CutPrefix(name, "corp."); ok {
			page, _, _ := strings.Cut(rest, ".")
			seen[page+".html"] = true
		}
	}
	pages := slices.Collect(maps.Keys(seen))
	slices.Sort(pages)
	return pages
}

// gone is an expect value: the target's element is no more.
const gone = "gone"

// kinds are the change kinds, in the order the table lists them.
var kinds = []string{
	"renamed ids and classes", "a new wrapper element", "reordered columns",
	"a button's text changed", "a control moved to another panel", "a framework upgrade's markup",
}

// prefixOf is the target prefix of a corpus page.
func prefixOf(page string) string { return "corp." + strings.TrimSuffix(page, ".html") + "." }

// release is c's page: the first release's with c's edits, or c's file.
func (c *change) release() ([]byte, error) {
	if c.File != "" {
		return os.ReadFile(filepath.Join(corpusDir, "releases", c.File))
	}
	b, err := os.ReadFile(filepath.Join(corpusDir, c.Page))
	if err != nil {
		return nil, err
	}
	s := string(b)
	for _, e := range c.Edits {
		if len(e) != 2 {
			return nil, fmt.Errorf("%s: an edit is [old, new]: %q", c.Name, e)
		}
		if n := strings.Count(s, e[0]); n != 1 {
			return nil, fmt.Errorf("%s: %q is in %s %d times, want once", c.Name, e[0], c.Page, n)
		}
		s = strings.Replace(s, e[0], e[1], 1)
	}
	return []byte(s), nil
}

// outcome is what became of one target a change broke.
type outcome struct {
	change, kind, target, source string
	gone                         bool // the element is no more
	elsewhere                    bool // the old locator still resolves, to another element: not broken
	status                       string
	right                        bool // the proposal's locators find the expected element
	took                         time.Duration
	message                      string
}

// TestRepairCorpus applies every change of changes.yaml to the corpus's
// pages and, for each target the change broke, looks for a repair from the
// target's fingerprint on the first release, as a failing call does
// (Keeper.Last, then Propose): a proposal must find the element expected,
// and never another (0 wrong, at least 80% repaired where the element is
// still there). -corpus.write puts the table into RESULTS.md.
func TestRepairCorpus(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var changes []change
	raw, err := os.ReadFile(filepath.Join(corpusDir, "changes.yaml"))
	if err == nil {
		err = yaml.Unmarshal(raw, &changes)
	}
	if err != nil {
		t.Fatal(err)
	}
	m, ps := selector.Load(filepath.Join(corpusDir, "selectors.yaml"))
	if len(ps) > 0 {
		t.Fatal(ps.Err())
	}
	byName := map[string]*change{}
	for i := range changes {
		byName[changes[i].Name] = &changes[i]
	}
	site := testsite.Serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body []byte
		var err error
		// A release is served at its page's own path (?release=NAME), so
		// its relative links lead where the first release's did.
		if c := byName[r.URL.Query().Get("release")]; c != nil && "/"+c.Page == r.URL.Path {
			body, err = c.release()
		} else {
			body, err = os.ReadFile(filepath.Join(corpusDir, filepath.Base(r.URL.Path)))
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(body)
	}))
	st, err := sqlstore.OpenSQLite(filepath.Join(t.TempDir(), sqlstore.FileName), sqlstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	k := repair.NewKeeper(st, nil)
	p := testsite.NewPage(t, testsite.Browser(t), "about:blank")
	pages := corpusPages(m)
	for _, page := range pages {
		testsite.Goto(t, p, site.URL(page))
		for _, name := range m.WithPrefix(prefixOf(page)) {
			mt, err := m.Resolve(ctx, p, name, selector.Options{Once: true})
			if err != nil {
				t.Fatalf("the first release: %v", err)
			}
			pr, err := repair.Read(ctx, mt.Element(), false)
			if err == nil {
				err = k.Keep(ctx, name, "/"+page, pr)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	var out []outcome
	for i := range changes {
		changes[i].source = sourceOf(changes[i].Page)
	}
	for _, c := range changes {
		if !slices.Contains(pages, c.Page) {
			t.Errorf("%s: page %q has no targets in the map (pages: %q)", c.Name, c.Page, pages)
			continue
		}
		if !slices.Contains(kinds, c.Kind) || len(c.Expect) == 0 {
			t.Errorf("%s: kind %q (want one of %q) with expect %v", c.Name, c.Kind, kinds, c.Expect)
			continue
		}
		testsite.Goto(t, p, site.URL(c.Page+"?release="+c.Name))
		out = append(out, applyChange(ctx, t, p, m, k, &c)...)
	}
	rows, text := corpusTable(changes, out)
	t.Logf("\n%s", text)
	total := rows[len(rows)-1]
	if total.wrong > 0 {
		t.Errorf("%d proposals found another element than the one expected", total.wrong)
	}
	if there := total.broken - total.gone; there == 0 || float64(total.right) < 0.8*float64(there) {
		t.Errorf("%d of %d broken targets whose element is still there repaired correctly, want at least 80%%", total.right, there)
	}
	if *writeCorpus {
		if err := writeResults(text); err != nil {
			t.Fatal(err)
		}
	}
}

// applyChange checks every target of c's page on the page (c's release,
// loaded in p) and looks for the repair of each one broken.
func applyChange(ctx context.Context, t *testing.T, p *rod.Page, m *selector.Map, k *repair.Keeper, c *change) []outcome {
	t.Helper()
	var out []outcome
	for _, name := range m.WithPrefix(prefixOf(c.Page)) {
		want, expected := c.Expect[name]
		mt, err := m.Resolve(ctx, p, name, selector.Options{Once: true})
		if err == nil {
			if expected && want != gone && same(ctx, t, mt.Element(), want) {
				t.Errorf("%s: %s still resolves to the element expected: it is not broken", c.Name, name)
			}
			if expected {
				out = append(out, outcome{change: c.Name, kind: c.Kind, target: name, source: c.source, elsewhere: true})
			}
			continue
		}
		if !expected {
			t.Errorf("%s: the change broke %s, which expect does not name (%v)", c.Name, name, err)
			continue
		}
		o := outcome{change: c.Name, kind: c.Kind, target: name, source: c.source, gone: want == gone}
		start := time.Now()
		last, _, err := k.Last(ctx, name)
		var pr *repair.Proposal
		if err == nil {
			pr, err = repair.Propose(ctx, p, name, last, nil)
		}
		o.took = time.Since(start)
		if err != nil {
			t.Errorf("%s: %s: %v", c.Name, name, err)
			continue
		}
		o.status, o.message = pr.Status, pr.Message
		if pr.Status == repair.Proposed && !o.gone {
			one := &selector.Map{Targets: map[string]*selector.Target{name: {Name: name, Locators: pr.Locators}}}
			got, err := one.Resolve(ctx, p, name, selector.Options{Once: true})
			o.right = err == nil && same(ctx, t, got.Element(), want)
		}
		if pr.Status == repair.Proposed && !o.right {
			t.Errorf("%s: %s: a wrong proposal (want %s): %s", c.Name, name, want, pr.Message)
		}
		out = append(out, o)
	}
	return out
}

// same reports whether el is the one element sel matches; sel is CSS, or
// "HOST::shadow INNER" for an element in HOST's open shadow root.
func same(ctx context.Context, t *testing.T, el *rod.Element, sel string) bool {
	t.Helper()
	res, err := el.Context(ctx).Eval(`function (sel) {
	  const [host, inner] = sel.split('::shadow ');
	  let root = document;
	  if (inner !== undefined) { const h = document.querySelector(host); root = h && h.shadowRoot; sel = inner; }
	  const all = root ? root.querySelectorAll(sel) : [];
	  if (all.length !== 1) throw new Error(sel + ' matches ' + all.length + ' elements, want 1');
	  return all[0] === this;
	}`, sel)
	if err != nil {
		t.Errorf("expect %q: %v", sel, err)
		return false
	}
	return res.Value.Bool()
}

// tally is one line of the corpus table.
type tally struct {
	kind                                                 string // the change kind, or the source
	changes, broken, right, wrong, none, gone, elsewhere int
	took                                                 []time.Duration
}

// count tallies changes and out by label (the change kind, or the
// source), a row per label in the order given and a last one for all.
func count(labels []string, changes []change, out []outcome, of func(kind, source string) string) []tally {
	rows := make([]tally, len(labels)+1)
	for i, l := range labels {
		rows[i].kind = l
	}
	rows[len(labels)].kind = "**all**"
	add := func(i int, f func(*tally)) { f(&rows[i]); f(&rows[len(labels)]) }
	for _, c := range changes {
		add(slices.Index(labels, of(c.Kind, c.source)), func(r *tally) { r.changes++ })
	}
	for _, o := range out {
		add(slices.Index(labels, of(o.kind, o.source)), func(r *tally) {
			switch {
			case o.elsewhere:
				r.elsewhere++
				return
			case o.gone && o.status == repair.Proposed:
				r.wrong++
			case o.gone:
				r.gone++
			case o.right:
				r.right++
			case o.status == repair.Proposed:
				r.wrong++
			default:
				r.none++
			}
			r.broken++
			r.took = append(r.took, o.took)
		})
	}
	return rows
}

// writeTally writes rows as a table whose first column is first.
func writeTally(b *strings.Builder, first string, rows []tally) {
	fmt.Fprintf(b, "| %s | changes | targets broken | repaired correctly | proposed wrongly (goal 0) | not proposed | element gone, none proposed | repaired / still there | proposal time, median (max) |\n", first)
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		share := "—"
		if there := r.broken - r.gone; there > 0 {
			share = fmt.Sprintf("%.0f%%", 100*float64(r.right)/float64(there))
		}
		fmt.Fprintf(b, "| %s | %d | %d | %d | %d | %d | %d | %s | %s |\n", r.kind, r.changes, r.broken, r.right, r.wrong, r.none, r.gone, share, medianMax(r.took))
	}
}

// corpusTable counts the outcomes per change kind (the last row: all), and
// per source (the fixture site, each real application), and writes the
// tables RESULTS.md shows.
func corpusTable(changes []change, out []outcome) ([]tally, string) {
	rows := count(kinds, changes, out, func(kind, _ string) string { return kind })
	sources := []string{fixture}
	for _, c := range changes {
		if !slices.Contains(sources, c.source) {
			sources = append(sources, c.source)
		}
	}
	slices.Sort(sources[1:])
	bySource := count(sources, changes, out, func(_, source string) string { return source })
	for i := range bySource[:len(sources)] {
		if bySource[i].kind != fixture {
			bySource[i].kind += " (real application)"
		}
	}
	var misses []string
	for _, o := range out {
		if !o.elsewhere && !o.gone && !o.right {
			where := ""
			if o.source != fixture {
				where = " (" + o.source + ")"
			}
			misses = append(misses, fmt.Sprintf("- %s%s, %s: %s", o.change, where, o.target, o.message))
		}
	}
	var b strings.Builder
	writeTally(&b, "change kind", rows)
	b.WriteString("\nThe same changes by the pages they were made to: the fixture site's, or a real application's (pages it served, saved; see each page's first comment).\n\n")
	writeTally(&b, "pages of", bySource)
	b.WriteString("\nBy kind and source (repaired correctly / targets broken whose element is still there, then proposed wrongly):\n\n")
	b.WriteString("| change kind |")
	for _, src := range sources {
		b.WriteString(" " + src + " |")
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(sources)) + "\n")
	for _, k := range kinds {
		b.WriteString("| " + k + " |")
		for _, src := range sources {
			var sub []outcome
			for _, o := range out {
				if o.kind == k && o.source == src {
					sub = append(sub, o)
				}
			}
			r := count([]string{""}, nil, sub, func(string, string) string { return "" })[0]
			if r.broken == 0 {
				b.WriteString(" — |")
				continue
			}
			fmt.Fprintf(&b, " %d / %d, %d wrong |", r.right, r.broken-r.gone, r.wrong)
		}
		b.WriteString("\n")
	}
	all := rows[len(kinds)]
	var slow *outcome
	for i := range out {
		if !out[i].elsewhere && (slow == nil || out[i].took > slow.took) {
			slow = &out[i]
		}
	}
	if slow != nil && slow.took > time.Second {
		var others time.Duration // the slowest proposal for another target
		for _, o := range out {
			if !o.elsewhere && o.target != slow.target {
				others = max(others, o.took)
			}
		}
		fmt.Fprintf(&b, "\nThe slowest proposal: %s, %s (%d ms; for every other target at most %d ms). `selsuggest` checks each candidate locator with `selector.Check`, which tries a locator that matches nothing again until its settle window (1.5 s) ends: a candidate that never matches (one the proposal then leaves out) costs that window.\n",
			slow.change, slow.target, slow.took.Milliseconds(), others.Milliseconds())
	}
	if all.elsewhere > 0 {
		fmt.Fprintf(&b, "\nNot in the table: %d targets a change left resolving to another element (a positional locator, `th:nth-child(3) > button`, meeting the column that moved there): not broken, so no repair is looked for; `selectors check` reports them primary. Only a fallback or an assert catches those.\n", all.elsewhere)
	}
	if len(misses) > 0 {
		b.WriteString("\nNot repaired, and why:\n")
		sort.Strings(misses)
		b.WriteString(strings.Join(misses, "\n") + "\n")
	}
	return rows, b.String()
}

// medianMax is "12 ms (30 ms)".
func medianMax(ds []time.Duration) string {
	if len(ds) == 0 {
		return "—"
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return fmt.Sprintf("%d ms (%d ms)", med.Milliseconds(), s[len(s)-1].Milliseconds())
}

const (
	corpusBegin = "<!-- repair-corpus:begin -->"
	corpusEnd   = "<!-- repair-corpus:end -->"
)

// writeResults puts table, with a heading and how it was made, between
// the corpus markers of examples/bench/RESULTS.md (at its end the first
// time).
func writeResults(table string) error {
	path := filepath.Join(testsite.Root(), "examples", "bench", "RESULTS.md")
	old, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	load, _ := os.ReadFile("/proc/loadavg")
	block := corpusBegin + "\n## (i) Repairs on a corpus of site changes (issue 50)\n\n" +
		"`examples/bench/repair-corpus.sh` (`go test -run TestRepairCorpus ./engine/repair -corpus.write`), " + time.Now().UTC().Format("2006-01-02T15:04Z") +
		", load average " + strings.Join(strings.Fields(string(load))[:min(3, len(strings.Fields(string(load))))], " ") + ".\n\n" +
		"The pages of `testdata/repair/corpus` and their selector map as written for the first release: a fixture site's (an account page, an orders table, a product page) " +
		"and real applications' as they served them (MediaWiki 1.39's sign-in page and wikitext editor, phpMyAdmin 5.2's sign-in page and a table's Browse page; " +
		"scripts and style sheets dropped), with the locators of `examples/mediawiki` and `examples/phpmyadmin` where they apply; " +
		"one locator per target, no fallbacks, by id, class, structure, text or role. Each change of `changes.yaml` is a later release of one page " +
		"(edits to it, or the page whole); every target it breaks is listed with the element the repair must find, or `gone`. " +
		"For each broken target the test does what a failing call does after `target_not_found`: the target's fingerprint from the first release " +
		"is read from the store and the page is scanned for the element that matches it (`Keeper.Last`, then `repair.Propose`, whose locators are " +
		"each checked to match one element). Repaired correctly: the proposal's locators find the element expected; proposed wrongly: they find another, " +
		"or anything when the element is gone; not proposed: ambiguous, or nothing matched well enough. The proposal time is what that adds to a " +
		"failing call (the step's own timeout comes before it). Row targets (`many`, `within`) are not proposed yet and are not in the map.\n\n" +
		table + corpusEnd
	s := string(old)
	if i, j := strings.Index(s, corpusBegin), strings.Index(s, corpusEnd); i >= 0 && j > i {
		s = s[:i] + block + s[j+len(corpusEnd):]
	} else {
		s = strings.TrimRight(s, "\n") + "\n\n" + block + "\n"
	}
	if bytes.Equal([]byte(s), old) {
		return nil
	}
	return os.WriteFile(path, []byte(s), 0o644)
}
