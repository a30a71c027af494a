package selector

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/js"
	"github.com/go-rod/rod/lib/proto"
	"github.com/toolwright/toolwright/engine/errs"
)

// DefaultPoll is the pause between two attempts of Resolve.
const DefaultPoll = 100 * time.Millisecond

// Options tune Resolve.
type Options struct {
	// Visible waits until a match is visible. Without it, when no match is
	// visible, present but hidden elements are returned (Match.Hidden).
	Visible bool
	// Poll is the pause between attempts; 0 means DefaultPoll.
	Poll time.Duration
	// Once tries every locator one time, without waiting (asserts, probes
	// such as "is there a next page", fields read inside a row).
	Once bool
}

// Match is a resolved target.
type Match struct {
	// Elements holds one element, or for a many target every match in
	// document order. They are bound to the page's own context: use
	// el.Context(ctx) for calls under a step's deadline.
	Elements []*rod.Element
	// Strategy is the strategy of the locator that matched ("css", "role", ...).
	Strategy string
	// Locator is the index of that locator: 0 the primary, N fallback N.
	Locator int
	// Count is how many elements the locator matched (after hidden ones were
	// skipped and only the innermost of nested matches kept).
	Count int
	// Ambiguous is set when a one-element target matched several elements;
	// Elements then holds the first in document order.
	Ambiguous bool
	// Hidden is set when only hidden elements matched (never with Options.Visible).
	Hidden bool
}

// Element is the first matched element.
func (m *Match) Element() *rod.Element {
	if m == nil || len(m.Elements) == 0 {
		return nil
	}
	return m.Elements[0]
}

// Describe names the locator that matched, for traces: "css" for the
// primary, "fallback 2 (text)" for a fallback.
func (m *Match) Describe() string {
	if m.Locator == 0 {
		return m.Strategy
	}
	return fmt.Sprintf("fallback %d (%s)", m.Locator, m.Strategy)
}

// Resolve finds target t on page, inside parent when parent is not nil. It
// tries the primary locator, then each fallback, and polls until one matches
// or ctx is done: the step's timeout lives in ctx, so ctx should carry a
// deadline. When it passes, the error has code target_not_found; when ctx is
// cancelled, code cancelled.
func Resolve(ctx context.Context, page *rod.Page, parent *rod.Element, t *Target, opt Options) (*Match, error) {
	if t == nil || len(t.Locators) == 0 {
		return nil, errs.New(errs.Internal, "resolve: a target without locators")
	}
	if page == nil {
		if parent == nil {
			return nil, errs.New(errs.Internal, "resolve %s: no page", t.Name)
		}
		page = parent.Page()
	}
	poll := opt.Poll
	if poll <= 0 {
		poll = DefaultPoll
	}
	start := time.Now()
	p := page.Context(ctx)
	var root *proto.RuntimeRemoteObject
	if parent != nil {
		root = parent.Object
	}
	broken := make([]bool, len(t.Locators)) // locators that can never match (bad css, xpath, regex)
	var cause error
	for {
		usable := false
		for i, loc := range t.Locators {
			if broken[i] {
				continue
			}
			usable = true
			h, err := find(p, root, loc, t.Many, opt.Visible)
			if ctx.Err() != nil {
				break
			}
			if err != nil {
				cause = err
				var ee *rod.EvalError
				if errors.As(err, &ee) {
					broken[i] = true
				}
				continue
			}
			if h == nil {
				continue
			}
			m, err := h.match(p, page.GetContext())
			if err != nil {
				cause = err
				continue
			}
			m.Strategy, m.Locator = loc.Strategy, i
			return m, nil
		}
		if ctx.Err() != nil || !usable || opt.Once {
			break
		}
		timer := time.NewTimer(poll)
		select {
		case <-ctx.Done():
		case <-timer.C:
		}
		timer.Stop()
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return nil, errs.Wrap(errs.Cancelled, ctx.Err(), "finding target %s was cancelled", targetName(t))
	}
	if cause == nil {
		cause = ctx.Err()
	}
	waited := time.Since(start)
	if dl, ok := ctx.Deadline(); ok && ctx.Err() != nil && dl.After(start) {
		waited = dl.Sub(start) // the step's timeout, as written
	}
	within := ""
	if parent != nil && t.Within != "" {
		within = " within " + t.Within
	}
	after := " after " + roundDuration(waited)
	if opt.Once && ctx.Err() == nil {
		after = ""
	}
	return nil, errs.Wrap(errs.TargetNotFound, cause, "target %s%s not found on %s%s (tried %s)",
		targetName(t), within, pagePath(ctx, page), after, strings.Join(tried(t), ", "))
}

// Resolve finds the named target. A target with `within` is searched inside
// the first match of its parent (resolved the same way, under the same ctx).
func (m *Map) Resolve(ctx context.Context, page *rod.Page, name string, opt Options) (*Match, error) {
	t, ok := m.Lookup(name)
	if !ok {
		return nil, errs.New(errs.Internal, "unknown target %q", name)
	}
	var parent *rod.Element
	if t.Within != "" {
		pm, err := m.Resolve(ctx, page, t.Within, opt)
		if err != nil {
			return nil, err
		}
		parent = pm.Element()
	}
	return Resolve(ctx, page, parent, t, opt)
}

func targetName(t *Target) string {
	if t.Name != "" {
		return t.Name
	}
	return t.Locators[0].Describe()
}

// tried lists the strategies of t's locators in order, once each.
func tried(t *Target) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range t.Locators {
		if !seen[l.Strategy] {
			seen[l.Strategy] = true
			out = append(out, l.Strategy)
		}
	}
	return out
}

// pagePath is the page's URL path, without host or query, for messages
// written to the agent.
func pagePath(ctx context.Context, page *rod.Page) string {
	c, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
	defer cancel()
	info, err := page.Context(c).Info()
	if err != nil {
		return "the page"
	}
	u, err := url.Parse(info.URL)
	if err != nil || u.Opaque != "" || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "file") {
		if i := strings.IndexAny(info.URL, "?#"); i >= 0 {
			return info.URL[:i]
		}
		return info.URL
	}
	if u.Path == "" {
		return "/"
	}
	return u.Path
}

// roundDuration keeps two or three significant digits: a 300ms timeout that
// started a little late still reads "300ms", 5s reads "5s".
func roundDuration(d time.Duration) string {
	switch {
	case d >= time.Second:
		d = d.Round(100 * time.Millisecond)
	case d >= 100*time.Millisecond:
		d = d.Round(10 * time.Millisecond)
	default:
		d = d.Round(time.Millisecond)
	}
	return d.String()
}

// hit is what one locator found in one attempt: the elements to return (one
// for a one-element target), how many matched, and whether they are hidden.
type hit struct {
	objs   []*proto.RuntimeRemoteObject
	count  int
	hidden bool
}

func (h *hit) match(p *rod.Page, elCtx context.Context) (*Match, error) {
	m := &Match{Count: h.count, Hidden: h.hidden}
	for _, o := range h.objs {
		el, err := p.ElementFromObject(o)
		if err != nil {
			return nil, err
		}
		m.Elements = append(m.Elements, el.Context(elCtx))
	}
	m.Ambiguous = len(m.Elements) == 1 && h.count > 1
	return m, nil
}

// find runs one locator once. It returns nil, nil when nothing matched.
func find(p *rod.Page, root *proto.RuntimeRemoteObject, loc Locator, many, visibleOnly bool) (*hit, error) {
	kind := loc.Strategy
	var nodes []any
	if kind == Role {
		group := fmt.Sprintf("toolwright-selector-%d", groupSeq.Add(1))
		defer func() { _ = proto.RuntimeReleaseObjectGroup{ObjectGroup: group}.Call(p) }()
		var err error
		if nodes, err = axNodes(p, root, loc, group); err != nil || len(nodes) == 0 {
			return nil, err
		}
		kind = "nodes"
	}
	var src any // nil: match the whole text
	flags := ""
	if loc.ValueRE != nil && (kind == Text || kind == Label) {
		src, flags = jsRegexp(loc.ValueRE.String())
	}
	var rootArg any // an untyped nil is JSON null
	if root != nil {
		rootArg = root
	}
	// Nested matches are one thing on screen for text, label and role; for
	// css and xpath, a many target keeps them all.
	innermost := !many || loc.Strategy == Text || loc.Strategy == Label || loc.Strategy == Role
	args := append([]any{findJS, kind, loc.Value, src, flags, rootArg, many, visibleOnly, innermost}, nodes...)
	res, err := p.Evaluate(&rod.EvalOptions{JS: `function (f, ...args) { return f.apply(this, args) }`, JSArgs: args})
	if err != nil {
		return nil, err
	}
	switch {
	case res.ObjectID == "" || res.Subtype == proto.RuntimeRemoteObjectSubtypeNull:
		return nil, nil
	case res.Subtype == proto.RuntimeRemoteObjectSubtypeNode: // the usual case, in one round trip
		return &hit{objs: []*proto.RuntimeRemoteObject{res}, count: 1}, nil
	}
	defer func() { _ = p.Release(res) }()
	props, err := proto.RuntimeGetProperties{ObjectID: res.ObjectID, OwnProperties: true}.Call(p)
	if err != nil {
		return nil, err
	}
	h := &hit{}
	type indexed struct {
		i int
		o *proto.RuntimeRemoteObject
	}
	var els []indexed
	for _, pr := range props.Result {
		if pr.Value == nil {
			continue
		}
		switch pr.Name {
		case "count":
			h.count = pr.Value.Value.Int()
		case "hidden":
			h.hidden = pr.Value.Value.Bool()
		default:
			if i, err := strconv.Atoi(pr.Name); err == nil && pr.Value.Subtype == proto.RuntimeRemoteObjectSubtypeNode {
				els = append(els, indexed{i, pr.Value})
			}
		}
	}
	if len(els) == 0 {
		return nil, nil
	}
	sort.Slice(els, func(a, b int) bool { return els[a].i < els[b].i })
	for _, e := range els {
		h.objs = append(h.objs, e.o)
	}
	return h, nil
}

var groupSeq atomic.Int64

// axNodes asks the accessibility tree (under root, or the whole document)
// for nodes of the locator's role whose accessible name matches, and
// returns them as remote objects in group.
func axNodes(p *rod.Page, root *proto.RuntimeRemoteObject, loc Locator, group string) ([]any, error) {
	var rootID proto.RuntimeRemoteObjectID
	if root != nil {
		rootID = root.ObjectID
	} else {
		doc, err := proto.RuntimeEvaluate{Expression: "document", ObjectGroup: group}.Call(p)
		if err != nil {
			return nil, err
		}
		if doc.ExceptionDetails != nil {
			return nil, &rod.EvalError{RuntimeExceptionDetails: doc.ExceptionDetails}
		}
		rootID = doc.Result.ObjectID
	}
	ax, err := proto.AccessibilityQueryAXTree{ObjectID: rootID, Role: loc.Value}.Call(p)
	if err != nil {
		return nil, err
	}
	var out []any
	for _, n := range ax.Nodes {
		if n.Ignored || n.BackendDOMNodeID == 0 {
			continue
		}
		if loc.Name != "" {
			name := ""
			if n.Name != nil {
				name = n.Name.Value.Str()
			}
			if !MatchText(loc.Name, loc.NameRE, name) {
				continue
			}
		}
		r, err := proto.DOMResolveNode{BackendNodeID: n.BackendDOMNodeID, ObjectGroup: group}.Call(p)
		if err != nil {
			return nil, err
		}
		out = append(out, r.Object)
	}
	return out, nil
}

// jsRegexp turns the source of a Go regular expression into a JavaScript
// one with its flags. RE2 and JavaScript share the syntax of everyday
// patterns; this maps the differences that are easy to map: leading flag
// groups such as (?i), (?P<name>, \A and \z.
func jsRegexp(src string) (string, string) {
	flags := ""
	if strings.HasPrefix(src, "(?") {
		if end := strings.IndexByte(src, ')'); end > 2 && strings.Trim(src[2:end], "ims") == "" {
			for _, f := range src[2:end] {
				if !strings.ContainsRune(flags, f) {
					flags += string(f)
				}
			}
			src = src[end+1:]
		}
	}
	var b strings.Builder
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '\\' && i+1 < len(src):
			switch src[i+1] {
			case 'A':
				b.WriteString(`(?<![\s\S])`)
			case 'z':
				b.WriteString(`(?![\s\S])`)
			default:
				b.WriteByte(c)
				b.WriteByte(src[i+1])
			}
			i++
		case strings.HasPrefix(src[i:], "(?P<"):
			b.WriteString("(?<")
			i += 3
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), flags
}

// findJS runs one locator inside the page in one round trip. It returns null
// when nothing matched; the element itself when a one-element target matched
// exactly one visible element; else an array of elements (one for a
// one-element target) with .count (all the matches) and .hidden (no match is
// visible).
var findJS = &js.Function{
	Name:       "toolwrightSelectorFind",
	Definition: findSource,
}

const findSource = `function (kind, value, src, flags, root, many, visibleOnly, innermost, ...nodes) {
  if (root && !root.isConnected) return null;
  const doc = document;
  const norm = (s) => String(s == null ? "" : s).replace(/\s+/g, " ").trim();
  let test;
  if (src !== null) {
    const re = new RegExp(src, flags);
    test = (s) => re.test(norm(s));
  } else {
    const want = norm(value);
    test = (s) => norm(s) === want;
  }
  const inScope = (el) => !root || (el !== root && root.contains(el));
  const visible = (el) => {
    if (!el.isConnected) return false;
    const r = el.getBoundingClientRect();
    if (!(r.width || r.height)) return false;
    if (el.checkVisibility) return el.checkVisibility({ visibilityProperty: true, checkVisibilityCSS: true });
    const s = getComputedStyle(el);
    return s.display !== "none" && s.visibility !== "hidden";
  };
  const skip = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "HEAD", "TITLE", "META", "LINK", "BR"]);
  const ownText = (el) => {
    if (el instanceof HTMLInputElement) {
      return ["button", "submit", "reset"].includes(el.type) ? el.value : null;
    }
    return el instanceof HTMLElement ? el.innerText : el.textContent;
  };
  const labelText = (l) => {
    if (!l.querySelector("select, textarea, button, datalist, output")) return l.innerText;
    const c = l.cloneNode(true);
    for (const x of c.querySelectorAll("select, textarea, button, datalist, output")) x.remove();
    return c.textContent;
  };
  let cands = [];
  let sortNeeded = false;
  switch (kind) {
    case "css":
      cands = Array.from((root || doc).querySelectorAll(value));
      break;
    case "xpath": {
      const r = doc.evaluate(value, root || doc, null, XPathResult.ORDERED_NODE_SNAPSHOT_TYPE, null);
      for (let i = 0; i < r.snapshotLength; i++) {
        const n = r.snapshotItem(i);
        cands.push(n.nodeType === 1 ? n : n.nodeType === 2 ? n.ownerElement : n.parentElement);
      }
      break;
    }
    case "text": {
      // A cheap test first: the text, without white space and case, must
      // occur in textContent, which holds all of innerText but line breaks
      // and text-transform.
      const compact = src === null ? norm(value).replace(/ /g, "").toLowerCase() : null;
      for (const el of (root || doc.body || doc.documentElement).querySelectorAll("*")) {
        if (skip.has(el.tagName)) continue;
        if (compact !== null && !(el instanceof HTMLInputElement) &&
            !(el.textContent || "").replace(/\s+/g, "").toLowerCase().includes(compact)) continue;
        const t = ownText(el);
        if (t != null && test(t)) cands.push(el);
      }
      break;
    }
    case "label":
      for (const l of doc.querySelectorAll("label")) {
        if (l.control && test(labelText(l))) cands.push(l.control);
      }
      for (const el of doc.querySelectorAll("[aria-label]")) {
        if (test(el.getAttribute("aria-label"))) cands.push(el);
      }
      for (const el of doc.querySelectorAll("[aria-labelledby]")) {
        const ids = el.getAttribute("aria-labelledby").trim().split(/\s+/);
        const t = ids.map((id) => { const r = doc.getElementById(id); return r ? r.textContent : ""; }).join(" ");
        if (test(t)) cands.push(el);
      }
      sortNeeded = true;
      break;
    case "nodes":
      cands = nodes;
      sortNeeded = true;
      break;
    default:
      throw new Error("unknown strategy " + kind);
  }
  const seen = new Set();
  cands = cands.filter((el) => el && el.nodeType === 1 && inScope(el) && !seen.has(el) && seen.add(el));
  if (sortNeeded) {
    cands.sort((a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
  }
  let els = cands.filter(visible);
  let hidden = false;
  if (els.length === 0) {
    if (visibleOnly || cands.length === 0) return null;
    els = cands;
    hidden = true;
  }
  // In document order an element that holds another match is directly
  // followed by one of them.
  if (innermost) els = els.filter((el, i) => !(i + 1 < els.length && el.contains(els[i + 1])));
  if (!many && els.length === 1 && !hidden) return els[0];
  const out = many ? els : els.slice(0, 1);
  out.count = els.length;
  out.hidden = hidden;
  return out;
}`
