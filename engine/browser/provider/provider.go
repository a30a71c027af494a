// Package provider is the seam between the browser manager and where its
// browsers come from. Each provider is a package of its own
// (engine/browser/provider/local, cdp, webdriver) that registers itself
// from init with its name, the settings it reads under browser.NAME in the
// config and its constructor (Register), as step kinds and database/sql
// drivers do; package all imports the built-in ones. What a provider can
// do beyond Provider it declares by implementing the optional interfaces
// below (Attacher, SessionKeeper, Starter), which the manager type-asserts:
// nothing above this package tells providers apart by name.
//
// A provider gets its connections from the manager's Dialer, so the
// manager's rules (allowed hosts, new pages held until they are set up,
// crash detection) hold on every provider's browsers alike. This package
// imports neither the manager nor any provider.
package provider

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/decl"
	"github.com/toolwright/toolwright/engine/errs"
)

// Conn is one DevTools connection to a browser, made by the manager's
// Dialer (browser.Conn). A provider hands back the connections its Dialer
// made, and only those.
type Conn interface {
	// Endpoint is the DevTools WebSocket URL of the browser.
	Endpoint() string
	// Done is closed when the browser is gone or the connection closed.
	Done() <-chan struct{}
	// Err is nil while the browser is usable, else an env_unavailable error.
	Err() error
	// Close ends the connection (and, through the Dialer's onClose, what
	// the provider started).
	Close()
	// Lost marks the browser gone (its process exited, its session ended):
	// the connection's calls fail at once with env_unavailable saying why.
	Lost(why string)
}

// Dialer connects a provider to a browser: what it returns is under the
// manager's rules (allowed hosts, new pages held until they are set up).
type Dialer interface {
	// Dial connects to the DevTools WebSocket URL endpoint. pid is the
	// browser's process on this machine (0: none); onClose runs once the
	// connection is closed.
	Dial(ctx context.Context, endpoint string, pid int, onClose func()) (Conn, error)
}

// Provider is where browsers come from. The manager asks it for a browser
// each time it opens an environment, and never learns which kind it got.
type Provider interface {
	// Name is the name it registered under.
	Name() string
	// Browser returns a live browser connection for a new environment:
	// one launched on first need and again after a crash, one of a set of
	// endpoints in turn, or a new session per call.
	Browser(ctx context.Context) (Conn, error)
	// Close ends what the provider started (a process and its profile,
	// connections); browsers it only attached to keep running.
	Close(ctx context.Context) error
}

// Attacher is a provider whose browsers outlive this process (cdp,
// webdriver): its environments are shared by replicas through the
// manager's registry. The environments of a provider without it live and
// die with this process.
type Attacher interface {
	// Attach returns a connection to the browser whose DevTools URL is ws
	// (as an environment's record says). env_not_found means that browser
	// is gone (restarted, its session ended); env_unavailable that it does
	// not answer now.
	Attach(ctx context.Context, ws string) (Conn, error)
}

// SessionKeeper is a provider that makes one browser session per
// environment (webdriver): the session is the environment's browser, kept
// alive while the environment is open and ended when it closes, by
// whichever replica closes it. The manager records an environment's
// session with it, and where it would dispose of a browser context it ends
// the session instead.
type SessionKeeper interface {
	// Session is the session whose browser c drives ("" for none).
	Session(c Conn) string
	// KeepSession keeps session, whose browser c drives, alive while c is
	// open; once per connection. A replica that attaches to another's
	// environment calls it.
	KeepSession(c Conn, session string)
	// EndSession ends session, and its browser with it (best effort,
	// bounded).
	EndSession(session string)
}

// Starter is a provider with a browser of its own to start (local): Start
// starts it now, so the first Open does not wait for a launch, and returns
// its connection (the one the next Browser returns).
type Starter interface {
	Start(ctx context.Context) (Conn, error)
}

// Options are what a provider is made with: the manager's settings that
// concern where browsers come from.
type Options struct {
	// Bin is the Chromium binary (browser.bin, or NAME.bin); empty looks
	// it up.
	Bin string
	// Headless runs the browser without a window.
	Headless bool
	// Endpoints are the provider's endpoints (browser.NAME.endpoints, or
	// the flat browser.endpoints), of the kind Spec.Endpoints says.
	Endpoints []string
	// Settings are the provider's other keys under browser.NAME (its
	// Spec.Settings), as written or their defaults, as plain values.
	Settings map[string]any
	// StateDir holds what the provider keeps on disk (a local browser's
	// temporary profiles); empty: the OS temporary directory.
	StateDir string
	// Logger receives the provider's logs; never nil.
	Logger *slog.Logger
}

// Endpoints says what a provider's endpoints are: none (it starts its own
// browser), DevTools endpoints or WebDriver endpoints. A kind brings the
// endpoints key of the provider's settings, its check and, in
// providertest, the fixture a provider of that kind is tested on.
type Endpoints string

// The kinds of endpoint.
const (
	// NoEndpoints: the provider starts its own browsers.
	NoEndpoints Endpoints = ""
	// DevTools endpoints: ws:// DevTools URLs, or http://host:port (the URL
	// is read from /json/version).
	DevTools Endpoints = "devtools"
	// WebDriver endpoints: http:// URLs of W3C WebDriver endpoints (a
	// grid, chromedriver).
	WebDriver Endpoints = "webdriver"
)

// Spec is one kind of provider: browser.provider's value, the keys it
// reads under browser.NAME, and how to make it.
type Spec struct {
	// Name is the value of browser.provider, and the key of its settings
	// (browser.NAME).
	Name string
	// Doc says what it does, for browser.provider's docs ("start Chromium
	// here").
	Doc string
	// Default makes it the provider of options that name none; one
	// provider is.
	Default bool
	// Unlisted keeps it out of the config: a provider tests register for
	// their own managers.
	Unlisted bool
	// Endpoints is the kind of its endpoints (NoEndpoints: it takes none).
	Endpoints Endpoints
	// Settings declares its keys under browser.NAME beyond endpoints
	// (bin, an API key, ...); a key the flat browser section also has
	// (bin) fills Options' field of that name, the others Options.Settings.
	Settings []decl.Field
	// Check refuses options it cannot work with beyond what its Endpoints
	// kind checks; nil accepts any. The error becomes invalid_params.
	Check func(o Options) error
	// New makes the provider of one manager; d connects to browsers under
	// the manager's rules.
	New func(o Options, d Dialer) Provider
}

var (
	mu    sync.RWMutex
	specs = map[string]Spec{}
)

// Register makes a provider available as browser.provider s.Name. It
// panics on an empty name, a missing New, a name registered twice or a
// second default: providers register from init, and each is a
// programming error.
func Register(s Spec) {
	mu.Lock()
	defer mu.Unlock()
	if s.Name == "" || s.New == nil {
		panic("provider: Register needs a Name and New")
	}
	if _, dup := specs[s.Name]; dup {
		panic(fmt.Sprintf("provider: %q registered twice", s.Name))
	}
	if d := defaultLocked(); s.Default && d != "" {
		panic(fmt.Sprintf("provider: %q and %q both say they are the default", d, s.Name))
	}
	specs[s.Name] = s
	if !s.Unlisted {
		config.RegisterBrowserProvider(config.BrowserProvider{Name: s.Name, Doc: s.Doc, Default: s.Default,
			Settings: s.settings(), Check: func(b config.Browser) error {
				return Check(s, Options{Bin: b.Bin, Headless: b.Headless, Endpoints: b.Endpoints, Settings: b.Settings})
			}})
	}
}

// settings declares the keys under browser.NAME: its endpoints, when it
// takes some, then its own.
func (s Spec) settings() *decl.Object {
	fields := slices.Clone(s.Settings)
	if s.Endpoints != NoEndpoints {
		fields = append([]decl.Field{{Name: "endpoints", Type: decl.List, Elem: &decl.Field{Type: decl.String},
			Doc: s.Endpoints.doc() + ", used in turn"}}, fields...)
	}
	if len(fields) == 0 {
		return nil
	}
	return &decl.Object{Name: "browser." + s.Name, Doc: "The " + s.Name + " provider's settings: " + s.Doc + ".", Fields: fields}
}

// Names lists the registered providers, sorted.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	names := make([]string, 0, len(specs))
	for n := range specs {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Default is the name of the provider registered as the default ("" when
// none is).
func Default() string {
	mu.RLock()
	defer mu.RUnlock()
	return defaultLocked()
}

func defaultLocked() string {
	for n, s := range specs {
		if s.Default {
			return n
		}
	}
	return ""
}

// Lookup finds the provider name; the error names the ones there are.
func Lookup(name string) (Spec, error) {
	mu.RLock()
	s, ok := specs[name]
	mu.RUnlock()
	if !ok {
		there := strings.Join(Names(), ", ")
		if there == "" {
			there = "none (import engine/browser/provider/all)"
		}
		return Spec{}, fmt.Errorf("browser.provider %q is not one of %s", name, there)
	}
	return s, nil
}

// Check is what s finds wrong with o: its endpoints, then its own Check.
func Check(s Spec, o Options) error {
	if err := s.Endpoints.check(s.Name, o.Endpoints); err != nil {
		return err
	}
	if s.Check != nil {
		return s.Check(o)
	}
	return nil
}

// ErrClosed is what a provider's Browser and Attach return once it (or its
// manager) is shut down.
var ErrClosed = errs.New(errs.EnvUnavailable, "the browser manager is shut down")
