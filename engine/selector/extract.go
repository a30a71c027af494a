package selector

import (
	"context"
	"encoding/json"
	"fmt"

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
		out, err := readExtract(res.Value, spec.Fields)
		if err != nil {
			return nil, err
		}
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
			if out.From < 0 || out.From >= len(from.Locators) {
				return nil, errs.New(errs.Internal, "extract: locator %d of %s", out.From, from.Name)
			}
			ex.Match = (&Match{Strategy: from.Locators[out.From].Strategy, Locator: out.From}).Describe()
		}
		for i, f := range spec.Fields {
			if i >= len(out.Used) {
				break
			}
			for li, n := range out.Used[i] {
				if n > 0 && li > 0 && li < len(fields[i].Locators) {
					ex.Fields = append(ex.Fields, fmt.Sprintf("%s: %s", f.Name, (&Match{Strategy: fields[i].Locators[li].Strategy, Locator: li}).Describe()))
				}
			}
		}
		return ex, nil
	}
}

// extracted is page.js's extract answer, decoded from its JSON text.
type extracted struct {
	Found bool            `json:"found"`
	From  int             `json:"from"`
	Count int             `json:"count"`
	Items json.RawMessage `json:"items"`
	// Used[f][i] is how many matches had field f found by its locator i.
	Used [][]int `json:"used"`
}

// extractOut is an extract answer with its items as the step hands them
// on: values (a string or nil), or with fields a map per match.
type extractOut struct {
	extracted
	Items []any
}

// readExtract decodes the answer: one JSON text, whose rows hold their
// fields' values in the order of fields.
func readExtract(v gson.JSON, fields []FieldSpec) (extractOut, error) {
	var out extractOut
	if v.Nil() {
		return out, nil // the scope went away: nothing found
	}
	if err := json.Unmarshal([]byte(v.Str()), &out.extracted); err != nil {
		return out, errs.Wrap(errs.Internal, err, "extract: reading the page's answer: %v", err)
	}
	if len(fields) == 0 {
		var vals []*string
		if err := json.Unmarshal(out.extracted.Items, &vals); err != nil {
			return out, errs.Wrap(errs.Internal, err, "extract: reading the page's answer: %v", err)
		}
		out.Items = make([]any, len(vals))
		for i, s := range vals {
			out.Items[i] = orNil(s)
		}
		return out, nil
	}
	var rows [][]*string
	if err := json.Unmarshal(out.extracted.Items, &rows); err != nil {
		return out, errs.Wrap(errs.Internal, err, "extract: reading the page's answer: %v", err)
	}
	out.Items = make([]any, len(rows))
	for i, row := range rows {
		item := make(map[string]any, len(fields))
		for j, f := range fields {
			var s *string
			if j < len(row) {
				s = row[j]
			}
			item[f.Name] = orNil(s)
		}
		out.Items[i] = item
	}
	return out, nil
}

// orNil is *s, or nil (not a typed nil) when the page read null.
func orNil(s *string) any {
	if s == nil {
		return nil
	}
	return *s
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
