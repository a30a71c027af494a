// Package mcpserver turns the engine's compiled workflows into MCP tools and
// serves them over stdio or Streamable HTTP, with hot reload of the workflow
// folder and the selector map.
//
// One workflow is one tool, registered with the SDK's low-level AddTool and
// the workflow's generated JSON schemas. The SDK does not validate raw
// arguments; the engine does (gojsonschema) and answers invalid ones with an
// invalid_params envelope. Every result is the engine's envelope, as
// structuredContent and as one JSON text block, with isError = !ok. Only an
// unknown tool name is a JSON-RPC error (-32602).
package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/run"
	"github.com/toolwright/toolwright/engine/workflow"
)

// Defaults of Options.
const (
	DefaultName          = "toolwright"
	DefaultVersion       = "dev"
	DefaultShutdownGrace = 10 * time.Second
	DefaultDebounce      = 200 * time.Millisecond
	DefaultMaxBodyBytes  = 1 << 20

	DefaultMaxSessions        = 256
	DefaultSessionIdleTimeout = 10 * time.Minute
	DefaultReadHeaderTimeout  = 10 * time.Second
	DefaultReadTimeout        = 30 * time.Second
	DefaultIdleTimeout        = 60 * time.Second
	DefaultMaxClientRequests  = 32
)

// Options configure a Server. Every field is optional.
type Options struct {
	Name    string // the server name in the initialize answer (default "toolwright")
	Version string // the server version (default "dev")
	Logger  *slog.Logger
	// ShutdownGrace is how long calls in flight may run on after the serving
	// context ends; then they are cancelled (envelope code cancelled).
	ShutdownGrace time.Duration
	// Debounce is how long hot reload waits for file events to settle.
	Debounce time.Duration
	// MaxBodyBytes bounds an HTTP request body (413 above it) and a line
	// on stdio (a -32600 answer above it).
	MaxBodyBytes int64

	// HTTP limits. MaxSessions bounds the open MCP sessions: an initialize
	// beyond it gets 503. SessionIdleTimeout closes a session without
	// requests for that long. ReadHeaderTimeout and ReadTimeout bound how
	// long a client may take to send a request's headers, and its headers
	// and body; IdleTimeout closes idle keep-alive connections.
	// MaxClientRequests bounds the requests one client runs at once (one
	// session, or one address before it has a session): 429 above it.
	MaxSessions        int
	SessionIdleTimeout time.Duration
	// Stateless serves Streamable HTTP in the SDK's stateless mode
	// (http.stateless): no Mcp-Session-Id, no session state on the server,
	// no list_changed push; replicas sit behind plain round-robin.
	Stateless         bool
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	IdleTimeout       time.Duration
	MaxClientRequests int

	// Metrics, when set, are the metrics /metrics serves (make them first
	// to wrap the engine's store with Metrics.Store); nil makes new ones.
	Metrics *Metrics
}

// Server serves one engine's workflows as MCP tools. It serves once: when
// the context of Serve, ServeIO or ServeHTTP ends, the calls still
// running are cancelled after ShutdownGrace, for good.
type Server struct {
	eng *run.Engine
	mcp *mcp.Server
	log *slog.Logger
	o   Options

	metrics *Metrics

	mu    sync.Mutex        // serialises Sync
	tools map[string][]byte // registered tool name → its JSON, to skip unchanged tools

	keys    sync.Map     // *mcp.ServerSession → its key (sessions.go)
	nextKey atomic.Int64 // numbers the sessions that have no id of their own
	endMu   sync.Mutex
	onEnd   []func(key string) // told when a session ends (OnSessionEnd)

	// base ends the calls still running when serving stops (after the grace).
	base     context.Context
	abort    context.CancelFunc
	inflight atomic.Int64 // tool calls running
	posts    atomic.Int64 // HTTP POSTs not yet answered (their answers may still be on the way)
}

// New makes a server and registers the engine's current workflows. Its
// metrics (o.Metrics, or new ones) count this server only: metrics that
// already serve another server are an error, as is a registry that already
// holds them.
func New(eng *run.Engine, o Options) (*Server, error) {
	if o.Name == "" {
		o.Name = DefaultName
	}
	if o.Version == "" {
		o.Version = DefaultVersion
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.ShutdownGrace <= 0 {
		o.ShutdownGrace = DefaultShutdownGrace
	}
	if o.Debounce <= 0 {
		o.Debounce = DefaultDebounce
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	for _, d := range []struct {
		v   *time.Duration
		def time.Duration
	}{
		{&o.SessionIdleTimeout, DefaultSessionIdleTimeout}, {&o.ReadHeaderTimeout, DefaultReadHeaderTimeout},
		{&o.ReadTimeout, DefaultReadTimeout}, {&o.IdleTimeout, DefaultIdleTimeout},
	} {
		if *d.v <= 0 {
			*d.v = d.def
		}
	}
	if o.MaxSessions <= 0 {
		o.MaxSessions = DefaultMaxSessions
	}
	if o.MaxClientRequests <= 0 {
		o.MaxClientRequests = DefaultMaxClientRequests
	}
	if o.Metrics == nil {
		m, err := NewMetrics(nil)
		if err != nil {
			return nil, err
		}
		o.Metrics = m
	}
	s := &Server{eng: eng, log: o.Logger, o: o, tools: map[string][]byte{}, metrics: o.Metrics}
	if !o.Metrics.live.srv.CompareAndSwap(nil, s) {
		return nil, errors.New("metrics: these Metrics already count another server's sessions and calls (NewMetrics once per server)")
	}
	s.base, s.abort = context.WithCancel(context.Background())
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: o.Name, Title: "toolwright", Version: o.Version}, &mcp.ServerOptions{
		// The SDK's own chatter (sessions opening and closing) is debug detail.
		Logger: slog.New(debugOnly{o.Logger.Handler()}),
		// Advertise tools (with list_changed) even while the set is empty,
		// and the resources of downloads; no prompts or MCP logging.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}, Resources: &mcp.ResourceCapabilities{}},
	})
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{
		Name: "download", Title: "A file a download step saved",
		Description: "The file of a download reference's uri {file, uri, name, bytes, mime}: text with secrets redacted, or bytes. " +
			"It obeys the rules of the call that saved it (a write tool's file needs that call's grant).",
		URITemplate: run.DownloadURITemplate,
	}, s.readDownload)
	s.Sync(eng.Workflows())
	return s, nil
}

// MCP is the underlying SDK server (to connect in-process transports).
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Sync makes the registered tools those of set and the engine's native
// tools (serve --record's): it adds new tools, replaces changed ones and
// removes the rest. The SDK sends one debounced
// notifications/tools/list_changed for a burst of changes; an unchanged set
// sends none. It returns how many tools were added, changed and removed.
func (s *Server) Sync(set *workflow.Set) (added, changed, removed int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := make(map[string][]byte, len(set.Names()))
	for _, w := range s.served(set) {
		t := Tool(w)
		old, had := s.tools[w.Name]
		b, err := json.Marshal(t)
		if err == nil && had && bytes.Equal(old, b) {
			next[w.Name] = old
			continue
		}
		if err == nil {
			err = s.addTool(t)
		}
		if err != nil { // generated schemas never fail; keep what was served
			s.log.Error("tool not registered", "tool", w.Name, "err", err)
			if had {
				next[w.Name] = old
			}
			continue
		}
		next[w.Name] = b
		if had {
			changed++
		} else {
			added++
		}
	}
	var gone []string
	for name := range s.tools {
		if _, ok := next[name]; !ok {
			gone = append(gone, name)
		}
	}
	if len(gone) > 0 {
		s.mcp.RemoveTools(gone...)
	}
	s.tools = next
	return added, changed, len(gone)
}

// served is every tool to serve: the engine's native tools, then set's
// workflows but the internal ones (only call: runs them) and those a
// native tool shadows (run.Engine.Call answers the native one), each
// logged.
func (s *Server) served(set *workflow.Set) []*workflow.Workflow {
	out := s.eng.Natives()
	native := make(map[string]bool, len(out))
	for _, w := range out {
		native[w.Name] = true
	}
	for _, w := range set.Served() {
		if native[w.Name] {
			s.log.Error("workflow not served: a recording tool has its name; rename it", "tool", w.Name, "file", w.File)
			continue
		}
		out = append(out, w)
	}
	return out
}

// addTool registers t, turning the SDK's panic on a bad schema into an error.
func (s *Server) addTool(t *mcp.Tool) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	s.mcp.AddTool(t, s.handle)
	return nil
}

// Tool is the MCP tool of a workflow: its generated schemas and the
// annotations of DESIGN.md (every hint explicit, since MCP's defaults for
// absent hints are the unsafe ones).
func Tool(w *workflow.Workflow) *mcp.Tool {
	a := w.Annotations()
	destructive, openWorld := a.DestructiveHint, a.OpenWorldHint
	t := &mcp.Tool{
		Name:        w.Name,
		Title:       w.Title,
		Description: w.Description,
		InputSchema: w.InputSchema,
		Annotations: &mcp.ToolAnnotations{
			Title:           a.Title,
			ReadOnlyHint:    a.ReadOnlyHint,
			DestructiveHint: &destructive,
			IdempotentHint:  a.IdempotentHint,
			OpenWorldHint:   &openWorld,
		},
	}
	if len(w.OutputSchema) > 0 {
		t.OutputSchema = w.OutputSchema
	}
	return t
}

// handle runs one tools/call through the engine.
func (s *Server) handle(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	s.inflight.Add(1)
	defer s.inflight.Add(-1)
	// The call ends on the client's notifications/cancelled (the SDK cancels
	// ctx) and when serving stops for good.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.base, cancel)()

	name := req.Params.Name
	if w, ok := s.eng.Workflows().Tool(name); ok && w.Internal {
		// Hot reload made it internal between tools/list and this call.
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", name)}
	}
	r := run.Request{Tool: name, Args: req.Params.Arguments}
	if req.Session != nil {
		r.Session = s.sessionKey(req.Session)
	}
	var p *progress
	if tok := req.Params.GetProgressToken(); tok != nil && req.Session != nil {
		p = &progress{ctx: ctx, ss: req.Session, token: tok, log: s.log, last: -1}
		r.Progress = p.step
	}
	env, err := s.eng.Call(ctx, r)
	if errors.Is(err, run.ErrUnknownTool) {
		// Hot reload removed the tool between tools/list and this call.
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", name)}
	}
	if err != nil {
		return nil, err
	}
	s.metrics.call(name, env)
	if p != nil {
		p.finish(env.Code)
	}
	b := env.JSON()
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(b)}},
		StructuredContent: json.RawMessage(b),
		IsError:           !env.OK,
	}, nil
}

// readDownload serves resources/read of a download URI (run.ReadDownload).
func (s *Server) readDownload(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	d, err := s.eng.ReadDownload(ctx, req.Params.URI)
	if errors.Is(err, run.ErrNoDownload) {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	if err != nil {
		e := errs.As(err)
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: e.Code + ": " + s.eng.Redactor().Redact(e.Message)}
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: d.URI, MIMEType: d.MIME, Text: d.Text, Blob: d.Blob}}}, nil
}

// progress turns the engine's step reports into notifications/progress.
// MCP wants progress to grow with every notification, and a client shows it
// against the total: so while steps run, progress stays below the total
// (the engine reports nested steps, a paginate's pages, with the same count
// of finished top-level steps: those move halfway to the next whole step),
// and the end is exactly the total, never above it.
type progress struct {
	ctx   context.Context
	ss    *mcp.ServerSession
	token any
	log   *slog.Logger

	mu    sync.Mutex
	last  float64
	total int
}

func (p *progress) step(done, total int, message string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if total < 1 {
		return
	}
	p.total = total
	done = min(max(done, 0), total-1) // a step is starting: at most total-1 are finished
	v := float64(done)
	if v <= p.last {
		v = p.last + (float64(done)+1-p.last)/2
	}
	if v >= float64(total) {
		return // halving ran out of float precision: the end says the total
	}
	p.send(v, message)
}

// finish reports the whole call done: progress equals the total (1 of 1
// when no step ran, as for a call refused before its steps).
func (p *progress) finish(code string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.total < 1 {
		p.total = 1
	}
	p.send(float64(p.total), "finished: "+code)
}

func (p *progress) send(v float64, message string) {
	if v <= p.last || v > float64(p.total) || p.ctx.Err() != nil {
		return
	}
	p.last = v
	err := p.ss.NotifyProgress(p.ctx, &mcp.ProgressNotificationParams{
		ProgressToken: p.token, Progress: v, Total: float64(p.total), Message: message,
	})
	if err != nil {
		p.log.Debug("progress notification not sent", "err", err)
	}
}

// Serve serves one MCP session on t until the client leaves or ctx ends;
// then calls still running get ShutdownGrace to finish before they are
// cancelled.
func (s *Server) Serve(ctx context.Context, t mcp.Transport) error {
	stop := context.AfterFunc(ctx, func() { s.drain(s.o.ShutdownGrace) })
	defer stop()
	err := s.mcp.Run(ctx, t)
	if ctx.Err() != nil {
		return nil // asked to stop
	}
	return err
}

// drain waits up to grace for the calls in flight, cancels the rest, and
// waits (bounded) until they have answered.
func (s *Server) drain(grace time.Duration) {
	s.waitIdle(grace)
	if n := s.inflight.Load(); n > 0 {
		s.log.Warn("cancelling calls still running at shutdown", "calls", n)
	}
	s.abort()
	s.waitIdle(15 * time.Second)
}

// waitIdle waits up to d until no call runs and no HTTP answer is pending.
func (s *Server) waitIdle(d time.Duration) {
	deadline := time.Now().Add(d)
	for s.inflight.Load()+s.posts.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
}

// debugOnly logs every record of the SDK at debug level.
type debugOnly struct{ h slog.Handler }

func (d debugOnly) Enabled(ctx context.Context, _ slog.Level) bool {
	return d.h.Enabled(ctx, slog.LevelDebug)
}

func (d debugOnly) Handle(ctx context.Context, r slog.Record) error {
	r.Level = slog.LevelDebug
	return d.h.Handle(ctx, r)
}

func (d debugOnly) WithAttrs(as []slog.Attr) slog.Handler { return debugOnly{d.h.WithAttrs(as)} }
func (d debugOnly) WithGroup(name string) slog.Handler    { return debugOnly{d.h.WithGroup(name)} }
