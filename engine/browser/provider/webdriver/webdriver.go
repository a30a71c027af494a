// Package webdriver is the webdriver browser provider: a W3C WebDriver
// session per environment (browser.webdriver.endpoints), driven over the
// CDP address the session returns. It is an Attacher and a SessionKeeper:
// the session, not the connection, is the environment's browser, and this
// package alone knows it.
package webdriver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/toolwright/toolwright/engine/browser/provider"
	"github.com/toolwright/toolwright/engine/decl"
	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/tick"
)

// Name is browser.provider's value for this provider.
const Name = "webdriver"

func init() {
	provider.Register(provider.Spec{Name: Name, Doc: "a W3C WebDriver session per environment (Selenium Grid 4, chromedriver), driven over the CDP address it returns",
		Endpoints: provider.WebDriver, New: New,
		Settings: []decl.Field{{Name: "bin", Type: decl.String, Default: "", Doc: "the Chromium binary on the endpoint's machine; empty: the endpoint's own"}}})
}

// webdriverProvider asks W3C WebDriver endpoints (Selenium Grid 4,
// chromedriver, a cloud grid) for one Chromium session per environment and
// drives it over the CDP address the session returns: Grid's `se:cdp`, or
// chromedriver's `goog:chromeOptions.debuggerAddress`. Everything above the
// connection is the same as for the other providers.
//
// The session belongs to its environment, not to the replica that made it:
// its WebDriver URL is recorded in the registry, any replica attaches to the
// browser by its CDP address, and whichever replica closes the environment
// (close_env, the idle reaper, a temporary call's end) deletes the session.
// While a replica has the environment open it keeps the session alive with
// a harmless WebDriver request every wdKeepAlive, so a grid's idle timeout
// (Selenium's --session-timeout, 300 s by default) never ends it under a
// slow agent. A replica that shuts down lets go of kept sessions without
// deleting them.
type webdriverProvider struct {
	endpoints []string
	bin       string
	headless  bool
	dialer    provider.Dialer
	log       *slog.Logger

	mu          sync.Mutex
	next        int
	failedUntil map[string]time.Time
	conns       map[provider.Conn]string // open connections, with the session whose browser each drives ("" before KeepSession)
	closed      bool
}

// Bounds of the WebDriver side: making a session starts a browser, so it
// gets longer than a CDP dial; a keep-alive request is small. KeepAlive is
// how often a kept session is touched (tests shorten it).
var (
	wdSessionTimeout = 60 * time.Second
	wdRequestTimeout = 10 * time.Second
	KeepAlive        = 60 * time.Second
)

// New makes the provider; it asks for no session yet.
func New(o provider.Options, d provider.Dialer) provider.Provider {
	return &webdriverProvider{endpoints: o.Endpoints, bin: o.Bin, headless: o.Headless, dialer: d, log: o.Logger,
		failedUntil: map[string]time.Time{}, conns: map[provider.Conn]string{}}
}

func (p *webdriverProvider) Name() string { return Name }

// Browser makes a new session on the next endpoint that answers and
// connects to its browser.
func (p *webdriverProvider) Browser(ctx context.Context) (provider.Conn, error) {
	return provider.Rotate(ctx, &p.mu, &p.next, p.endpoints, &p.closed, func(ep string) (provider.Conn, bool) {
		return nil, !time.Now().Before(p.failedUntil[ep])
	}, p.open, "no WebDriver endpoint gives a browser session (browser.webdriver.endpoints)")
}

// open makes a session at ep and connects to its browser; the session is
// deleted again when anything after its making fails, and ep is skipped
// for a while.
func (p *webdriverProvider) open(ctx context.Context, ep string) (c provider.Conn, err error) {
	defer func() {
		if err != nil && ctx.Err() == nil {
			p.mu.Lock()
			p.failedUntil[ep] = time.Now().Add(provider.RetryAfter)
			p.mu.Unlock()
			p.log.Warn("WebDriver endpoint did not give a session", "endpoint", ep, "err", err)
		}
	}()
	sctx, cancel := context.WithTimeout(ctx, wdSessionTimeout)
	defer cancel()
	session, cdpURL, err := newSession(sctx, ep, p.capabilities(ep))
	if err != nil {
		return nil, err
	}
	ws, err := provider.ResolveEndpoint(sctx, cdpURL)
	if err == nil {
		c, err = p.dialer.Dial(sctx, ws, 0, nil)
	}
	if err == nil {
		err = p.track(c)
	}
	if err != nil {
		if c != nil {
			c.Close()
		}
		endSession(session, p.log)
		return nil, err
	}
	p.KeepSession(c, session)
	p.log.Info("WebDriver session opened", "endpoint", ep, "session", session, "devtools", ws)
	return c, nil
}

func (p *webdriverProvider) track(c provider.Conn) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return provider.ErrClosed
	}
	p.conns[c] = ""
	go func() {
		<-c.Done()
		p.mu.Lock()
		delete(p.conns, c)
		p.mu.Unlock()
	}()
	return nil
}

// Attach connects to the browser of a session another replica made, by the
// DevTools URL the registry recorded. A browser that refuses the connection
// is gone with its session: env_not_found.
func (p *webdriverProvider) Attach(ctx context.Context, ws string) (provider.Conn, error) {
	p.mu.Lock()
	for c := range p.conns {
		if c.Endpoint() == ws && c.Err() == nil {
			p.mu.Unlock()
			return c, nil
		}
	}
	p.mu.Unlock()
	dctx, cancel := context.WithTimeout(ctx, provider.DialTimeout)
	defer cancel()
	c, err := p.dialer.Dial(dctx, ws, 0, nil)
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) {
			return nil, errs.New(errs.EnvNotFound, "its WebDriver session ended; open a new environment")
		}
		return nil, err
	}
	if err := p.track(c); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Close ends this process's connections; the sessions of kept environments
// stay for the other replicas (Manager.Shutdown deleted the rest).
func (p *webdriverProvider) Close(context.Context) error {
	p.mu.Lock()
	p.closed = true
	conns := make([]provider.Conn, 0, len(p.conns))
	for c := range p.conns {
		conns = append(conns, c)
	}
	p.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
	return nil
}

// capabilities asks for Chromium with the flags the local provider uses
// too. browser.bin, when set, names the binary on the endpoint's machine.
func (p *webdriverProvider) capabilities(ep string) map[string]any {
	args := []string{"--disable-gpu", "--disable-background-networking", "--disable-component-update",
		"--no-first-run", "--disable-sync", "--disable-quic"}
	if p.headless {
		args = append(args, "--headless=new")
	}
	if os.Geteuid() == 0 && loopbackURL(ep) {
		// A driver on this machine runs Chromium as root too, which
		// Chromium refuses without this.
		args = append(args, "--no-sandbox")
	}
	opts := map[string]any{"args": args}
	if p.bin != "" {
		opts["binary"] = p.bin
	}
	return map[string]any{"capabilities": map[string]any{"alwaysMatch": map[string]any{
		"browserName": "chrome", "goog:chromeOptions": opts,
	}}}
}

func loopbackURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	if u.Hostname() == "localhost" {
		return true
	}
	ip := net.ParseIP(u.Hostname())
	return ip != nil && ip.IsLoopback()
}

// newSession asks ep for a session (POST /session) and returns the
// session's URL and the CDP address of its browser: ws:// from se:cdp, or
// http://host:port from debuggerAddress.
func newSession(ctx context.Context, ep string, caps map[string]any) (session, cdpURL string, err error) {
	body, _ := json.Marshal(caps)
	base := strings.TrimSuffix(ep, "/")
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/session", bytes.NewReader(body))
	if err != nil {
		return "", "", errs.Wrap(errs.EnvUnavailable, err, "the WebDriver endpoint is not a URL")
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", "", errs.Wrap(errs.EnvUnavailable, err, "cannot reach the WebDriver endpoint")
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return "", "", errs.Wrap(errs.EnvUnavailable, err, "the WebDriver endpoint's answer broke off")
	}
	id, cdpURL, err := parseNewSession(ep, res.StatusCode, raw)
	if err != nil {
		if id != "" {
			endSession(base+"/session/"+id, nil)
		}
		return "", "", err
	}
	return base + "/session/" + id, cdpURL, nil
}

// parseNewSession reads a W3C new-session answer. The CDP address is
// reached the way the endpoint was: a grid names itself, and chromedriver
// names its browser localhost, as they see themselves.
func parseNewSession(ep string, status int, raw []byte) (id, cdpURL string, err error) {
	var v struct {
		Value struct {
			SessionID    string         `json:"sessionId"`
			Capabilities map[string]any `json:"capabilities"`
			Error        string         `json:"error"`
			Message      string         `json:"message"`
		} `json:"value"`
	}
	if jerr := json.Unmarshal(raw, &v); jerr != nil {
		return "", "", errs.Wrap(errs.EnvUnavailable, fmt.Errorf("status %d: %w", status, jerr), "the WebDriver endpoint's answer is not a W3C new-session answer")
	}
	if status != http.StatusOK || v.Value.SessionID == "" {
		what := v.Value.Error
		if what == "" {
			what = fmt.Sprintf("status %d", status)
		}
		return "", "", errs.Wrap(errs.EnvUnavailable, fmt.Errorf("%s: %s", what, v.Value.Message), "the WebDriver endpoint did not create a session (%s)", what)
	}
	id = v.Value.SessionID
	epURL, _ := url.Parse(ep)
	if s, ok := v.Value.Capabilities["se:cdp"].(string); ok && s != "" {
		u, perr := url.Parse(s)
		if perr != nil || (u.Scheme != "ws" && u.Scheme != "wss") {
			return id, "", errs.New(errs.EnvUnavailable, "the WebDriver session's se:cdp is not a ws:// URL")
		}
		if epURL != nil && epURL.Host != "" {
			u.Host = epURL.Host
		}
		return id, u.String(), nil
	}
	if co, ok := v.Value.Capabilities["goog:chromeOptions"].(map[string]any); ok {
		if addr, ok := co["debuggerAddress"].(string); ok && addr != "" {
			host, port, serr := net.SplitHostPort(addr)
			if serr != nil {
				return id, "", errs.New(errs.EnvUnavailable, "the WebDriver session's debuggerAddress is not host:port")
			}
			if loopbackURL("http://"+net.JoinHostPort(host, port)) && epURL != nil && !loopbackURL(ep) {
				host = epURL.Hostname()
			}
			return id, "http://" + net.JoinHostPort(host, port), nil
		}
	}
	return id, "", errs.New(errs.EnvUnavailable, "the WebDriver session has no CDP address (neither se:cdp nor goog:chromeOptions.debuggerAddress): ask for a Chromium session")
}

// endSession deletes a WebDriver session (best effort, bounded), which ends
// its browser.
func endSession(session string, log interface{ Warn(string, ...any) }) {
	ctx, cancel := context.WithTimeout(context.Background(), wdRequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, session, nil)
	if err == nil {
		var res *http.Response
		if res, err = http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
			if res.StatusCode != http.StatusOK && res.StatusCode != http.StatusNotFound {
				err = fmt.Errorf("status %d", res.StatusCode)
			}
		}
	}
	if err != nil && log != nil {
		log.Warn("cannot delete a WebDriver session", "session", session, "err", err)
	}
}

// Session is the session whose browser c drives (SessionKeeper).
func (p *webdriverProvider) Session(c provider.Conn) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.conns[c]
}

// EndSession deletes session, which ends its browser (SessionKeeper).
func (p *webdriverProvider) EndSession(session string) { endSession(session, p.log) }

// KeepSession keeps the WebDriver session whose browser c drives alive
// while c is open (SessionKeeper): a read of the session's timeouts every
// KeepAlive, which touches neither the page nor the browser. A session the
// endpoint no longer knows (404) means the browser is gone. Once per
// connection.
func (p *webdriverProvider) KeepSession(c provider.Conn, session string) {
	p.mu.Lock()
	s, tracked := p.conns[c]
	if tracked && s == "" {
		p.conns[c] = session
	}
	p.mu.Unlock()
	if !tracked || s != "" || session == "" {
		return
	}
	go p.keepAlive(c, session)
}

func (p *webdriverProvider) keepAlive(c provider.Conn, session string) {
	tick.Every(c.Done(), KeepAlive, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), wdRequestTimeout)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, session+"/timeouts", nil)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			if c.Err() == nil {
				p.log.Warn("WebDriver keep-alive failed", "session", session, "err", err)
			}
			return true
		}
		res.Body.Close()
		if res.StatusCode == http.StatusNotFound {
			c.Lost("the browser's WebDriver session ended")
			return false
		}
		return true
	})
}
