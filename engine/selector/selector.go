// Package selector decodes the selector map (semantic target name → locators)
// and resolves targets to elements on a live page.
package selector

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/toolwright/toolwright/engine/decl"
	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/yamlx"
	"gopkg.in/yaml.v3"
)

// Strategies, in the order DESIGN.md lists them.
const (
	CSS   = "css"
	XPath = "xpath"
	Text  = "text"
	Label = "label"
	Role  = "role"
)

// Strategies is every locator strategy, in order: the names of
// StrategyFields, the one list.
var Strategies = decl.Names(StrategyFields)

// Locator is one way to find a target.
type Locator struct {
	Strategy string `json:"strategy"`
	Value    string `json:"value"`          // the css, xpath, text, label or role
	Name     string `json:"name,omitempty"` // accessible name, with Role
	// ValueRE and NameRE are set when the text was written as /regex/:
	// it then matches part of the text instead of all of it.
	ValueRE *regexp.Regexp `json:"-"`
	NameRE  *regexp.Regexp `json:"-"`
}

// Describe is a short human form, such as `css "#login button"`.
func (l Locator) Describe() string {
	if l.Strategy == Role && l.Name != "" {
		return fmt.Sprintf("role %q name %q", l.Value, l.Name)
	}
	return fmt.Sprintf("%s %q", l.Strategy, l.Value)
}

// Target is one named entry of the selector map.
type Target struct {
	Name        string    `json:"name"`
	Description string    `json:"description,omitempty"`
	Locators    []Locator `json:"locators"` // primary first, then fallbacks
	Many        bool      `json:"many,omitempty"`
	Within      string    `json:"within,omitempty"`
	Frame       string    `json:"frame,omitempty"`  // an iframe target: t is searched in its document
	Effect      string    `json:"effect,omitempty"` // "" or "write"
	// Pages are the URL globs of the pages the target, and every target
	// whose name continues its name, live on (see Map.PagesOf).
	Pages []string `json:"pages,omitempty"`
	Pos   lint.Pos `json:"-"`
	// Broken: the entry has a problem (reported at load); its name still
	// exists so the rest of the check does not report it unknown.
	Broken bool `json:"-"`
}

// Writes reports whether acting on the target changes something on the site.
func (t *Target) Writes() bool { return t.Effect == "write" }

// Map is the whole selector map.
type Map struct {
	File    string
	Targets map[string]*Target
	names   []string
	// Partial: the file has YAML syntax errors, so some of its targets may
	// be missing; workflows are not told a target is unknown (the syntax
	// error is the one problem to fix).
	Partial bool
	// pages: name → the URL globs its entry gives in pages:, for targets
	// and for entries that only say where a prefix lives (no locator).
	pages map[string][]string
}

// PagesOf returns the URL globs of the pages target name lives on, and the
// entry that says so: the nearest of the name itself and the names it
// continues (acme.login.email, acme.login, acme) whose entry has pages:;
// else its within or frame parent's. None: it may be on any page.
func (m *Map) PagesOf(name string) (globs []string, from string) {
	if m == nil {
		return nil, ""
	}
	for depth := 0; name != "" && depth < 32; depth++ {
		for n := name; n != ""; {
			if g, ok := m.pages[n]; ok {
				return g, n
			}
			i := strings.LastIndexByte(n, '.')
			if i < 0 {
				break
			}
			n = n[:i]
		}
		t, ok := m.Targets[name]
		if !ok {
			break
		}
		name = t.Within
		if name == "" {
			name = t.Frame
		}
	}
	return nil, ""
}

// OnPage reports whether target name may be on the page at url: it has no
// pages (PagesOf), or one of its globs matches url (MatchURL).
func (m *Map) OnPage(name, url string) bool {
	globs, _ := m.PagesOf(name)
	if len(globs) == 0 {
		return true
	}
	for _, g := range globs {
		if MatchURL(g, url) {
			return true
		}
	}
	return false
}

// Lookup finds a target by name.
func (m *Map) Lookup(name string) (*Target, bool) {
	if m == nil {
		return nil, false
	}
	t, ok := m.Targets[name]
	return t, ok
}

// Unknown reports whether name is surely not a target: not in the map,
// and the map was read whole (see Partial).
func (m *Map) Unknown(name string) bool {
	_, ok := m.Lookup(name)
	return !ok && (m == nil || !m.Partial)
}

// Names returns every target name, sorted.
func (m *Map) Names() []string {
	if m == nil {
		return nil
	}
	return m.names
}

// WithPrefix returns the sorted names that start with prefix.
func (m *Map) WithPrefix(prefix string) []string {
	var out []string
	for _, n := range m.Names() {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$`)

// Load reads and decodes a selector map file.
func Load(path string) (*Map, lint.Problems) {
	data, err := yamlx.ReadFile(path)
	if err != nil {
		var ps lint.Problems
		ps.Addf(lint.Pos{File: path}, lint.Missing, "cannot read the selector map: %v", err)
		return &Map{File: path, Targets: map[string]*Target{}}, ps
	}
	return Parse(path, data)
}

// Parse decodes a selector map, collecting every problem.
func Parse(file string, data []byte) (m *Map, ps lint.Problems) {
	m = &Map{File: file, Targets: map[string]*Target{}}
	root, rec := yamlx.DocRecover(file, data, &ps)
	m.Partial = rec != nil || (root == nil && len(ps) > 0)
	if root == nil || yamlx.IsNull(root) {
		return m, ps
	}
	from := len(ps)
	defer func() { ps = rec.Filter(ps, file, from) }()
	kvs, ok := yamlx.Map(file, root, "the selector map", &ps)
	if !ok {
		return m, ps
	}
	for _, kv := range kvs {
		if !nameRE.MatchString(kv.Key) {
			ps.Addf(lint.At(file, kv.KeyN), lint.BadName, "target name %q must be dotted lowercase words, like acme.login.submit", kv.Key)
			continue
		}
		// A broken entry still defines its name, so workflows that use it
		// are not told the target is unknown (one mistake, one problem).
		t, group := decodeTarget(file, kv, &ps)
		if t != nil && len(t.Pages) > 0 {
			if m.pages == nil {
				m.pages = map[string][]string{}
			}
			m.pages[t.Name] = t.Pages
		}
		if group {
			continue // only where a prefix lives: not a target
		}
		if t == nil {
			t = &Target{Name: kv.Key, Pos: lint.At(file, kv.KeyN), Broken: true}
		}
		m.Targets[t.Name] = t
		m.names = append(m.names, t.Name)
	}
	sort.Strings(m.names)
	m.check(&ps)
	return m, ps
}

// StrategyFields declares the locator strategies, once: the keys of a
// locator (Strategies, decoding, messages, docs and schema read them).
var StrategyFields = []decl.Field{
	{Name: CSS, Type: decl.String, Doc: "a CSS selector, as Chromium's document.querySelectorAll takes it (searches open shadow roots too)"},
	{Name: XPath, Type: decl.String, Doc: "an XPath expression (not inside shadow roots)"},
	{Name: Text, Type: decl.String, Doc: "the element's whole visible text, trimmed, white space collapsed; /regex/ matches part of it"},
	{Name: Label, Type: decl.String, Doc: "the text of the field's label; /regex/ matches part of it"},
	{Name: Role, Type: decl.String, Doc: "an ARIA role (button, link, textbox, ...), found in the accessibility tree"},
}

// locName is the key of a role locator's accessible name.
const locName = "name"

// LocatorFields are the keys of one locator: one strategy (role may carry a name).
var LocatorFields = append(append([]decl.Field{}, StrategyFields...),
	decl.Field{Name: locName, Type: decl.String, Doc: "with role: the accessible name; /regex/ matches part of it"})

// LocatorDecl declares one fallback locator.
var LocatorDecl = &decl.Object{
	Name: "fallback", Title: "locator",
	Doc:    "One more way to find the target, tried when the ones before it find nothing. Give one strategy.",
	Fields: LocatorFields,
}

// EntryDecl declares one selector-map entry.
var EntryDecl = &decl.Object{
	Name: "target", Title: "target",
	Doc: "A semantic target: the primary locator (one strategy), then fallbacks tried in order.",
	Fields: append(append([]decl.Field{
		{Name: descKey, Type: decl.String, Doc: "what the element is, for people maintaining the map"},
	}, LocatorFields...),
		decl.Field{Name: "fallbacks", Type: decl.List, Elem: &decl.Field{Type: decl.Nested, Obj: LocatorDecl}, Raw: true,
			Doc: "other locators, tried in order when the primary finds nothing"},
		decl.Field{Name: "many", Type: decl.Bool, Default: false, Doc: "the target is every match (a list), not one element"},
		decl.Field{Name: "within", Type: decl.String, Doc: "resolve inside each match of this other target (for extract fields)"},
		decl.Field{Name: "frame", Type: decl.String, Doc: "an iframe target: this target is resolved in that frame's document (same-origin or another site); composes with within"},
		decl.Field{Name: "effect", Type: decl.Enum, Enum: []string{"read", "write"}, Default: "read", Doc: "write: acting on it changes something on the site (a read workflow may not)"},
		decl.Field{Name: pagesKey, Type: decl.List, Elem: &decl.Field{Type: decl.String},
			Doc: "the pages this target and every target whose name continues its name live on: URL globs (* is any run; without a scheme, the path and query: \"/login.html*\"); selectors check checks them only there. An entry with pages: and no locator only says where a prefix lives (acme.login: {pages: [...]})"},
	),
}

// MapDecl declares the selector map file: dotted target names.
var MapDecl = &decl.Field{Type: decl.Map, Elem: &decl.Field{Type: decl.Nested, Obj: EntryDecl},
	Doc: "The selector map: semantic target names (dotted lowercase words) and how to find each on the page."}

// pagesKey is the entry key that says which pages a target or prefix
// lives on; descKey the one that describes it.
const (
	pagesKey = "pages"
	descKey  = "description"
)

// decodeTarget decodes one entry. group reports an entry that only says
// where a prefix lives (pages: and no locator or other target key).
func decodeTarget(file string, kv yamlx.KV, ps *lint.Problems) (t *Target, group bool) {
	where := kv.Key
	t = &Target{Name: kv.Key, Pos: lint.At(file, kv.KeyN)}
	v := EntryDecl.Decode(file, kv.Value, where, ps)
	if v == nil {
		return nil, false
	}
	if v.Has(pagesKey) && decodePages(t, v, where, ps) {
		return t, true
	}
	t.Description = v.Str(descKey, "")
	t.Many = v.Bool("many", false)
	t.Within = v.Str("within", "")
	t.Frame = v.Str("frame", "")
	if v.Str("effect", "") == "write" {
		t.Effect = "write"
	}
	fallbacks, broken := decodeFallbacks(v, where, ps)
	var strategyKVs []yamlx.KV
	for _, e := range v.Entries {
		if isLocatorKey(e.Key) {
			strategyKVs = append(strategyKVs, e)
		}
	}
	var primary Locator
	ok := false
	if len(strategyKVs) == 0 && meantLocator(v) {
		// a misspelt strategy was reported with its suggestion already
	} else {
		primary, ok = decodeLocator(file, kv.KeyN, strategyKVs, where, ps)
	}
	if !ok || broken {
		t.Broken = true
	}
	if ok {
		t.Locators = append([]Locator{primary}, fallbacks...) // fallbacks are numbered after the primary
	}
	return t, false
}

// decodePages reads an entry's pages: and reports whether the entry says
// nothing else (beside a description): a group's.
func decodePages(t *Target, v *decl.Values, where string, ps *lint.Problems) (only bool) {
	t.Pages = v.Strings(pagesKey)
	if len(t.Pages) == 0 && v.OK(pagesKey) {
		ps.Addf(v.Pos(pagesKey), lint.BadValue, "%s.pages must list at least one page (a URL glob such as \"/login.html*\"); leave it out for a target that may be on any page", where)
	}
	for _, g := range t.Pages {
		if strings.TrimSpace(g) == "" {
			ps.Addf(v.Pos(pagesKey), lint.BadValue, "%s.pages: a page must not be empty", where)
		}
	}
	for _, e := range v.Entries {
		if e.Key != pagesKey && e.Key != descKey {
			return false
		}
	}
	return true
}

// decodeFallbacks reads an entry's fallbacks: locators tried after the
// primary, in order; broken reports one that did not decode.
func decodeFallbacks(v *decl.Values, where string, ps *lint.Problems) (locs []Locator, broken bool) {
	fb, ok := v.KV("fallbacks")
	if !ok {
		return nil, false
	}
	file := v.File
	n := yamlx.Resolve(fb.Value)
	if n == nil || n.Kind != yaml.SequenceNode {
		ps.Addf(lint.At(file, fb.Value), lint.BadValue, "%s.fallbacks must be a list of locators, found %s", where, yamlx.Describe(fb.Value))
		return nil, true
	}
	for i, c := range n.Content {
		fw := fmt.Sprintf("%s.fallbacks[%d]", where, i+1)
		fv := LocatorDecl.Decode(file, c, fw, ps)
		if fv == nil {
			broken = true
			continue
		}
		if len(fv.Entries) == 0 && meantLocator(fv) {
			broken = true
		} else if l, ok := decodeLocator(file, c, fv.Entries, fw, ps); ok {
			locs = append(locs, l)
		} else {
			broken = true
		}
	}
	return locs, broken
}

// meantLocator: an unknown key was reported as a misspelt strategy.
func meantLocator(v *decl.Values) bool {
	for _, f := range LocatorFields {
		if v.Meant(f.Name) {
			return true
		}
	}
	return false
}

func isLocatorKey(k string) bool { return slices.Contains(decl.Names(LocatorFields), k) }

// decodeLocator reads exactly one strategy (role may carry a name).
func decodeLocator(file string, at *yaml.Node, kvs []yamlx.KV, where string, ps *lint.Problems) (Locator, bool) {
	var l Locator
	var name *yamlx.KV
	var valueN *yaml.Node
	found := 0
	for i := range kvs {
		kv := kvs[i]
		switch {
		case slices.Contains(Strategies, kv.Key):
			found++
			if found > 1 {
				ps.Addf(lint.At(file, kv.KeyN), lint.BadValue, "%s: give one strategy per locator, found %q after %q (put the others under fallbacks)", where, kv.Key, l.Strategy)
				continue
			}
			l.Strategy = kv.Key
			v, ok := yamlx.String(file, kv.Value, where+" "+kv.Key, ps)
			if !ok {
				return l, false
			}
			if strings.TrimSpace(v) == "" {
				ps.Addf(lint.At(file, kv.Value), lint.BadValue, "%s: %s must not be empty", where, kv.Key)
				return l, false
			}
			l.Value, valueN = v, kv.Value
		case kv.Key == locName:
			name = &kvs[i]
		}
	}
	if found == 0 {
		ps.Addf(lint.At(file, at), lint.Missing, "%s has no locator: give one of %s", where, decl.OrList(Strategies))
		return l, false
	}
	if name != nil {
		if l.Strategy != Role {
			ps.Addf(lint.At(file, name.KeyN), lint.UnknownKey, "%s: name goes with role, not with %s", where, l.Strategy)
		} else if v, ok := yamlx.String(file, name.Value, where+" name", ps); ok {
			l.Name = v
		}
	}
	var ok bool
	if l.Strategy == Text || l.Strategy == Label {
		if l.ValueRE, ok = regexpOf(l.Value, file, valueN, where, ps); !ok {
			return l, false
		}
	}
	if l.Name != "" {
		if l.NameRE, ok = regexpOf(l.Name, file, name.Value, where, ps); !ok {
			return l, false
		}
	}
	if l.Strategy == CSS && strings.ContainsAny(l.Value, "{}") {
		ps.Addf(lint.At(file, valueN), lint.BadValue, "%s: css %q contains braces: a selector map holds no templates (use a target parameter in the workflow for a choice)", where, l.Value)
		return l, false
	}
	if l.Strategy == CSS {
		if msg, off, ok := CheckCSS(l.Value); !ok {
			pos := lint.At(file, valueN)
			if valueN != nil && !strings.Contains(l.Value[:off], "\n") {
				if valueN.Style == yaml.DoubleQuotedStyle || valueN.Style == yaml.SingleQuotedStyle {
					pos.Col++
				}
				pos.Col += len([]rune(l.Value[:off]))
			}
			ps.Addf(pos, lint.BadValue, "%s: css %q does not parse: %s", where, l.Value, msg)
			return l, false
		}
	}
	return l, true
}

// regexpOf compiles /regex/ text forms; plain text gives nil.
func regexpOf(s, file string, at *yaml.Node, where string, ps *lint.Problems) (*regexp.Regexp, bool) {
	if len(s) < 2 || s[0] != '/' || s[len(s)-1] != '/' {
		return nil, true
	}
	re, err := regexp.Compile(s[1 : len(s)-1])
	if err != nil {
		ps.Addf(lint.At(file, at), lint.BadValue, "%s: bad regular expression %s: %v", where, s, err)
		return nil, false
	}
	return re, true
}

// check validates references between targets: `within` and `frame` name
// known targets and never loop (through either).
func (m *Map) check(ps *lint.Problems) {
	for _, name := range m.names {
		t := m.Targets[name]
		for _, ref := range []struct{ key, to string }{{"within", t.Within}, {"frame", t.Frame}} {
			if ref.to == "" {
				continue
			}
			if m.Unknown(ref.to) {
				ps.Addf(t.Pos, lint.UnknownRef, "target %q: %s names unknown target %q%s", name, ref.key, ref.to, lint.Suggest(ref.to, m.names))
			}
		}
		if t.Frame != "" && t.Frame == t.Within {
			ps.Addf(t.Pos, lint.BadValue, "target %q: frame and within both name %q; a target inside an iframe names it in frame only", name, t.Frame)
		}
		if chain, how := m.loop(name); chain != nil {
			ps.Addf(t.Pos, lint.Cycle, "target %q: %s a loop: %s", name, how, strings.Join(chain, " → "))
		}
	}
}

// loop returns the chain of within/frame references from name back to
// name, or nil when there is none, and how it is made ("within forms").
func (m *Map) loop(name string) ([]string, string) {
	var path []string
	keys := map[string]bool{}
	onPath := map[string]bool{}
	var visit func(n string) []string
	visit = func(n string) []string {
		if onPath[n] {
			if n == name {
				return append(append([]string{}, path...), n)
			}
			return nil // a loop elsewhere: reported at its own targets
		}
		t, ok := m.Targets[n]
		if !ok {
			return nil
		}
		onPath[n] = true
		path = append(path, n)
		defer func() { onPath[n] = false; path = path[:len(path)-1] }()
		for _, ref := range []struct{ key, to string }{{"within", t.Within}, {"frame", t.Frame}} {
			if ref.to == "" {
				continue
			}
			if c := visit(ref.to); c != nil {
				keys[ref.key] = true
				return c
			}
		}
		return nil
	}
	chain := visit(name)
	switch {
	case chain == nil:
		return nil, ""
	case keys["within"] && keys["frame"]:
		return chain, "within and frame form"
	case keys["frame"]:
		return chain, "frame forms"
	}
	return chain, "within forms"
}

// Normalize trims text and collapses white space, as text matching does.
func Normalize(s string) string { return strings.Join(strings.Fields(s), " ") }

// MatchText reports whether visible text matches a locator's text: the whole
// normalized text, or part of it for /regex/.
func MatchText(want string, re *regexp.Regexp, got string) bool {
	got = Normalize(got)
	if re != nil {
		return re.MatchString(got)
	}
	return got == Normalize(want)
}

// FileSchema is the JSON Schema of a selector map file, from EntryDecl.
func FileSchema() *decl.Obj {
	return decl.FileSchema("selectors", decl.NewObj(
		"title", "toolwright selector map",
		"description", MapDecl.Doc,
		"type", "object",
		"propertyNames", decl.NewObj("pattern", nameRE.String()),
		"additionalProperties", EntryDecl.Schema(),
	))
}
