package selcheck

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/go-rod/rod"
	"github.com/toolwright/toolwright/engine/htmlview"
	"github.com/toolwright/toolwright/engine/repair"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/store"
)

// printCeiling bounds reading one target's fingerprint, or looking for one
// broken target's repair: a ceiling for a loaded machine, never a wait.
const printCeiling = 15 * time.Second

// repairs keeps the fingerprint of every target of hs that resolved on
// the page at path, and proposes a repair for every one that did not (a
// target read inside a row or a frame aside: not proposed yet).
func repairs(ctx context.Context, tab *rod.Page, hs []selector.Health, path string, o Options) []repair.Proposal {
	var out []repair.Proposal
	for _, h := range hs {
		t, ok := o.Map.Lookup(h.Name)
		if !ok {
			continue
		}
		switch {
		case h.Status == selector.StatusPrimary || h.Status == selector.StatusFallback:
			keepPrint(ctx, tab, t, path, o)
		case h.Status == selector.StatusNotFound && t.Within == "" && t.Frame == "":
			if p := propose(ctx, tab, h.Name, o); p != nil {
				out = append(out, *p)
			}
		}
	}
	return out
}

// keepPrint reads and keeps t's fingerprint; what fails is left for the
// next check (the check itself reported the target).
func keepPrint(ctx context.Context, tab *rod.Page, t *selector.Target, path string, o Options) {
	pctx, cancel := context.WithTimeout(ctx, printCeiling)
	defer cancel()
	m, err := o.Map.Resolve(pctx, tab, t.Name, selector.Options{Once: true, First: true})
	if err != nil || m.Hidden {
		return
	}
	if p, err := repair.Read(pctx, m.Element(), t.Many); err == nil {
		_ = o.Prints.Keep(pctx, t.Name, path, p)
	}
}

// propose is the repair proposal for the broken target name, from its
// last fingerprint; nil when it never had one.
func propose(ctx context.Context, tab *rod.Page, name string, o Options) *repair.Proposal {
	pctx, cancel := context.WithTimeout(ctx, printCeiling)
	defer cancel()
	last, fp, err := o.Prints.Last(pctx, name)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	var p *repair.Proposal
	if err == nil {
		p, err = repair.Propose(pctx, tab, name, last, o.Secrets)
	}
	if err != nil {
		return &repair.Proposal{Target: name, Status: repair.None, Message: o.Redactor.Redact("no repair looked for: " + err.Error())}
	}
	p.Message = o.Redactor.Redact(fmt.Sprintf("%s (fingerprint seen %s on %s)", p.Message, fp.Seen.UTC().Format(time.RFC3339), fp.Page))
	return p
}

// writeRepairs prints a page's repair proposals as `selectors check`'s
// text: a "repair" line per broken target, and a proposal's entry to
// paste after review.
func writeRepairs(w io.Writer, ps []repair.Proposal) {
	for _, p := range ps {
		msg := p.Message
		if !strings.HasPrefix(msg, p.Status+":") {
			msg = p.Status + ": " + msg
		}
		fmt.Fprintf(w, "repair\t%s\t%s\n", p.Target, msg)
		if y := p.YAML(); y != "" {
			for _, l := range splitLines(y) {
				fmt.Fprintf(w, "\t| %s\n", l)
			}
		}
	}
}

// proposedFor is the proposal among rs that found an element for the
// target h did not find, or nil.
func proposedFor(rs []repair.Proposal, h selector.Health) *repair.Proposal {
	if h.Status != selector.StatusNotFound {
		return nil
	}
	for i := range rs {
		if rs[i].Target == h.Name && rs[i].Status == repair.Proposed && len(rs[i].Locators) > 0 {
			return &rs[i]
		}
	}
	return nil
}

// proposedBoxes boxes p's element in the report (rt is its target's row):
// found by the proposed locators as the page is laid out now, drawn as
// proposed, the row saying what was proposed and why.
func proposedBoxes(ctx context.Context, tab *rod.Page, p *repair.Proposal, rt *htmlview.ReportTarget) ([]htmlview.Box, error) {
	rt.Proposal = p.Locators[0].Describe()
	rt.Message = strings.TrimSpace(rt.Message + " Repair proposed: " + strings.Join(p.Described(), ", then ") + " (" + strings.Join(p.Agreed, ", ") + " agreed with its last fingerprint).")
	one := &selector.Map{Targets: map[string]*selector.Target{p.Target: {Name: p.Target, Locators: p.Locators}}}
	return boxes(ctx, tab, one, selector.Health{Name: p.Target, Status: selector.StatusPrimary, Count: 1})
}
