package kinds

import (
	"context"

	"github.com/go-rod/rod"
	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/step"
)

func init() {
	step.Register(&step.Spec{
		Kind: "extract",
		Doc:  "Read text, values or attributes from the page into a variable. Password fields always read as empty.",
		Risk: "read",
		Fields: []step.Field{
			{Name: "from", Type: step.Target, Required: true, Doc: "the element(s) to read"},
			{Name: "list", Type: step.Bool, Doc: "read every match into a list (default: the first match)"},
			{Name: "limit", Type: step.Int, Doc: "read at most this many matches (the list is marked truncated)"},
			{Name: "fields", Type: step.TargetMap, Doc: "read these targets (each declared within: the from target) from each match, into a map"},
			{Name: "attr", Type: step.String, Default: "text", Doc: "what to read: text, value, href or an attribute name"},
			{Name: "into", Type: step.VarName, Required: true, Doc: "the variable to store the result in"},
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
			if s.Bool("append") && !s.Bool("list") {
				c.Addf(s.Pos, lint.BadValue, "extract: append needs list: true")
			}
		},
		Run: runExtract,
	})
}

func runExtract(ctx context.Context, x step.Exec, s *step.Step) error {
	list := s.Bool("list")
	m, err := x.Find(ctx, s.Str("from"), step.FindOpt{All: list})
	if err != nil {
		return err
	}
	attr := s.Str("attr")
	if attr == "" {
		attr = "text"
	}
	els := m.Elements
	truncated := false
	if limit := s.Int("limit"); limit > 0 && len(els) > limit {
		els, truncated = els[:limit], true
	}
	if max := x.MaxListItems(); max > 0 && len(els) > max {
		els, truncated = els[:max], true
	}
	if !list && len(els) > 1 {
		els = els[:1]
	}
	items := make([]any, 0, len(els))
	for _, el := range els {
		v, err := readItem(ctx, x, s, el.Context(ctx), attr)
		if err != nil {
			return err
		}
		items = append(items, v)
	}
	into := s.Str("into")
	if !list {
		var v any
		if len(items) > 0 {
			v = items[0]
		}
		x.SetVar(into, v, false)
		return nil
	}
	x.SetVar(into, items, s.Bool("append"))
	if truncated {
		x.MarkTruncated(into)
	}
	return nil
}

// readItem reads one match: its fields as a map, or the attribute itself.
func readItem(ctx context.Context, x step.Exec, s *step.Step, el *rod.Element, attr string) (any, error) {
	fields := s.Targets("fields")
	if len(fields) == 0 {
		return read(el, attr)
	}
	out := make(map[string]any, len(fields))
	for _, f := range fields {
		m, err := x.Find(ctx, f.Target, step.FindOpt{Parent: el, Once: true})
		if errs.CodeOf(err) == errs.TargetNotFound {
			out[f.Name] = nil
			continue
		}
		if err != nil {
			return nil, err
		}
		v, err := read(m.Elements[0].Context(ctx), attr)
		if err != nil {
			return nil, err
		}
		out[f.Name] = v
	}
	return out, nil
}

// readJS reads one element's text, value, href or attribute in one round
// trip. Password inputs read as empty, whatever is asked.
const readJS = `function (attr) {
	const norm = s => (s == null ? null : String(s).replace(/\s+/g, ' ').trim());
	if (this.tagName === 'INPUT' && (this.type || '').toLowerCase() === 'password') return '';
	switch (attr) {
	case 'text': return norm(this.innerText !== undefined ? this.innerText : this.textContent);
	case 'value': return 'value' in this ? String(this.value) : norm(this.getAttribute('value'));
	case 'href': return this.href !== undefined ? String(this.href) : this.getAttribute('href');
	default: return this.getAttribute(attr);
	}
}`

func read(el *rod.Element, attr string) (any, error) {
	res, err := el.Eval(readJS, attr)
	if err != nil {
		return nil, err
	}
	if res.Value.Nil() {
		return nil, nil
	}
	return res.Value.Str(), nil
}
