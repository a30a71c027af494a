package run

import (
	"context"
	"errors"
	"maps"
	"slices"
	"time"

	"github.com/go-rod/rod"
	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/repair"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/store"
)

// Bounds of the fingerprint work a step does. Reading a fingerprint is one
// request, paid once per target per repair.Refresh; a repair is looked
// for only after a target was not found, and bounded so a failing call
// answers soon.
const (
	printBudget  = time.Second
	repairBudget = 3 * time.Second
)

// fingerprint keeps the fingerprint of target name's element when it is
// due (repair.Keeper.Due): el is the element found, or nil to find it
// once more (a click readied it without a handle). Failing to read or keep
// it never fails the step: it is logged.
func (r *runner) fingerprint(ctx context.Context, name string, page *rod.Page, el *rod.Element) {
	k := r.c.e.prints
	if !k.Due(name) {
		return
	}
	t := r.Target(name)
	if t == nil {
		return
	}
	pctx, cancel := context.WithTimeout(ctx, printBudget)
	defer cancel()
	if el == nil {
		m, err := r.c.set.Selectors.Resolve(pctx, page, name, selector.Options{Once: true, First: true})
		if err != nil {
			return // gone already (the click's own effect): next time
		}
		el = m.Element()
	}
	p, err := repair.Read(pctx, el, t.Many)
	if err == nil {
		sctx, scancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
		err = k.Keep(sctx, name, selector.PagePath(pctx, page), p)
		scancel()
	}
	if err != nil {
		r.c.e.log.Debug("fingerprint not kept", "target", name, "err", r.c.e.redactor.Redact(err.Error()))
	}
}

// proposeRepair notes in step record rec, whose attempt failed with err, a
// repair proposal for its target when the target was not found: once per
// target and call (a retry's record gets the same proposal). It returns
// the target's name and its proposal's locators when one was proposed
// (nil otherwise).
func (r *runner) proposeRepair(ctx context.Context, rec int, err error) (string, []selector.Locator) {
	var fe *failure
	if r.c.e.prints == nil || errs.CodeOf(err) != errs.TargetNotFound || errors.As(err, &fe) {
		return "", nil
	}
	r.c.mu.Lock()
	name := r.c.steps[rec].Target
	fr, done := r.c.repairs[name]
	r.c.mu.Unlock()
	t := r.Target(name)
	if t == nil || t.Within != "" || t.Frame != "" {
		return "", nil // a row field or a frame's target: not proposed yet
	}
	if !done {
		fr = r.findRepair(ctx, name)
		r.c.mu.Lock()
		if r.c.repairs == nil {
			r.c.repairs = map[string]*repairSought{}
		}
		r.c.repairs[name] = fr
		r.c.mu.Unlock()
	}
	r.c.updateStep(rec, func(sr *store.StepRecord) { sr.Repair = fr.rec })
	return name, fr.locs
}

// repairSought is a repair looked for in a call: as the trace records it, and the
// locators it proposes (none unless rec.Status is proposed).
type repairSought struct {
	rec  *store.Repair
	locs []selector.Locator
}

// findRepair looks in the page for target name's element by its last
// fingerprint (repair.Propose).
func (r *runner) findRepair(ctx context.Context, name string) *repairSought {
	rec, p := r.lookForRepair(ctx, name)
	f := &repairSought{rec: rec}
	if p != nil && p.Status == repair.Proposed {
		f.locs = p.Locators
	}
	return f
}

// lookForRepair is findRepair's look: the record, and the proposal when
// one was made.
func (r *runner) lookForRepair(ctx context.Context, name string) (_ *store.Repair, p *repair.Proposal) {
	start := time.Now()
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), repairBudget)
	defer cancel()
	out := &store.Repair{Status: repair.None}
	defer func() { out.DurationMS = time.Since(start).Milliseconds() }()
	last, fp, err := r.c.e.prints.Last(rctx, name)
	if errors.Is(err, store.ErrNotFound) {
		out.Message = "no fingerprint: the target has not resolved since fingerprints were kept"
		return out, nil
	}
	page, perr := r.Page(rctx)
	if err == nil {
		err = perr
	}
	if err == nil {
		p, err = repair.Propose(rctx, page, name, last, slices.Collect(maps.Values(r.c.e.cfg.SecretValues())))
	}
	if err != nil {
		out.Message = "no repair looked for: " + err.Error()
		return out, nil
	}
	out.Status, out.Locators, out.YAML, out.Agreed = p.Status, p.Described(), p.YAML(), p.Agreed
	out.Message = p.Message + " (fingerprint seen " + fp.Seen.UTC().Format(time.RFC3339) + " on " + fp.Page + ")"
	return out, p
}
