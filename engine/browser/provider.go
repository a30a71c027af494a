package browser

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/toolwright/toolwright/engine/browser/provider"
	"github.com/toolwright/toolwright/engine/errs"
)

// Providers are packages of their own (engine/browser/provider/local, cdp,
// webdriver) that register with package provider; the Manager makes the
// one Options.Provider names, gives it a Dialer, and asks it for what it
// can do through provider's optional interfaces (Attacher, SessionKeeper,
// Starter). Nothing here names a provider (TestNoProviderNamesAboveTheSeam).

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

// Dial connects to endpoint under the guard's rules (provider.Dialer).
func (d *dialer) Dial(ctx context.Context, endpoint string, pid int, onClose func()) (provider.Conn, error) {
	c, err := dial(ctx, endpoint, pid, *d, onClose)
	if err != nil {
		return nil, err // not a typed nil
	}
	return c, nil
}

// newProvider makes the provider o.Provider names (checked by withDefaults).
func newProvider(o Options, d provider.Dialer) (provider.Provider, error) {
	s, err := provider.Lookup(o.Provider)
	if err != nil {
		return nil, err
	}
	return s.New(o.providerOptions(), d), nil
}

// own is c as a connection of this package: a provider hands back only
// connections its Dialer made.
func own(c provider.Conn, err error) (*Conn, error) {
	if err != nil {
		return nil, err
	}
	bc, ok := c.(*Conn)
	if !ok {
		return nil, fmt.Errorf("browser: the provider returned a %T, not a connection its Dialer made", c)
	}
	return bc, nil
}

// sessionOf is the browser session c's browser belongs to (SessionKeeper);
// "" for a provider without sessions.
func (m *Manager) sessionOf(c *Conn) string {
	if k, ok := m.provider.(provider.SessionKeeper); ok {
		return k.Session(c)
	}
	return ""
}

// endSession ends a browser session through the provider that made it
// (SessionKeeper); a provider without sessions has none to end.
func (m *Manager) endSession(session string) {
	if k, ok := m.provider.(provider.SessionKeeper); ok && session != "" {
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

var errClosed = provider.ErrClosed

// isGone reports whether err means the browser went away.
func isGone(err error) bool {
	var e *errs.Error
	return errors.As(err, &e) && e.Code == errs.EnvUnavailable
}
