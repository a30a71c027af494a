package app

import (
	"context"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/toolwright/toolwright"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/demo"
)

// WithDefaults points a config that names no files of its own at the
// built-in workflows and selector map when ./workflows does not exist, so
// an installed binary serves its default tools anywhere. It reports whether
// it did.
func WithDefaults(cfg *config.Config) (bool, error) {
	if cfg.File != "" {
		return false, nil
	}
	if _, err := os.Stat(cfg.Workflows); err == nil {
		return false, nil
	}
	dir := filepath.Join(cfg.StateDir, "defaults")
	if err := extract(toolwright.Defaults(), dir); err != nil {
		return false, err
	}
	cfg.Workflows = filepath.Join(dir, "workflows")
	cfg.Selectors = filepath.Join(dir, "selectors", "selectors.yaml")
	return true, nil
}

// extract writes every file of fsys under dir, replacing older copies.
func extract(fsys fs.FS, dir string) error {
	return fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(dir, filepath.FromSlash(p))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}

// Demo credentials: the demo site accepts any password but "wrong". They
// are secrets all the same, so they show up redacted everywhere.
const (
	DemoUser     = "buyer@example.com"
	DemoPassword = "demo-password-123"
)

// Demo is the Acme demo site on loopback and a config serving its workflows.
type Demo struct {
	Config  *config.Config
	SiteURL string
	srv     *http.Server
}

// DemoStateDir is the demo's own state dir beside cfg's: the demo's
// traces, grants and audit never mix with those of the served workflows.
func DemoStateDir(cfg *config.Config) string { return filepath.Join(cfg.StateDir, "demo") }

// DemoConfig writes the demo's workflows and selector map under stateDir
// and returns a config serving them with state in stateDir; acme_base is
// not set until StartDemo serves the site. base is the config the demo was
// asked from (for the printed grant command).
func DemoConfig(base *config.Config, stateDir string) (*config.Config, error) {
	dir := filepath.Join(stateDir, "files")
	if err := extract(toolwright.Demo(), dir); err != nil {
		return nil, fmt.Errorf("demo files: %w", err)
	}
	cfg := config.Default(dir)
	cfg.Workflows = filepath.Join(dir, "workflows")
	cfg.Selectors = filepath.Join(dir, "selectors.yaml")
	cfg.StateDir = stateDir
	cfg.Vars["acme_base"] = "http://127.0.0.1"
	cfg.SetSecretValue("acme_user", DemoUser)
	cfg.SetSecretValue("acme_password", DemoPassword)
	cfg.Policy.AllowedHosts = []string{"127.0.0.1"}
	cfg.GrantCommand = "toolwright grant --demo"
	if base != nil {
		cfg.HTTP = base.HTTP
		if base.GrantCommand != "" {
			cfg.GrantCommand = base.GrantCommand + " --demo"
		}
	}
	return cfg, nil
}

// StartDemo serves the built-in Acme site on a free loopback port and
// writes its workflows under stateDir (the demo's own state dir, see
// DemoStateDir). addr may name the site's address ("" picks a free port).
func StartDemo(base *config.Config, stateDir, addr string) (*Demo, error) {
	cfg, err := DemoConfig(base, stateDir)
	if err != nil {
		return nil, err
	}
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	if !config.IsLoopback(addr) {
		return nil, fmt.Errorf("the demo site listens on loopback only, not %s", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("demo site: %w", err)
	}
	srv := &http.Server{Handler: demo.Handler(toolwright.DemoSite()), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	url := "http://" + ln.Addr().String()
	cfg.Vars["acme_base"] = url
	return &Demo{Config: cfg, SiteURL: url, srv: srv}, nil
}

// Close stops the demo site.
func (d *Demo) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return d.srv.Shutdown(ctx)
}
