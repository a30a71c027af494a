package selector

import (
	"context"
	"fmt"
	"sort"

	"github.com/go-rod/rod"
	"github.com/toolwright/toolwright/engine/errs"
	"github.com/ysmood/gson"
)

// ExtractSpec is one extract: a target, its fields (targets declared
// within it) and what to read of each element.
type ExtractSpec struct {
	From   string       // target name
	Fields []FieldSpec  // read these inside each match (none: the match itself)
	Attr   string       // text, value, href or an attribute name
	List   bool         // every match (else the first); with no match an empty list, not an error
	Limit  int          // at most this many items (0: no limit)
	Opt    Options      // Visible is ignored; Once applies to a single value
	Parent *rod.Element // resolve From inside this element (nil: through its within/frame)
}

// FieldSpec names one field of an extract.
type FieldSpec struct {
	Name   string
	Target string
}

// Extracted is what an extract read.
type Extracted struct {
	Items []any // values, or map[string]any with fields
	Count int   // the matches before the limit
	// Match describes the locator of From that matched ("css", "fallback 1
	// (text)"); Fields the fields' locators where they differ from their
	// primary, as "name: fallback 1 (text)".
	Match  string
	Fields []string
}

// Truncated reports whether the limit cut the list.
func (e *Extracted) Truncated() bool { return e.Count > len(e.Items) }

// Extract resolves From and reads every match's fields in one
// Runtime.callFunctionOn: the locators (primary, then fallbacks) run in the
// page, the password rule too (a password input reads as ""). A list with
// no match is empty at once; a single value waits for its target like
// Resolve and fails with target_not_found. Targets that need the
// accessibility tree (role locators) are read by resolving each element
// from Go instead.
func (m *Map) Extract(ctx context.Context, page *rod.Page, spec ExtractSpec) (*Extracted, error) {
	from, ok := m.Lookup(spec.From)
	if !ok {
		return nil, errs.New(errs.Internal, "unknown target %q", spec.From)
	}
	fields := make([]*Target, len(spec.Fields))
	for i, f := range spec.Fields {
		if fields[i], ok = m.Lookup(f.Target); !ok {
			return nil, errs.New(errs.Internal, "unknown target %q", f.Target)
		}
	}
	if spec.Attr == "" {
		spec.Attr = "text"
	}
	if needsAX(from) || anyNeedsAX(fields) {
		return m.extractSlow(ctx, page, spec, from, fields)
	}
	sc, err := m.extractScope(ctx, page, spec, from)
	if err != nil {
		if spec.List && errs.CodeOf(err) == errs.TargetNotFound && from.Frame == "" {
			return &Extracted{Items: []any{}}, nil // the within parent is missing: nothing matches
		}
		return nil, err
	}
	req := map[string]any{
		"from":  jsLocs(from),
		"many":  from.Many || spec.List,
		"list":  spec.List,
		"limit": spec.Limit,
		"attr":  spec.Attr,
		"frame": sc.frame,
	}
	var fl []map[string]any
	for i, f := range spec.Fields {
		fl = append(fl, map[string]any{"name": f.Name, "locs": jsLocs(fields[i])})
	}
	req["fields"] = fl
	for {
		res, err := evalOp(sc.page.Context(ctx), sc.this, "extract", req, true, false)
		if err != nil {
			return nil, err
		}
		out := readExtract(res.Value)
		if !out.Found && !spec.List {
			// A single value waits for its target, as Resolve does, and
			// fails the way Resolve does.
			if _, err := resolveScoped(ctx, sc, from, spec.Opt, sc.within && from.Within != ""); err != nil {
				return nil, err
			}
			if spec.Opt.Once {
				return nil, errs.New(errs.TargetNotFound, "target %s not found", from.Name)
			}
			continue
		}
		ex := &Extracted{Items: out.Items, Count: out.Count}
		if ex.Items == nil {
			ex.Items = []any{}
		}
		if out.Found {
			ex.Match = (&Match{Strategy: from.Locators[out.From].Strategy, Locator: out.From}).Describe()
		}
		for i, f := range spec.Fields {
			for _, k := range sortedKeys(out.Fields[f.Name]) {
				var li int
				fmt.Sscan(k, &li)
				if li > 0 && li < len(fields[i].Locators) {
					ex.Fields = append(ex.Fields, fmt.Sprintf("%s: %s", f.Name, (&Match{Strategy: fields[i].Locators[li].Strategy, Locator: li}).Describe()))
				}
			}
		}
		return ex, nil
	}
}

// extracted is page.js's extract answer.
type extracted struct {
	Found  bool
	From   int
	Count  int
	Items  []any
	Fields map[string]map[string]int
}

// readExtract walks the answer as rod decoded it (no second JSON pass).
func readExtract(v gson.JSON) extracted {
	out := extracted{Fields: map[string]map[string]int{}}
	if v.Nil() {
		return out // the scope went away: nothing found
	}
	out.Found, out.From, out.Count = v.Get("found").Bool(), v.Get("from").Int(), v.Get("count").Int()
	items := v.Get("items").Arr()
	out.Items = make([]any, len(items))
	for i, it := range items {
		out.Items[i] = plain(it)
	}
	for name, used := range v.Get("fields").Map() {
		m := map[string]int{}
		for k, n := range used.Map() {
			m[k] = n.Int()
		}
		out.Fields[name] = m
	}
	return out
}

// plain is a read value: a string, null, or a map of them.
func plain(v gson.JSON) any {
	switch val := v.Val().(type) {
	case map[string]any:
		m := make(map[string]any, len(val))
		for k := range val {
			f := v.Get(k)
			if f.Nil() {
				m[k] = nil
			} else {
				m[k] = f.Str()
			}
		}
		return m
	case nil:
		return nil
	}
	return v.Str()
}

func (m *Map) extractScope(ctx context.Context, page *rod.Page, spec ExtractSpec, from *Target) (scope, error) {
	if spec.Parent != nil {
		return scope{page: spec.Parent.Page(), elCtx: spec.Parent.GetContext(), this: spec.Parent.Object, within: true}, nil
	}
	opt := spec.Opt
	if spec.List {
		opt.Once = true // a list reads what is there now
	}
	return m.scopeOf(ctx, page, from, "", opt)
}

// extractSlow reads element by element, resolving each field from Go: for
// role locators, which only the accessibility tree answers.
func (m *Map) extractSlow(ctx context.Context, page *rod.Page, spec ExtractSpec, from *Target, fields []*Target) (*Extracted, error) {
	opt := spec.Opt
	opt.Visible = false
	if spec.List {
		opt.Once = true
	}
	sc, err := m.extractScope(ctx, page, spec, from)
	var match *Match
	if err == nil {
		tt := *from
		tt.Many = from.Many || spec.List
		match, err = resolveScoped(ctx, sc, &tt, opt, sc.within && from.Within != "")
	}
	if err != nil {
		if spec.List && errs.CodeOf(err) == errs.TargetNotFound {
			return &Extracted{Items: []any{}}, nil
		}
		return nil, err
	}
	els := match.Elements
	ex := &Extracted{Count: len(els), Match: match.Describe(), Items: []any{}}
	if !spec.List && len(els) > 1 {
		els = els[:1]
	}
	if spec.Limit > 0 && len(els) > spec.Limit {
		els = els[:spec.Limit]
	}
	seen := map[string]bool{}
	for _, el := range els {
		el = el.Context(ctx)
		if len(fields) == 0 {
			v, err := readOne(el, spec.Attr)
			if err != nil {
				return nil, err
			}
			ex.Items = append(ex.Items, v)
			continue
		}
		item := make(map[string]any, len(fields))
		for i, f := range fields {
			fm, err := Resolve(ctx, page, el, f, Options{Once: true})
			if errs.CodeOf(err) == errs.TargetNotFound {
				item[spec.Fields[i].Name] = nil
				continue
			}
			if err != nil {
				return nil, err
			}
			if fm.Locator > 0 {
				d := spec.Fields[i].Name + ": " + fm.Describe()
				if !seen[d] {
					seen[d] = true
					ex.Fields = append(ex.Fields, d)
				}
			}
			if item[spec.Fields[i].Name], err = readOne(fm.Elements[0].Context(ctx), spec.Attr); err != nil {
				return nil, err
			}
		}
		ex.Items = append(ex.Items, item)
	}
	return ex, nil
}

// readOne reads one element with page.js's read: the same rules (text
// normalized, password inputs read "") as the one-round-trip extract.
func readOne(el *rod.Element, attr string) (any, error) {
	res, err := evalOp(el.Page().Context(el.GetContext()), el.Object, "read", map[string]any{"attr": attr}, true, false)
	if err != nil {
		return nil, err
	}
	if res.Value.Nil() {
		return nil, nil
	}
	return res.Value.Str(), nil
}

func needsAX(t *Target) bool {
	for _, l := range t.Locators {
		if l.Strategy == Role {
			return true
		}
	}
	return false
}

func anyNeedsAX(ts []*Target) bool {
	for _, t := range ts {
		if needsAX(t) || t.Frame != "" {
			return true
		}
	}
	return false
}

func jsLocs(t *Target) []jsLoc {
	out := make([]jsLoc, len(t.Locators))
	for i, l := range t.Locators {
		out[i] = locJS(l)
	}
	return out
}

func sortedKeys(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
