package kinds

import (
	"context"
	"fmt"
	"reflect"

	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/step"
	"github.com/toolwright/toolwright/engine/tmpl"
)

func init() {
	step.Register(&step.Spec{
		Kind:     "for_each",
		Synonyms: []string{"for", "foreach", "each", "map"},
		Doc:      "Run steps once for each item of a list, at most max items.",
		Scope: func(s *step.Step, sc tmpl.Scope) tmpl.Scope {
			return sc.InLoop().With(func(x *tmpl.Scope) { x.Items = append(x.Items, s.Str("as")) })
		},
		Fields: []step.Field{
			{Name: "items", Type: step.Expr, Required: true, Doc: "an expression giving a list, like vars.rows"},
			{Name: "as", Type: step.String, Default: tmpl.Item, Doc: "the name of the current item in expressions"},
			{Name: "max", Type: step.Bound, Required: true, Doc: "at most this many items; more is limit_exceeded"},
			{Name: "steps", Type: step.Steps, Required: true, Doc: "the steps for one item (loop.index is 0-based)"},
		},
		Example: "for_each: {items: vars.skus, as: sku, max: 20, steps: [{goto: \"${{ config.acme_base }}/product.html?sku=${{ sku }}\"}]}",
		Check: func(c *step.Checker, s *step.Step) {
			as := s.Str("as")
			switch as {
			case tmpl.Item:
			case tmpl.Params, tmpl.Config, tmpl.Secrets, tmpl.EnvName, tmpl.Page, tmpl.Vars, tmpl.Loop:
				c.Addf(s.Pos, lint.BadName, "for_each: as %q hides a built-in name; choose another", as)
			default:
				if !codeRE.MatchString(as) {
					c.Addf(s.Pos, lint.BadName, "for_each: as %q must be snake_case", as)
				}
			}
		},
		Run: func(ctx context.Context, x step.Exec, s *step.Step) error {
			n, err := step.Need[step.Nesting](x, s)
			if err != nil {
				return err
			}
			max, err := x.BoundOf(s.Bound("max"))
			if err != nil {
				return err
			}
			v, err := x.Value(ctx, s.Expr("items"))
			if err != nil {
				return err
			}
			items, err := listOf(v)
			if err != nil {
				return errs.Wrap(errs.AssertionFailed, err, "for_each items %q: %v", s.Expr("items").Source, err)
			}
			if len(items) > max {
				return errs.New(errs.LimitExceeded, "for_each got %d items, more than max %d", len(items), max)
			}
			as := s.Str("as")
			for i, it := range items {
				if err := n.RunSteps(ctx, s.Steps("steps"), &step.Frame{Index: i, Names: map[string]any{as: it}}); err != nil {
					return err
				}
			}
			return nil
		},
	})
}

// listOf accepts any slice (and the items of an extracted list map).
func listOf(v any) ([]any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case []any:
		return x, nil
	case map[string]any:
		if items, ok := x["items"].([]any); ok {
			return items, nil
		}
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array {
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = rv.Index(i).Interface()
		}
		return out, nil
	}
	return nil, fmt.Errorf("expected a list, got %T", v)
}
