package step

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolwright/toolwright/engine/decl"
	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/tmpl"
	"github.com/toolwright/toolwright/engine/yamlx"
	"gopkg.in/yaml.v3"
)

// ParamInfo is what step decoding needs to know of a workflow parameter.
type ParamInfo struct {
	Min    *float64 // declared min (integer, number)
	Type   string   // string, integer, number, boolean, array, target
	Max    *float64 // declared max (integer, number)
	Prefix string   // target: the selector-map prefix its values start with
}

// Ref is a reference from a step to a target or a tool, for whole-set checks.
type Ref struct {
	Name string
	Pos  lint.Pos
	Step *Step
}

// Checker decodes and checks the steps of one workflow file. It collects
// every problem; Compile then compiles every expression once all variables
// the workflow sets are known.
type Checker struct {
	File    string
	Map     *selector.Map
	Params  map[string]ParamInfo
	MaxLoop int
	// MaxDownloadBytes is limits.max_download_bytes (0: not checked).
	MaxDownloadBytes int64
	EnvMode          string        // temporary | given | new
	ReadOnly         bool          // risk: read
	Deadline         time.Duration // the workflow's literal deadline (0: not literal)
	Problems         *lint.Problems

	Vars     map[string]lint.Pos // every variable some step writes
	Calls    []Ref               // every call step's tool
	Secrets  map[string]bool     // the secrets the steps read (filled by Compile)
	Targets  []Ref               // every target a step names
	pending  []pending
	writes   []varWrite // VarName fields, for the shapes of the variables
	compiled []*Step    // steps whose kind checks them after Compile
}

type varWrite struct {
	name  string
	step  *Step
	field Field
}

type pending struct {
	step  *Step
	field string
	node  *yaml.Node
	scope tmpl.Scope
	kind  decl.Type
	entry int // index into a ValueMap, or -1
}

// Pos is the position of n in the checker's file.
func (c *Checker) Pos(n *yaml.Node) lint.Pos { return lint.At(c.File, n) }

// Addf records a problem.
func (c *Checker) Addf(pos lint.Pos, kind, format string, args ...any) {
	c.Problems.Addf(pos, kind, format, args...)
}

// Decode decodes a list of steps. path is the parent's index ("" at the top).
func (c *Checker) Decode(n *yaml.Node, path string, sc tmpl.Scope) []*Step {
	if c.Vars == nil {
		c.Vars = map[string]lint.Pos{}
	}
	n = yamlx.Resolve(n)
	if n == nil || n.Kind != yaml.SequenceNode {
		c.Addf(c.Pos(n), lint.BadValue, "steps must be a list of steps, found %s", yamlx.Describe(n))
		return nil
	}
	if len(n.Content) == 0 {
		c.Addf(c.Pos(n), lint.Missing, "the step list is empty")
	}
	steps := make([]*Step, 0, len(n.Content))
	for i, sn := range n.Content {
		p := strconv.Itoa(i + 1)
		if path != "" {
			p = path + "." + p
		}
		if s := c.decodeStep(sn, p, sc); s != nil {
			steps = append(steps, s)
		}
	}
	return steps
}

// decodeStep reads one step: a map with one kind key, the common keys
// beside it, and the kind's value (decodeBody).
func (c *Checker) decodeStep(n *yaml.Node, path string, sc tmpl.Scope) *Step {
	n = yamlx.Resolve(n)
	if n != nil && n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
		c.scalarStep(n)
		return nil
	}
	kvs, ok := yamlx.Map(c.File, n, "step", c.Problems)
	if !ok {
		return nil
	}
	s := &Step{Pos: c.Pos(n), Path: path, Args: map[string]any{}}
	kindKV, unknown := c.kindKey(kvs)
	if kindKV == nil {
		c.noKind(s, unknown)
		return nil
	}
	s.Spec, _ = Lookup(kindKV.Key)
	if misplaced := c.unknownStepKeys(s.Spec, unknown); misplaced && yamlx.IsNull(kindKV.Value) {
		return nil // the fields were reported where they are; no "needs a value" too
	}
	s.Pos = c.Pos(kindKV.KeyN)
	for _, kv := range kvs {
		if f := common[kv.Key]; f != nil {
			f.decode(c, s, kv.Value, sc)
		}
	}
	if s.Spec.EnvNew && c.EnvMode != "new" {
		c.Addf(s.Pos, lint.BadValue, "%s is allowed only in a workflow with env: new", s.Spec.Kind)
	}
	c.decodeBody(s, kindKV.Value, sc)
	if s.Spec.Check != nil {
		s.Spec.Check(c, s)
	}
	if s.Spec.AfterCompile != nil {
		c.compiled = append(c.compiled, s)
	}
	return s
}

// scalarStep reports a step written as a bare word: a kind without its
// value, or not a step at all.
func (c *Checker) scalarStep(n *yaml.Node) {
	if sp, ok := Lookup(n.Value); ok {
		c.Addf(c.Pos(n), lint.BadValue, "step %q needs a value: write `%s: ...`", n.Value, sp.Kind)
		return
	}
	c.Addf(c.Pos(n), lint.BadValue, "a step must be a map with one kind key such as `click: TARGET`, found %s%s", yamlx.Describe(n), lint.Suggest(n.Value, KindNames()))
}

// kindKey finds a step's kind key (reporting a second one) and the keys
// that are neither a kind nor a common key.
func (c *Checker) kindKey(kvs []yamlx.KV) (kindKV *yamlx.KV, unknown []yamlx.KV) {
	for i := range kvs {
		kv := kvs[i]
		if common[kv.Key] != nil {
			continue
		}
		if _, ok := Lookup(kv.Key); ok {
			if kindKV != nil {
				c.Addf(c.Pos(kv.KeyN), lint.BadValue, "a step has exactly one kind, found %q after %q: make it a separate step", kv.Key, kindKV.Key)
				continue
			}
			kindKV = &kvs[i]
			continue
		}
		unknown = append(unknown, kv)
	}
	return kindKV, unknown
}

// noKind reports a step without a kind key: its first unknown key as a
// misspelt kind (or a field written before its kind), else the kinds.
func (c *Checker) noKind(s *Step, unknown []yamlx.KV) {
	if len(unknown) == 0 {
		c.Addf(s.Pos, lint.Missing, "the step has no kind: add one of %s", strings.Join(KindNames(), ", "))
		return
	}
	kv := unknown[0]
	hint := lint.Suggest(kv.Key, KindNames())
	if sp, ok := kindOfField(kv.Key); ok && hint == "" {
		hint = fmt.Sprintf(" (%s is a field of %s: write the kind first, as in `- %s: {%s: ...}`)", kv.Key, sp, strings.SplitN(sp, ",", 2)[0], kv.Key)
	}
	c.Addf(c.Pos(kv.KeyN), lint.UnknownKind, "unknown step kind %q%s", kv.Key, hint)
}

// unknownStepKeys reports the keys beside a kind that are neither common
// keys nor another kind; misplaced says one was a field of the kind,
// written at the kind's own indentation.
func (c *Checker) unknownStepKeys(sp *Spec, unknown []yamlx.KV) (misplaced bool) {
	for _, kv := range unknown {
		if _, ok := sp.Field(kv.Key); ok {
			// `- fill:` with its fields on the next lines at the kind's
			// own indentation: they belong one level down.
			misplaced = true
			c.Addf(c.Pos(kv.KeyN), lint.UnknownKey, "step %s: %s is a field of %s: indent it under %s: (two more spaces than %s)", sp.Kind, kv.Key, sp.Kind, sp.Kind, sp.Kind)
			continue
		}
		if other, ok := kindOfField(kv.Key); ok && lint.Closest(kv.Key, CommonNames()) == "" {
			c.Addf(c.Pos(kv.KeyN), lint.UnknownKey, "step %s: unknown key %q (%s is a field of %s, not of %s)", sp.Kind, kv.Key, kv.Key, other, sp.Kind)
			continue
		}
		c.Addf(c.Pos(kv.KeyN), lint.UnknownKey, "step %s: unknown key %q%s", sp.Kind, kv.Key, lint.Suggest(kv.Key, append(CommonNames(), fieldNames(sp)...)))
	}
	return misplaced
}

// kindOfField names the kinds that have a field called name.
func kindOfField(name string) (string, bool) {
	var out []string
	for _, sp := range Kinds() {
		if _, ok := sp.Field(name); ok {
			out = append(out, sp.Kind)
		}
	}
	if len(out) == 0 {
		return "", false
	}
	if len(out) > 3 {
		out = append(out[:3], "...")
	}
	return strings.Join(out, ", "), true
}

func fieldNames(sp *Spec) []string {
	names := make([]string, len(sp.Fields))
	for i, f := range sp.Fields {
		names[i] = f.Name
	}
	return names
}

// decodeTimeout reads the common key timeout: at most a literal deadline.
func (c *Checker) decodeTimeout(s *Step, n *yaml.Node, _ tmpl.Scope) {
	if d, ok := yamlx.Duration(c.File, n, "step timeout", c.Problems); ok {
		if c.Deadline > 0 && d > c.Deadline {
			c.Addf(c.Pos(n), lint.BadValue, "step timeout %s is longer than the workflow's deadline %s", d, c.Deadline)
		}
		s.Timeout = d
	}
}

// DecodeCondition decodes a condition checked once (a step's or a
// handler's `when:`): the long form of the condition kind (wait's), one
// condition, without a wait's timeout or into.
func (c *Checker) DecodeCondition(n *yaml.Node, path string, sc tmpl.Scope, where string) *Step {
	sp := ConditionKind()
	rn := yamlx.Resolve(n)
	if sp == nil || rn == nil || rn.Kind != yaml.MappingNode {
		c.Addf(c.Pos(n), lint.BadValue, "%s takes one of wait's conditions: {visible: T}, {hidden: T}, {text: \"...\"}, {url: \"glob\"}, {count: T, at_least: N}, {network_idle: 500ms} or {any: [...]}; found %s", where, yamlx.Describe(n))
		return nil
	}
	cond := &Step{Spec: sp, Pos: c.Pos(n), Path: path, Args: map[string]any{}}
	c.decodeBodyAt(cond, rn, sc, where)
	for _, f := range sp.Fields {
		if !conditionOnly(f) && cond.Has(f.Name) {
			c.Addf(c.Pos(n), lint.BadValue, "%s: %s belongs to a wait; a when condition is checked once, without waiting", where, f.Name)
		}
	}
	if sp.Check != nil {
		sp.Check(c, cond)
	}
	return cond
}

// decodeDialog reads `dialog: accept | dismiss | {accept: BOOL, text: TEMPLATE}`
// (DialogAnswers, DialogDecl).
func (c *Checker) decodeDialog(s *Step, n *yaml.Node, sc tmpl.Scope) {
	n = yamlx.Resolve(n)
	if n != nil && n.Kind == yaml.ScalarNode {
		if !slices.Contains(DialogAnswers, n.Value) {
			c.Addf(c.Pos(n), lint.BadValue, "dialog must be %s or {accept: BOOL, text: TEMPLATE}, found %q%s", strings.Join(DialogAnswers, ", "), n.Value, lint.Suggest(n.Value, DialogAnswers))
			return
		}
		s.Dialog = &Dialog{Accept: n.Value == DialogAnswers[0]}
		return
	}
	v := DialogDecl.Decode(c.File, n, "dialog", c.Problems)
	if v == nil {
		return
	}
	s.Dialog = &Dialog{}
	DialogDecl.Fill(v, s.Dialog, "", c.Problems)
	if tn := v.Node("text"); tn != nil {
		c.defer1(s, "dialog", tn, sc, Template, -1)
	}
}

// decodeBody reads the value under the kind key: a short form scalar, or
// the long form map of declared fields.
func (c *Checker) decodeBody(s *Step, n *yaml.Node, sc tmpl.Scope) {
	c.decodeBodyAt(s, n, sc, "step "+s.Spec.Kind)
}

// decodeBodyAt is decodeBody with its messages led by where.
func (c *Checker) decodeBodyAt(s *Step, n *yaml.Node, sc tmpl.Scope, where string) {
	sp := s.Spec
	n = yamlx.Resolve(n)
	if sp.Body == ValueMap {
		c.decodeField(s, Field{Name: "", Type: ValueMap}, n, sc)
		return
	}
	if sp.Body == Steps {
		c.decodeField(s, Field{Name: "", Type: Steps}, n, sc)
		return
	}
	if n == nil || n.Kind != yaml.MappingNode {
		if sp.Short == "" {
			c.Addf(c.Pos(n), lint.BadValue, "%s takes a map of %s, found %s", where, fieldList(sp), yamlx.Describe(n))
			return
		}
		if yamlx.IsNull(n) {
			c.Addf(c.Pos(n), lint.Missing, "%s needs a value", where)
			return
		}
		f, _ := sp.Field(sp.Short)
		c.decodeField(s, f, n, sc)
		applyDefaults(s)
		sp.requireFields(n, c.File, func(name string) bool { return name == f.Name }, c.Problems)
		return
	}
	// Nested steps last: their scope depends on fields such as for_each's
	// `as`, written or its default.
	env := &fieldEnv{c: c, s: s, sc: sc, later: []func(){}}
	v := sp.object().DecodeWith(&decl.Decoder{File: c.File, Problems: c.Problems, Env: env}, n, where)
	for _, kv := range v.Entries {
		if x, ok := v.Value(kv.Key); ok {
			s.Args[kv.Key] = x
		}
	}
	applyDefaults(s)
	for _, f := range env.later {
		f()
	}
}

// applyDefaults gives every declared field with a Default that the step
// does not write its default, so Run reads the declaration's value.
func applyDefaults(s *Step) {
	for _, f := range s.Spec.Fields {
		if f.Default == nil || s.Has(f.Name) {
			continue
		}
		if f.Type == Template {
			s.Args[f.Name] = tmpl.Literal(f.Default)
		} else {
			s.Args[f.Name] = f.Default
		}
	}
}

func fieldList(sp *Spec) string {
	names := make([]string, len(sp.Fields))
	for i, f := range sp.Fields {
		names[i] = f.Name
	}
	return strings.Join(names, ", ")
}

// requireFields reports required fields and one-of groups missing from
// the keys given (a key given with a bad value was reported already),
// at the map (or short form) at.
func (sp *Spec) requireFields(at *yaml.Node, file string, given func(string) bool, ps *lint.Problems) {
	for _, f := range sp.Fields {
		if f.Required && !given(f.Name) {
			ps.Addf(lint.At(file, at), lint.Missing, "step %s: missing %s (%s)", sp.Kind, f.Name, f.Doc)
		}
	}
	if len(sp.OneOf) > 0 {
		var found []string
		for _, name := range sp.OneOf {
			if given(name) {
				found = append(found, name)
			}
		}
		if len(found) != 1 {
			ps.Addf(lint.At(file, at), lint.BadValue, "step %s takes exactly one of %s, found %d", sp.Kind, strings.Join(sp.OneOf, ", "), len(found))
		}
	}
}

var (
	varNameRE = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)
	paramRef  = regexp.MustCompile(`^\$\{\{\s*params\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$`)
	wholeTmpl = regexp.MustCompile(`^\s*\$\{\{(?:[^}]|\}[^}])*\}\}\s*$`) // exactly one ${{ }}
)

// setType records that field name of a step is a typed template.
func setType(m map[string]decl.Type, name string, t decl.Type) map[string]decl.Type {
	if m == nil {
		m = map[string]decl.Type{}
	}
	m[name] = t
	return m
}

// decodeField reads one field through its declaration: the field's
// decl.Type decodes the value, and a good value is the step's argument.
func (c *Checker) decodeField(s *Step, f Field, n *yaml.Node, sc tmpl.Scope) {
	where := strings.TrimSuffix("step "+s.Spec.Kind+" "+f.Name, " ") // a body (set's map) has no field name
	d := f.Decl()
	dec := &decl.Decoder{File: c.File, Problems: c.Problems, Env: &fieldEnv{c: c, s: s, sc: sc}}
	if x, ok := d.Type.Decode(dec, &d, n, where); ok {
		s.Args[f.Name] = x
	}
}

// mapTarget records a target a TargetMap entry names, or reports it unknown.
func (c *Checker) mapTarget(s *Step, name string, at *yaml.Node) {
	if _, ok := c.Map.Lookup(name); !ok {
		if c.Map.Unknown(name) {
			c.Addf(c.Pos(at), lint.UnknownRef, "unknown target %q%s", name, lint.Suggest(name, c.Map.Names()))
		}
		return
	}
	c.Targets = append(c.Targets, Ref{Name: name, Pos: c.Pos(at), Step: s})
}

// targetEntry reads one entry of a TargetMap: TARGET, or {target: TARGET,
// attr: ATTR} (TargetEntryDecl; attr is what to read of that one, "" when
// not given). at is the target's node, for positions.
func (c *Checker) targetEntry(n *yaml.Node, where string) (target, attr string, at *yaml.Node, ok bool) {
	rn := yamlx.Resolve(n)
	if rn == nil || rn.Kind != yaml.MappingNode {
		target, ok = yamlx.String(c.File, n, where, c.Problems)
		return target, "", n, ok
	}
	v := TargetEntryDecl.Decode(c.File, rn, where, c.Problems)
	if v.OK("attr") && strings.TrimSpace(v.Str("attr", "")) == "" {
		c.Addf(v.Pos("attr"), lint.BadValue, "%s attr is empty: write text, value, href or an attribute name", where)
	}
	if !v.OK("target") {
		return "", "", rn, false
	}
	return v.Str("target", ""), v.Str("attr", ""), v.Node("target"), true
}

func (c *Checker) checkTarget(s *Step, name string, n *yaml.Node, field string) {
	t, ok := c.Map.Lookup(name)
	if !ok {
		if strings.Contains(name, "${{") {
			c.checkTargetParam(s, name, n, field)
			return
		}
		if c.Map.Unknown(name) { // in a map with a syntax error, that error is the problem
			c.Addf(c.Pos(n), lint.UnknownRef, "unknown target %q%s", name, lint.Suggest(name, c.Map.Names()))
		}
		return
	}
	// A within target in a step is resolved inside the first match of its
	// parent (in extract fields: inside each match); within and frame
	// compose either way.
	c.Targets = append(c.Targets, Ref{Name: name, Pos: c.Pos(n), Step: s})
	if s.Spec.Acts && c.ReadOnly && t.Writes() {
		c.Addf(c.Pos(n), lint.Risk, "a risk: read workflow may not %s target %q: the selector map marks it effect: write (declare risk: write)", s.Spec.Kind, name)
	}
}

// checkTargetParam checks a target field written as a template: it must be
// exactly ${{ params.NAME }} of a `type: target` parameter, whose prefix
// bounds the targets an argument may name (the schema's enum). Every
// target under the prefix is checked as if the step named it.
func (c *Checker) checkTargetParam(s *Step, name string, n *yaml.Node, field string) {
	m := paramRef.FindStringSubmatch(name)
	if m == nil {
		c.Addf(c.Pos(n), lint.BadValue, "step %s %s: a target is a selector-map name or exactly ${{ params.NAME }} of a type: target parameter, found %q", s.Spec.Kind, field, name)
		return
	}
	p, ok := c.Params[m[1]]
	switch {
	case !ok:
		c.Addf(c.Pos(n), lint.UnknownRef, "step %s %s: unknown parameter %q%s", s.Spec.Kind, field, m[1], lint.Suggest(m[1], paramNames(c.Params)))
		return
	case p.Type != "target":
		c.Addf(c.Pos(n), lint.BadValue, "step %s %s: parameter %q is %s; a target field takes only a type: target parameter", s.Spec.Kind, field, m[1], p.Type)
		return
	}
	for _, tn := range c.Map.WithPrefix(p.Prefix) {
		t, _ := c.Map.Lookup(tn)
		if t == nil {
			continue
		}
		if s.Spec.Acts && c.ReadOnly && t.Writes() {
			c.Addf(c.Pos(n), lint.Risk, "a risk: read workflow may not %s target %q (parameter %q may name it): the selector map marks it effect: write (declare risk: write)", s.Spec.Kind, tn, m[1])
		}
	}
}

// TargetParam returns NAME when a target field holds ${{ params.NAME }}.
func TargetParam(v string) (string, bool) {
	m := paramRef.FindStringSubmatch(v)
	if m == nil {
		return "", false
	}
	return m[1], true
}

// Parameter types a typed field may take.
const (
	TInteger = "integer"
	TBoolean = "boolean"
)

// typedParam accepts a whole template of a parameter as the value of an
// Int or Bool field when the parameter has that type (the value then
// keeps its type), and reports a parameter of another type. handled says
// whether it took the value; x and ok are then the field's.
func (c *Checker) typedParam(s *Step, f *decl.Field, n *yaml.Node, sc tmpl.Scope, where, want string) (x any, ok, handled bool) {
	rn := yamlx.Resolve(n)
	if rn == nil || rn.Kind != yaml.ScalarNode {
		return nil, false, false
	}
	m := paramRef.FindStringSubmatch(rn.Value)
	if m == nil {
		return nil, false, false
	}
	p, known := c.Params[m[1]]
	switch {
	case !known:
		c.Addf(c.Pos(n), lint.UnknownRef, "%s: unknown parameter %q%s", where, m[1], lint.Suggest(m[1], paramNames(c.Params)))
	case p.Type != want:
		c.Addf(c.Pos(n), lint.BadValue, "%s takes %s; parameter %q is %s", where, map[string]string{TInteger: "a whole number", TBoolean: "true or false"}[want], m[1], p.Type)
	case want == TInteger && p.Min != nil && *p.Min < 0:
		c.Addf(c.Pos(n), lint.BadValue, "%s must not be negative: give parameter %q a min of 0 or more", where, m[1])
	default:
		s.typed = setType(s.typed, f.Name, f.Type)
		return (*tmpl.Template)(nil), c.defer1(s, f.Name, n, sc, Template, -1), true
	}
	return nil, false, true
}

func paramNames(m map[string]ParamInfo) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// defer1 keeps a template or expression to compile once every variable
// is known; it reports whether the value is one (a single value).
func (c *Checker) defer1(s *Step, field string, n *yaml.Node, sc tmpl.Scope, kind decl.Type, entry int) bool {
	if _, ok := yamlx.Scalar(c.File, n, "step "+s.Spec.Kind+" "+field, c.Problems); !ok {
		return false
	}
	c.pending = append(c.pending, pending{step: s, field: field, node: yamlx.Resolve(n), scope: sc, kind: kind, entry: entry})
	return true
}

func (c *Checker) deferEntry(s *Step, field string, n *yaml.Node, sc tmpl.Scope, entry int) {
	c.pending = append(c.pending, pending{step: s, field: field, node: yamlx.Resolve(n), scope: sc, kind: Template, entry: entry})
}

// VarNames returns the variables the workflow sets.
func (c *Checker) VarNames() []string {
	out := make([]string, 0, len(c.Vars))
	for k := range c.Vars {
		out = append(out, k)
	}
	return out
}

// VarShapes says what the variables hold where every step that writes one
// agrees (set steps write values of any shape, so a variable they set is
// not known). Where several steps write the same kind, the fields are all
// theirs, in the order they first appear. This one answer serves lint (a
// wrong field access is a load error) and the output schema (a list leaves
// the engine as {items, count, truncated}).
func (c *Checker) VarShapes() map[string]tmpl.Shape {
	out := map[string]tmpl.Shape{}
	unknown := map[string]bool{}
	for _, w := range c.writes {
		if w.field.Yields == nil {
			unknown[w.name] = true
			continue
		}
		sh := w.field.Yields(c, w.step)
		if prev, ok := out[w.name]; ok && prev.Kind == sh.Kind {
			for _, f := range sh.Fields {
				if !slices.Contains(prev.Fields, f) {
					prev.Fields = append(prev.Fields, f)
				}
			}
			sh = prev
		} else if (ok && prev.Kind != sh.Kind) || sh.Kind == "" {
			unknown[w.name] = true
		}
		out[w.name] = sh
	}
	for name := range c.Vars {
		if _, ok := out[name]; !ok {
			unknown[name] = true
		}
	}
	for name := range unknown {
		delete(out, name)
	}
	return out
}

// Compile compiles every deferred template and expression. base supplies
// params, config and secrets; the variables are the ones Decode found.
func (c *Checker) Compile(base tmpl.Scope) {
	vars := c.VarNames()
	shapes := c.VarShapes()
	for _, p := range c.pending {
		sc := p.scope
		sc.Params, sc.Config, sc.Secrets, sc.Vars, sc.VarShapes = base.Params, base.Config, base.Secrets, vars, shapes
		site := tmpl.Site{File: c.File, Node: p.node}
		if p.node.Kind != yaml.ScalarNode {
			if p.kind != Template {
				c.Addf(c.Pos(p.node), lint.BadValue, "step %s %s must be an expression, found %s", p.step.Spec.Kind, p.field, yamlx.Describe(p.node))
				continue
			}
			// A list or map value: a literal, with no templates inside.
			c.store(p, tmpl.Literal(yamlx.Value(p.node)))
			continue
		}
		switch p.kind {
		case Template:
			t := tmpl.CompileTemplate(p.node.Value, site, sc, c.Problems)
			for _, name := range t.Secrets {
				if c.Secrets == nil {
					c.Secrets = map[string]bool{}
				}
				c.Secrets[name] = true
			}
			if t.IsLiteral() && p.node.Tag != "!!str" {
				t = tmpl.Literal(yamlx.Value(p.node))
			}
			c.store(p, t)
		case Expr, Cond:
			if e := tmpl.CompileExpr(p.node.Value, site, sc, p.kind == Cond, c.Problems); e != nil {
				if p.field == "if" {
					p.step.If = e
				} else {
					p.step.Args[p.field] = e
				}
			}
		}
	}
	c.pending = nil
	for _, s := range c.compiled {
		s.Spec.AfterCompile(c, s)
	}
	c.compiled = nil
}

func (c *Checker) store(p pending, t *tmpl.Template) {
	if p.field == "dialog" && p.step.Dialog != nil {
		p.step.Dialog.Text = t
		return
	}
	if p.entry >= 0 {
		vals, _ := p.step.Args[p.field].([]NamedValue)
		if p.entry < len(vals) {
			vals[p.entry].Value = t
		}
		return
	}
	p.step.Args[p.field] = t
}

// Walk calls f for every step, nested ones included, depth first.
func Walk(steps []*Step, f func(*Step)) {
	for _, s := range steps {
		f(s)
		for _, fd := range s.Spec.Fields {
			if fd.Type == Steps {
				Walk(s.Steps(fd.Name), f)
			}
		}
		if s.Spec.Body == Steps {
			Walk(s.Steps(""), f)
		}
	}
}
