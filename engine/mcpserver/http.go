package mcpserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolwright/toolwright/engine/config"
)

// Path is where Streamable HTTP is served.
const Path = "/mcp"

// CheckHTTP refuses to serve a non-loopback address without a token: off
// loopback, every request must carry `Authorization: Bearer TOKEN`.
func CheckHTTP(addr, token string) error {
	if addr == "" {
		return errors.New("no HTTP address: give --http ADDR or set http.addr")
	}
	if _, _, err := net.SplitHostPort(addr); err != nil {
		return fmt.Errorf("http address %q: want HOST:PORT such as 127.0.0.1:8080", addr)
	}
	if !config.IsLoopback(addr) && token == "" {
		return fmt.Errorf("http address %s is not loopback: refusing to serve without a token (set http.token, by default from the TOOLWRIGHT_TOKEN environment variable)", addr)
	}
	return nil
}

// ServeHTTP serves Streamable HTTP at /mcp on addr until ctx ends, then shuts
// down gracefully: no new connections, calls in flight get ShutdownGrace,
// then the rest are cancelled and the sessions closed. The caller closes the
// browsers and the store afterwards.
func (s *Server) ServeHTTP(ctx context.Context, addr, token string) error {
	if err := CheckHTTP(addr, token); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	host, _, _ := net.SplitHostPort(addr)
	return s.serveListener(ctx, ln, token, host)
}

// ServeListener is ServeHTTP on a listener the caller opened.
func (s *Server) ServeListener(ctx context.Context, ln net.Listener, token string) error {
	if err := CheckHTTP(ln.Addr().String(), token); err != nil {
		ln.Close()
		return err
	}
	host, _, _ := net.SplitHostPort(ln.Addr().String())
	return s.serveListener(ctx, ln, token, host)
}

func (s *Server) serveListener(ctx context.Context, ln net.Listener, token, boundHost string) error {
	hs := &http.Server{
		Handler:           s.Handler(boundHost, token),
		ReadHeaderTimeout: s.o.ReadHeaderTimeout,
		ReadTimeout:       s.o.ReadTimeout, // the guard lifts it once the body is read
		IdleTimeout:       s.o.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	s.log.Info("serving MCP over Streamable HTTP", "url", "http://"+ln.Addr().String()+Path,
		"tools", len(s.eng.Workflows().Names()), "auth", token != "")
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.log.Info("shutting down the HTTP server")
	go func() {
		// Calls get the grace, then are cancelled and answered; then the
		// sessions close, which ends the clients' standing GET streams.
		s.drain(s.o.ShutdownGrace)
		for ss := range s.mcp.Sessions() {
			_ = ss.Close()
		}
	}()
	sctx, cancel := context.WithTimeout(context.Background(), s.o.ShutdownGrace+20*time.Second)
	defer cancel()
	err := hs.Shutdown(sctx)
	if err != nil {
		s.log.Warn("HTTP shutdown timed out; closing connections", "err", err)
		err = hs.Close()
	}
	if serr := <-errc; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}

// Handler is the HTTP handler: the guard (Host, Origin, body size, token)
// in front of the SDK's Streamable HTTP handler at /mcp. boundHost is the
// host the server listens on; token may be empty on loopback.
func (s *Server) Handler(boundHost, token string) http.Handler {
	mh := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		Logger:              slog.New(debugOnly{s.log.Handler()}),
		MaxRequestBodyBytes: s.o.MaxBodyBytes,
		SessionTimeout:      s.o.SessionIdleTimeout,
		// Stateless: no session lives here; every request stands alone, so
		// any replica behind a round-robin balancer answers any request.
		// Progress notifications still reach the client inside a request.
		Stateless: s.o.Stateless,
	})
	mux := http.NewServeMux()
	mux.Handle(Path, mh)
	s.opsRoutes(mux)
	g := &guard{next: mux, max: s.o.MaxBodyBytes, log: s.log, hosts: map[string]bool{}, posts: &s.posts,
		srv: s, maxSessions: s.o.MaxSessions, maxClient: s.o.MaxClientRequests, clients: map[string]int{}}
	h := strings.ToLower(strings.Trim(boundHost, "[]"))
	switch ip := net.ParseIP(h); {
	case h == "" || (ip != nil && ip.IsUnspecified()):
		g.anyHost = true // every interface: names unknown, the token guards
	case !isLoopbackHost(h):
		g.hosts[h] = true
	}
	if token != "" {
		sum := sha256.Sum256([]byte(token))
		g.token = sum[:]
	}
	return g
}

// guard protects the endpoint: against DNS rebinding (a Host that is not
// loopback or the bound host, a browser Origin that is not loopback), against
// large bodies, and, when a token is set, against callers without it.
type guard struct {
	next    http.Handler
	max     int64
	log     *slog.Logger
	hosts   map[string]bool // allowed Host names besides loopback
	anyHost bool
	token   []byte // sha256 of the token; nil: no token
	posts   *atomic.Int64

	srv         *Server
	maxSessions int
	opening     sync.Mutex // one new session at a time, so the count holds
	maxClient   int
	cmu         sync.Mutex
	clients     map[string]int // requests running per client
}

func (g *guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !g.hostOK(r.Host) {
		g.deny(w, r, http.StatusForbidden, "forbidden: Host %q is not allowed", r.Host)
		return
	}
	if o := r.Header.Get("Origin"); o != "" && !g.originOK(o, r.Host) {
		g.deny(w, r, http.StatusForbidden, "forbidden: Origin %q is not allowed", o)
		return
	}
	if g.token != nil && !publicPath(r.URL.Path) && !g.authorized(r.Header.Get("Authorization")) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="toolwright"`)
		g.deny(w, r, http.StatusUnauthorized, "unauthorized: send Authorization: Bearer TOKEN")
		return
	}
	if r.ContentLength > g.max {
		g.deny(w, r, http.StatusRequestEntityTooLarge, "request body is larger than %d bytes", g.max)
		return
	}
	sid := r.Header.Get("Mcp-Session-Id")
	client := "session " + sid
	if sid == "" {
		client = "address " + hostOf(r.RemoteAddr)
	}
	if !g.enter(client) {
		w.Header().Set("Retry-After", "1")
		g.deny(w, r, http.StatusTooManyRequests, "too many requests at once from this client (at most %d); retry when one has been answered", g.maxClient)
		return
	}
	defer g.leave(client)
	if r.Body != nil && r.Body != http.NoBody {
		// Read the whole body under the server's ReadTimeout, then lift the
		// deadline: answers (a call's stream, a standing GET) may take long.
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, g.max))
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				g.deny(w, r, http.StatusRequestEntityTooLarge, "request body is larger than %d bytes", g.max)
			} else {
				g.deny(w, r, http.StatusBadRequest, "request body could not be read in time")
			}
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
	if r.Method == http.MethodPost {
		// Shutdown closes the sessions only once every POST is answered.
		g.posts.Add(1)
		defer g.posts.Add(-1)
	}
	if r.Method == http.MethodPost && sid == "" && g.srv != nil && !g.srv.o.Stateless {
		// A POST without a session opens one (initialize): count first.
		g.opening.Lock()
		defer g.opening.Unlock()
		if n := g.srv.sessions(); n >= g.maxSessions {
			w.Header().Set("Retry-After", "5")
			g.deny(w, r, http.StatusServiceUnavailable, "server is full: %d MCP sessions are open (http.max_sessions); retry later or close an unused session", n)
			return
		}
	}
	g.next.ServeHTTP(w, r)
}

// enter counts a request of client; false when the client is at its cap.
func (g *guard) enter(client string) bool {
	g.cmu.Lock()
	defer g.cmu.Unlock()
	if g.maxClient > 0 && g.clients[client] >= g.maxClient {
		return false
	}
	g.clients[client]++
	return true
}

func (g *guard) leave(client string) {
	g.cmu.Lock()
	defer g.cmu.Unlock()
	if g.clients[client]--; g.clients[client] <= 0 {
		delete(g.clients, client)
	}
}

// sessions counts the open MCP sessions.
func (s *Server) sessions() int {
	n := 0
	for range s.mcp.Sessions() {
		n++
	}
	return n
}

func (g *guard) deny(w http.ResponseWriter, r *http.Request, code int, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	g.log.Warn("HTTP request refused", "status", code, "reason", msg, "remote", r.RemoteAddr)
	http.Error(w, msg, code)
}

func (g *guard) hostOK(hostport string) bool {
	h := hostOf(hostport)
	return h != "" && (isLoopbackHost(h) || g.anyHost || g.hosts[h])
}

// originOK accepts browser origins on loopback, on the bound host, and
// (when bound to every interface) the page's own origin.
func (g *guard) originOK(origin, reqHost string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false
	}
	h := hostOf(u.Host)
	switch {
	case isLoopbackHost(h), g.hosts[h]:
		return true
	case g.anyHost:
		return strings.EqualFold(u.Host, reqHost)
	}
	return false
}

func (g *guard) authorized(header string) bool {
	scheme, cred, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	sum := sha256.Sum256([]byte(strings.TrimSpace(cred)))
	return subtle.ConstantTimeCompare(sum[:], g.token) == 1
}

// hostOf is the lowercased host of HOST[:PORT], without IPv6 brackets.
func hostOf(hostport string) string {
	h := hostport
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		h = host
	}
	return strings.ToLower(strings.TrimSuffix(strings.Trim(h, "[]"), "."))
}

func isLoopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
