package workflow

import (
	"strings"

	"github.com/toolwright/toolwright/engine/decl"
	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/step"
	"github.com/toolwright/toolwright/engine/tmpl"
	"github.com/toolwright/toolwright/engine/yamlx"
	"gopkg.in/yaml.v3"
)

// List formats of an output entry (DESIGN.md, "Lists").
const (
	// FormatObjects returns a list as {"items": [{...}, ...], "count", "truncated"} (the default).
	FormatObjects = "objects"
	// FormatTable returns it as {"columns": [...], "rows": [[...], ...], "count", "truncated"}:
	// every key once, for wide lists.
	FormatTable = "table"
)

// OutputListDecl declares an output entry's list form
// `NAME: {rows: ${{ vars.rows }}, format: table}`.
var OutputListDecl = &decl.Object{
	Name: "output list", Title: "output list",
	Doc: "A list returned as objects or as a table.",
	Fields: []decl.Field{
		{Name: "rows", Type: decl.Any, Raw: true, Required: true, Schema: func() *decl.Obj { return decl.NewObj("type", []string{"string", "array"}) },
			Doc: "the list to return, like rows: ${{ vars.rows }}"},
		{Name: "format", Type: decl.Enum, Enum: []string{FormatObjects, FormatTable}, Default: FormatObjects,
			Doc: "objects: {items: [{...}], count, truncated}; table: {columns, rows: [[...]], count, truncated}, every key once"},
	},
}

// outputSchema is an output entry's: a template or literal, or the list
// form (a map with rows or format; any other map is a literal).
func outputSchema() *decl.Obj {
	listKeys := make([]any, 0, len(OutputListDecl.Fields))
	for _, name := range OutputListDecl.Names() {
		listKeys = append(listKeys, decl.NewObj("required", []string{name}))
	}
	return decl.NewObj("anyOf", []any{
		decl.NewObj("type", []string{"string", "number", "boolean", "array", "null"}),
		OutputListDecl.Schema(),
		decl.NewObj("type", "object", "not", decl.NewObj("anyOf", listKeys)),
	})
}

// listForm is an output entry's list form, filled from OutputListDecl.
type listForm struct {
	Format string `decl:"format"`
}

// Output is one entry of a workflow's output: a name, its template, and
// for a list how it is returned.
type Output struct {
	step.NamedValue
	// Format is FormatObjects or FormatTable.
	Format string
	// Columns of a table in the order the extract step declares its fields,
	// when the loader can tell; more keys found at run time follow them.
	Columns []string
	// List: the value is a list by the steps that write it (the shape lint
	// uses) or by its parameter's type, so it leaves as {items, count,
	// truncated} as the output schema says, an empty one when unset (its
	// extract was skipped).
	List bool
}

// decodeOutput decodes one output entry: a template (or literal), or the
// list form (OutputListDecl), a map with `rows` (the list) and `format`.
func (d *decoder) decodeOutput(o yamlx.KV, scope tmpl.Scope) Output {
	out := Output{Format: FormatObjects}
	out.Name = o.Key
	vn := yamlx.Resolve(o.Value)
	if vn == nil || vn.Kind != yaml.MappingNode || !isListForm(vn) {
		out.Value = d.outputTemplate(o.Value, scope)
		return out
	}
	v := OutputListDecl.Decode(d.file, vn, "output "+o.Key, d.ps)
	var lf listForm
	OutputListDecl.Fill(v, &lf, "", d.ps)
	out.Format = lf.Format
	rows := v.Node("rows")
	if rows == nil {
		out.Value = tmpl.Literal([]any{})
		return out
	}
	out.Value = d.outputTemplate(rows, scope)
	if rn := yamlx.Resolve(rows); rn != nil && rn.Kind != yaml.SequenceNode && !strings.Contains(rn.Value, "${{") {
		d.ps.Addf(d.pos(rows), lint.BadValue, "output %q: rows must be a list, like rows: ${{ vars.rows }}, found %s", o.Key, yamlx.Describe(rows))
	}
	return out
}

// isListForm reports whether a map output value is the list form: it has
// a key of OutputListDecl. Any other map is a literal value.
func isListForm(n *yaml.Node) bool {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if _, ok := OutputListDecl.Field(n.Content[i].Value); ok {
			return true
		}
	}
	return false
}

// outputTemplate compiles one output value: a scalar is a template (a
// non-string literal keeps its type), anything else a literal.
func (d *decoder) outputTemplate(n *yaml.Node, scope tmpl.Scope) *tmpl.Template {
	if vn := yamlx.Resolve(n); vn != nil && vn.Kind == yaml.ScalarNode {
		t := tmpl.CompileTemplate(vn.Value, tmpl.Site{File: d.file, Node: vn}, scope, d.ps)
		if t.IsLiteral() && vn.Tag != "!!str" {
			t = tmpl.Literal(yamlx.Value(vn))
		}
		return t
	}
	return tmpl.Literal(yamlx.Value(n))
}
