package browser

import (
	"context"
	_ "embed"
	"encoding/json"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/toolwright/toolwright/engine/selector"
)

// Popups' dialogs from their first instant. The guard attaches to every new
// page paused (waitForDebuggerOnStart) and resumes it once its rules are in
// place. A page a popup step waits for also gets the Page domain enabled on
// the guard's session before it runs, and its dialogs are handed to that
// step. Otherwise an alert() or confirm() the page opens while it loads
// comes before anyone listens, and nothing can answer it: the browser tells
// only a client whose Page domain was enabled when it opened, and the page
// is stuck on it. (A second session attached to the paused page cannot
// enable the Page domain: that waits until the page runs.)

// PopupDialog is told each JavaScript dialog of a page target opened, from
// before its first script runs; answer answers it. It must not block.
type PopupDialog func(target proto.TargetTargetID, ev *proto.PageJavascriptDialogOpening, answer func(proto.PageHandleJavaScriptDialog) error)

// OnPopup hands the dialogs of every page that target opener of this
// environment opens from now until cancel to f. It adds no request to a
// call without popups; a popup costs one (Page.enable, on the guard's own
// session, sent without waiting for the answer).
func (e *Env) OnPopup(opener proto.TargetTargetID, f PopupDialog) (cancel func()) {
	g := e.conn.guard
	h := &popupHook{f: f}
	g.mu.Lock()
	g.popups[opener] = append(g.popups[opener], h)
	g.mu.Unlock()
	return func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		hs := g.popups[opener]
		for i, x := range hs {
			if x == h {
				hs = append(hs[:i:i], hs[i+1:]...)
				break
			}
		}
		if len(hs) == 0 {
			delete(g.popups, opener)
		} else {
			g.popups[opener] = hs
		}
		for sid, x := range g.dialogs {
			if x.hook == h {
				delete(g.dialogs, sid)
			}
		}
	}
}

type popupHook struct{ f PopupDialog }

// PopupDialogs reports whether the dialogs of page target go to a popup
// step's OnPopup (so no one else should answer them).
func (e *Env) PopupDialogs(target proto.TargetTargetID) bool {
	g := e.conn.guard
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, d := range g.dialogs {
		if d.target == target {
			return true
		}
	}
	return false
}

// popupDialogs is where the dialogs of a guard session go.
type popupDialogs struct {
	hook   *popupHook
	target proto.TargetTargetID
}

// handPopup enables the Page domain of a new page of opener's, still
// paused on the guard's session s, when a popup step waits for it, so its
// dialogs reach that step (dialog). It adds no wait: the request is sent
// and not waited for.
func (g *guard) handPopup(s session, ev proto.TargetAttachedToTarget) {
	if ev.TargetInfo.OpenerID == "" || !ev.WaitingForDebugger {
		return
	}
	g.mu.Lock()
	hs := g.popups[ev.TargetInfo.OpenerID]
	var h *popupHook
	if len(hs) > 0 {
		h = hs[len(hs)-1]
		g.dialogs[ev.SessionID] = popupDialogs{hook: h, target: ev.TargetInfo.TargetID}
	}
	g.mu.Unlock()
	if h == nil {
		return
	}
	// Sent, not waited for: the page answers it only once it runs, and the
	// browser, which reports the dialogs, takes it at once. The resume
	// that follows goes out after it on the same connection.
	sent, cancel := context.WithCancel(s.ctx)
	cancel()
	_ = proto.PageEnable{}.Call(session{c: g.c, id: s.id, ctx: sent})
}

// dialog hands a dialog of a guard session to its popup step.
func (g *guard) dialog(sid proto.TargetSessionID, params []byte) {
	g.mu.Lock()
	d, ok := g.dialogs[sid]
	g.mu.Unlock()
	if !ok {
		return
	}
	var ev proto.PageJavascriptDialogOpening
	if json.Unmarshal(params, &ev) != nil {
		return
	}
	d.hook.f(d.target, &ev, func(a proto.PageHandleJavaScriptDialog) error {
		ctx, cancel := context.WithTimeout(g.c.alive, guardCallTimeout)
		defer cancel()
		return a.Call(session{c: g.c, id: sid, ctx: ctx})
	})
}

// followJS is the follow hook (follow.js): the page's own work, followed
// in its main world.
//
//go:embed follow.js
var followJS string

// popupRule is Chrome's popup blocker for window.open, in the page: a
// window opens only under a person's fresh activation (a click, a key),
// and opening one uses the activation up, so a handler gets one window per
// click; any other call answers null, as a blocked window.open does. The
// full Chromium blocks the same calls in its browser process; the headless
// shell (package chromium) has no blocker, and a page calling window.open
// in a loop would open a window for each call, every one set up by the
// guard. A Proxy keeps the function's name, length and native source text.
const popupRule = `(() => {
  const ua = navigator.userActivation, open = window.open;
  if (!ua || typeof open !== 'function') return;
  window.open = new Proxy(open, { apply: (f, self, args) => ua.isActive ? Reflect.apply(f, self, args) : null });
})()`

// blockPopups puts the popup rule in the documents of an environment's
// page from its next one on. page must be a rod page: its session has the
// Page domain enabled, without which the browser ignores the script (so
// the guard, whose sessions do not, cannot add it). Popups' own pages do
// not get it: a page a popup opened that floods window.open by itself is
// left to the browser's blocker.
//
// The follow hook (follow.js) goes in with it, in the same script: what
// the page's scripts set going is followed from before the first of them
// runs.
func blockPopups(ctx context.Context, page *rod.Page) error {
	_, err := proto.PageAddScriptToEvaluateOnNewDocument{Source: PageScript()}.Call(page.Context(ctx))
	return err
}

// PageScript is what every document of an environment's page runs first:
// the popup rule, the follow hook and page.js (selector.DocumentScript).
// Tests that drive a bare page the way an environment's is add it too.
func PageScript() string {
	return popupRule + ";\n" + followJS + ";\n" + selector.DocumentScript()
}
