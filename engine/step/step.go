package step

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-rod/rod"
	"github.com/toolwright/toolwright/engine/decl"
	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/tmpl"
)

// Step is one decoded, compiled step.
type Step struct {
	Spec     *Spec
	Pos      lint.Pos
	Path     string // "4" or "4.2" for nested steps: the trace's step index
	Name     string
	If       *tmpl.Expr
	When     *Step // `when:`: a condition form (ConditionKind's long form), checked once as the step starts
	Timeout  time.Duration
	Retry    Retry
	Optional bool
	Dialog   *Dialog // how a dialog opening during the step is answered (nil: the default)
	Args     map[string]any
	// typed lists the Int and Bool fields written as one template of a
	// parameter of that type (nth: ${{ params.n }}); Bind evaluates them
	// for a call, so Run reads them as literals.
	typed map[string]decl.Type
}

// Bind returns the step with its typed template fields evaluated in env
// (the step itself when it has none).
// A kind's own long forms (wait's any) are bound too.
func (s *Step) Bind(env tmpl.Env) (*Step, error) {
	forms := map[string][]*Step{}
	for name, v := range s.Args {
		list, ok := v.([]*Step)
		if !ok || !s.hasForms(name) {
			continue
		}
		var bound []*Step
		for i, f := range list {
			b, err := f.Bind(env)
			if err != nil {
				return nil, fmt.Errorf("%s[%d] %w", name, i, err)
			}
			if b != f && bound == nil {
				bound = append([]*Step(nil), list...)
			}
			if bound != nil {
				bound[i] = b
			}
		}
		if bound != nil {
			forms[name] = bound
		}
	}
	if len(s.typed) == 0 && len(forms) == 0 {
		return s, nil
	}
	c := *s
	c.Args = make(map[string]any, len(s.Args))
	for k, v := range s.Args {
		c.Args[k] = v
	}
	for name, list := range forms {
		c.Args[name] = list
	}
	for name, typ := range s.typed {
		t := s.Tmpl(name)
		if t == nil {
			continue
		}
		v, err := t.Eval(env)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		switch typ {
		case Int:
			n, ok := wholeNumber(v)
			if !ok {
				return nil, fmt.Errorf("%s: %s gave %s, not a whole number of 0 or more", name, t.Source, describeValue(v))
			}
			c.Args[name] = n
		case Bool:
			b, ok := v.(bool)
			if !ok {
				return nil, fmt.Errorf("%s: %v is not true or false", name, v)
			}
			c.Args[name] = b
		}
	}
	return &c, nil
}

// Dialog is a step's `dialog` key.
type Dialog struct {
	Accept bool           `decl:"accept"`
	Text   *tmpl.Template // a prompt's answer (nil: the prompt's default)
}

// Retry is a step's retry policy.
type Retry struct {
	Attempts int           `decl:"attempts"`
	Backoff  time.Duration `decl:"backoff"`
}

// LoopBound is a loop bound: a literal N, or a parameter's value.
type LoopBound struct {
	N     int
	Param string
}

// NamedTarget is one entry of a TargetMap field.
type NamedTarget struct {
	Name   string
	Target string
	Attr   string // {target, attr}: what to read of it ("": the step's own)
}

// NamedValue is one entry of a ValueMap field.
type NamedValue struct {
	Name  string
	Value *tmpl.Template
}

// Label names the step for envelopes and traces: `click acme.login.submit (#4)`.
func (s *Step) Label() string {
	if s.Name != "" {
		return fmt.Sprintf("%s (#%s)", s.Name, s.Path)
	}
	label := s.Spec.Kind
	if t := s.TargetName(); t != "" {
		label += " " + t
	} else if v := s.Str(s.Spec.Short); v != "" {
		label += " " + v // press Enter
	}
	return fmt.Sprintf("%s (#%s)", label, s.Path)
}

// TargetName returns the first Target field's value, for labels and traces.
func (s *Step) TargetName() string {
	for _, f := range s.Spec.Fields {
		if f.Type == Target {
			if v, ok := s.Args[f.Name].(string); ok && v != "" {
				return v
			}
		}
	}
	return ""
}

// ToolArgs returns the arguments the step passes to the workflow its Tool
// field names: its Field.Args field (nil when its kind declares none).
func (s *Step) ToolArgs() []NamedValue {
	for _, f := range s.Spec.Fields {
		if f.Args {
			return s.Values(f.Name)
		}
	}
	return nil
}

// OwnTimeout is the value of the step's Field.Timeout field (0: its kind
// has none, or it was not given).
func (s *Step) OwnTimeout() time.Duration {
	for _, f := range s.Spec.Fields {
		if f.Timeout {
			return s.Dur(f.Name)
		}
	}
	return 0
}

// Navigation is the value of the step's Field.Navigation field ("": its
// kind has none, or it was not given).
func (s *Step) Navigation() string {
	for _, f := range s.Spec.Fields {
		if f.Navigation {
			return s.Str(f.Name)
		}
	}
	return ""
}

// Has reports whether the field was given.
func (s *Step) Has(name string) bool { _, ok := s.Args[name]; return ok }

// Str returns a String, Target, VarName, Tool or Enum field ("" when absent).
func (s *Step) Str(name string) string { v, _ := s.Args[name].(string); return v }

// Tmpl returns a Template field (nil when absent).
func (s *Step) Tmpl(name string) *tmpl.Template { v, _ := s.Args[name].(*tmpl.Template); return v }

// Expr returns an Expr or Cond field (nil when absent).
func (s *Step) Expr(name string) *tmpl.Expr { v, _ := s.Args[name].(*tmpl.Expr); return v }

// Dur returns a Duration field (0 when absent).
func (s *Step) Dur(name string) time.Duration { v, _ := s.Args[name].(time.Duration); return v }

// Int returns an Int field (0 when absent).
func (s *Step) Int(name string) int { v, _ := s.Args[name].(int); return v }

// Bool returns a Bool field (false when absent).
func (s *Step) Bool(name string) bool { v, _ := s.Args[name].(bool); return v }

// Ints returns an Ints field (nil when absent).
func (s *Step) Ints(name string) []int { v, _ := s.Args[name].([]int); return v }

// Bound returns a Bound field.
func (s *Step) Bound(name string) LoopBound { v, _ := s.Args[name].(LoopBound); return v }

// Steps returns a Steps field.
func (s *Step) Steps(name string) []*Step { v, _ := s.Args[name].([]*Step); return v }

// Forms returns a Forms field: each entry decoded as a long form of the
// same kind (its Args hold the one field given).
func (s *Step) Forms(name string) []*Step { v, _ := s.Args[name].([]*Step); return v }

// Targets returns a TargetMap field.
func (s *Step) Targets(name string) []NamedTarget { v, _ := s.Args[name].([]NamedTarget); return v }

// Values returns a ValueMap or TemplateList field, or the whole body of a
// ValueMap-bodied kind (name ""). A TemplateList's entries have no Name.
func (s *Step) Values(name string) []NamedValue { v, _ := s.Args[name].([]NamedValue); return v }

// Cond returns a PageCond field: the condition decoded as the condition
// kind's long form (ConditionKind), or nil.
func (s *Step) Cond(name string) *Step { v, _ := s.Args[name].(*Step); return v }

// FindOpt refines a Find.
type FindOpt struct {
	Parent  *rod.Element // resolve inside this element (targets with within)
	Visible bool         // wait until visible
	All     bool         // return every match even for a one-element target
	Once    bool         // look once, without waiting
	First   bool         // of a many target, only the first visible match, in one request (Count is then 1)
	Quiet   bool         // not recorded as the step's strategy (a step's secondary target)
}

// Frame is the scope of nested steps, as the kind running them says
// (what its Spec.Scope allowed at load time).
type Frame struct {
	Index int // loop.index
	// Loop holds the frame's loop.* fields beyond index (its Spec.Scope
	// named them with tmpl.Scope.InLoop); loop.* is the innermost frame's.
	Loop map[string]any
	// Names binds names for the nested steps (an item under the name its
	// Spec.Scope added to tmpl.Scope.Items); an inner frame's binding of
	// the same name hides the outer one until it ends.
	Names   map[string]any
	Window  *rod.Page // the page nested steps run in (a popup); nil: the enclosing one
	Watched bool      // the step watches Window itself (Popups.Watch); else RunSteps does
	// Touched, when not nil, collects the list variables appended to
	// inside the frame (a kind may then mark them truncated).
	Touched map[string]bool
}

// hasForms reports whether field name of s is a Forms field.
func (s *Step) hasForms(name string) bool {
	if s.Spec == nil {
		return false
	}
	for _, f := range s.Spec.Fields {
		if f.Name == name {
			return f.Type == Forms
		}
	}
	return false
}

// wholeNumber reads v as a whole number of 0 or more: an integer, a float
// without a fraction, or text holding one (a value read from the page).
func wholeNumber(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, x >= 0
	case int64:
		return int(x), x >= 0
	case float64:
		return int(x), x >= 0 && x == float64(int(x))
	case string:
		n, err := strconv.Atoi(strings.TrimSpace(x))
		return n, err == nil && n >= 0
	}
	return 0, false
}

// describeValue names a value for a message: 2.5, "abc", null.
func describeValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(x)
	}
	return fmt.Sprint(v)
}
