package kinds

import (
	"context"

	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/step"
	"github.com/toolwright/toolwright/engine/tmpl"
)

func init() {
	step.Register(&step.Spec{
		Kind:     "extract",
		Synonyms: []string{"scrape", "read", "get", "get_text"},
		Doc: "Read text, values or attributes from the page into a variable, in one round trip for a whole page of matches. " +
			"A list with no match is empty ({items: [], count: 0}), not an error; a single value waits for its target. Password fields always read as empty.",
		Risk: "read",
		Fields: []step.Field{
			{Name: "from", Type: step.Target, Required: true, Doc: "the element(s) to read"},
			{Name: "list", Type: step.Bool, Doc: "read every match into a list, empty when nothing matches (default: true for a many target, else the first match, which must exist; a target parameter reads as a list only with list: true)"},
			{Name: "limit", Type: step.Int, Doc: "read at most this many matches, 1 or more (the list is marked truncated); leave it out to read every match, up to limits.max_list_items"},
			{Name: "fields", Type: step.TargetMap, Doc: "read these targets (each declared within: the from target) from each match, into a map: NAME: TARGET, or NAME: {target: TARGET, attr: ATTR} to read another thing of that one (a link's href beside its text)"},
			{Name: "attr", Type: step.String, Default: "text", Doc: "what to read: text, value, href (the absolute URL, resolved against the page) or an attribute name (as written, or null when absent); a field's own attr overrides it"},
			{Name: "into", Type: step.VarName, Required: true, Doc: "the variable to store the result in", Yields: extractShape},
			{Name: "append", Type: step.Bool, Doc: "append to the list already in the variable (paginate)"},
		},
		Example: "extract: {from: acme.catalog.rows, list: true, fields: {sku: acme.catalog.row_sku}, into: rows, append: true}",
		Check: func(c *step.Checker, s *step.Step) {
			from := s.Str("from")
			for _, f := range s.Targets("fields") {
				t, ok := c.Map.Lookup(f.Target)
				if !ok {
					continue
				}
				if t.Within != from {
					c.Addf(s.Pos, lint.BadValue, "extract field %q: target %q must be declared with within: %s in the selector map", f.Name, f.Target, from)
				}
			}
			many := false
			if t, ok := c.Map.Lookup(from); ok {
				many = t.Many && !s.Has("list")
			}
			if s.Bool("append") && !s.Bool("list") && !many {
				c.Addf(s.Pos, lint.BadValue, "extract: append needs list: true")
			}
			if n, literal := s.Args["limit"].(int); literal && n < 1 {
				c.Addf(s.Pos, lint.BadValue, "extract: limit must be at least 1, found %d (0 would read nothing); leave limit out to read every match, up to limits.max_list_items", n)
			}
		},
		ReadsAhead: true,
		Reads: func(x step.Exec, s *step.Step) (selector.ExtractSpec, bool) {
			lists, err := step.Need[step.Lists](x, s)
			if err != nil {
				return selector.ExtractSpec{}, false
			}
			return extractSpec(x, s, lists), true
		},
		Run: runExtract,
	})
}

func runExtract(ctx context.Context, x step.Exec, s *step.Step) error {
	lists, err := step.Need[step.Lists](x, s)
	if err != nil {
		return err
	}
	if s.Has("limit") && s.Int("limit") < 1 {
		// A template gave it (a literal below 1 is a load error): refused,
		// rather than read every match as 0 once did.
		return errs.New(errs.InvalidParams, "extract: limit is %d, and it must be at least 1 (leave limit out to read every match)", s.Int("limit"))
	}
	spec := extractSpec(x, s, lists)
	ex, err := x.Extract(ctx, spec)
	if err != nil {
		return err
	}
	list := spec.List
	into := s.Str("into")
	if !list {
		var v any
		if len(ex.Items) > 0 {
			v = ex.Items[0]
		}
		x.SetVar(into, v, false)
		return nil
	}
	x.SetVar(into, ex.Items, s.Bool("append"))
	if ex.Truncated() {
		lists.MarkTruncated(into)
	}
	return nil
}

// extractSpec is the read extract step s makes.
func extractSpec(x step.Exec, s *step.Step, lists step.Lists) selector.ExtractSpec {
	from := s.Str("from")
	list := s.Bool("list")
	// A many target reads as a list unless list: false. A target parameter
	// may name any target under its prefix, so its shape (checked at load)
	// cannot depend on which: it reads as a list with list: true only.
	if _, param := step.TargetParam(from); !param && !s.Has("list") {
		if t := x.Target(from); t != nil && t.Many {
			list = true
		}
	}
	limit := s.Int("limit")
	if max := lists.MaxListItems(); max > 0 && (limit <= 0 || limit > max) {
		limit = max
	}
	spec := selector.ExtractSpec{From: from, Attr: s.Str("attr"), List: list, Limit: limit}
	for _, f := range s.Targets("fields") {
		spec.Fields = append(spec.Fields, selector.FieldSpec{Name: f.Name, Target: f.Target, Attr: f.Attr})
	}
	return spec
}

// extractShape: a list for list: true, append: true or a many target
// (unless list: false); otherwise one map of the fields, or text.
func extractShape(c *step.Checker, s *step.Step) tmpl.Shape {
	list := s.Bool("append")
	if s.Has("list") {
		list = list || s.Bool("list")
	} else if t, ok := c.Map.Lookup(s.Str("from")); ok && t.Many {
		list = true
	}
	var names []string
	for _, f := range s.Targets("fields") {
		names = append(names, f.Name)
	}
	switch {
	case list:
		return tmpl.Shape{Kind: "list", Fields: names}
	case len(names) > 0:
		return tmpl.Shape{Kind: "object", Fields: names}
	}
	return tmpl.Shape{Kind: "text"}
}
