// Package config loads toolwright.yaml: every key optional, relative paths
// relative to the file, secrets resolved from the environment or files and
// never printed.
package config

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/yamlx"
	"gopkg.in/yaml.v3"
)

// DefaultFile is read from the working directory when no --config is given.
const DefaultFile = "toolwright.yaml"

// Config is the server configuration.
type Config struct {
	File      string            // the file it came from; "" for built-in defaults
	Workflows string            // folder of workflows
	Selectors string            // the selector map
	StateDir  string            // sqlite, artifacts
	Vars      map[string]any    // visible to workflows as config.*
	Secrets   map[string]Secret // visible to fill.value as secrets.*
	Browser   Browser
	Regions   map[string]Region
	WarmupURL string
	Policy    Policy
	Limits    Limits
	HTTP      HTTP
	// GrantCommand is how an operator runs `toolwright grant` for this
	// config ("toolwright grant", "toolwright --config FILE grant",
	// "toolwright grant --demo"); not_granted messages print it.
	GrantCommand string
	// ShutdownGrace is how long running calls may finish after EOF or SIGTERM.
	ShutdownGrace time.Duration
	secretVals    map[string]string
	secretErr     error
	missing       map[string]string // secret name → why it cannot be read
}

// Secret says where a secret value comes from.
type Secret struct {
	Env  string
	File string
}

// Browser configures the environments.
type Browser struct {
	Provider        string // local | cdp
	Bin             string
	Headless        bool
	Endpoints       []string
	MaxEnvironments int
	MaxPerPurpose   int
	IdleTimeout     time.Duration
	Spare           int // environments kept pre-opened for env: temporary calls (0: none)
}

// Region is an egress: a proxy and a check that it works.
type Region struct {
	Proxy       string
	EgressCheck *EgressCheck
}

// EgressCheck is fetched through the region's proxy by check_egress.
type EgressCheck struct {
	URL          string
	ExpectStatus int
}

// Policy holds the lines the server keeps.
type Policy struct {
	WriteTools   string // grant | enabled | disabled
	AllowedHosts []string
}

// Limits bound what one call may do.
type Limits struct {
	MaxDeadline      time.Duration
	MaxLoop          int
	MaxListItems     int
	MaxResponseBytes int
}

// HTTP configures `serve --http`.
type HTTP struct {
	Addr  string
	Token Secret
	// MaxSessions bounds the open MCP sessions (503 when full).
	MaxSessions int
	// SessionIdleTimeout closes a session after this long without requests.
	SessionIdleTimeout time.Duration
}

// Default returns the built-in configuration, with paths relative to dir.
func Default(dir string) *Config {
	return &Config{
		Workflows: filepath.Join(dir, "workflows"),
		Selectors: filepath.Join(dir, "selectors", "selectors.yaml"),
		StateDir:  filepath.Join(dir, ".toolwright"),
		Vars:      map[string]any{"warmup_url": ""},
		Secrets:   map[string]Secret{},
		Browser: Browser{
			Provider: "local", Headless: true,
			MaxEnvironments: 8, MaxPerPurpose: 4, IdleTimeout: 10 * time.Minute, Spare: 1,
		},
		Regions: map[string]Region{"local": {}},
		Policy:  Policy{WriteTools: "grant"},
		Limits: Limits{
			MaxDeadline: 10 * time.Minute, MaxLoop: 100,
			MaxListItems: 200, MaxResponseBytes: 65536,
		},
		HTTP: HTTP{Addr: "127.0.0.1:8080", Token: Secret{Env: "TOOLWRIGHT_TOKEN"},
			MaxSessions: 256, SessionIdleTimeout: 10 * time.Minute},
		ShutdownGrace: 10 * time.Second,
		GrantCommand:  "toolwright grant",
		secretVals:    map[string]string{},
	}
}

// UserStateDir is where toolwright keeps its state when no config file says
// otherwise: $XDG_STATE_HOME/toolwright, else ~/.local/state/toolwright
// (else a folder in the system temp dir when there is no home). It never
// depends on the working directory, so a client that starts the server
// from / works.
func UserStateDir() string {
	if x := os.Getenv("XDG_STATE_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "toolwright")
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" && filepath.IsAbs(home) {
		return filepath.Join(home, ".local", "state", "toolwright")
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("toolwright-%d", os.Getuid()))
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
			c.StateDir = UserStateDir()
			c.secretErr = c.resolveSecrets()
			return c, nil
		}
	}
	data, err := os.ReadFile(path)
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
		c.GrantCommand = "toolwright --config " + shellWord(abs) + " grant"
	}
	c.secretErr = c.resolveSecrets()
	return c, nil
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
func (c *Config) MissingSecrets() []string {
	names := make([]string, 0, len(c.missing))
	for n := range c.missing {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// shellWord quotes s for a POSIX shell unless it only has safe characters.
func shellWord(s string) string {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-/+=:,@", r)) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}

var topKeys = []string{"workflows", "selectors", "state_dir", "vars", "secrets", "browser", "regions", "warmup_url", "policy", "limits", "http", "shutdown_grace"}

// Parse decodes a config file's bytes; file must be absolute so relative
// paths can be resolved against its folder. Secrets are not read yet.
func Parse(file string, data []byte) (*Config, lint.Problems) {
	dir := filepath.Dir(file)
	c := Default(dir)
	c.File = file
	var ps lint.Problems
	root := yamlx.DocOrEmpty(file, data, &ps)
	if root == nil || yamlx.IsNull(root) {
		return c, ps
	}
	kvs, ok := yamlx.Map(file, root, "the config", &ps)
	if !ok {
		return c, ps
	}
	yamlx.Known(file, kvs, topKeys, "config", &ps)
	path := func(n *yaml.Node, where string) string {
		s, ok := yamlx.String(file, n, where, &ps)
		if !ok || s == "" {
			return ""
		}
		if !filepath.IsAbs(s) {
			s = filepath.Join(dir, s)
		}
		return s
	}
	for _, kv := range kvs {
		switch kv.Key {
		case "workflows":
			c.Workflows = path(kv.Value, "workflows")
		case "selectors":
			c.Selectors = path(kv.Value, "selectors")
		case "state_dir":
			c.StateDir = path(kv.Value, "state_dir")
		case "warmup_url":
			c.WarmupURL, _ = yamlx.String(file, kv.Value, "warmup_url", &ps)
		case "vars":
			if yamlx.IsNull(kv.Value) {
				continue
			}
			vkvs, ok := yamlx.Map(file, kv.Value, "vars", &ps)
			if !ok {
				continue
			}
			for _, v := range vkvs {
				c.Vars[v.Key] = yamlx.Value(v.Value)
			}
		case "secrets":
			if yamlx.IsNull(kv.Value) {
				continue
			}
			skvs, ok := yamlx.Map(file, kv.Value, "secrets", &ps)
			if !ok {
				continue
			}
			for _, s := range skvs {
				if sec, ok := decodeSecret(file, s.Value, "secret "+s.Key, dir, &ps); ok {
					c.Secrets[s.Key] = sec
				}
			}
		case "browser":
			decodeBrowser(file, kv.Value, &c.Browser, &ps)
		case "regions":
			rkvs, ok := yamlx.Map(file, kv.Value, "regions", &ps)
			if !ok {
				continue
			}
			c.Regions = map[string]Region{}
			for _, r := range rkvs {
				c.Regions[r.Key] = decodeRegion(file, r, &ps)
			}
			if len(c.Regions) == 0 {
				c.Regions = map[string]Region{"local": {}}
			}
		case "policy":
			pkvs, ok := yamlx.Map(file, kv.Value, "policy", &ps)
			if !ok {
				continue
			}
			yamlx.Known(file, pkvs, []string{"write_tools", "allowed_hosts"}, "policy", &ps)
			for _, p := range pkvs {
				switch p.Key {
				case "write_tools":
					if s, ok := yamlx.String(file, p.Value, "policy.write_tools", &ps); ok {
						if s != "grant" && s != "enabled" && s != "disabled" {
							ps.Addf(lint.At(file, p.Value), lint.BadValue, "policy.write_tools must be grant, enabled or disabled, found %q", s)
						} else {
							c.Policy.WriteTools = s
						}
					}
				case "allowed_hosts":
					if yamlx.IsNull(p.Value) {
						continue
					}
					c.Policy.AllowedHosts, _ = yamlx.Strings(file, p.Value, "policy.allowed_hosts", &ps)
				}
			}
		case "limits":
			decodeLimits(file, kv.Value, &c.Limits, &ps)
		case "shutdown_grace":
			if d, ok := yamlx.Duration(file, kv.Value, "shutdown_grace", &ps); ok {
				c.ShutdownGrace = d
			}
		case "http":
			hkvs, ok := yamlx.Map(file, kv.Value, "http", &ps)
			if !ok {
				continue
			}
			yamlx.Known(file, hkvs, []string{"addr", "token", "max_sessions", "session_idle_timeout"}, "http", &ps)
			for _, h := range hkvs {
				switch h.Key {
				case "addr":
					c.HTTP.Addr, _ = yamlx.String(file, h.Value, "http.addr", &ps)
				case "token":
					if sec, ok := decodeSecret(file, h.Value, "http.token", dir, &ps); ok {
						c.HTTP.Token = sec
					}
				case "max_sessions":
					c.HTTP.MaxSessions = positive(file, h.Value, "http.max_sessions", &ps, c.HTTP.MaxSessions)
				case "session_idle_timeout":
					if d, ok := yamlx.Duration(file, h.Value, "http.session_idle_timeout", &ps); ok {
						c.HTTP.SessionIdleTimeout = d
					}
				}
			}
		}
	}
	if v, ok := c.Vars["warmup_url"]; !ok || v == "" {
		c.Vars["warmup_url"] = c.WarmupURL // visible to workflows as config.warmup_url
	}
	return c, ps
}

func decodeSecret(file string, n *yaml.Node, where, dir string, ps *lint.Problems) (Secret, bool) {
	n = yamlx.Resolve(n)
	if n != nil && n.Kind == yaml.ScalarNode {
		ps.Addf(lint.At(file, n), lint.BadValue, "%s: write {env: NAME} or {file: PATH}; secret values never go in the config file itself", where)
		return Secret{}, false
	}
	kvs, ok := yamlx.Map(file, n, where, ps)
	if !ok {
		return Secret{}, false
	}
	yamlx.Known(file, kvs, []string{"env", "file"}, where, ps)
	var s Secret
	for _, kv := range kvs {
		v, _ := yamlx.String(file, kv.Value, where+" "+kv.Key, ps)
		if kv.Key == "env" {
			s.Env = v
		} else if kv.Key == "file" {
			if v != "" && !filepath.IsAbs(v) {
				v = filepath.Join(dir, v)
			}
			s.File = v
		}
	}
	if (s.Env == "") == (s.File == "") {
		ps.Addf(lint.At(file, n), lint.BadValue, "%s: give exactly one of env or file", where)
		return Secret{}, false
	}
	return s, true
}

func decodeBrowser(file string, n *yaml.Node, b *Browser, ps *lint.Problems) {
	kvs, ok := yamlx.Map(file, n, "browser", ps)
	if !ok {
		return
	}
	yamlx.Known(file, kvs, []string{"provider", "bin", "headless", "endpoints", "max_environments", "max_per_purpose", "idle_timeout", "spare"}, "browser", ps)
	for _, kv := range kvs {
		w := "browser." + kv.Key
		switch kv.Key {
		case "provider":
			if s, ok := yamlx.String(file, kv.Value, w, ps); ok {
				if s != "local" && s != "cdp" {
					ps.Addf(lint.At(file, kv.Value), lint.BadValue, "browser.provider must be local or cdp, found %q", s)
				} else {
					b.Provider = s
				}
			}
		case "bin":
			b.Bin, _ = yamlx.String(file, kv.Value, w, ps)
		case "headless":
			b.Headless, _ = yamlx.Bool(file, kv.Value, w, ps)
		case "endpoints":
			if !yamlx.IsNull(kv.Value) {
				b.Endpoints, _ = yamlx.Strings(file, kv.Value, w, ps)
			}
		case "max_environments":
			b.MaxEnvironments = positive(file, kv.Value, w, ps, b.MaxEnvironments)
		case "max_per_purpose":
			b.MaxPerPurpose = positive(file, kv.Value, w, ps, b.MaxPerPurpose)
		case "idle_timeout":
			if d, ok := yamlx.Duration(file, kv.Value, w, ps); ok {
				b.IdleTimeout = d
			}
		case "spare":
			if v, ok := yamlx.Int(file, kv.Value, w, ps); ok {
				if v < 0 {
					ps.Addf(lint.At(file, kv.Value), lint.BadValue, "browser.spare must be 0 or more, found %d", v)
				} else {
					b.Spare = v
				}
			}
		}
	}
	if b.Spare > b.MaxEnvironments {
		ps.Addf(lint.At(file, n), lint.BadValue, "browser.spare (%d) must not exceed browser.max_environments (%d)", b.Spare, b.MaxEnvironments)
		b.Spare = b.MaxEnvironments
	}
	if b.Provider == "cdp" && len(b.Endpoints) == 0 {
		ps.Addf(lint.At(file, n), lint.Missing, "browser.provider cdp needs at least one ws:// URL in browser.endpoints")
	}
}

func positive(file string, n *yaml.Node, where string, ps *lint.Problems, def int) int {
	v, ok := yamlx.Int(file, n, where, ps)
	if !ok {
		return def
	}
	if v < 1 {
		ps.Addf(lint.At(file, n), lint.BadValue, "%s must be at least 1, found %d", where, v)
		return def
	}
	return v
}

func decodeRegion(file string, kv yamlx.KV, ps *lint.Problems) Region {
	var r Region
	if yamlx.IsNull(kv.Value) {
		return r
	}
	where := "region " + kv.Key
	kvs, ok := yamlx.Map(file, kv.Value, where, ps)
	if !ok {
		return r
	}
	yamlx.Known(file, kvs, []string{"proxy", "egress_check"}, where, ps)
	for _, f := range kvs {
		switch f.Key {
		case "proxy":
			r.Proxy, _ = yamlx.String(file, f.Value, where+" proxy", ps)
		case "egress_check":
			ekvs, ok := yamlx.Map(file, f.Value, where+" egress_check", ps)
			if !ok {
				continue
			}
			yamlx.Known(file, ekvs, []string{"url", "expect_status"}, where+" egress_check", ps)
			ec := &EgressCheck{ExpectStatus: 200}
			for _, e := range ekvs {
				switch e.Key {
				case "url":
					ec.URL, _ = yamlx.String(file, e.Value, where+" egress_check.url", ps)
				case "expect_status":
					if v, ok := yamlx.Int(file, e.Value, where+" egress_check.expect_status", ps); ok {
						ec.ExpectStatus = v
					}
				}
			}
			if ec.URL == "" {
				ps.Addf(lint.At(file, f.Value), lint.Missing, "%s egress_check needs a url", where)
				continue
			}
			r.EgressCheck = ec
		}
	}
	return r
}

func decodeLimits(file string, n *yaml.Node, l *Limits, ps *lint.Problems) {
	kvs, ok := yamlx.Map(file, n, "limits", ps)
	if !ok {
		return
	}
	yamlx.Known(file, kvs, []string{"max_deadline", "max_loop", "max_list_items", "max_response_bytes"}, "limits", ps)
	for _, kv := range kvs {
		w := "limits." + kv.Key
		switch kv.Key {
		case "max_deadline":
			if d, ok := yamlx.Duration(file, kv.Value, w, ps); ok {
				l.MaxDeadline = d
			}
		case "max_loop":
			l.MaxLoop = positive(file, kv.Value, w, ps, l.MaxLoop)
		case "max_list_items":
			l.MaxListItems = positive(file, kv.Value, w, ps, l.MaxListItems)
		case "max_response_bytes":
			l.MaxResponseBytes = positive(file, kv.Value, w, ps, l.MaxResponseBytes)
		}
	}
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

// SecretNames returns the declared secret names, sorted.
func (c *Config) SecretNames() []string {
	names := make([]string, 0, len(c.Secrets))
	for n := range c.Secrets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// SecretValues returns name → value for the executor and the redactor.
func (c *Config) SecretValues() map[string]string { return c.secretVals }

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

// RegionNames returns the configured region names, sorted.
func (c *Config) RegionNames() []string {
	names := make([]string, 0, len(c.Regions))
	for n := range c.Regions {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

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
