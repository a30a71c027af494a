package browser

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"

	"github.com/toolwright/toolwright/engine/browser/provider"
	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/store"
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
	provider provider.Provider
	proxies  map[string]proxy
	reg      Registry      // nil: environments live in this process only
	pub      Publisher     // set without reg: the open environments are published (publish.go)
	changes  chan struct{} // tells the publisher of a change (nil without pub)
	replica  string
	idleHook atomic.Pointer[func(context.Context, *Env)]

	mu         sync.Mutex
	envs       map[string]*Env
	pending    int              // environments being opened, counted against the limits
	pendingFor map[string]int   // the same, per purpose
	conns      map[*Conn]string // connections watched for loss, with the browser session each drives ("" for none)
	tombs      map[string]string
	tombOrder  []string
	closed     bool

	wanting int           // open calls under way: no spare is made while any is (spare.go)
	room    chan struct{} // closed (and replaced) when an environment leaves the pool (freedLocked)

	spares      []*Env        // ready spare environments (spare.go)
	filling     chan struct{} // closed when the spare being made is ready or failed; nil when none is
	spareRegion string        // the region spares are made in; empty: no spares

	stop      chan struct{}
	wg        sync.WaitGroup
	disposing sync.WaitGroup // browser contexts being disposed of (dispose)
}

// NewManager checks opts and starts the idle reaper. It starts no browser:
// the first Open does.
func NewManager(opts Options) (*Manager, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, errs.Wrap(errs.InvalidParams, err, "%v", err)
	}
	d := &dialer{log: o.Logger, allow: o.AllowURL, replica: o.Replica, hold: o.HoldSubresources, csp: o.cspHeader()}
	prov, err := newProvider(o, d)
	if err != nil {
		return nil, errs.Wrap(errs.InvalidParams, err, "%v", err)
	}
	reg := o.Registry
	if _, shared := prov.(provider.Attacher); !shared {
		reg = nil // its browsers die with this process: nothing to share
	}
	if reg != nil {
		d.known = func(ctx context.Context, id string) (*Record, error) { return reg.FindEnvByContext(ctx, id) }
	}
	m := &Manager{
		opts:       o,
		log:        o.Logger,
		provider:   prov,
		reg:        reg,
		replica:    o.Replica,
		proxies:    map[string]proxy{},
		envs:       map[string]*Env{},
		pendingFor: map[string]int{},
		conns:      map[*Conn]string{},
		tombs:      map[string]string{},
		stop:       make(chan struct{}),
		room:       make(chan struct{}),
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
	if reg == nil && o.Publisher != nil {
		m.pub, m.changes = o.Publisher, make(chan struct{}, 1)
		m.wg.Add(1)
		go m.publishLoop()
	}
	m.wg.Add(1)
	go m.reap()
	return m, nil
}

// Provider is the manager's browser provider.
func (m *Manager) Provider() provider.Provider { return m.provider }

// Start starts the provider's own browser now when it has one to start
// (Starter: local), so a caller can bound its launch, slow on a loaded
// machine, by something longer than the step that first needs it. Other
// providers reach running browsers: nothing to do.
func (m *Manager) Start(ctx context.Context) error {
	s, ok := m.provider.(provider.Starter)
	if !ok {
		return nil
	}
	conn, err := own(s.Start(ctx))
	if err != nil {
		return err
	}
	m.watch(conn)
	return nil
}

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

	m.mu.Lock()
	m.wanting++
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		m.wanting--
		m.mu.Unlock()
	}()

	r := &openReq{region: region, purpose: purpose, temporary: temporary}
	for {
		env, again, err := m.admit(ctx, r)
		if err != nil || env != nil {
			return env, err
		}
		if !again {
			break // room is reserved for a new environment
		}
	}
	return m.openNew(ctx, r, px)
}

// openReq is an Open under way: what it asks for and what it tried.
type openReq struct {
	region, purpose string
	temporary       bool
	// waited for the spare being made; noReuse: an idle environment here
	// was held by another replica's call; triedShared: looked for one in
	// the registry
	waited, noReuse, triedShared bool
}

// admit takes one look at the pool for r: an environment to reuse or a
// spare (env), or a wait (for the spare being made, or for room) after
// which to look again (again), or else room reserved (counted as pending)
// for a new environment (neither).
func (m *Manager) admit(ctx context.Context, r *openReq) (env *Env, again bool, err error) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, false, errClosed
	}
	if !r.temporary && !r.noReuse {
		if env := m.idleLocked(r.region, r.purpose); env != nil {
			m.mu.Unlock()
			if !m.leaseIdle(ctx, env) {
				// another replica's call holds it: open another
				<-env.sem
				r.noReuse = true
				return nil, true, nil
			}
			env.touch()
			m.log.Debug("environment reused", "env", env.ID, "region", r.region, "purpose", r.purpose)
			return env, false, nil
		}
		if m.reg != nil && !r.triedShared {
			// None here: one another replica made (or let go of) may be idle.
			m.mu.Unlock()
			r.triedShared = true
			if env := m.reuseShared(ctx, r.region, r.purpose); env != nil {
				return env, false, nil
			}
			return nil, true, nil
		}
	}
	// max_per_purpose bounds the environments a purpose keeps between
	// calls; a temporary one lives for one call and counts only toward
	// max_environments, so parallel calls of env: temporary tools are
	// bounded by the pool, not by their shared "default" purpose.
	if !r.temporary {
		if n := m.countLocked(r.purpose) + m.pendingFor[r.purpose]; n >= m.opts.MaxPerPurpose {
			m.mu.Unlock()
			return nil, false, errs.New(errs.EnvUnavailable, "purpose %q already holds %d environments (browser.max_per_purpose)", r.purpose, n)
		}
	}
	if env := m.takeSpareLocked(r.region, r.purpose, r.temporary); env != nil {
		m.mu.Unlock()
		env, err := m.openedSpare(ctx, env, r)
		return env, false, err
	}
	again, err = m.waitOrReserveLocked(ctx, r)
	return nil, again, err
}

// waitOrReserveLocked, with m.mu held, waits (unlocked) for the spare
// being made or for room in a full pool and says to look again; or
// reserves room for a new environment of r. It unlocks m.mu.
func (m *Manager) waitOrReserveLocked(ctx context.Context, r *openReq) (again bool, err error) {
	full := m.totalLocked() >= m.opts.MaxEnvironments
	if full && m.dropSpareLocked() {
		full = false
	}
	if fill := m.filling; fill != nil && !r.waited && (full || r.region == m.spareRegion) {
		// A spare is on its way: waiting for it is never slower than
		// opening another, and at the limit it is the room there is.
		m.mu.Unlock()
		r.waited = true
		select {
		case <-fill:
		case <-ctx.Done():
			return false, ctx.Err()
		}
		return true, nil
	}
	if full {
		// Wait for room within the call's deadline: a call that ends,
		// or an environment closed or lost, frees a place. Failing here
		// would turn a busy pool into failed calls (slower is fine).
		n, room := m.totalLocked(), m.room
		m.mu.Unlock()
		if err := waitRoom(ctx, room); err != nil {
			return false, errs.Wrap(errs.EnvUnavailable, err, "environment pool is full (%d open, browser.max_environments), and no environment came free in time", n)
		}
		return true, nil
	}
	m.pending++
	if !r.temporary {
		m.pendingFor[r.purpose]++
	}
	m.mu.Unlock()
	return false, nil
}

// openedSpare hands the spare env, taken for r, to the caller, adopted in
// the registry when there is one.
func (m *Manager) openedSpare(ctx context.Context, env *Env, r *openReq) (*Env, error) {
	if m.reg != nil {
		rctx, cancel := regCtx(ctx)
		err := m.reg.AdoptEnv(rctx, env.ID, r.purpose, r.temporary)
		cancel()
		if err != nil {
			m.closeEnv(env, errs.New(errs.EnvUnavailable, "the environment registry cannot be reached"), "not registered")
			return nil, registryErr(err)
		}
	}
	m.log.Info("environment opened", "env", env.ID, "region", r.region, "purpose", r.purpose, "temporary", r.temporary, "spare", true)
	m.changed()
	return env, nil
}

// openNew makes a new environment for r in the room admit reserved.
func (m *Manager) openNew(ctx context.Context, r *openReq, px proxy) (*Env, error) {
	held := 0
	if !r.temporary {
		held = 1
	}
	env, err := m.create(ctx, r.region, r.purpose, px, r.temporary)

	m.mu.Lock()
	m.pending--
	m.pendingFor[r.purpose] -= held
	if err != nil {
		m.freedLocked()
	}
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
	m.log.Info("environment opened", "env", env.ID, "region", r.region, "purpose", r.purpose, "temporary", r.temporary)
	m.changed()
	return env, nil
}

// roomPoll is how often a call waiting for room looks again on its own: the
// registry's count (other replicas' environments) frees room this process
// is not told about.
const roomPoll = 500 * time.Millisecond

// waitRoom waits until room is closed (an environment left the pool),
// roomPoll passes, or ctx ends (its error).
func waitRoom(ctx context.Context, room <-chan struct{}) error {
	t := time.NewTimer(roomPoll)
	defer t.Stop()
	select {
	case <-room:
	case <-t.C:
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

// freedLocked wakes the calls waiting for room in the pool.
func (m *Manager) freedLocked() {
	close(m.room)
	m.room = make(chan struct{})
}

// leaseIdle takes the registry lease of an idle environment this process
// found; false when another replica's call holds it. Without a registry
// the local hold is all there is.
func (m *Manager) leaseIdle(ctx context.Context, env *Env) bool {
	if m.reg == nil {
		return true
	}
	owner := m.newOwner()
	rctx, cancel := regCtx(ctx)
	ok, err := m.reg.LeaseEnv(rctx, env.ID, owner, m.leaseUntil())
	cancel()
	if err != nil || !ok {
		return false
	}
	m.hold(env, owner)
	return true
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
//
// With a registry the environment is reserved there first (the pool limits
// count the registry), its place recorded as soon as it has one, and its
// lease renewed while it is held. Contexts in a local browser are disposed
// of with their connection (DisposeOnDetach), as nothing else can reach
// them; contexts in a remote browser outlive the connection that made them,
// so another replica can attach to them by id after this one is gone, and
// are disposed of explicitly by close_env or the idle reaper.
func (m *Manager) create(ctx context.Context, region, purpose string, px proxy, temporary bool) (*Env, error) {
	id := newID()
	owner := m.newOwner()
	if m.reg != nil {
		rec := Record{ID: id, Provider: m.provider.Name(), Region: region, Purpose: purpose, Temporary: temporary}
		rctx, cancel := regCtx(ctx)
		err := m.reg.ReserveEnv(rctx, &rec, store.EnvLimits{Max: m.opts.MaxEnvironments, MaxPerKept: m.opts.MaxPerPurpose}, owner, m.leaseUntil())
		cancel()
		if err != nil {
			return nil, registryErr(err)
		}
	}
	env, err := m.createIn(ctx, id, region, purpose, px, temporary)
	if err != nil {
		if m.reg != nil {
			rctx, cancel := regCtx(ctx)
			_ = m.reg.CloseEnv(rctx, id, "it could not be opened")
			cancel()
		}
		return nil, err
	}
	m.hold(env, owner)
	return env, nil
}

func (m *Manager) locate(ctx context.Context, env *Env, target proto.TargetTargetID) error {
	if m.reg == nil {
		return nil
	}
	rctx, cancel := regCtx(ctx)
	defer cancel()
	return registryErr(m.reg.SetEnvLocation(rctx, env.ID, env.conn.Endpoint(), string(env.ctxID), string(target), env.session))
}

func (m *Manager) createIn(ctx context.Context, id, region, purpose string, px proxy, temporary bool) (*Env, error) {
	conn, err := own(m.provider.Browser(ctx))
	if err != nil {
		return nil, err
	}
	m.watch(conn)
	b := conn.browser.Context(ctx)
	// Only kept environments of a shared browser (a registry, which an
	// Attacher has) outlive the connection; temporary ones (and spares)
	// die with it, like everything local.
	shared := m.reg != nil
	res, err := proto.TargetCreateBrowserContext{DisposeOnDetach: temporary || !shared, ProxyServer: px.server}.Call(b)
	if err != nil {
		err = m.browserErr(conn, err, "cannot make a browser context")
		if s := m.sessionOf(conn); s != "" {
			m.endSession(s) // the session was made for this environment alone
			conn.Close()
		}
		return nil, err
	}
	if m.opts.HoldSubresources {
		m.grantLocalNetwork(ctx, conn, res.BrowserContextID)
	}
	done, end := context.WithCancelCause(context.Background())
	env := &Env{
		ID:        id,
		Region:    region,
		Purpose:   purpose,
		Temporary: temporary,
		conn:      conn,
		ctxID:     res.BrowserContextID,
		session:   m.sessionOf(conn),
		proxy:     px,
		sem:       make(chan struct{}, 1),
		done:      done,
		end:       end,
		lastUsed:  time.Now(),
		exempt:    map[proto.TargetTargetID]bool{},
	}
	env.sem <- struct{}{} // held for the caller
	conn.guard.register(env.ctxID, env)
	if err := m.locate(ctx, env, ""); err != nil {
		m.dispose(env, errs.New(errs.EnvUnavailable, "the environment could not be registered"))
		return nil, err
	}

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
	if err := m.preparePage(ctx, env, page); err != nil {
		return nil, err
	}
	if err := m.locate(ctx, env, page.TargetID); err != nil {
		m.dispose(env, errs.New(errs.EnvUnavailable, "the environment could not be registered"))
		return nil, err
	}
	return env, nil
}

// preparePage makes page env's page, sized to the viewport and under the
// popup rule; on an error env is disposed of.
func (m *Manager) preparePage(ctx context.Context, env *Env, page *rod.Page) error {
	env.setPage(page)
	if err := env.SetViewport(ctx, m.opts.Viewport); err != nil {
		m.dispose(env, errs.New(errs.EnvUnavailable, "the environment's page could not be sized"))
		return m.browserErr(env.conn, err, "cannot size the page")
	}
	if err := blockPopups(ctx, page); err != nil {
		m.dispose(env, errs.New(errs.EnvUnavailable, "the environment's page could not be given the popup rule"))
		return m.browserErr(env.conn, err, "cannot give the page the popup rule")
	}
	return nil
}

// localNetwork are Chromium's permissions for requests to loopback and
// private addresses (Local Network Access), by the names of several
// Chromium versions.
var localNetwork = []proto.BrowserPermissionType{"localNetworkAccess", "localNetwork", "loopbackNetwork"}

// grantLocalNetwork lets the pages of browser context id reach local
// network addresses under HoldSubresources. A document the guard answered
// itself (to add its connection rules) has no address space of its own,
// so Chromium would treat it as public and refuse its WebSockets to a
// loopback or private host; every request is held to the allowed hosts
// anyway, which is the stricter rule.
func (m *Manager) grantLocalNetwork(ctx context.Context, conn *Conn, id proto.BrowserBrowserContextID) {
	b := conn.browser.Context(ctx)
	if (proto.BrowserGrantPermissions{Permissions: localNetwork, BrowserContextID: id}).Call(b) == nil {
		return
	}
	for _, p := range localNetwork { // an older Chromium knows only some
		if err := (proto.BrowserGrantPermissions{Permissions: []proto.BrowserPermissionType{p}, BrowserContextID: id}).Call(b); err != nil {
			m.log.Debug("cannot grant a local network permission", "permission", p, "err", err)
		}
	}
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

// watch starts noticing when conn's browser goes away, and notes the
// browser session it drives (SessionKeeper), which lostConn reads once the
// provider may have forgotten it.
func (m *Manager) watch(conn *Conn) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.conns[conn]; ok {
		return
	}
	m.conns[conn] = m.sessionOf(conn)
	conn.guard.onCrash(m.crashed)
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		<-conn.Done()
		m.lostConn(conn)
	}()
}

// crashed closes env, whose page's renderer process died (a crash, the
// out-of-memory killer): its call in flight fails with env_unavailable at
// once instead of waiting out a step's timeout, and the environment is
// closed, since the page and whatever it held are gone: Get then says
// env_not_found. Its browser and the other environments go on.
func (m *Manager) crashed(env *Env) {
	if env.Err() != nil {
		return
	}
	m.log.Warn("page crashed; closing its environment", "env", env.ID, "purpose", env.Purpose)
	m.closeEnv(env, errs.New(errs.EnvUnavailable, "the page of environment %s crashed (its renderer process died); open a new environment", env.ID),
		"its page crashed; open a new environment")
}

// lostConn drops every environment of a browser that went away. Their
// calls in flight fail with env_unavailable; Get then says env_not_found.
func (m *Manager) lostConn(conn *Conn) {
	cause := conn.Err()
	m.mu.Lock()
	session := m.conns[conn]
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
	m.freedLocked()
	m.mu.Unlock()
	for _, e := range lost {
		e.end(cause)
		conn.guard.unregister(e.ctxID)
	}
	m.changed()
	if session != "" && len(lost) == 0 {
		return // a session's browser ended with its closed environment
	}
	if m.reg != nil && !closed {
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			m.lostInRegistry(conn, lost)
		}()
	} else if !closed {
		m.endSessions(lost)
	}
	if len(lost) > 0 && !closed {
		m.log.Warn("browser lost", "endpoint", conn.Endpoint(), "environments", len(lost), "cause", cause)
	}
}

// lostInRegistry marks the environments of a lost browser closed for every
// replica. A remote browser that still answers (only this connection broke)
// keeps them: another replica, or this one, attaches to them again.
func (m *Manager) lostInRegistry(conn *Conn, lost []*Env) {
	ctx, cancel := regCtx(context.Background())
	defer cancel()
	if ap, ok := m.provider.(provider.Attacher); ok {
		c, err := own(ap.Attach(ctx, conn.Endpoint()))
		if err == nil && c != conn {
			m.watch(c)
			return
		}
		if errors.Is(err, errClosed) {
			return // this process let go; the browser may well live on
		}
	}
	m.endSessions(lost)
	if _, err := m.reg.CloseEnvsAt(ctx, conn.Endpoint(), "its browser stopped; open a new environment"); err != nil {
		m.log.Warn("cannot mark a lost browser's environments closed", "endpoint", conn.Endpoint(), "err", err)
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

// Describe returns the region and purpose of environment id without
// holding it: from this process, or from the registry for an environment
// another replica opened. Errors are Get's.
func (m *Manager) Describe(ctx context.Context, id string) (region, purpose string, err error) {
	e, err := m.Get(id)
	if err == nil || m.reg == nil || !m.unknownLocked(id) {
		if err != nil {
			return "", "", err
		}
		return e.Region, e.Purpose, nil
	}
	rctx, cancel := regCtx(ctx)
	rec, rerr := m.getRecord(rctx, id)
	cancel()
	if rerr != nil {
		return "", "", registryErr(rerr)
	}
	if rec == nil || rec.Closed {
		return "", "", closedErr(id, rec)
	}
	return rec.Region, rec.Purpose, nil
}

// unknownLocked reports whether this process never had environment id.
func (m *Manager) unknownLocked(id string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, open := m.envs[id]
	_, tomb := m.tombs[id]
	return !open && !tomb
}

// Acquire holds environment id for one call, waiting (under ctx) while
// another call holds it — in this process or, through the registry's lease,
// in any replica. An environment another replica opened in a remote
// browser is attached to by its id. Release it when the call ends.
func (m *Manager) Acquire(ctx context.Context, id string) (*Env, error) {
	for {
		if m.reg != nil && m.unknownLocked(id) {
			e, again, err := m.attach(ctx, id, true)
			if again {
				continue
			}
			return e, err
		}
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
		if m.reg != nil {
			owner := m.newOwner()
			if err := m.leaseWait(ctx, id, owner); err != nil {
				<-e.sem
				if errs.CodeOf(err) == errs.EnvNotFound {
					// closed by another replica: forget it here too
					m.closeEnv(e, errs.As(err), "closed by another replica")
				}
				return nil, err
			}
			m.hold(e, owner)
		}
		e.touch()
		return e, nil
	}
}

// attach makes environment id, opened by another replica in a remote
// browser, usable here: lease it (waiting while another call holds it, or
// with wait false giving up with errBusy), reach its browser, attach to its
// page by target id and put the page under this process's rules. again
// means the environment appeared in this process meanwhile.
func (m *Manager) attach(ctx context.Context, id string, wait bool) (env *Env, again bool, err error) {
	rec, ap, px, err := m.attachable(ctx, id)
	if err != nil {
		return nil, false, err
	}
	owner := m.newOwner()
	if wait {
		err = m.leaseWait(ctx, id, owner)
	} else {
		err = m.leaseOnce(ctx, id, owner)
	}
	if err != nil {
		return nil, false, err
	}
	unlease := func() {
		rctx, cancel := regCtx(ctx)
		_ = m.reg.ReleaseEnv(rctx, id, owner)
		cancel()
	}
	if !m.unknownLocked(id) {
		unlease()
		return nil, true, nil
	}
	conn, err := own(ap.Attach(ctx, rec.Endpoint))
	if err != nil {
		unlease()
		return nil, false, m.attachFailed(ctx, id, err)
	}
	if k, ok := m.provider.(provider.SessionKeeper); ok && rec.Session != "" {
		k.KeepSession(conn, rec.Session) // this replica keeps the session alive while it has the environment
	}
	m.watch(conn)
	env, err = m.adopt(ctx, id, rec, conn, px)
	if err != nil {
		if gone := conn.Err(); gone != nil {
			unlease()
			return nil, false, gone
		}
		rctx, cancel := regCtx(ctx)
		_ = m.reg.CloseEnv(rctx, id, "its page is gone")
		cancel()
		return nil, false, errs.Wrap(errs.EnvNotFound, err, "environment %q is closed: its page is gone", id)
	}
	return m.admitAttached(env, owner, rec, unlease)
}

// attachable looks up environment id in the registry and checks that this
// server can attach to it: its record, the Attacher to reach it, and its
// region's proxy.
func (m *Manager) attachable(ctx context.Context, id string) (*Record, provider.Attacher, proxy, error) {
	rctx, cancel := regCtx(ctx)
	rec, err := m.getRecord(rctx, id)
	cancel()
	if err != nil {
		return nil, nil, proxy{}, registryErr(err)
	}
	if rec == nil || rec.Closed {
		return nil, nil, proxy{}, closedErr(id, rec)
	}
	ap, ok := m.provider.(provider.Attacher)
	if !ok || rec.Provider != m.provider.Name() || rec.Endpoint == "" || rec.TargetID == "" {
		return nil, nil, proxy{}, errs.New(errs.EnvNotFound, "environment %q lives in another server's own browser; call it there, or use browser.provider cdp so replicas share browsers", id)
	}
	px, ok := m.proxies[rec.Region]
	if !ok {
		return nil, nil, proxy{}, errs.New(errs.EnvNotFound, "environment %q is in region %q, which this server does not know", id, rec.Region)
	}
	return rec, ap, px, nil
}

// attachFailed is the error of an Attach to environment id's endpoint that
// failed with err: an environment whose browser context is gone
// (env_not_found) is closed in the registry.
func (m *Manager) attachFailed(ctx context.Context, id string, err error) error {
	if errs.CodeOf(err) != errs.EnvNotFound {
		return err
	}
	rctx, cancel := regCtx(ctx)
	_ = m.reg.CloseEnv(rctx, id, errs.As(err).Message)
	cancel()
	return errs.New(errs.EnvNotFound, "environment %q is closed: %s", id, errs.As(err).Message)
}

// adopt makes environment id, of rec, on conn: its browser context
// registered with conn's guard and its page, made through another
// connection, taken over (guarded, sized). An error means the page is
// gone (or conn is).
func (m *Manager) adopt(ctx context.Context, id string, rec *Record, conn *Conn, px proxy) (*Env, error) {
	done, end := context.WithCancelCause(context.Background())
	env := &Env{
		ID: id, Region: rec.Region, Purpose: rec.Purpose, Temporary: rec.Temporary,
		conn: conn, ctxID: proto.BrowserBrowserContextID(rec.ContextID), proxy: px, session: rec.Session,
		sem: make(chan struct{}, 1), done: done, end: end, lastUsed: time.Now(),
		exempt: map[proto.TargetTargetID]bool{},
	}
	env.sem <- struct{}{}
	conn.guard.register(env.ctxID, env)
	page, err := conn.browser.Context(env.done).PageFromTarget(proto.TargetTargetID(rec.TargetID))
	if err == nil {
		err = conn.guard.adopt(ctx, page.SessionID, env, page.TargetID)
	}
	if err != nil {
		env.end(errs.New(errs.EnvNotFound, "environment %q is closed: its page is gone", id))
		conn.guard.unregister(env.ctxID)
		return nil, err
	}
	env.setPage(page)
	// The viewport and the popup rule were set through another
	// connection's session, which took them along: set them on this one.
	_ = env.SetViewport(ctx, m.opts.Viewport)
	_ = blockPopups(ctx, page)
	return env, nil
}

// admitAttached adds env, just attached and leased by owner, to the
// manager's environments, held for the caller; again when another call
// attached it meanwhile (unlease gives the lease back then).
func (m *Manager) admitAttached(env *Env, owner string, rec *Record, unlease func()) (*Env, bool, error) {
	m.mu.Lock()
	if m.closed || m.envs[env.ID] != nil {
		closed := m.closed
		m.mu.Unlock()
		env.end(errClosed)
		env.conn.guard.unregister(env.ctxID)
		unlease()
		if closed {
			return nil, false, errClosed
		}
		return nil, true, nil
	}
	m.envs[env.ID] = env
	m.mu.Unlock()
	m.hold(env, owner)
	m.log.Info("environment attached", "env", env.ID, "endpoint", rec.Endpoint, "purpose", rec.Purpose)
	return env, false, nil
}

// Release ends a call's hold on env. A temporary environment is closed.
// Releasing nil or an environment not held does nothing.
func (m *Manager) Release(env *Env) {
	if env == nil {
		return
	}
	env.touch()
	env.mu.Lock()
	until := env.keepUntil
	env.keepUntil = time.Time{}
	env.mu.Unlock()
	if d := time.Until(until); d > 0 {
		m.keep(env, d)
		return
	}
	if env.Temporary {
		m.closeEnv(env, errs.New(errs.EnvNotFound, "environment %q is closed: its call ended", env.ID), "its call ended")
		return
	}
	m.unhold(env)
	select {
	case <-env.sem:
	default:
	}
	m.refill()
}

// KeepFor makes the next Release of env, held by a call, keep it for a
// person until until (an ask_human step the person did not finish in time):
// still held, so no call takes it and the reaper leaves it alone, then
// closed (a temporary one) or released to its purpose's pool.
func (m *Manager) KeepFor(env *Env, until time.Time) {
	env.mu.Lock()
	env.keepUntil = until
	env.mu.Unlock()
}

// keep holds env for d after its call ended (KeepFor), then releases it.
func (m *Manager) keep(env *Env, d time.Duration) {
	m.log.Info("environment kept for a person", "env", env.ID, "purpose", env.Purpose, "for_ms", d.Milliseconds())
	time.AfterFunc(d, func() {
		if env.Temporary {
			m.closeEnv(env, errs.New(errs.EnvNotFound, "environment %q is closed: its handoff expired", env.ID), "its handoff expired")
			return
		}
		m.Release(env)
	})
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
		m.freedLocked()
	}
	m.mu.Unlock()
	m.unhold(env)
	m.regClose(env.ID, why)
	m.dispose(env, cause)
	m.changed()
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
	m.regClose(env.ID, errs.As(cause).Message)
	if env.session != "" {
		// A session is its environment's own browser: ending it ends the
		// browser, and this connection with it.
		m.endSession(env.session)
		env.conn.Close()
		return
	}
	// The environment is gone for every caller already; Chromium's part
	// (closing its pages and renderers, 8-12 ms) runs in the background,
	// so the call that released it answers without waiting. Shutdown
	// waits for it before it closes the browsers.
	m.mu.Lock()
	later := !m.closed
	if later {
		m.disposing.Add(1)
	}
	m.mu.Unlock()
	if !later {
		m.disposeContext(env)
		return
	}
	go func() {
		defer m.disposing.Done()
		m.disposeContext(env)
	}()
}

// disposeContext disposes of env's browser context in Chromium.
func (m *Manager) disposeContext(env *Env) {
	if env.conn.Err() != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	if err := (proto.TargetDisposeBrowserContext{BrowserContextID: env.ctxID}).Call(env.conn.browser.Context(ctx)); err != nil && env.conn.Err() == nil {
		m.log.Warn("cannot dispose of a browser context", "env", env.ID, "err", err)
	}
}

// regClose marks id closed in the registry (a no-op when it already is).
func (m *Manager) regClose(id, why string) {
	if m.reg == nil {
		return
	}
	ctx, cancel := regCtx(context.Background())
	defer cancel()
	if err := m.reg.CloseEnv(ctx, id, why); err != nil {
		m.log.Warn("cannot mark an environment closed in the registry", "env", id, "err", err)
	}
}

// BeforeIdleClose sets fn to run on an environment the idle reaper is
// about to close, while it is still open and held by the reaper (the
// engine saves its purpose's sign-in there). fn gets 30 seconds.
func (m *Manager) BeforeIdleClose(fn func(ctx context.Context, env *Env)) {
	m.idleHook.Store(&fn)
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
			if !m.idleInRegistry(e) {
				<-e.sem
				continue
			}
			if fn := m.idleHook.Load(); fn != nil {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				(*fn)(ctx, e)
				cancel()
			}
			m.closeEnv(e, errs.New(errs.EnvNotFound, "environment %q is closed: idle for %s", e.ID, m.opts.IdleTimeout), fmt.Sprintf("idle for %s", m.opts.IdleTimeout))
		}
		m.reapShared()
	}
}

// idleInRegistry checks an environment this process finds idle against the
// registry, where another replica may have used it since, and takes its
// lease for the reaper. Without a registry it is idle.
func (m *Manager) idleInRegistry(e *Env) bool {
	if m.reg == nil {
		return true
	}
	ctx, cancel := regCtx(context.Background())
	defer cancel()
	rec, err := m.getRecord(ctx, e.ID)
	if err != nil || rec == nil {
		return false
	}
	if rec.Closed {
		return true
	}
	if time.Since(rec.LastUsed) < m.opts.IdleTimeout {
		e.mu.Lock()
		e.lastUsed = rec.LastUsed
		e.mu.Unlock()
		return false
	}
	ok, err := m.reg.LeaseEnv(ctx, e.ID, m.newOwner(), m.leaseUntil())
	return ok && err == nil
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

	// Kept environments in shared remote browsers stay open for the other
	// replicas: this one only lets go of them.
	shared := m.reg != nil
	var wg sync.WaitGroup
	for _, e := range envs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if shared && !e.Temporary {
				m.unhold(e)
				e.end(errs.New(errs.EnvUnavailable, "the server is shutting down"))
				return
			}
			m.closeEnv(e, errs.New(errs.EnvUnavailable, "the server is shutting down"), "shutdown")
		}()
	}
	for _, e := range spares {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.unhold(e)
			m.dispose(e, errClosed)
		}()
	}
	wg.Wait()
	m.disposing.Wait() // m.closed is set: no dispose starts another
	err := m.provider.Close(ctx)
	m.wg.Wait()
	m.withdraw()
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
