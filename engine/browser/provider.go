package browser

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/go-rod/rod/lib/launcher"

	"github.com/toolwright/toolwright/engine/errs"
)

// Provider is where browsers come from. The Manager asks it for a browser
// each time it opens an environment, and never learns which kind it got:
// environments, crash handling and rules work the same on both.
type Provider interface {
	// Name is "local" or "cdp".
	Name() string
	// Browser returns a live browser connection for a new environment. The
	// local provider launches Chromium on first need and again after a
	// crash; the cdp provider attaches to its endpoints round-robin.
	Browser(ctx context.Context) (*Conn, error)
	// Close ends what the provider started: the local Chromium process and
	// its profile, or the cdp connections (remote browsers keep running).
	Close(ctx context.Context) error
}

func newProvider(o Options) Provider {
	if o.Provider == ProviderCDP {
		return &cdpProvider{endpoints: o.Endpoints, log: o.Logger, allow: o.AllowURL, conns: map[string]*Conn{}}
	}
	tmp := ""
	if o.StateDir != "" {
		tmp = filepath.Join(o.StateDir, "tmp")
	}
	return &localProvider{bin: o.Bin, headless: o.Headless, tmpRoot: tmp, log: o.Logger, allow: o.AllowURL}
}

var errClosed = errs.New(errs.EnvUnavailable, "the browser manager is shut down")

// ErrNoBrowser is the cause when the local provider finds no Chromium.
var ErrNoBrowser = errors.New("no Chromium or Chrome found on PATH: install Chromium (apt-get install -y chromium) or set browser.bin")

// localProvider runs one Chromium process on this machine.
type localProvider struct {
	bin      string
	headless bool
	tmpRoot  string
	log      *slog.Logger
	allow    func(string) bool

	mu     sync.Mutex
	conn   *Conn
	dir    string // profile of the running browser
	closed bool
}

func (p *localProvider) Name() string { return ProviderLocal }

func (p *localProvider) Browser(ctx context.Context) (*Conn, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errClosed
	}
	if p.conn != nil && p.conn.Err() == nil {
		return p.conn, nil
	}
	if p.conn != nil {
		p.conn.Close() // a dead browser: make sure its process and profile are gone
		p.conn = nil
	}
	c, err := p.launch(ctx)
	if err != nil {
		return nil, err
	}
	p.conn = c
	return c, nil
}

// binPath is the Chromium to run.
func (p *localProvider) binPath() (string, error) {
	if p.bin != "" {
		found, err := exec.LookPath(p.bin)
		if err != nil {
			return "", fmt.Errorf("browser.bin %q is not an executable: %w", p.bin, err)
		}
		return found, nil
	}
	if found, ok := launcher.LookPath(); ok {
		return found, nil
	}
	return "", ErrNoBrowser
}

func (p *localProvider) launch(ctx context.Context) (*Conn, error) {
	bin, err := p.binPath()
	if err != nil {
		return nil, errs.Wrap(errs.EnvUnavailable, err, "no browser to open an environment in: install Chromium (apt-get install -y chromium) or set browser.bin")
	}
	if p.tmpRoot != "" {
		if err := os.MkdirAll(p.tmpRoot, 0o700); err != nil {
			return nil, errs.Wrap(errs.EnvUnavailable, err, "cannot make the browser's profile folder")
		}
	}
	dir, err := os.MkdirTemp(p.tmpRoot, "toolwright-chromium-")
	if err != nil {
		return nil, errs.Wrap(errs.EnvUnavailable, err, "cannot make the browser's profile folder")
	}
	headless := p.headless
	if !headless && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		p.log.Warn("browser.headless is false but there is no display; running headless")
		headless = true
	}
	// Bin is always set, so rod never downloads a browser.
	l := launcher.New().Context(ctx).
		Bin(bin).
		Leakless(false).
		Headless(headless).
		UserDataDir(dir).
		Set("disable-gpu").
		Set("disable-background-networking").
		Set("disable-component-update").
		Set("no-first-run").
		Set("disable-sync").
		Set("disable-quic")
	if os.Geteuid() == 0 {
		l = l.NoSandbox(true)
	}
	start := time.Now()
	u, err := l.Launch()
	if err != nil {
		if pid := l.PID(); pid > 0 {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
		}
		_ = os.RemoveAll(dir)
		return nil, errs.Wrap(errs.EnvUnavailable, err, "cannot start the browser %q", bin)
	}
	pid := l.PID()
	exited := make(chan struct{})
	go func() {
		l.Cleanup() // waits for the process to exit, then removes the profile
		close(exited)
	}()
	stop := func() {
		// The profile is thrown away, so there is nothing to flush: end the
		// whole process group (renderers, zygote, utility processes).
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			p.log.Warn("browser process did not exit", "pid", pid)
		}
		_ = os.RemoveAll(dir)
	}
	c, err := dial(ctx, u, pid, p.log, p.allow, stop)
	if err != nil {
		stop()
		return nil, err
	}
	p.dir = dir
	p.log.Info("browser started", "bin", bin, "pid", pid, "headless", headless, "took", time.Since(start).Round(time.Millisecond))
	go func() {
		select {
		case <-exited:
			c.lost(errs.New(errs.EnvUnavailable, "the browser process exited"))
		case <-c.Done():
		}
	}()
	return c, nil
}

func (p *localProvider) Close(context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	if p.conn != nil {
		p.conn.Close()
		p.conn = nil
	}
	return nil
}

// cdpProvider attaches to remote browsers by their DevTools WebSocket URLs:
// a grid, a Kubernetes pool of headless Chromium, or a profile manager that
// hands back a CDP URL. It keeps one connection per endpoint and gives new
// environments the endpoints in turn. It never closes a remote browser, only
// the browser contexts it made (which Chromium also disposes when the
// connection drops).
type cdpProvider struct {
	endpoints []string
	log       *slog.Logger
	allow     func(string) bool

	mu     sync.Mutex
	next   int
	conns  map[string]*Conn
	closed bool
}

func (p *cdpProvider) Name() string { return ProviderCDP }

func (p *cdpProvider) Browser(ctx context.Context) (*Conn, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errClosed
	}
	var errsSeen []error
	for range p.endpoints {
		ep := p.endpoints[p.next%len(p.endpoints)]
		p.next++
		if c := p.conns[ep]; c != nil && c.Err() == nil {
			return c, nil
		}
		c, err := dial(ctx, ep, 0, p.log, p.allow, nil)
		if err != nil {
			p.log.Warn("browser endpoint does not answer", "endpoint", ep, "err", err)
			errsSeen = append(errsSeen, fmt.Errorf("%s: %w", ep, err))
			if ctx.Err() != nil {
				break
			}
			continue
		}
		p.conns[ep] = c
		p.log.Info("attached to browser", "endpoint", ep)
		return c, nil
	}
	return nil, errs.Wrap(errs.EnvUnavailable, errors.Join(errsSeen...), "no browser endpoint answers (browser.endpoints)")
}

func (p *cdpProvider) Close(context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for ep, c := range p.conns {
		c.Close()
		delete(p.conns, ep)
	}
	return nil
}
