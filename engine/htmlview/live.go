package htmlview

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"

	"github.com/toolwright/toolwright/engine/selector"
)

// Live is the live view of one page: a person sees the page's pixels and
// drives it with their own mouse, wheel, keyboard and clipboard, in the
// same browser context the engine uses (its cookies, its storage).
//
// Mount it under a path prefix, behind whatever guards that server (the
// ui's token), with http.StripPrefix:
//
//	lv := htmlview.NewLive(page, htmlview.LiveOptions{Title: "sign in", Secrets: vals})
//	defer lv.Close()
//	mux.Handle("/live/ENV/", http.StripPrefix("/live/ENV", lv))
//
// It answers, relative to the prefix:
//
//	GET  /         the viewer: one HTML page with a small script
//	GET  /live.js  that script
//	GET  /frames   the pixels, as server-sent events: one JSON object a frame
//	               {"d": base64 JPEG, "w", "h": the viewport in CSS pixels}
//	POST /input    one input event as JSON (mouse, wheel, key, paste, done);
//	               the request must carry the header X-Toolwright-Live: 1,
//	               which no cross-site form can send
//
// The pixels come from CDP's screencast (Page.startScreencast), started
// when the first viewer connects and stopped when the last one leaves; the
// input goes through Input.dispatchMouseEvent, dispatchKeyEvent and
// insertText. Live attaches its own CDP session to the page's target, so
// the caller's session (its enabled domains, its event handlers) is left
// alone, and the page may belong to a browser this process only attached
// to (`toolwright ui` does that).
//
// Secrets: before the first frame is sent, and every 300 ms while anyone
// watches, every element the engine marked as one it typed a secret into
// (selector.SecretMark: a field, an editor) is drawn masked with what it
// holds (CSS -webkit-text-security: disc), whatever its value is now, so
// masking needs no secret's value; a password field is marked when seen,
// so one the page later shows as text stays masked. Besides, every input
// and textarea whose value contains one of LiveOptions.Secrets is masked;
// those values are compared in Go: no secret is ever sent into the page.
type Live struct {
	opts LiveOptions
	page *rod.Page // the caller's page (its browser, its target)

	mu      sync.Mutex
	sess    *cdpSession // our own session on the page's target, while streaming
	subs    map[chan []byte]struct{}
	stop    context.CancelFunc
	closed  bool
	touched bool
	// frames are our sessions on the out-of-process frames of the page's
	// browser context, by target (masking reaches into them); pageCtx is
	// that context, read once. fmu guards both.
	fmu       sync.Mutex // guards frameSess and pageCtx (startLocked masks under mu, the mask loop without)
	frameSess map[proto.TargetTargetID]*cdpSession
	pageCtx   proto.BrowserBrowserContextID
}

// LiveOptions are what a live view shows besides the page.
type LiveOptions struct {
	// Title heads the viewer; Message says what the person is asked to do.
	Title, Message string
	// Secrets are values the viewer never shows (typically the config's
	// secrets the engine may have filled).
	Secrets []string
	// Done, when set, puts a "done" button on the viewer; pressing it calls
	// Done with the request (its answer is shown to the person).
	Done func(r *http.Request) (string, error)
	// OnInput is called (at most once) when the person first acts.
	OnInput func()
	// Until is when the call stops waiting for the person (zero: not
	// said); Waiting, when set, is what the call waits for now: the
	// message while it still waits, "" once it has gone on (what it
	// waited for holds, or it ended), which the viewer then says.
	Until   time.Time
	Waiting func(ctx context.Context) (string, error)
}

// NewLive makes the live view of page. Nothing is sent to the browser
// until a viewer connects.
func NewLive(page *rod.Page, opts LiveOptions) *Live {
	return &Live{page: page, opts: opts, subs: map[chan []byte]struct{}{}}
}

// Touched reports whether a person sent any input.
func (l *Live) Touched() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.touched
}

// Close stops the screencast and ends every viewer's stream.
func (l *Live) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	for ch := range l.subs {
		close(ch)
		delete(l.subs, ch)
	}
	l.stopLocked()
}

// ServeHTTP routes the viewer's requests (see Live).
func (l *Live) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch strings.TrimPrefix(r.URL.Path, "/") {
	case "":
		if !strings.HasSuffix(r.URL.Path, "/") {
			http.Redirect(w, r, r.URL.Path+"/", http.StatusSeeOther)
			return
		}
		l.viewer(w)
	case "live.js":
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write(liveJS)
	case "frames":
		l.frames(w, r)
	case "input":
		l.input(w, r)
	case "status":
		l.status(w, r)
	default:
		http.NotFound(w, r)
	}
}

var liveJS = func() []byte {
	b, err := files.ReadFile("templates/live.js")
	if err != nil {
		panic(err) // embedded at build time
	}
	return b
}()

// status answers {"waiting": MESSAGE} while the call still waits for the
// person, {"waiting": ""} once it has gone on (LiveOptions.Waiting).
func (l *Live) status(w http.ResponseWriter, r *http.Request) {
	if l.opts.Waiting == nil {
		http.NotFound(w, r)
		return
	}
	msg, err := l.opts.Waiting(r.Context())
	if err != nil {
		http.Error(w, "the call's state cannot be read: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(map[string]string{"waiting": msg})
}

func (l *Live) viewer(w http.ResponseWriter) {
	var b bytes.Buffer
	data := map[string]any{"Title": l.opts.Title, "Message": l.opts.Message, "Done": l.opts.Done != nil, "Home": "../../", "Watch": l.opts.Waiting != nil}
	if !l.opts.Until.IsZero() {
		data["Until"] = l.opts.Until.UTC().Format("15:04:05 UTC")
	}
	if err := pages.ExecuteTemplate(&b, "live", data); err != nil {
		http.Error(w, "render: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; connect-src 'self'; img-src data:; style-src 'unsafe-inline'")
	_, _ = w.Write(b.Bytes())
}

// frames streams the screencast as server-sent events.
func (l *Live) frames(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	ch, err := l.subscribe(r.Context())
	if err != nil {
		http.Error(w, "the page cannot be shown: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	defer l.unsubscribe(ch)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = fmt.Fprint(w, ": live\n\n")
	fl.Flush()
	keep := time.NewTicker(15 * time.Second)
	defer keep.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-keep.C:
			_, _ = fmt.Fprint(w, ": keep\n\n")
			fl.Flush()
		case f, ok := <-ch:
			if !ok {
				_, _ = fmt.Fprint(w, "event: end\ndata: {}\n\n")
				fl.Flush()
				return
			}
			_, _ = fmt.Fprintf(w, "data: %s\n\n", f)
			fl.Flush()
		}
	}
}

func (l *Live) subscribe(ctx context.Context) (chan []byte, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, fmt.Errorf("the live view is closed")
	}
	if l.sess == nil {
		if err := l.startLocked(ctx); err != nil {
			return nil, err
		}
	}
	ch := make(chan []byte, 1)
	l.subs[ch] = struct{}{}
	return ch, nil
}

func (l *Live) unsubscribe(ch chan []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.subs[ch]; !ok {
		return
	}
	delete(l.subs, ch)
	if len(l.subs) == 0 {
		l.stopLocked()
	}
}

// startLocked attaches a session of our own to the page's target, masks
// the secrets once, and starts the screencast.
func (l *Live) startLocked(ctx context.Context) error {
	actx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	b := l.page.Browser()
	res, err := proto.TargetAttachToTarget{TargetID: l.page.TargetID, Flatten: true}.Call(b.Context(actx))
	if err != nil {
		return fmt.Errorf("attach to the page: %w", err)
	}
	sctx, stop := context.WithCancel(context.Background())
	sess := &cdpSession{b: b, id: res.SessionID, ctx: sctx}
	l.sess, l.stop = sess, stop
	l.maskPage(sess.with(actx))
	events := b.Context(sctx).Event()
	go func() {
		for msg := range events {
			if msg.SessionID != sess.id {
				if msg.Method == "Target.detachedFromTarget" {
					var e proto.TargetDetachedFromTarget
					if msg.Load(&e) && e.SessionID == sess.id {
						break
					}
				}
				continue
			}
			var e proto.PageScreencastFrame
			if msg.Method != e.ProtoEvent() || !msg.Load(&e) {
				continue
			}
			go func() { _ = proto.PageScreencastFrameAck{SessionID: e.SessionID}.Call(sess) }()
			w, h := 0.0, 0.0
			if e.Metadata != nil {
				w, h = e.Metadata.DeviceWidth, e.Metadata.DeviceHeight
			}
			f, _ := json.Marshal(map[string]any{"d": base64.StdEncoding.EncodeToString(e.Data), "w": w, "h": h})
			l.broadcast(f)
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.sess == sess { // the page or the browser went away: end the streams
			for ch := range l.subs {
				close(ch)
				delete(l.subs, ch)
			}
			l.stopLocked()
		}
	}()
	q, every := 70, 1
	if err := (proto.PageStartScreencast{Format: proto.PageStartScreencastFormatJpeg, Quality: &q, EveryNthFrame: &every}).Call(sess.with(actx)); err != nil {
		l.stopLocked()
		return fmt.Errorf("start the screencast: %w", err)
	}
	go l.maskLoop(sctx)
	return nil
}

// cdpSession is a proto.Client for our own session on the page's target.
type cdpSession struct {
	b   *rod.Browser
	id  proto.TargetSessionID
	ctx context.Context
}

func (s *cdpSession) Call(ctx context.Context, sessionID, method string, params any) ([]byte, error) {
	return s.b.Call(ctx, sessionID, method, params)
}
func (s *cdpSession) GetSessionID() proto.TargetSessionID { return s.id }
func (s *cdpSession) GetContext() context.Context         { return s.ctx }
func (s *cdpSession) with(ctx context.Context) *cdpSession {
	c := *s
	c.ctx = ctx
	return &c
}

// eval runs a function expression in the page with JSON arguments and
// decodes its value into out (when not nil).
func (s *cdpSession) eval(fn string, out any, args ...any) error {
	expr := "(" + fn + ")("
	for i, a := range args {
		b, err := json.Marshal(a)
		if err != nil {
			return err
		}
		if i > 0 {
			expr += ","
		}
		expr += string(b)
	}
	res, err := proto.RuntimeEvaluate{Expression: expr + ")", ReturnByValue: true}.Call(s)
	if err != nil {
		return err
	}
	if res.ExceptionDetails != nil {
		return fmt.Errorf("script: %s", res.ExceptionDetails.Text)
	}
	if out == nil || res.Result == nil {
		return nil
	}
	return res.Result.Value.Unmarshal(out)
}

func (l *Live) stopLocked() {
	if l.sess == nil {
		return
	}
	sess, stop := l.sess, l.stop
	l.fmu.Lock()
	frames := l.frameSess
	l.frameSess = nil
	l.fmu.Unlock()
	l.sess, l.stop = nil, nil
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		for _, fs := range frames {
			_ = proto.TargetDetachFromTarget{SessionID: fs.id}.Call(l.page.Browser().Context(ctx))
		}
		_ = proto.PageStopScreencast{}.Call(sess.with(ctx))
		_ = proto.TargetDetachFromTarget{SessionID: sess.id}.Call(l.page.Browser().Context(ctx))
		stop()
	}()
}

func (l *Live) broadcast(f []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for ch := range l.subs {
		select {
		case ch <- f:
		default: // the viewer is behind: it gets the newest frame
			select {
			case <-ch:
			default:
			}
			ch <- f
		}
	}
}

func (l *Live) session() *cdpSession {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sess
}

// fieldsJS lists the values of the document's text fields, those of its
// open shadow roots and same-process frames included (password fields are
// masked by the browser already: ""). Out-of-process frames are targets of
// their own: maskPage runs it in each of them.
const fieldsJS = `() => ` + walkFieldsJS + `.map(e => e.type === 'password' ? '' : String(e.value || ''))`

// maskJS draws the fields at the given indexes (of fieldsJS's list) masked.
const maskJS = `(idx) => { const all = ` + walkFieldsJS + `; for (const i of idx) { const e = all[i]; if (e) e.style.setProperty('-webkit-text-security', 'disc', 'important'); } }`

// walkFieldsJS is an expression: the document's input and textarea
// elements in tree order, through open shadow roots and into the
// documents of same-process frames.
const walkFieldsJS = `(function walk(root, out) {
  for (const e of root.querySelectorAll('*')) {
    if (e.tagName === 'INPUT' || e.tagName === 'TEXTAREA') out.push(e);
    if (e.shadowRoot) walk(e.shadowRoot, out);
    if (e.tagName === 'IFRAME' || e.tagName === 'FRAME') { let d = null; try { d = e.contentDocument } catch (_) {} if (d) walk(d, out); }
  }
  return out;
})(document, [])`

// maskMarkedJS draws masked every element marked (selector.SecretMark)
// and all it holds, in the document, its open shadow roots and the
// documents of same-process frames. It marks each password field first:
// a page's "show password" turns one into a text field.
const maskMarkedJS = `(mark) => { let n = 0; (function walk(root) {
  for (const e of root.querySelectorAll('*')) {
    if (e.tagName === 'INPUT' && e.type === 'password') e.setAttribute(mark, '');
    if (e.hasAttribute(mark)) { for (const d of [e, ...e.querySelectorAll('*')]) d.style.setProperty('-webkit-text-security', 'disc', 'important'); n++; }
    if (e.shadowRoot) walk(e.shadowRoot);
    if (e.tagName === 'IFRAME' || e.tagName === 'FRAME') { let d = null; try { d = e.contentDocument } catch (_) {} if (d) walk(d); }
  }
})(document); return n; }`

// maskPage draws masked every marked element and every field whose value
// holds a secret, in the page and in the out-of-process frames of its
// browser context.
func (l *Live) maskPage(sess *cdpSession) {
	l.maskIn(sess)
	for _, fs := range l.frameSessions(sess) {
		l.maskIn(fs)
	}
}

// maskIn masks the marked elements and the secret-holding fields of the
// document sess evaluates in.
func (l *Live) maskIn(sess *cdpSession) {
	_ = sess.eval(maskMarkedJS, nil, selector.SecretMark)
	if len(l.opts.Secrets) == 0 {
		return
	}
	var vals []string
	if sess.eval(fieldsJS, &vals) != nil {
		return
	}
	var idx []int
	for i, v := range vals {
		for _, s := range l.opts.Secrets {
			if s != "" && strings.Contains(v, s) {
				idx = append(idx, i)
				break
			}
		}
	}
	if len(idx) > 0 {
		_ = sess.eval(maskJS, nil, idx)
	}
}

// frameSessions attaches (once each) to the out-of-process frames of the
// page's browser context (a cross-site <iframe> runs in a renderer of its
// own, which the page's session cannot evaluate in) and returns a session
// on each that is still there.
func (l *Live) frameSessions(sess *cdpSession) []*cdpSession {
	ctx := sess.ctx
	b := l.page.Browser().Context(ctx)
	l.fmu.Lock()
	pageCtx := l.pageCtx
	l.fmu.Unlock()
	if pageCtx == "" {
		info, err := proto.TargetGetTargetInfo{TargetID: l.page.TargetID}.Call(b)
		if err != nil {
			return nil
		}
		pageCtx = info.TargetInfo.BrowserContextID
		l.fmu.Lock()
		l.pageCtx = pageCtx
		l.fmu.Unlock()
	}
	targets, err := proto.TargetGetTargets{}.Call(b)
	if err != nil {
		return nil
	}
	l.fmu.Lock()
	if l.frameSess == nil {
		l.frameSess = map[proto.TargetTargetID]*cdpSession{}
	}
	l.fmu.Unlock()
	var out []*cdpSession
	live := map[proto.TargetTargetID]bool{}
	for _, t := range targets.TargetInfos {
		if t.Type != "iframe" || t.BrowserContextID != pageCtx {
			continue
		}
		live[t.TargetID] = true
		l.fmu.Lock()
		fs := l.frameSess[t.TargetID]
		l.fmu.Unlock()
		if fs == nil {
			res, err := proto.TargetAttachToTarget{TargetID: t.TargetID, Flatten: true}.Call(b)
			if err != nil {
				continue
			}
			fs = &cdpSession{b: sess.b, id: res.SessionID, ctx: sess.ctx}
			l.fmu.Lock()
			l.frameSess[t.TargetID] = fs
			l.fmu.Unlock()
		}
		out = append(out, fs.with(ctx))
	}
	l.fmu.Lock()
	for id := range l.frameSess {
		if !live[id] {
			delete(l.frameSess, id)
		}
	}
	l.fmu.Unlock()
	return out
}

func (l *Live) maskLoop(ctx context.Context) {
	t := time.NewTicker(300 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			sess := l.session()
			if sess == nil {
				return
			}
			mctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			l.maskPage(sess.with(mctx))
			cancel()
		}
	}
}

// LiveInput is one input event the viewer posts.
type LiveInput struct {
	// T is the event: mousePressed, mouseReleased, mouseMoved, mouseWheel,
	// keyDown, keyUp, paste or done.
	T       string  `json:"t"`
	X       float64 `json:"x"`
	Y       float64 `json:"y"`
	Button  string  `json:"button"` // left, middle, right, none
	Buttons int     `json:"buttons"`
	Clicks  int     `json:"clicks"`
	DX      float64 `json:"dx"`
	DY      float64 `json:"dy"`
	Key     string  `json:"key"`
	Code    string  `json:"code"`
	Text    string  `json:"text"`
	KeyCode int     `json:"keyCode"`
	Mods    int     `json:"mods"` // Alt=1, Ctrl=2, Meta=4, Shift=8
}

const maxInputBytes = 1 << 20

func (l *Live) input(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	if r.Header.Get("X-Toolwright-Live") != "1" {
		http.Error(w, "forbidden: missing X-Toolwright-Live header", http.StatusForbidden)
		return
	}
	var in LiveInput
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxInputBytes)).Decode(&in); err != nil {
		http.Error(w, "bad input: "+err.Error(), http.StatusBadRequest)
		return
	}
	if in.T == "done" {
		if l.opts.Done == nil {
			http.Error(w, "nothing to finish here", http.StatusBadRequest)
			return
		}
		msg, err := l.opts.Done(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusConflict)
			return
		}
		_, _ = w.Write([]byte(msg))
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	if err := l.Dispatch(ctx, in); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// Dispatch sends one input event into the page.
func (l *Live) Dispatch(ctx context.Context, in LiveInput) error {
	var p proto.Client = l.page.Context(ctx)
	if s := l.session(); s != nil {
		p = s.with(ctx)
	}
	l.mu.Lock()
	first := !l.touched
	l.touched = true
	l.mu.Unlock()
	if first && l.opts.OnInput != nil {
		l.opts.OnInput()
	}
	switch in.T {
	case "mousePressed", "mouseReleased", "mouseMoved", "mouseWheel":
		btn := proto.InputMouseButton(in.Button)
		switch btn {
		case "left", "middle", "right", "back", "forward":
		default:
			btn = "none"
		}
		b := in.Buttons
		return proto.InputDispatchMouseEvent{
			Type: proto.InputDispatchMouseEventType(in.T), X: in.X, Y: in.Y, Modifiers: in.Mods,
			Button: btn, Buttons: &b, ClickCount: in.Clicks, DeltaX: in.DX, DeltaY: in.DY,
		}.Call(p)
	case "keyDown", "keyUp":
		typ := proto.InputDispatchKeyEventType(in.T)
		if in.T == "keyDown" && in.Text == "" {
			typ = proto.InputDispatchKeyEventTypeRawKeyDown
		}
		ev := proto.InputDispatchKeyEvent{
			Type: typ, Modifiers: in.Mods, Key: in.Key, Code: in.Code,
			WindowsVirtualKeyCode: in.KeyCode, NativeVirtualKeyCode: in.KeyCode,
		}
		if in.T == "keyDown" {
			ev.Text, ev.UnmodifiedText = in.Text, in.Text
		}
		return ev.Call(p)
	case "paste":
		if len(in.Text) > 100000 {
			return fmt.Errorf("paste: at most 100000 bytes")
		}
		return proto.InputInsertText{Text: in.Text}.Call(p)
	}
	return fmt.Errorf("unknown input %q", in.T)
}
