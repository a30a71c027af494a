// Package record is `toolwright record` and the drafting half of `serve
// --record`: a person (or an agent) does an action once in a browser
// environment, and out comes a workflow, its selector-map entries and a
// test file, verified by a replay.
//
// The capture (this file) follows every page of the environment: the
// recorded page, the popups it opens and the out-of-process frames of
// each, attached to as they appear. Each gets capture.js in an isolated
// world of its own through Page.addScriptToEvaluateOnNewDocument, before
// its own scripts run, and a binding (Runtime.addBinding) only that world
// sees: the page never sees the recorder, and what the recorder adds (its
// toolbar: a closed shadow root outside <body>) never becomes part of what
// is recorded. Dialogs are read from the Page domain (the person answers
// them); navigations from frameNavigated.
//
// draft.go turns the Recording into files; verify.go replays them.
package record

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/selsuggest"
)

//go:embed capture.js
var captureSource string

//go:embed frame.js
var frameSource string

const (
	world   = "toolwright-record"
	binding = "__twrecSend"
	// callTimeout bounds each CDP request the recorder makes.
	callTimeout = 10 * time.Second
)

var frameJS = strings.NewReplacer("__PAGEJS__", strings.TrimSpace(selector.PageJS()), "/* describe.js */", selsuggest.DescribeJS).Replace(frameSource)

// Element is an element as the capture script read it when the person
// acted: describe.js's reading, its locators verified in the page right
// then, and what the draft needs besides.
type Element struct {
	selsuggest.Element
	Password  bool   `json:"password"`
	MaxLength int    `json:"maxLength"`
	Reuse     string `json:"reuse"` // an existing target that resolves to it
}

// Option is one option of a <select>.
type Option struct {
	Value string `json:"value"`
	Label string `json:"label"`
}

// Spec is what the person marked of a list: the rows and their fields,
// and the next-page control.
type Spec struct {
	Rows *RowsSpec `json:"rows"`
	Next *NextSpec `json:"next"`
}

// RowsSpec is a repeating row and the fields clicked in it.
type RowsSpec struct {
	Locs   []selector.Locator `json:"locs"`
	Count  int                `json:"count"`
	Fields []FieldSpec        `json:"fields"`
}

// FieldSpec is one field of a row.
type FieldSpec struct {
	Name string             `json:"name"`
	Locs []selector.Locator `json:"locs"`
}

// NextSpec is the next-page control (page.js locators).
type NextSpec struct {
	Locs []json.RawMessage `json:"locs"`
}

// Dialog is a dialog the page opened during an action, and how the person
// answered it.
type Dialog struct {
	Type     string `json:"type"`
	Message  string `json:"message"`
	Accepted bool   `json:"accepted"`
	Text     string `json:"text,omitempty"`
}

// Event is one thing the person did or marked.
type Event struct {
	K       string           `json:"k"` // click fill select check press upload submit mark turn finish nav popup popup_closed
	El      *Element         `json:"el"`
	Value   string           `json:"value"`
	Label   string           `json:"label"`
	Options []Option         `json:"options"`
	Checked bool             `json:"checked"`
	Key     string           `json:"key"`
	Files   []string         `json:"files"`
	Method  string           `json:"method"`
	Mode    string           `json:"mode"`
	Spec    *Spec            `json:"spec"`
	Rows    []map[string]any `json:"rows"`
	URL     string           `json:"url"`
	T       int64            `json:"t"`

	Page   int       `json:"-"` // 0: the recorded page; N: its Nth popup
	Frames []Element `json:"-"` // the iframes the element is in, outermost first
	Dialog *Dialog   `json:"-"`
}

// Recording is what the person did, in order.
type Recording struct {
	StartURL string
	Events   []*Event
}

// Options configure a Recorder.
type Options struct {
	Map *selector.Map // the existing selector map: its targets are reused
	Log *slog.Logger
}

// client sends CDP requests on one session of the browser connection
// (rod's Page needs more state than a bare session gives it).
type client struct {
	b   *rod.Browser
	id  proto.TargetSessionID
	ctx context.Context
}

func (c client) Call(ctx context.Context, _, method string, params any) ([]byte, error) {
	return c.b.Call(ctx, string(c.id), method, params)
}
func (c client) GetContext() context.Context         { return c.ctx }
func (c client) GetSessionID() proto.TargetSessionID { return c.id }

// with is c bound to ctx.
func (c client) with(ctx context.Context) client { c.ctx = ctx; return c }

// session is one attached target: the recorded page, a popup, or an
// out-of-process frame of either.
type session struct {
	page      client
	id        proto.TargetSessionID
	target    proto.TargetTargetID
	frame     bool     // an out-of-process iframe
	popup     int      // the page it belongs to (0: the recorded one)
	parent    *session // a frame's page (or frame) session
	contexts  map[proto.RuntimeExecutionContextID]proto.PageFrameID
	mainFrame proto.PageFrameID
}

// Recorder captures one recording in one environment's page.
type Recorder struct {
	b      *rod.Browser
	page   *rod.Page // the recorded page
	main   *session
	src    string
	log    *slog.Logger
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	mu       sync.Mutex
	sessions map[proto.TargetSessionID]*session
	events   []*Event
	spec     json.RawMessage
	popups   int
	dialogs  map[proto.TargetSessionID]*Dialog
	finished chan struct{}
	finOnce  sync.Once
	err      error
	// got counts the messages of each execution context's capture script
	// captured so far (Flush); arrived is closed and replaced at each.
	got     map[proto.RuntimeExecutionContextID]int
	arrived chan struct{}
}

// Start attaches the recorder to page (an environment's page) and every
// page and frame it opens from now on. Open then loads the first page.
func Start(ctx context.Context, page *rod.Page, o Options) (*Recorder, error) {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	known, err := knownTargets(o.Map)
	if err != nil {
		return nil, err
	}
	src := strings.NewReplacer(
		"__BINDING__", binding,
		"__KNOWN__", known,
		"__PAGEJS__", strings.TrimSpace(selector.PageJS()),
		"/* describe.js */", selsuggest.DescribeJS,
	).Replace(captureSource)
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	b := page.Browser().Context(rctx)
	r := &Recorder{
		b: b, page: page, src: src, log: o.Log, ctx: rctx, cancel: cancel, done: make(chan struct{}),
		sessions: map[proto.TargetSessionID]*session{}, dialogs: map[proto.TargetSessionID]*Dialog{},
		got: map[proto.RuntimeExecutionContextID]int{}, arrived: make(chan struct{}),
		finished: make(chan struct{}),
	}
	events := b.Event()
	r.main = &session{page: client{b: b, id: page.SessionID, ctx: rctx}, id: page.SessionID, target: page.TargetID, contexts: map[proto.RuntimeExecutionContextID]proto.PageFrameID{}}
	r.sessions[r.main.id] = r.main
	go r.loop(events)
	if err := r.setup(ctx, r.main); err != nil {
		r.Stop()
		return nil, err
	}
	return r, nil
}

// knownTargets lists the existing map's top-level targets as page.js
// locators, for the capture script to tell which one an element is.
func knownTargets(m *selector.Map) (string, error) {
	type loc struct {
		Kind  string  `json:"kind"`
		Value string  `json:"value"`
		Name  string  `json:"name,omitempty"`
		Src   *string `json:"src"`
		Flags string  `json:"flags"`
	}
	type known struct {
		Name string `json:"name"`
		Locs []loc  `json:"locs"`
	}
	out := []known{}
	if m != nil {
	next:
		for _, name := range m.Names() {
			t, _ := m.Lookup(name)
			if t.Frame != "" || t.Within != "" || t.Many || t.Broken || len(t.Locators) == 0 {
				continue
			}
			k := known{Name: name}
			for _, l := range t.Locators {
				if l.ValueRE != nil || l.NameRE != nil || l.Strategy == selector.XPath {
					continue next
				}
				k.Locs = append(k.Locs, loc{Kind: l.Strategy, Value: l.Value, Name: l.Name})
			}
			out = append(out, k)
		}
	}
	b, err := json.Marshal(out)
	return string(b), err
}

// setup gives one target the binding and the capture script (in the
// recorder's world, on the documents it has and every later one), and
// attaches to its out-of-process frames as they appear.
func (r *Recorder) setup(ctx context.Context, s *session) error {
	cctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	p := s.page.with(cctx)
	if err := (proto.RuntimeAddBinding{Name: binding, ExecutionContextName: world}).Call(p); err != nil {
		return fmt.Errorf("record: binding: %w", err)
	}
	if err := (proto.PageEnable{}).Call(p); err != nil {
		return fmt.Errorf("record: page events: %w", err)
	}
	if err := (proto.RuntimeEnable{}).Call(p); err != nil {
		return fmt.Errorf("record: runtime events: %w", err)
	}
	if tree, err := (proto.PageGetFrameTree{}).Call(p); err == nil {
		s.mainFrame = tree.FrameTree.Frame.ID
	}
	if _, err := (proto.PageAddScriptToEvaluateOnNewDocument{Source: r.src, WorldName: world, RunImmediately: true}).Call(p); err != nil {
		return fmt.Errorf("record: capture script: %w", err)
	}
	return proto.TargetSetAutoAttach{AutoAttach: true, WaitForDebuggerOnStart: true, Flatten: true}.Call(p)
}

// Open loads url in the recorded page.
func (r *Recorder) Open(ctx context.Context, url string) error {
	lctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	p := r.page.Context(lctx)
	if err := p.Navigate(url); err != nil {
		return fmt.Errorf("the page did not load: %w", err)
	}
	if err := p.WaitLoad(); err != nil {
		return fmt.Errorf("the page did not load: %w", err)
	}
	return nil
}

// Finished is closed when the person pressed Finish, or the recorded page
// was closed.
func (r *Recorder) Finished() <-chan struct{} { return r.finished }

// Err is why the recording cannot go on (nil while it can).
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Stop ends the capture and returns what was recorded.
func (r *Recorder) Stop() *Recording {
	r.cancel()
	<-r.done
	r.mu.Lock()
	defer r.mu.Unlock()
	return &Recording{Events: r.events}
}

// Recording is what was recorded so far (the capture goes on).
func (r *Recorder) Recording() *Recording {
	r.mu.Lock()
	defer r.mu.Unlock()
	return &Recording{Events: append([]*Event(nil), r.events...)}
}

// Note adds an event the Go side knows of (an agent's page_open: K "goto").
func (r *Recorder) Note(ev *Event) {
	if ev.T == 0 {
		ev.T = time.Now().UnixMilli()
	}
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.mu.Unlock()
}

// Page is the recorded page.
func (r *Recorder) Page() *rod.Page { return r.page }

// Call runs window.__twrec.METHOD(args...) of the capture script in the
// recorded page's top document and returns its result as JSON; a thrown
// error is an error with its message.
func (r *Recorder) Call(ctx context.Context, method string, args ...any) (json.RawMessage, error) {
	res, _, err := r.call(ctx, method, args...)
	return res, err
}

// Flush has the top document's capture script send what it holds (the
// fields typed into) and returns once every message it sent has been
// captured: the browser hands them on apart from the call's answer, so a
// draft made right after an action could lack it (the value an agent
// marked last).
func (r *Recorder) Flush(ctx context.Context) error {
	raw, id, err := r.call(ctx, "flush")
	if err != nil {
		return err
	}
	var sent int
	if err := json.Unmarshal(raw, &sent); err != nil {
		return fmt.Errorf("the capture script answered %s to flush", raw)
	}
	t := time.NewTimer(callTimeout)
	defer t.Stop()
	for {
		r.mu.Lock()
		got, arrived := r.got[id], r.arrived
		r.mu.Unlock()
		if got >= sent {
			return nil
		}
		select {
		case <-arrived:
		case <-t.C:
			return fmt.Errorf("%d of the page's last %d recorded actions did not reach the recorder within %s", sent-got, sent, callTimeout)
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// call is Call, and the execution context it ran in.
func (r *Recorder) call(ctx context.Context, method string, args ...any) (json.RawMessage, proto.RuntimeExecutionContextID, error) {
	if args == nil {
		args = []any{}
	}
	a, err := json.Marshal(args)
	if err != nil {
		return nil, 0, err
	}
	deadline := time.Now().Add(callTimeout)
	for {
		r.mu.Lock()
		var id proto.RuntimeExecutionContextID
		for c, f := range r.main.contexts {
			if f == r.main.mainFrame {
				id = c
			}
		}
		r.mu.Unlock()
		if id != 0 {
			cctx, cancel := context.WithTimeout(ctx, callTimeout)
			res, err := proto.RuntimeEvaluate{
				Expression: fmt.Sprintf("JSON.stringify(window.__twrec.%s(...%s))", method, a),
				ContextID:  id, ReturnByValue: true, AwaitPromise: true,
			}.Call(r.main.page.with(cctx))
			cancel()
			if err == nil && res.ExceptionDetails != nil {
				msg := res.ExceptionDetails.Text
				if res.ExceptionDetails.Exception != nil && res.ExceptionDetails.Exception.Description != "" {
					msg = strings.SplitN(res.ExceptionDetails.Exception.Description, "\n", 2)[0]
				}
				return nil, id, fmt.Errorf("%s", strings.TrimPrefix(msg, "Error: "))
			}
			if err == nil {
				return json.RawMessage(res.Result.Value.Str()), id, nil
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return nil, 0, fmt.Errorf("the page has no document to act on yet")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// arrive counts a message of context id's capture script as captured.
func (r *Recorder) arrive(id proto.RuntimeExecutionContextID) {
	r.mu.Lock()
	r.got[id]++
	close(r.arrived)
	r.arrived = make(chan struct{})
	r.mu.Unlock()
}

func (r *Recorder) finish() { r.finOnce.Do(func() { close(r.finished) }) }

func (r *Recorder) loop(events <-chan *rod.Message) {
	defer close(r.done)
	for msg := range events {
		r.handle(msg)
	}
}

func (r *Recorder) session(id proto.TargetSessionID) *session {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sessions[id]
}

func (r *Recorder) handle(msg *rod.Message) {
	s := r.session(msg.SessionID)
	switch msg.Method {
	case "Runtime.bindingCalled":
		var ev proto.RuntimeBindingCalled
		if s != nil && msg.Load(&ev) && ev.Name == binding {
			r.captured(s, ev)
		}
	case "Runtime.executionContextCreated":
		var ev proto.RuntimeExecutionContextCreated
		if s != nil && msg.Load(&ev) && ev.Context.Name == world {
			r.contextCreated(s, ev)
		}
	case "Runtime.executionContextDestroyed":
		var ev proto.RuntimeExecutionContextDestroyed
		if s != nil && msg.Load(&ev) {
			r.mu.Lock()
			delete(s.contexts, ev.ExecutionContextID)
			r.mu.Unlock()
		}
	case "Target.attachedToTarget":
		var ev proto.TargetAttachedToTarget
		if msg.Load(&ev) {
			r.attached(s, msg.SessionID, ev)
		}
	case "Target.detachedFromTarget":
		var ev proto.TargetDetachedFromTarget
		if msg.Load(&ev) {
			r.detached(ev)
		}
	case "Page.frameNavigated":
		var ev proto.PageFrameNavigated
		if s != nil && !s.frame && msg.Load(&ev) && ev.Frame.ParentID == "" {
			r.mu.Lock()
			s.mainFrame = ev.Frame.ID
			r.events = append(r.events, &Event{K: "nav", URL: ev.Frame.URL, Page: s.popup, T: time.Now().UnixMilli()})
			r.mu.Unlock()
		}
	case "Page.javascriptDialogOpening":
		var ev proto.PageJavascriptDialogOpening
		if s != nil && msg.Load(&ev) {
			r.mu.Lock()
			r.dialogs[s.id] = &Dialog{Type: string(ev.Type), Message: ev.Message}
			r.mu.Unlock()
		}
	case "Page.javascriptDialogClosed":
		var ev proto.PageJavascriptDialogClosed
		if s != nil && msg.Load(&ev) {
			r.dialogClosed(s, ev)
		}
	}
}

// contextCreated notes the frame of a new execution context of our world.
func (r *Recorder) contextCreated(s *session, ev proto.RuntimeExecutionContextCreated) {
	frame := proto.PageFrameID(ev.Context.AuxData["frameId"].Str())
	r.mu.Lock()
	s.contexts[ev.Context.ID] = frame
	spec := r.spec
	r.mu.Unlock()
	if spec != nil && frame == s.mainFrame {
		// A new document of a page with marks: its script starts
		// without them, so hand them over.
		go r.handSpec(s, ev.Context.ID, spec)
	}
}

// detached: a session ended. A popup's page closing is an event; the main
// page's ends the recording.
func (r *Recorder) detached(ev proto.TargetDetachedFromTarget) {
	r.mu.Lock()
	gone := r.sessions[ev.SessionID]
	delete(r.sessions, ev.SessionID)
	if gone != nil && gone.popup > 0 && !gone.frame {
		r.events = append(r.events, &Event{K: "popup_closed", Page: gone.popup, T: time.Now().UnixMilli()})
	}
	r.mu.Unlock()
	if gone == r.main {
		r.finish()
	}
}

// dialogClosed gives the dialog, with the person's answer, to the last
// action on that page.
func (r *Recorder) dialogClosed(s *session, ev proto.PageJavascriptDialogClosed) {
	r.mu.Lock()
	defer r.mu.Unlock()
	d := r.dialogs[s.id]
	delete(r.dialogs, s.id)
	if d == nil {
		return
	}
	d.Accepted, d.Text = ev.Result, ev.UserInput
	for i := len(r.events) - 1; i >= 0; i-- {
		if e := r.events[i]; e.Page == s.popup && isAction(e.K) {
			e.Dialog = d
			break
		}
	}
}

func isAction(k string) bool {
	switch k {
	case "click", "fill", "select", "check", "press", "upload":
		return true
	}
	return false
}

// attached: a target appeared. One of our sessions auto-attached an
// out-of-process frame (paused: it starts once the capture script is in
// it), or the environment's guard attached a page some page of ours
// opened: a popup, which the recorder attaches to as well.
func (r *Recorder) attached(parent *session, via proto.TargetSessionID, ev proto.TargetAttachedToTarget) {
	info := ev.TargetInfo
	ctx, cancel := context.WithTimeout(r.ctx, callTimeout)
	defer cancel()
	if parent != nil {
		child := client{b: r.b, id: ev.SessionID, ctx: r.ctx}
		defer func() { _ = proto.RuntimeRunIfWaitingForDebugger{}.Call(child.with(ctx)) }()
		if info.Type != "iframe" {
			return
		}
		s := &session{page: child, id: ev.SessionID, target: info.TargetID, frame: true, popup: parent.popup, parent: parent,
			contexts: map[proto.RuntimeExecutionContextID]proto.PageFrameID{}}
		r.mu.Lock()
		r.sessions[s.id] = s
		r.mu.Unlock()
		if err := r.setup(ctx, s); err != nil {
			r.log.Warn("record: a frame could not be followed", "url", info.URL, "err", err)
		}
		s.mainFrame = proto.PageFrameID(info.TargetID)
		return
	}
	if info.Type != proto.TargetTargetInfoTypePage || info.OpenerID == "" {
		return
	}
	r.mu.Lock()
	var opener *session
	for _, s := range r.sessions {
		if !s.frame && s.target == info.OpenerID {
			opener = s
		}
	}
	r.mu.Unlock()
	if opener == nil {
		return
	}
	res, err := proto.TargetAttachToTarget{TargetID: info.TargetID, Flatten: true}.Call(r.b.Context(ctx))
	if err != nil {
		r.log.Warn("record: a popup could not be followed", "url", info.URL, "err", err)
		return
	}
	r.mu.Lock()
	r.popups++
	s := &session{page: client{b: r.b, id: res.SessionID, ctx: r.ctx}, id: res.SessionID, target: info.TargetID, popup: r.popups,
		contexts: map[proto.RuntimeExecutionContextID]proto.PageFrameID{}}
	r.sessions[s.id] = s
	r.events = append(r.events, &Event{K: "popup", Page: opener.popup, Value: fmt.Sprint(s.popup), URL: info.URL, T: time.Now().UnixMilli()})
	r.mu.Unlock()
	if err := r.setup(ctx, s); err != nil {
		r.log.Warn("record: a popup could not be followed", "url", info.URL, "err", err)
	}
}

// captured is one message of a capture script.
func (r *Recorder) captured(s *session, call proto.RuntimeBindingCalled) {
	defer r.arrive(call.ExecutionContextID) // read or not, it came (Flush)
	ev := &Event{}
	if err := json.Unmarshal([]byte(call.Payload), ev); err != nil {
		r.log.Warn("record: an unreadable message of the capture script", "err", err)
		return
	}
	ev.Page = s.popup
	r.mu.Lock()
	frame, inFrame := s.contexts[call.ExecutionContextID]
	r.mu.Unlock()
	r.log.Debug("record: captured", "k", ev.K, "session", s.id, "frame", frame, "known", inFrame, "main", s.mainFrame, "oopif", s.frame)
	if inFrame && (s.frame || frame != s.mainFrame) && (ev.El != nil || ev.K == "press") {
		chain, err := r.frames(s, frame)
		if err != nil {
			r.log.Warn("record: the frame of an action could not be read", "err", err)
			r.fail(fmt.Errorf("the %s in a frame could not be recorded: its <iframe> has no locator that matches it alone (give it an id or a title)", ev.K))
			return
		}
		ev.Frames = chain
	}
	r.mu.Lock()
	if ev.Spec != nil {
		r.spec, _ = json.Marshal(ev.Spec)
	}
	r.events = append(r.events, ev)
	r.mu.Unlock()
	if ev.K == "fill" && ev.El != nil && ev.El.Password {
		r.log.Debug("record: a password was typed")
	}
	if ev.K == "finish" {
		r.finish()
	}
}

// fail stops the recording with err.
func (r *Recorder) fail(err error) {
	r.mu.Lock()
	if r.err == nil {
		r.err = err
	}
	r.mu.Unlock()
	r.finish()
}

// handSpec gives the capture script of a new document the marks made so far.
func (r *Recorder) handSpec(s *session, id proto.RuntimeExecutionContextID, spec json.RawMessage) {
	ctx, cancel := context.WithTimeout(r.ctx, callTimeout)
	defer cancel()
	_, err := proto.RuntimeEvaluate{Expression: "window.__twrec && window.__twrec.set(" + string(spec) + ")", ContextID: id}.Call(s.page.with(ctx))
	if err != nil {
		r.log.Debug("record: marks not handed to a new document", "err", err)
	}
}

// frames reads the iframes that hold frame (a frame of s), outermost
// first, each in the document that holds it.
func (r *Recorder) frames(s *session, frame proto.PageFrameID) ([]Element, error) {
	ctx, cancel := context.WithTimeout(r.ctx, callTimeout)
	defer cancel()
	var chain []Element
	for depth := 0; depth < 8; depth++ {
		if frame == s.mainFrame && !s.frame {
			return chain, nil
		}
		holder := s
		if frame == s.mainFrame { // an out-of-process frame: its element is in the parent's document
			holder = s.parent
		}
		owner, err := proto.DOMGetFrameOwner{FrameID: frame}.Call(holder.page.with(ctx))
		if err != nil {
			return nil, err
		}
		el, err := describeFrame(ctx, holder.page, owner.BackendNodeID)
		if err != nil {
			return nil, err
		}
		chain = append([]Element{el}, chain...)
		if holder != s {
			// The parent's frame that holds the iframe: taken to be its
			// main frame (a cross-site frame inside a same-site one of
			// another process is not followed further).
			s, frame = holder, holder.mainFrame
			continue
		}
		parent, err := parentFrame(ctx, s.page, frame)
		if err != nil {
			return nil, err
		}
		frame = parent
	}
	return nil, fmt.Errorf("frames nested too deep")
}

func describeFrame(ctx context.Context, c client, node proto.DOMBackendNodeID) (Element, error) {
	var el Element
	p := c.with(ctx)
	obj, err := proto.DOMResolveNode{BackendNodeID: node}.Call(p)
	if err != nil {
		return el, err
	}
	defer func() { _ = proto.RuntimeReleaseObject{ObjectID: obj.Object.ObjectID}.Call(p) }()
	res, err := proto.RuntimeCallFunctionOn{FunctionDeclaration: frameJS, ObjectID: obj.Object.ObjectID, ReturnByValue: true}.Call(p)
	if err != nil {
		return el, err
	}
	if res.ExceptionDetails != nil {
		return el, fmt.Errorf("reading the iframe: %s", res.ExceptionDetails.Text)
	}
	if err := json.Unmarshal([]byte(res.Result.Value.Str()), &el); err != nil {
		return el, err
	}
	if len(el.Cands) == 0 {
		return el, fmt.Errorf("the iframe has no locator that matches it alone")
	}
	return el, nil
}

func parentFrame(ctx context.Context, c client, id proto.PageFrameID) (proto.PageFrameID, error) {
	tree, err := proto.PageGetFrameTree{}.Call(c.with(ctx))
	if err != nil {
		return "", err
	}
	var walk func(t *proto.PageFrameTree) proto.PageFrameID
	walk = func(t *proto.PageFrameTree) proto.PageFrameID {
		for _, c := range t.ChildFrames {
			if c.Frame.ID == id {
				return t.Frame.ID
			}
			if f := walk(c); f != "" {
				return f
			}
		}
		return ""
	}
	if f := walk(tree.FrameTree); f != "" {
		return f, nil
	}
	return "", fmt.Errorf("frame %s not in its page's frame tree", id)
}
