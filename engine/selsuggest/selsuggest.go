// Package selsuggest is `toolwright selectors suggest`: it reads a page's
// fields, buttons and links (open shadow roots and iframes, same-site or
// not, included) and proposes
// selector-map entries for them: a stable primary locator (id, data-testid,
// name, label) and fallbacks (role + name, text). Every locator it proposes
// was resolved on the page by the same resolver workflows use and matched
// exactly one element, the one it is proposed for.
package selsuggest

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/toolwright/toolwright/engine/selector"
	"gopkg.in/yaml.v3"
)

//go:embed collect.js
var collectSource string

// DescribeJS is describe.js: how an element is read (twInfo) and which
// locators are tried for it (twCandidates), shared with engine/record's
// capture script so that suggest and record propose the same entries.
//
//go:embed describe.js
var DescribeJS string

var collectJS = strings.Replace(collectSource, "/* describe.js */", DescribeJS, 1)

//go:embed cleanup.js
var cleanupJS string

//go:embed rowparts.js
var rowPartsJS string

//go:embed rows.js
var rowsSource string

//go:embed textrows.js
var textRowsSource string

// rowsJS and textRowsJS name rows with the same parts (rowparts.js).
var (
	rowsJS     = strings.Replace(rowsSource, "  /* rowparts.js */\n", rowPartsJS, 1)
	textRowsJS = strings.Replace(textRowsSource, "  /* rowparts.js */\n", rowPartsJS, 1)
)

// Entry is one proposed selector-map entry.
type Entry struct {
	Name        string             `json:"name"`
	Kind        string             `json:"kind"` // field, button, link, frame, rows or text (a text in each row)
	Description string             `json:"description"`
	Frame       string             `json:"frame,omitempty"`  // the frame entry of the iframe it is in
	Within      string             `json:"within,omitempty"` // the many entry it is read inside (record's row fields)
	Many        bool               `json:"many,omitempty"`   // it names every match (record's rows)
	Locators    []selector.Locator `json:"locators"`         // primary first
}

// Element is one element as describe.js reads it (twInfo), with its
// candidate locators, stable ones first.
type Element struct {
	N           int    `json:"n"`
	Kind        string `json:"kind"`
	Tag         string `json:"tag"`
	InShadow    bool   `json:"inShadow"`
	Type        string `json:"type"`
	ID          string `json:"id"`
	IDCSS       string `json:"idCSS"`
	Name        string `json:"name"`
	TestID      string `json:"testid"`
	TestAttr    string `json:"testattr"`
	Label       string `json:"label"`
	Text        string `json:"text"`
	Placeholder string `json:"placeholder"`
	Role        string `json:"role"`
	AccName     string `json:"accName"`
	Href        string `json:"href"`
	Src         string `json:"src"`
	// Cands are the locators worth trying, stable ones first (twCandidates).
	Cands []selector.Locator `json:"cands"`
}

// LoadTimeout bounds loading the page.
const LoadTimeout = 30 * time.Second

// Frames are followed this deep (a frame in a frame in the page is depth 2)
// and at most this many are read.
const (
	maxFrameDepth = 3
	maxFrames     = 20
)

// document is one document entries are read from: the page's, or an
// iframe's (reached through its frame entry).
type document struct {
	frame  string // the name of its frame entry; "" for the page
	prefix string // its entries are named prefix.NAME
	depth  int
	eval   func(js string, args ...any) (*proto.RuntimeRemoteObject, error)
}

// Options tunes SuggestPage.
type Options struct {
	// Secrets are values no proposed name or locator may contain (a user
	// name shown on the page): such a locator is left out, such a name
	// is not used.
	Secrets []string
}

// Result is what SuggestPage found.
type Result struct {
	Entries []Entry
	// URL is where the page ended up: not the address asked for when it
	// redirected (a signed-out visitor sent to a sign-in page).
	URL string
}

// SuggestPage opens page in tab (unless it is "", then the tab's current
// page is read) and proposes entries named prefix.NAME. The documents of
// the page's iframes (same-site or not, nested too) are read as well: each
// iframe is an entry of kind "frame", and the entries inside it name it in
// their frame key and are named after it. It also says where the page
// landed, refuses a
// page that answered an error status, waits out a page that navigates on
// its own, and never proposes a secret's value or a per-session token
// (a CSRF token, a nonce, a session id in a URL) in a name or a locator.
func SuggestPage(ctx context.Context, tab *rod.Page, page, prefix string, opt Options) (*Result, error) {
	res := &Result{URL: page}
	if page != "" {
		lctx, cancel := context.WithTimeout(ctx, LoadTimeout)
		err := tab.Context(lctx).Navigate(page)
		if err == nil {
			err = settle(lctx, tab)
		}
		cancel()
		if err != nil {
			return nil, fmt.Errorf("the page did not load: %w", err)
		}
		if st, landed := landing(ctx, tab); st >= 400 {
			return nil, fmt.Errorf("%s answered %d %s: suggest reads a page a browser opens with GET; open the page that shows the form instead", landed, st, http.StatusText(st))
		} else if landed != "" {
			res.URL = landed
		}
	}
	var entries []Entry
	var err error
	for try := 0; ; try++ {
		entries, err = suggest(ctx, tab, page, prefix, opt)
		if err == nil || !navigated(err) || try == 3 {
			break
		}
		// The page moved on while it was read (a script redirect): read
		// where it went.
		lctx, cancel := context.WithTimeout(ctx, LoadTimeout)
		_ = settle(lctx, tab)
		cancel()
		if _, landed := landing(ctx, tab); landed != "" {
			res.URL = landed
		}
	}
	if err != nil && navigated(err) {
		_, landed := landing(ctx, tab)
		return nil, fmt.Errorf("the page kept navigating while it was read (last at %s): open the page it settles on, or sign in first with --setup TOOL", landed)
	}
	res.Entries = entries
	return res, err
}

// navigated: the document was replaced under a call (CDP -32000
// "Inspected target navigated or closed", or a lost execution context).
func navigated(err error) bool {
	t := err.Error()
	return strings.Contains(t, "navigated or closed") || strings.Contains(t, "Cannot find context") || strings.Contains(t, "Execution context was destroyed")
}

// settle waits until the page stays put: loaded, what its scripts set
// going while it loaded has run (the follow hook's quiet: a single-page
// app's fetch and the form it then draws; without the hook, a quiet moment
// of 250 ms), and the same document afterwards, so a script that sends the
// visitor on (one redirect or a chain of them) is followed to where it
// ends. A wait whose document was replaced under it starts over on the
// new one.
func settle(ctx context.Context, tab *rod.Page) error {
	const loadWork = 5 * time.Second // as long as goto waits for it
	const quiet = 250 * time.Millisecond
	for {
		origin, err := loadedOrigin(ctx, tab)
		if err != nil && !navigated(err) {
			return err
		}
		if err == nil {
			if f, qerr := selector.Quiet(ctx, tab, loadWork); qerr != nil || !f.Hooked {
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(quiet):
				}
			}
			again, err := loadedOrigin(ctx, tab)
			if err == nil && again == origin {
				return nil
			}
			if err != nil && !navigated(err) {
				return err
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// loadedOrigin waits for the document's load and says which document it
// is (its time origin differs for every document the tab shows).
func loadedOrigin(ctx context.Context, tab *rod.Page) (float64, error) {
	if err := tab.Context(ctx).WaitLoad(); err != nil {
		return 0, err
	}
	v, err := tab.Context(ctx).Eval(`() => performance.timeOrigin`)
	if err != nil {
		return 0, err
	}
	return v.Value.Num(), nil
}

// landing reads the main document's status and address.
func landing(ctx context.Context, tab *rod.Page) (int, string) {
	v, err := tab.Context(ctx).Eval(`() => { const n = performance.getEntriesByType('navigation')[0]; return [n ? (n.responseStatus || 0) : 0, location.href]; }`)
	if err != nil {
		return 0, ""
	}
	arr := v.Value.Arr()
	if len(arr) != 2 {
		return 0, ""
	}
	return arr[0].Int(), arr[1].Str()
}

func suggest(ctx context.Context, tab *rod.Page, page, prefix string, opt Options) ([]Entry, error) {
	if prefix == "" {
		prefix = prefixOf(page)
	}
	top := document{prefix: prefix, eval: func(js string, args ...any) (*proto.RuntimeRemoteObject, error) {
		return tab.Context(ctx).Eval(js, args...)
	}}
	var (
		out    []Entry
		frames []Entry // frame entries found so far: the throwaway maps need them
		used   = map[string]int{}
		marked []document
		next   int // the next data-tw-suggest mark
	)
	defer func() {
		for _, d := range marked {
			_, _ = d.eval(cleanupJS)
		}
	}()
	for queue := []document{top}; len(queue) > 0; queue = queue[1:] {
		d := queue[0]
		els, err := d.collect(next)
		if err != nil {
			if d.frame == "" {
				return nil, fmt.Errorf("read the page: %w", err)
			}
			continue // a frame that cannot be read (it navigated away) is left out
		}
		marked = append(marked, d)
		first := next
		next += len(els)
		good, err := verify(ctx, tab, frames, d.frame, els)
		if err != nil {
			return nil, err
		}
		var inRows map[int]bool
		if d.frame == "" {
			var rowEntries []Entry
			rowEntries, inRows = d.rows(els, first, next, used, opt.Secrets)
			out = append(out, rowEntries...)
			out = append(out, d.textRows(rowEntries, used, opt.Secrets)...)
		}
		for i, e := range els {
			if inRows[i] {
				continue
			}
			locs := clean(good[i], opt.Secrets)
			if len(locs) == 0 {
				continue
			}
			base := d.prefix + "." + slugClean(e, opt.Secrets)
			name := base
			if e.Kind == "frame" {
				name = strings.TrimSuffix(base, "_frame") + "_frame"
			}
			used[name]++
			if used[name] > 1 {
				base = fmt.Sprintf("%s_%d", base, used[name])
				name = fmt.Sprintf("%s_%d", name, used[name])
			}
			en := Entry{Name: name, Kind: e.Kind, Description: Describe(e, d.frame), Frame: d.frame, Locators: Arrange(locs)}
			out = append(out, en)
			if e.Kind != "frame" || d.depth >= maxFrameDepth || len(frames) >= maxFrames {
				continue
			}
			frames = append(frames, en)
			if eval, err := enter(ctx, tab, frames, name); err == nil {
				queue = append(queue, document{frame: name, prefix: strings.TrimSuffix(base, "_frame"), depth: d.depth + 1, eval: eval})
			}
		}
	}
	nextPage(out, used)
	return out, nil
}

var nextRE = regexp.MustCompile(`(?i)^(next|next page|next ›|next »|›|»|>|→|older|more)$`)

// nextPage names the page's next-page control prefix.next_page, for
// paginate's next.
func nextPage(out []Entry, used map[string]int) {
	for i := range out {
		e := &out[i]
		if (e.Kind != "link" && e.Kind != "button") || e.Within != "" || e.Frame != "" {
			continue
		}
		for _, l := range e.Locators {
			if (l.Strategy == selector.Text && nextRE.MatchString(l.Value)) || (l.Strategy == selector.Role && nextRE.MatchString(l.Name)) {
				name := e.Name[:strings.LastIndexByte(e.Name, '.')+1] + "next_page"
				if used[name] == 0 {
					used[name]++
					e.Name = name
					e.Description += " (the next-page control: paginate's next)"
				}
				break
			}
		}
		if strings.HasSuffix(e.Name, ".next_page") {
			return
		}
	}
}

type rowInfo struct {
	N     int    `json:"n"`
	Row   string `json:"row"`
	Inner string `json:"inner"`
	Rows  int    `json:"rows"`
}

// rows finds repeating content (table rows, list items, cards) among els
// (marked first..end) and proposes, per kind of row, one many entry for the
// rows and one within entry per control or field that repeats in them,
// instead of an entry per row (143 on a list page). It returns the entries
// and the indexes of els they stand for.
func (d document) rows(els []Element, first, end int, used map[string]int, secrets []string) ([]Entry, map[int]bool) {
	res, err := d.eval(rowsJS, first, end)
	if err != nil {
		return nil, nil
	}
	var infos []rowInfo
	if json.Unmarshal([]byte(res.Value.JSON("", "")), &infos) != nil {
		return nil, nil
	}
	byN := map[int]rowInfo{}
	for _, in := range infos {
		byN[in.N] = in
	}
	groups, order := rowGroups(els, byN, secrets)
	var out []Entry
	taken := map[int]bool{}
	rowName := map[string]string{}
	for _, k := range order {
		members := groups[k]
		if len(members) < 2 {
			continue
		}
		rn, ok := rowName[k.row]
		if !ok {
			rn = uniqueName(used, d.prefix+".rows")
			rowName[k.row] = rn
			out = append(out, Entry{Name: rn, Kind: "rows", Many: true, Description: fmt.Sprintf("each of the %d repeating rows (read fields and act inside one with within:)", byN[els[members[0]].N].Rows),
				Locators: []selector.Locator{{Strategy: selector.CSS, Value: k.row}}})
		}
		out = append(out, d.rowEntry(els, k, members, rn, used, secrets))
		for _, m := range members {
			taken[m] = true
		}
	}
	return out, taken
}

// Text rows: at most this many kinds of them, and this many fields each.
const (
	maxTextRows   = 4
	maxTextFields = 8
)

type textRow struct {
	Row    string `json:"row"`
	Rows   int    `json:"rows"`
	Fields []struct {
		Inner  string `json:"inner"`
		Name   string `json:"name"`
		Sample string `json:"sample"`
	} `json:"fields"`
}

// textRows proposes the repeating rows that hold text only (a table of
// plain cells, a list of items), which rows, starting from the controls
// in them, never meets: a many entry for the rows and a within entry per
// field (a table's column, named by its header; a leaf with text every
// row has once). known are the entries rows proposed, whose rows are not
// proposed again.
func (d document) textRows(known []Entry, used map[string]int, secrets []string) []Entry {
	skip := []string{}
	for _, e := range known {
		if e.Many {
			skip = append(skip, e.Locators[0].Value)
		}
	}
	res, err := d.eval(textRowsJS, skip, maxTextRows, maxTextFields)
	if err != nil {
		return nil
	}
	var groups []textRow
	if json.Unmarshal([]byte(res.Value.JSON("", "")), &groups) != nil {
		return nil
	}
	var out []Entry
	for _, g := range groups {
		if tainted(g.Row, secrets) {
			continue
		}
		rn := uniqueName(used, d.prefix+".rows")
		desc := fmt.Sprintf("each of the %d repeating rows of text", g.Rows)
		if len(g.Fields) == 1 && g.Fields[0].Inner == "" {
			desc += " (extract from: it reads each row's text)"
		} else {
			desc += " (read their fields with extract's fields:)"
		}
		out = append(out, Entry{Name: rn, Kind: "rows", Many: true, Description: desc, Locators: []selector.Locator{{Strategy: selector.CSS, Value: g.Row}}})
		for i, f := range g.Fields {
			if f.Inner == "" || tainted(f.Inner, secrets) {
				continue
			}
			slug := shorten(strings.Trim(cleanRE.ReplaceAllString(strings.ToLower(f.Name), "_"), "_"))
			if slug == "" || tainted(f.Name, secrets) {
				slug = fieldSlug(f.Inner, i)
			}
			desc := "the text in each row"
			switch {
			case f.Name != "" && !tainted(f.Name, secrets):
				desc = fmt.Sprintf("column %q in each row", f.Name)
			case f.Sample != "" && !tainted(f.Sample, secrets):
				desc = fmt.Sprintf("the text in each row (the first: %q)", f.Sample)
			}
			out = append(out, Entry{Name: uniqueName(used, d.prefix+".row_"+slug), Kind: "text", Within: rn, Description: desc,
				Locators: []selector.Locator{{Strategy: selector.CSS, Value: f.Inner}}})
		}
	}
	return out
}

// fieldSlug names the i-th field of a row by its selector inside the row:
// its last class (span.price → price), else its position (field_2).
func fieldSlug(inner string, i int) string {
	parts := strings.Split(inner, " > ")
	for j := len(parts) - 1; j >= 0; j-- {
		if k := strings.IndexByte(parts[j], '.'); k >= 0 {
			if s := shorten(strings.Trim(cleanRE.ReplaceAllString(strings.ToLower(parts[j][k+1:]), "_"), "_")); s != "" {
				return s
			}
		}
	}
	return fmt.Sprintf("field_%d", i+1)
}

// rowKey is a kind of repeating element: the row's selector, the
// element's inside the row, and its kind.
type rowKey struct{ row, inner, kind string }

// rowGroups groups els (by index) by the row they repeat in, in the order
// the kinds first appear; frames and rows whose selectors hold a secret
// are left out.
func rowGroups(els []Element, byN map[int]rowInfo, secrets []string) (map[rowKey][]int, []rowKey) {
	groups := map[rowKey][]int{}
	var order []rowKey
	for i, e := range els {
		in := byN[e.N]
		if in.Row == "" || in.Inner == "" || e.Kind == "frame" || tainted(in.Row, secrets) || tainted(in.Inner, secrets) {
			continue
		}
		k := rowKey{in.Row, in.Inner, e.Kind}
		if len(groups[k]) == 0 {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	return groups, order
}

// uniqueName returns name, or name_N when it was used N-1 times already.
func uniqueName(used map[string]int, name string) string {
	used[name]++
	if used[name] > 1 {
		return fmt.Sprintf("%s_%d", name, used[name])
	}
	return name
}

// rowEntry is the within entry of one element that repeats in the rows
// named rn: named after its text when every row's is the same, else after
// its cell's class (td.num > a → num_link).
func (d document) rowEntry(els []Element, k rowKey, members []int, rn string, used map[string]int, secrets []string) Entry {
	e0 := els[members[0]]
	same := true
	for _, m := range members[1:] {
		same = same && els[m].Text == e0.Text && els[m].Label == e0.Label && els[m].Name == e0.Name
	}
	slug := ""
	if same {
		slug = slugClean(e0, secrets)
	} else {
		slug = e0.Kind
		parts := strings.Split(k.inner, " > ")
		for j := len(parts) - 1; j >= 0; j-- {
			if i := strings.IndexByte(parts[j], '.'); i >= 0 {
				slug = shorten(strings.Trim(cleanRE.ReplaceAllString(strings.ToLower(parts[j][i+1:]), "_"), "_") + "_" + e0.Kind)
				break
			}
		}
	}
	name := uniqueName(used, d.prefix+".row_"+slug)
	locs := []selector.Locator{{Strategy: selector.CSS, Value: k.inner}}
	if same && strings.TrimSpace(e0.Text) != "" && !tainted(e0.Text, secrets) && (e0.Kind == "button" || e0.Kind == "link") {
		locs = append(locs, selector.Locator{Strategy: selector.Text, Value: selector.Normalize(e0.Text)})
	}
	desc := fmt.Sprintf("%s in each row (%d rows)", e0.Kind, len(members))
	if same {
		desc = Describe(e0, "") + " in each row"
	}
	return Entry{Name: name, Kind: e0.Kind, Within: rn, Description: desc, Locators: locs}
}

// collect reads d's elements, marking them from mark n on.
func (d document) collect(n int) ([]Element, error) {
	res, err := d.eval(collectJS, n)
	if err != nil {
		return nil, err
	}
	var els []Element
	if err := json.Unmarshal([]byte(res.Value.JSON("", "")), &els); err != nil {
		return nil, err
	}
	return els, nil
}

// verify resolves every candidate locator of els (in the document of the
// frame entry frame, "" for the page) with the resolver workflows use, as
// one throwaway map holding the frame entries found so far, and returns by
// element the locators that matched exactly that element.
func verify(ctx context.Context, tab *rod.Page, frames []Entry, frame string, els []Element) (map[int][]selector.Locator, error) {
	type cand struct {
		el  int
		loc selector.Locator
	}
	var cands []cand
	for i, e := range els {
		for _, l := range candidates(e) {
			cands = append(cands, cand{i, l})
		}
	}
	good := map[int][]selector.Locator{}
	if len(cands) == 0 {
		return good, nil
	}
	var b strings.Builder
	writeFrames(&b, frames)
	names := make([]string, len(cands))
	for i, c := range cands {
		names[i] = fmt.Sprintf("c.n%d", i)
		fmt.Fprintf(&b, "%s:\n", names[i])
		if frame != "" {
			fmt.Fprintf(&b, "  frame: %s\n", frame)
		}
		WriteLocator(&b, "  ", c.loc)
	}
	m, ps := selector.Parse("suggest", []byte(b.String()))
	if len(ps) > 0 {
		return nil, fmt.Errorf("suggest: %v", ps.Err())
	}
	for i, h := range selector.Check(ctx, tab, m, names) {
		if h.Status != selector.StatusPrimary || h.Count != 1 {
			continue
		}
		c := cands[i]
		if sameElement(ctx, tab, m, names[i], els[c.el].N) {
			good[c.el] = append(good[c.el], c.loc)
		}
	}
	return good, nil
}

// writeFrames writes frame entries (their primary locator) for a throwaway map.
func writeFrames(b *strings.Builder, frames []Entry) {
	for _, f := range frames {
		fmt.Fprintf(b, "%s:\n", f.Name)
		if f.Frame != "" {
			fmt.Fprintf(b, "  frame: %s\n", f.Frame)
		}
		WriteLocator(b, "  ", f.Locators[0])
	}
}

// enter finds the iframe of frame entry name on tab and returns how to run
// a function in its document.
func enter(ctx context.Context, tab *rod.Page, frames []Entry, name string) (func(string, ...any) (*proto.RuntimeRemoteObject, error), error) {
	var b strings.Builder
	writeFrames(&b, frames)
	m, ps := selector.Parse("suggest", []byte(b.String()))
	if len(ps) > 0 {
		return nil, ps.Err()
	}
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	match, err := m.Resolve(rctx, tab, name, selector.Options{Once: true})
	if err != nil {
		return nil, err
	}
	fpage, iframe, err := selector.FrameDocument(rctx, match.Element())
	if err != nil {
		return nil, err
	}
	if iframe != nil {
		return func(js string, args ...any) (*proto.RuntimeRemoteObject, error) {
			return iframe.Context(ctx).Eval(js, args...)
		}, nil
	}
	return func(js string, args ...any) (*proto.RuntimeRemoteObject, error) {
		return fpage.Context(ctx).Eval(js, args...)
	}, nil
}

// sameElement reports whether the target resolves to the element marked n.
func sameElement(ctx context.Context, tab *rod.Page, m *selector.Map, name string, n int) bool {
	rctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	match, err := m.Resolve(rctx, tab, name, selector.Options{Once: true})
	if err != nil {
		return false
	}
	v, err := match.Element().Context(rctx).Eval(`function () { return this.getAttribute('data-tw-suggest') }`)
	return err == nil && v.Value.Str() == fmt.Sprint(n)
}

var cleanRE = regexp.MustCompile(`[^a-z0-9]+`)

// candidates lists the locators worth trying for e, the stable ones first:
// describe.js chose them in the page (twCandidates).
func candidates(e Element) []selector.Locator { return e.Cands }

// Slug names an element from what a person reads on it.
func Slug(e Element) string { return slugClean(e, nil) }

// maxSlug bounds a name's last part; it is cut after a whole word.
const maxSlug = 32

// tokenRE finds per-session values: CSRF tokens, nonces, session ids in a
// URL, and long random runs of letters and digits.
var tokenRE = regexp.MustCompile(`(?i)(sectok|csrf|xsrf|token|nonce|sess(ion)?_?id|phpsessid|jsessionid|sid|_wpnonce|authenticity_token)=|\b[a-z0-9_-]*(?:[0-9][a-z]|[a-z][0-9])[a-z0-9_-]*\b`)

// tainted: s holds a secret's value or a per-session token.
func tainted(s string, secrets []string) bool {
	low := strings.ToLower(s)
	for _, sec := range secrets {
		if sec != "" && strings.Contains(low, strings.ToLower(sec)) {
			return true
		}
	}
	for _, m := range tokenRE.FindAllString(s, -1) {
		if strings.HasSuffix(m, "=") || len(m) >= 16 {
			return true
		}
	}
	return false
}

// clean drops the locators that hold a secret or a session token.
func clean(locs []selector.Locator, secrets []string) []selector.Locator {
	var out []selector.Locator
	for _, l := range locs {
		if !tainted(l.Value, secrets) && !tainted(l.Name, secrets) {
			out = append(out, l)
		}
	}
	return out
}

// shorten cuts a slug after its last whole word within maxSlug.
func shorten(s string) string {
	if len(s) <= maxSlug {
		return s
	}
	out := ""
	for _, w := range strings.Split(s, "_") {
		if w == "" {
			continue
		}
		if out != "" && len(out)+1+len(w) > maxSlug {
			break
		}
		if out == "" {
			out = w
		} else {
			out += "_" + w
		}
	}
	if len(out) > maxSlug {
		out = strings.TrimRight(out[:maxSlug], "_")
	}
	return out
}

func slugClean(e Element, secrets []string) string {
	for _, s := range []string{e.Label, e.Text, e.Name, e.TestID, e.ID, e.Placeholder, e.AccName, path.Base(e.Href)} {
		if tainted(s, secrets) {
			continue
		}
		s = shorten(strings.Trim(cleanRE.ReplaceAllString(strings.ToLower(s), "_"), "_"))
		if s != "" {
			if s[0] >= '0' && s[0] <= '9' {
				s = e.Kind + "_" + s
			}
			return s
		}
	}
	return fmt.Sprintf("%s_%d", e.Kind, e.N+1)
}

// Describe says what e is, for an entry's description.
func Describe(e Element, frame string) string {
	name := e.AccName
	if name == "" {
		name = e.Name
	}
	if name == "" {
		name = e.Src
	}
	d := fmt.Sprintf("%s %q", e.Kind, name)
	switch {
	case e.InShadow && frame != "":
		d += " (inside a web component in the frame " + frame + ")"
	case e.InShadow:
		d += " (inside a web component)"
	case frame != "":
		d += " (in the frame " + frame + ")"
	}
	return d
}

// prefixOf makes a prefix from the page address: page.login for /login.html.
func prefixOf(page string) string { return PrefixOf(page) }

// PrefixOf makes a prefix from the page address: page.login for /login.html.
func PrefixOf(page string) string {
	u, err := url.Parse(page)
	stem := ""
	if err == nil {
		stem = strings.TrimSuffix(path.Base(u.Path), path.Ext(u.Path))
	}
	stem = strings.Trim(cleanRE.ReplaceAllString(strings.ToLower(stem), "_"), "_")
	if stem == "" || stem == "index" {
		return "page"
	}
	if stem[0] >= '0' && stem[0] <= '9' {
		stem = "p" + stem
	}
	return "page." + stem
}

// Notes are what `selectors suggest` tells the operator about r, asked for
// as asked (on stderr): that the page moved on to another address, and
// that nothing was proposed.
func (r *Result) Notes(asked string) []string {
	var notes []string
	if r.URL != "" && r.URL != asked {
		notes = append(notes, fmt.Sprintf("note: %s redirected to %s; the entries below are for that page (a page for signed-in visitors? sign in first with --setup TOOL)", asked, r.URL))
	}
	if len(r.Entries) == 0 {
		notes = append(notes, fmt.Sprintf("no fields, buttons or links with a locator that matches only them on %s", r.URL))
	}
	return notes
}

// Write writes r's entries for the page asked as selector-map YAML (format
// "text", see WriteYAML) or as indented JSON (format "json").
func (r *Result) Write(w io.Writer, asked, format string) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(r.Entries)
	}
	return WriteYAML(w, asked, r.Entries)
}

// WriteYAML writes entries as selector-map YAML, to paste into
// selectors/selectors.yaml after review.
func WriteYAML(w io.Writer, page string, entries []Entry) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Proposed by `toolwright selectors suggest` for %s.\n# Every locator matched exactly one element there; review the names before use.\n", page)
	WriteEntries(&b, entries)
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteEntries writes entries as selector-map YAML.
func WriteEntries(b *strings.Builder, entries []Entry) {
	for _, e := range entries {
		fmt.Fprintf(b, "%s:\n", e.Name)
		fmt.Fprintf(b, "  description: %s\n", Quote(e.Description))
		if e.Frame != "" {
			fmt.Fprintf(b, "  frame: %s\n", e.Frame)
		}
		if e.Within != "" {
			fmt.Fprintf(b, "  within: %s\n", e.Within)
		}
		WriteLocator(b, "  ", e.Locators[0])
		if e.Many {
			b.WriteString("  many: true\n")
		}
		if len(e.Locators) > 1 {
			b.WriteString("  fallbacks:\n")
			for _, l := range e.Locators[1:] {
				var lb strings.Builder
				WriteLocator(&lb, "      ", l)
				b.WriteString("    - " + strings.TrimPrefix(lb.String(), "      "))
			}
		}
	}
}

// WriteLocator writes l as the keys of a selector-map entry (or fallback).
func WriteLocator(b *strings.Builder, indent string, l selector.Locator) {
	fmt.Fprintf(b, "%s%s: %s\n", indent, l.Strategy, Quote(l.Value))
	if l.Strategy == selector.Role && l.Name != "" {
		fmt.Fprintf(b, "%sname: %s\n", indent, Quote(l.Name))
	}
}

// Quote writes s as a YAML scalar that reads back as s.
func Quote(s string) string {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	_ = enc.Encode(s)
	_ = enc.Close()
	out := strings.TrimSuffix(buf.String(), "\n")
	if strings.Contains(out, "\n") {
		return fmt.Sprintf("%q", s)
	}
	return out
}

// Arrange keeps the first verified locator as the primary (they are tried
// stable ones first) and, as fallbacks, the locators of other strategies:
// a second css selector fails with the first when the markup changes.
func Arrange(locs []selector.Locator) []selector.Locator {
	out := []selector.Locator{locs[0]}
	for _, l := range locs[1:] {
		if l.Strategy != selector.CSS {
			out = append(out, l)
		}
	}
	return out
}
