// Package selsuggest is `toolwright selectors suggest`: it reads a page's
// fields, buttons and links (open shadow roots included) and proposes
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
	"net/url"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/go-rod/rod"
	"github.com/toolwright/toolwright/engine/selector"
	"gopkg.in/yaml.v3"
)

//go:embed collect.js
var collectJS string

// Entry is one proposed selector-map entry.
type Entry struct {
	Name        string             `json:"name"`
	Kind        string             `json:"kind"` // field, button or link
	Description string             `json:"description"`
	Locators    []selector.Locator `json:"locators"` // primary first
}

type element struct {
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
}

// LoadTimeout bounds loading the page.
const LoadTimeout = 30 * time.Second

// Suggest opens page in tab (unless it is "", then the tab's current page
// is read) and proposes entries named prefix.NAME.
func Suggest(ctx context.Context, tab *rod.Page, page, prefix string) ([]Entry, error) {
	if page != "" {
		lctx, cancel := context.WithTimeout(ctx, LoadTimeout)
		err := tab.Context(lctx).Navigate(page)
		if err == nil {
			err = tab.Context(lctx).WaitLoad()
		}
		cancel()
		if err != nil {
			return nil, fmt.Errorf("the page did not load: %w", err)
		}
	}
	if prefix == "" {
		prefix = prefixOf(page)
	}
	res, err := tab.Context(ctx).Eval(collectJS)
	if err != nil {
		return nil, fmt.Errorf("read the page: %w", err)
	}
	var els []element
	if err := json.Unmarshal([]byte(res.Value.JSON("", "")), &els); err != nil {
		return nil, err
	}
	defer func() {
		_, _ = tab.Context(ctx).Eval(`() => document.querySelectorAll('[data-tw-suggest]').forEach((e) => e.removeAttribute('data-tw-suggest'))`)
	}()
	// Every candidate locator of every element, as one throwaway map, so
	// the real resolver checks them all.
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
	var b strings.Builder
	for i, c := range cands {
		fmt.Fprintf(&b, "c.n%d:\n", i)
		writeLocator(&b, "  ", c.loc)
	}
	m, ps := selector.Parse("suggest", []byte(b.String()))
	good := map[int][]selector.Locator{}
	if b.Len() > 0 && len(ps) == 0 {
		hs := selector.Check(ctx, tab, m, nil)
		byName := map[string]selector.Health{}
		for _, h := range hs {
			byName[h.Name] = h
		}
		for i, c := range cands {
			name := fmt.Sprintf("c.n%d", i)
			if h := byName[name]; h.Status != selector.StatusPrimary || h.Count != 1 {
				continue
			}
			if !sameElement(ctx, tab, m, name, els[c.el].N) {
				continue
			}
			good[c.el] = append(good[c.el], c.loc)
		}
	} else if len(ps) > 0 {
		return nil, fmt.Errorf("suggest: %v", ps.Err())
	}
	var out []Entry
	used := map[string]int{}
	for i, e := range els {
		locs := good[i]
		if len(locs) == 0 {
			continue
		}
		name := prefix + "." + slug(e)
		used[name]++
		if used[name] > 1 {
			name = fmt.Sprintf("%s_%d", name, used[name])
		}
		out = append(out, Entry{Name: name, Kind: e.Kind, Description: describe(e), Locators: arrange(locs)})
	}
	return out, nil
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

var (
	unstable = regexp.MustCompile(`\d{3,}|[0-9a-f]{8,}|^(ember|react|ng|mui|css|jsx|radix|headlessui)[-_:]|:r[0-9a-z]+:`)
	cleanRE  = regexp.MustCompile(`[^a-z0-9]+`)
)

// candidates lists the locators worth trying for e, the stable ones first.
// Text that looks like /regex/ would be read as one, so it is not offered.
func candidates(e element) []selector.Locator {
	var out []selector.Locator
	plain := func(s string) bool { return s != "" && !(len(s) > 1 && s[0] == '/' && s[len(s)-1] == '/') }
	e.Label, e.Text, e.AccName = keep(e.Label, plain), keep(e.Text, plain), keep(e.AccName, plain)
	css := func(v string) { out = append(out, selector.Locator{Strategy: selector.CSS, Value: v}) }
	if e.ID != "" && !unstable.MatchString(e.ID) {
		css(e.IDCSS)
	}
	if e.TestID != "" {
		css(fmt.Sprintf(`[%s=%q]`, e.TestAttr, e.TestID))
	}
	if e.Kind == "link" && e.Href != "" && !strings.HasPrefix(e.Href, "javascript:") && !strings.HasPrefix(e.Href, "#") && len(e.Href) <= 100 {
		css(fmt.Sprintf(`a[href=%q]`, e.Href))
	}
	if e.Name != "" && e.Kind != "link" {
		css(fmt.Sprintf(`%s[name=%q]`, e.Tag, e.Name))
	}
	if e.Kind == "field" && e.Label != "" {
		out = append(out, selector.Locator{Strategy: selector.Label, Value: e.Label})
	}
	if e.Role != "" && e.AccName != "" && len(e.AccName) <= 80 {
		out = append(out, selector.Locator{Strategy: selector.Role, Value: e.Role, Name: e.AccName})
	}
	if e.Kind != "field" && e.Text != "" && len(e.Text) <= 80 {
		out = append(out, selector.Locator{Strategy: selector.Text, Value: e.Text})
	}
	return out
}

// slug names an element from what a person reads on it.
func slug(e element) string {
	for _, s := range []string{e.Label, e.Text, e.Name, e.TestID, e.ID, e.Placeholder, e.AccName, path.Base(e.Href)} {
		s = strings.Trim(cleanRE.ReplaceAllString(strings.ToLower(s), "_"), "_")
		if len(s) > 40 {
			s = strings.TrimRight(s[:40], "_")
		}
		if s != "" {
			if s[0] >= '0' && s[0] <= '9' {
				s = e.Kind + "_" + s
			}
			return s
		}
	}
	return fmt.Sprintf("%s_%d", e.Kind, e.N+1)
}

func describe(e element) string {
	what := map[string]string{"field": "field", "button": "button", "link": "link"}[e.Kind]
	name := e.AccName
	if name == "" {
		name = e.Name
	}
	d := fmt.Sprintf("%s %q", what, name)
	if e.InShadow {
		d += " (inside a web component)"
	}
	return d
}

// prefixOf makes a prefix from the page address: page.login for /login.html.
func prefixOf(page string) string {
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

// WriteYAML writes entries as selector-map YAML, to paste into
// selectors/selectors.yaml after review.
func WriteYAML(w io.Writer, page string, entries []Entry) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Proposed by `toolwright selectors suggest` for %s.\n# Every locator matched exactly one element there; review the names before use.\n", page)
	for _, e := range entries {
		fmt.Fprintf(&b, "%s:\n", e.Name)
		fmt.Fprintf(&b, "  description: %s\n", quote(e.Description))
		writeLocator(&b, "  ", e.Locators[0])
		if len(e.Locators) > 1 {
			b.WriteString("  fallbacks:\n")
			for _, l := range e.Locators[1:] {
				var lb strings.Builder
				writeLocator(&lb, "      ", l)
				b.WriteString("    - " + strings.TrimPrefix(lb.String(), "      "))
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeLocator(b *strings.Builder, indent string, l selector.Locator) {
	fmt.Fprintf(b, "%s%s: %s\n", indent, l.Strategy, quote(l.Value))
	if l.Strategy == selector.Role && l.Name != "" {
		fmt.Fprintf(b, "%sname: %s\n", indent, quote(l.Name))
	}
}

// quote writes s as a YAML scalar that reads back as s.
func quote(s string) string {
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

func keep(s string, ok func(string) bool) string {
	if ok(s) {
		return s
	}
	return ""
}

// arrange keeps the first verified locator as the primary (they are tried
// stable ones first) and, as fallbacks, the locators of other strategies:
// a second css selector fails with the first when the markup changes.
func arrange(locs []selector.Locator) []selector.Locator {
	out := []selector.Locator{locs[0]}
	for _, l := range locs[1:] {
		if l.Strategy != selector.CSS {
			out = append(out, l)
		}
	}
	return out
}
