package run

import (
	"context"
	"reflect"

	"github.com/go-rod/rod"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/step"
	"github.com/toolwright/toolwright/engine/store"
)

// readAhead is what a wait or extract step reads ahead for the extract
// steps after it (selector's ahead.go): the page is asked once where each
// of them would ask again, a request that waits its turn behind the page's
// own scripts on a page that just loaded. Between the step and those
// extracts only steps that leave the page alone (set, fail) may run, and
// the read goes on into a block that runs its steps at once (a do, a
// paginate's first page: step.Spec.Enters), whatever its if decides; a
// step that reads what was read ahead uses it only when it asks for the
// same read and the page shows the same document.
type readAhead struct {
	steps []*step.Step // the list the steps are in
	owner int          // the index in steps of the step that reads ahead
	// covered are the steps the plan went past, after the owner and in
	// the blocks it entered: they may use what it read.
	covered map[*step.Step]bool
	next    []*step.Step // the extract steps read ahead
	specs   []selector.ExtractSpec
	got     []*selector.Extracted // what was read, nil where not (yet)
	doc     uint64                // the document it was read in (selector.DocumentMark)
	known   bool                  // doc is known
	path    string                // the owner's trace path, for the trace's read_with
}

// covers reports whether step s may use what a was planned for (not its
// owner: a step that runs again, in a loop, reads again).
func (a *readAhead) covers(s *step.Step) bool {
	return a != nil && a.covered[s]
}

// enters reports whether steps is the list of a block a was planned into.
func (a *readAhead) enters(steps []*step.Step) bool {
	return a != nil && len(steps) > 0 && a.covered[steps[0]]
}

// planAhead plans what the step at index k of steps reads ahead: nil when
// it is not a wait or an extract, or no extract follows it that may be
// read then.
func (r *runner) planAhead(steps []*step.Step, k int) *readAhead {
	s := steps[k]
	if s.When != nil || !s.Spec.ReadsAhead {
		return nil
	}
	return r.planAfter(steps, k)
}

// planAfter plans the extracts after index k of steps that a look may read
// ahead (k -1: the ones steps start with); nil when there is none.
func (r *runner) planAfter(steps []*step.Step, k int) *readAhead {
	a := &readAhead{steps: steps, owner: k, covered: map[*step.Step]bool{}}
	for j := k + 1; j < len(steps); j++ {
		if a.plan(r, steps[j]) != aheadOn {
			break
		}
	}
	if len(a.next) == 0 {
		return nil
	}
	a.got = make([]*selector.Extracted, len(a.next))
	return a
}

// How the plan of a read ahead goes on after a step.
type aheadNext int

const (
	aheadStop aheadNext = iota // the step may change the page, or its read is not known: the plan ends before it
	aheadOn                    // the step leaves the page alone, or is read ahead
	aheadLast                  // the step is a block entered: the plan ends with it
)

// plan adds step t to a.
func (a *readAhead) plan(r *runner, t *step.Step) aheadNext {
	if t.When != nil {
		return aheadStop
	}
	next := aheadOn
	switch {
	case t.Spec.LeavesPage:
	case t.Spec.Reads != nil:
		spec, ok := r.readOf(t)
		if !ok {
			return aheadStop
		}
		a.next = append(a.next, t)
		a.specs = append(a.specs, spec)
	case t.Spec.Enters != nil:
		for _, u := range t.Spec.Enters(t) {
			if a.plan(r, u) != aheadOn {
				break
			}
		}
		next = aheadLast
	default:
		return aheadStop
	}
	a.covered[t] = true
	return next
}

// readOf is the read extract step s would make now (bound now: a set
// between may change it, which the step then sees).
func (r *runner) readOf(s *step.Step) (selector.ExtractSpec, bool) {
	bound, err := s.Bind(r.scope)
	if err != nil {
		return selector.ExtractSpec{}, false
	}
	spec, ok := s.Spec.Reads(r, bound)
	if !ok {
		return spec, false
	}
	spec, err = r.resolveSpec(spec)
	return spec, err == nil
}

// resolveSpec names the targets of spec's target parameters (Extract, and
// what is read ahead for it: the two must compare equal).
func (r *runner) resolveSpec(spec selector.ExtractSpec) (selector.ExtractSpec, error) {
	var err error
	if spec.From, err = r.targetName(spec.From); err != nil {
		return spec, err
	}
	if len(spec.Fields) == 0 {
		return spec, nil
	}
	fields := make([]selector.FieldSpec, len(spec.Fields))
	copy(fields, spec.Fields)
	for i := range fields {
		if fields[i].Target, err = r.targetName(fields[i].Target); err != nil {
			return spec, err
		}
	}
	spec.Fields = fields
	return spec, nil
}

// owning is the read ahead the running step makes, nil when it makes none.
func (r *runner) owning() *readAhead {
	if a := r.ahead; a != nil && a.owner >= 0 && r.active == a.steps[a.owner] {
		return a
	}
	return nil
}

// Arrive runs wait, which reads ahead the extracts steps start with as the
// next page arrives; the next runSteps of steps uses them (step.Arriving).
func (r *runner) Arrive(ctx context.Context, steps []*step.Step, wait func(rd *selector.Reads) error) error {
	r.arrived = nil
	var a *readAhead
	if len(steps) > 0 {
		a = r.planAfter(steps, -1)
	}
	var page *rod.Page
	var rd *selector.Reads
	if a != nil {
		var err error
		if page, err = r.Page(ctx); err != nil {
			return err
		}
		rd = r.c.set.Selectors.PlanReads(page, a.specs)
	}
	if err := wait(rd); err != nil || rd == nil {
		return err
	}
	r.keep(ctx, a, page, rd.Results())
	r.arrived = a
	return nil
}

// keep notes what the owner read ahead, in the document page shows.
func (r *runner) keep(ctx context.Context, a *readAhead, page *rod.Page, got []*selector.Extracted) {
	copy(a.got, got)
	a.doc, a.known = selector.DocumentMark(ctx, page)
	if r.current >= 0 {
		r.c.mu.Lock()
		a.path = r.c.steps[r.current].Path
		r.c.mu.Unlock()
	}
}

// readBefore is what a step before read ahead for the running extract
// step, when it asks for the same read (spec) and the page shows the
// document it was read in; nil otherwise.
func (r *runner) readBefore(ctx context.Context, page *rod.Page, spec selector.ExtractSpec) *selector.Extracted {
	a := r.ahead
	if a == nil || !a.known {
		return nil
	}
	for i, s := range a.next {
		if s != r.active || a.got[i] == nil {
			continue
		}
		ex := a.got[i]
		a.got[i] = nil // read once
		if !reflect.DeepEqual(spec, a.specs[i]) {
			return nil
		}
		if doc, ok := selector.DocumentMark(ctx, page); !ok || doc != a.doc {
			return nil
		}
		if r.current >= 0 {
			r.c.updateStep(r.current, func(sr *store.StepRecord) { sr.ReadWith = a.path })
		}
		return ex
	}
	return nil
}

// extract reads spec, and with it what the running step reads ahead.
func (r *runner) extract(ctx context.Context, page *rod.Page, spec selector.ExtractSpec) (*selector.Extracted, error) {
	a := r.owning()
	if a == nil {
		return r.c.set.Selectors.Extract(ctx, page, spec)
	}
	ex, got, err := r.c.set.Selectors.ExtractAhead(ctx, page, spec, a.specs)
	if err == nil {
		r.keep(ctx, a, page, got)
	}
	return ex, err
}
