// Package cdp is the cdp browser provider: it attaches to running
// browsers by their DevTools endpoints (browser.cdp.endpoints). It is an
// Attacher: its environments outlive this process and replicas share them.
package cdp

import (
	"context"
	"log/slog"
	"net/url"
	"sync"
	"time"

	"github.com/toolwright/toolwright/engine/browser/provider"
	"github.com/toolwright/toolwright/engine/errs"
)

// Name is browser.provider's value for this provider.
const Name = "cdp"

func init() {
	provider.Register(provider.Spec{Name: Name, Doc: "attach to running Chromium endpoints", Endpoints: provider.DevTools, New: New})
}

// New makes the provider; it dials nothing yet.
func New(o provider.Options, d provider.Dialer) provider.Provider {
	p := &cdpProvider{endpoints: o.Endpoints, dialer: d, log: o.Logger, eps: map[string]*endpointState{}}
	for _, ep := range o.Endpoints {
		p.eps[ep] = &endpointState{}
	}
	return p
}

// cdpProvider attaches to remote browsers by their DevTools endpoints: a
// grid, a Kubernetes pool of headless Chromium, Chrome started with
// --remote-debugging-port, or a profile manager that hands back a CDP URL.
// An endpoint is a ws:// URL or http://host:port, resolved through
// /json/version on each dial. It keeps one connection per endpoint and
// gives new environments the endpoints in turn. Dials run outside its lock
// and are bounded, so a hung endpoint is skipped while it is being tried
// and for a while after it failed, and never blocks opens on the others. It
// never closes a remote browser, only the browser contexts it made; they
// outlive the connection (see Manager.create) so another replica can attach
// to them by id (Attach).
type cdpProvider struct {
	endpoints []string
	dialer    provider.Dialer
	log       *slog.Logger

	mu     sync.Mutex
	next   int
	eps    map[string]*endpointState // by configured endpoint
	closed bool
}

type endpointState struct {
	conn        provider.Conn
	dialing     bool
	failedUntil time.Time
}

func (p *cdpProvider) Name() string { return Name }

func (p *cdpProvider) Browser(ctx context.Context) (provider.Conn, error) {
	return provider.Rotate(ctx, &p.mu, &p.next, p.endpoints, &p.closed, func(ep string) (provider.Conn, bool) {
		st := p.eps[ep]
		if st.conn != nil && st.conn.Err() == nil {
			return st.conn, true
		}
		return nil, !st.dialing && !time.Now().Before(st.failedUntil)
	}, p.dial, "no browser endpoint answers (browser.cdp.endpoints)")
}

// dial connects to the configured endpoint ep, marking it busy meanwhile.
func (p *cdpProvider) dial(ctx context.Context, ep string) (provider.Conn, error) {
	p.mu.Lock()
	st := p.eps[ep]
	if st.dialing {
		p.mu.Unlock()
		return nil, errs.New(errs.EnvUnavailable, "browser endpoint %s is being dialled", ep)
	}
	st.dialing = true
	p.mu.Unlock()

	dctx, cancel := context.WithTimeout(ctx, provider.DialTimeout)
	ws, err := provider.ResolveEndpoint(dctx, ep)
	var c provider.Conn
	if err == nil {
		c, err = p.dialer.Dial(dctx, ws, 0, nil)
	}
	cancel()

	p.mu.Lock()
	defer p.mu.Unlock()
	st.dialing = false
	if err != nil {
		st.failedUntil = time.Now().Add(provider.RetryAfter)
		p.log.Warn("browser endpoint does not answer", "endpoint", ep, "err", err)
		return nil, err
	}
	if p.closed {
		c.Close()
		return nil, provider.ErrClosed
	}
	st.conn = c
	p.log.Info("attached to browser", "endpoint", ep, "devtools", c.Endpoint())
	return c, nil
}

// Attach returns a connection to the browser whose DevTools URL is ws (as
// an environment's record says), dialling it when it is one of this
// provider's endpoints. env_not_found means the browser at that endpoint
// is another one now (it restarted, its contexts are gone);
// env_unavailable that it does not answer.
func (p *cdpProvider) Attach(ctx context.Context, ws string) (provider.Conn, error) {
	want, err := url.Parse(ws)
	if err != nil {
		return nil, errs.New(errs.EnvNotFound, "the environment's browser address is not a URL")
	}
	for _, ep := range p.endpoints {
		u, err := url.Parse(ep)
		if err != nil || u.Host != want.Host {
			continue
		}
		p.mu.Lock()
		st := p.eps[ep]
		c := st.conn
		p.mu.Unlock()
		if c == nil || c.Err() != nil {
			if c, err = p.dial(ctx, ep); err != nil {
				return nil, err
			}
		}
		if c.Endpoint() != ws {
			return nil, errs.New(errs.EnvNotFound, "its browser restarted; open a new environment")
		}
		return c, nil
	}
	return nil, errs.New(errs.EnvNotFound, "its browser %s is not one of this server's browser.endpoints", want.Host)
}

func (p *cdpProvider) Close(context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for _, st := range p.eps {
		if st.conn != nil {
			st.conn.Close()
			st.conn = nil
		}
	}
	return nil
}
