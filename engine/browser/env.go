package browser

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"

	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/selector"
)

// Env is one environment: an isolated browser context (its own cookies,
// storage and cache, and its region's proxy) with one page in it.
//
// A call uses an environment between Manager.Open, OpenTemporary or Acquire
// and Manager.Release. Around its browser work it should:
//
//	ctx, cancel := env.Bind(ctx) // also ends when the browser dies
//	defer cancel()
//	page := env.Page().Context(ctx)
//	err := page.Navigate(u)
//	if u, ok := env.TakeBlocked(); ok { /* host_not_allowed for u */ }
//	err = env.Check(err) // env_unavailable / env_not_found when the env is gone
type Env struct {
	ID        string
	Region    string
	Purpose   string
	Temporary bool

	conn    *Conn
	ctxID   proto.BrowserBrowserContextID
	session string // webdriver: the session URL whose browser this environment owns
	proxy   proxy
	page    *rod.Page

	sem         chan struct{} // holds a token while a call runs on the environment
	disposeOnce sync.Once
	done        context.Context
	end         context.CancelCauseFunc

	mu            sync.Mutex
	viewport      Viewport      // the page's viewport as last set (zero: Chromium's own)
	owner         string        // the registry lease of the call holding it
	stopBeat      chan struct{} // ends the lease's heartbeat
	lastUsed      time.Time
	blocked       []string
	blockedFrames []string
	exempt        map[proto.TargetTargetID]bool
	main          proto.TargetTargetID // the target of page
	held          heldRequests         // subresource requests refused since the last TakeHeld
	keepUntil     time.Time            // KeepFor: Release keeps it for a person until then
}

// heldRequests counts the requests the guard refused under
// Options.HoldSubresources, keeping the first few URLs.
type heldRequests struct {
	n    int
	urls []string
}

// maxHeldURLs is how many refused subresource URLs an environment keeps
// between two TakeHeld calls (all of them are counted).
const maxHeldURLs = 16

// Viewport is a page's size in CSS pixels.
type Viewport struct {
	Width, Height int
}

// SetViewport sizes the environment's page (Emulation.setDeviceMetricsOverride:
// window.innerWidth, media queries and layout follow), unless it has that
// size already. A zero viewport leaves it as it is.
func (e *Env) SetViewport(ctx context.Context, v Viewport) error {
	if v.Width <= 0 || v.Height <= 0 {
		return nil
	}
	e.mu.Lock()
	same := e.viewport == v
	page := e.page
	e.mu.Unlock()
	if same || page == nil {
		return nil
	}
	if err := (proto.EmulationSetDeviceMetricsOverride{Width: v.Width, Height: v.Height}).Call(page.Context(ctx)); err != nil {
		return e.Check(err)
	}
	e.mu.Lock()
	e.viewport = v
	e.mu.Unlock()
	return nil
}

// setPage makes page the environment's page.
func (e *Env) setPage(page *rod.Page) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.page = page
	e.main = page.TargetID
}

// isMain reports whether target is the environment's own page (not a
// popup or a frame of it).
func (e *Env) isMain(target proto.TargetTargetID) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.main != "" && e.main == target
}

// TakeHeld returns how many requests of the environment's pages the
// browser refused under Options.HoldSubresources (images, scripts, styles,
// fetch and XHR, beacons, event streams, WebSockets, frames) since the last
// TakeHeld, with the first few of their URLs, and starts counting again.
// The executor records them in the trace.
func (e *Env) TakeHeld() (n int, urls []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	n, urls = e.held.n, e.held.urls
	e.held = heldRequests{}
	return n, urls
}

func (e *Env) noteHeld(url string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.held.n++
	if len(e.held.urls) < maxHeldURLs && !slices.Contains(e.held.urls, url) {
		e.held.urls = append(e.held.urls, url)
	}
}

// Page is the environment's page. Run every call on a clone bound to the
// call's context: env.Page().Context(ctx).
func (e *Env) Page() *rod.Page { return e.page }

// Endpoint is the DevTools URL of the browser the environment lives in.
func (e *Env) Endpoint() string { return e.conn.Endpoint() }

// Session is the browser session the environment owns, from a provider
// that makes one per environment (SessionKeeper); "" for the others.
func (e *Env) Session() string { return e.session }

// BrowserContextID is the CDP browser context of the environment.
func (e *Env) BrowserContextID() string { return string(e.ctxID) }

// LastUsed is when a call last acquired or released the environment.
func (e *Env) LastUsed() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.lastUsed
}

func (e *Env) touch() {
	e.mu.Lock()
	e.lastUsed = time.Now()
	e.mu.Unlock()
}

// Busy reports whether a call holds the environment.
func (e *Env) Busy() bool { return len(e.sem) > 0 }

// Done is closed when the environment is closed or its browser is gone.
func (e *Env) Done() <-chan struct{} { return e.done.Done() }

// Err is nil while the environment is usable. Afterwards it is
// env_not_found when the environment was closed (close_env, idle timeout)
// and env_unavailable (retryable) when its browser went away or the
// manager shut down.
func (e *Env) Err() error {
	if e.done.Err() != nil {
		return context.Cause(e.done)
	}
	return e.conn.Err()
}

// Check maps an error from a browser call made in this environment: when
// the environment is gone meanwhile, the raw error (context canceled, a
// closed socket, a detached target) becomes Err(), keeping err as the
// cause for the trace. Other errors come back unchanged.
func (e *Env) Check(err error) error {
	if err == nil {
		return nil
	}
	gone := e.Err()
	if gone == nil {
		return err
	}
	g := errs.As(gone)
	return &errs.Error{Code: g.Code, Message: g.Message, Retryable: g.Retryable, NeedsHuman: g.NeedsHuman, Cause: err}
}

// Bind returns ctx that also ends, with Err() as its cause, when the
// environment is closed or its browser dies. Use it for the page of one
// call so waits on browser events end too.
func (e *Env) Bind(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(e.done, func() { cancel(context.Cause(e.done)) })
	return ctx, func() {
		stop()
		cancel(context.Canceled)
	}
}

// TakeBlocked returns the first top-level navigation the browser refused
// (Options.AllowURL) since the last call, and forgets all refusals. The
// executor checks it after every step (and after a failed navigation) and
// turns a refusal into host_not_allowed.
func (e *Env) TakeBlocked() (url string, ok bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.blocked) == 0 {
		return "", false
	}
	url = e.blocked[0]
	e.blocked = nil
	return url, true
}

const maxBlocked = 16

// BlockedFrame returns the last frame document the browser refused
// (an iframe from a host outside policy.allowed_hosts), if any. The page
// itself goes on; a step that reaches into that frame reports it.
func (e *Env) BlockedFrame() (url string, ok bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.blockedFrames) == 0 {
		return "", false
	}
	return e.blockedFrames[len(e.blockedFrames)-1], true
}

func (e *Env) noteBlockedFrame(url string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.blockedFrames) >= maxBlocked {
		e.blockedFrames = e.blockedFrames[1:]
	}
	e.blockedFrames = append(e.blockedFrames, url)
}

func (e *Env) noteBlocked(url string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.blocked) < maxBlocked {
		e.blocked = append(e.blocked, url)
	}
}

// exemptTarget lets a page of the environment that toolwright itself drives
// (the egress check) navigate without the allowed-hosts rule.
func (e *Env) exemptTarget(id proto.TargetTargetID, on bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if on {
		e.exempt[id] = true
	} else {
		delete(e.exempt, id)
	}
}

func (e *Env) isExempt(id proto.TargetTargetID) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.exempt[id]
}

// pageEvents delivers the events of one page of an environment's browser
// in the order the browser sent them (Conn.Observe, Conn.Sync).
type pageEvents struct {
	conn    *Conn
	session proto.TargetSessionID
}

// Events is the event source of page, a page of the environment's browser
// (its own, or a popup of it); nil (a nil interface, never one holding a
// nil pointer) for a page without a session.
func (e *Env) Events(page *rod.Page) selector.EventSource {
	if e == nil || e.conn == nil || page == nil || page.SessionID == "" {
		return nil
	}
	return &pageEvents{conn: e.conn, session: page.SessionID}
}

// Observe calls fn with each event of the page until stop (Conn.Observe).
func (p *pageEvents) Observe(fn func(method string, params []byte)) (stop func()) {
	return p.conn.Observe(p.session, fn)
}

// Sync returns once Observe's functions have seen every event the browser
// sent before the answers the caller holds (Conn.Sync).
func (p *pageEvents) Sync(ctx context.Context) error { return p.conn.Sync(ctx) }
