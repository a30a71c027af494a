package browser

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/proto"

	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/tick"
)

// healthEvery is how often a connection pings its browser; a browser that
// misses healthMisses pings in a row (each waits healthTimeout) counts as
// gone. A killed process is noticed at once (its socket closes); the ping
// catches a remote browser that stopped answering without closing the
// connection, and tolerates one slow answer on a busy machine.
var (
	healthEvery   = 10 * time.Second
	healthTimeout = 10 * time.Second
	healthMisses  = 2
)

// Conn is one DevTools connection to a browser, shared by the environments
// opened in it. Its calls fail fast with env_unavailable once the browser is
// gone, instead of waiting for an answer that will never come.
type Conn struct {
	endpoint string
	pid      int
	log      *slog.Logger

	ws      *cdp.WebSocket
	client  *cdp.Client
	events  chan *cdp.Event
	browser *rod.Browser
	guard   *guard

	alive context.Context // cancelled, with an env_unavailable cause, when the browser is gone
	die   context.CancelCauseFunc

	closeOnce sync.Once
	onClose   func() // what the provider started and must end (process, profile)

	obsMu     sync.Mutex
	observers map[string]map[*observer]bool // by CDP session id
	syncs     chan chan struct{}            // Sync's requests to pump
}

// observer is a function Observe calls with a session's events.
type observer struct {
	fn func(method string, params []byte)
}

// dial connects to a DevTools WebSocket URL. onClose runs once, when the
// connection is closed or the browser is gone.
func dial(ctx context.Context, endpoint string, pid int, d dialer, onClose func()) (*Conn, error) {
	log := d.log
	ws := &cdp.WebSocket{}
	if err := ws.Connect(ctx, endpoint, nil); err != nil {
		return nil, errs.Wrap(errs.EnvUnavailable, err, "cannot reach the browser's DevTools endpoint")
	}
	alive, die := context.WithCancelCause(context.Background())
	c := &Conn{
		endpoint: endpoint,
		pid:      pid,
		log:      log,
		ws:       ws,
		events:   make(chan *cdp.Event),
		syncs:    make(chan chan struct{}),
		alive:    alive,
		die:      die,
		onClose:  onClose,
	}
	c.guard = newGuard(c, d)
	c.client = cdp.New().Start(ws)
	go c.pump()

	// NoDefaultDevice: pages keep Chromium's own user agent and viewport;
	// toolwright does not disguise the browser.
	b := rod.New().Client(c).NoDefaultDevice()
	connected := make(chan error, 1)
	go func() { connected <- b.Connect() }()
	select {
	case err := <-connected:
		if err != nil {
			c.Close()
			return nil, errs.Wrap(errs.EnvUnavailable, err, "cannot attach to the browser")
		}
	case <-ctx.Done():
		c.Close()
		<-connected
		return nil, ctx.Err()
	}
	c.browser = b
	if err := c.guard.start(ctx); err != nil {
		c.Close()
		return nil, errs.Wrap(errs.EnvUnavailable, err, "cannot watch the browser's new pages")
	}
	go c.watch()
	return c, nil
}

// Endpoint is the DevTools WebSocket URL of the browser.
func (c *Conn) Endpoint() string { return c.endpoint }

// Done is closed when the browser is gone or the connection was closed.
func (c *Conn) Done() <-chan struct{} { return c.alive.Done() }

// Err is nil while the browser is usable, else an env_unavailable error.
func (c *Conn) Err() error {
	if c.alive.Err() == nil {
		return nil
	}
	return context.Cause(c.alive)
}

// Health asks the browser for its version.
func (c *Conn) Health(ctx context.Context) error {
	if err := c.Err(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, healthTimeout)
	defer cancel()
	_, err := proto.BrowserGetVersion{}.Call(c.browser.Context(ctx))
	return err
}

// Close ends the connection (and, through onClose, what the provider
// started). Environments on it are gone afterwards.
func (c *Conn) Close() {
	c.lost(errs.New(errs.EnvUnavailable, "the browser connection was closed"))
}

// Lost marks the browser gone, saying why (its process exited, its
// session ended), and releases the connection (provider.Conn).
func (c *Conn) Lost(why string) {
	c.lost(errs.New(errs.EnvUnavailable, "%s", why))
}

// lost marks the browser gone with cause and releases the connection.
func (c *Conn) lost(cause *errs.Error) {
	c.closeOnce.Do(func() {
		c.die(cause)
		_ = c.ws.Close()
		if c.onClose != nil {
			c.onClose()
		}
	})
}

// pump forwards the browser's events to rod, showing each to the guard
// first. When the socket closes the browser is gone.
func (c *Conn) pump() {
	defer close(c.events)
	events := c.client.Event()
	for {
		var e *cdp.Event
		select {
		case done := <-c.syncs:
			close(done)
			continue
		case ev, ok := <-events:
			if !ok {
				break
			}
			e = ev
		}
		if e == nil {
			break
		}
		c.guard.see(e)
		c.notify(e)
		select {
		case c.events <- e:
		case <-c.alive.Done():
			// Nobody reads any more; drain so the client can finish.
		}
	}
	if c.alive.Err() == nil {
		c.log.Warn("browser connection lost", "endpoint", c.endpoint)
	}
	c.lost(errs.New(errs.EnvUnavailable, "the browser stopped (its DevTools connection closed)"))
}

// Observe calls fn with each event of the CDP session, in the order the
// browser sent them, until stop: an event the browser sent before the
// answer to a call has reached fn once Sync, called after that answer,
// returns. fn runs on the connection's reader and must not block or call
// the browser.
func (c *Conn) Observe(session proto.TargetSessionID, fn func(method string, params []byte)) (stop func()) {
	o := &observer{fn: fn}
	c.obsMu.Lock()
	if c.observers == nil {
		c.observers = map[string]map[*observer]bool{}
	}
	if c.observers[string(session)] == nil {
		c.observers[string(session)] = map[*observer]bool{}
	}
	c.observers[string(session)][o] = true
	c.obsMu.Unlock()
	return func() {
		c.obsMu.Lock()
		delete(c.observers[string(session)], o)
		if len(c.observers[string(session)]) == 0 {
			delete(c.observers, string(session))
		}
		c.obsMu.Unlock()
	}
}

// notify hands e to the observers of its session.
func (c *Conn) notify(e *cdp.Event) {
	c.obsMu.Lock()
	defer c.obsMu.Unlock()
	for o := range c.observers[e.SessionID] {
		o.fn(e.Method, e.Params)
	}
}

// Sync returns once the observers have seen every event the connection
// received before the call: the rod client hands each event to pump before
// it reads the next message, so every event sent before an answer the
// caller holds is in pump's hands or done with when pump answers here.
func (c *Conn) Sync(ctx context.Context) error {
	done := make(chan struct{})
	select {
	case c.syncs <- done:
	case <-ctx.Done():
		return ctx.Err()
	case <-c.alive.Done():
		return c.Err()
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// watch pings the browser until it is gone.
func (c *Conn) watch() {
	misses := 0
	tick.Every(c.alive.Done(), healthEvery, func() bool {
		err := c.Health(c.alive)
		if err == nil || c.alive.Err() != nil {
			misses = 0
			return true
		}
		misses++
		c.log.Warn("browser does not answer", "endpoint", c.endpoint, "misses", misses, "err", err)
		if misses >= healthMisses {
			c.lost(errs.Wrap(errs.EnvUnavailable, err, "the browser stopped answering"))
			return false
		}
		return true
	})
}

// Event implements rod.CDPClient.
func (c *Conn) Event() <-chan *cdp.Event { return c.events }

// Call implements rod.CDPClient. A call still waiting when the browser goes
// away returns env_unavailable at once. A call whose ctx is marked
// selector.Unanswered is sent and not waited for (see send).
func (c *Conn) Call(ctx context.Context, sessionID, method string, params any) ([]byte, error) {
	if err := c.Err(); err != nil {
		return nil, err
	}
	if selector.IsUnanswered(ctx) {
		// An empty answer: the caller's result stays empty.
		return []byte("{}"), c.send(sessionID, method, params)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(c.alive, cancel)
	defer stop()
	res, err := c.client.Call(ctx, sessionID, method, params)
	if err != nil {
		var protoErr *cdp.Error
		if !errors.As(err, &protoErr) && ctx.Err() == nil {
			// Not an answer from the browser, nor our own deadline: the
			// socket failed (EOF, reset). The browser is gone.
			c.socketFailed(err)
		}
		if gone := c.Err(); gone != nil {
			return nil, gone
		}
		return nil, err
	}
	return res, nil
}

// socketFailed marks the browser gone after its DevTools socket failed
// (EOF, reset: not an answer from the browser).
func (c *Conn) socketFailed(err error) {
	c.lost(errs.Wrap(errs.EnvUnavailable, err, "the browser stopped (its DevTools connection failed)"))
}

// unansweredIDs numbers the calls send makes, apart from the client's own
// (which count up from 1): the browser's answers to them match no waiting
// call, and the client drops them. The browser takes ids up to 2^31-1.
var unansweredIDs atomic.Int64

func init() { unansweredIDs.Store(1 << 30) }

// send writes one call to the browser and returns once it is written,
// without waiting for the answer: the browser handles a session's calls of
// one kind in the order they were written, so a later call of that kind
// that is waited for is answered after it (an input event sent ahead of
// the one that ends a gesture; not a script run after an input event,
// which may run first). An error in the answer is not seen.
func (c *Conn) send(sessionID, method string, params any) error {
	data, err := json.Marshal(cdp.Request{ID: int(unansweredIDs.Add(1)), SessionID: sessionID, Method: method, Params: params})
	if err != nil {
		return err
	}
	if err := c.ws.Send(data); err != nil {
		c.socketFailed(err)
		return c.Err()
	}
	return nil
}

// session is a proto.Client bound to one CDP session and a context.
type session struct {
	c   *Conn
	id  proto.TargetSessionID
	ctx context.Context
}

func (s session) Call(ctx context.Context, _, method string, params any) ([]byte, error) {
	return s.c.Call(ctx, string(s.id), method, params)
}
func (s session) GetSessionID() proto.TargetSessionID { return s.id }
func (s session) GetContext() context.Context         { return s.ctx }
