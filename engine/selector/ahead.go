package selector

import (
	"context"

	"github.com/go-rod/rod"
	"github.com/ysmood/gson"
)

// Reading ahead. A wait or an extract is often followed by extracts that
// only read the page (a wait for the rows, then the rows, the heading,
// the date). On a page busy with its own scripts right after load each
// request waits its turn behind them, so those extracts are read in the
// same request as the look before them, in the same task of the page: what
// the next steps would have read a moment later, as it was when the
// condition held. Only extracts the page answers alone (a target of the
// page's own document, without a within parent, a frame or a role locator)
// are read ahead; the caller reads any other the usual way.

// ahead is the extracts a look reads ahead.
type ahead struct {
	specs  []ExtractSpec
	from   []*Target
	fields [][]*Target
	reqs   []map[string]any // page.js's requests of the extracts read
	idx    []int            // the index in specs of each request
	// texts is page.js's answer, a text (or null) per request, of the
	// look that ended the wait; nil when there is none.
	texts []gson.JSON
}

// planAhead is the look that reads the extracts of specs the page answers
// alone, nil when there is none.
func (m *Map) planAhead(specs []ExtractSpec) *ahead {
	a := &ahead{specs: specs, from: make([]*Target, len(specs)), fields: make([][]*Target, len(specs))}
	for i := range specs {
		spec := &a.specs[i]
		if spec.Attr == "" {
			spec.Attr = "text"
		}
		from, ok := m.Lookup(spec.From)
		if !ok || spec.Parent != nil || from.Frame != "" || from.Within != "" || needsAX(from) {
			continue
		}
		fields := make([]*Target, len(spec.Fields))
		for j, f := range spec.Fields {
			if fields[j], ok = m.Lookup(f.Target); !ok {
				break
			}
		}
		if !ok || anyNeedsAX(fields) {
			continue
		}
		a.from[i], a.fields[i] = from, fields
		a.reqs = append(a.reqs, extractReq(*spec, from, fields, false))
		a.idx = append(a.idx, i)
	}
	if len(a.reqs) == 0 {
		return nil
	}
	return a
}

// results are the extracts read by the requests from on, one per spec:
// nil for one not read, or whose target was not there, or a single value
// read empty: a single value's step waits for its target, and the step of
// a list or of an empty value reads it itself, a moment later, as it did
// before it was read ahead (rows a script draws, or a total it fills in,
// just after what the wait saw).
func (a *ahead) results(from int) []*Extracted {
	out := make([]*Extracted, len(a.specs))
	for k := from; k < len(a.idx); k++ {
		i := a.idx[k]
		if ex, found := a.read(k); found && (a.specs[i].List || !emptyValue(ex)) {
			out[i] = ex
		}
	}
	return out
}

// read is what request k read, and whether its target was there; nil when
// the look did not answer for it.
func (a *ahead) read(k int) (*Extracted, bool) {
	if k >= len(a.texts) || a.texts[k].Nil() {
		return nil, false
	}
	i := a.idx[k]
	ex, found, err := extractResult(a.texts[k], a.specs[i], a.from[i], a.fields[i])
	if err != nil {
		return nil, false
	}
	return ex, found
}

// ExtractAhead is Extract of spec, with the extracts of next that the page
// answers alone read in the same request (see above): their results, nil
// where one was not read.
func (m *Map) ExtractAhead(ctx context.Context, page *rod.Page, spec ExtractSpec, next []ExtractSpec) (*Extracted, []*Extracted, error) {
	a := m.planAhead(append([]ExtractSpec{spec}, next...))
	if a == nil || a.idx[0] != 0 || len(a.idx) < 2 || page.IsIframe() {
		ex, err := m.Extract(ctx, page, spec)
		return ex, make([]*Extracted, len(next)), err
	}
	res, err := evalOp(page.Context(ctx), nil, "reads", map[string]any{"reads": a.reqs}, true, false)
	if err == nil {
		a.texts = res.Value.Arr()
	}
	// Its own read is what Extract reads in one request: a list that
	// matched nothing and an empty value stand (read now, as asked).
	ex, found := a.read(0)
	if ex == nil || !found && !spec.List {
		// Its target is not there yet (or the look failed): it waits as
		// Extract does, and what the look read of the others is older
		// than that.
		ex, err := m.Extract(ctx, page, spec)
		return ex, make([]*Extracted, len(next)), err
	}
	return ex, a.results(1)[1:], nil // its own (request 0) read just above
}

// WaitAhead is Wait, and once a condition held, the extracts of next that
// the page answers alone read in the request whose look saw it hold: their
// results, nil where one was not read (or a condition answered from Go
// ended the wait).
func (m *Map) WaitAhead(ctx context.Context, page *rod.Page, conds []Cond, next []ExtractSpec) (int, []*Extracted, error) {
	var a *ahead
	if !page.IsIframe() {
		a = m.planAhead(next)
	}
	i, err := m.wait(ctx, page, conds, false, a)
	if err != nil || a == nil {
		return i, make([]*Extracted, len(next)), err
	}
	return i, a.results(0), nil
}

// Reads is what a wait for a page to arrive (WaitChanged, WaitArrived)
// reads ahead for the extracts the steps after it start with, in the
// request that saw the page arrive.
type Reads struct{ a *ahead }

// PlanReads plans the reads of the extracts of specs that the page
// answers alone; nil when there is none (or page is a frame's).
func (m *Map) PlanReads(page *rod.Page, specs []ExtractSpec) *Reads {
	if page.IsIframe() {
		return nil
	}
	a := m.planAhead(specs)
	if a == nil {
		return nil
	}
	return &Reads{a: a}
}

// reqs are page.js's requests of r (nil r: none).
func (r *Reads) reqs() []map[string]any {
	if r == nil {
		return nil
	}
	return r.a.reqs
}

// answered notes the texts of the look that ended the wait (nil: the page
// that answered is not the one that arrived, so nothing was read).
func (r *Reads) answered(texts gson.JSON, ok bool) {
	if r == nil {
		return
	}
	r.a.texts = nil
	if ok {
		r.a.texts = texts.Arr()
	}
}

// Results are what was read, one per spec: nil where one was not read (see
// ahead.results).
func (r *Reads) Results() []*Extracted {
	return r.a.results(0)
}

// emptyValue reports a single value read as nothing: an empty text, or
// null (an attribute that is not there).
func emptyValue(ex *Extracted) bool {
	if len(ex.Items) == 0 {
		return true
	}
	switch v := ex.Items[0].(type) {
	case nil:
		return true
	case string:
		return v == ""
	}
	return false
}
