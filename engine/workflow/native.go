package workflow

import (
	"fmt"
	"regexp"
	"slices"

	"github.com/toolwright/toolwright/engine/policy"
	"github.com/toolwright/toolwright/engine/tmpl"
)

// NativeSpec declares a tool whose body is Go rather than steps (the
// recording primitives of serve --record). It says what a workflow file's
// header and params say, so the tool it makes is a *Workflow: its input
// schema comes from the same generator, its arguments are bound by the same
// Bind (gojsonschema, every pattern and bound), and the engine's one call
// path asks the store, checks the grant, audits and traces it as it does a
// workflow's. The body is registered with the engine (run.Engine.AddNative).
type NativeSpec struct {
	Name, Title, Description string
	Risk                     string // read | write | destructive
	Params                   []*Param
	// Repeats: the same arguments sent again mean the action again (a
	// click on Next clicks again), so no idempotency record is kept and a
	// task_id scopes the call's grant only.
	Repeats bool
}

// NewNative makes the tool of spec. A parameter is held to the rules a
// workflow file's parameter is (a description, a known type, bounded
// numbers and arrays, a pattern that compiles); a string without
// MaxLength gets DefaultMaxLength.
func NewNative(spec NativeSpec) (*Workflow, error) {
	if !nameRE.MatchString(spec.Name) {
		return nil, fmt.Errorf("native tool %q: a name is %s", spec.Name, nameRE)
	}
	if !slices.Contains(policy.Risks, spec.Risk) {
		return nil, fmt.Errorf("native tool %s: risk %q is not one of %v", spec.Name, spec.Risk, policy.Risks)
	}
	w := &Workflow{
		Name: spec.Name, Title: spec.Title, Description: spec.Description, Risk: spec.Risk,
		Deadline: tmpl.Literal(DefaultDeadline.String()), Params: spec.Params,
		Native: true, Repeats: spec.Repeats,
	}
	for _, p := range w.Params {
		if err := nativeParam(p); err != nil {
			return nil, fmt.Errorf("native tool %s: parameter %s: %w", spec.Name, p.Name, err)
		}
	}
	if err := w.buildInput(); err != nil {
		return nil, err
	}
	if _, err := w.validator(); err != nil {
		return nil, err
	}
	return w, nil
}

// nativeParam checks one parameter of a native tool and fills its defaults.
func nativeParam(p *Param) error {
	switch {
	case !nameRE.MatchString(p.Name) || p.Name == "task_id" || p.Name == "env_id":
		return fmt.Errorf("a name is %s, not task_id or env_id", nameRE)
	case p.Description == "":
		return fmt.Errorf("a description is required: the agent reads it")
	case !slices.Contains(paramTypes, p.Type) || p.Type == TTarget:
		return fmt.Errorf("type %q is not a native parameter type", p.Type)
	case (p.Type == TInteger || p.Type == TNumber) && (p.Min == nil || p.Max == nil):
		return fmt.Errorf("a number needs min and max")
	case p.Type == TArray && (p.Items == nil || p.MaxItems <= 0):
		return fmt.Errorf("an array needs items and max_items")
	}
	if p.Type == TString && p.MaxLength <= 0 {
		p.MaxLength = DefaultMaxLength
	}
	if p.Pattern != "" {
		re, err := regexp.Compile(p.Pattern)
		if err != nil {
			return fmt.Errorf("pattern: %v", err)
		}
		p.re = re
	}
	return nil
}
