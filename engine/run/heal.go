package run

import (
	"context"
	"maps"
	"slices"

	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/policy"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/step"
	"github.com/toolwright/toolwright/engine/store"
	"github.com/toolwright/toolwright/engine/workflow"
)

// heals are the repair proposals a call's read steps go on with (config
// repair: use): the call's workflow set with each healed target's
// proposed locators first (its old ones after them), used only while a
// step that may use them runs (mayHeal); every other step sees the
// selector map as written.
type heals struct {
	base   *workflow.Set // the set as the call began
	healed *workflow.Set // base with the healed targets' locators
	order  []string      // the healed targets, in the order they were healed
	on     bool          // the running attempt sees healed (useRepairs)
}

// names are the targets healed in the call, for the envelope (nil: none).
func (h *heals) names() []string {
	if h == nil || len(h.order) == 0 {
		return nil
	}
	return slices.Clone(h.order)
}

// add heals target name with locs in a copy of the set: the shared set,
// and every other call's, stay as they are.
func (h *heals) add(name string, locs []selector.Locator) {
	from := h.healed
	if from == nil {
		from = h.base
	}
	sel := *from.Selectors
	sel.Targets = maps.Clone(from.Selectors.Targets)
	t := *sel.Targets[name]
	t.Locators = append(slices.Clone(locs), t.Locators...)
	sel.Targets[name] = &t
	set := *from
	set.Selectors = &sel
	h.healed = &set
	h.order = append(h.order, name)
}

// heals reports whether target name was healed in this call.
func (h *heals) has(name string) bool { return h != nil && slices.Contains(h.order, name) }

// mayHeal reports whether step s may go on with an unreviewed repair: only
// with repair: use, in a read tool, and a step of read risk that neither
// acts on its target nor navigates (a wait, an extract, an assert): what
// it does is look. A write tool, or a step that acts (a click, a fill, a
// step on an effect: write target), never does.
func (r *runner) mayHeal(s *step.Step) bool {
	if r.c.e.cfg.Repair != config.RepairUse || r.c.w.Writes() || container(s) {
		return false
	}
	return s.Spec.Risk == policy.RiskRead && !s.Spec.Acts && !s.Spec.Navigates && !s.Spec.Sends && !s.Spec.Submits
}

// useRepairs, as step s begins an attempt, lets it see the targets healed
// earlier in the call when it may (mayHeal); healed ends it.
func (r *runner) useRepairs(s *step.Step) {
	if h := r.c.heals; h != nil && h.healed != nil && r.mayHeal(s) {
		r.c.set, h.on = h.healed, true
	}
}

// healed ends an attempt of step s (the n-th, its trace record rec) that
// ended with err: the selector map as written is back, a broken target's
// repair is looked for (proposeRepair), and when s may go on with it
// (mayHeal) and one element was proposed, s runs once more with the
// proposed locators: the envelope and the trace say so. Its error is the
// step's.
func (r *runner) healed(ctx context.Context, s *step.Step, n, rec int, err error) error {
	if h := r.c.heals; h != nil && h.on {
		r.c.set, h.on = h.base, false
		// A step that found a healed target says so in its record.
		r.c.mu.Lock()
		fr := r.c.repairs[r.c.steps[rec].Target]
		r.c.mu.Unlock()
		if fr != nil && fr.rec.Used && err == nil {
			r.c.updateStep(rec, func(sr *store.StepRecord) { sr.Repair = fr.rec })
		}
	}
	name, locs := r.proposeRepair(ctx, rec, err)
	if len(locs) == 0 || !r.mayHeal(s) || r.c.heals.has(name) || ctx.Err() != nil {
		return err
	}
	if r.c.heals == nil {
		r.c.heals = &heals{base: r.c.set}
	}
	r.c.heals.add(name, locs)
	r.c.mu.Lock()
	fr := r.c.repairs[name]
	r.c.mu.Unlock()
	used := *fr.rec
	used.Used = true
	fr.rec = &used
	r.c.e.log.Info("a read step goes on with an unreviewed repair (repair: use)", "tool", r.c.w.Name, "target", name, "locator", r.c.e.redactor.Redact(used.Locators[0]))
	// The next attempt's record gets the used proposal (above, or
	// proposeRepair's when it fails).
	return r.attempt(ctx, s, n+1)
}
