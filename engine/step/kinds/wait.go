package kinds

import (
	"context"

	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/step"
	"github.com/toolwright/toolwright/engine/tmpl"
)

// waitConds are the condition fields of wait, each one condition.
var waitConds = []string{"visible", "hidden", "text", "url", "count", "network_idle", "any"}

// waitFields are wait's fields: the page conditions (conditions.go), any,
// into and timeout.
var waitFields = append(noted(condFields("wait until", "visible", "hidden", "text", "url", "count", "at_least", "network_idle"),
	map[string]string{"text": "anywhere, frames included", "url": "also after history.pushState"}),
	step.Field{Name: "any", Type: step.Forms, Doc: "a list of conditions: wait until the first of them holds"},
	step.Field{Name: "into", Type: step.VarName, Doc: "with any: the variable that gets the 0-based index of the condition that held",
		Yields: func(*step.Checker, *step.Step) tmpl.Shape { return tmpl.Shape{Kind: "number"} }},
	step.Field{Name: "timeout", Type: step.Duration, Timeout: true, Doc: "how long to wait (default: the step's timeout), up to the call's deadline"},
)

func init() {
	step.Register(&step.Spec{
		Kind:     "wait",
		Synonyms: []string{"wait_for", "waitfor", "wait_until", "wait_for_selector"},
		Doc: "Wait until a condition holds: a target is visible or hidden, a text appears anywhere on the page (frames included), " +
			"the URL matches a glob (also after history.pushState), a target has at least N visible matches, the network is quiet, " +
			"or the first of several conditions (any). The page itself answers most conditions, so the wait ends within a frame of the change.",
		Risk:    "read",
		OneOf:   waitConds,
		Fields:  waitFields,
		Example: `wait: {any: [{visible: acme.catalog.rows}, {text: "No results"}], into: outcome}`,
		Check: func(c *step.Checker, s *step.Step) {
			if s.Has("at_least") && !s.Has("count") {
				c.Addf(s.Pos, lint.BadValue, "step wait: at_least goes with count")
			}
			if s.Has("into") && !s.Has("any") {
				c.Addf(s.Pos, lint.BadValue, "step wait: into goes with any")
			}
			for _, f := range s.Forms("any") {
				for _, k := range []string{"into", "timeout"} {
					if f.Has(k) {
						c.Addf(f.Pos, lint.BadValue, "step wait: %s belongs to the wait, not to a condition in any", k)
					}
				}
				if f.Has("at_least") && !f.Has("count") {
					c.Addf(f.Pos, lint.BadValue, "step wait: at_least goes with count")
				}
			}
		},
		Condition:  waitConditions,
		ReadsAhead: true,
		Run: func(ctx context.Context, x step.Exec, s *step.Step) error {
			conds, err := waitConditions(ctx, x, s)
			if err != nil {
				return err
			}
			i, err := x.Wait(ctx, conds)
			if err != nil {
				return err
			}
			if into := s.Str("into"); into != "" {
				x.SetVar(into, i, false)
			}
			return nil
		},
	})
}

// waitConditions reads a wait's long form as its conditions: its one
// condition, or those of any. A step's and a handler's when are read the
// same way (Spec.Condition).
func waitConditions(ctx context.Context, x step.Exec, s *step.Step) ([]selector.Cond, error) {
	forms := []*step.Step{s}
	if s.Has("any") {
		forms = s.Forms("any")
	}
	conds := make([]selector.Cond, 0, len(forms))
	for _, f := range forms {
		c, err := waitCond(ctx, x, f)
		if err != nil {
			return nil, err
		}
		conds = append(conds, c)
	}
	return conds, nil
}

// waitCond turns one condition form into a selector.Cond.
func waitCond(ctx context.Context, x step.Exec, f *step.Step) (selector.Cond, error) {
	switch {
	case f.Has("visible"):
		return selector.Cond{Kind: selector.CondVisible, Target: f.Str("visible")}, nil
	case f.Has("hidden"):
		return selector.Cond{Kind: selector.CondHidden, Target: f.Str("hidden")}, nil
	case f.Has("count"):
		n := f.Int("at_least")
		if !f.Has("at_least") {
			n = 1
		}
		return selector.Cond{Kind: selector.CondCount, Target: f.Str("count"), Min: n}, nil
	case f.Has("network_idle"):
		return selector.Cond{Kind: selector.CondIdle, Quiet: f.Dur("network_idle")}, nil
	case f.Has("text"):
		text, err := x.Text(ctx, f.Tmpl("text"))
		return selector.Cond{Kind: selector.CondText, Text: text}, err
	default:
		glob, err := x.Text(ctx, f.Tmpl("url"))
		return selector.Cond{Kind: selector.CondURL, Text: glob}, err
	}
}
