// Package config loads toolwright.yaml: every key optional, relative paths
// relative to the file, secrets resolved from the environment or files and
// never printed.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/toolwright/toolwright/engine/decl"
	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/yamlx"
	"gopkg.in/yaml.v3"
)

// DefaultFile is read from the working directory when no --config is given.
const DefaultFile = "toolwright.yaml"

// Config is the server configuration.
type Config struct {
	// The fields tagged decl are filled from Decl (its defaults, then the
	// file's values): Default and Parse name no key.
	File       string            // the file it came from; "" for built-in defaults
	Workflows  string            `decl:"workflows"`   // folder of workflows
	Selectors  string            `decl:"selectors"`   // the selector map
	StateDir   string            `decl:"state_dir"`   // sqlite, artifacts
	UploadsDir string            `decl:"uploads_dir"` // the only folder `upload` takes files from
	Store      Store             `decl:"store"`
	Vars       map[string]any    `decl:"vars"`    // visible to workflows as config.*
	Secrets    map[string]Secret `decl:"secrets"` // visible to fill.value as secrets.*
	Browser    Browser           `decl:"browser"`
	Regions    map[string]Region `decl:"regions"`
	WarmupURL  string            `decl:"warmup_url"`
	Policy     Policy            `decl:"policy"`
	Limits     Limits            `decl:"limits"`
	HTTP       HTTP              `decl:"http"`
	Audit      Audit             `decl:"audit"`
	Retention  Retention         `decl:"retention"`
	Sessions   Sessions          `decl:"sessions"`
	UI         UI                `decl:"ui"`
	// Repair is what a broken target's repair proposal is for: RepairPropose
	// (the maintainer reviews it) or RepairUse (a read step of a read tool
	// may also go on with it; the envelope says healed).
	Repair string `decl:"repair"`

	// ArtifactsDir is artifacts_dir as configured (absolute), or "" for
	// state_dir/artifacts; read it through Artifacts.
	ArtifactsDir string `decl:"artifacts_dir"`

	// GrantCommand is how an operator runs `toolwright grant` for this
	// config ("toolwright grant", "toolwright --config FILE grant",
	// "toolwright grant --demo"); not_granted messages print it.
	GrantCommand string
	// StateDirNote says why StateDir is a folder in the system temp dir
	// rather than the user's state dir (an unwritable home), for a log
	// line; "" otherwise.
	StateDirNote string
	// ShutdownGrace is how long running calls may finish after EOF or SIGTERM.
	ShutdownGrace time.Duration `decl:"shutdown_grace"`
	secretVals    map[string]string
	secretErr     error
	missing       map[string]string // secret name → why it cannot be read
}

// Store says where state lives.
type Store struct {
	// URL is empty for SQLite in state_dir, or postgres://... for a
	// PostgreSQL database that several replicas share.
	URL string `decl:"url"`
}

// Retention is how long the server keeps what calls leave behind; 0 keeps it forever.
type Retention struct {
	Traces    time.Duration `decl:"traces"`    // traces in the store (default 30d)
	Artifacts time.Duration `decl:"artifacts"` // each call's files: screenshots, page.html, downloads (default 7d)
}

// ParseRetention reads a retention: a Go duration (36h), whole days (30d)
// or 0 (keep forever).
func ParseRetention(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "0" {
		return 0, nil
	}
	if n, ok := strings.CutSuffix(s, "d"); ok {
		var days int
		if _, err := fmt.Sscanf(n, "%d", &days); err == nil && days > 0 && fmt.Sprint(days) == n && days <= 100*365 {
			return time.Duration(days) * 24 * time.Hour, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("want a duration such as 30d, 36h or 0 (keep forever), got %q", s)
	}
	return d, nil
}

// Audit configures the audit log.
type Audit struct {
	// Key is where audit.key comes from: the HMAC key of the audit chain.
	Key Secret `decl:"key"`
	// KeySet is true when the config file names the key; the default
	// ({env: TOOLWRIGHT_AUDIT_KEY}) is used only when that variable is set.
	KeySet bool
}

// Sessions configures saved sign-in state per purpose (off without a key).
type Sessions struct {
	// Key is where sessions.key comes from: the secret sessions are sealed
	// under (AES-256-GCM).
	Key Secret `decl:"key"`
	// KeySet is true when the config file names the key; the default
	// ({env: TOOLWRIGHT_SESSION_KEY}) is used only when that variable is set.
	KeySet bool
	// TTL is how long a saved session is used (sessions.ttl, 7d).
	TTL time.Duration `decl:"ttl"`
}

// UI is where toolwright ui is reached, for the links the server hands
// out (an ask_human handoff's take-over link).
type UI struct {
	// URL is ui.url: the ui's base URL.
	URL string `decl:"url"`
}

// DefaultUIURL is ui.url's default: toolwright ui's default address.
const DefaultUIURL = "http://127.0.0.1:7077"

// DefaultSessionKeyEnv is where sessions.key is read from when the config does not say.
const DefaultSessionKeyEnv = "TOOLWRIGHT_SESSION_KEY"

// SessionKey reads sessions.key: "" (sessions off) when the config names
// none and $TOOLWRIGHT_SESSION_KEY is unset or empty. A key the config
// names that cannot be read or is empty is an error; it never holds the
// value.
func (c *Config) SessionKey() (string, error) {
	if !c.Sessions.KeySet {
		if v, ok := os.LookupEnv(c.Sessions.Key.Env); !ok || c.Sessions.Key.Env == "" || v == "" {
			return "", nil
		}
	}
	v, err := c.Sessions.Key.Read()
	if err != nil {
		return "", &Error{fmt.Errorf("sessions.key: %v", err)}
	}
	if v == "" {
		return "", &Error{fmt.Errorf("sessions.key is empty")}
	}
	return v, nil
}

// DefaultAuditKeyEnv is where audit.key is read from when the config does not say.
const DefaultAuditKeyEnv = "TOOLWRIGHT_AUDIT_KEY"

// AuditKey reads audit.key. With no key in the config file and
// $TOOLWRIGHT_AUDIT_KEY unset it is nil (a plain hash chain). A key the
// config names but that cannot be read, or is empty, is an error: the
// store must not fall back to a plain chain without a word. The error never
// holds the value.
func (c *Config) AuditKey() ([]byte, error) {
	if !c.Audit.KeySet {
		if v, ok := os.LookupEnv(c.Audit.Key.Env); !ok || c.Audit.Key.Env == "" || v == "" {
			return nil, nil
		}
	}
	v, err := c.Audit.Key.Read()
	if err != nil {
		return nil, &Error{fmt.Errorf("audit.key: %v", err)}
	}
	if v == "" {
		return nil, &Error{fmt.Errorf("audit.key is empty")}
	}
	return []byte(v), nil
}

// Error is a problem with the config found when a part that needs the
// setting starts (an audit.key that cannot be read): the CLI exits 2.
type Error struct{ Err error }

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Secret says where a secret value comes from.
type Secret struct {
	Env  string `decl:"env"`
	File string `decl:"file"`
	// NoRedact is `redact: false` on an entry of secrets: an identity (a
	// user name, an account id) usable in fill but not replaced by
	// [redacted:NAME] wherever it appears.
	NoRedact bool
}

// Browser configures the environments.
type Browser struct {
	Provider        string        `decl:"provider"` // a registered provider (RegisterBrowserProvider)
	Bin             string        `decl:"bin"`
	Headless        bool          `decl:"headless"`
	Endpoints       []string      `decl:"endpoints"`
	MaxEnvironments int           `decl:"max_environments"`
	MaxPerPurpose   int           `decl:"max_per_purpose"`
	IdleTimeout     time.Duration `decl:"idle_timeout"`
	Spare           int           `decl:"spare"` // environments kept pre-opened for env: temporary calls (0: none)
	Viewport        Viewport      `decl:"viewport"`
	// Settings are the chosen provider's own keys under browser.NAME
	// (those the flat section lacks), as written or their defaults; its
	// bin and endpoints, written there or flat, are Bin and Endpoints.
	Settings map[string]any
}

// Viewport is a page's size in CSS pixels (browser.viewport, a workflow's
// viewport:).
type Viewport struct {
	Width  int `decl:"width"`
	Height int `decl:"height"`
}

// Region is an egress: a proxy and a check that it works.
type Region struct {
	Proxy       string       `decl:"proxy"`
	EgressCheck *EgressCheck `decl:"egress_check"`
}

// EgressCheck is fetched through the region's proxy by check_egress.
type EgressCheck struct {
	URL          string `decl:"url"`
	ExpectStatus int    `decl:"expect_status"`
}

// The modes of policy.write_tools, declared once: PolicyDecl's enum and
// policy.WriteMode both read them.
const (
	WriteGrant    = "grant"
	WriteEnabled  = "enabled"
	WriteDisabled = "disabled"
)

// WriteModes is every mode of policy.write_tools, in order.
var WriteModes = []string{WriteGrant, WriteEnabled, WriteDisabled}

// The modes of repair:, declared once: Decl's enum and the executor read
// them.
const (
	RepairPropose = "propose"
	RepairUse     = "use"
)

// RepairModes is every mode of repair:, in order.
var RepairModes = []string{RepairPropose, RepairUse}

// Policy holds the lines the server keeps.
type Policy struct {
	WriteTools   string   `decl:"write_tools"` // grant | enabled | disabled
	AllowedHosts []string `decl:"allowed_hosts"`
	// Subresources is "any" or "allowed_hosts": whether every request a
	// page makes, not only its navigations, is held to AllowedHosts.
	Subresources string `decl:"subresources"`
}

// Limits bound what one call may do.
type Limits struct {
	MaxDeadline time.Duration `decl:"max_deadline"`
	// StepTimeout bounds a step that declares no timeout of its own.
	StepTimeout      time.Duration `decl:"step_timeout"`
	MaxLoop          int           `decl:"max_loop"`
	MaxListItems     int           `decl:"max_list_items"`
	MaxResponseBytes int           `decl:"max_response_bytes"`
	MaxDownloadBytes int64         `decl:"max_download_bytes"`
	// MaxArtifactBytes bounds each file a call keeps (page.html is cut with
	// a marker; a screenshot above it is not kept).
	MaxArtifactBytes int64 `decl:"max_artifact_bytes"`
}

// HTTP configures `serve --http`.
type HTTP struct {
	Addr  string `decl:"addr"`
	Token Secret `decl:"token"`
	// MaxSessions bounds the open MCP sessions (503 when full).
	MaxSessions int `decl:"max_sessions"`
	// SessionIdleTimeout closes a session after this long without requests.
	SessionIdleTimeout time.Duration `decl:"session_idle_timeout"`
	// Stateless serves without MCP sessions (replicas behind round-robin).
	Stateless bool `decl:"stateless"`
}

// Default returns the built-in configuration, with paths relative to dir:
// Decl's defaults.
func Default(dir string) *Config {
	c := newConfig()
	Decl.Fill(nil, c, dir, nil)
	c.finish()
	return c
}

// newConfig is a Config before its declared fields are filled.
func newConfig() *Config {
	return &Config{GrantCommand: "toolwright grant", secretVals: map[string]string{}}
}

// finish sets what follows from the declared fields: empty maps rather
// than nil, the one region local when regions: names none, and
// config.warmup_url visible to workflows.
func (c *Config) finish() {
	if c.Vars == nil {
		c.Vars = map[string]any{}
	}
	if c.Secrets == nil {
		c.Secrets = map[string]Secret{}
	}
	if len(c.Regions) == 0 {
		c.Regions = map[string]Region{"local": {}}
	}
	if v, ok := c.Vars["warmup_url"]; !ok || v == "" {
		c.Vars["warmup_url"] = c.WarmupURL
	}
}

// userStateDir is where toolwright keeps its state when no config file says
// otherwise: $XDG_STATE_HOME/toolwright, else ~/.local/state/toolwright
// (else a folder in the system temp dir when there is no home, or when the
// home cannot be written: a service user's /nonexistent). It never depends
// on the working directory, so a client that starts the server from /
// works. note says why it fell back to the temp dir (for a log line).
func userStateDir() (dir, note string) {
	var want string
	if x := os.Getenv("XDG_STATE_HOME"); x != "" && filepath.IsAbs(x) {
		want = filepath.Join(x, "toolwright")
	} else if home, err := os.UserHomeDir(); err == nil && home != "" && filepath.IsAbs(home) {
		want = filepath.Join(home, ".local", "state", "toolwright")
	}
	tmp := filepath.Join(os.TempDir(), fmt.Sprintf("toolwright-%d", os.Getuid()))
	if want == "" {
		return tmp, ""
	}
	if err := canMake(want); err != nil {
		return tmp, fmt.Sprintf("the state dir %s cannot be made (%v): using %s instead; set state_dir in a config file (or XDG_STATE_HOME) to keep state elsewhere", want, err, tmp)
	}
	return want, ""
}

// canMake says whether dir exists as a writable folder or could be made:
// its nearest existing ancestor is a folder this user may write. It
// creates nothing.
func canMake(dir string) error {
	for p := dir; ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		switch {
		case err == nil && !fi.IsDir():
			return fmt.Errorf("%s is not a folder", p)
		case err == nil:
			if err := syscall.Access(p, 2 /* W_OK */); err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			return nil
		case !errors.Is(err, fs.ErrNotExist):
			return err
		case p == filepath.Dir(p):
			return err
		}
	}
}

// Load reads path, or ./toolwright.yaml when path is empty and it exists,
// or returns the defaults. Problems carry file:line:col.
func Load(path string) (*Config, error) {
	explicit := path != ""
	if !explicit {
		path = DefaultFile
		if _, err := os.Stat(path); err != nil {
			wd, _ := os.Getwd()
			c := Default(wd)
			c.StateDir, c.StateDirNote = userStateDir()
			c.secretErr = c.resolveSecrets()
			return c, nil
		}
	}
	data, err := yamlx.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	c, ps := Parse(abs, data)
	if err := ps.Err(); err != nil {
		return nil, err
	}
	if explicit {
		c.GrantCommand = "toolwright --config " + ShellWord(abs) + " grant"
	}
	c.secretErr = c.resolveSecrets()
	return c, nil
}

// Artifacts is the folder failure screenshots, page HTML and screenshot
// steps' files go to: artifacts_dir, or state_dir/artifacts when it is
// empty. Replicas share it by naming one folder; traces record artifact
// paths relative to it (store.ArtifactPath resolves them).
func (c *Config) Artifacts() string {
	if c.ArtifactsDir != "" {
		return c.ArtifactsDir
	}
	return filepath.Join(c.StateDir, "artifacts")
}

// SecretsErr says which secrets could not be read when the config was
// loaded. Commands that only check files (validate, tools, docs) ignore it;
// `run` refuses to start with it; `serve` starts and answers the tools
// that need a missing secret with config_error (see MissingSecret).
func (c *Config) SecretsErr() error { return c.secretErr }

// MissingSecret says why the secret name could not be read when the config
// was loaded ("environment variable ACME_USER is not set"), or "" when it
// was read. The reason never contains a value.
func (c *Config) MissingSecret(name string) string { return c.missing[name] }

// MissingSecrets returns the names of the secrets that could not be read, sorted.
func (c *Config) MissingSecrets() []string { return sortedKeys(c.missing) }

// sortedKeys returns m's keys, sorted.
func sortedKeys[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ShellWord quotes s for a POSIX shell unless it only has safe characters
// (for commands printed to operators).
func ShellWord(s string) string {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-/+=:,@", r)) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}

// SecretDecl declares where a secret comes from.
var SecretDecl = &decl.Object{
	Name: "secret", Title: "secret source",
	Doc: "Where the value is read from when the server starts; the value itself never goes in the config. Give exactly one of env or file.",
	Fields: []decl.Field{
		{Name: "env", Type: decl.String, Doc: "an environment variable"},
		{Name: "file", Type: decl.String, Doc: "a file (relative to the config's folder); trailing newlines are dropped"},
	},
}

// NamedSecretDecl declares an entry of secrets: where its value comes from
// and whether it is redacted.
var NamedSecretDecl = &decl.Object{
	Name: "named_secret", Title: "secret",
	Doc: SecretDecl.Doc + " A user name or account id is an identity, not a secret: give it redact: false.",
	Fields: append(append([]decl.Field{}, SecretDecl.Fields...), decl.Field{
		Name: "redact", Type: decl.Bool, Default: true,
		Doc: "replace the value by [redacted:NAME] wherever it appears (results, traces, logs, artifacts); false for an identity such as a user name, which is still usable in fill.value but left as it is in the text around it",
	}),
}

// secretField declares a key holding a secret source, read from env by default.
func secretField(name, env, doc string) decl.Field {
	return decl.Field{Name: name, Type: decl.Nested, Obj: SecretDecl, Raw: true, Default: map[string]any{"env": env}, Doc: doc}
}

// Decl declares toolwright.yaml: every key optional.
var Decl = &decl.Object{
	Name: "config", Title: "toolwright config",
	Doc: "The server config, toolwright.yaml. Every key is optional; relative paths are relative to this file's folder.",
	Fields: []decl.Field{
		{Name: "workflows", Type: decl.String, Path: true, Default: "./workflows", Doc: "the folder of workflow files"},
		{Name: "selectors", Type: decl.String, Path: true, Default: "./selectors/selectors.yaml", Doc: "the selector map"},
		{Name: "state_dir", Type: decl.String, Path: true, Default: "./.toolwright", Doc: "where the SQLite store and artifacts live"},
		{Name: "uploads_dir", Type: decl.String, Path: true, Default: "./uploads", Doc: "the only folder the upload step takes files from"},
		{Name: "store", Type: decl.Nested, Obj: StoreDecl, Doc: "where state lives: SQLite in state_dir, or PostgreSQL for several replicas"},
		{Name: "artifacts_dir", Type: decl.String, Path: true, Default: "", Doc: "where failure screenshots, page HTML and screenshot files go; empty: state_dir/artifacts; replicas share one folder (traces record paths relative to it)"},
		{Name: "vars", Type: decl.Map, Elem: &decl.Field{Type: decl.Any}, Doc: "non-secret values, visible to workflows as config.NAME"},
		{Name: "secrets", Type: decl.Map, Elem: &decl.Field{Type: decl.Nested, Obj: NamedSecretDecl}, Raw: true, Doc: "secrets, visible only to fill.value as secrets.NAME: {env: VAR} or {file: PATH}, and {redact: false} for an identity that is not redacted"},
		{Name: "browser", Type: decl.Nested, Obj: BrowserDecl, Doc: "the browser environments"},
		{Name: "regions", Type: decl.Map, Elem: &decl.Field{Type: decl.Nested, Obj: RegionDecl}, Default: map[string]any{"local": map[string]any{}}, Doc: "egress regions: NAME: {proxy, egress_check}; with none, one region local with direct egress"},
		{Name: "warmup_url", Type: decl.String, Default: "", Doc: "visited by prepare_environment when set"},
		{Name: "policy", Type: decl.Nested, Obj: PolicyDecl, Doc: "what the server allows"},
		{Name: "limits", Type: decl.Nested, Obj: LimitsDecl, Doc: "bounds on what one call may do"},
		{Name: "shutdown_grace", Type: decl.Duration, Default: 10 * time.Second, Doc: "running calls may finish this long after EOF or SIGTERM"},
		{Name: "http", Type: decl.Nested, Obj: HTTPDecl, Doc: "serve --http"},
		{Name: "audit", Type: decl.Nested, Obj: AuditDecl, Doc: "the audit log"},
		{Name: "sessions", Type: decl.Nested, Obj: SessionsDecl, Doc: "saved sign-in state per purpose, sealed in the store (off without a key)"},
		{Name: "ui", Type: decl.Nested, Obj: UIDecl, Doc: "where toolwright ui is reached"},
		{Name: "repair", Type: decl.Enum, Enum: RepairModes, Default: RepairPropose, Doc: "what a broken target's repair proposal (found by its last fingerprint) is for: propose: only the maintainer sees it (the trace, selectors check, toolwright ui); use: a read step (wait, extract, assert: not one that acts) of a read tool may also go on with an unambiguous proposal, and the envelope lists the target under healed; a write tool, or a step that acts, never uses an unreviewed repair"},
		{Name: "retention", Type: decl.Nested, Obj: RetentionDecl, Doc: "how long traces and call artifacts are kept (pruned hourly by serve and by toolwright gc)"},
	},
}

// RetentionDecl declares retention:.
var RetentionDecl = &decl.Object{Name: "retention", Doc: "How long the server keeps what calls leave behind; serve prunes hourly, toolwright gc at once.", Fields: []decl.Field{
	{Name: "traces", Type: decl.String, Default: "30d", Conv: retention, Doc: "traces older than this are deleted from the store (30d, 36h; 0: keep forever); the audit log is never pruned"},
	{Name: "artifacts", Type: decl.String, Default: "7d", Conv: retention, Doc: "a call's files (screenshots, page.html, downloads) older than this are deleted (7d, 12h; 0: keep forever)"},
}}

// AuditDecl declares audit:.
var AuditDecl = &decl.Object{Name: "audit", Doc: "The audit log.", Fields: []decl.Field{
	secretField("key", DefaultAuditKeyEnv, "the HMAC key of the audit chain: with it a rewrite of the log by someone without the key is caught (the default is used when that variable is set; without a key the chain is a plain hash chain)"),
}}

// UIDecl declares ui:.
var UIDecl = &decl.Object{Name: "ui", Doc: "Where toolwright ui is reached, for the links the server hands out.", Fields: []decl.Field{
	{Name: "url", Type: decl.String, Default: DefaultUIURL, Conv: uiURL, Doc: "the ui's base URL, as a person opens it: an ask_human handoff's link is URL/env/ENV_ID/"},
}}

// SessionsDecl declares sessions:.
var SessionsDecl = &decl.Object{Name: "sessions", Doc: "Saved sign-in state per purpose: the cookies and local storage of an environment, saved after a session: save workflow succeeds, on close_env and on reaping, and restored into every new environment of that purpose; sealed with AES-256-GCM in the store, so replicas share it.", Fields: []decl.Field{
	secretField("key", DefaultSessionKeyEnv, "the secret sessions are sealed under, at least 16 characters (the default is used when that variable is set); without a key sessions are off"),
	{Name: "ttl", Type: decl.String, Default: "7d", Conv: sessionTTL, Doc: "how long a saved session is used (7d, 12h); an expired one costs one sign-in"},
}}

// StoreDecl declares store:.
var StoreDecl = &decl.Object{Name: "store", Doc: "Where idempotency records, grants, traces and the audit log live.", Fields: []decl.Field{
	{Name: "url", Type: decl.String, Default: "", Conv: storeURL}, // its docs and check: the registered backends (RegisterStoreBackend)
}}

// BrowserDecl declares browser:.
var BrowserDecl = &decl.Object{Name: "browser", Doc: "The browser environments.", Fields: []decl.Field{
	{Name: "provider", Type: decl.Enum}, // its values, default and docs: the registered providers (RegisterBrowserProvider), whose settings follow these keys as sections browser.NAME
	{Name: "bin", Type: decl.String, Default: "", Doc: "the flat form of browser.NAME.bin, for the provider that takes one (local, webdriver): the Chromium or Chrome binary"},
	{Name: "headless", Type: decl.Bool, Default: true, Doc: "run without a window"},
	{Name: "endpoints", Type: decl.List, Elem: &decl.Field{Type: decl.String}, Doc: "the flat form of browser.NAME.endpoints, for the provider that takes them (cdp: ws:// or http://host:port endpoints; webdriver: http://grid:4444 WebDriver URLs)"},
	{Name: "max_environments", Type: decl.Int, Min: decl.F(1), Default: 8, Doc: "environments open at once"},
	{Name: "max_per_purpose", Type: decl.Int, Min: decl.F(1), Default: 4, Doc: "environments one purpose may hold"},
	{Name: "idle_timeout", Type: decl.Duration, Default: 10 * time.Minute, Doc: "an environment unused this long is closed"},
	{Name: "spare", Type: decl.Int, Min: decl.F(0), Default: 1, Doc: "environments kept pre-opened for env: temporary calls (0: none; at most max_environments)"},
	{Name: "viewport", Type: decl.Nested, Obj: ViewportDecl, Doc: "the size of every environment's page (a workflow's viewport: overrides it for its calls)"},
}}

// The default viewport: wide enough for the desktop layout of admin screens
// (many switch to a phone layout under 782 px).
const (
	DefaultViewportWidth  = 1280
	DefaultViewportHeight = 800
)

// ViewportDecl declares browser.viewport and a workflow's viewport:.
var ViewportDecl = &decl.Object{Name: "viewport", Doc: "A page's size in CSS pixels: window.innerWidth, media queries and layout follow it.", Fields: []decl.Field{
	{Name: "width", Type: decl.Int, Min: decl.F(200), Max: decl.F(7680), Default: DefaultViewportWidth, Doc: "CSS pixels wide"},
	{Name: "height", Type: decl.Int, Min: decl.F(200), Max: decl.F(4320), Default: DefaultViewportHeight, Doc: "CSS pixels high"},
}}

// ViewportOf reads a decoded viewport (nil: def).
func ViewportOf(v *decl.Values, def Viewport) Viewport {
	if v == nil {
		return def
	}
	return Viewport{Width: v.Int("width", def.Width), Height: v.Int("height", def.Height)}
}

// EgressDecl declares a region's egress_check.
var EgressDecl = &decl.Object{Name: "egress_check", Doc: "Fetched through the region's proxy by check_egress.", Fields: []decl.Field{
	{Name: "url", Type: decl.String, Required: true, Doc: "the address to fetch"},
	{Name: "expect_status", Type: decl.Int, Default: 200, Doc: "the HTTP status that means the egress works"},
}}

// RegionDecl declares one region.
var RegionDecl = &decl.Object{Name: "region", Doc: "An egress: a proxy and a check that it works.", Fields: []decl.Field{
	{Name: "proxy", Type: decl.String, Doc: "the proxy URL, such as http://user:pass@proxy:3128; empty: direct"},
	{Name: "egress_check", Type: decl.Nested, Obj: EgressDecl, Doc: "how check_egress verifies the region"},
}}

// PolicyDecl declares policy:.
var PolicyDecl = &decl.Object{Name: "policy", Doc: "What the server allows.", Fields: []decl.Field{
	{Name: "write_tools", Type: decl.Enum, Enum: WriteModes, Default: WriteGrant, Doc: "grant: write tools need a live grant per task; enabled: no grants (development); disabled: refused"},
	{Name: "allowed_hosts", Type: decl.List, Elem: &decl.Field{Type: decl.String}, Doc: "hosts pages may navigate to, like 127.0.0.1 or *.example.com; empty: any"},
	{Name: "subresources", Type: decl.Enum, Enum: []string{"any", "allowed_hosts"}, Default: "any", Doc: "any: a page's own requests (images, scripts, fetch, XHR, beacons, WebSockets, frames) may reach any host; allowed_hosts: every request a page makes is held to allowed_hosts, blocked in the browser and counted in the trace"},
}}

// LimitsDecl declares limits:.
var LimitsDecl = &decl.Object{Name: "limits", Doc: "Bounds on what one call may do.", Fields: []decl.Field{
	{Name: "max_deadline", Type: decl.Duration, Default: 10 * time.Minute, Doc: "the longest deadline a workflow may have"},
	{Name: "step_timeout", Type: decl.Duration, Default: 10 * time.Second, Doc: "how long a step that sets no timeout of its own may take (do, repeat, call and the other containers are bounded by the call's deadline only); raise it for slow sites or a busy machine"},
	{Name: "max_loop", Type: decl.Int, Min: decl.F(1), Default: 100, Doc: "the most iterations of a loop"},
	{Name: "max_list_items", Type: decl.Int, Min: decl.F(1), Default: 200, Doc: "the most items of a list in a result"},
	{Name: "max_response_bytes", Type: decl.Int, Min: decl.F(1), Default: 65536, Doc: "the largest result"},
	{Name: "max_download_bytes", Type: decl.Int, Min: decl.F(1), Default: 52428800, Doc: "the largest file a download step may save (its max_bytes is at most this)"},
	{Name: "max_artifact_bytes", Type: decl.Int, Min: decl.F(1024), Default: 5242880, Doc: "the largest file a call keeps: a failure's page.html is cut to it with a marker, a screenshot above it is not kept (the screenshot step fails with limit_exceeded)"},
}}

// HTTPDecl declares http:.
var HTTPDecl = &decl.Object{Name: "http", Doc: "serve --http.", Fields: []decl.Field{
	{Name: "addr", Type: decl.String, Default: "127.0.0.1:8080", Doc: "the listen address"},
	secretField("token", "TOOLWRIGHT_TOKEN", "the bearer token clients must send; required when addr is not loopback"),
	{Name: "max_sessions", Type: decl.Int, Min: decl.F(1), Default: 256, Doc: "MCP sessions open at once (more get 503)"},
	{Name: "session_idle_timeout", Type: decl.Duration, Default: 10 * time.Minute, Doc: "a session unused this long is closed"},
	{Name: "stateless", Type: decl.Bool, Default: false, Doc: "true: no MCP session state on the server, so replicas work behind plain round-robin (no list_changed push); false: a balancer keeps each Mcp-Session-Id on its replica"},
}}

// Parse decodes a config file's bytes; file must be absolute so relative
// paths can be resolved against its folder. Secrets are not read yet.
func Parse(file string, data []byte) (*Config, lint.Problems) {
	dir := filepath.Dir(file)
	c := newConfig()
	c.File = file
	var ps lint.Problems
	var v *decl.Values
	if root := yamlx.DocOrEmpty(file, data, &ps); root != nil && !yamlx.IsNull(root) {
		v = Decl.Decode(file, root, "", &ps)
	}
	Decl.Fill(v, c, dir, &ps)
	c.finish()
	if v != nil {
		c.decodeSecrets(v, dir, &ps)
		c.check(v, &ps)
	}
	return c, ps.Sort()
}

// decodeSecrets reads the secret sources (their keys are declared Raw:
// a scalar gets its own message, a file is relative to dir).
func (c *Config) decodeSecrets(v *decl.Values, dir string, ps *lint.Problems) {
	if n := v.Node("secrets"); n != nil && !yamlx.IsNull(n) {
		if skvs, ok := yamlx.Map(v.File, n, "secrets", ps); ok {
			for _, s := range skvs {
				if sec, ok := decodeSecretAs(NamedSecretDecl, v.File, s.Value, "secrets."+s.Key, dir, ps); ok {
					c.Secrets[s.Key] = sec
				}
			}
		}
	}
	for _, s := range []struct {
		obj, key string
		dst      *Secret
		set      *bool
	}{{"http", "token", &c.HTTP.Token, nil}, {"audit", "key", &c.Audit.Key, &c.Audit.KeySet}, {"sessions", "key", &c.Sessions.Key, &c.Sessions.KeySet}} {
		if kv, ok := v.Sub(s.obj).KV(s.key); ok {
			if sec, ok := decodeSecret(v.File, kv.Value, s.obj+"."+s.key, dir, ps); ok {
				*s.dst = sec
				if s.set != nil {
					*s.set = true
				}
			}
		}
	}
}

// check reports what no single key says: keys that must agree.
func (c *Config) check(v *decl.Values, ps *lint.Problems) {
	if b := v.Sub("browser"); b != nil {
		at := lint.At(v.File, b.MapNode)
		if c.Browser.Spare > c.Browser.MaxEnvironments {
			ps.Addf(at, lint.BadValue, "browser.spare (%d) must not exceed browser.max_environments (%d)", c.Browser.Spare, c.Browser.MaxEnvironments)
			c.Browser.Spare = c.Browser.MaxEnvironments
		}
		c.providerSettings(b, ps)
		if err := checkProvider(c.Browser); err != nil {
			code := lint.BadValue
			if len(c.Browser.Endpoints) == 0 {
				code = lint.Missing
			}
			ps.Addf(at, code, "%v", err)
		}
	}
	if l := v.Sub("limits"); l != nil && l.Has("step_timeout") && c.Limits.StepTimeout <= 0 {
		ps.Addf(l.Pos("step_timeout"), lint.BadValue, "limits.step_timeout must be above 0, found %s", c.Limits.StepTimeout)
		c.Limits.StepTimeout = 10 * time.Second
	}
	if p := v.Sub("policy"); p != nil && c.Policy.Subresources == "allowed_hosts" && len(c.Policy.AllowedHosts) == 0 {
		// It would hold requests to "any host": no rule at all.
		ps.Addf(lint.At(v.File, p.MapNode), lint.Missing, "policy.subresources: allowed_hosts needs hosts in policy.allowed_hosts (empty allows every host)")
	}
}

// retention is the Conv of retention's keys.
func retention(where string, x any) (any, error) {
	d, err := ParseRetention(x.(string))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", where, err)
	}
	return d, nil
}

// sessionTTL is sessions.ttl's Conv: a retention other than 0.
func sessionTTL(where string, x any) (any, error) {
	d, err := ParseRetention(x.(string))
	if err != nil || d == 0 {
		return nil, fmt.Errorf("%s: want a duration such as 7d or 12h, got %q", where, x)
	}
	return d, nil
}

// uiURL is ui.url's Conv: an http(s) URL, without a trailing slash.
func uiURL(where string, x any) (any, error) {
	raw := x.(string)
	if pu, err := url.Parse(raw); err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
		return nil, fmt.Errorf("%s: want an http(s) URL such as %s, got %q", where, DefaultUIURL, raw)
	}
	return strings.TrimSuffix(raw, "/"), nil
}

func decodeSecret(file string, n *yaml.Node, where, dir string, ps *lint.Problems) (Secret, bool) {
	return decodeSecretAs(SecretDecl, file, n, where, dir, ps)
}

// decodeSecretAs decodes a secret source declared by obj (SecretDecl, or
// NamedSecretDecl with its redact key).
func decodeSecretAs(obj *decl.Object, file string, n *yaml.Node, where, dir string, ps *lint.Problems) (Secret, bool) {
	n = yamlx.Resolve(n)
	if n != nil && n.Kind == yaml.ScalarNode {
		ps.Addf(lint.At(file, n), lint.BadValue, "%s: write {env: NAME} or {file: PATH}; secret values never go in the config file itself", where)
		return Secret{}, false
	}
	v := obj.Decode(file, n, where, ps)
	if v == nil {
		return Secret{}, false
	}
	s := Secret{Env: v.Str("env", ""), File: v.Str("file", "")}
	if obj == NamedSecretDecl {
		s.NoRedact = !v.Bool("redact", true)
	}
	if s.File != "" && !filepath.IsAbs(s.File) {
		s.File = filepath.Join(dir, s.File)
	}
	if (s.Env == "") == (s.File == "") {
		ps.Addf(lint.At(file, n), lint.BadValue, "%s: give exactly one of env or file", where)
		return Secret{}, false
	}
	return s, true
}

// resolveSecrets reads every secret now, so a missing one fails at start.
func (c *Config) resolveSecrets() error {
	c.secretVals = map[string]string{}
	c.missing = map[string]string{}
	var missing []string
	for _, name := range c.SecretNames() {
		v, err := c.Secrets[name].Read()
		if err != nil {
			missing = append(missing, fmt.Sprintf("secret %q: %v", name, err))
			c.missing[name] = err.Error()
			continue
		}
		c.secretVals[name] = v
	}
	if len(missing) > 0 {
		return fmt.Errorf("config %s: %s", c.File, strings.Join(missing, "; "))
	}
	return nil
}

// Read returns the secret's value. The error never contains the value.
func (s Secret) Read() (string, error) {
	if s.Env != "" {
		v, ok := os.LookupEnv(s.Env)
		if !ok {
			return "", fmt.Errorf("environment variable %s is not set", s.Env)
		}
		return v, nil
	}
	if s.File != "" {
		b, err := os.ReadFile(s.File)
		if err != nil {
			return "", fmt.Errorf("cannot read file %s: %v", s.File, err)
		}
		return strings.TrimRight(string(b), "\r\n"), nil
	}
	return "", nil
}

// EnvVar is an environment variable the server reads: what a client
// config that starts it must pass (toolwright clients).
type EnvVar struct {
	Name string // the variable
	For  string // what it holds: "secret acme_password", "audit.key"
}

// EnvVars are the environment variables a stdio server of this config
// reads, each once, in the order of its secrets then audit.key and
// sessions.key when the config names them. The default key variables
// (TOOLWRIGHT_AUDIT_KEY, ...) are left out: they are read only when set,
// and a placeholder standing for one would be read as a key. http.token is
// left out too: a stdio server never reads it.
func (c *Config) EnvVars() []EnvVar {
	var out []EnvVar
	seen := map[string]bool{}
	add := func(s Secret, what string) {
		if s.Env != "" && !seen[s.Env] {
			seen[s.Env] = true
			out = append(out, EnvVar{Name: s.Env, For: what})
		}
	}
	for _, name := range c.SecretNames() {
		add(c.Secrets[name], "secret "+name)
	}
	if c.Audit.KeySet {
		add(c.Audit.Key, "audit.key")
	}
	if c.Sessions.KeySet {
		add(c.Sessions.Key, "sessions.key")
	}
	return out
}

// SecretNames returns the declared secret names, sorted.
func (c *Config) SecretNames() []string { return sortedKeys(c.Secrets) }

// SecretValues returns name → value of every secret, for fill.value.
func (c *Config) SecretValues() map[string]string { return c.secretVals }

// RedactedValues returns name → value of the secrets that are redacted
// (all but those declared redact: false), for every redactor and the
// screenshot masks.
func (c *Config) RedactedValues() map[string]string {
	out := make(map[string]string, len(c.secretVals))
	for name, v := range c.secretVals {
		if !c.Secrets[name].NoRedact {
			out[name] = v
		}
	}
	return out
}

// SetSecretValue sets a secret directly (tests, demo). It is redacted like any other.
func (c *Config) SetSecretValue(name, value string) {
	if c.secretVals == nil {
		c.secretVals = map[string]string{}
	}
	if _, ok := c.Secrets[name]; !ok {
		c.Secrets[name] = Secret{}
	}
	c.secretVals[name] = value
	delete(c.missing, name)
}

// SetSecretMissing declares a secret that could not be read (why says why,
// never a value), as Load does: a workflow may name it, and a call that
// reads it answers config_error (a test run's derived config).
func (c *Config) SetSecretMissing(name string, s Secret, why string) {
	if c.missing == nil {
		c.missing = map[string]string{}
	}
	c.Secrets[name] = s
	delete(c.secretVals, name)
	c.missing[name] = why
}

// RegionNames returns the configured region names, sorted.
func (c *Config) RegionNames() []string { return sortedKeys(c.Regions) }

// IsLoopback reports whether an HTTP listen address is on loopback only.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// FileSchema is the JSON Schema of toolwright.yaml, from Decl.
func FileSchema() *decl.Obj { return decl.FileSchema("config", Decl.Schema()) }
