package browser

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/go-rod/rod/lib/proto"

	"github.com/toolwright/toolwright/engine/errs"
)

// closeTimeout bounds disposing of one environment's browser context.
const closeTimeout = 5 * time.Second

// maxTombstones is how many closed environment ids Get still explains.
const maxTombstones = 512

// Manager holds the environments of one server: it opens them in browsers
// from its Provider, enforces the pool limits, reaps idle ones and notices
// when a browser dies.
type Manager struct {
	opts     Options
	log      *slog.Logger
	provider Provider
	proxies  map[string]proxy

	mu         sync.Mutex
	envs       map[string]*Env
	pending    int            // environments being opened, counted against the limits
	pendingFor map[string]int // the same, per purpose
	conns      map[*Conn]bool // connections watched for loss
	tombs      map[string]string
	tombOrder  []string
	closed     bool

	spares      []*Env        // ready spare environments (spare.go)
	filling     chan struct{} // closed when the spare being made is ready or failed; nil when none is
	spareRegion string        // the region spares are made in; empty: no spares

	stop chan struct{}
	wg   sync.WaitGroup
}

// NewManager checks opts and starts the idle reaper. It starts no browser:
// the first Open does.
func NewManager(opts Options) (*Manager, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, errs.Wrap(errs.InvalidParams, err, "%v", err)
	}
	m := &Manager{
		opts:       o,
		log:        o.Logger,
		provider:   newProvider(o),
		proxies:    map[string]proxy{},
		envs:       map[string]*Env{},
		pendingFor: map[string]int{},
		conns:      map[*Conn]bool{},
		tombs:      map[string]string{},
		stop:       make(chan struct{}),
	}
	for name, r := range o.Regions {
		p, err := parseProxy(name, r.Proxy)
		if err != nil {
			return nil, err
		}
		m.proxies[name] = p
	}
	if _, ok := m.proxies[DefaultRegion]; ok && o.Spare > 0 {
		m.spareRegion = DefaultRegion
	}
	m.wg.Add(1)
	go m.reap()
	return m, nil
}

// Provider is the manager's browser provider.
func (m *Manager) Provider() Provider { return m.provider }

// Open returns an environment of region and purpose, held for the caller:
// call Release when the call ends. It reuses an idle (not held, not
// temporary) environment of the same region and purpose, so its cookies
// carry over; otherwise it opens a new one. An empty purpose is "default".
// Errors: invalid_params for an unknown region; env_unavailable when the
// pool is full or no browser can be had.
func (m *Manager) Open(ctx context.Context, region, purpose string) (*Env, error) {
	return m.open(ctx, region, purpose, false)
}

// OpenTemporary opens a fresh environment for one `env: temporary` call,
// held for the caller. It is never reused; Release closes it.
func (m *Manager) OpenTemporary(ctx context.Context, region, purpose string) (*Env, error) {
	return m.open(ctx, region, purpose, true)
}

func (m *Manager) open(ctx context.Context, region, purpose string, temporary bool) (*Env, error) {
	if region == "" {
		region = DefaultRegion
	}
	if purpose == "" {
		purpose = DefaultPurpose
	}
	px, ok := m.proxies[region]
	if !ok {
		return nil, errs.New(errs.InvalidParams, "unknown region %q (known: %s)", region, strings.Join(m.regionNames(), ", "))
	}

	waited := false
	for {
		m.mu.Lock()
		if m.closed {
			m.mu.Unlock()
			return nil, errClosed
		}
		if !temporary {
			if env := m.idleLocked(region, purpose); env != nil {
				m.mu.Unlock()
				env.touch()
				m.log.Debug("environment reused", "env", env.ID, "region", region, "purpose", purpose)
				return env, nil
			}
		}
		// max_per_purpose bounds the environments a purpose keeps between
		// calls; a temporary one lives for one call and counts only toward
		// max_environments, so parallel calls of env: temporary tools are
		// bounded by the pool, not by their shared "default" purpose.
		if !temporary {
			if n := m.countLocked(purpose) + m.pendingFor[purpose]; n >= m.opts.MaxPerPurpose {
				m.mu.Unlock()
				return nil, errs.New(errs.EnvUnavailable, "purpose %q already holds %d environments (browser.max_per_purpose)", purpose, n)
			}
		}
		if env := m.takeSpareLocked(region, purpose, temporary); env != nil {
			m.mu.Unlock()
			m.log.Info("environment opened", "env", env.ID, "region", region, "purpose", purpose, "temporary", temporary, "spare", true)
			return env, nil
		}
		full := m.totalLocked() >= m.opts.MaxEnvironments
		if full && m.dropSpareLocked() {
			full = false
		}
		if fill := m.filling; fill != nil && !waited && (full || region == m.spareRegion) {
			// A spare is on its way: waiting for it is never slower than
			// opening another, and at the limit it is the room there is.
			m.mu.Unlock()
			waited = true
			select {
			case <-fill:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			continue
		}
		if full {
			n := m.totalLocked()
			m.mu.Unlock()
			return nil, errs.New(errs.EnvUnavailable, "environment pool is full (%d open, browser.max_environments)", n)
		}
		break
	}
	held := 0
	if !temporary {
		held = 1
	}
	m.pending++
	m.pendingFor[purpose] += held
	m.mu.Unlock()

	env, err := m.create(ctx, region, purpose, px, temporary)

	m.mu.Lock()
	m.pending--
	m.pendingFor[purpose] -= held
	if err == nil && m.closed {
		err = errClosed
		m.mu.Unlock()
		m.dispose(env, errClosed)
		return nil, err
	}
	if err == nil {
		m.envs[env.ID] = env
	}
	m.mu.Unlock()
	if err != nil {
		return nil, err
	}
	m.log.Info("environment opened", "env", env.ID, "region", region, "purpose", purpose, "temporary", temporary)
	return env, nil
}

// idleLocked finds the most recently used idle environment of region and
// purpose and takes it for the caller.
func (m *Manager) idleLocked(region, purpose string) *Env {
	var cands []*Env
	for _, e := range m.envs {
		if !e.Temporary && e.Region == region && e.Purpose == purpose && e.Err() == nil {
			cands = append(cands, e)
		}
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].LastUsed().After(cands[j].LastUsed()) })
	for _, e := range cands {
		select {
		case e.sem <- struct{}{}:
			return e
		default:
		}
	}
	return nil
}

// countLocked counts the environments purpose keeps (temporary ones excluded).
func (m *Manager) countLocked(purpose string) int {
	n := 0
	for _, e := range m.envs {
		if e.Purpose == purpose && !e.Temporary {
			n++
		}
	}
	return n
}

func (m *Manager) regionNames() []string {
	var names []string
	for n := range m.proxies {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// create makes the browser context and its page.
func (m *Manager) create(ctx context.Context, region, purpose string, px proxy, temporary bool) (*Env, error) {
	conn, err := m.provider.Browser(ctx)
	if err != nil {
		return nil, err
	}
	m.watch(conn)
	b := conn.browser.Context(ctx)
	res, err := proto.TargetCreateBrowserContext{DisposeOnDetach: true, ProxyServer: px.server}.Call(b)
	if err != nil {
		return nil, m.browserErr(conn, err, "cannot make a browser context")
	}
	done, end := context.WithCancelCause(context.Background())
	env := &Env{
		ID:        newID(),
		Region:    region,
		Purpose:   purpose,
		Temporary: temporary,
		conn:      conn,
		ctxID:     res.BrowserContextID,
		proxy:     px,
		sem:       make(chan struct{}, 1),
		done:      done,
		end:       end,
		lastUsed:  time.Now(),
		exempt:    map[proto.TargetTargetID]bool{},
	}
	env.sem <- struct{}{} // held for the caller
	conn.guard.register(env.ctxID, env)

	// The page lives as long as the environment; ctx only bounds its making.
	stop := context.AfterFunc(ctx, func() { env.end(errs.Wrap(errs.EnvUnavailable, ctx.Err(), "opening the environment was interrupted")) })
	pb := conn.browser.Context(env.done)
	pb.BrowserContextID = env.ctxID
	page, err := pb.Page(proto.TargetCreateTarget{})
	if err == nil {
		// The page runs only once the guard set its rules up.
		err = conn.guard.waitReady(env.done, page.TargetID, env.ctxID)
	}
	stop()
	if err == nil {
		err = env.done.Err()
	}
	if err != nil {
		m.dispose(env, errs.New(errs.EnvUnavailable, "the environment could not be opened"))
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, m.browserErr(conn, err, "cannot open a page")
	}
	env.page = page
	return env, nil
}

// browserErr keeps env_unavailable from a gone browser and wraps anything
// else as env_unavailable too: the environment could not be made.
func (m *Manager) browserErr(conn *Conn, err error, msg string) error {
	if gone := conn.Err(); gone != nil {
		return gone
	}
	if isGone(err) {
		return err
	}
	return errs.Wrap(errs.EnvUnavailable, err, "%s", msg)
}

// watch starts noticing when conn's browser goes away.
func (m *Manager) watch(conn *Conn) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.conns[conn] {
		return
	}
	m.conns[conn] = true
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		<-conn.Done()
		m.lostConn(conn)
	}()
}

// lostConn drops every environment of a browser that went away. Their
// calls in flight fail with env_unavailable; Get then says env_not_found.
func (m *Manager) lostConn(conn *Conn) {
	cause := conn.Err()
	m.mu.Lock()
	delete(m.conns, conn)
	var lost []*Env
	for id, e := range m.envs {
		if e.conn == conn {
			lost = append(lost, e)
			delete(m.envs, id)
			m.tombLocked(id, "its browser stopped; open a new environment")
		}
	}
	kept := m.spares[:0]
	for _, e := range m.spares {
		if e.conn == conn {
			lost = append(lost, e)
		} else {
			kept = append(kept, e)
		}
	}
	m.spares = kept
	closed := m.closed
	m.mu.Unlock()
	for _, e := range lost {
		e.end(cause)
		conn.guard.unregister(e.ctxID)
	}
	if len(lost) > 0 && !closed {
		m.log.Warn("browser lost", "endpoint", conn.Endpoint(), "environments", len(lost), "cause", cause)
	}
}

func (m *Manager) tombLocked(id, why string) {
	m.tombs[id] = why
	m.tombOrder = append(m.tombOrder, id)
	if len(m.tombOrder) > maxTombstones {
		delete(m.tombs, m.tombOrder[0])
		m.tombOrder = m.tombOrder[1:]
	}
}

// Get returns the open environment id. An unknown id, or one that was
// closed, reaped or lost with its browser, is env_not_found.
func (m *Manager) Get(id string) (*Env, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e := m.envs[id]; e != nil {
		if e.Err() == nil {
			return e, nil
		}
		if e.conn.Err() != nil {
			return nil, errs.New(errs.EnvNotFound, "environment %q is closed: its browser stopped; open a new environment", id)
		}
	}
	if why, ok := m.tombs[id]; ok {
		return nil, errs.New(errs.EnvNotFound, "environment %q is closed: %s", id, why)
	}
	return nil, errs.New(errs.EnvNotFound, "no environment %q (open one with an env: new tool)", id)
}

// Acquire holds environment id for one call, waiting (under ctx) while
// another call holds it. Release it when the call ends.
func (m *Manager) Acquire(ctx context.Context, id string) (*Env, error) {
	e, err := m.Get(id)
	if err != nil {
		return nil, err
	}
	select {
	case e.sem <- struct{}{}:
	case <-e.Done():
		return nil, e.Err()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if err := e.Err(); err != nil {
		<-e.sem
		return nil, err
	}
	e.touch()
	return e, nil
}

// Release ends a call's hold on env. A temporary environment is closed.
// Releasing nil or an environment not held does nothing.
func (m *Manager) Release(env *Env) {
	if env == nil {
		return
	}
	env.touch()
	if env.Temporary {
		m.closeEnv(env, errs.New(errs.EnvNotFound, "environment %q is closed: its call ended", env.ID), "its call ended")
		return
	}
	select {
	case <-env.sem:
	default:
	}
	m.refill()
}

// Close closes environment id (close_env). A call holding it fails its next
// browser step with env_not_found.
func (m *Manager) Close(ctx context.Context, id string) error {
	e, err := m.Get(id)
	if err != nil {
		return err
	}
	m.closeEnv(e, errs.New(errs.EnvNotFound, "environment %q is closed: close_env", id), "closed by close_env")
	return nil
}

// closeEnv forgets env and disposes of its browser context.
func (m *Manager) closeEnv(env *Env, cause *errs.Error, why string) {
	m.mu.Lock()
	if m.envs[env.ID] == env {
		delete(m.envs, env.ID)
		m.tombLocked(env.ID, why)
	}
	m.mu.Unlock()
	m.dispose(env, cause)
	m.log.Info("environment closed", "env", env.ID, "purpose", env.Purpose, "why", why)
	m.refill() // a call ended, or there is room for a spare again
}

func (m *Manager) dispose(env *Env, cause error) {
	first := false
	env.disposeOnce.Do(func() { first = true })
	if !first {
		return
	}
	env.end(cause)
	env.conn.guard.unregister(env.ctxID)
	if env.conn.Err() != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	if err := (proto.TargetDisposeBrowserContext{BrowserContextID: env.ctxID}).Call(env.conn.browser.Context(ctx)); err != nil && env.conn.Err() == nil {
		m.log.Warn("cannot dispose of a browser context", "env", env.ID, "err", err)
	}
}

// reap closes environments no call used for IdleTimeout.
func (m *Manager) reap() {
	defer m.wg.Done()
	every := min(max(m.opts.IdleTimeout/4, 10*time.Millisecond), 30*time.Second)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
		}
		m.mu.Lock()
		var idle []*Env
		for _, e := range m.envs {
			if time.Since(e.LastUsed()) < m.opts.IdleTimeout {
				continue
			}
			select {
			case e.sem <- struct{}{}: // not held: hold it so no call takes it meanwhile
				idle = append(idle, e)
			default:
			}
		}
		m.mu.Unlock()
		for _, e := range idle {
			m.closeEnv(e, errs.New(errs.EnvNotFound, "environment %q is closed: idle for %s", e.ID, m.opts.IdleTimeout), fmt.Sprintf("idle for %s", m.opts.IdleTimeout))
		}
	}
}

// Shutdown closes every environment and the browsers the provider started.
// Later Opens fail with env_unavailable.
func (m *Manager) Shutdown(ctx context.Context) error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	close(m.stop)
	envs := make([]*Env, 0, len(m.envs))
	for _, e := range m.envs {
		envs = append(envs, e)
	}
	spares := m.spares
	m.spares = nil
	m.mu.Unlock()

	var wg sync.WaitGroup
	for _, e := range envs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.closeEnv(e, errs.New(errs.EnvUnavailable, "the server is shutting down"), "shutdown")
		}()
	}
	for _, e := range spares {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.dispose(e, errClosed)
		}()
	}
	wg.Wait()
	err := m.provider.Close(ctx)
	m.wg.Wait()
	return err
}

// Stats is a snapshot of the pool.
type Stats struct {
	Environments int            `json:"environments"`
	Busy         int            `json:"busy"`
	ByPurpose    map[string]int `json:"by_purpose"`
	Spare        int            `json:"spare"`     // spare environments ready (not in Environments; they count toward max_environments)
	Browsers     int            `json:"browsers"`  // live browser connections
	Processes    int            `json:"processes"` // processes of those browsers (renderers included), as they report them; 0 when unknown
}

// Stats counts the environments per purpose and asks each live browser for
// its process count (one short CDP call per browser).
func (m *Manager) Stats(ctx context.Context) Stats {
	m.mu.Lock()
	s := Stats{ByPurpose: map[string]int{}}
	for _, e := range m.envs {
		s.Environments++
		s.ByPurpose[e.Purpose]++
		if e.Busy() {
			s.Busy++
		}
	}
	s.Spare = len(m.spares)
	var conns []*Conn
	for c := range m.conns {
		if c.Err() == nil {
			conns = append(conns, c)
		}
	}
	m.mu.Unlock()
	s.Browsers = len(conns)
	for _, c := range conns {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		res, err := proto.SystemInfoGetProcessInfo{}.Call(c.browser.Context(cctx))
		cancel()
		if err == nil {
			s.Processes += len(res.ProcessInfo)
		}
	}
	return s
}

func newID() string {
	b := make([]byte, 10)
	_, _ = rand.Read(b)
	return "env_" + hex.EncodeToString(b)
}
