package kinds

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/go-rod/rod"
	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/step"
	"github.com/toolwright/toolwright/engine/tmpl"
)

// scrollSettle is how long one round waits for content a scroll loads.
const scrollSettle = 1500 * time.Millisecond

func init() {
	step.Register(&step.Spec{
		Kind: "scroll",
		Doc: "Scroll a target into view (`scroll: TARGET`), or scroll the page (or the scrollable target) " +
			"a screen at a time until a condition holds, at most max screens: {visible: T}, {hidden: T}, " +
			"{text: \"...\"} or {count: T, at_least: N}. Each screen waits a moment for content it loads " +
			"(infinite lists). Reaching the end of the page first is target_not_found; max screens " +
			"without the condition is limit_exceeded.",
		Short: "target",
		Risk:  "read",
		Fields: []step.Field{
			{Name: "target", Type: step.Target, Doc: "alone: the element to bring into view; with until: the scrollable element (default: the page)"},
			{Name: "until", Type: step.ValueMap, Doc: "the condition that ends the scrolling: {visible: T}, {hidden: T}, {text: \"...\"} or {count: T, at_least: N}"},
			{Name: "max", Type: step.Bound, Doc: "at most this many screens (required with until): a number up to limits.max_loop or ${{ params.X }} with a declared max"},
		},
		Example: "scroll: {until: {count: nw.feed.items, at_least: 30}, max: 20}",
		Check: func(c *step.Checker, s *step.Step) {
			switch {
			case !s.Has("until") && !s.Has("target"):
				c.Addf(s.Pos, lint.Missing, "scroll needs a target to bring into view, or until and max")
			case s.Has("until") && !s.Has("max"):
				c.Addf(s.Pos, lint.Unbounded, "scroll with until needs max (at most limits.max_loop screens)")
			case !s.Has("until") && s.Has("max"):
				c.Addf(s.Pos, lint.BadValue, "scroll max goes with until")
			}
		},
		AfterCompile: checkScrollUntil,
		Run:          runScroll,
	})
}

// scrollCond is a decoded until.
type scrollCond struct {
	kind    string // visible | hidden | text | count
	target  string
	text    *tmpl.Template
	atLeast *tmpl.Template
}

func (c scrollCond) String() string {
	switch c.kind {
	case "text":
		return fmt.Sprintf("text %q", c.text.Source)
	case "count":
		return fmt.Sprintf("%s of %s", c.atLeast.Source, c.target)
	}
	return c.kind + " " + c.target
}

// untilOf reads until; the error says what is wrong with it.
func untilOf(s *step.Step) (scrollCond, error) {
	var c scrollCond
	for _, v := range s.Values("until") {
		lit := ""
		if v.Value != nil && v.Value.IsLiteral() {
			lit = tmpl.Text(v.Value.Value())
		}
		switch v.Name {
		case "visible", "hidden", "count":
			if c.kind != "" {
				return c, fmt.Errorf("until takes one condition, found %s and %s", c.kind, v.Name)
			}
			c.kind, c.target = v.Name, lit
			if lit == "" {
				return c, fmt.Errorf("until %s takes a selector-map target, not a template", v.Name)
			}
		case "text":
			if c.kind != "" {
				return c, fmt.Errorf("until takes one condition, found %s and text", c.kind)
			}
			c.kind, c.text = "text", v.Value
		case "at_least":
			if v.Value != nil && v.Value.IsLiteral() {
				if n, err := strconv.Atoi(lit); err != nil || n < 1 {
					return c, fmt.Errorf("until at_least must be a whole number of at least 1, found %q", lit)
				}
			}
			c.atLeast = v.Value
		default:
			return c, fmt.Errorf("until: unknown condition %q%s", v.Name, lint.Suggest(v.Name, []string{"visible", "hidden", "text", "count", "at_least"}))
		}
	}
	switch {
	case c.kind == "":
		return c, fmt.Errorf("until needs a condition: visible, hidden, text or count")
	case c.kind == "count" && c.atLeast == nil:
		return c, fmt.Errorf("until count needs at_least")
	case c.kind != "count" && c.atLeast != nil:
		return c, fmt.Errorf("until at_least goes with count")
	}
	return c, nil
}

func checkScrollUntil(c *step.Checker, s *step.Step) {
	if !s.Has("until") {
		return
	}
	cond, err := untilOf(s)
	if err != nil {
		c.Addf(s.Pos, lint.BadValue, "scroll %v", err)
		return
	}
	if cond.target == "" {
		return
	}
	if _, ok := c.Map.Lookup(cond.target); !ok {
		if !c.Map.Unknown(cond.target) {
			return
		}
		c.Addf(s.Pos, lint.UnknownRef, "scroll until: unknown target %q%s", cond.target, lint.Suggest(cond.target, c.Map.Names()))
		return
	}
	c.Targets = append(c.Targets, step.Ref{Name: cond.target, Pos: s.Pos, Step: s})
}

func runScroll(ctx context.Context, x step.Exec, s *step.Step) error {
	if !s.Has("until") {
		el, err := element(ctx, x, s, "target", 0)
		if err != nil {
			return err
		}
		return el.ScrollIntoView()
	}
	sw, err := step.Need[step.Scrolling](x, s)
	if err != nil {
		return err
	}
	cond, err := untilOf(s)
	if err != nil {
		return errs.Wrap(errs.Internal, err, "scroll: %v", err)
	}
	max, err := x.BoundOf(s.Bound("max"))
	if err != nil {
		return err
	}
	page, err := x.Page(ctx)
	if err != nil {
		return err
	}
	var box *rod.Element // the scrollable target; nil: the page
	if s.Has("target") {
		m, err := x.Find(ctx, s.Str("target"), step.FindOpt{})
		if err != nil {
			return err
		}
		box = m.Elements[0]
	}
	look, err := cond.waitCond(ctx, x)
	if err != nil {
		return err
	}
	stuck := 0
	var next *selector.Screen // a screen the page scrolled itself as it grew
	for screen := 0; ; screen++ {
		st := next
		if next = nil; st == nil {
			i, err := x.Holds(ctx, []selector.Cond{look})
			if err != nil || i == 0 {
				return err
			}
			if screen >= max {
				return errs.New(errs.LimitExceeded, "scrolled %d screens and %s never held", max, cond)
			}
			sc, err := selector.ScrollScreen(ctx, page, box)
			if err != nil {
				return err
			}
			st = &sc
		}
		// Mid-page the next screen follows at once (content a scroll loads
		// is checked on the next round). At the end, give lazy content a
		// moment to arrive: until the condition holds or the page grows, at
		// most scrollSettle. The page wakes the wait when it changes, and
		// when it grew scrolls on by itself (a screen that counts).
		if st.Moved && !st.End {
			stuck = 0
			continue
		}
		w, err := sw.ScrollWait(ctx, look, box, st.Height, screen+1 < max, scrollSettle)
		if err != nil || w.Held {
			return err
		}
		next = w.Next
		if !st.Moved && !w.Grew {
			if stuck++; stuck >= 2 {
				return errs.New(errs.TargetNotFound, "reached the end of %s after %d screens and %s never held", pagePath(page), screen+1, cond)
			}
		} else {
			stuck = 0
		}
	}
}

// waitCond is the condition as selector.Map.Wait and Holds check it
// (the templates of text and at_least evaluated): a count counts visible
// matches, and text is looked for in frames too, as the wait step does.
func (c scrollCond) waitCond(ctx context.Context, x step.Exec) (selector.Cond, error) {
	switch c.kind {
	case "visible":
		return selector.Cond{Kind: selector.CondVisible, Target: c.target}, nil
	case "hidden":
		return selector.Cond{Kind: selector.CondHidden, Target: c.target}, nil
	case "text":
		text, err := x.Text(ctx, c.text)
		return selector.Cond{Kind: selector.CondText, Text: text}, err
	}
	v, err := x.Eval(ctx, c.atLeast)
	if err != nil {
		return selector.Cond{}, err
	}
	n, err := strconv.Atoi(tmpl.Text(v))
	if err != nil || n < 1 {
		return selector.Cond{}, errs.New(errs.InvalidParams, "scroll until at_least must be a whole number of at least 1, got %v", v)
	}
	return selector.Cond{Kind: selector.CondCount, Target: c.target, Min: n}, nil
}
