package selector

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

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
	Attr   string // what to read of it ("": the extract's Attr)
}

// attrOf is what field i reads: its own attr, else the extract's.
func (spec ExtractSpec) attrOf(i int) string {
	if a := spec.Fields[i].Attr; a != "" {
		return a
	}
	return spec.Attr
}

// Extracted is what an extract read.
type Extracted struct {
	Items []any // values, or map[string]any with fields
	Count int   // the matches before the limit
	// Unrendered is how many more items the page says the list holds than
	// it drew: a grid that draws only the rows in view (a virtualized
	// table) tells its size by aria-rowcount, a list's items by
	// aria-setsize. The page holds no more to read; the list is partial.
	Unrendered int
	// Match describes the locator of From that matched ("css", "fallback 1
	// (text)"); Fields the fields' locators where they differ from their
	// primary, as "name: fallback 1 (text)".
	Match  string
	Fields []string
}

// Truncated reports whether the limit cut the list, or the page drew only
// part of it (Unrendered).
func (e *Extracted) Truncated() bool { return e.Count > len(e.Items) || e.Unrendered > 0 }

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
	req := extractReq(spec, from, fields, sc.frame)
	for {
		res, err := evalOp(sc.page.Context(ctx), sc.this, "extract", req, true, false)
		if err != nil {
			return nil, err
		}
		ex, found, err := extractResult(res.Value, spec, from, fields)
		if err != nil {
			return nil, err
		}
		if !found && !spec.List {
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
		return ex, nil
	}
}

// extractReq is page.js's extract request for spec (frame: the scope is
// an iframe's document).
func extractReq(spec ExtractSpec, from *Target, fields []*Target, frame bool) map[string]any {
	req := map[string]any{
		"from":  jsLocs(from),
		"many":  from.Many || spec.List,
		"list":  spec.List,
		"limit": spec.Limit,
		"attr":  spec.Attr,
		"frame": frame,
	}
	var fl []map[string]any
	for i, f := range spec.Fields {
		fl = append(fl, map[string]any{"name": f.Name, "locs": jsLocs(fields[i]), "attr": spec.attrOf(i)})
	}
	req["fields"] = fl
	return req
}

// extractResult is what page.js's extract answer v says; found reports
// whether From matched.
func extractResult(v gson.JSON, spec ExtractSpec, from *Target, fields []*Target) (*Extracted, bool, error) {
	out, err := readExtract(v, spec.Fields)
	if err != nil {
		return nil, false, err
	}
	ex := &Extracted{Items: out.Items, Count: out.Count, Unrendered: out.Unrendered}
	if ex.Items == nil {
		ex.Items = []any{}
	}
	if !out.Found {
		return ex, false, nil
	}
	if out.From < 0 || out.From >= len(from.Locators) {
		return nil, false, errs.New(errs.Internal, "extract: locator %d of %s", out.From, from.Name)
	}
	ex.Match = (&Match{Strategy: from.Locators[out.From].Strategy, Locator: out.From}).Describe()
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
	return ex, true, nil
}

// extracted is the head of page.js's extract answer.
type extracted struct {
	Found bool `json:"found"`
	From  int  `json:"from"`
	Count int  `json:"count"`
	Rows  int  `json:"rows"`
	// Unrendered is how many more items the page says the list holds
	// than it drew (a virtualized grid's aria-rowcount).
	Unrendered int `json:"unrendered"`
	// Used[f][i] is how many rows had field f found by its locator i.
	Used [][]int `json:"used"`
}

// extractOut is an extract answer with its items as the step hands them
// on: values (a string or nil), or with fields a map per row.
type extractOut struct {
	extracted
	Items []any
}

// readExtract decodes the answer: the JSON head, a line break, and the
// JSON array of the values, row by row (JSON.stringify writes no line
// break of its own).
func readExtract(v gson.JSON, fields []FieldSpec) (extractOut, error) {
	var out extractOut
	if v.Nil() {
		return out, nil // the scope went away: nothing found
	}
	head, rest, _ := strings.Cut(v.Str(), "\n")
	bad := func(err error) (extractOut, error) {
		return out, errs.Wrap(errs.Internal, err, "extract: reading the page's answer: %v", err)
	}
	if err := json.Unmarshal([]byte(head), &out.extracted); err != nil {
		return bad(err)
	}
	vals, err := stringArray(rest, out.Rows*max(1, len(fields)))
	if err != nil {
		return bad(err)
	}
	nf := max(1, len(fields))
	if len(vals) != out.Rows*nf {
		return bad(fmt.Errorf("%d values for %d rows × %d", len(vals), out.Rows, nf))
	}
	out.Items = make([]any, out.Rows)
	for i := range out.Items {
		row := vals[i*nf : (i+1)*nf]
		if len(fields) == 0 {
			out.Items[i] = row[0]
			continue
		}
		item := make(map[string]any, len(fields))
		for j, f := range fields {
			item[f.Name] = row[j]
		}
		out.Items[i] = item
	}
	return out, nil
}

// stringArray decodes a JSON array of strings and nulls as JSON.stringify
// writes it (no white space) into strings and nils: a string without an
// escape is taken from s as it is, without the reflection and copies of
// encoding/json (a 200 × 8 read spent most of its Go time there).
func stringArray(s string, n int) ([]any, error) {
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' {
		return nil, fmt.Errorf("not an array: %.20q", s)
	}
	out := make([]any, 0, n)
	for i := 1; i < len(s)-1; {
		switch {
		case strings.HasPrefix(s[i:], "null"):
			out = append(out, nil)
			i += 4
		case s[i] == '"':
			j, escaped := i+1, false
			for ; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' {
					escaped = true
					j++
				}
			}
			if j >= len(s) {
				return nil, fmt.Errorf("unterminated string at %d", i)
			}
			if !escaped {
				out = append(out, s[i+1:j])
			} else {
				var v string
				if err := json.Unmarshal([]byte(s[i:j+1]), &v); err != nil {
					return nil, err
				}
				out = append(out, v)
			}
			i = j + 1
		default:
			return nil, fmt.Errorf("unexpected %q at %d", s[i], i)
		}
		if i < len(s)-1 {
			if s[i] != ',' || i+1 == len(s)-1 {
				return nil, fmt.Errorf("unexpected %q at %d", s[i], i)
			}
			i++
		}
	}
	return out, nil
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
	if spec.List {
		if ex.Unrendered, err = Unrendered(ctx, els); err != nil {
			return nil, err
		}
	}
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
			if item[spec.Fields[i].Name], err = readOne(fm.Elements[0].Context(ctx), spec.attrOf(i)); err != nil {
				return nil, err
			}
		}
		ex.Items = append(ex.Items, item)
	}
	return ex, nil
}

// Unrendered is how many more items than it drew the page says the list
// els (the matches of a many target, in order) holds: a virtualized grid
// draws only the rows in view (see Extracted.Unrendered); 0 for fewer than
// two matches.
func Unrendered(ctx context.Context, els []*rod.Element) (int, error) {
	if len(els) < 2 {
		return 0, nil
	}
	first, last := els[0], els[len(els)-1]
	res, err := evalOp(first.Page().Context(ctx), first.Object, "unrendered", map[string]any{}, true, false, last.Object)
	if err != nil {
		return 0, err
	}
	return res.Value.Int(), nil
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
