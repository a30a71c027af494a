package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/toolwright/toolwright/engine/errs"
)

// doc says what endpoints of kind e are.
func (e Endpoints) doc() string {
	switch e {
	case DevTools:
		return "DevTools endpoints: ws:// URLs, or http://host:port (the URL is read from /json/version)"
	case WebDriver:
		return "W3C WebDriver endpoints (Selenium Grid 4, chromedriver): http://grid:4444"
	}
	return ""
}

// check wants at least one endpoint of kind e, each a URL of a scheme it
// takes; a provider of no kind takes any.
func (e Endpoints) check(name string, eps []string) error {
	var schemes []string
	var need, bad string
	switch e {
	case DevTools:
		schemes, need, bad = []string{"ws", "wss", "http", "https"}, "ws:// or http://host:port URL", "a ws://, wss:// or http://host:port URL"
	case WebDriver:
		schemes, need, bad = []string{"http", "https"}, "http://host:port WebDriver URL", "an http:// or https:// WebDriver URL"
	default:
		return nil
	}
	if len(eps) == 0 {
		return fmt.Errorf("browser.provider %s needs at least one %s in browser.%s.endpoints", name, need, name)
	}
	for _, ep := range eps {
		u, err := url.Parse(ep)
		if err != nil || u.Host == "" || !slices.Contains(schemes, u.Scheme) {
			return fmt.Errorf("browser.%s.endpoints: %q is not %s", name, ep, bad)
		}
	}
	return nil
}

// DialTimeout bounds one dial of an endpoint; RetryAfter is how long an
// endpoint that failed is skipped. Tests shorten them.
var (
	DialTimeout = 5 * time.Second
	RetryAfter  = 2 * time.Second
)

// Rotate offers the endpoints in turn, from the one after the last handed
// out, until one gives a connection. pick runs under mu: a live connection
// to hand out again, or whether ep is worth trying now (false: it failed a
// moment ago or is being tried). try runs outside the lock, so a slow
// endpoint never holds up the others. When none gives one, the error is
// env_unavailable with what each said; none says what was asked for.
func Rotate(ctx context.Context, mu *sync.Mutex, next *int, endpoints []string, closed *bool,
	pick func(ep string) (Conn, bool), try func(ctx context.Context, ep string) (Conn, error), none string) (Conn, error) {
	var errsSeen []error
	for range endpoints {
		mu.Lock()
		if *closed {
			mu.Unlock()
			return nil, ErrClosed
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

// ResolveEndpoint turns http://host:port into the browser's DevTools
// WebSocket URL (GET /json/version); ws:// URLs are returned as they are.
func ResolveEndpoint(ctx context.Context, ep string) (string, error) {
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
