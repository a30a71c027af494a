package kinds

import (
	"context"

	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/step"
)

func init() {
	step.Register(&step.Spec{
		Kind:      "select",
		Synonyms:  []string{"choose", "pick", "dropdown"},
		Doc:       "Choose an option of a <select> by its value or its visible label, or of an ARIA combobox or listbox by the option's accessible name (the control is opened, the option clicked). An option a person cannot choose (disabled, in a disabled group, hidden, aria-disabled) fails invalid_params.",
		Risk:      "write",
		Acts:      true,
		Navigates: true,
		Fields: []step.Field{
			{Name: "target", Type: step.Target, Required: true, Doc: "the <select> element, or an ARIA combobox (or a button opening a listbox)"},
			{Name: "value", Type: step.Template, Required: true, Doc: "an option's value or label (ARIA: its accessible name)"},
		},
		Example: `select: {target: acme.catalog.sort, value: "Price: low to high"}`,
		Run: func(ctx context.Context, x step.Exec, s *step.Step) error {
			value, err := x.Text(ctx, s.Tmpl("value"))
			if err != nil {
				return err
			}
			// A native <select> found, in view, still, enabled, not
			// covered and set in one round trip when the page can tell
			// on its own; else the way below, which waits (and opens an
			// ARIA listbox).
			rd, err := ready(ctx, x, s.Str("target"), selector.ReadyOptions{Choose: &value})
			if err != nil || rd != nil && rd.Chosen {
				return err
			}
			el, err := element(ctx, x, s, "target", 0)
			if err != nil {
				return err
			}
			return selector.Select(ctx, el, value, selector.ActOptions{Name: targetLabel(x, s, "target")})
		},
	})
}
