package kinds

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/go-rod/rod"
	"github.com/toolwright/toolwright/engine/backoff"
	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/step"
	"github.com/toolwright/toolwright/engine/tmpl"
)

func init() {
	step.Register(&step.Spec{
		Kind:     "paginate",
		Synonyms: []string{"next_page", "pages"},
		Doc: "Run steps on each result page, clicking next between pages, at most max_pages pages. " +
			"It checks that the page really changed after next (a new URL, or the first match of the " +
			"list the steps read going stale), reads it once it arrived (a new document parsed to its end; " +
			"a list changed in place once the requests the page began since the click ended and the list's " +
			"rows, or the whole DOM, stood still), stops when next is disabled or stays missing (two looks 250 ms apart), and marks the " +
			"lists it filled truncated when it stopped at max_pages while a next page existed.",
		Scope: func(_ *step.Step, sc tmpl.Scope) tmpl.Scope {
			return sc.InLoop(loopPage)
		},
		Fields: []step.Field{
			{Name: "next", Type: step.Target, Required: true, Doc: "the next-page control"},
			{Name: "max_pages", Type: step.Bound, Required: true, Doc: "at most this many pages: a number up to limits.max_loop or ${{ params.X }} with a declared max"},
			{Name: "steps", Type: step.Steps, Required: true, Doc: "the steps for one page (loop.page is 1-based)"},
		},
		Example: "paginate: {next: acme.catalog.next_page, max_pages: \"${{ params.max_pages }}\", steps: [{extract: {from: acme.catalog.rows, list: true, into: rows, append: true}}]}",
		// The first page's steps run at once, on the page as it is.
		Enters: func(s *step.Step) []*step.Step { return s.Steps("steps") },
		Run:    runPaginate,
	})
}

// loopPage is the field paginate adds to loop.*: the 1-based page number.
const loopPage = "page"

func runPaginate(ctx context.Context, x step.Exec, s *step.Step) error {
	n, err := step.Need[step.Nesting](x, s)
	if err != nil {
		return err
	}
	lists, err := step.Need[step.Lists](x, s)
	if err != nil {
		return err
	}
	max, err := x.BoundOf(s.Bound("max_pages"))
	if err != nil {
		return err
	}
	next := s.Str("next")
	marker := listMarker(x, s.Steps("steps"))
	touched := map[string]bool{}
	for page := 1; ; page++ {
		f := &step.Frame{Index: page - 1, Loop: map[string]any{loopPage: page}, Touched: touched}
		if err := n.RunSteps(ctx, s.Steps("steps"), f); err != nil {
			return err
		}
		if page >= max {
			// Is there a next page? Then the lists were cut short.
			more, err := hasNext(ctx, x, next)
			if err != nil || !more {
				return err
			}
			for name := range touched {
				lists.MarkTruncated(name)
			}
			return nil
		}
		last, err := turnAnswered(ctx, x, s, next, marker)
		if err != nil || last {
			return err
		}
	}
}

// turnAnswered turns the page once the workflow's handlers ran (x's
// step.Handling), as they run before any acting step: a dialog a handler
// answers would otherwise cover next, and the call fail target_covered
// into the same dialog at every retry. A click refused by its target (a
// dialog come after that look) has them answer and is made once more, as
// an acting step is.
func turnAnswered(ctx context.Context, x step.Exec, s *step.Step, next, marker string) (last bool, err error) {
	h, ok := x.(step.Handling)
	if !ok {
		return turn(ctx, x, s, next, marker)
	}
	if _, err := h.Handle(ctx, s); err != nil {
		return false, err
	}
	last, err = turn(ctx, x, s, next, marker)
	if err == nil || ctx.Err() != nil || !strings.HasPrefix(errs.CodeOf(err), "target_") {
		return last, err
	}
	ran, herr := h.Handle(ctx, s)
	switch {
	case herr != nil:
		return false, herr
	case !ran:
		return last, err
	}
	return turn(ctx, x, s, next, marker)
}

// turn clicks next and waits for the next page to arrive; last reports
// that there was none (next disabled, or missing).
func turn(ctx context.Context, x step.Exec, s *step.Step, next, marker string) (last bool, err error) {
	page, err := x.Page(ctx)
	if err != nil {
		return false, err
	}
	before := pageState{mark: selector.RequestMark(page)}
	// Next found, enabled and readied for the click, and the marker's
	// first match kept on the page with its text read, in one round
	// trip when the page can find both on its own.
	rd, err := ready(ctx, x, next, selector.ReadyOptions{ClassDisabled: true, Mark: true, MarkTarget: marker, Arm: true})
	if err != nil {
		return false, err
	}
	if rd != nil {
		if rd.Disabled {
			return true, nil
		}
		before.follow = true // the ready call armed the page's follow hook
		if rd.Marked {
			before.url, before.text, before.list = rd.URL, rd.Text, rd.List()
		} else if err := before.snapshot(ctx, x, marker); err != nil {
			return false, err
		}
		// The click, then the wait for the next page, which first asks
		// whether the press went to next (one request for both).
		return false, rd.ClickThen(ctx, func(ctx context.Context) error {
			return arrive(ctx, x, s.Steps("steps"), before, true)
		})
	}
	el, err := nextControl(ctx, x, next)
	if err != nil || el == nil {
		return el == nil && err == nil, err
	}
	if err := before.snapshot(ctx, x, marker); err != nil {
		return false, err
	}
	before.follow = selector.Arm(ctx, page)
	if err := selector.Click(ctx, el, selector.ActOptions{Name: next}); err != nil {
		return false, err
	}
	return false, arrive(ctx, x, s.Steps("steps"), before, false)
}

// hasNext reports whether the next control is there and enabled.
func hasNext(ctx context.Context, x step.Exec, next string) (bool, error) {
	rd, err := ready(ctx, x, next, selector.ReadyOptions{ClassDisabled: true, Probe: true})
	if err != nil || rd != nil {
		return rd != nil && !rd.Disabled, err
	}
	el, err := nextControl(ctx, x, next)
	return el != nil, err
}

// nextGone is how long the next control must stay missing for the page
// to be the last: a pager drawn a moment after its list (or a role
// locator's accessibility tree not yet updated) is not the end.
const nextGone = 250 * time.Millisecond

// nextControl finds the next control: nil when it is disabled, or missing
// at two looks nextGone apart (there is no next page).
func nextControl(ctx context.Context, x step.Exec, next string) (*rod.Element, error) {
	m, err := x.Find(ctx, next, step.FindOpt{Visible: true, Once: true})
	if errs.CodeOf(err) == errs.TargetNotFound {
		if !backoff.Wait(ctx, nextGone) {
			return nil, ctx.Err()
		}
		m, err = x.Find(ctx, next, step.FindOpt{Visible: true, Once: true})
	}
	if errs.CodeOf(err) == errs.TargetNotFound {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	el := m.Elements[0].Context(ctx)
	if off, err := disabled(el); err != nil || off {
		return nil, err
	}
	return el, nil
}

// listMarker picks the first many target the page steps read: its first
// match going stale shows the page changed.
func listMarker(x step.Exec, steps []*step.Step) string {
	var marker string
	step.Walk(steps, func(s *step.Step) {
		for _, f := range s.Spec.Fields {
			if marker != "" || (f.Type != step.Target) {
				continue
			}
			if t := x.Target(s.Str(f.Name)); t != nil && t.Many {
				marker = t.Name
			}
		}
	})
	return marker
}

// disabled reports a disabled control: the disabled property, aria-disabled,
// or a "disabled" class.
func disabled(el *rod.Element) (bool, error) {
	res, err := el.Eval(`function () {
		return !!this.disabled || this.getAttribute('aria-disabled') === 'true' || this.classList.contains('disabled');
	}`)
	if err != nil {
		return false, err
	}
	return res.Value.Bool(), nil
}

type pageState struct {
	url  string
	el   *rod.Element // the marker's first match; nil: the one Ready kept on the page
	text string
	mark uint64        // the page's requests before next was clicked (selector.RequestMark)
	list selector.List // the marked list (Ready.List), watched as the next page arrives
	// follow: the page's follow hook was armed for the click on next
	// (selector.Before.Follow)
	follow bool
}

// snapshot finds the marker's first match (or the body), what going stale
// shows the page changed, and reads its text and the page's URL: the way
// when Ready could not keep the marker on the page. The marker's list is
// watched as the next page arrives when the page can find it alone.
func (st *pageState) snapshot(ctx context.Context, x step.Exec, marker string) error {
	page, err := x.Page(ctx)
	if err != nil {
		return err
	}
	if r, ok := x.(step.Readying); ok {
		st.list = r.List(marker)
	}
	if marker != "" {
		if m, err := x.Find(ctx, marker, step.FindOpt{Once: true, First: true, Quiet: true}); err == nil {
			st.el = m.Elements[0]
		}
	}
	if st.el == nil {
		if st.el, err = page.Element("body"); err != nil {
			return err
		}
	}
	info, err := page.Info()
	if err != nil {
		return err
	}
	st.url = info.URL
	res, err := st.el.Context(ctx).Eval(`function () { return this.innerText }`)
	if err == nil {
		st.text = res.Value.Str()
	}
	return nil
}

// arrive waits for the next page of steps (waitChanged), reading ahead
// the extracts steps start with when x offers it (step.Arriving).
// With pressed, the click on next was just pressed and not checked yet:
// the wait's first look asks what the press came to (selector.Before).
func arrive(ctx context.Context, x step.Exec, steps []*step.Step, before pageState, pressed bool) error {
	if a, ok := x.(step.Arriving); ok {
		return a.Arrive(ctx, steps, func(rd *selector.Reads) error { return waitChanged(ctx, x, before, pressed, rd) })
	}
	return waitChanged(ctx, x, before, pressed, nil)
}

// waitChanged waits until the URL changed (a new document or pushState) or
// the marker element went stale (detached, or its content replaced), then
// until the next page has arrived, reading rd as it does.
func waitChanged(ctx context.Context, x step.Exec, before pageState, pressed bool, rd *selector.Reads) error {
	page, err := x.Page(ctx)
	if err != nil {
		return err
	}
	start := time.Now()
	el := before.el
	if el != nil {
		el = el.Context(ctx)
	}
	ch, err := selector.WaitChanged(ctx, page, el, selector.Before{URL: before.url, Text: before.text, Pressed: pressed, List: before.list, Follow: before.follow}, rd)
	var mp *selector.MissedPress
	if errors.As(err, &mp) {
		return err // the click is made again (Ready.ClickThen)
	}
	if err != nil {
		return timeoutErr(ctx, err, errs.NavigationFailed, "the page did not change within %s after clicking next", selector.Allowed(ctx, start))
	}
	// Then the next page whole: its document parsed to the end, or the
	// changed list settled (see selector.WaitArrived).
	notURL := ""
	if ch.ByURL {
		notURL = before.url
	}
	err = selector.WaitArrived(ctx, page, ch, notURL, before.mark, rd)
	return timeoutErr(ctx, err, errs.NavigationFailed, "the next page did not finish loading within %s after clicking next", selector.Allowed(ctx, start))
}
