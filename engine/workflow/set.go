package workflow

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/step"
	"github.com/toolwright/toolwright/engine/yamlx"
)

// Set is a checked, compiled set of workflows with their selector map: what
// one server serves at one time. Sets are immutable once loaded; hot reload
// swaps whole sets.
type Set struct {
	Config    *config.Config
	Selectors *selector.Map
	// Warnings are what loads and runs but may end in a way its author
	// did not mean (a comparison that can meet no value): validate
	// prints them and serve logs them, on stderr; never a problem.
	Warnings lint.Problems
	tools    map[string]*Workflow
	names    []string
}

// Tool looks up a workflow by tool name.
func (s *Set) Tool(name string) (*Workflow, bool) { w, ok := s.tools[name]; return w, ok }

// Names returns the tool names, sorted.
func (s *Set) Names() []string { return s.names }

// Tools returns the workflows sorted by name.
func (s *Set) Tools() []*Workflow {
	out := make([]*Workflow, len(s.names))
	for i, n := range s.names {
		out[i] = s.tools[n]
	}
	return out
}

// Served returns the workflows served as MCP tools, sorted by name: every
// one but the internal ones (internal: true), which only call: runs.
func (s *Set) Served() []*Workflow {
	var out []*Workflow
	for _, w := range s.Tools() {
		if !w.Internal {
			out = append(out, w)
		}
	}
	return out
}

// Load loads the config's workflows folder and selector map.
func Load(cfg *config.Config) (*Set, lint.Problems) {
	return LoadPaths(cfg, nil)
}

// LoadPaths loads workflow files and folders (the config's workflows folder
// when paths is empty). A path whose file name is selectors.yaml replaces
// the config's selector map.
func LoadPaths(cfg *config.Config, paths []string) (*Set, lint.Problems) {
	var ps lint.Problems
	selPath := cfg.Selectors
	var files []string
	if len(paths) == 0 {
		paths = []string{cfg.Workflows}
	}
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			ps.Addf(lint.Pos{File: p}, lint.Missing, "cannot read %s: %v", p, errText(err))
			continue
		}
		if info.IsDir() {
			found, err := workflowFiles(p)
			if err != nil {
				ps.Addf(lint.Pos{File: p}, lint.Missing, "cannot list %s: %v", p, err)
			}
			files = append(files, found...)
			continue
		}
		if filepath.Base(p) == "selectors.yaml" {
			selPath = p
			continue
		}
		files = append(files, p)
	}
	sel, sps := selector.Load(selPath)
	ps = append(ps, sps...)
	set, wps := Build(cfg, sel, files)
	ps = append(ps, wps...)
	return set, ps.Sort()
}

func errText(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

// workflowFiles lists the *.yaml and *.yml files directly in dir.
func workflowFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		ext := filepath.Ext(e.Name())
		if e.IsDir() || (ext != ".yaml" && ext != ".yml") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		out = append(out, filepath.Join(dir, e.Name()))
	}
	sort.Strings(out)
	return out, nil
}

// Build decodes the given files against a selector map and runs the
// whole-set checks: duplicate names, calls, cycles and the risk of callees.
func Build(cfg *config.Config, sel *selector.Map, files []string) (*Set, lint.Problems) {
	var ps lint.Problems
	set := &Set{Config: cfg, Selectors: sel, tools: map[string]*Workflow{}}
	for _, f := range files {
		data, err := yamlx.ReadFile(f) // never a named pipe: it would block
		if err != nil {
			ps.Addf(lint.Pos{File: f}, lint.Missing, "cannot read %s: %v", f, errText(err))
			continue
		}
		w, wps := Parse(f, data, cfg, sel)
		ps = append(ps, wps...)
		if w == nil || w.Name == "" {
			continue
		}
		if prev, dup := set.tools[w.Name]; dup {
			ps.Addf(w.pos, lint.Duplicate, "tool %q is defined twice: here and in %s", w.Name, prev.File)
			continue
		}
		set.tools[w.Name] = w
		set.names = append(set.names, w.Name)
	}
	sort.Strings(set.names)
	set.checkCalls(&ps)
	for _, w := range set.Tools() {
		if err := w.buildSchemas(set); err != nil {
			ps.Addf(w.pos, lint.BadValue, "cannot build the input schema: %v", err)
		}
	}
	ps, set.Warnings = ps.Sort().Split()
	return set, ps
}

// checkCalls checks every call step: the tool exists, its arguments are its
// parameters, a read workflow calls no writer, no environment opener is
// called, and there are no cycles.
func (s *Set) checkCalls(ps *lint.Problems) {
	for _, w := range s.Tools() {
		for _, ref := range w.calls {
			kind := ref.Step.Spec.Kind
			callee, ok := s.tools[ref.Name]
			if !ok {
				ps.Addf(ref.Pos, lint.UnknownRef, "%s: unknown tool %q%s", kind, ref.Name, lint.Suggest(ref.Name, s.names))
				continue
			}
			if w.Risk == Read && callee.Writes() {
				ps.Addf(ref.Pos, lint.Risk, "a risk: read workflow may not call %q, which is risk: %s", callee.Name, callee.Risk)
			}
			if callee.Env == EnvNew {
				ps.Addf(ref.Pos, lint.BadValue, "%s: %q opens its own environment (env: new) and cannot be called from a workflow", kind, callee.Name)
			}
			given := map[string]bool{}
			for _, nv := range ref.Step.ToolArgs() {
				given[nv.Name] = true
				if callee.Param(nv.Name) == nil {
					ps.Addf(ref.Pos, lint.UnknownRef, "%s %s: unknown argument %q%s", kind, callee.Name, nv.Name, lint.Suggest(nv.Name, paramNames(callee.Params)))
				}
			}
			for _, p := range callee.Params {
				if p.Required && !given[p.Name] {
					ps.Addf(ref.Pos, lint.Missing, "%s %s: missing required argument %q", kind, callee.Name, p.Name)
				}
			}
		}
	}
	// Cycles: depth-first search with colours.
	const (
		white = iota
		grey
		black
	)
	colour := map[string]int{}
	var stack []string
	var visit func(name string)
	visit = func(name string) {
		colour[name] = grey
		stack = append(stack, name)
		w := s.tools[name]
		for _, ref := range w.calls {
			if _, ok := s.tools[ref.Name]; !ok {
				continue
			}
			switch colour[ref.Name] {
			case grey:
				i := indexOf(stack, ref.Name)
				cycle := append(append([]string(nil), stack[i:]...), ref.Name)
				ps.Addf(ref.Pos, lint.Cycle, "call cycle: %s", strings.Join(cycle, " → "))
			case white:
				visit(ref.Name)
			}
		}
		stack = stack[:len(stack)-1]
		colour[name] = black
	}
	for _, name := range s.names {
		if colour[name] == white {
			visit(name)
		}
	}
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// Calls returns the tool names a workflow's steps call.
func (w *Workflow) Calls() []string {
	out := make([]string, len(w.calls))
	for i, r := range w.calls {
		out[i] = r.Name
	}
	return out
}

// SecretsOf returns the secrets a call of w reads: those of its own steps
// and of the workflows it calls, sorted.
func (s *Set) SecretsOf(w *Workflow) []string {
	seen, tools := map[string]bool{}, map[string]bool{}
	var names []string
	var visit func(*Workflow)
	visit = func(w *Workflow) {
		if tools[w.Name] {
			return
		}
		tools[w.Name] = true
		for _, n := range w.secrets {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
		for _, c := range w.Calls() {
			if cw, ok := s.Tool(c); ok {
				visit(cw)
			}
		}
	}
	visit(w)
	sort.Strings(names)
	return names
}

// StepCount counts every step, nested ones included.
func (w *Workflow) StepCount() int {
	n := 0
	step.Walk(w.Steps, func(*step.Step) { n++ })
	for _, h := range w.Handlers {
		step.Walk(h.Steps, func(*step.Step) { n++ })
	}
	return n
}

// String is a one-line summary.
func (w *Workflow) String() string {
	return fmt.Sprintf("%s (%s, env: %s, %d steps)", w.Name, w.Risk, w.Env, w.StepCount())
}
