package workflow

import (
	"strings"

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

// listFormKeys are the keys of an output entry written in the list form
// `NAME: {rows: ${{ vars.rows }}, format: table}`.
var listFormKeys = []string{"rows", "format"}

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
// list form, a map with `rows` (the list) and `format`.
func (d *decoder) decodeOutput(o yamlx.KV, scope tmpl.Scope) Output {
	out := Output{Format: FormatObjects}
	out.Name = o.Key
	vn := yamlx.Resolve(o.Value)
	if vn != nil && vn.Kind == yaml.MappingNode && isListForm(vn) {
		kvs, _ := yamlx.Map(d.file, vn, "output "+o.Key, d.ps)
		yamlx.Known(d.file, kvs, listFormKeys, "output "+o.Key, d.ps)
		var rows *yaml.Node
		for _, kv := range kvs {
			switch kv.Key {
			case "rows":
				rows = kv.Value
			case "format":
				if s, ok := yamlx.String(d.file, kv.Value, "output "+o.Key+" format", d.ps); ok {
					if s != FormatObjects && s != FormatTable {
						d.ps.Addf(d.pos(kv.Value), lint.BadValue, "output %q: format must be objects or table, found %q%s", o.Key, s, lint.Suggest(s, []string{FormatObjects, FormatTable}))
					} else {
						out.Format = s
					}
				}
			}
		}
		if rows == nil {
			d.ps.Addf(d.pos(vn), lint.Missing, "output %q: the list form needs rows: the list to return, like rows: ${{ vars.rows }}", o.Key)
			out.Value = tmpl.Literal([]any{})
			return out
		}
		out.Value = d.outputTemplate(rows, scope)
		if rn := yamlx.Resolve(rows); rn != nil && rn.Kind != yaml.SequenceNode && !strings.Contains(rn.Value, "${{") {
			d.ps.Addf(d.pos(rows), lint.BadValue, "output %q: rows must be a list, like rows: ${{ vars.rows }}, found %s", o.Key, yamlx.Describe(rows))
		}
		return out
	}
	out.Value = d.outputTemplate(o.Value, scope)
	return out
}

// isListForm reports whether a map output value is the list form: it has a
// rows or a format key. Any other map is a literal value.
func isListForm(n *yaml.Node) bool {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i].Value; k == "rows" || k == "format" {
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
