package step

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toolwright/toolwright/engine/decl"
	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/tmpl"
	"github.com/toolwright/toolwright/engine/yamlx"
	"gopkg.in/yaml.v3"
)

// The types of step fields: each is a decl.Type, so the declaration's one
// decoder reads a step field the way it reads every other key, calling
// the type's Decode (with the checker and the step in the Decoder's Env),
// and the reference and the JSON Schema describe it from the same value.
var (
	String       decl.Type = stringType{decl.String}     // literal text, no template
	Template     decl.Type = templateType{}              // text; `${{ }}` templates allowed; one template keeps its type
	Expr         decl.Type = exprType{"expression"}      // a bare expression (any result)
	Cond         decl.Type = exprType{"condition"}       // a bare boolean expression
	Target       decl.Type = targetType{}                // a selector-map target name
	Duration     decl.Type = durationType{decl.Duration} // 500ms, 10s, 2m (Field.Max)
	Int          decl.Type = intType{}                   // a whole number, or one ${{ }} template giving one (a parameter's type is checked at load, anything else when the step runs)
	Bound        decl.Type = boundType{}                 // a loop bound: a literal ≤ limits.max_loop, or ${{ params.X }} whose max is within it
	Bool         decl.Type = boolType{}                  // true or false
	Steps        decl.Type = stepsType{}                 // a nested list of steps
	TargetMap    decl.Type = targetMapType{}             // a map NAME: TARGET or NAME: {target: TARGET, attr: ATTR}
	ValueMap     decl.Type = valueMapType{}              // a map NAME: template value
	VarName      decl.Type = varNameType{}               // the name of a variable the step writes
	Tool         decl.Type = toolType{}                  // the name of another workflow
	Enum         decl.Type = enumType{}                  // one of Field.Enum
	Ints         decl.Type = intsType{}                  // a list of whole numbers, like [200, 404] (or one number)
	TemplateList decl.Type = templateListType{}          // a list of templates, or one template giving a list
	Forms        decl.Type = formsType{}                 // a list of the kind's own long forms, each one of its OneOf (wait's any)
	PageCond     decl.Type = pageCondType{}              // one of wait's conditions, as a step's when: takes it (ask_human's until)
)

// fieldType is a step field's type: a decl.Type that also says which
// Go values its Default may be (Register checks them).
type fieldType interface {
	decl.Type
	fits(def any, f Field) bool
}

// fieldEnv is what a step field's Decode reads beside the value (the
// decl.Decoder's Env): the checker, the step and the names in scope.
type fieldEnv struct {
	c  *Checker
	s  *Step
	sc tmpl.Scope
	// later, in a long form, holds the decoding of nested steps until the
	// other fields (and their defaults) are in: their scope may depend on
	// them (for_each's as). nil: decode them at once.
	later []func()
}

// fieldOf returns the env and the step's own declaration of the field
// being decoded.
func fieldOf(d *decl.Decoder, f *decl.Field) (*fieldEnv, Field) {
	sf, _ := f.Ext.(Field)
	return d.Env.(*fieldEnv), sf
}

func isString(def any) bool { _, ok := def.(string); return ok }

type (
	stringType       struct{ decl.Type }
	durationType     struct{ decl.Type }
	templateType     struct{}
	exprType         struct{ name string }
	targetType       struct{}
	intType          struct{}
	boundType        struct{}
	boolType         struct{}
	stepsType        struct{}
	targetMapType    struct{}
	valueMapType     struct{}
	varNameType      struct{}
	toolType         struct{}
	enumType         struct{}
	intsType         struct{}
	templateListType struct{}
	formsType        struct{}
	pageCondType     struct{}
)

func (stringType) fits(def any, _ Field) bool { return isString(def) }

func (durationType) fits(def any, _ Field) bool { _, ok := def.(time.Duration); return ok }

func (templateType) String() string { return "template" }

func (templateType) Decode(d *decl.Decoder, f *decl.Field, n *yaml.Node, where string) (any, bool) {
	e, sf := fieldOf(d, f)
	if rn := yamlx.Resolve(n); rn != nil && rn.Kind != yaml.ScalarNode {
		e.c.Addf(e.c.Pos(n), lint.BadValue, "%s must be a single value, found %s", where, yamlx.Describe(n))
		return nil, false
	}
	sc := e.sc.With(func(x *tmpl.Scope) { x.SecretsAllowed, x.URL = sf.Secrets, sf.URL })
	return (*tmpl.Template)(nil), e.c.defer1(e.s, f.Name, n, sc, Template, -1)
}

func (templateType) Schema(*decl.Field) *decl.Obj { return TemplateSchema() }

func (templateType) fits(def any, _ Field) bool {
	switch def.(type) {
	case string, bool, int, float64:
		return true
	}
	return false
}

func (t exprType) String() string { return t.name }

func (t exprType) Decode(d *decl.Decoder, f *decl.Field, n *yaml.Node, _ string) (any, bool) {
	e, sf := fieldOf(d, f)
	sc := e.sc
	if sf.Scoped && e.s.Spec.Scope != nil {
		sc = e.s.Spec.Scope(e.s, sc)
	}
	return (*tmpl.Expr)(nil), e.c.defer1(e.s, f.Name, n, sc, f.Type, -1)
}

func (exprType) Schema(*decl.Field) *decl.Obj {
	return decl.NewObj("type", []string{"string", "boolean", "number"})
}

func (exprType) fits(any, Field) bool { return false }

func (targetType) String() string { return "target" }

func (targetType) Decode(d *decl.Decoder, f *decl.Field, n *yaml.Node, where string) (any, bool) {
	e, _ := fieldOf(d, f)
	v, ok := yamlx.String(d.File, n, where, d.Problems)
	if ok {
		e.c.checkTarget(e.s, v, n, f.Name)
	}
	return v, ok
}

func (targetType) Schema(*decl.Field) *decl.Obj { return decl.NewObj("type", "string") }

func (targetType) fits(def any, _ Field) bool { return isString(def) }

func (intType) String() string { return "integer" }

// Decode reads a whole number of 0 or more, or one template.
func (intType) Decode(d *decl.Decoder, f *decl.Field, n *yaml.Node, where string) (any, bool) {
	e, _ := fieldOf(d, f)
	if x, ok, handled := e.c.typedParam(e.s, f, n, e.sc, where, TInteger); handled {
		return x, ok
	}
	if rn := yamlx.Resolve(n); rn != nil && rn.Kind == yaml.ScalarNode && wholeTmpl.MatchString(rn.Value) {
		// Any other one template (a variable, an expression): its value
		// is checked when the step runs (Bind).
		e.s.typed = setType(e.s.typed, f.Name, f.Type)
		return (*tmpl.Template)(nil), e.c.defer1(e.s, f.Name, n, e.sc, Template, -1)
	}
	v, ok := yamlx.Int(d.File, n, where, d.Problems)
	if ok && v < 0 {
		e.c.Addf(e.c.Pos(n), lint.BadValue, "%s must not be negative, found %d", where, v)
		return nil, false
	}
	return v, ok
}

func (intType) Schema(*decl.Field) *decl.Obj {
	return decl.NewObj("anyOf", []any{decl.NewObj("type", "integer", "minimum", 0), wholeTemplateSchema()})
}

func (intType) fits(def any, _ Field) bool { _, ok := def.(int); return ok }

func (boundType) String() string { return "loop bound" }

// Decode reads a loop bound: a literal within limits.max_loop, or
// ${{ params.X }} of an integer parameter whose max is within it.
func (boundType) Decode(d *decl.Decoder, f *decl.Field, n *yaml.Node, where string) (any, bool) {
	e, _ := fieldOf(d, f)
	c := e.c
	v, ok := yamlx.Scalar(d.File, n, where, d.Problems)
	if !ok {
		return nil, false
	}
	if i, err := strconv.Atoi(v); err == nil {
		if i < 1 || i > c.MaxLoop {
			c.Addf(c.Pos(n), lint.Unbounded, "%s must be between 1 and limits.max_loop (%d), found %d", where, c.MaxLoop, i)
			return nil, false
		}
		return LoopBound{N: i}, true
	}
	m := paramRef.FindStringSubmatch(v)
	if m == nil {
		c.Addf(c.Pos(n), lint.Unbounded, "%s must be a number up to %d or ${{ params.NAME }} of an integer parameter with a max, found %q", where, c.MaxLoop, v)
		return nil, false
	}
	p, ok := c.Params[m[1]]
	switch {
	case !ok:
		c.Addf(c.Pos(n), lint.UnknownRef, "%s: unknown parameter %q%s", where, m[1], lint.Suggest(m[1], paramNames(c.Params)))
	case p.Type != "integer":
		c.Addf(c.Pos(n), lint.Unbounded, "%s: parameter %q must be an integer to bound a loop, it is %s", where, m[1], p.Type)
	case p.Max == nil || *p.Max > float64(c.MaxLoop):
		c.Addf(c.Pos(n), lint.Unbounded, "%s: parameter %q must declare a max of at most limits.max_loop (%d)", where, m[1], c.MaxLoop)
	default:
		return LoopBound{Param: m[1], N: int(*p.Max)}, true
	}
	return nil, false
}

func (boundType) Schema(*decl.Field) *decl.Obj {
	return decl.NewObj("anyOf", []any{
		decl.NewObj("type", "integer", "minimum", 1),
		decl.NewObj("type", "string", "pattern", `^\$\{\{\s*params\.[a-z][a-z0-9_]*\s*\}\}$`),
	})
}

func (boundType) fits(any, Field) bool { return false }

func (boolType) String() string { return "boolean" }

func (boolType) Decode(d *decl.Decoder, f *decl.Field, n *yaml.Node, where string) (any, bool) {
	e, _ := fieldOf(d, f)
	if x, ok, handled := e.c.typedParam(e.s, f, n, e.sc, where, TBoolean); handled {
		return x, ok
	}
	return yamlx.Bool(d.File, n, where, d.Problems)
}

func (boolType) Schema(*decl.Field) *decl.Obj {
	return decl.NewObj("anyOf", []any{decl.NewObj("type", "boolean"), paramTemplateSchema()})
}

func (boolType) fits(def any, _ Field) bool { _, ok := def.(bool); return ok }

func (stepsType) String() string { return "steps" }

// Decode reads nested steps, in the scope the kind gives them.
func (stepsType) Decode(d *decl.Decoder, f *decl.Field, n *yaml.Node, _ string) (any, bool) {
	e, _ := fieldOf(d, f)
	if e.later != nil {
		now := *e
		now.later = nil
		e.later = append(e.later, func() {
			x, _ := stepsType{}.Decode(&decl.Decoder{File: d.File, Problems: d.Problems, Env: &now}, f, n, "")
			e.s.Args[f.Name] = x
		})
		return nil, false // stored by the call above, once the other fields are in
	}
	inner := e.sc
	if e.s.Spec.Scope != nil {
		inner = e.s.Spec.Scope(e.s, e.sc)
	}
	return e.c.Decode(n, e.s.Path, inner), true
}

func (stepsType) Schema(*decl.Field) *decl.Obj { return decl.NewObj("$ref", "#/definitions/steps") }

func (stepsType) fits(any, Field) bool { return false }

func (pageCondType) String() string { return "condition" }

func (pageCondType) Decode(d *decl.Decoder, f *decl.Field, n *yaml.Node, where string) (any, bool) {
	e, _ := fieldOf(d, f)
	cond := e.c.DecodeCondition(n, e.s.Path, e.sc, where)
	return cond, cond != nil
}

func (pageCondType) Schema(*decl.Field) *decl.Obj {
	return decl.NewObj("type", "object", "minProperties", 1)
}

func (pageCondType) fits(any, Field) bool { return false }

func (formsType) String() string { return "list of conditions" }

// Decode reads a list of the kind's own long forms.
func (formsType) Decode(d *decl.Decoder, f *decl.Field, n *yaml.Node, where string) (any, bool) {
	e, _ := fieldOf(d, f)
	c := e.c
	seq := yamlx.Resolve(n)
	if seq == nil || seq.Kind != yaml.SequenceNode || len(seq.Content) == 0 {
		c.Addf(c.Pos(n), lint.BadValue, "%s must be a list of conditions, found %s", where, yamlx.Describe(n))
		return nil, false
	}
	var forms []*Step
	for _, item := range seq.Content {
		sub := &Step{Spec: e.s.Spec, Pos: c.Pos(item), Path: e.s.Path, Args: map[string]any{}}
		c.decodeBody(sub, item, e.sc)
		if sub.Has(f.Name) {
			c.Addf(c.Pos(item), lint.BadValue, "%s: a condition in %s cannot hold another %s", where, f.Name, f.Name)
		}
		forms = append(forms, sub)
	}
	return forms, true
}

func (formsType) Schema(*decl.Field) *decl.Obj {
	return decl.NewObj("type", "array", "minItems", 1, "items", decl.NewObj("type", "object", "minProperties", 1, "maxProperties", 1))
}

func (formsType) fits(any, Field) bool { return false }

func (targetMapType) String() string { return "map of targets" }

// Decode reads NAME: TARGET or NAME: {target, attr} entries.
func (targetMapType) Decode(d *decl.Decoder, f *decl.Field, n *yaml.Node, where string) (any, bool) {
	e, _ := fieldOf(d, f)
	c := e.c
	kvs, ok := yamlx.Map(d.File, n, where, d.Problems)
	if !ok {
		return nil, false
	}
	var out []NamedTarget
	for _, kv := range kvs {
		if !varNameRE.MatchString(kv.Key) {
			c.Addf(c.Pos(kv.KeyN), lint.BadName, "%s: field name %q must be snake_case", where, kv.Key)
		}
		if v, attr, at, ok := c.targetEntry(kv.Value, where+" "+kv.Key); ok {
			out = append(out, NamedTarget{Name: kv.Key, Target: v, Attr: attr})
			c.mapTarget(e.s, v, at)
		}
	}
	return out, true
}

// TargetMapSchema is a TargetMap's schema, with target describing each
// target name (the project's names, for completion).
func TargetMapSchema(target func() *decl.Obj) *decl.Obj {
	long := *TargetEntryDecl
	long.Fields = append([]decl.Field(nil), long.Fields...)
	long.Fields[0].Schema = target
	elem := decl.Field{Type: decl.String, Doc: "a target", Schema: func() *decl.Obj {
		return decl.NewObj("anyOf", []any{target(), long.Schema()})
	}}
	return decl.NewObj("type", "object", "additionalProperties", elem.Schema1())
}

func (targetMapType) Schema(*decl.Field) *decl.Obj {
	elem := decl.Field{Type: decl.String, Doc: "a target"}
	return decl.NewObj("type", "object", "additionalProperties", elem.Schema1())
}

func (targetMapType) fits(any, Field) bool { return false }

func (valueMapType) String() string { return "map of values" }

// Decode reads NAME: template entries (a field, or set's whole body,
// whose names are variables).
func (valueMapType) Decode(d *decl.Decoder, f *decl.Field, n *yaml.Node, where string) (any, bool) {
	e, _ := fieldOf(d, f)
	c := e.c
	kvs, ok := yamlx.Map(d.File, n, where, d.Problems)
	if !ok {
		return nil, false
	}
	out := make([]NamedValue, len(kvs))
	for i, kv := range kvs {
		out[i].Name = kv.Key
		if !varNameRE.MatchString(kv.Key) {
			c.Addf(c.Pos(kv.KeyN), lint.BadName, "%s: name %q must be snake_case", where, kv.Key)
		}
		if f.Name == "" { // set: the keys are variables
			c.Vars[kv.Key] = c.Pos(kv.KeyN)
		}
		c.deferEntry(e.s, f.Name, kv.Value, e.sc, i)
	}
	return out, true
}

func (valueMapType) Schema(*decl.Field) *decl.Obj {
	return decl.NewObj("type", "object", "additionalProperties", decl.NewObj())
}

func (valueMapType) fits(any, Field) bool { return false }

func (varNameType) String() string { return "variable name" }

// Decode reads the variable the step writes.
func (varNameType) Decode(d *decl.Decoder, f *decl.Field, n *yaml.Node, where string) (any, bool) {
	e, sf := fieldOf(d, f)
	c := e.c
	v, ok := yamlx.String(d.File, n, where, d.Problems)
	if !ok {
		return nil, false
	}
	if !varNameRE.MatchString(v) {
		c.Addf(c.Pos(n), lint.BadName, "%s: variable name %q must be snake_case", where, v)
		return nil, false
	}
	c.Vars[v] = c.Pos(n)
	c.writes = append(c.writes, varWrite{name: v, step: e.s, field: sf})
	return v, true
}

func (varNameType) Schema(*decl.Field) *decl.Obj {
	return decl.NewObj("type", "string", "pattern", varNameRE.String())
}

func (varNameType) fits(def any, _ Field) bool { return isString(def) }

func (toolType) String() string { return "tool name" }

func (toolType) Decode(d *decl.Decoder, f *decl.Field, n *yaml.Node, where string) (any, bool) {
	e, _ := fieldOf(d, f)
	v, ok := yamlx.String(d.File, n, where, d.Problems)
	if ok {
		e.c.Calls = append(e.c.Calls, Ref{Name: v, Pos: e.c.Pos(n), Step: e.s})
	}
	return v, ok
}

func (toolType) Schema(*decl.Field) *decl.Obj { return decl.NewObj("type", "string") }

func (toolType) fits(def any, _ Field) bool { return isString(def) }

func (enumType) String() string { return "one of" }

func (enumType) Decode(d *decl.Decoder, f *decl.Field, n *yaml.Node, where string) (any, bool) {
	v, ok := yamlx.String(d.File, n, where, d.Problems)
	if ok && !slices.Contains(f.Enum, v) {
		d.Problems.Addf(lint.At(d.File, n), lint.BadValue, "%s must be one of %s, found %q%s", where, strings.Join(f.Enum, ", "), v, lint.Suggest(v, f.Enum))
		return nil, false
	}
	return v, ok
}

func (enumType) Schema(f *decl.Field) *decl.Obj { return decl.NewObj("enum", f.Enum) }

func (enumType) fits(def any, f Field) bool {
	v, ok := def.(string)
	return ok && slices.Contains(f.Enum, v)
}

func (intsType) String() string { return "list of numbers" }

// Decode reads a list of whole numbers, or one.
func (intsType) Decode(d *decl.Decoder, _ *decl.Field, n *yaml.Node, where string) (any, bool) {
	rn := yamlx.Resolve(n)
	items := []*yaml.Node{rn}
	if rn != nil && rn.Kind == yaml.SequenceNode {
		items = rn.Content
	}
	if len(items) == 0 {
		d.Problems.Addf(lint.At(d.File, n), lint.Missing, "%s: the list is empty", where)
		return nil, false
	}
	out := make([]int, 0, len(items))
	for _, it := range items {
		v, ok := yamlx.Int(d.File, it, where, d.Problems)
		if !ok {
			return nil, false
		}
		out = append(out, v)
	}
	return out, true
}

func (intsType) Schema(*decl.Field) *decl.Obj {
	return decl.NewObj("anyOf", []any{decl.NewObj("type", "integer"), decl.NewObj("type", "array", "items", decl.NewObj("type", "integer"))})
}

func (intsType) fits(any, Field) bool { return false }

func (templateListType) String() string { return "list of templates" }

// Decode reads a list of templates, or one template giving a list.
func (templateListType) Decode(d *decl.Decoder, f *decl.Field, n *yaml.Node, where string) (any, bool) {
	e, _ := fieldOf(d, f)
	c := e.c
	rn := yamlx.Resolve(n)
	if rn != nil && rn.Kind == yaml.SequenceNode {
		if len(rn.Content) == 0 {
			c.Addf(c.Pos(n), lint.Missing, "%s: the list is empty", where)
			return nil, false
		}
		for i, item := range rn.Content {
			if ir := yamlx.Resolve(item); ir == nil || ir.Kind != yaml.ScalarNode {
				c.Addf(c.Pos(item), lint.BadValue, "%s: each entry must be a single value, found %s", where, yamlx.Describe(item))
				continue
			}
			c.deferEntry(e.s, f.Name, item, e.sc, i)
		}
		return make([]NamedValue, len(rn.Content)), true
	}
	if _, ok := yamlx.Scalar(d.File, n, where, d.Problems); !ok {
		return nil, false
	}
	c.deferEntry(e.s, f.Name, n, e.sc, 0)
	return make([]NamedValue, 1), true
}

func (templateListType) Schema(*decl.Field) *decl.Obj {
	return decl.NewObj("anyOf", []any{decl.NewObj("type", "string"), decl.NewObj("type", "array", "items", decl.NewObj("type", "string"))})
}

func (templateListType) fits(any, Field) bool { return false }
