package kinds

import (
	"context"
	"sort"
	"strings"

	"github.com/go-rod/rod/lib/input"
	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/step"
)

// keys are the key names press accepts.
var keys = map[string]input.Key{
	"Enter": input.Enter, "Tab": input.Tab, "Escape": input.Escape, "Backspace": input.Backspace,
	"Delete": input.Delete, "Space": input.Space, "Home": input.Home, "End": input.End,
	"PageUp": input.PageUp, "PageDown": input.PageDown, "ArrowUp": input.ArrowUp,
	"ArrowDown": input.ArrowDown, "ArrowLeft": input.ArrowLeft, "ArrowRight": input.ArrowRight,
}

func keyNames() []string {
	out := make([]string, 0, len(keys))
	for k := range keys {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func init() {
	step.Register(&step.Spec{
		Kind:      "press",
		Doc:       "Press a key, in the focused element or in a target.",
		Short:     "key",
		Risk:      "write",
		Acts:      true,
		Navigates: true,
		Fields: []step.Field{
			{Name: "key", Type: step.String, Required: true, Doc: "Enter, Tab, Escape, Backspace, Delete, Space, Home, End, PageUp, PageDown or an arrow key"},
			{Name: "target", Type: step.Target, Doc: "focus this target first"},
		},
		Example: "press: Enter",
		Check: func(c *step.Checker, s *step.Step) {
			if k := s.Str("key"); k != "" {
				if _, ok := keys[k]; !ok {
					c.Addf(s.Pos, lint.BadValue, "step press: unknown key %q%s (keys: %s)", k, lint.Suggest(k, keyNames()), strings.Join(keyNames(), ", "))
				}
			}
		},
		Run: func(ctx context.Context, x step.Exec, s *step.Step) error {
			key := keys[s.Str("key")]
			if s.Str("target") != "" {
				// Found and focused in one round trip when the page can
				// tell on its own (see selector.Typing); else the way
				// below, which waits.
				ty, err := x.Typing(ctx, s.Str("target"), false)
				if err != nil {
					return err
				}
				if ty != nil {
					return ty.Press(ctx, key)
				}
				el, err := element(ctx, x, s, "target", 0)
				if err != nil {
					return err
				}
				return selector.Press(ctx, el, key, selector.ActOptions{Name: targetLabel(x, s, "target")})
			}
			page, err := x.Page(ctx)
			if err != nil {
				return err
			}
			return page.Keyboard.Type(key)
		},
	})
}
