package decl

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Schema is the JSON Schema (draft-07 keywords) of an object: every key
// described, unknown keys refused.
func (o *Object) Schema() *Obj {
	props := NewObj()
	var req []string
	for i := range o.Fields {
		f := &o.Fields[i]
		props.Set(f.Name, f.Schema1())
		if f.Required {
			req = append(req, f.Name)
		}
	}
	s := NewObj()
	if o.Title != "" {
		s.Set("title", o.Title)
	}
	if o.Doc != "" {
		s.Set("description", o.Doc)
	}
	s.Set("type", "object")
	if len(req) > 0 {
		s.Set("required", req)
	}
	s.Set("additionalProperties", false)
	s.Set("properties", props)
	return s
}

// Schema1 is the JSON Schema of one field's value, with its description.
func (f *Field) Schema1() *Obj {
	var s *Obj
	switch {
	case f.Schema != nil:
		s = f.Schema()
	default:
		s = f.typeSchema()
	}
	if doc := f.FullDoc(); doc != "" {
		if _, has := s.Get("description"); !has {
			s.Set("description", doc)
		}
	}
	if f.Default != nil {
		d := f.Default
		if dd, ok := d.(time.Duration); ok {
			d = dd.String()
		}
		s.Set("default", d)
	}
	return s
}

func (f *Field) typeSchema() *Obj {
	if f.Type == nil {
		return NewObj()
	}
	return f.Type.Schema(f)
}

// DurationPattern is how the schemas describe a duration: Go's form, such
// as 500ms, 10s, 1m30s.
const DurationPattern = `^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`

// WriteMarkdown writes the reference of an object: a table of its keys,
// then one section per nested object.
func (o *Object) WriteMarkdown(w io.Writer, heading string) error {
	var b strings.Builder
	o.markdown(&b, heading, "")
	_, err := io.WriteString(w, b.String())
	return err
}

func (o *Object) markdown(b *strings.Builder, heading, prefix string) {
	title := o.Title
	if title == "" {
		title = o.Name
	}
	if prefix != "" {
		title = "`" + prefix + "`"
	}
	fmt.Fprintf(b, "%s %s\n\n", heading, title)
	if o.Doc != "" {
		fmt.Fprintf(b, "%s\n\n", o.Doc)
	}
	b.WriteString("| key | type | default | description |\n|---|---|---|---|\n")
	var nested []*Field
	for i := range o.Fields {
		f := &o.Fields[i]
		req := ""
		if f.Required {
			req = " (required)"
		}
		fmt.Fprintf(b, "| `%s` | %s | %s | %s%s |\n", f.Name, f.TypeText(), cell(defaultText(f.Default)), cell(f.FullDoc()), req)
		if f.child() != nil {
			nested = append(nested, f)
		}
	}
	b.WriteString("\n")
	for _, f := range nested {
		p := f.Name
		if prefix != "" {
			p = prefix + "." + f.Name
		}
		if f.Type != Nested {
			p += ".NAME"
		}
		f.child().markdown(b, heading+"#", p)
	}
}

// TypeText names a field's type for docs: "integer", "list of string", "one of a, b".
func (f *Field) TypeText() string {
	switch f.Type {
	case Enum:
		return strings.Join(f.Enum, " \\| ")
	case List:
		if f.Elem != nil {
			return "list of " + f.Elem.TypeText()
		}
	case Map:
		if f.Elem != nil {
			return "map of NAME: " + f.Elem.TypeText()
		}
	}
	return f.Type.String()
}

func cell(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", "\\|")
}

// FullDoc is the field's doc with the kinds it applies to.
func (f *Field) FullDoc() string {
	if len(f.For) == 0 {
		return f.Doc
	}
	return fmt.Sprintf("%s (for %s)", f.Doc, strings.Join(f.For, ", "))
}

// Draft07 is the $schema of every published schema.
const Draft07 = "http://json-schema.org/draft-07/schema#"

// FileSchema makes a published file schema: $schema and $id, then body.
func FileSchema(id string, body *Obj) *Obj {
	return NewObj("$schema", Draft07, "$id", "https://toolwright.dev/schema/"+id+".json").Merge(body)
}
