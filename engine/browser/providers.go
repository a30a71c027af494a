package browser

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/toolwright/toolwright/engine/config"
)

// The provider registry: each provider registers itself by name from its
// own file (local.go, cdp.go, webdriver.go), as database/sql drivers do,
// and says what it can do beyond Provider by implementing the optional
// interfaces below, which the Manager type-asserts. Nothing outside a
// provider's own file names a provider (TestNoProviderNamesAboveTheSeam).

// ProviderSpec is one kind of provider: browser.provider's value, how to
// check the options it reads, and how to make it.
type ProviderSpec struct {
	// Name is the value of browser.provider (Options.Provider).
	Name string
	// Doc says what it does, for browser.provider's docs ("start
	// Chromium here").
	Doc string
	// Default makes it the provider of Options that name none; one
	// provider is.
	Default bool
	// Unlisted keeps it out of the config's browser.provider values: a
	// provider tests register for their own managers.
	Unlisted bool
	// Check refuses options this provider cannot work with (no
	// browser.endpoints, an endpoint that is not a URL it can reach); nil
	// accepts any. The error becomes invalid_params.
	Check func(o Options) error
	// New makes the provider of one Manager. o has its defaults (Logger is
	// set); d connects to browsers under the manager's rules.
	New func(o Options, d Dialer) Provider
}

// Dialer connects a provider to a browser: what it returns is under the
// manager's rules (allowed hosts, new pages held until they are set up).
type Dialer interface {
	// Dial connects to the DevTools WebSocket URL endpoint. pid is the
	// browser's process on this machine (0: none); onClose runs once the
	// connection is closed.
	Dial(ctx context.Context, endpoint string, pid int, onClose func()) (*Conn, error)
}

// Attacher is a provider whose browsers outlive this process (cdp,
// webdriver): its environments are shared by replicas. With one, and only
// with one, the Manager uses Options.Registry: kept environments are made
// to outlive their connection, another replica's environment is reached
// through the DevTools URL its record holds, a replica that shuts down lets
// go of its kept environments without closing them, and the reaper closes
// registered ones no replica has. The environments of a provider without
// it live and die with this process.
type Attacher interface {
	// Attach returns a connection to the browser whose DevTools URL is ws
	// (as an environment's record says). env_not_found means that browser
	// is gone (restarted, its session ended); env_unavailable that it does
	// not answer now.
	Attach(ctx context.Context, ws string) (*Conn, error)
}

// SessionKeeper is a provider that makes one browser session per
// environment (webdriver): the session is the environment's browser, kept
// alive while the environment is open and ended when it closes, by
// whichever replica closes it. Its connections name their session
// (Conn.Session); the Manager records it with the environment, and where it
// would dispose of a browser context it ends the session instead.
type SessionKeeper interface {
	// KeepSession keeps session alive while c is open; once per
	// connection. A replica that attaches to another's environment calls
	// it.
	KeepSession(c *Conn, session string)
	// EndSession ends session, and its browser with it (best effort,
	// bounded).
	EndSession(session string)
}

// Starter is a provider with a browser of its own to start (local): Start
// starts it now, so the first Open does not wait for a launch, and returns
// its connection (the one the next Browser returns).
type Starter interface {
	Start(ctx context.Context) (*Conn, error)
}

var (
	providersMu sync.RWMutex
	providers   = map[string]ProviderSpec{}
)

// RegisterProvider makes a provider available as browser.provider
// s.Name. It panics on an empty name, a missing New or a name registered
// twice: providers register from init, and either is a programming error.
func RegisterProvider(s ProviderSpec) {
	providersMu.Lock()
	defer providersMu.Unlock()
	if s.Name == "" || s.New == nil {
		panic("browser: RegisterProvider needs a Name and New")
	}
	if _, dup := providers[s.Name]; dup {
		panic(fmt.Sprintf("browser: provider %q registered twice", s.Name))
	}
	if d := defaultLocked(); s.Default && d != "" {
		panic(fmt.Sprintf("browser: providers %q and %q both say they are the default", d, s.Name))
	}
	providers[s.Name] = s
	if !s.Unlisted {
		config.RegisterBrowserProvider(config.BrowserProvider{Name: s.Name, Doc: s.Doc, Default: s.Default, Check: configCheck(s)})
	}
}

// configCheck is s.Check on a config's browser section, for the config's
// load to report at the section.
func configCheck(s ProviderSpec) func(config.Browser) error {
	if s.Check == nil {
		return nil
	}
	return func(b config.Browser) error { return s.Check(Options{Provider: s.Name, Endpoints: b.Endpoints}) }
}

// ProviderNames lists the registered providers, sorted.
func ProviderNames() []string {
	providersMu.RLock()
	defer providersMu.RUnlock()
	names := make([]string, 0, len(providers))
	for n := range providers {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// defaultProvider is the name of the provider registered as the default.
func defaultProvider() string {
	providersMu.RLock()
	defer providersMu.RUnlock()
	return defaultLocked()
}

func defaultLocked() string {
	for n, s := range providers {
		if s.Default {
			return n
		}
	}
	return ""
}

// providerSpec finds the provider name; the error names the ones there are.
func providerSpec(name string) (ProviderSpec, error) {
	providersMu.RLock()
	s, ok := providers[name]
	providersMu.RUnlock()
	if !ok {
		return ProviderSpec{}, fmt.Errorf("browser.provider %q is not one of %s", name, strings.Join(ProviderNames(), ", "))
	}
	return s, nil
}
