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
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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
	// Name is "local", "cdp" or "webdriver".
	Name() string
	// Browser returns a live browser connection for a new environment. The
	// local provider launches Chromium on first need and again after a
	// crash; the cdp provider attaches to its endpoints round-robin.
	Browser(ctx context.Context) (*Conn, error)
	// Close ends what the provider started: the local Chromium process and
	// its profile, or the cdp connections (remote browsers keep running).
	Close(ctx context.Context) error
}

// dialer is what every provider's connections share: the log and the
// rules of the guard.
type dialer struct {
	log     *slog.Logger
	allow   func(string) bool
	known   func(ctx context.Context, contextID string) (*Record, error)
	replica string
	hold    bool   // Options.HoldSubresources
	csp     string // the Content-Security-Policy documents get with hold
}

func (d dialer) dial(ctx context.Context, endpoint string, pid int, onClose func()) (*Conn, error) {
	return dial(ctx, endpoint, pid, d, onClose)
}

// attacher is a provider whose browsers outlive this process, so an
// environment made by another replica can be reached by its DevTools URL.
type attacher interface {
	Attach(ctx context.Context, devtoolsURL string) (*Conn, error)
}

// starter is a provider that starts its browser on this machine, which can
// take many seconds on a loaded one; Manager.Start asks it to.
type starter interface {
	Start(ctx context.Context) error
}

func newProvider(o Options, d dialer) Provider {
	if o.Provider == ProviderWebDriver {
		return newWebDriverProvider(o, d)
	}
	if o.Provider == ProviderCDP {
		p := &cdpProvider{endpoints: o.Endpoints, d: d, eps: map[string]*endpointState{}}
		for _, ep := range o.Endpoints {
			p.eps[ep] = &endpointState{}
		}
		return p
	}
	tmp := ""
	if o.StateDir != "" {
		tmp = filepath.Join(o.StateDir, "tmp")
	}
	removeStaleProfiles(tmp, o.Logger)
	return &localProvider{bin: o.Bin, headless: o.Headless, tmpRoot: tmp, log: o.Logger, d: d}
}

// Browser profiles are folders profilePrefix* under the state dir's tmp/,
// each with the pid of the server that made it in ownerFile.
const (
	profilePrefix = "toolwright-chromium-"
	ownerFile     = "toolwright.owner"
)

// removeStaleProfiles deletes the profiles left by servers that are gone (a
// SIGKILL, a power cut): those whose owner is not a running process.
func removeStaleProfiles(root string, log *slog.Logger) {
	if root == "" {
		return
	}
	dirs, _ := filepath.Glob(filepath.Join(root, profilePrefix+"*"))
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, ownerFile))
		pid, perr := strconv.Atoi(strings.TrimSpace(string(b)))
		if err == nil && perr == nil && pid > 0 && (pid == os.Getpid() || processAlive(pid)) {
			continue // a running server's browser
		}
		if rerr := os.RemoveAll(d); rerr == nil && log != nil {
			log.Info("removed a stale browser profile", "dir", d)
		}
	}
}

// processAlive says whether pid is a running process (not a zombie).
func processAlive(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // no /proc: the signal test is all we have
	}
	// pid (comm) STATE ...: the state follows the last ')'.
	if i := strings.LastIndexByte(string(stat), ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z'
	}
	return true
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
	d        dialer

	mu     sync.Mutex
	conn   *Conn
	dir    string // profile of the running browser
	closed bool
}

func (p *localProvider) Name() string { return ProviderLocal }

// Start launches Chromium now, when it is not running (see starter).
func (p *localProvider) Start(ctx context.Context) error {
	_, err := p.Browser(ctx)
	return err
}

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
	dir, err := os.MkdirTemp(p.tmpRoot, profilePrefix)
	if err != nil {
		return nil, errs.Wrap(errs.EnvUnavailable, err, "cannot make the browser's profile folder")
	}
	// The owner's pid: the next start removes profiles whose owner is gone.
	_ = os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o600)
	headless := p.headless
	if !headless && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		p.log.Warn("browser.headless is false but there is no display; running headless")
		headless = true
	}
	// Bin is always set, so rod never downloads a browser. Leakless runs
	// Chromium under rod's small guard process, which kills its whole
	// process group when this process dies, even by SIGKILL.
	l := launcher.New().Context(ctx).
		Bin(bin).
		Leakless(true).
		Headless(headless).
		UserDataDir(dir).
		Set("disable-gpu").
		Set("disable-background-networking").
		Set("disable-component-update").
		Set("no-first-run").
		Set("disable-sync").
		Set("disable-quic").
		// Keep Chromium's site isolation (rod's launcher turns it off):
		// pages then meet cross-site frames out of process, as they do in
		// any Chrome a cdp endpoint offers.
		Set("disable-features", "TranslateUI").
		Delete("disable-site-isolation-trials")
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
	c, err := p.d.dial(ctx, u, pid, stop)
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
	d         dialer

	mu     sync.Mutex
	next   int
	eps    map[string]*endpointState // by configured endpoint
	closed bool
}

type endpointState struct {
	conn        *Conn
	dialing     bool
	failedUntil time.Time
}

// cdpDialTimeout bounds one dial of an endpoint; cdpRetryAfter is how long a
// failed endpoint is skipped.
var (
	cdpDialTimeout = 5 * time.Second
	cdpRetryAfter  = 2 * time.Second
)

func (p *cdpProvider) Name() string { return ProviderCDP }

func (p *cdpProvider) Browser(ctx context.Context) (*Conn, error) {
	return rotate(ctx, &p.mu, &p.next, p.endpoints, &p.closed, func(ep string) (*Conn, bool) {
		st := p.eps[ep]
		if st.conn != nil && st.conn.Err() == nil {
			return st.conn, true
		}
		return nil, !st.dialing && !time.Now().Before(st.failedUntil)
	}, p.dial, "no browser endpoint answers (browser.endpoints)")
}

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

// dial connects to the configured endpoint ep, marking it busy meanwhile.
func (p *cdpProvider) dial(ctx context.Context, ep string) (*Conn, error) {
	p.mu.Lock()
	st := p.eps[ep]
	if st.dialing {
		p.mu.Unlock()
		return nil, errs.New(errs.EnvUnavailable, "browser endpoint %s is being dialled", ep)
	}
	st.dialing = true
	p.mu.Unlock()

	dctx, cancel := context.WithTimeout(ctx, cdpDialTimeout)
	ws, err := resolveEndpoint(dctx, ep)
	var c *Conn
	if err == nil {
		c, err = p.d.dial(dctx, ws, 0, nil)
	}
	cancel()

	p.mu.Lock()
	defer p.mu.Unlock()
	st.dialing = false
	if err != nil {
		st.failedUntil = time.Now().Add(cdpRetryAfter)
		p.d.log.Warn("browser endpoint does not answer", "endpoint", ep, "err", err)
		return nil, err
	}
	if p.closed {
		c.Close()
		return nil, errClosed
	}
	st.conn = c
	p.d.log.Info("attached to browser", "endpoint", ep, "devtools", c.Endpoint())
	return c, nil
}

// Attach returns a connection to the browser whose DevTools URL is ws (as
// an environment's record says), dialling it when it is one of this
// provider's endpoints. env_not_found means the browser at that endpoint
// is another one now (it restarted, its contexts are gone);
// env_unavailable that it does not answer.
func (p *cdpProvider) Attach(ctx context.Context, ws string) (*Conn, error) {
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
