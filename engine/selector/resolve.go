package selector

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/proto"
	"github.com/toolwright/toolwright/engine/backoff"
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
	// Seen, with Visible: a match made transparent (opacity 0, its own or
	// an ancestor's) is not visible: what a person sees (waits).
	Seen bool
	// First returns only the first visible match of a many target, as the
	// element itself (two requests, whatever the number of matches; Count
	// is then 1). Hidden matches come back as usual.
	First bool
	// objects: the match keeps the remote objects only (Match.objs), no
	// rod elements (a frame target: one request less).
	objects bool
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

	objs []*proto.RuntimeRemoteObject // with Options.objects
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
// tries the primary locator, then each fallback, and waits until one matches
// or ctx is done: the step's timeout lives in ctx, so ctx should carry a
// deadline. When it passes, the error has code target_not_found; when ctx is
// cancelled, code cancelled. Waiting is a promise in the page that settles
// once the task that made a change is over (see page.js); the poll is only the
// fallback for what the page cannot see itself (accessibility-tree roles).
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
	sc := scope{page: page, elCtx: page.GetContext()}
	if parent != nil {
		sc = scope{page: parent.Page(), elCtx: parent.GetContext(), this: parent.Object, within: true}
	}
	return resolveScoped(ctx, sc, t, opt, parent != nil && t.Within != "")
}

func resolveScoped(ctx context.Context, sc scope, t *Target, opt Options, inParent bool) (*Match, error) {
	poll := opt.Poll
	if poll <= 0 {
		poll = DefaultPoll
	}
	start := time.Now()
	elCtx := sc.elCtx
	if elCtx == nil {
		elCtx = sc.page.GetContext()
	}
	sc.page = sc.page.Context(ctx)
	broken := make([]bool, len(t.Locators)) // locators that can never match (bad css, xpath, regex)
	var cause error
	for {
		if m := tryLocators(ctx, sc, elCtx, t, opt, broken, &cause); m != nil {
			return m, nil
		}
		usable := false
		for _, b := range broken {
			usable = usable || !b
		}
		if ctx.Err() != nil || !usable || opt.Once {
			break
		}
		if err := waitAppear(ctx, sc, t, broken, opt.Visible, poll); err != nil && ctx.Err() == nil {
			cause = err
			if !backoff.Wait(ctx, poll) {
				break
			}
		}
	}
	return nil, notFound(ctx, sc, t, opt, inParent, start, cause)
}

// tryLocators looks once for t by each of its locators in order (skipping
// broken ones, and marking those that turn out broken) and returns the
// first match, or nil with the last error in cause.
func tryLocators(ctx context.Context, sc scope, elCtx context.Context, t *Target, opt Options, broken []bool, cause *error) *Match {
	for i, loc := range t.Locators {
		if broken[i] {
			continue
		}
		h, err := find(sc, loc, t.Many, opt)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			*cause = err
			var ee *rod.EvalError
			if errors.As(err, &ee) {
				broken[i] = true
			}
			continue
		}
		if h == nil {
			continue
		}
		if opt.First && len(h.objs) > 1 {
			h.objs = h.objs[:1]
		}
		if opt.objects {
			return &Match{objs: h.objs, Count: h.count, Hidden: h.hidden, Strategy: loc.Strategy, Locator: i}
		}
		m, err := h.match(sc.page, elCtx)
		if err != nil {
			*cause = err
			continue
		}
		m.Strategy, m.Locator = loc.Strategy, i
		m.Ambiguous = m.Ambiguous && !t.Many
		return m
	}
	return nil
}

// notFound is the error of a target that was not found (cancelled, when
// ctx was), saying where it was looked for, for how long and how.
func notFound(ctx context.Context, sc scope, t *Target, opt Options, inParent bool, start time.Time, cause error) error {
	if errors.Is(ctx.Err(), context.Canceled) {
		return errs.Wrap(errs.Cancelled, ctx.Err(), "finding target %s was cancelled", targetName(t))
	}
	if cause == nil {
		cause = ctx.Err()
	}
	within := ""
	if inParent {
		within = " within " + t.Within
	}
	after := " after " + Allowed(ctx, start)
	if opt.Once && ctx.Err() == nil {
		after = ""
	}
	return errs.Wrap(errs.TargetNotFound, cause, "target %s%s not found on %s%s (tried %s)",
		targetName(t), within, PagePath(ctx, sc.page), after, strings.Join(tried(t), ", "))
}

// waitAppear waits, in the page, until one of t's usable locators (those the
// page can run itself) matches, or a short while when some locator needs
// the accessibility tree. It returns when something may have changed; the
// caller looks again.
func waitAppear(ctx context.Context, sc scope, t *Target, broken []bool, visibleOnly bool, poll time.Duration) error {
	var locs []jsLoc
	needsPoll := false
	for i, l := range t.Locators {
		if broken[i] {
			continue
		}
		if l.Strategy == Role {
			needsPoll = true
			continue
		}
		locs = append(locs, locJS(l))
	}
	slice := maxWaitSlice
	if needsPoll {
		slice = poll
	}
	if len(locs) == 0 {
		if !backoff.Wait(ctx, slice) {
			return ctx.Err()
		}
		return nil
	}
	kind := "present"
	if visibleOnly {
		kind = "visible"
	}
	_, err := waitConds(ctx, sc, []map[string]any{{"kind": kind, "locs": locs, "many": t.Many, "within": sc.within}}, slice)
	return err
}

// maxWaitSlice bounds one promise in the page, so a wait notices a
// navigation (which drops the promise) soon even without an event.
const maxWaitSlice = 2 * time.Second

// waitConds runs page.js's wait: a promise that settles with the index of the
// first condition that holds, or -1 after at most slice (and never past ctx).
func waitConds(ctx context.Context, sc scope, conds []map[string]any, slice time.Duration) (int, error) {
	return waitCondsPoll(ctx, sc, conds, slice, 0) // page.js polls every 50ms by default
}

// Resolve finds the named target. A target with `within` is searched inside
// the first match of its parent (resolved the same way, under the same ctx);
// a target with `frame` inside that iframe's document.
func (m *Map) Resolve(ctx context.Context, page *rod.Page, name string, opt Options) (*Match, error) {
	return m.ResolveIn(ctx, page, nil, name, opt)
}

// ResolveIn is Resolve inside parent when parent is not nil (a field read
// inside each match of its `within` target).
func (m *Map) ResolveIn(ctx context.Context, page *rod.Page, parent *rod.Element, name string, opt Options) (*Match, error) {
	t, ok := m.Lookup(name)
	if !ok {
		return nil, errs.New(errs.Internal, "unknown target %q", name)
	}
	if parent != nil {
		return Resolve(ctx, page, parent, t, opt)
	}
	// A target in an out-of-process frame found there before is looked for
	// in that frame's page first (its request cost is then a light-DOM
	// target's); a miss takes the full way through the iframe element.
	key := frameKey{page.TargetID, t.Frame}
	if t.Frame != "" && t.Within == "" {
		if fp, ok := lastFrame.Load(key); ok && fp.GetContext().Err() == nil {
			once := opt
			once.Once = true
			if mt, err := resolveScoped(ctx, scope{page: fp, elCtx: fp.GetContext()}, t, once, false); err == nil {
				return mt, nil
			}
			lastFrame.Delete(key)
		}
	}
	sc, err := m.scopeOf(ctx, page, t, "", opt)
	if err != nil {
		return nil, err
	}
	mt, err := resolveScoped(ctx, sc, t, opt, sc.within)
	if err == nil && t.Frame != "" && t.Within == "" && sc.this == nil && sc.page.TargetID != page.TargetID {
		lastFrame.Store(key, sc.page)
	}
	return mt, err
}

// frameKey names the frame target of a page.
type frameKey struct {
	page  proto.TargetTargetID
	frame string
}

// lastFrame remembers the out-of-process frame page a frame target led to.
var lastFrame = &pageCache{}

// pageCache is a small map of pages that forgets everything when it grows
// past a bound (pages of closed environments are never looked up again).
type pageCache struct {
	mu sync.Mutex
	m  map[any]*rod.Page
}

const pageCacheMax = 512

func (c *pageCache) Load(k any) (*rod.Page, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.m[k]
	return p, ok
}

func (c *pageCache) Store(k any, p *rod.Page) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= pageCacheMax {
		c.m = map[any]*rod.Page{}
	}
	c.m[k] = p
}

func (c *pageCache) Delete(k any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, k)
}

// scopeOf is where t is searched: inside the first match of its within
// parent, in the document of its frame, or in the page. frame, when not
// empty, is the frame a child inherits (a parent without its own frame is
// searched in its child's frame).
func (m *Map) scopeOf(ctx context.Context, page *rod.Page, t *Target, frame string, opt Options) (scope, error) {
	if t.Frame != "" {
		frame = t.Frame
	}
	if t.Within != "" {
		pt, ok := m.Lookup(t.Within)
		if !ok {
			return scope{}, errs.New(errs.Internal, "unknown target %q", t.Within)
		}
		psc, err := m.scopeOf(ctx, page, pt, frame, opt)
		if err != nil {
			return scope{}, err
		}
		popt := opt
		pm, err := resolveScoped(ctx, psc, pt, popt, psc.within)
		if err != nil {
			return scope{}, err
		}
		el := pm.Element()
		return scope{page: el.Page(), elCtx: el.GetContext(), this: el.Object, within: true}, nil
	}
	if frame == "" {
		return scope{page: page, elCtx: page.GetContext()}, nil
	}
	return m.frameScope(ctx, page, frame, t, opt)
}

// InFrame reports whether the named target is searched inside an iframe
// (its own frame, or one of its within parents').
func (m *Map) InFrame(name string) bool {
	for i := 0; i <= len(m.names); i++ {
		t, ok := m.Lookup(name)
		if !ok {
			return false
		}
		if t.Frame != "" {
			return true
		}
		if t.Within == "" {
			return false
		}
		name = t.Within
	}
	return false
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

// PagePath is the page's URL path, without host or query, for messages
// written to the agent ("the page" when it cannot be read within a second).
func PagePath(ctx context.Context, page *rod.Page) string {
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

//go:embed page.js
var pageJSSource string

// pageJS is page.js as it is sent with every call: without its comment
// lines and indentation (a third of its bytes, and as much of the time the
// browser takes to read it on each call). page.js writes no multi-line
// string or template, so no line's meaning changes.
var pageJS = compactJS(pageJSSource)

// noWindowYet reports the browser's answer to a call on a page whose
// current document has no window yet.
func noWindowYet(err error) bool {
	return errors.Is(err, cdp.ErrCtxNotFound) || strings.Contains(err.Error(), "Cannot find default execution context")
}

// pageJSApply begins topCall's expression: page.js applied to the window
// and the arguments that follow.
var pageJSApply = "(" + strings.Trim(pageJS, "\t\n\v\f\r ;") + ").apply(window, "

// topCall is the expression that runs op of page.js with req on the
// window of the page's current document, for a Runtime.evaluate.
func topCall(op string, req any) (string, error) {
	a, err := topArgs(op, req)
	return pageJSApply + a + ")", err
}

func topArgs(op string, req any) (string, error) {
	a, err := json.Marshal([]any{op, req})
	if err != nil {
		return "", errs.Wrap(errs.Internal, err, "page.js %s: %v", op, err)
	}
	return string(a), nil
}

// page.js is also put in every document of an environment's page before
// the page's own scripts run (DocumentScript, with the follow hook): a
// call then names it instead of sending its text, which the browser would
// read and compile again on each call (a page.js call took 4–8 ms against
// 1 ms for a small expression, on the fixture action's 30 calls). The
// property is the script's own (its name holds a hash of page.js, so a
// document a build before made keeps no stale copy in reach) and can be
// neither written nor redefined, so a page's scripts, which run after it,
// cannot swap it. A document without it (a popup's page, the first blank
// document, a frame's isolated world) is sent the whole text once, which
// defines it there for the calls after.
var (
	pageKey = func() string {
		h := sha256.Sum256([]byte(pageJS))
		return "__toolwright_page_" + hex.EncodeToString(h[:6])
	}()
	// pageMissing is the error a call naming page.js meets where it is not.
	pageMissing  = "toolwright: page.js is not in this document"
	pageNamed    = "(window." + pageKey + ` || (() => { throw new Error("` + pageMissing + `"); })()).apply(window, `
	pageNamedFor = "function (...args) { const f = window." + pageKey + `; if (typeof f !== "function") throw new Error("` + pageMissing + `"); return f.apply(this, args); }`
	// pageKept defines page.js in a document that lacked it, from a call
	// that sent it whole: the document's later calls name it.
	pageKept = `try { Object.defineProperty(window, "` + pageKey + `", { value: f, writable: false, configurable: false, enumerable: false }); } catch (e) { /* defined meanwhile */ } `
	// pageKeeping is page.js sent whole to a document without it, for a
	// Runtime.evaluate (pageKeeping + args + ")})()") and a
	// Runtime.callFunctionOn (pageKeepingFor).
	pageKeeping    = "(() => { const f = (" + strings.Trim(pageJS, "\t\n\v\f\r ;") + "); " + pageKept + "return f.apply(window, "
	pageKeepingFor = "function (...args) { const f = (" + strings.Trim(pageJS, "\t\n\v\f\r ;") + "); " + pageKept + "return f.apply(this, args); }"
)

// DocumentScript defines page.js in a document, before its scripts.
func DocumentScript() string {
	return `(() => { if (Object.prototype.hasOwnProperty.call(window, "` + pageKey + `")) return; ` +
		`Object.defineProperty(window, "` + pageKey + `", { value: (` + strings.Trim(pageJS, "\t\n\v\f\r ;") + `), writable: false, configurable: false, enumerable: false }); })()`
}

// notInDocument reports the answer of a call naming page.js in a document
// that does not have it.
func notInDocument(d *proto.RuntimeExceptionDetails) bool {
	return d != nil && d.Exception != nil && strings.Contains(d.Exception.Description, pageMissing)
}

// PageJS is page.js as it is sent: a function (op, req, ...nodes) whose
// this is the scope. engine/record runs its "find" and "extract" inside
// the page at the instant a person acts, with the resolver's own rules.
func PageJS() string { return pageJS }

// compactJS drops the blank and comment-only lines of a script and the
// white space around each line, keeping the line breaks.
func compactJS(src string) string {
	var b strings.Builder
	b.Grow(len(src))
	for _, l := range strings.Split(src, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "//") {
			continue
		}
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// scope is where a locator runs: a page (the top page, or the page of an
// out-of-process frame), and in it the document, an element (this, within
// set), or the document of a same-process iframe (this, frame set).
type scope struct {
	page   *rod.Page
	elCtx  context.Context // what matches are bound to: they outlive the step
	this   *proto.RuntimeRemoteObject
	within bool
	frame  bool
	// pressed: a wait in this scope first asks what a click's press came
	// to (Before.Pressed).
	pressed bool
}

// jsLoc is a Locator as page.js takes it.
type jsLoc struct {
	Kind  string  `json:"kind"`
	Value string  `json:"value"`
	Src   *string `json:"src"`
	Flags string  `json:"flags"`
}

func locJS(l Locator) jsLoc {
	j := jsLoc{Kind: l.Strategy, Value: l.Value}
	if l.ValueRE != nil && (l.Strategy == Text || l.Strategy == Label) {
		src, flags := jsRegexp(l.ValueRE.String())
		j.Src, j.Flags = &src, flags
	}
	return j
}

// evalOp runs one operation of page.js in one request: on this (an
// element, a frame's window) or given nodes, a Runtime.callFunctionOn; on
// the page's own window, a Runtime.evaluate of the call with req written
// in (see evalTop).
func evalOp(p *rod.Page, this *proto.RuntimeRemoteObject, op string, req any, byValue, await bool, nodes ...any) (*proto.RuntimeRemoteObject, error) {
	if this == nil && len(nodes) == 0 && !p.IsIframe() {
		return evalTop(p, op, req, byValue, await)
	}
	args := append([]any{op, req}, nodes...)
	res, err := p.Evaluate(&rod.EvalOptions{JS: pageNamedFor, ThisObj: this, JSArgs: args, ByValue: byValue, AwaitPromise: await})
	var ee *rod.EvalError
	if errors.As(err, &ee) && notInDocument(ee.RuntimeExceptionDetails) {
		return p.Evaluate(&rod.EvalOptions{JS: pageKeepingFor, ThisObj: this, JSArgs: args, ByValue: byValue, AwaitPromise: await})
	}
	return res, err
}

// evalTop runs op on the window of the page's current document with one
// Runtime.evaluate, which needs no handle on that window. A
// Runtime.callFunctionOn does: rod keeps the last document's, so the first
// call on a document a click led to found it gone, asked for the new one,
// then called (three requests where one answers, each waiting behind the
// new document's own scripts). The browser takes the evaluate as fast as
// the call (2.2 against 2.3 ms, medians of 200, page.js's 33 kB read on each).
func evalTop(p *rod.Page, op string, req any, byValue, await bool) (*proto.RuntimeRemoteObject, error) {
	args, err := topArgs(op, req)
	if err != nil {
		return nil, err
	}
	call := proto.RuntimeEvaluate{Expression: pageNamed + args + ")", ReturnByValue: byValue, AwaitPromise: await}
	res, err := call.Call(p)
	// A document between its commit and its window (as rod's call waits
	// for the window it asks for).
	for wait := 10 * time.Millisecond; err != nil && noWindowYet(err); wait = min(2*wait, 500*time.Millisecond) {
		if !backoff.Wait(p.GetContext(), wait) {
			return nil, err
		}
		res, err = call.Call(p)
	}
	if err == nil && notInDocument(res.ExceptionDetails) {
		call.Expression = pageKeeping + args + "); })()"
		res, err = call.Call(p)
	}
	if err != nil {
		return nil, err
	}
	if res.ExceptionDetails != nil {
		return nil, &rod.EvalError{RuntimeExceptionDetails: res.ExceptionDetails}
	}
	return res.Result, nil
}

// find runs one locator once, as opt says (Visible, Seen, First: only its
// first match). It returns nil, nil when nothing matched.
func find(sc scope, loc Locator, many bool, opt Options) (*hit, error) {
	p := sc.page
	var nodes []any
	jl := locJS(loc)
	group := ""
	if loc.Strategy == Role {
		group = fmt.Sprintf("toolwright-selector-%d", groupSeq.Add(1))
		defer func() { _ = proto.RuntimeReleaseObjectGroup{ObjectGroup: group}.Call(p) }()
		var err error
		if nodes, err = axNodes(sc, loc, group); err != nil || len(nodes) == 0 {
			return nil, err
		}
		jl.Kind = "nodes"
	}
	this, frame := sc.this, sc.frame
	if loc.Strategy == Role && this != nil {
		// The accessibility tree's nodes live in their frame's own world;
		// the scope object must too, or the call refuses them.
		// Not in the released group: a call's result joins the group of its
		// this object, and the match must outlive the group.
		var err error
		if this, err = ownWorld(p, this, frame); err != nil || this == nil {
			return nil, err
		}
		defer func(o *proto.RuntimeRemoteObject) { _ = p.Release(o) }(this)
		frame = false
	}
	req := map[string]any{"loc": jl, "many": many, "visibleOnly": opt.Visible, "seen": opt.Visible && opt.Seen, "frame": frame, "first": opt.First}
	res, err := evalOp(p, this, "find", req, false, false, nodes...)
	if err != nil {
		var nf *rod.ObjectNotFoundError
		if errors.As(err, &nf) {
			return nil, nil // the parent is gone: nothing inside it matches
		}
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

// ownWorld returns obj as an object of its node's own frame: for an iframe
// scope (frame set), the document inside it.
func ownWorld(p *rod.Page, obj *proto.RuntimeRemoteObject, frame bool) (*proto.RuntimeRemoteObject, error) {
	node, err := proto.DOMDescribeNode{ObjectID: obj.ObjectID}.Call(p)
	if err != nil {
		return nil, err
	}
	id := node.Node.BackendNodeID
	if frame {
		if node.Node.ContentDocument == nil {
			return nil, nil
		}
		id = node.Node.ContentDocument.BackendNodeID
	}
	r, err := proto.DOMResolveNode{BackendNodeID: id}.Call(p)
	if err != nil {
		return nil, err
	}
	return r.Object, nil
}

// axNodes asks the accessibility tree (under root, or the whole document)
// for nodes of the locator's role whose accessible name matches, and
// returns them as remote objects in group.
func axNodes(sc scope, loc Locator, group string) ([]any, error) {
	p := sc.page
	var rootID proto.RuntimeRemoteObjectID
	switch {
	case sc.this != nil && sc.frame:
		doc, err := proto.RuntimeCallFunctionOn{ObjectID: sc.this.ObjectID, FunctionDeclaration: "function () { return this.contentDocument }", ObjectGroup: group}.Call(p)
		if err != nil {
			return nil, err
		}
		if doc.Result == nil || doc.Result.ObjectID == "" {
			return nil, nil
		}
		rootID = doc.Result.ObjectID
	case sc.this != nil:
		rootID = sc.this.ObjectID
	default:
		// The document, or its root element with the content the page skips
		// rendering (content-visibility) rendered until the tree was read:
		// skipped content is missing from the accessibility tree.
		expr, err := topCall("unskip", nil)
		if err != nil {
			return nil, err
		}
		doc, err := proto.RuntimeEvaluate{Expression: expr, ObjectGroup: group}.Call(p)
		if err != nil {
			return nil, err
		}
		if doc.ExceptionDetails != nil {
			return nil, &rod.EvalError{RuntimeExceptionDetails: doc.ExceptionDetails}
		}
		if c := doc.Result.ClassName; c != "HTMLDocument" && c != "Document" {
			defer func() { _, _ = evalOp(p, nil, "reskip", nil, true, false) }()
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

// frameScope is the document of the iframe that target frame names, for
// child. A same-process frame is reached through the iframe element itself
// (page.js reads its contentDocument); an out-of-process frame (another
// site) through its own target, attached once and cached by rod.
func (m *Map) frameScope(ctx context.Context, page *rod.Page, frame string, child *Target, opt Options) (scope, error) {
	ft, ok := m.Lookup(frame)
	if !ok {
		return scope{}, errs.New(errs.Internal, "unknown target %q", frame)
	}
	fsc, err := m.scopeOf(ctx, page, ft, "", opt)
	if err == nil {
		var fm *Match
		if fm, err = resolveScoped(ctx, fsc, ft, Options{Poll: opt.Poll, Once: opt.Once, objects: true}, fsc.within); err == nil {
			elCtx := fsc.elCtx
			if elCtx == nil {
				elCtx = fsc.page.GetContext()
			}
			return enterFrameObj(ctx, fsc.page, fm.objs[0], elCtx)
		}
	}
	e := errs.As(err)
	if e == nil || e.Code != errs.TargetNotFound {
		return scope{}, err
	}
	msg := strings.TrimPrefix(e.Message, "target "+frame)
	return scope{}, errs.Wrap(errs.TargetNotFound, err, "target %s not found: its frame %s%s", targetName(child), frame, msg)
}

// enterFrame turns an <iframe> element into the scope of its document.
func enterFrame(ctx context.Context, el *rod.Element) (scope, error) {
	return enterFrameObj(ctx, el.Page(), el.Object, el.GetContext())
}

// FrameDocument is where the document of the <iframe> el is read: for a
// same-process frame el itself (a function run on it reads
// this.contentDocument), for an out-of-process one the frame's own page (a
// function run there reads document); iframe is nil then.
func FrameDocument(ctx context.Context, el *rod.Element) (page *rod.Page, iframe *rod.Element, err error) {
	sc, err := enterFrame(ctx, el)
	if err != nil {
		return nil, nil, err
	}
	if sc.this != nil {
		return el.Page(), el, nil
	}
	return sc.page, nil, nil
}

// frames caches the pages of out-of-process frames by frame id (which is
// their target id); rod caches the attached page itself.
var frames = &pageCache{}

// enterFrameObj is enterFrame for the remote object of an <iframe> on page.
// One DOM.describeNode tells a same-process frame (its content document is
// in this page) from an out-of-process one (a target of its own).
func enterFrameObj(ctx context.Context, page *rod.Page, obj *proto.RuntimeRemoteObject, elCtx context.Context) (scope, error) {
	p := page.Context(ctx)
	node, err := proto.DOMDescribeNode{ObjectID: obj.ObjectID}.Call(p)
	if err != nil {
		return scope{}, err
	}
	n := node.Node
	if n == nil || (n.NodeName != "IFRAME" && n.NodeName != "FRAME") {
		name := "nothing"
		if n != nil {
			name = "a <" + strings.ToLower(n.NodeName) + ">"
		}
		return scope{}, errs.New(errs.TargetNotFound, "the frame target is %s, not an <iframe>", name)
	}
	if n.ContentDocument != nil {
		return scope{page: page, elCtx: elCtx, this: obj, frame: true}, nil
	}
	if n.FrameID == "" {
		return scope{}, errs.New(errs.TargetNotFound, "the frame has no document yet")
	}
	if fpage, ok := frames.Load(n.FrameID); ok {
		if fpage.GetContext().Err() == nil {
			parents.Store(fpage.TargetID, page)
			return scope{page: fpage, elCtx: fpage.GetContext()}, nil
		}
		frames.Delete(n.FrameID) // its session ended: attach anew
	}
	fp, err := page.Browser().PageFromTarget(proto.TargetTargetID(n.FrameID))
	if err != nil {
		// Not a target of its own: a cross-origin frame in the same
		// process (a browser without site isolation). rod evaluates in its
		// context.
		el, eerr := p.ElementFromObject(obj)
		if eerr != nil {
			return scope{}, eerr
		}
		fr, ferr := el.Frame()
		if ferr != nil {
			return scope{}, ferr
		}
		return scope{page: fr, elCtx: elCtx}, nil
	}
	frames.Store(n.FrameID, fp)
	parents.Store(fp.TargetID, page)
	return scope{page: fp, elCtx: fp.GetContext()}, nil
}

// parents maps the page of an out-of-process frame (by target id) to the
// page that holds its iframe.
var parents = &pageCache{}

// topPage is the tab p belongs to: p itself, or for the page of an
// out-of-process frame the page of its top document (bound to p's context).
func topPage(p *rod.Page) *rod.Page {
	ctx := p.GetContext()
	for i := 0; i < 16; i++ {
		up, ok := parents.Load(p.TargetID)
		if !ok {
			break
		}
		p = up
	}
	return p.Context(ctx)
}
