package kinds

import (
	"context"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/toolwright/toolwright/engine/step"
)

func init() {
	step.Register(&step.Spec{
		Kind: "fill",
		Doc:  "Clear a field, then type a value into it. The only place secrets.* may be used.",
		Risk: "write",
		Acts: true,
		Fields: []step.Field{
			{Name: "target", Type: step.Target, Required: true, Doc: "the field to fill"},
			{Name: "value", Type: step.Template, Required: true, Secrets: true, Doc: "the text to type; may use secrets.*"},
		},
		Example: `fill: {target: acme.login.email, value: "${{ secrets.acme_user }}"}`,
		Run: func(ctx context.Context, x step.Exec, s *step.Step) error {
			el, err := element(ctx, x, s, "target", 0)
			if err != nil {
				return err
			}
			value, err := x.Text(ctx, s.Tmpl("value"))
			if err != nil {
				return err
			}
			if err := el.WaitEnabled(); err != nil {
				return err
			}
			if _, err := el.Eval(`function () { this.focus(); if ('value' in this) { this.value = ''; } else { this.textContent = ''; } this.dispatchEvent(new Event('input', {bubbles: true})); }`); err != nil {
				return err
			}
			if value == "" {
				_, err = el.Eval(`function () { this.dispatchEvent(new Event('change', {bubbles: true})); }`)
				return err
			}
			return typeInto(ctx, el, value)
		},
	})
}

// typeInto types value into the field el, as rod's el.Input does: scroll it
// into view, focus it, insert the text, fire input and change. el.Input
// scrolls with ScrollIntoView, which first waits until the element has kept
// its shape over two animation frames (WaitStableRAF, about 33 ms at 60 Hz,
// on every fill); inserted text goes to the focused element, not to a point
// on the screen, so the field need not stand still and the wait is skipped.
func typeInto(ctx context.Context, el *rod.Element, value string) error {
	if err := (proto.DOMScrollIntoViewIfNeeded{ObjectID: el.Object.ObjectID}).Call(el); err != nil {
		return err
	}
	if _, err := el.Evaluate(rod.Eval(`() => this.focus()`).ByUser()); err != nil {
		return err
	}
	if err := el.Page().Context(ctx).InsertText(value); err != nil {
		return err
	}
	_, err := el.Evaluate(rod.Eval(`() => {
		this.dispatchEvent(new Event('input', {bubbles: true}));
		this.dispatchEvent(new Event('change', {bubbles: true}));
	}`).ByUser())
	return err
}
