package run

import (
	"context"
	"fmt"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/selector"
)

// Dialogs never hang a call. While a call holds a page (its environment's,
// or a popup's), every JavaScript dialog opening in it is answered at once:
// as the running step's `dialog` key says, or by default an alert is
// accepted and a confirm, prompt or beforeunload dismissed. The message
// goes to the running step's trace record and, for the last one, into
// page.dialog.

// dialogAnswer is how the running step answers a dialog.
type dialogAnswer struct {
	accept bool
	text   string
}

// setDialog makes a the answer for dialogs from now on and returns the one
// before (steps nest; nil is the default answer).
func (c *call) setDialog(a *dialogAnswer) *dialogAnswer {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.dialog
	c.dialog = a
	return old
}

// watchPage watches a page the call holds until stop is called: it answers
// its dialogs, and follows its requests for network_idle waits (which then
// see the requests in flight when they start).
func (c *call) watchPage(page *rod.Page) (stop func()) {
	stopDialogs := func() {}
	if !c.dialogsWatched(page.TargetID) {
		stopDialogs = c.watchDialogs(page)
	}
	stopTraffic := selector.WatchTraffic(page, c.currentEnv().Events(page))
	return func() {
		stopTraffic()
		stopDialogs()
	}
}

// dialogWatchSetup bounds how long watchDialogs waits for its subscription.
const dialogWatchSetup = 2 * time.Second

// watchDialogs answers the dialogs of page until stop is called.
func (c *call) watchDialogs(page *rod.Page) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	p := page.Context(ctx)
	done, ready := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		// Subscribing may enable the Page domain, which waits on the page:
		// a page stuck on a dialog it opened before it was watched never
		// answers, so this runs here and stop ends it.
		wait := p.EachEvent(func(e *proto.PageJavascriptDialogOpening) {
			go c.answerDialog(e, func(h proto.PageHandleJavaScriptDialog) error { return h.Call(p) })
		})
		close(ready)
		wait()
	}()
	select { // the usual case: subscribed in a round trip
	case <-ready:
	case <-time.After(dialogWatchSetup):
	}
	return func() {
		cancel()
		<-done
	}
}

// answerDialog answers dialog e with answer, as the running step says.
func (c *call) answerDialog(e *proto.PageJavascriptDialogOpening, answer func(proto.PageHandleJavaScriptDialog) error) {
	c.mu.Lock()
	a := c.dialog
	rec := c.running
	c.mu.Unlock()
	accept := e.Type == proto.PageDialogTypeAlert
	var text string
	how := "by default"
	if a != nil {
		accept, text, how = a.accept, a.text, "as the step's dialog key says"
	}
	h := proto.PageHandleJavaScriptDialog{Accept: accept}
	if accept && e.Type == proto.PageDialogTypePrompt {
		h.PromptText = text
		if text == "" {
			h.PromptText = e.DefaultPrompt
		}
	}
	verb := "dismissed"
	if accept {
		verb = "accepted"
	}
	note := fmt.Sprintf("%s %q %s %s", e.Type, e.Message, verb, how)
	c.mu.Lock()
	if e.Type == proto.PageDialogTypeBeforeunload && !accept {
		c.unloadDismissed = true
	}
	if a == nil && !accept && (c.declined == nil || c.declined.rec != rec) {
		// The first the running step met: one an earlier step met is not
		// this one's (declinedBy).
		c.declined = &declined{rec: rec, kind: e.Type, message: e.Message}
	}
	c.mu.Unlock()
	// Noted before answering: the step that opened the dialog cannot go on
	// (and read page.dialog) before the answer.
	c.noteDialog(rec, e.Message, note)
	if err := answer(h); err != nil {
		c.noteDialog(rec, e.Message, "answering it failed: "+err.Error())
	}
	c.e.log.Debug("dialog", "trace_id", c.traceID, "dialog", c.e.redactor.Redact(note))
}

// declined is a question a page asked (a confirm, a prompt, a
// beforeunload) that the default answer dismissed while trace record rec's
// step ran.
type declined struct {
	rec     int
	kind    proto.PageDialogType
	message string
}

// maxDeclinedSaid bounds the question quoted in a message.
const maxDeclinedSaid = 120

// declinedBy fails acting step label (trace record rec) when the page asked
// a question while it ran that the workflow does not answer. The default
// never hangs a call, and dismissing is the safe answer (a delete asked
// about is not done), but then what the step was written to do did not
// happen: a click on "Clear history" whose confirm was dismissed cleared
// nothing, and `ok` would say it did. A person would have answered; the
// workflow must say how (`dialog: accept`, or `dialog: dismiss` when
// declining is what it means: then the step is `ok`). Questions asked while
// other steps ran are dropped: a page that asks on load is its own business.
func (c *call) declinedBy(rec int, label string) error {
	c.mu.Lock()
	q := c.declined
	c.declined = nil
	c.mu.Unlock()
	switch {
	case q == nil || q.rec != rec:
		return nil
	case q.kind == proto.PageDialogTypeBeforeunload:
		return stayedErr(nil, label+": ", " by default")
	}
	return errs.New(errs.ConfigError, "%s: the page asked %q (a %s) and the workflow does not answer it: it was dismissed by default, so what it asked about was not done; give the step `dialog: accept` (or `dialog: dismiss` when declining is meant)", label, clip(q.message, maxDeclinedSaid), q.kind)
}

// stayedErr is the failure of a step whose page stayed because the
// beforeunload it asked was dismissed (how: " by default", or "" when
// the step's own dialog rule may have said so), from cause (nil: none);
// not retryable: the page asks again. prefix begins the message.
func stayedErr(cause error, prefix, how string) *errs.Error {
	e := errs.Wrap(errs.NavigationFailed, cause, "%sthe page asked before leaving (beforeunload) and the dialog was dismissed%s, so it stayed; give the step `dialog: accept` to leave it", prefix, how)
	e.Retryable = false
	return e
}

// clip is s for a message: at most n characters, then "…".
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// stayed reports whether a beforeunload was dismissed (the page stayed)
// since the last call, and starts over.
func (c *call) stayed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	v := c.unloadDismissed
	c.unloadDismissed = false
	return v
}

// noteDialog keeps msg as page.dialog and adds note to trace record rec.
func (c *call) noteDialog(rec int, msg, note string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lastDialog = msg
	if rec >= 0 && rec < len(c.steps) {
		sr := &c.steps[rec]
		if sr.Dialog != "" {
			sr.Dialog += "; "
		}
		sr.Dialog += note
	}
}

// maxDialogSaid bounds the dialogs' part of a message (a page may open
// hundreds); the trace keeps them all.
const maxDialogSaid = 300

// saidByDialog is err, the failure of the step of trace record rec, with
// what the page's dialogs said while it ran when err is the page refusing
// the step (invalid_params, assertion_failed): "Only PDF files, please" or
// "Make this user Admin?" dismissed is why, and the agent reads only the
// envelope.
func (c *call) saidByDialog(rec int, err error) error {
	e := errs.As(err)
	if e.Code != errs.InvalidParams && e.Code != errs.AssertionFailed {
		return err
	}
	c.mu.Lock()
	notes := ""
	if rec >= 0 && rec < len(c.steps) {
		notes = c.steps[rec].Dialog
	}
	c.mu.Unlock()
	if notes == "" {
		return err
	}
	said := *e
	said.Message = fmt.Sprintf("%s (the page's dialogs while the step ran: %s)", e.Message, clip(notes, maxDialogSaid))
	return &said
}

// watchPopups answers the dialogs of every page opener opens from now until
// stop, from before the page runs (browser.Env.OnPopup): a dialog its
// scripts open while it loads too. watchPage then leaves the page's dialogs
// to it.
func (c *call) watchPopups(opener proto.TargetTargetID) (stop func()) {
	env := c.currentEnv()
	if env == nil {
		return func() {}
	}
	return env.OnPopup(opener, func(_ proto.TargetTargetID, e *proto.PageJavascriptDialogOpening, answer func(proto.PageHandleJavaScriptDialog) error) {
		go c.answerDialog(e, answer)
	})
}

// dialogsWatched reports whether watchPopups answers page target's dialogs.
func (c *call) dialogsWatched(target proto.TargetTargetID) bool {
	env := c.currentEnv()
	return env != nil && target != "" && env.PopupDialogs(target)
}
