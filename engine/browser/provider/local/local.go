// Package local is the local browser provider: it launches the system
// Chromium (browser.local.bin, or what package chromium finds: the
// headless shell when it is installed, else launcher.LookPath) on the
// first Open, headless, with a fresh profile that is removed when the
// browser closes, and again after a crash. It never downloads a browser.
// It is the default provider, and a Starter.
package local

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/toolwright/toolwright/engine/browser/chromium"
	"github.com/toolwright/toolwright/engine/browser/provider"
	"github.com/toolwright/toolwright/engine/decl"
	"github.com/toolwright/toolwright/engine/errs"
)

// Name is browser.provider's value for this provider.
const Name = "local"

func init() {
	provider.Register(provider.Spec{Name: Name, Doc: "start Chromium here", Default: true, New: New,
		Settings: []decl.Field{{Name: "bin", Type: decl.String, Default: "", Doc: "the Chromium or Chrome binary; empty: headless, chromium-headless-shell when it is installed, else the Chromium or Chrome on PATH"}}})
}

// New removes the profiles dead servers left under the state dir, then
// makes the provider; it launches nothing yet.
func New(o provider.Options, d provider.Dialer) provider.Provider {
	tmp := ""
	if o.StateDir != "" {
		tmp = filepath.Join(o.StateDir, "tmp")
	}
	removeStaleProfiles(tmp, o.Logger)
	return &Provider{bin: o.Bin, headless: o.Headless, tmpRoot: tmp, log: o.Logger, dialer: d}
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

// Provider runs one Chromium process on this machine.
type Provider struct {
	bin      string
	headless bool
	tmpRoot  string
	log      *slog.Logger
	dialer   provider.Dialer

	mu     sync.Mutex
	conn   provider.Conn
	dir    string // profile of the running browser
	closed bool
}

func (p *Provider) Name() string { return Name }

func (p *Provider) Browser(ctx context.Context) (provider.Conn, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, provider.ErrClosed
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

// Start launches the browser now if it does not run (Starter).
func (p *Provider) Start(ctx context.Context) (provider.Conn, error) {
	return p.Browser(ctx)
}

func (p *Provider) launch(ctx context.Context) (provider.Conn, error) {
	headless := p.headless
	if !headless && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		p.log.Warn("browser.headless is false but there is no display; running headless")
		headless = true
	}
	bin, err := chromium.Find(p.bin, headless)
	if err != nil {
		return nil, errs.Wrap(errs.EnvUnavailable, err, "no browser to open an environment in: install Chromium (apt-get install -y chromium) or set browser.bin")
	}
	dir, err := p.profileDir()
	if err != nil {
		return nil, err
	}
	// Leakless runs Chromium under rod's small guard process, which kills
	// its whole process group when this process dies, even by SIGKILL.
	l := chromium.Launcher(ctx, bin, dir, headless).Leakless(true)
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
	stop := p.stopper(pid, dir, exited)
	c, err := p.dialer.Dial(ctx, u, pid, stop)
	if err != nil {
		stop()
		return nil, err
	}
	p.dir = dir
	p.log.Info("browser started", "bin", bin, "pid", pid, "headless", headless, "took", time.Since(start).Round(time.Millisecond))
	go func() {
		select {
		case <-exited:
			c.Lost("the browser process exited")
		case <-c.Done():
		}
	}()
	return c, nil
}

// profileDir makes the profile folder of a browser about to start, under
// tmpRoot, marked with this process's pid: the next start removes
// profiles whose owner is gone.
func (p *Provider) profileDir() (string, error) {
	if p.tmpRoot != "" {
		if err := os.MkdirAll(p.tmpRoot, 0o700); err != nil {
			return "", errs.Wrap(errs.EnvUnavailable, err, "cannot make the browser's profile folder")
		}
	}
	dir, err := os.MkdirTemp(p.tmpRoot, profilePrefix)
	if err != nil {
		return "", errs.Wrap(errs.EnvUnavailable, err, "cannot make the browser's profile folder")
	}
	_ = os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o600)
	return dir, nil
}

// stopper ends the browser of process group pid: the profile is thrown
// away, so there is nothing to flush, and the whole group (renderers,
// zygote, utility processes) is killed; then it waits for exited (a while
// at most) and removes the profile dir.
func (p *Provider) stopper(pid int, dir string, exited <-chan struct{}) func() {
	return func() {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			p.log.Warn("browser process did not exit", "pid", pid)
		}
		_ = os.RemoveAll(dir)
	}
}

// Current is the running browser's connection and profile folder (nil and
// "" before the first launch, and after Close), for tests.
func (p *Provider) Current() (provider.Conn, string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.conn, p.dir
}

func (p *Provider) Close(context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	if p.conn != nil {
		p.conn.Close()
		p.conn = nil
	}
	return nil
}
