package browser

import (
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/toolwright/toolwright/engine/browser/provider"
	"github.com/toolwright/toolwright/engine/errs"
)

// Defaults of the config's browser section (DESIGN.md, "Config").
const (
	DefaultMaxEnvironments = 8
	DefaultMaxPerPurpose   = 4
	DefaultIdleTimeout     = 10 * time.Minute
	// DefaultPurpose is the purpose of an environment opened without one.
	DefaultPurpose = "default"
	// DefaultRegion is the one region that exists when the config names none.
	DefaultRegion = "local"
)

// Options configure a Manager. The zero value launches the system Chromium
// headless with the defaults above.
type Options struct {
	// Provider names a registered provider (provider.Names; the binary
	// imports engine/browser/provider/all): "local" (launch the system
	// Chromium; the default), "cdp" (attach to the remote browsers in
	// Endpoints) or "webdriver" (a W3C WebDriver session per environment
	// at the endpoints in Endpoints).
	Provider string
	// Bin is the Chromium binary of the local provider; empty looks it up on PATH.
	Bin string
	// Headless runs the local browser without a window. Config's default is
	// true; set it explicitly.
	Headless bool
	// Endpoints are the provider's endpoints, of the kind it declares
	// (provider.Spec.Endpoints): for cdp the browsers, used round-robin:
	// ws:// DevTools URLs, or http://host:port (the URL is read from
	// /json/version); for webdriver, the http:// URLs of WebDriver
	// endpoints (a grid, chromedriver), also used in turn.
	Endpoints []string
	// Settings are the provider's other keys (browser.NAME in the config:
	// config.Browser.Settings).
	Settings map[string]any
	// Viewport is the size of every environment's page (browser.viewport;
	// zero: Chromium's own window, 780×493 headless). A workflow may
	// set its own for its calls (Env.SetViewport).
	Viewport Viewport
	// MaxEnvironments caps the open environments (default 8).
	MaxEnvironments int
	// MaxPerPurpose caps the open environments of one purpose (default 4).
	MaxPerPurpose int
	// Spare is how many environments are kept pre-opened (browser context,
	// page and guard ready) in the default region for the next
	// OpenTemporary or Open; they count toward MaxEnvironments. 0 (the zero
	// value) keeps none; the config's browser.spare defaults to 1.
	Spare int
	// IdleTimeout closes an environment no call used for this long (default 10m).
	IdleTimeout time.Duration
	// Regions by name; default {"local": {}} (direct egress).
	Regions map[string]Region
	// AllowURL says whether a top-level navigation to rawURL may happen. The
	// browser blocks every main-frame document request it refuses, and the
	// environment remembers it (Env.TakeBlocked). Nil allows every URL.
	AllowURL func(rawURL string) bool
	// HoldSubresources (policy.subresources: allowed_hosts) applies AllowURL
	// to every request a page makes, not only to top-level navigations:
	// images, scripts, styles, fonts, fetch and XHR, beacons, event
	// streams, frames and WebSockets to a refused URL fail in the browser
	// and are counted (Env.TakeHeld). It needs AllowURL and ConnectSrc.
	HoldSubresources bool
	// ConnectSrc are the Content-Security-Policy sources a page's
	// connections (fetch, XHR, beacons, event streams, WebSockets) may reach
	// under HoldSubresources: the allowed hosts as sources without a scheme
	// (policy.HostMatcher.ConnectSources).
	ConnectSrc []string
	// Logger receives the package's logs; nil discards them.
	Logger *slog.Logger
	// Registry shares the environments with other replicas (see
	// Registry) when the provider's browsers outlive this process
	// (Attacher); nil, or a provider without Attacher, keeps them in this
	// process only.
	Registry Registry
	// Publisher, used only when no Registry is (the provider's browsers
	// die with this process), is told of the open environments so that
	// another process lists them (Publisher); nil publishes nothing.
	Publisher Publisher
	// Replica names this process in leases (default: a random id).
	Replica string
	// LeaseDuration is how long a registry lease lasts without a heartbeat
	// (default 30s).
	LeaseDuration time.Duration
	// StateDir holds the local browser's temporary profiles (under tmp/);
	// empty uses the OS temporary directory.
	StateDir string
}

// Region is where an environment's traffic leaves from.
type Region struct {
	// Proxy is an http://, https:// or socks5:// proxy URL, with optional
	// user:password; empty means direct egress.
	Proxy string
}

// proxy is a region's proxy split into what Chromium takes and the
// credentials it asks for on a 407.
type proxy struct {
	server   string // scheme://host:port, without credentials
	user     string
	password string
	hasAuth  bool
}

func parseProxy(region, raw string) (proxy, error) {
	if raw == "" {
		return proxy{}, nil
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return proxy{}, errs.New(errs.InvalidParams, "region %q: proxy %q is not a URL like http://host:3128", region, redactProxy(raw))
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https", "socks4", "socks5":
	default:
		return proxy{}, errs.New(errs.InvalidParams, "region %q: proxy scheme %q is not one of http, https, socks4, socks5", region, u.Scheme)
	}
	p := proxy{server: strings.ToLower(u.Scheme) + "://" + u.Host}
	if u.User != nil {
		p.user = u.User.Username()
		p.password, _ = u.User.Password()
		p.hasAuth = true
	}
	return p, nil
}

// redactProxy hides the password of a proxy URL for messages and logs.
func redactProxy(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		if i := strings.LastIndex(raw, "@"); i >= 0 {
			return "[redacted]@" + raw[i+1:]
		}
		return raw
	}
	return u.Redacted()
}

func (o Options) withDefaults() (Options, error) {
	if o.Provider == "" {
		o.Provider = provider.Default()
	}
	if o.MaxEnvironments <= 0 {
		o.MaxEnvironments = DefaultMaxEnvironments
	}
	if o.MaxPerPurpose <= 0 {
		o.MaxPerPurpose = DefaultMaxPerPurpose
	}
	if o.Spare < 0 {
		return o, fmt.Errorf("browser.spare must be 0 or more, found %d", o.Spare)
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if len(o.Regions) == 0 {
		o.Regions = map[string]Region{DefaultRegion: {}}
	}
	if o.LeaseDuration <= 0 {
		o.LeaseDuration = DefaultLeaseDuration
	}
	if o.Replica == "" {
		o.Replica = newID()[len("env_"):]
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.HoldSubresources && o.AllowURL == nil {
		return o, fmt.Errorf("policy.subresources: allowed_hosts needs policy.allowed_hosts")
	}
	spec, err := provider.Lookup(o.Provider)
	if err != nil {
		return o, err
	}
	return o, provider.Check(spec, o.providerOptions())
}

// providerOptions are what the provider is made with.
func (o Options) providerOptions() provider.Options {
	return provider.Options{Bin: o.Bin, Headless: o.Headless, Endpoints: o.Endpoints, Settings: o.Settings, StateDir: o.StateDir, Logger: o.Logger}
}

// cspHeader is the Content-Security-Policy every document gets under
// HoldSubresources: its connect-src lets connections reach the allowed
// hosts only. The Fetch domain holds every other request; the header is
// there for WebSockets, which never reach the Fetch domain (and a scheme
// source such as http: would let them through: Chromium matches it to ws:).
// data: and blob: reach no host.
func (o Options) cspHeader() string {
	if !o.HoldSubresources {
		return ""
	}
	src := append([]string{"data:", "blob:"}, o.ConnectSrc...)
	if len(o.ConnectSrc) == 0 {
		src = append(src, "'none'")[2:]
	}
	return "connect-src " + strings.Join(src, " ")
}
