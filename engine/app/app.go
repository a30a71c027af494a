// Package app wires the engine's parts from a config: the workflow set, the
// state store, the browser environments and the executor. The CLI and the
// server both start from here, so there is one way to assemble toolwright.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"

	"github.com/toolwright/toolwright/engine/browser"
	_ "github.com/toolwright/toolwright/engine/browser/provider/all" // the built-in browser providers
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/policy"
	"github.com/toolwright/toolwright/engine/run"
	_ "github.com/toolwright/toolwright/engine/step/kinds" // the built-in step kinds
	"github.com/toolwright/toolwright/engine/store"
	_ "github.com/toolwright/toolwright/engine/store/all" // the built-in store backends
	"github.com/toolwright/toolwright/engine/workflow"
)

// Logger makes the process logger on w (stderr, never stdout): format
// "text" (or "") or "json" (one object a line), at level, with every secret
// value redacted.
func Logger(w io.Writer, level, format string, cfg *config.Config) (*slog.Logger, error) {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level: want debug, info, warn or error, got %q", level)
	}
	opts := &slog.HandlerOptions{Level: lvl, ReplaceAttr: millis}
	var h slog.Handler
	switch format {
	case "", "text":
		h = slog.NewTextHandler(w, opts)
	case "json":
		h = slog.NewJSONHandler(w, opts)
	default:
		return nil, fmt.Errorf("--log-format: want text or json, got %q", format)
	}
	if cfg != nil {
		h = policy.RedactingHandler(h, policy.NewRedactor(cfg.RedactedValues()))
	}
	return slog.New(h), nil
}

// millis writes every duration in a log as whole milliseconds with the
// unit in the key (took=8.48s → took_ms=8480), the same in text and JSON,
// so an operator's query never meets nanoseconds or "5.982s".
func millis(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() != slog.KindDuration {
		return a
	}
	key := a.Key
	if !strings.HasSuffix(key, "_ms") {
		key += "_ms"
	}
	return slog.Int64(key, a.Value.Duration().Milliseconds())
}

// LoadSet loads and checks the workflows; problems make it an error.
func LoadSet(cfg *config.Config) (*workflow.Set, error) {
	set, ps := workflow.Load(cfg)
	if len(ps) > 0 {
		return nil, &lint.Error{Problems: ps}
	}
	return set, nil
}

// OpenStore opens the state store the config names: store.url (the
// backend registered for its scheme: PostgreSQL), or SQLite under
// state_dir when it is empty.
func OpenStore(cfg *config.Config) (store.Store, error) {
	if cfg.Store.URL == "" {
		if err := os.MkdirAll(cfg.StateDir, 0o700); err != nil {
			return nil, fmt.Errorf("state_dir %s: %w", cfg.StateDir, err)
		}
	}
	key, err := cfg.AuditKey()
	if err != nil {
		return nil, err
	}
	st, err := store.Open(cfg.Store.URL, cfg.StateDir, store.Options{AuditKey: key})
	if err != nil {
		return nil, err
	}
	return st, nil
}

// OpenStoreReadOnly opens the state store to read it without writing
// anything (`audit verify`, `audit head`): no state dir or database file is
// created, nothing is migrated: a SQLite file that is not there is an error
// wrapping store.ErrNoDatabase, and a database without toolwright's schema
// (an empty file, a wiped PostgreSQL database) one wrapping
// store.ErrNoSchema. oldKeys are retired audit keys its checks verify
// their records with too (`audit verify --old-key-env`).
func OpenStoreReadOnly(cfg *config.Config, oldKeys ...[]byte) (store.Store, error) {
	key, err := cfg.AuditKey()
	if err != nil {
		return nil, err
	}
	return store.Open(cfg.Store.URL, cfg.StateDir, store.Options{AuditKey: key, OldAuditKeys: oldKeys, ReadOnly: true})
}

// BrowserOptions maps the config to the browser manager's options.
func BrowserOptions(cfg *config.Config, log *slog.Logger) (browser.Options, error) {
	hosts, err := policy.NewHostMatcher(cfg.Policy.AllowedHosts)
	if err != nil {
		return browser.Options{}, fmt.Errorf("policy.allowed_hosts: %w", err)
	}
	regions := map[string]browser.Region{}
	for name, r := range cfg.Regions {
		regions[name] = browser.Region{Proxy: r.Proxy}
	}
	o := browser.Options{
		Provider: cfg.Browser.Provider, Bin: cfg.Browser.Bin, Headless: cfg.Browser.Headless,
		Endpoints: cfg.Browser.Endpoints, Settings: cfg.Browser.Settings, MaxEnvironments: cfg.Browser.MaxEnvironments,
		MaxPerPurpose: cfg.Browser.MaxPerPurpose, IdleTimeout: cfg.Browser.IdleTimeout,
		Spare:    cfg.Browser.Spare,
		Viewport: browser.Viewport{Width: cfg.Browser.Viewport.Width, Height: cfg.Browser.Viewport.Height},
		Regions:  regions, Logger: log, StateDir: cfg.StateDir,
	}
	if len(cfg.Policy.AllowedHosts) > 0 {
		o.AllowURL = func(u string) bool { ok, _ := hosts.AllowedURL(u); return ok }
		if cfg.Policy.Subresources == "allowed_hosts" && !hosts.AllowsAll() {
			o.HoldSubresources = true
			o.ConnectSrc = hosts.ConnectSources()
		}
	}
	return o, nil
}

// App is an assembled toolwright.
type App struct {
	Config   *config.Config
	Log      *slog.Logger
	Store    store.Store
	Browsers *browser.Manager
	Engine   *run.Engine
}

// Open assembles everything. The browser itself starts lazily on the first
// call. A secret that cannot be read is an error: one call should fail
// fast (`run`, `demo`).
func Open(cfg *config.Config, log *slog.Logger) (*App, error) {
	set, err := LoadSet(cfg)
	if err != nil {
		return nil, err
	}
	return OpenWith(cfg, set, log)
}

// OpenFor is Open for one call of tool (`run`, `selectors --setup`): only
// a secret that tool (or a tool it calls) reads must be readable; the
// others may be unset, as `serve` serves the tools that need none of them.
// An unknown tool opens as Open would let the caller say so.
func OpenFor(cfg *config.Config, log *slog.Logger, tool string) (*App, error) {
	set, err := LoadSet(cfg)
	if err != nil {
		return nil, err
	}
	w, ok := set.Tool(tool)
	if !ok {
		return OpenWith(cfg, set, log)
	}
	for _, name := range set.SecretsOf(w) {
		if why := cfg.MissingSecret(name); why != "" {
			return nil, &config.Error{Err: fmt.Errorf("tool %s needs secret %q, which cannot be read: %s", tool, name, why)}
		}
	}
	return open(cfg, set, log, nil)
}

// OpenServer is Open for `serve`: a secret that cannot be read does not
// stop the server. Each one is logged (by name and source, never a value),
// and the tools that read it answer config_error while the others work.
// wrap, when not nil, wraps the store the engine uses (metrics).
func OpenServer(cfg *config.Config, log *slog.Logger, wrap func(store.Store) store.Store) (*App, error) {
	set, err := LoadSet(cfg)
	if err != nil {
		return nil, err
	}
	for _, name := range cfg.MissingSecrets() {
		var tools []string
		for _, w := range set.Tools() {
			if slices.Contains(set.SecretsOf(w), name) {
				tools = append(tools, w.Name)
			}
		}
		log.Error("secret cannot be read; the tools that need it answer config_error",
			"secret", name, "problem", cfg.MissingSecret(name), "tools", strings.Join(tools, ","))
	}
	for _, w := range SecretWarnings(cfg) {
		log.Warn(w)
	}
	for _, w := range set.Warnings {
		log.Warn(w.Message, "at", w.Pos.String())
	}
	return open(cfg, set, log, wrap)
}

// SecretWarnings are the warnings `validate` prints and `serve` logs about
// the config's secrets: a redacted one shorter than 8 characters or made of
// one common word (policy.WeakSecretWarnings). They never hold a value.
func SecretWarnings(cfg *config.Config) []string {
	ws := policy.WeakSecretWarnings(cfg.RedactedValues())
	if cfg.File != "" {
		for i, w := range ws {
			ws[i] = cfg.File + ": " + w
		}
	}
	return ws
}

// OpenWith assembles toolwright around an already loaded set.
func OpenWith(cfg *config.Config, set *workflow.Set, log *slog.Logger) (*App, error) {
	if err := cfg.SecretsErr(); err != nil {
		return nil, err
	}
	return open(cfg, set, log, nil)
}

func open(cfg *config.Config, set *workflow.Set, log *slog.Logger, wrap func(store.Store) store.Store) (*App, error) {
	st, err := OpenStore(cfg)
	if err != nil {
		return nil, err
	}
	if wrap != nil {
		st = wrap(st)
	}
	bo, err := BrowserOptions(cfg, log)
	if err != nil {
		st.Close()
		return nil, err
	}
	// Remote browsers are shared: environments, their leases and the pool
	// limits live in the store for every replica. The manager uses the
	// registry only when its provider's browsers outlive this process
	// (provider.Attacher).
	bo.Registry = st
	// Browsers that die with this process (local) are in no registry:
	// their environments are published for toolwright ui instead.
	bo.Publisher = st
	bm, err := browser.NewManager(bo)
	if err != nil {
		st.Close()
		return nil, err
	}
	eng, err := run.New(run.Options{Config: cfg, Set: set, Browsers: bm, Store: st, Logger: log})
	if err != nil {
		_ = bm.Shutdown(context.Background())
		st.Close()
		return nil, err
	}
	return &App{Config: cfg, Log: log, Store: st, Browsers: bm, Engine: eng}, nil
}

// Close shuts the browsers down and closes the store.
func (a *App) Close(ctx context.Context) error {
	return errors.Join(a.Browsers.Shutdown(ctx), a.Store.Close())
}

// ParseArgs reads `--arg k=v` pairs as the tool's declared parameter types.
func ParseArgs(w *workflow.Workflow, pairs []string) (map[string]any, error) {
	out := map[string]any{}
	for _, kv := range pairs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("--arg %q: write NAME=VALUE", kv)
		}
		val, err := w.ParseArg(k, v)
		if err != nil {
			return nil, err
		}
		out[k] = val
	}
	return out, nil
}
