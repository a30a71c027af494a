// Package demo is a browser provider that only tests register: it shows
// what a new provider is, one folder that registers itself. It attaches to
// one DevTools endpoint (browser.demo.endpoints) and keeps one connection
// to it, dialled again when it is lost; it declares one setting of its own
// (browser.demo.label) and no capability. engine/browser/provider/all's
// contract test imports it, and the contract suite, which runs over the
// registry, picks it up with no other line written for it.
package demo

import (
	"context"
	"fmt"
	"sync"

	"github.com/toolwright/toolwright/engine/browser/provider"
	"github.com/toolwright/toolwright/engine/decl"
)

// Name is browser.provider's value for this provider.
const Name = "demo"

func init() {
	provider.Register(provider.Spec{
		Name: Name, Doc: "attach to one DevTools endpoint (a test-only provider)",
		Endpoints: provider.DevTools,
		Settings:  []decl.Field{{Name: "label", Type: decl.String, Default: "demo", Doc: "a word logged with each connection"}},
		Check: func(o provider.Options) error {
			if len(o.Endpoints) != 1 {
				return fmt.Errorf("browser.provider %s takes one endpoint, found %d", Name, len(o.Endpoints))
			}
			return nil
		},
		New: func(o provider.Options, d provider.Dialer) provider.Provider {
			label, _ := o.Settings["label"].(string)
			return &Provider{Label: label, ep: o.Endpoints[0], o: o, d: d}
		},
	})
}

// Provider is one connection to one endpoint.
type Provider struct {
	// Label is browser.demo.label ("" when the options came from no config).
	Label string

	ep string
	o  provider.Options
	d  provider.Dialer

	mu     sync.Mutex
	conn   provider.Conn
	closed bool
}

func (p *Provider) Name() string { return Name }

// Browser returns the connection, dialled again when it is lost.
func (p *Provider) Browser(ctx context.Context) (provider.Conn, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, provider.ErrClosed
	}
	if p.conn != nil && p.conn.Err() == nil {
		return p.conn, nil
	}
	ws, err := provider.ResolveEndpoint(ctx, p.ep)
	if err != nil {
		return nil, err
	}
	c, err := p.d.Dial(ctx, ws, 0, nil)
	if err != nil {
		return nil, err
	}
	p.o.Logger.Info("demo provider connected", "label", p.Label, "devtools", ws)
	p.conn = c
	return c, nil
}

// Close closes the connection; the browser runs on.
func (p *Provider) Close(context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	if p.conn != nil {
		p.conn.Close()
		p.conn = nil
	}
	return nil
}
