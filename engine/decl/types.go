package decl

import (
	"fmt"

	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/yamlx"
	"gopkg.in/yaml.v3"
)

// Type is the type of a declared value: how the one decoder reads it, its
// JSON Schema and its name in the reference. The types below are the
// built-in ones; an owner declares its own by implementing Type (a step
// field's template, target or loop bound: package step), and the decoder
// calls it for every key of that type.
type Type interface {
	// String names the type in the reference.
	String() string
	// Decode reads one value, reporting problems against where; the
	// value is what Values hold for the key.
	Decode(d *Decoder, f *Field, n *yaml.Node, where string) (any, bool)
	// Schema is the JSON Schema of a value of f (without its description).
	Schema(f *Field) *Obj
}

// The built-in value types.
var (
	String   Type = stringType{}   // text (Pattern)
	Bool     Type = boolType{}     // true or false
	Int      Type = intType{}      // a whole number (Min, Max)
	Number   Type = numberType{}   // a number (Min, Max)
	Duration Type = durationType{} // 500ms, 10s, 2m (MaxDur)
	Enum     Type = enumType{}     // one of Field.Enum
	List     Type = listType{}     // a list; Elem describes each item
	Nested   Type = nestedType{}   // a map of declared keys; Obj describes them
	Map      Type = mapType{}      // a map of free names; Elem describes each value
	Any      Type = anyType{}      // any YAML value
)

type (
	stringType   struct{}
	boolType     struct{}
	intType      struct{}
	numberType   struct{}
	durationType struct{}
	enumType     struct{}
	listType     struct{}
	nestedType   struct{}
	mapType      struct{}
	anyType      struct{}
)

func (stringType) String() string { return "string" }

func (stringType) Decode(c *Decoder, f *Field, n *yaml.Node, where string) (any, bool) {
	s, ok := yamlx.String(c.File, n, where, c.Problems)
	if ok && f.Pattern != "" && !pattern(f.Pattern).MatchString(s) {
		what := f.PatDoc
		if what == "" {
			what = "the pattern " + f.Pattern
		}
		c.Problems.Addf(lint.At(c.File, n), lint.BadValue, "%s %q must be %s", where, s, what)
		return nil, false
	}
	return s, ok
}

func (stringType) Schema(f *Field) *Obj {
	s := NewObj("type", "string")
	if f.Pattern != "" {
		s.Set("pattern", f.Pattern)
	}
	return s
}

func (boolType) String() string { return "boolean" }

func (boolType) Decode(c *Decoder, _ *Field, n *yaml.Node, where string) (any, bool) {
	return yamlx.Bool(c.File, n, where, c.Problems)
}

func (boolType) Schema(*Field) *Obj { return NewObj("type", "boolean") }

func (intType) String() string { return "integer" }

func (intType) Decode(c *Decoder, f *Field, n *yaml.Node, where string) (any, bool) {
	i, ok := yamlx.Int(c.File, n, where, c.Problems)
	if ok && !f.inRange(c, n, where, float64(i)) {
		return nil, false
	}
	return i, ok
}

func (intType) Schema(f *Field) *Obj { return f.bounds(NewObj("type", "integer")) }

func (numberType) String() string { return "number" }

func (numberType) Decode(c *Decoder, f *Field, n *yaml.Node, where string) (any, bool) {
	x, ok := yamlx.Number(c.File, n, where, c.Problems)
	if ok && !f.inRange(c, n, where, x) {
		return nil, false
	}
	return x, ok
}

func (numberType) Schema(f *Field) *Obj { return f.bounds(NewObj("type", "number")) }

// bounds adds Min and Max to a number's schema.
func (f *Field) bounds(s *Obj) *Obj {
	if f.Min != nil {
		s.Set("minimum", *f.Min)
	}
	if f.Max != nil {
		s.Set("maximum", *f.Max)
	}
	return s
}

func (durationType) String() string { return "duration" }

func (durationType) Decode(c *Decoder, f *Field, n *yaml.Node, where string) (any, bool) {
	d, ok := yamlx.Duration(c.File, n, where, c.Problems)
	if ok && f.MaxDur > 0 && d > f.MaxDur {
		c.Problems.Addf(lint.At(c.File, n), lint.Unbounded, "%s must be at most %s, found %s", where, f.MaxDur, d)
		return nil, false
	}
	return d, ok
}

func (durationType) Schema(*Field) *Obj { return NewObj("type", "string", "pattern", DurationPattern) }

func (enumType) String() string { return "one of" }

func (enumType) Decode(c *Decoder, f *Field, n *yaml.Node, where string) (any, bool) {
	s, ok := yamlx.String(c.File, n, where, c.Problems)
	if !ok {
		return nil, false
	}
	for _, e := range f.Enum {
		if e == s {
			return s, true
		}
	}
	if len(f.Enum) == 0 { // values registered at init (browser.provider) by a package this program lacks
		c.Problems.Addf(lint.At(c.File, n), lint.BadValue, "%s: this program knows no values for it, found %q", where, s)
		return nil, false
	}
	c.Problems.Addf(lint.At(c.File, n), lint.BadValue, "%s must be %s, found %q%s", where, OrList(f.Enum), s, lint.Suggest(s, f.Enum))
	return nil, false
}

func (enumType) Schema(f *Field) *Obj { return NewObj("enum", f.Enum) }

func (listType) String() string { return "list" }

// Decode reads a list: its nodes when Elem is nil, else each item as
// Elem ([]string for String and Enum items).
func (listType) Decode(c *Decoder, f *Field, n *yaml.Node, where string) (any, bool) {
	if yamlx.IsNull(n) {
		return nil, false
	}
	rn := yamlx.Resolve(n)
	if rn.Kind != yaml.SequenceNode {
		c.Problems.Addf(lint.At(c.File, n), lint.BadValue, "%s must be a list, found %s", where, yamlx.Describe(n))
		return nil, false
	}
	if f.Elem == nil {
		return rn.Content, true
	}
	good := true
	var strs []string
	var items []any
	for i, item := range rn.Content {
		x, ok := f.Elem.decode(c, item, fmt.Sprintf("%s item %d", where, i+1))
		good = good && ok
		items = append(items, x)
		if s, isStr := x.(string); isStr {
			strs = append(strs, s)
		}
	}
	if f.Elem.Type == String || f.Elem.Type == Enum {
		return strs, good
	}
	return items, good
}

func (listType) Schema(f *Field) *Obj {
	s := NewObj("type", "array")
	if f.Elem != nil {
		s.Set("items", f.Elem.Schema1())
	}
	return s
}

func (nestedType) String() string { return "map" }

func (nestedType) Decode(c *Decoder, f *Field, n *yaml.Node, where string) (any, bool) {
	if yamlx.IsNull(n) {
		return nil, false
	}
	v := f.Obj.decode(c, n, where)
	return v, v != nil
}

func (nestedType) Schema(f *Field) *Obj { return f.Obj.Schema() }

func (mapType) String() string { return "map" }

// Decode reads a map of free names: its pairs when Elem is nil or Any,
// else an Entry per name (its Values when Elem is Nested).
func (mapType) Decode(c *Decoder, f *Field, n *yaml.Node, where string) (any, bool) {
	if yamlx.IsNull(n) {
		return nil, false
	}
	kvs, ok := yamlx.Map(c.File, n, where, c.Problems)
	if !ok {
		return nil, false
	}
	if f.Elem == nil || f.Elem.Type == Any {
		return kvs, true
	}
	out := make([]Entry, 0, len(kvs))
	for _, kv := range kvs {
		e := Entry{KV: kv}
		if f.Elem.Type == Nested {
			if yamlx.IsNull(kv.Value) {
				e.Values = &Values{File: c.File, kv: map[string]yamlx.KV{}, val: map[string]any{}, obj: f.Elem.Obj}
			} else {
				e.Values = f.Elem.Obj.decode(c, kv.Value, join(where, kv.Key))
			}
		} else if _, ok := f.Elem.decode(c, kv.Value, join(where, kv.Key)); !ok {
			continue
		}
		out = append(out, e)
	}
	return out, true
}

func (mapType) Schema(f *Field) *Obj {
	s := NewObj("type", "object")
	if f.Elem != nil {
		s.Set("additionalProperties", f.Elem.Schema1())
	}
	return s
}

func (anyType) String() string { return "any value" }

func (anyType) Decode(_ *Decoder, _ *Field, n *yaml.Node, _ string) (any, bool) { return n, true }

func (anyType) Schema(*Field) *Obj { return NewObj() }
