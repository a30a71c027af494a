package kinds

import (
	"context"

	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/step"
)

func init() {
	step.Register(&step.Spec{
		Kind:      "press",
		Synonyms:  []string{"keypress", "key", "keys"},
		Doc:       "Press a key, in the focused element or in a target: a named key, one character (an application's shortcut such as j or /) or a chord, with the keydown, keypress, input and keyup a person's key gives.",
		Short:     "key",
		Risk:      "write",
		Acts:      true,
		Navigates: true,
		Submits:   true,
		Fields: []step.Field{
			{Name: "key", Type: step.String, Required: true, Doc: "a named key (Enter, Tab, Escape, Backspace, Delete, Space, Home, End, PageUp, PageDown, Insert, an arrow key such as ArrowDown, F1 to F12), one character (j, /, ?) or a chord of Control, Shift, Alt or Meta and one of those (Control+a, Shift+Tab, Meta+Shift+K)"},
			{Name: "target", Type: step.Target, Doc: "focus this target first"},
		},
		Example: "press: Enter",
		Check: func(c *step.Checker, s *step.Step) {
			if k := s.Str("key"); s.Has("key") {
				if _, err := selector.ParseKeys(k); err != nil {
					c.Addf(s.Pos, lint.BadValue, "step press: %v", err)
				}
			}
		},
		Run: func(ctx context.Context, x step.Exec, s *step.Step) error {
			keys, err := selector.ParseKeys(s.Str("key"))
			if err != nil {
				return err // checked at load
			}
			if s.Str("target") != "" {
				// Found and focused in one round trip when the page can
				// tell on its own (see selector.Typing); else the way
				// below, which waits.
				ty, err := typing(ctx, x, s.Str("target"), nil, false)
				if err != nil {
					return err
				}
				if ty != nil {
					return ty.Press(ctx, keys)
				}
				el, err := element(ctx, x, s, "target", 0)
				if err != nil {
					return err
				}
				return selector.Press(ctx, el, keys, selector.ActOptions{Name: targetLabel(x, s, "target")})
			}
			page, err := x.Page(ctx)
			if err != nil {
				return err
			}
			return selector.PressKeys(ctx, page, keys)
		},
	})
}
