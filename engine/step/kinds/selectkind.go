package kinds

import (
	"context"

	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/step"
)

func init() {
	step.Register(&step.Spec{
		Kind:      "select",
		Doc:       "Choose an option of a <select> by its value or its visible label.",
		Risk:      "write",
		Acts:      true,
		Navigates: true,
		Fields: []step.Field{
			{Name: "target", Type: step.Target, Required: true, Doc: "the <select> element"},
			{Name: "value", Type: step.Template, Required: true, Doc: "an option's value or label"},
		},
		Example: `select: {target: acme.catalog.sort, value: "Price: low to high"}`,
		Run: func(ctx context.Context, x step.Exec, s *step.Step) error {
			el, err := element(ctx, x, s, "target", 0)
			if err != nil {
				return err
			}
			value, err := x.Text(ctx, s.Tmpl("value"))
			if err != nil {
				return err
			}
			res, err := el.Eval(`function (v) {
				const norm = s => (s || '').replace(/\s+/g, ' ').trim();
				const opts = Array.from(this.options || []);
				const o = opts.find(o => o.value === v) || opts.find(o => norm(o.label || o.text) === norm(v));
				if (!o) return opts.map(o => norm(o.label || o.text)).join(', ');
				this.value = o.value;
				this.dispatchEvent(new Event('input', {bubbles: true}));
				this.dispatchEvent(new Event('change', {bubbles: true}));
				return '';
			}`, value)
			if err != nil {
				return err
			}
			if opts := res.Value.Str(); opts != "" {
				return errs.New(errs.TargetNotFound, "target %s has no option %q (options: %s)", s.Str("target"), value, opts)
			}
			return nil
		},
	})
}
