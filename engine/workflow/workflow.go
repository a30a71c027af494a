// Package workflow loads workflow files: it decodes them from yaml.Node with
// positions, lints them (collecting every problem), compiles their templates
// and conditions, and generates each tool's MCP input and output schemas.
package workflow

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/decl"
	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/policy"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/step"
	"github.com/toolwright/toolwright/engine/tmpl"
	"github.com/toolwright/toolwright/engine/yamlx"
	"github.com/xeipuuv/gojsonschema"
	"gopkg.in/yaml.v3"
)

// Risk levels: policy declares them (policy.Risks), the one list.
const (
	Read        = policy.RiskRead
	Write       = policy.RiskWrite
	Destructive = policy.RiskDestructive
)

// Environment modes.
const (
	EnvTemporary = "temporary"
	EnvGiven     = "given"
	EnvNew       = "new"
)

// DefaultDeadline applies when a workflow declares none.
const DefaultDeadline = 60 * time.Second

// Workflow is one compiled tool.
type Workflow struct {
	File        string
	Name        string
	Title       string
	Description string
	Risk        string
	Idempotent  bool
	// Internal: a helper only other workflows call:, never served over MCP
	// (Set.Served), so an agent cannot run a sign-in step by step itself.
	Internal bool
	Env      string
	Purposes []string
	Session  string         // "save": its environment's sign-in state is saved for its purpose after it succeeds
	Deadline *tmpl.Template // a duration text, or a number of seconds
	Params   []*Param
	Steps    []*step.Step
	Handlers []Handler
	Viewport *config.Viewport // its pages' size (nil: browser.viewport)
	Output   []Output
	Vars     []string // variables its steps set
	// Native: its body is Go, registered with the engine (NewNative), not
	// steps. Repeats: the same arguments sent again mean the action again,
	// so no idempotency record is kept and task_id scopes the grant only.
	Native, Repeats bool

	InputSchema  json.RawMessage
	OutputSchema json.RawMessage
	schemaOnce   sync.Once
	schema       *gojsonschema.Schema
	schemaErr    error
	pos          lint.Pos
	calls        []step.Ref
	secrets      []string              // secrets its own steps read, sorted
	shapes       map[string]tmpl.Shape // what its variables hold, where the steps say
}

// Handler is one entry of handlers: steps run before a step acts whenever
// When holds, at most Max times a call.
type Handler struct {
	When  *step.Step // a condition form (step.ConditionKind's long form)
	Steps []*step.Step
	Max   int
}

// Param looks up a parameter by name.
func (w *Workflow) Param(name string) *Param {
	for _, p := range w.Params {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// Writes reports whether calls need a grant (write or destructive).
func (w *Workflow) Writes() bool { return w.Risk != Read }

// NeedsTaskID reports whether task_id is required.
func (w *Workflow) NeedsTaskID() bool { return w.Writes() }

type decoder struct {
	file string
	cfg  *config.Config
	sel  *selector.Map
	ps   *lint.Problems
}

func (d *decoder) pos(n *yaml.Node) lint.Pos { return lint.At(d.file, n) }

// Parse decodes and checks one workflow file (without whole-set checks).
func Parse(file string, data []byte, cfg *config.Config, sel *selector.Map) (*Workflow, lint.Problems) {
	var ps lint.Problems
	d := &decoder{file: file, cfg: cfg, sel: sel, ps: &ps}
	root, rec := yamlx.DocRecover(file, data, &ps)
	if root == nil {
		return nil, ps
	}
	from := len(ps)
	w := d.decode(root)
	if rec != nil {
		// Checked for the problems beyond its syntax errors, never served.
		return nil, rec.Filter(ps, file, from)
	}
	return w, ps
}

func (d *decoder) decode(root *yaml.Node) *Workflow {
	v := FileDecl.Decode(d.file, root, "", d.ps)
	if v == nil {
		return nil
	}
	w := &Workflow{File: d.file, Risk: v.Str("risk", Write), Env: v.Str("env", EnvTemporary), pos: d.pos(root)}
	d.header(v, w)
	params := d.decodeParams(v, w)
	scope := tmpl.Scope{Params: paramNames(w.Params), Config: configNames(d.cfg), Secrets: d.cfg.SecretNames()}
	literalDeadline := d.deadline(v, w, scope)
	// Steps.
	c := &step.Checker{
		File: d.file, Map: d.sel, Params: params, MaxLoop: d.cfg.Limits.MaxLoop, MaxDownloadBytes: d.cfg.Limits.MaxDownloadBytes,
		EnvMode: w.Env, ReadOnly: w.Risk == Read, Deadline: literalDeadline, Problems: d.ps,
	}
	if n := v.Node("steps"); n != nil {
		w.Steps = c.Decode(n, "", tmpl.Scope{})
	}
	if n := v.Node("handlers"); n != nil && !yamlx.IsNull(n) {
		w.Handlers = d.decodeHandlers(c, n)
	}
	c.Compile(scope)
	w.Vars = c.VarNames()
	w.shapes = c.VarShapes()
	w.calls = c.Calls
	for name := range c.Secrets {
		w.secrets = append(w.secrets, name)
	}
	sort.Strings(w.secrets)
	if w.Env == EnvNew {
		opens := false
		step.Walk(w.Steps, func(s *step.Step) { opens = opens || s.Spec.EnvNew })
		if !opens {
			d.ps.Addf(d.pos(root), lint.Missing, "an env: new workflow must open its environment with an open_env step")
		}
	}
	d.outputs(v, w, scope)
	return w
}

// header reads the keys that describe the tool: name (the file's),
// title, description, idempotent, internal, viewport, purposes and session.
func (d *decoder) header(v *decl.Values, w *Workflow) {
	base := strings.TrimSuffix(filepath.Base(d.file), filepath.Ext(d.file))
	w.Name = v.Str("name", "")
	if v.OK("name") && w.Name != base {
		d.ps.Addf(v.Pos("name"), lint.BadName, "name %q must equal the file name %q (rename the file or the tool)", w.Name, base)
	}
	w.Title = v.Str("title", "")
	w.Description = v.Str("description", "")
	if v.OK("description") && strings.TrimSpace(w.Description) == "" {
		d.ps.Addf(v.Pos("description"), lint.Missing, "description is empty (the agent reads it to choose this tool)")
	}
	w.Idempotent = v.Bool("idempotent", false)
	w.Internal = v.Bool(KeyInternal, false)
	if vp := v.Sub("viewport"); vp != nil {
		x := config.ViewportOf(vp, d.cfg.Browser.Viewport)
		w.Viewport = &x
	}
	if v.Has("purposes") {
		w.Purposes = v.Strings("purposes")
		switch {
		case w.Env == EnvTemporary && len(w.Purposes) != 1:
			d.ps.Addf(v.KeyPos("purposes"), lint.BadValue, "an env: temporary workflow names one purpose (its environment's), got %d", len(w.Purposes))
		case w.Env != EnvGiven && w.Env != EnvTemporary:
			d.ps.Addf(v.KeyPos("purposes"), lint.BadValue, "purposes applies only to env: given and env: temporary workflows")
		}
	}
	w.Session = v.Str("session", "")
	d.sessionNeedsPurposes(v, w)
}

// sessionNeedsPurposes refuses a session: save without purposes. Its
// environment's purpose would be none, and the sign-in it saves would be
// restored into every environment of no purpose, so every tool that names
// none would act as whoever signed in here (DESIGN.md: session: save needs
// purposes).
func (d *decoder) sessionNeedsPurposes(v *decl.Values, w *Workflow) {
	if w.Session != "save" || len(w.Purposes) > 0 {
		return
	}
	if w.Env == EnvNew {
		d.ps.Addf(v.Pos("session"), lint.BadValue, "session: save needs purposes, which an env: new workflow cannot have: its environment's sign-in is saved for the purpose open_env gives it when close_env closes it; remove session: save")
		return
	}
	d.ps.Addf(v.Pos("session"), lint.Missing, "session: save needs purposes (such as purposes: [shop]): without one the sign-in it saves would be shared with every tool that names no purpose")
}

// decodeParams reads params into w.Params and returns what step decoding
// needs to know of each.
func (d *decoder) decodeParams(v *decl.Values, w *Workflow) map[string]step.ParamInfo {
	params := map[string]step.ParamInfo{}
	n := v.Node("params")
	if n == nil || yamlx.IsNull(n) {
		return params
	}
	pkvs, ok := yamlx.Map(d.file, n, "params", d.ps)
	if !ok {
		return params
	}
	for _, pkv := range pkvs {
		switch {
		case pkv.Key == "task_id" || pkv.Key == "env_id":
			d.ps.Addf(d.pos(pkv.KeyN), lint.BadName, "param %q is added by toolwright; choose another name", pkv.Key)
			continue
		case !nameRE.MatchString(pkv.Key):
			d.ps.Addf(d.pos(pkv.KeyN), lint.BadName, "param name %q must be snake_case", pkv.Key)
		}
		if p := d.decodeParam(pkv.Key, pkv.KeyN, pkv.Value, false); p != nil {
			w.Params = append(w.Params, p)
			params[p.Name] = step.ParamInfo{Type: p.Type, Min: p.Min, Max: p.Max, Prefix: p.Prefix}
		}
	}
	return params
}

// deadline reads deadline into w.Deadline and returns it when literal
// (0 when a template: known only when called).
func (d *decoder) deadline(v *decl.Values, w *Workflow, scope tmpl.Scope) time.Duration {
	w.Deadline = tmpl.Literal(DefaultDeadline.String())
	kv, ok := v.KV("deadline")
	if !ok {
		return DefaultDeadline
	}
	s, ok := yamlx.Scalar(d.file, kv.Value, "deadline", d.ps)
	if !ok {
		return DefaultDeadline
	}
	t := tmpl.CompileTemplate(s, tmpl.Site{File: d.file, Node: kv.Value}, scope, d.ps)
	w.Deadline = t
	if !t.IsLiteral() {
		return 0
	}
	dd, err := yamlx.ParseDuration(s)
	switch {
	case err != nil:
		d.ps.Addf(d.pos(kv.Value), lint.BadValue, "deadline must be a duration like 30s or 2m, found %q", s)
	case dd <= 0:
		d.ps.Addf(d.pos(kv.Value), lint.BadValue, "deadline must be positive")
	case dd > d.cfg.Limits.MaxDeadline:
		d.ps.Addf(d.pos(kv.Value), lint.Unbounded, "deadline %s is above limits.max_deadline (%s)", dd, d.cfg.Limits.MaxDeadline)
	default:
		return dd
	}
	return DefaultDeadline
}

// outputs reads output, once the variables and their shapes are known.
func (d *decoder) outputs(v *decl.Values, w *Workflow, scope tmpl.Scope) {
	n := v.Node("output")
	if n == nil || yamlx.IsNull(n) {
		return
	}
	okvs, ok := yamlx.Map(d.file, n, "output", d.ps)
	if !ok {
		return
	}
	outScope := scope
	outScope.Vars = w.Vars
	outScope.VarShapes = w.shapes
	for _, o := range okvs {
		if !nameRE.MatchString(o.Key) {
			d.ps.Addf(d.pos(o.KeyN), lint.BadName, "output name %q must be snake_case", o.Key)
		}
		out := d.decodeOutput(o, outScope)
		if sh := w.shapes[out.Value.VarRef]; sh.Kind == "list" && out.Value.VarRef != "" {
			out.List = true
			if out.Format == FormatTable {
				out.Columns = sh.Fields
			}
		}
		if p := w.Param(out.Value.ParamRef); p != nil && p.Type == TArray {
			out.List = true
		}
		w.Output = append(w.Output, out)
	}
}

// decodeHandlers reads handlers: with the steps' checker, so their targets,
// risk, calls and expressions are checked like the workflow's own steps.
// Handler i's steps are h<i>.1, h<i>.2, ... in traces.
func (d *decoder) decodeHandlers(c *step.Checker, n *yaml.Node) []Handler {
	seq := yamlx.Resolve(n)
	if seq == nil || seq.Kind != yaml.SequenceNode {
		d.ps.Addf(d.pos(n), lint.BadValue, "handlers must be a list of {when, steps, max}, found %s", yamlx.Describe(n))
		return nil
	}
	var out []Handler
	for i, item := range seq.Content {
		v := HandlerDecl.Decode(d.file, item, "handlers["+strconv.Itoa(i)+"]", d.ps)
		if v == nil {
			continue
		}
		path := "h" + strconv.Itoa(i+1)
		h := Handler{Max: v.Int("max", 1)}
		if h.Max > d.cfg.Limits.MaxLoop {
			d.ps.Addf(v.Pos("max"), lint.Unbounded, "handler max must be at most limits.max_loop (%d), found %d", d.cfg.Limits.MaxLoop, h.Max)
		}
		if wn := v.Node("when"); wn != nil {
			h.When = c.DecodeCondition(wn, path, tmpl.Scope{}, "handler when")
		}
		if sn := v.Node("steps"); sn != nil {
			h.Steps = c.Decode(sn, path, tmpl.Scope{})
		}
		if h.When != nil {
			out = append(out, h)
		}
	}
	return out
}

func paramNames(ps []*Param) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}

func configNames(cfg *config.Config) []string {
	out := make([]string, 0, len(cfg.Vars))
	for k := range cfg.Vars {
		out = append(out, k)
	}
	return out
}

// DeadlineOf evaluates the workflow's deadline for a call, capped by max.
func (w *Workflow) DeadlineOf(env tmpl.Env, max time.Duration) (time.Duration, error) {
	v, err := w.Deadline.Eval(env)
	if err != nil {
		return 0, err
	}
	var d time.Duration
	switch x := v.(type) {
	case int:
		d = time.Duration(x) * time.Second
	case float64:
		d = time.Duration(x * float64(time.Second))
	default:
		s := tmpl.Text(v)
		if d, err = yamlx.ParseDuration(s); err != nil {
			return 0, fmt.Errorf("deadline %q is not a duration", s)
		}
	}
	if d <= 0 {
		return 0, fmt.Errorf("deadline %s is not positive", d)
	}
	if max > 0 && d > max {
		d = max
	}
	return d, nil
}
