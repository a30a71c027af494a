package kinds

import (
	"context"

	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/step"
)

func init() {
	step.Register(&step.Spec{
		Kind:     "fill",
		Synonyms: []string{"input", "type", "enter", "type_text", "input_text", "send_keys"},
		Doc:      "Clear a field, then type a value into it. The only place secrets.* may be used. A covered field fails at once with target_covered; a value the field would not keep (longer than its maxlength, not of a number, date, time, colour or range field's kind) fails invalid_params before anything is typed; a date, time, colour or range field is set as its picker sets it.",
		Risk:     "write",
		Acts:     true,
		Types:    true,
		Fields: []step.Field{
			{Name: "target", Type: step.Target, Required: true, Doc: "the field to fill"},
			{Name: "value", Type: step.Template, Required: true, Secrets: true, Doc: "the text to type; may use secrets.*"},
		},
		Example: `fill: {target: acme.login.email, value: "${{ secrets.acme_user }}"}`,
		Run: func(ctx context.Context, x step.Exec, s *step.Step) error {
			value, err := x.Text(ctx, s.Tmpl("value"))
			if err != nil {
				return err
			}
			// Found, in view, enabled, not covered, focused and cleared in
			// one round trip when the page can tell on its own, then typed
			// into (see selector.Typing); else the way below, which waits.
			secret := holdsSecret(x, value)
			ty, err := typing(ctx, x, s.Str("target"), &value, secret)
			if err != nil {
				return err
			}
			if ty != nil {
				return ty.Fill(ctx, value)
			}
			el, err := element(ctx, x, s, "target", 0)
			if err != nil {
				return err
			}
			return selector.Fill(ctx, el, value, selector.ActOptions{Name: targetLabel(x, s, "target"), Secret: secret})
		},
	})
}

// holdsSecret reports whether value holds a secret, as far as x can tell.
func holdsSecret(x step.Exec, value string) bool {
	sx, ok := x.(step.Secrets)
	return ok && sx.HoldsSecret(value)
}
