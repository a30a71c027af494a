package run

import (
	"context"
	"fmt"
	"sort"

	"github.com/toolwright/toolwright/engine/browser"
	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/engine/workflow"
)

// NativeFunc is the Go body of a native tool (workflow.NewNative). It runs
// where a workflow's steps run, after every check of the call path: the
// arguments bound by the tool's schema, the store ready, the grant found,
// the idempotency claim taken; its answer is recorded (audit, trace,
// idempotency) as theirs is.
type NativeFunc func(ctx context.Context, in *NativeCall) (map[string]any, error)

// NativeCall is what a native body gets.
type NativeCall struct {
	Params map[string]any // every declared parameter, defaults applied
	TaskID string
	// Session is the MCP session the call came from (Request.Session):
	// what a body keeps between calls it keeps per session.
	Session string
	c       *call
}

// UseEnv names the environment the body works in, for the call's audit
// record and trace. The body keeps it: the call never releases it.
func (n *NativeCall) UseEnv(env *browser.Env) {
	n.c.mu.Lock()
	n.c.env, n.c.lent = env, true
	n.c.mu.Unlock()
}

// native is a registered native tool.
type native struct {
	w    *workflow.Workflow
	body NativeFunc
}

// AddNative serves w (made by workflow.NewNative) with body, beside the
// workflows: a workflow of the same name is shadowed while it is served.
func (e *Engine) AddNative(w *workflow.Workflow, body NativeFunc) error {
	if w == nil || !w.Native || body == nil {
		return fmt.Errorf("run: AddNative needs a tool from workflow.NewNative and a body")
	}
	e.nmu.Lock()
	defer e.nmu.Unlock()
	if _, dup := e.natives[w.Name]; dup {
		return fmt.Errorf("run: native tool %q is already served", w.Name)
	}
	if e.natives == nil {
		e.natives = map[string]native{}
	}
	e.natives[w.Name] = native{w: w, body: body}
	return nil
}

// Natives are the native tools served, sorted by name.
func (e *Engine) Natives() []*workflow.Workflow {
	e.nmu.Lock()
	defer e.nmu.Unlock()
	out := make([]*workflow.Workflow, 0, len(e.natives))
	for _, n := range e.natives {
		out = append(out, n.w)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// nativeOf is the native tool named name.
func (e *Engine) nativeOf(name string) (native, bool) {
	e.nmu.Lock()
	defer e.nmu.Unlock()
	n, ok := e.natives[name]
	return n, ok
}

// runNative runs a native body under the call's deadline (execute).
func (c *call) runNative(ctx context.Context, bound *workflow.Call) (*result.Envelope, error) {
	in := &NativeCall{Params: bound.Params, TaskID: bound.TaskID, Session: c.req.Session, c: c}
	data, err := c.body(ctx, in)
	if err != nil {
		if late := c.pastDeadline(err); late != nil {
			err = late
		}
		return nil, err
	}
	return result.Success(data), nil
}
