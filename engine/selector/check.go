package selector

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/go-rod/rod"
	"github.com/toolwright/toolwright/engine/errs"
)

// Health statuses of `toolwright selectors check`.
const (
	StatusPrimary   = "primary"   // the primary locator matched
	StatusFallback  = "fallback"  // only a fallback matched: the primary is broken
	StatusAmbiguous = "ambiguous" // a one-element target matched several elements
	StatusNotFound  = "not_found" // no locator matched
)

// Health is the check result of one target on one page.
type Health struct {
	Name     string `json:"name"`
	Status   string `json:"status"`
	Locator  int    `json:"locator"`            // the locator that matched: 0 primary, N fallback N
	Strategy string `json:"strategy,omitempty"` // its strategy
	Count    int    `json:"count"`              // the elements it matched
	Hidden   bool   `json:"hidden,omitempty"`   // they are all hidden
	Message  string `json:"message"`
}

// checkSettle is how long Check gives a page to settle: until then a target
// whose primary locator does not match yet is tried again.
var checkSettle = 1500 * time.Millisecond

// Check reports, for each named target (every target when names is empty),
// which of its locators matches on page now. It waits at most a short while
// in all (for content rendered late), not a full timeout per target.
// Targets with `within` are checked inside the first match of their parent.
// A one-element target matched by several elements is ambiguous, even by a
// fallback (the message says so).
func Check(ctx context.Context, page *rod.Page, m *Map, names []string) []Health {
	if len(names) == 0 {
		names = m.Names()
	}
	c := &checker{ctx: ctx, page: page, m: m, settle: time.Now().Add(checkSettle), parents: map[string]parentResult{}, frames: map[string]scopeResult{}}
	out := make([]Health, 0, len(names))
	for _, name := range names {
		out = append(out, c.check(name))
	}
	return out
}

// AllPrimary reports whether every target resolved by its primary locator.
func AllPrimary(hs []Health) bool {
	for _, h := range hs {
		if h.Status != StatusPrimary {
			return false
		}
	}
	return true
}

// FormatHealth prints one aligned line per target: status, name, detail.
func FormatHealth(w io.Writer, hs []Health) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, h := range hs {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", h.Status, h.Name, h.Message)
	}
	return tw.Flush()
}

type parentResult struct {
	el  *rod.Element
	msg string
}

type scopeResult struct {
	sc  scope
	msg string // why there is no scope
}

type checker struct {
	ctx     context.Context
	page    *rod.Page
	m       *Map
	settle  time.Time
	parents map[string]parentResult
	frames  map[string]scopeResult
}

func (c *checker) check(name string) Health {
	h := Health{Name: name, Status: StatusNotFound}
	t, ok := c.m.Lookup(name)
	if !ok {
		h.Message = fmt.Sprintf("unknown target %q", name)
		return h
	}
	sr := c.scope(t, "")
	if sr.msg != "" {
		h.Message = sr.msg
		return h
	}
	hits := c.probe(t, sr.sc, func(hits []*hit) bool { return hits[0] != nil })
	var hiddenFields []string
	for i, ht := range hits {
		if ht == nil {
			continue
		}
		if i > 0 && ht.hidden && c.hiddenInputs(sr.sc, ht) {
			// A fallback that finds only <input type=hidden> (a token, a
			// form's state) says nothing of the primary: no one sees it.
			hiddenFields = append(hiddenFields, fmt.Sprintf("fallback %d %s matched only hidden input fields (type=hidden), not counted", i, t.Locators[i].Describe()))
			continue
		}
		loc := t.Locators[i]
		h.Locator, h.Strategy, h.Count, h.Hidden = i, loc.Strategy, ht.count, ht.hidden
		matched := fmt.Sprintf("%s matched %s", loc.Describe(), elements(ht.count, ht.hidden))
		if i > 0 {
			matched = fmt.Sprintf("fallback %d %s; primary %s is broken: fix it", i, matched, t.Locators[0].Describe())
		}
		switch {
		case !t.Many && ht.count > 1:
			h.Status = StatusAmbiguous
			h.Message = matched + "; the first is used"
		case i > 0:
			h.Status = StatusFallback
			h.Message = matched
		default:
			h.Status = StatusPrimary
			h.Message = matched
		}
		if t.Frame != "" {
			h.Message += " in frame " + t.Frame
		}
		return h
	}
	var ds []string
	for _, l := range t.Locators {
		ds = append(ds, l.Describe())
	}
	h.Message = "tried " + strings.Join(ds, ", ")
	if len(hiddenFields) > 0 {
		h.Message += "; " + strings.Join(hiddenFields, "; ")
	}
	if t.Frame != "" {
		h.Message += " in frame " + t.Frame
	}
	if c.ctx.Err() != nil {
		h.Message = "check stopped: " + c.ctx.Err().Error()
	}
	return h
}

// hiddenInputs reports whether what h matched is <input type=hidden>.
func (c *checker) hiddenInputs(sc scope, h *hit) bool {
	if len(h.objs) == 0 {
		return false
	}
	p := sc.page.Context(c.ctx)
	for _, o := range h.objs {
		el, err := p.ElementFromObject(o)
		if err != nil {
			return false
		}
		res, err := el.Eval(`() => this instanceof HTMLInputElement && this.type === "hidden"`)
		if err != nil || !res.Value.Bool() {
			return false
		}
	}
	return true
}

// scope is where t is searched: inside its within parent's first match, in
// its frame's document (frame, when set, is inherited from a child), or in
// the page.
func (c *checker) scope(t *Target, frame string) scopeResult {
	if t.Frame != "" {
		frame = t.Frame
	}
	if t.Within != "" {
		pr := c.parent(t.Within, frame)
		if pr.el == nil {
			return scopeResult{msg: pr.msg}
		}
		return scopeResult{sc: scope{page: pr.el.Page(), elCtx: pr.el.GetContext(), this: pr.el.Object, within: true}}
	}
	if frame == "" {
		return scopeResult{sc: scope{page: c.page.Context(c.ctx), elCtx: c.page.GetContext()}}
	}
	if fr, ok := c.frames[frame]; ok {
		return fr
	}
	fr := scopeResult{}
	pr := c.parent(frame, "")
	if pr.el == nil {
		fr.msg = fmt.Sprintf("frame %s not found", frame)
	} else if sc, err := enterFrame(c.ctx, pr.el); err != nil {
		fr.msg = fmt.Sprintf("frame %s has no document to search: %v", frame, errs.As(err).Message)
	} else {
		fr.sc = sc
	}
	c.frames[frame] = fr
	return fr
}

// parent resolves the first match of a `within` parent (or a frame), by any
// locator, searched in frame when it has no frame of its own.
func (c *checker) parent(name, frame string) parentResult {
	key := name + "\x00" + frame
	if pr, ok := c.parents[key]; ok {
		return pr
	}
	pr := parentResult{}
	t, ok := c.m.Lookup(name)
	if !ok {
		pr.msg = fmt.Sprintf("parent %q is unknown", name)
		c.parents[key] = pr
		return pr
	}
	sr := c.scope(t, frame)
	if sr.msg != "" {
		pr.msg = sr.msg
		c.parents[key] = pr
		return pr
	}
	hits := c.probe(t, sr.sc, func(hits []*hit) bool {
		for _, h := range hits {
			if h != nil {
				return true
			}
		}
		return false
	})
	for _, h := range hits {
		if h == nil {
			continue
		}
		if m, err := h.match(sr.sc.page.Context(c.ctx), sr.sc.elCtx); err == nil {
			pr.el = m.Element()
		}
		break
	}
	if pr.el == nil {
		pr.msg = fmt.Sprintf("parent %s not found", name)
	}
	c.parents[key] = pr
	return pr
}

// probe tries every locator of t once, again and again until done says the
// result is good enough or the settle time has passed (always at least once).
func (c *checker) probe(t *Target, sc scope, done func([]*hit) bool) []*hit {
	sc.page = sc.page.Context(c.ctx)
	for {
		hits := make([]*hit, len(t.Locators))
		for i, loc := range t.Locators {
			hits[i], _ = find(sc, loc, t.Many, Options{})
		}
		if done(hits) || !time.Now().Before(c.settle) || c.ctx.Err() != nil {
			return hits
		}
		timer := time.NewTimer(DefaultPoll)
		select {
		case <-c.ctx.Done():
		case <-timer.C:
		}
		timer.Stop()
	}
}

func elements(n int, hidden bool) string {
	s := "1 element"
	if n != 1 {
		s = fmt.Sprintf("%d elements", n)
	}
	if hidden {
		s += " (hidden)"
	}
	return s
}
