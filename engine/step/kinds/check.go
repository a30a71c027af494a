package kinds

import (
	"context"

	"github.com/go-rod/rod"
	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/step"
)

func init() {
	step.Register(&step.Spec{
		Kind: "check",
		Doc: "Tick (or untick) a checkbox, or pick a radio button. Nothing happens when it already has " +
			"that state, so running the step twice is harmless. A radio cannot be unticked: pick another.",
		Short:     "target",
		Risk:      "write",
		Acts:      true,
		Navigates: true,
		Submits:   true,
		Fields: []step.Field{
			{Name: "target", Type: step.Target, Required: true, Doc: "the checkbox or radio button (or its label)"},
			{Name: "checked", Type: step.Template, Default: true, Doc: "the state it should have: true or false (a template allowed, like ${{ params.gift_wrap }})"},
		},
		Example: "check: {target: nw.order.gift_wrap, checked: true}",
		AfterCompile: func(c *step.Checker, s *step.Step) {
			if t := s.Tmpl("checked"); t != nil && t.IsLiteral() {
				if _, ok := t.Value().(bool); !ok {
					c.Addf(s.Pos, lint.BadValue, "check checked must be true or false, found %q", t.Source)
				}
			}
		},
		Run: func(ctx context.Context, x step.Exec, s *step.Step) error {
			want, err := wantChecked(ctx, x, s)
			if err != nil {
				return err
			}
			name := targetLabel(x, s, "target")
			m, err := x.Find(ctx, s.Str("target"), step.FindOpt{})
			if err != nil {
				return err
			}
			el := m.Elements[0].Context(ctx)
			st, err := checkState(el)
			if err != nil {
				return err
			}
			switch {
			case !st.Box:
				return errs.New(errs.TargetNotFound, "target %s is a %s, not a checkbox or radio button", name, st.Tag)
			case st.Checked == want:
				return nil // already so: nothing to do
			case st.Radio && !want:
				return errs.New(errs.AssertionFailed, "target %s is a radio button: it cannot be unticked; check another option of its group", name)
			case st.Disabled:
				return errs.New(errs.AssertionFailed, "target %s is disabled", name)
			}
			// Click what a person would: the box itself, or its label
			// when the box is hidden behind a styled one.
			clickEl := el
			if !st.Visible {
				if lbl, err := el.ElementByJS(rod.Eval(labelJS)); err == nil {
					clickEl = lbl.Context(ctx)
				}
			}
			if err := selector.Click(ctx, clickEl, selector.ActOptions{Name: name}); err != nil {
				return err
			}
			// The page's answer, however late (see selector.Outlasting).
			actx, cancel := selector.Outlasting(ctx)
			defer cancel()
			if st, err = checkState(el.Context(actx)); err != nil {
				return err
			}
			if st.Checked != want {
				return errs.New(errs.AssertionFailed, "target %s did not change to checked: %v after clicking it (the page handles it?)", name, want)
			}
			return nil
		},
	})
}

// wantChecked is the checked field's value (written, or its declared default).
func wantChecked(ctx context.Context, x step.Exec, s *step.Step) (bool, error) {
	v, err := x.Eval(ctx, s.Tmpl("checked"))
	if err != nil {
		return false, err
	}
	switch b := v.(type) {
	case bool:
		return b, nil
	case string:
		if b == "true" || b == "false" {
			return b == "true", nil
		}
	}
	return false, errs.New(errs.InvalidParams, "check checked must be true or false, got %v", v)
}

// labelJS finds the label a person clicks for a box.
const labelJS = `function () { return (this.labels && this.labels[0]) || this.closest('label') }`

type boxState struct {
	Tag      string `json:"tag"`
	Box      bool   `json:"box"`
	Radio    bool   `json:"radio"`
	Checked  bool   `json:"checked"`
	Disabled bool   `json:"disabled"`
	Visible  bool   `json:"visible"`
}

// checkState reads a checkbox or radio; a label (or an ARIA checkbox)
// stands for its control.
func checkState(el *rod.Element) (boxState, error) {
	res, err := el.Eval(`function () {
		let box = this;
		if (this.tagName === 'LABEL' && this.control) box = this.control;
		const type = (box.type || '').toLowerCase();
		const role = box.getAttribute && box.getAttribute('role');
		const r = box.getBoundingClientRect();
		const st = getComputedStyle(box);
		const visible = r.width > 0 && r.height > 0 && st.visibility !== 'hidden' && st.opacity !== '0';
		if (box.tagName === 'INPUT' && (type === 'checkbox' || type === 'radio')) {
			return {tag: 'input', box: true, radio: type === 'radio', checked: box.checked, disabled: box.disabled, visible};
		}
		if (role === 'checkbox' || role === 'radio' || role === 'switch') {
			return {tag: box.tagName.toLowerCase(), box: true, radio: role === 'radio', checked: box.getAttribute('aria-checked') === 'true',
				disabled: box.getAttribute('aria-disabled') === 'true', visible};
		}
		return {tag: box.tagName.toLowerCase() + (type ? '[type=' + type + ']' : ''), box: false};
	}`)
	if err != nil {
		return boxState{}, err
	}
	var st boxState
	err = res.Value.Unmarshal(&st)
	return st, err
}
