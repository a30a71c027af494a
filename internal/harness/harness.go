// Package harness runs the end-to-end tests of engine/run: an engine on
// real Chromium and real SQLite serving a fixture site's workflows plus a
// test's own, with helpers to call its tools and read what it recorded.
// Its functions take the test (testing.TB), as net/http/httptest's do.
//
//	func TestMain(m *testing.M) { testsite.Main(m) } // one Chromium per test package
//
//	h := harness.New(t, map[string]string{"mine": workflowYAML}, nil)
//	env := h.OK(h.Call("mine", `{"q": "bolt"}`))
//	steps := h.Trace(env).Steps
//
// The tests that use it are split over several test packages (engine/run's
// own, pagetest, safetytest, shoptest) so that no package comes near go
// test's default timeout of 10 minutes.
package harness

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/engine/run"
	"github.com/toolwright/toolwright/engine/store"
)

// Harness is one engine on real Chromium and real SQLite, serving the
// fixture site's workflows plus the test's own.
type Harness struct {
	*Parts
	t *testing.T
}

// New writes workflows (file name → YAML) next to the demo
// workflows and starts an engine and its browser. tweak may adjust the
// config first.
func New(t *testing.T, workflows map[string]string, tweak func(*config.Config)) *Harness {
	t.Helper()
	h := NewCold(t, workflows, tweak)
	h.BrowserUp()
	return h
}

// NewCold is New without the browser: it starts with the
// first call that needs one, as in a server that just started.
func NewCold(t *testing.T, workflows map[string]string, tweak func(*config.Config)) *Harness {
	t.Helper()
	return NewColdOn(t, DemoSite, workflows, tweak)
}

// NewColdOn is NewCold on the fixture fx.
func NewColdOn(t *testing.T, fx Fixture, workflows map[string]string, tweak func(*config.Config)) *Harness {
	t.Helper()
	return &Harness{Parts: StartOn(t, fx, workflows, tweak), t: t}
}

// NewReal is New on the realistic shop (testdata/real/site)
// with the examples/realsite selector map and workflows (or another fixture).
func NewReal(t *testing.T, workflows map[string]string, tweak func(*config.Config), fx ...Fixture) *Harness {
	t.Helper()
	f := RealSite
	if len(fx) > 0 {
		f = fx[0]
	}
	h := NewColdOn(t, f, workflows, tweak)
	h.BrowserUp()
	return h
}

// BrowserUp starts the harness's browser, so that a call's deadline
// (Deadline) measures the call and not Chromium starting on a busy
// machine (over a minute with four at once at a load of 50): the local
// provider's launch, for a test with a browser of its own. The shared
// browser (internal/testbrowser) runs already: the first call's Open
// dials it. Before, it opened and released a temporary environment, one
// browser context and page more per harness than the test asks for (about
// one in five of engine/run's environments).
func (h *Harness) BrowserUp() {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := h.BM.Start(ctx); err != nil {
		h.t.Fatalf("start the browser: %v", err)
	}
}

// Call runs a tool with JSON arguments and a safety net well past the
// harness's default deadline (Deadline): the workflow's deadline ends the call.
func (h *Harness) Call(tool, args string) *result.Envelope {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	return h.CallCtx(ctx, tool, args)
}

// CallCtx runs a tool with JSON arguments under ctx, failing the test when
// the engine answers no envelope.
func (h *Harness) CallCtx(ctx context.Context, tool, args string) *result.Envelope {
	h.t.Helper()
	env, err := h.Eng.Call(ctx, run.Request{Tool: tool, Args: json.RawMessage(args)})
	if err != nil {
		h.t.Fatalf("call %s: %v", tool, err)
	}
	return env
}

// CallAll runs calls (each a tool and its JSON arguments) at once, as
// many agents would, and returns their envelopes in order: for a page
// that takes its time, the test waits for the slowest call, not their sum.
func (h *Harness) CallAll(calls ...[2]string) []*result.Envelope {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	envs := make([]*result.Envelope, len(calls))
	errs := make([]error, len(calls))
	var wg sync.WaitGroup
	for i, c := range calls {
		wg.Go(func() { envs[i], errs[i] = h.Eng.Call(ctx, run.Request{Tool: c[0], Args: json.RawMessage(c[1])}) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			h.t.Fatalf("call %s: %v", calls[i][0], err)
		}
	}
	return envs
}

// OK fails the test unless env is ok, printing it.
func (h *Harness) OK(env *result.Envelope) *result.Envelope {
	h.t.Helper()
	if !env.OK {
		h.t.Fatalf("want ok, got %s", env.JSON())
	}
	return env
}

// Code fails the test unless env failed with code, and marks it failed
// (going on) unless env's message holds each of says.
func (h *Harness) Code(env *result.Envelope, code string, says ...string) *result.Envelope {
	h.t.Helper()
	if env.OK || env.Code != code {
		h.t.Fatalf("want code %s, got %s", code, env.JSON())
	}
	for _, part := range says {
		if !strings.Contains(env.Message, part) {
			h.t.Errorf("the %s message does not say %q: %s", code, part, env.JSON())
		}
	}
	return env
}

// Succeeded reports whether env is ok. When it is not, it marks the test
// failed and goes on (OK stops it), showing what (a case's name, or ""),
// the envelope and its trace's error, and logs the trace's steps.
func (h *Harness) Succeeded(env *result.Envelope, what string) bool {
	h.t.Helper()
	if env.OK {
		return true
	}
	if what != "" {
		what += ": "
	}
	tr := h.Trace(env)
	h.t.Errorf("%s%s\n%s", what, env.JSON(), tr.Error)
	for _, s := range tr.Steps {
		h.t.Logf("step %s %s %s %dms %s", s.Path, s.Kind, s.Code, s.DurationMS, s.Error)
	}
	return false
}

// Trace loads the call's trace.
func (h *Harness) Trace(env *result.Envelope) *store.Trace {
	h.t.Helper()
	tr, err := h.St.GetTrace(context.Background(), env.TraceID)
	if err != nil {
		h.t.Fatalf("trace %s: %v", env.TraceID, err)
	}
	return tr
}

// List reads data[name] as a list envelope.
func List(t *testing.T, env *result.Envelope, name string) result.List {
	t.Helper()
	l, ok := env.Data[name].(result.List)
	if !ok {
		t.Fatalf("data.%s is %T, not a list: %s", name, env.Data[name], env.JSON())
	}
	return l
}
