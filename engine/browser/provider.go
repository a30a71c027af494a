package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/toolwright/toolwright/engine/errs"
)

// Provider is where browsers come from. The Manager asks it for a browser
// each time it opens an environment, and never learns which kind it got:
// environments, crash handling and rules work the same on all. What a
// provider can do beyond this it declares by implementing the optional
// interfaces of providers.go (Attacher, SessionKeeper, Starter).
type Provider interface {
	// Name is the name it registered under (RegisterProvider).
	Name() string
	// Browser returns a live browser connection for a new environment:
	// one launched on first need and again after a crash, one of a set of
	// endpoints in turn, or a new session per call.
	Browser(ctx context.Context) (*Conn, error)
	// Close ends what the provider started (a process and its profile,
	// connections); browsers it only attached to keep running.
	Close(ctx context.Context) error
}

// dialer is what every provider's connections share: the log and the
// rules of the guard. It is the Dialer every provider gets.
type dialer struct {
	log     *slog.Logger
	allow   func(string) bool
	known   func(ctx context.Context, contextID string) (*Record, error)
	replica string
	hold    bool   // Options.HoldSubresources
	csp     string // the Content-Security-Policy documents get with hold
}

// Dial connects to endpoint under the guard's rules (Dialer).
func (d *dialer) Dial(ctx context.Context, endpoint string, pid int, onClose func()) (*Conn, error) {
	return dial(ctx, endpoint, pid, *d, onClose)
}

// newProvider makes the provider o.Provider names (checked by withDefaults).
func newProvider(o Options, d Dialer) (Provider, error) {
	s, err := providerSpec(o.Provider)
	if err != nil {
		return nil, err
	}
	return s.New(o, d), nil
}

// endSession ends a browser session through the provider that made it
// (SessionKeeper); a provider without sessions has none to end.
func (m *Manager) endSession(session string) {
	if k, ok := m.provider.(SessionKeeper); ok && session != "" {
		k.EndSession(session)
	}
}

// endSessions ends the sessions of environments lost with their connection
// (a browser that still had its session would live on with nobody to close
// it).
func (m *Manager) endSessions(lost []*Env) {
	for _, e := range lost {
		m.endSession(e.session)
	}
}

var errClosed = errs.New(errs.EnvUnavailable, "the browser manager is shut down")

// rotate offers the endpoints in turn, from the one after the last handed
// out, until one gives a connection. pick runs under mu: a live connection
// to hand out again, or whether ep is worth trying now (false: it failed a
// moment ago or is being tried). try runs outside the lock, so a slow
// endpoint never holds up the others. When none gives one, the error is
// env_unavailable with what each said.
func rotate(ctx context.Context, mu *sync.Mutex, next *int, endpoints []string, closed *bool,
	pick func(ep string) (*Conn, bool), try func(ctx context.Context, ep string) (*Conn, error), none string) (*Conn, error) {
	var errsSeen []error
	for range endpoints {
		mu.Lock()
		if *closed {
			mu.Unlock()
			return nil, errClosed
		}
		ep := endpoints[*next%len(endpoints)]
		*next++
		c, ok := pick(ep)
		mu.Unlock()
		if c != nil {
			return c, nil
		}
		if !ok {
			errsSeen = append(errsSeen, fmt.Errorf("%s: not answering", ep))
			continue
		}
		c, err := try(ctx, ep)
		if err == nil {
			return c, nil
		}
		errsSeen = append(errsSeen, fmt.Errorf("%s: %w", ep, err))
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	return nil, errs.Wrap(errs.EnvUnavailable, errors.Join(errsSeen...), "%s", none)
}

// resolveEndpoint turns http://host:port into the browser's DevTools
// WebSocket URL (GET /json/version); ws:// URLs are returned as they are.
func resolveEndpoint(ctx context.Context, ep string) (string, error) {
	u, err := url.Parse(ep)
	if err != nil {
		return "", err
	}
	if u.Scheme == "ws" || u.Scheme == "wss" {
		return ep, nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(ep, "/")+"/json/version", nil)
	if err != nil {
		return "", err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", errs.Wrap(errs.EnvUnavailable, err, "cannot reach the browser endpoint")
	}
	defer res.Body.Close()
	var v struct {
		WebSocketDebuggerURL string `json:"webSocketDebuggerUrl"`
	}
	if res.StatusCode != http.StatusOK {
		return "", errs.New(errs.EnvUnavailable, "the browser endpoint answered /json/version with %d", res.StatusCode)
	}
	if err := json.NewDecoder(io.LimitReader(res.Body, 1<<16)).Decode(&v); err != nil || v.WebSocketDebuggerURL == "" {
		return "", errs.New(errs.EnvUnavailable, "the browser endpoint's /json/version has no webSocketDebuggerUrl")
	}
	ws, err := url.Parse(v.WebSocketDebuggerURL)
	if err != nil {
		return "", errs.New(errs.EnvUnavailable, "the browser endpoint's webSocketDebuggerUrl is not a URL")
	}
	// The browser names itself as it sees itself; reach it the way we did.
	ws.Host = u.Host
	if u.Scheme == "https" {
		ws.Scheme = "wss"
	}
	return ws.String(), nil
}
