// Package run is the executor: it runs one tool call from validated
// arguments to the final envelope, under the call's deadline, with bounded
// loops, retries, cancellation, progress, traces, audit and idempotency.
package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolwright/toolwright/engine/browser"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/policy"
	"github.com/toolwright/toolwright/engine/repair"
	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/engine/store"
	"github.com/toolwright/toolwright/engine/workflow"
)

// ErrUnknownTool is returned for a tool name the current set does not have.
var ErrUnknownTool = errors.New("unknown tool")

// DefaultStepTimeout bounds a step that declares no timeout when the
// config sets no limits.step_timeout (containers such as do, repeat and
// call are bounded by the call's deadline only).
const DefaultStepTimeout = 10 * time.Second

// Options wire an Engine.
type Options struct {
	Config   *config.Config
	Set      *workflow.Set
	Browsers *browser.Manager
	Store    store.Store // nil: no idempotency, traces or audit (benchmarks only)
	Logger   *slog.Logger
	// StepTimeout overrides the config's limits.step_timeout.
	StepTimeout time.Duration
}

// Engine runs calls. It is safe for concurrent use; SetWorkflows swaps the
// served set atomically (hot reload).
type Engine struct {
	cfg         *config.Config
	set         atomic.Pointer[workflow.Set]
	browsers    *browser.Manager
	store       store.Store
	log         *slog.Logger
	redactor    *policy.Redactor
	hosts       *policy.HostMatcher
	stepTimeout time.Duration
	artifacts   string
	sessions    *sessions      // nil: sessions off
	prints      *repair.Keeper // targets' fingerprints (nil: no store)
	typed       sync.Map       // env id → the secret typed into its page (typed.go)

	nmu     sync.Mutex
	natives map[string]native // native tools by name (native.go)
}

// New makes an engine.
func New(o Options) (*Engine, error) {
	if o.Config == nil || o.Set == nil || o.Browsers == nil {
		return nil, errors.New("run: Config, Set and Browsers are required")
	}
	hosts, err := policy.NewHostMatcher(o.Config.Policy.AllowedHosts)
	if err != nil {
		return nil, fmt.Errorf("policy.allowed_hosts: %w", err)
	}
	e := &Engine{
		cfg:         o.Config,
		browsers:    o.Browsers,
		store:       o.Store,
		log:         o.Logger,
		redactor:    policy.NewRedactor(o.Config.RedactedValues()),
		hosts:       hosts,
		stepTimeout: o.StepTimeout,
		artifacts:   o.Config.Artifacts(),
	}
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	if e.stepTimeout <= 0 {
		e.stepTimeout = o.Config.Limits.StepTimeout
	}
	if e.stepTimeout <= 0 {
		e.stepTimeout = DefaultStepTimeout
	}
	e.sessions = newSessions(o.Config, o.Store, e.log)
	if o.Store != nil {
		e.prints = repair.NewKeeper(o.Store, e.redactor.Redact)
	}
	if e.sessions != nil {
		// An environment the reaper closes leaves its sign-in behind,
		// as one close_env closes does.
		o.Browsers.BeforeIdleClose(func(ctx context.Context, env *browser.Env) {
			e.sessions.save(ctx, env, "reaped idle")
			e.sessions.forget(env.ID)
		})
	}
	e.set.Store(o.Set)
	return e, nil
}

// Workflows is the set being served.
func (e *Engine) Workflows() *workflow.Set { return e.set.Load() }

// SetWorkflows swaps in a new checked set; calls already running finish on the old one.
func (e *Engine) SetWorkflows(s *workflow.Set) { e.set.Store(s) }

// Store is the engine's state store (nil when it runs without one).
func (e *Engine) Store() store.Store { return e.store }

// Browsers is the engine's environment manager.
func (e *Engine) Browsers() *browser.Manager { return e.browsers }

// Redactor is the engine's secret redactor (for logs and CLI output).
func (e *Engine) Redactor() *policy.Redactor { return e.redactor }

// Hosts is the allowed-host matcher.
func (e *Engine) Hosts() *policy.HostMatcher { return e.hosts }

// Request is one tool call.
type Request struct {
	Tool string
	Args json.RawMessage
	// Progress, when set, is told about each step as it starts.
	Progress func(done, total int, message string)
	// Session is the MCP session the call came from ("" for none): a
	// native tool keeps what lives between calls per session.
	Session string
}

// Call runs one call and returns its envelope. The only error is
// ErrUnknownTool; everything else is an envelope. A native tool and a
// workflow take the same path (call.run); a native tool shadows a workflow
// of its name.
func (e *Engine) Call(ctx context.Context, req Request) (*result.Envelope, error) {
	set := e.set.Load()
	n, isNative := e.nativeOf(req.Tool)
	w, ok := n.w, isNative
	if !ok {
		w, ok = set.Tool(req.Tool)
	}
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownTool, req.Tool)
	}
	c := e.newCall(set, w, req)
	c.body = n.body
	env := c.run(ctx)
	return env, nil
}

// artifactDir is where a trace's files go.
func (e *Engine) artifactDir(traceID string) (string, error) {
	dir := filepath.Join(e.artifacts, traceID)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	return dir, nil
}

// Close shuts the browsers down.
func (e *Engine) Close(ctx context.Context) error { return e.browsers.Shutdown(ctx) }
