package browser

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/proto"

	"github.com/toolwright/toolwright/engine/errs"
)

// guardCallTimeout bounds each CDP call the guard makes for a paused page or
// request. It only guards against a browser that stopped answering while
// still connected (a lost browser ends them at once), and whoever waits for
// the page bounds its own wait; on a loaded machine setting a page up takes
// far more than 10 s (eight new pages on two busy cores: 60-80 s), which is
// slow, not broken.
const guardCallTimeout = 2 * time.Minute

// guard watches every page of a browser from its first instant and applies
// the environment's network rules to it:
//
//   - allowed hosts: every main-frame document request (a goto, a server
//     redirect, a clicked link, location.href= from a script, a window.open
//     popup) is paused with the Fetch domain; one that Options.AllowURL refuses
//     fails with BlockedByClient and is remembered on the environment
//     (Env.TakeBlocked). A frame's document request (an iframe, in the page
//     or out of process: those are auto-attached too) is refused the same
//     way and remembered apart (Env.BlockedFrame).
//   - subresources (Options.HoldSubresources): every other request of the
//     environment's pages and frames (images, scripts, styles, fonts,
//     fetch, XHR, beacons, event streams, prefetches) is paused too and
//     refused the same way when AllowURL refuses it. WebSockets never reach
//     the Fetch domain, so each document's response also gets a
//     Content-Security-Policy header whose connect-src lets ws: and wss:
//     reach the allowed hosts only (Options.ConnectSrc); the browser
//     reports each refusal as an Audits issue. Both kinds, and refused
//     frames, are counted on the environment (Env.TakeHeld).
//   - proxy credentials: a region's proxy user and password answer the
//     proxy's 407, since Chromium's proxyServer takes no credentials.
//   - crashes: when the renderer of an environment's page dies
//     (Target.targetCrashed, Inspector.targetCrashed) the manager is told
//     at once (onCrash), so a call in flight fails instead of waiting for a
//     page that will never answer.
//
// It auto-attaches to new pages browser-wide with waitForDebuggerOnStart, so
// a popup cannot send its first request before its rules are in place. Pages
// in browser contexts that are not ours (another client of a shared remote
// browser) are resumed and detached at once.
type guard struct {
	c     *Conn
	allow func(string) bool
	// known finds a browser context registered by another replica (nil:
	// no registry), so its pages follow the same rules here too.
	known   func(ctx context.Context, contextID string) (*Record, error)
	replica string // this process's prefix of lease owners
	// hold applies allow to every request, not only documents; csp is the
	// header a document gets then (connect-src for WebSockets).
	hold bool
	csp  string

	mu       sync.Mutex
	crash    func(*Env) // told when an environment's page crashed
	contexts map[proto.BrowserBrowserContextID]*Env
	sessions map[proto.TargetSessionID]watched
	authSeen map[proto.FetchRequestID]bool
	ready    map[proto.TargetTargetID]*readiness
	audited  map[proto.TargetTargetID]bool          // targets whose refusals one session reports
	popups   map[proto.TargetTargetID][]*popupHook  // by opener (popups.go)
	dialogs  map[proto.TargetSessionID]popupDialogs // guard sessions whose dialogs go to a popup step
}

// readiness tells when a page of ours runs under its rules (err nil) or was
// closed because it could not be guarded.
type readiness struct {
	ctxID proto.BrowserBrowserContextID
	done  chan struct{}
	err   error
}

type watched struct {
	env    *Env
	target proto.TargetTargetID
	frame  bool // an out-of-process iframe of one of env's pages
}

func newGuard(c *Conn, d dialer) *guard {
	return &guard{
		c:        c,
		allow:    d.allow,
		known:    d.known,
		replica:  d.replica,
		hold:     d.hold && d.allow != nil,
		csp:      d.csp,
		contexts: map[proto.BrowserBrowserContextID]*Env{},
		sessions: map[proto.TargetSessionID]watched{},
		authSeen: map[proto.FetchRequestID]bool{},
		ready:    map[proto.TargetTargetID]*readiness{},
		audited:  map[proto.TargetTargetID]bool{},
		popups:   map[proto.TargetTargetID][]*popupHook{},
		dialogs:  map[proto.TargetSessionID]popupDialogs{},
	}
}

// onCrash sets what is told when an environment's page crashes.
func (g *guard) onCrash(f func(*Env)) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.crash = f
}

// crashed tells the manager that the renderer of target died, when target
// is an environment's own page (a crashed popup or frame leaves the page
// itself working).
func (g *guard) crashed(target proto.TargetTargetID) {
	g.mu.Lock()
	var env *Env
	for _, w := range g.sessions {
		if !w.frame && w.target == target && w.env.isMain(target) {
			env = w.env
			break
		}
	}
	f := g.crash
	g.mu.Unlock()
	if env == nil {
		return
	}
	g.c.log.Warn("page crashed", "env", env.ID, "target", target)
	if f != nil {
		f(env)
		return
	}
	env.end(errs.New(errs.EnvUnavailable, "the page of environment %s crashed (its renderer process died); open a new environment", env.ID))
}

// readinessLocked returns the readiness record of target, making it.
func (g *guard) readinessLocked(target proto.TargetTargetID, ctxID proto.BrowserBrowserContextID) *readiness {
	r := g.ready[target]
	if r == nil {
		r = &readiness{ctxID: ctxID, done: make(chan struct{})}
		g.ready[target] = r
	}
	return r
}

// waitReady waits until page target of context ctxID runs under its rules.
func (g *guard) waitReady(ctx context.Context, target proto.TargetTargetID, ctxID proto.BrowserBrowserContextID) error {
	g.mu.Lock()
	r := g.readinessLocked(target, ctxID)
	g.mu.Unlock()
	select {
	case <-r.done:
		g.mu.Lock()
		delete(g.ready, target)
		g.mu.Unlock()
		return r.err
	case <-ctx.Done():
		return ctx.Err()
	case <-g.c.Done():
		return g.c.Err()
	}
}

func (g *guard) markReady(target proto.TargetTargetID, ctxID proto.BrowserBrowserContextID, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	r := g.readinessLocked(target, ctxID)
	select {
	case <-r.done:
	default:
		r.err = err
		close(r.done)
	}
}

// start asks the browser to attach to every new page, paused.
func (g *guard) start(ctx context.Context) error {
	return proto.TargetSetAutoAttach{
		AutoAttach:             true,
		WaitForDebuggerOnStart: true,
		Flatten:                true,
		Filter:                 proto.TargetTargetFilter{{Type: "page"}},
	}.Call(session{c: g.c, ctx: ctx})
}

// register makes the pages of browser context id follow env's rules. Call it
// before the context has any page.
func (g *guard) register(id proto.BrowserBrowserContextID, env *Env) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.contexts[id] = env
}

func (g *guard) unregister(id proto.BrowserBrowserContextID) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.contexts, id)
	for s, w := range g.sessions {
		if w.env.ctxID == id {
			delete(g.sessions, s)
			g.forgetAuditedLocked(w.target)
		}
	}
	for t, r := range g.ready {
		if r.ctxID == id {
			delete(g.ready, t)
		}
	}
}

// see is shown every event before rod gets it. It must not block: the
// work runs in its own goroutine.
func (g *guard) see(e *cdp.Event) {
	switch e.Method {
	case "Target.attachedToTarget":
		var ev proto.TargetAttachedToTarget
		if json.Unmarshal(e.Params, &ev) != nil || ev.TargetInfo == nil {
			return
		}
		if e.SessionID != "" {
			// An out-of-process frame of a page we watch (auto-attached
			// below): its documents obey the same rules.
			go g.attachedFrame(proto.TargetSessionID(e.SessionID), ev)
			return
		}
		go g.attached(ev)
	case "Target.detachedFromTarget":
		var ev proto.TargetDetachedFromTarget
		if json.Unmarshal(e.Params, &ev) == nil { // a page, or a frame of one
			g.mu.Lock()
			if w, ok := g.sessions[ev.SessionID]; ok {
				delete(g.sessions, ev.SessionID)
				g.forgetAuditedLocked(w.target)
			}
			delete(g.dialogs, ev.SessionID)
			g.mu.Unlock()
		}
	case "Fetch.requestPaused":
		var ev proto.FetchRequestPaused
		if json.Unmarshal(e.Params, &ev) == nil {
			go g.paused(proto.TargetSessionID(e.SessionID), ev)
		}
	case "Target.targetCrashed":
		var ev proto.TargetTargetCrashed
		if json.Unmarshal(e.Params, &ev) == nil {
			go g.crashed(ev.TargetID)
		}
	case "Inspector.targetCrashed":
		g.mu.Lock()
		w, ok := g.sessions[proto.TargetSessionID(e.SessionID)]
		g.mu.Unlock()
		if ok && !w.frame {
			go g.crashed(w.target)
		}
	case "Audits.issueAdded":
		if g.hold {
			g.cspIssue(proto.TargetSessionID(e.SessionID), e.Params)
		}
	case "Page.javascriptDialogOpening":
		go g.dialog(proto.TargetSessionID(e.SessionID), e.Params)
	case "Fetch.authRequired":
		var ev proto.FetchAuthRequired
		if json.Unmarshal(e.Params, &ev) == nil {
			go g.auth(proto.TargetSessionID(e.SessionID), ev)
		}
	}
}

func (g *guard) session(id proto.TargetSessionID) (session, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(g.c.alive, guardCallTimeout)
	return session{c: g.c, id: id, ctx: ctx}, cancel
}

// attached sets up a new page, then lets it run.
func (g *guard) attached(ev proto.TargetAttachedToTarget) {
	s, cancel := g.session(ev.SessionID)
	defer cancel()
	g.mu.Lock()
	env := g.contexts[ev.TargetInfo.BrowserContextID]
	second := false
	if env != nil {
		second = !ev.WaitingForDebugger && g.watchingLocked(ev.TargetInfo.TargetID)
		g.sessions[ev.SessionID] = watched{env: env, target: ev.TargetInfo.TargetID}
	}
	g.mu.Unlock()
	if second {
		// rod's own session of a page the guard auto-attached to (paused,
		// so before it sent anything): that session's rules hold every
		// request; enabling them here too would pause each one twice.
		return
	}

	if env == nil {
		var judged bool
		if env, judged = g.judge(s.ctx, ev); !judged {
			return
		}
		if env == nil {
			// Not toolwright's: another client's page, left alone.
			_ = proto.RuntimeRunIfWaitingForDebugger{}.Call(s)
			_ = proto.TargetDetachFromTarget{SessionID: ev.SessionID}.Call(session{c: g.c, ctx: s.ctx})
			return
		}
		g.mu.Lock()
		g.sessions[ev.SessionID] = watched{env: env, target: ev.TargetInfo.TargetID}
		g.mu.Unlock()
	}
	target := ev.TargetInfo.TargetID
	if patterns := g.patterns(env); patterns != nil {
		err := proto.FetchEnable{Patterns: patterns, HandleAuthRequests: env.proxy.hasAuth}.Call(s)
		if err != nil {
			// A page we cannot guard must not run.
			g.c.log.Warn("cannot guard a new page; closing it", "env", env.ID, "target", target, "err", err)
			_, _ = proto.TargetCloseTarget{TargetID: target}.Call(session{c: g.c, ctx: s.ctx})
			g.markReady(target, env.ctxID, err)
			return
		}
	}
	g.watchCSP(s, env, target)
	g.watchFrames(s, env)
	g.handPopup(s, ev)
	err := proto.RuntimeRunIfWaitingForDebugger{}.Call(s)
	if err != nil && g.c.Err() == nil {
		g.c.log.Debug("cannot resume a new page", "env", env.ID, "err", err)
	}
	g.markReady(target, env.ctxID, err)
}

// watchingLocked reports whether a session of ours already watches page
// target.
func (g *guard) watchingLocked(target proto.TargetTargetID) bool {
	for _, w := range g.sessions {
		if !w.frame && w.target == target {
			return true
		}
	}
	return false
}

// watchFrames has the browser attach this session's out-of-process
// iframes to us, paused, so their documents meet the rules too.
func (g *guard) watchFrames(s session, env *Env) {
	if g.patterns(env) == nil {
		return
	}
	err := proto.TargetSetAutoAttach{AutoAttach: true, WaitForDebuggerOnStart: true, Flatten: true,
		Filter: proto.TargetTargetFilter{{Type: "iframe"}, {Type: "worker"}}}.Call(s)
	if err != nil && g.c.Err() == nil {
		g.c.log.Debug("cannot watch a page's frames", "env", env.ID, "err", err)
	}
}

// attachedFrame sets up an out-of-process iframe or a dedicated worker of a
// watched session. A worker's requests go through its page's Fetch rules
// (a worker target has no Fetch domain of its own); its session only
// reports its refusals. Either must be resumed: the browser starts it
// paused, since the session auto-attaches with waitForDebuggerOnStart.
func (g *guard) attachedFrame(parent proto.TargetSessionID, ev proto.TargetAttachedToTarget) {
	s, cancel := g.session(ev.SessionID)
	defer cancel()
	g.mu.Lock()
	w, ok := g.sessions[parent]
	frame, worker := ok && ev.TargetInfo.Type == "iframe", ok && ev.TargetInfo.Type == "worker"
	if frame || worker {
		g.sessions[ev.SessionID] = watched{env: w.env, target: ev.TargetInfo.TargetID, frame: true}
	}
	g.mu.Unlock()
	if frame {
		if patterns := g.patterns(w.env); patterns != nil {
			if err := (proto.FetchEnable{Patterns: patterns, HandleAuthRequests: w.env.proxy.hasAuth}).Call(s); err != nil && g.c.Err() == nil {
				g.c.log.Warn("cannot guard a frame", "env", w.env.ID, "err", err)
			}
		}
		g.watchFrames(s, w.env)
	}
	if frame || worker {
		g.watchCSP(s, w.env, ev.TargetInfo.TargetID)
	}
	_ = proto.RuntimeRunIfWaitingForDebugger{}.Call(s)
}

// judge decides a new page in a browser context this connection did not
// make. A context another replica registered gets the same rules as one of
// ours (a stand-in environment that carries them); judged is false when the
// registry cannot say, and then the page is left paused, never resumed:
// its owner's guard resumes it under its rules.
func (g *guard) judge(ctx context.Context, ev proto.TargetAttachedToTarget) (env *Env, judged bool) {
	if g.known == nil {
		return nil, true
	}
	rec, err := g.known(ctx, string(ev.TargetInfo.BrowserContextID))
	if err != nil {
		g.c.log.Warn("cannot judge a new page of another client; leaving it paused", "context", ev.TargetInfo.BrowserContextID, "err", err)
		_ = proto.TargetDetachFromTarget{SessionID: ev.SessionID}.Call(session{c: g.c, ctx: ctx})
		return nil, false
	}
	if rec == nil {
		return nil, true
	}
	return &Env{ID: rec.ID, Region: rec.Region, Purpose: rec.Purpose, conn: g.c, ctxID: ev.TargetInfo.BrowserContextID,
		exempt: map[proto.TargetTargetID]bool{}}, true
}

// othersJudge reports whether a call of another replica holds env now, so
// that replica's guard judges its requests. A request of an environment
// no call holds, or whose holder cannot be told, is judged here.
func (g *guard) othersJudge(ctx context.Context, env *Env) bool {
	if g.known == nil || env.Busy() {
		return false
	}
	rec, err := g.known(ctx, string(env.ctxID))
	if err != nil || rec == nil {
		return false
	}
	return rec.LeaseOwner != "" && time.Now().Before(rec.LeaseUntil) && !strings.HasPrefix(rec.LeaseOwner, g.replica+"/")
}

// adopt puts an existing page (one this connection attached to by its
// target id) under env's rules.
func (g *guard) adopt(ctx context.Context, sid proto.TargetSessionID, env *Env, target proto.TargetTargetID) error {
	g.mu.Lock()
	g.sessions[sid] = watched{env: env, target: target}
	g.mu.Unlock()
	s := session{c: g.c, id: sid, ctx: ctx}
	if patterns := g.patterns(env); patterns != nil {
		if err := (proto.FetchEnable{Patterns: patterns, HandleAuthRequests: env.proxy.hasAuth}).Call(s); err != nil {
			return err
		}
	}
	g.watchCSP(s, env, target)
	return nil
}

// watchCSP has the browser report this session's Content-Security-Policy
// refusals (Audits.issueAdded), to count the WebSockets our header refused.
// Only one session per target reports, so a refusal counts once.
func (g *guard) watchCSP(s session, env *Env, target proto.TargetTargetID) {
	if !g.hold {
		return
	}
	g.mu.Lock()
	again := g.audited[target]
	g.audited[target] = true
	g.mu.Unlock()
	if again {
		return
	}
	if err := (proto.AuditsEnable{}).Call(s); err != nil && g.c.Err() == nil {
		g.c.log.Debug("cannot watch a page's refusals", "env", env.ID, "err", err)
	}
}

// forgetAuditedLocked drops target from audited once no session of ours
// is attached to it.
func (g *guard) forgetAuditedLocked(target proto.TargetTargetID) {
	for _, w := range g.sessions {
		if w.target == target {
			return
		}
	}
	delete(g.audited, target)
}

// cspIssue counts a connection the browser refused under our
// Content-Security-Policy header: a WebSocket (or any connect-src
// request) to a host AllowURL refuses. Refusals of a page's own policy
// for hosts that are allowed are the page's business, not counted.
func (g *guard) cspIssue(sid proto.TargetSessionID, params []byte) {
	var ev proto.AuditsIssueAdded
	if json.Unmarshal(params, &ev) != nil || ev.Issue == nil || ev.Issue.Details == nil {
		return
	}
	d := ev.Issue.Details.ContentSecurityPolicyIssueDetails
	if d == nil || d.IsReportOnly || d.BlockedURL == "" || d.ViolatedDirective != "connect-src" {
		return
	}
	g.mu.Lock()
	w, ok := g.sessions[sid]
	g.mu.Unlock()
	if !ok || g.allow(httpForm(d.BlockedURL)) {
		return
	}
	w.env.noteHeld(d.BlockedURL)
	g.c.log.Info("connection blocked: host not allowed", "env", w.env.ID, "url", d.BlockedURL)
}

// httpForm is a WebSocket URL as the http(s) URL of its handshake, which
// AllowURL judges.
func httpForm(u string) string {
	switch {
	case strings.HasPrefix(u, "ws://"):
		return "http://" + u[len("ws://"):]
	case strings.HasPrefix(u, "wss://"):
		return "https://" + u[len("wss://"):]
	}
	return u
}

// patterns are the requests of env's pages that pause, or nil for none.
func (g *guard) patterns(env *Env) []*proto.FetchRequestPattern {
	var ps []*proto.FetchRequestPattern
	switch {
	case env.proxy.hasAuth, g.hold:
		// Every request may meet the proxy's 407, or is held to the hosts.
		ps = []*proto.FetchRequestPattern{{URLPattern: "*"}}
	case g.allow != nil:
		ps = []*proto.FetchRequestPattern{{URLPattern: "*", ResourceType: proto.NetworkResourceTypeDocument}}
	}
	if g.hold {
		// Documents (and worker scripts, which come as Other) pause again
		// with their response, to get the header that holds their
		// WebSockets.
		ps = append(ps, &proto.FetchRequestPattern{URLPattern: "*", ResourceType: proto.NetworkResourceTypeDocument, RequestStage: proto.FetchRequestStageResponse},
			&proto.FetchRequestPattern{URLPattern: "*", ResourceType: proto.NetworkResourceTypeOther, RequestStage: proto.FetchRequestStageResponse})
	}
	return ps
}

// withCSP answers a paused document response with our
// Content-Security-Policy header added to its own headers. The browser
// parses a response's policies before the Fetch domain sees it, so
// Fetch.continueResponse with a changed header list would not be enforced;
// a fulfilled response is parsed anew. So the body is read (the document
// then arrives whole, not streamed) and handed back with the headers.
func (g *guard) withCSP(s session, ev proto.FetchRequestPaused) {
	for _, h := range ev.ResponseHeaders {
		if strings.EqualFold(h.Name, "Content-Security-Policy") && h.Value == g.csp {
			// Another of our sessions on this page added it already.
			_ = proto.FetchContinueRequest{RequestID: ev.RequestID}.Call(s)
			return
		}
	}
	refuse := func(err error) {
		if g.c.Err() == nil {
			// The document must not load without its rules.
			g.c.log.Warn("cannot add the connection rules to a document; refusing it", "url", ev.Request.URL, "err", err)
			_ = proto.FetchFailRequest{RequestID: ev.RequestID, ErrorReason: proto.NetworkErrorReasonBlockedByClient}.Call(s)
		}
	}
	body, err := proto.FetchGetResponseBody{RequestID: ev.RequestID}.Call(s)
	if err != nil {
		refuse(err)
		return
	}
	raw := []byte(body.Body)
	if body.Base64Encoded {
		if raw, err = base64.StdEncoding.DecodeString(body.Body); err != nil {
			refuse(err)
			return
		}
	}
	headers := append(append([]*proto.FetchHeaderEntry(nil), ev.ResponseHeaders...),
		&proto.FetchHeaderEntry{Name: "Content-Security-Policy", Value: g.csp})
	err = proto.FetchFulfillRequest{RequestID: ev.RequestID, ResponseCode: *ev.ResponseStatusCode,
		ResponsePhrase: ev.ResponseStatusText, ResponseHeaders: headers, Body: raw}.Call(s)
	if err != nil {
		refuse(err)
	}
}

// isScript reports whether response headers say JavaScript.
func isScript(headers []*proto.FetchHeaderEntry) bool {
	for _, h := range headers {
		if strings.EqualFold(h.Name, "Content-Type") {
			v := strings.ToLower(h.Value)
			return strings.Contains(v, "javascript") || strings.Contains(v, "ecmascript")
		}
	}
	return false
}

// mayRunScript reports whether a document response with these headers can
// become a page that runs scripts, so that it needs the connection rules
// (withCSP): HTML, XHTML, SVG and other XML, multipart, and a response
// whose type the browser sniffs. Anything else (an attachment, CSV, a
// zip, an image, a PDF, plain text) is a download or a page without
// scripts: it passes on unread and streams, so a download step's
// max_bytes stops it while it arrives, not after the guard read it whole.
func mayRunScript(headers []*proto.FetchHeaderEntry) bool {
	ct := ""
	for _, h := range headers {
		switch {
		case strings.EqualFold(h.Name, "Content-Disposition"):
			if v := strings.ToLower(strings.TrimSpace(h.Value)); strings.HasPrefix(v, "attachment") {
				return false
			}
		case strings.EqualFold(h.Name, "Content-Type"):
			ct = h.Value
		}
	}
	mt, _, _ := strings.Cut(ct, ";")
	mt = strings.ToLower(strings.TrimSpace(mt))
	switch mt {
	case "", "unknown/unknown", "application/unknown", "*/*", // sniffed
		"text/html", "application/xhtml+xml", "image/svg+xml", "text/xml", "application/xml", "text/xsl":
		return true
	}
	return strings.HasSuffix(mt, "+xml") || strings.HasPrefix(mt, "multipart/") || !strings.Contains(mt, "/")
}

// paused decides one paused request.
func (g *guard) paused(sid proto.TargetSessionID, ev proto.FetchRequestPaused) {
	s, cancel := g.session(sid)
	defer cancel()
	g.mu.Lock()
	w, ok := g.sessions[sid]
	g.mu.Unlock()

	if ev.ResponseStatusCode != nil || ev.ResponseErrorReason != "" {
		// The response stage: a document's, under HoldSubresources.
		if ok && g.hold && ev.ResponseStatusCode != nil && ev.Request != nil &&
			(*ev.ResponseStatusCode < 300 || *ev.ResponseStatusCode >= 400) && // a redirect makes no document
			(ev.ResourceType == proto.NetworkResourceTypeDocument && mayRunScript(ev.ResponseHeaders) ||
				ev.ResourceType == proto.NetworkResourceTypeOther && isScript(ev.ResponseHeaders)) {
			// A document, or a script of type Other: a worker's, which
			// has its own policies.
			g.withCSP(s, ev)
			return
		}
		_ = proto.FetchContinueRequest{RequestID: ev.RequestID}.Call(s)
		return
	}
	if ok && g.hold && ev.Request != nil && ev.ResourceType != proto.NetworkResourceTypeDocument && !w.env.isExempt(w.target) {
		u := ev.Request.URL + ev.Request.URLFragment
		if !g.allow(u) && !g.othersJudge(s.ctx, w.env) {
			w.env.noteHeld(u)
			g.c.log.Info("request blocked: host not allowed", "env", w.env.ID, "type", ev.ResourceType, "url", u)
			_ = proto.FetchFailRequest{RequestID: ev.RequestID, ErrorReason: proto.NetworkErrorReasonBlockedByClient}.Call(s)
			return
		}
	}
	if ok && g.allow != nil && ev.Request != nil &&
		ev.ResourceType == proto.NetworkResourceTypeDocument &&
		ev.ResponseStatusCode == nil && ev.ResponseErrorReason == "" &&
		!w.env.isExempt(w.target) {
		u := ev.Request.URL + ev.Request.URLFragment
		if !g.allow(u) && g.othersJudge(s.ctx, w.env) {
			// Another replica's call holds the environment: its guard
			// judges the request (and tells its call), so pass it on.
			_ = proto.FetchContinueRequest{RequestID: ev.RequestID}.Call(s)
			return
		}
		if (w.frame || ev.FrameID != proto.PageFrameID(w.target)) && !g.allow(u) {
			// A frame's document: refused, and remembered apart, so the
			// page itself goes on and a step reaching into the frame says why.
			w.env.noteBlockedFrame(u)
			if g.hold {
				w.env.noteHeld(u)
			}
			g.c.log.Info("frame document blocked: host not allowed", "env", w.env.ID, "url", u)
			_ = proto.FetchFailRequest{RequestID: ev.RequestID, ErrorReason: proto.NetworkErrorReasonBlockedByClient}.Call(s)
			return
		}
		if !w.frame && ev.FrameID == proto.PageFrameID(w.target) && !g.allow(u) {
			// Remember first, so the refusal is known when the navigation fails.
			w.env.noteBlocked(u)
			g.c.log.Info("navigation blocked: host not allowed", "env", w.env.ID, "url", u)
			_ = proto.FetchFailRequest{RequestID: ev.RequestID, ErrorReason: proto.NetworkErrorReasonBlockedByClient}.Call(s)
			return
		}
	}
	_ = proto.FetchContinueRequest{RequestID: ev.RequestID}.Call(s)
}

// auth answers a proxy's credential challenge with the region's
// credentials, once per request; anything else gets Chromium's default.
func (g *guard) auth(sid proto.TargetSessionID, ev proto.FetchAuthRequired) {
	s, cancel := g.session(sid)
	defer cancel()
	g.mu.Lock()
	w, ok := g.sessions[sid]
	again := g.authSeen[ev.RequestID]
	g.authSeen[ev.RequestID] = true
	if len(g.authSeen) > 10000 {
		g.authSeen = map[proto.FetchRequestID]bool{}
	}
	g.mu.Unlock()

	resp := &proto.FetchAuthChallengeResponse{Response: proto.FetchAuthChallengeResponseResponseDefault}
	if ok && w.env.proxy.hasAuth && ev.AuthChallenge != nil && ev.AuthChallenge.Source == proto.FetchAuthChallengeSourceProxy {
		if again {
			resp.Response = proto.FetchAuthChallengeResponseResponseCancelAuth
		} else {
			resp = &proto.FetchAuthChallengeResponse{
				Response: proto.FetchAuthChallengeResponseResponseProvideCredentials,
				Username: w.env.proxy.user,
				Password: w.env.proxy.password,
			}
		}
	}
	_ = proto.FetchContinueWithAuth{RequestID: ev.RequestID, AuthChallengeResponse: resp}.Call(s)
}
