// Package decl declares, once, everything an author writes: the keys of a
// workflow, of a parameter, of a selector-map entry, of the config and of a
// test file (step kinds declare theirs with step.Field, whose Type is one
// of package step's decl.Types). One declaration drives decoding (types, unknown keys, "did
// you mean", the right level for a key written one level off), the
// Markdown reference and the JSON Schema editors read, so the three cannot
// drift.
package decl

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/yamlx"
	"gopkg.in/yaml.v3"
)

// Field declares one key.
type Field struct {
	Name     string
	Type     Type
	Doc      string
	Required bool
	Default  any
	Enum     []string      // Enum: the allowed values
	Min, Max *float64      // Int, Number: bounds (nil: none)
	MaxDur   time.Duration // Duration: an upper bound (0: none)
	Pattern  string        // String: an RE2 the value must match (decoding and schema)
	PatDoc   string        // what Pattern means, for messages ("snake_case")
	Elem     *Field        // List: each item; Map: each value
	Obj      *Object       // Object: the keys
	For      []string      // applies only to these kinds of its owner (a parameter's types)
	// Raw: the owner decodes the value itself; the declaration still checks
	// the key, and drives docs and schema.
	Raw bool
	// Schema replaces the generated JSON Schema of the value (a template,
	// a secret source); the description and default are still added.
	Schema func() *Obj
	// Path: a String that is a file or folder, relative to the file's
	// folder (Fill makes it absolute; empty is the Default).
	Path bool
	// Conv turns the decoded value (or the Default) into the Go value
	// Fill stores ("30d" into a duration); its error is reported at the
	// value (it names where, the key's path).
	Conv func(where string, x any) (any, error)
	// Ext is the owner's own declaration of the key, for its own Types
	// (a step field's: whether secrets may appear, the shape it yields).
	Ext any
}

// Object declares a map of keys.
type Object struct {
	Name   string // how messages and docs call it: "workflow", "param", "browser"
	Title  string // the schema's title
	Doc    string
	Fields []Field
	// Hint may explain an unknown key better than "did you mean" (a key
	// that belongs to another place, a word from another tool, which it
	// may rewrite with its value); "" falls back to the generic checks.
	// meant names the declared key it was taken for, if any.
	Hint func(key string, value *yaml.Node) (text, meant string)
	// Terse: an unknown key with no hint is reported without the list of
	// the known keys (a step's long form: its kind's docs list them).
	Terse bool
	// Elsewhere may say better what an unknown key is (a step's own keys
	// written inside its kind's map, a matcher that is not one): the whole
	// message, which replaces "unknown key"; "" to leave it to Hint and
	// the generic checks. where names the map.
	Elsewhere func(where, key string) string
	// Path names a key's value in messages (default: where.key).
	Path func(where, key string) string
	// Missing, when set, reports missing keys instead of the check of
	// Required ones (a step kind's one-of group, held back while a key is
	// misspelt); it runs once the keys are decoded.
	Missing func(v *Values, ps *lint.Problems)
}

// F is a float64 pointer, for Min and Max.
func F(v float64) *float64 { return &v }

// Field looks up a declared key.
func (o *Object) Field(name string) (*Field, bool) {
	for i := range o.Fields {
		if o.Fields[i].Name == name {
			return &o.Fields[i], true
		}
	}
	return nil, false
}

// Names returns the declared keys in order.
func (o *Object) Names() []string { return Names(o.Fields) }

// Names returns the names of fields, in order.
func Names(fields []Field) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f.Name
	}
	return out
}

// Values holds a decoded map: the keys as written and the values that
// decoded without problems.
type Values struct {
	File    string
	Where   string // the map's path in messages ("" at the top of a file)
	MapNode *yaml.Node
	Entries []yamlx.KV // known keys in written order (duplicates dropped)
	Unknown int        // how many keys were reported as not declared here
	obj     *Object
	kv      map[string]yamlx.KV
	val     map[string]any
	meant   map[string]bool // declared keys an unknown key was taken for
}

// Entry is one key of a Map with object values.
type Entry struct {
	yamlx.KV
	Values *Values // nil when the value did not decode
}

// Decoder is one decoding run: the file, where problems go, and the
// owner's state its own Types read (Env).
type Decoder struct {
	File     string
	Problems *lint.Problems
	Env      any
	parent   *Object
	pwhere   string
}

// Decode checks the mapping n against o, collecting every problem.
// It returns nil when n is not a map (reported).
func (o *Object) Decode(file string, n *yaml.Node, where string, ps *lint.Problems) *Values {
	return o.decode(&Decoder{File: file, Problems: ps}, n, where)
}

// DecodeWith is Decode in a decoding run whose Env the owner's Types read.
func (o *Object) DecodeWith(d *Decoder, n *yaml.Node, where string) *Values {
	return o.decode(d, n, where)
}

func (o *Object) decode(c *Decoder, n *yaml.Node, where string) *Values {
	kvs, ok := yamlx.Map(c.File, n, label(where, o), c.Problems)
	if !ok {
		return nil
	}
	v := &Values{File: c.File, Where: where, MapNode: yamlx.Resolve(n), obj: o, kv: map[string]yamlx.KV{}, val: map[string]any{}, meant: map[string]bool{}}
	for _, kv := range kvs {
		f, ok := o.Field(kv.Key)
		if !ok {
			o.unknown(c, v, kvs, kv, where)
			continue
		}
		v.Entries = append(v.Entries, kv)
		v.kv[kv.Key] = kv
		if f.Raw {
			continue
		}
		sub := &Decoder{File: c.File, Problems: c.Problems, Env: c.Env, parent: o, pwhere: where}
		if x, ok := f.decode(sub, kv.Value, o.path(where, kv.Key)); ok {
			v.val[kv.Key] = x
		}
	}
	if o.Missing != nil {
		o.Missing(v, c.Problems)
		return v
	}
	for _, f := range o.Fields {
		if f.Required && !v.Has(f.Name) && !v.meant[f.Name] {
			c.Problems.Addf(lint.At(c.File, v.MapNode), lint.Missing, "%s: missing %s (%s)", label(where, o), f.Name, f.Doc)
		}
	}
	return v
}

// unknown reports a key o does not declare: a value split at an unquoted
// comma, a key of another level, or a misspelling.
func (o *Object) unknown(c *Decoder, v *Values, kvs []yamlx.KV, kv yamlx.KV, where string) {
	if msg, split := yamlx.CommaSplit(kvs, kv); split {
		if msg != "" {
			v.Unknown++
			c.Problems.Addf(lint.At(c.File, kv.KeyN), lint.Syntax, "%s: %s", label(where, o), msg)
		}
		return
	}
	v.Unknown++
	if o.Elsewhere != nil {
		if msg := o.Elsewhere(label(where, o), kv.Key); msg != "" {
			c.Problems.Addf(lint.At(c.File, kv.KeyN), lint.UnknownKey, "%s", msg)
			return
		}
	}
	text, meant := o.explain(c, kv.Key, kv.Value)
	c.Problems.Addf(lint.At(c.File, kv.KeyN), lint.UnknownKey, "%s: unknown key %q%s", label(where, o), kv.Key, text)
	if meant != "" {
		v.meant[meant] = true
	}
}

// path names a key's value in messages.
func (o *Object) path(where, key string) string {
	if o.Path != nil {
		return o.Path(where, key)
	}
	return join(where, key)
}

func join(where, key string) string {
	if where == "" {
		return key
	}
	return where + "." + key
}

// label names a map in messages: its path, or at the top of a file the
// object's name.
func label(where string, o *Object) string {
	if where == "" {
		return o.Name
	}
	return where
}

// Meant reports whether an unknown key was reported as a misspelling of
// name, so the owner does not also report name as missing.
func (v *Values) Meant(name string) bool {
	return v != nil && v.meant[name]
}

// explain says what an unknown key probably is: a near spelling or a word
// from elsewhere, a key of the map below or above, or the keys there are.
// The second result is the declared key it was taken for, if any.
func (o *Object) explain(c *Decoder, key string, value *yaml.Node) (string, string) {
	if o.Hint != nil {
		if h, meant := o.Hint(key, value); h != "" {
			return h, meant
		}
	}
	if s := lint.Closest(key, o.Names()); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s), s
	}
	for _, f := range o.Fields {
		if child := f.child(); child != nil {
			if _, ok := child.Field(key); ok {
				if f.Type == Map || f.Type == List {
					return fmt.Sprintf(" (%s is a key of each entry under %s: indent it under the entry's name)", key, f.Name), ""
				}
				return fmt.Sprintf(" (%s belongs under %s: write it one level down)", key, f.Name), ""
			}
		}
	}
	if c.parent != nil {
		if _, ok := c.parent.Field(key); ok {
			return fmt.Sprintf(" (%s belongs one level up, beside the keys of %s)", key, label(c.pwhere, c.parent)), ""
		}
	}
	if o.Terse {
		return "", ""
	}
	return fmt.Sprintf(" (known keys: %s)", strings.Join(o.Names(), ", ")), ""
}

// child is the object below a field, if any.
func (f *Field) child() *Object {
	switch {
	case f.Type == Nested:
		return f.Obj
	case (f.Type == Map || f.Type == List) && f.Elem != nil && f.Elem.Type == Nested:
		return f.Elem.Obj
	}
	return nil
}

var (
	patMu sync.Mutex
	pats  = map[string]*regexp.Regexp{}
)

func pattern(p string) *regexp.Regexp {
	patMu.Lock()
	defer patMu.Unlock()
	re, ok := pats[p]
	if !ok {
		re = regexp.MustCompile(p)
		pats[p] = re
	}
	return re
}

// Check decodes one value of this field on its own (a list item, a value
// the owner reads itself), reporting problems against where.
func (f *Field) Check(file string, n *yaml.Node, where string, ps *lint.Problems) (any, bool) {
	return f.decode(&Decoder{File: file, Problems: ps}, n, where)
}

func (f *Field) decode(c *Decoder, n *yaml.Node, where string) (any, bool) {
	if f.Type == nil {
		return n, true
	}
	return f.Type.Decode(c, f, n, where)
}

func (f *Field) inRange(c *Decoder, n *yaml.Node, where string, x float64) bool {
	file, ps := c.File, c.Problems
	switch {
	case f.Min != nil && x < *f.Min:
		if f.Max != nil {
			ps.Addf(lint.At(file, n), lint.BadValue, "%s must be between %v and %v, found %v", where, *f.Min, *f.Max, x)
		} else {
			ps.Addf(lint.At(file, n), lint.BadValue, "%s must be at least %v, found %v", where, *f.Min, x)
		}
		return false
	case f.Max != nil && x > *f.Max:
		if f.Min != nil {
			ps.Addf(lint.At(file, n), lint.Unbounded, "%s must be between %v and %v, found %v", where, *f.Min, *f.Max, x)
		} else {
			ps.Addf(lint.At(file, n), lint.Unbounded, "%s must be at most %v, found %v", where, *f.Max, x)
		}
		return false
	}
	return true
}

// OrList writes "a, b or c", as messages name the values of an enum.
func OrList(list []string) string {
	switch len(list) {
	case 0:
		return ""
	case 1:
		return list[0]
	}
	return strings.Join(list[:len(list)-1], ", ") + " or " + list[len(list)-1]
}

// Has reports whether the key was written (with any value).
func (v *Values) Has(name string) bool {
	if v == nil {
		return false
	}
	v.declared(name)
	_, ok := v.kv[name]
	return ok
}

// OK reports whether the key was written and its value decoded.
func (v *Values) OK(name string) bool {
	if v == nil {
		return false
	}
	v.declared(name)
	_, ok := v.val[name]
	return ok
}

// KV returns the key and value nodes as written.
func (v *Values) KV(name string) (yamlx.KV, bool) {
	if v == nil {
		return yamlx.KV{}, false
	}
	v.declared(name)
	kv, ok := v.kv[name]
	return kv, ok
}

// Node returns the value node of a key (nil when absent).
func (v *Values) Node(name string) *yaml.Node {
	kv, _ := v.KV(name)
	return kv.Value
}

// Pos is the position of a key's value, or of the map when it is absent.
func (v *Values) Pos(name string) lint.Pos {
	if kv, ok := v.KV(name); ok {
		return lint.At(v.File, kv.Value)
	}
	return lint.At(v.File, v.MapNode)
}

// KeyPos is the position of a key, or of the map when it is absent.
func (v *Values) KeyPos(name string) lint.Pos {
	if kv, ok := v.KV(name); ok {
		return lint.At(v.File, kv.KeyN)
	}
	return lint.At(v.File, v.MapNode)
}

// declared panics when a decoder reads a key its declaration lacks: the
// declaration is the one list, and a test load finds the drift at once.
func (v *Values) declared(name string) {
	if _, ok := v.obj.Field(name); !ok {
		panic(fmt.Sprintf("decl: %s has no declared key %q", v.obj.Name, name))
	}
}

func (v *Values) get(name string) (any, bool) {
	if v == nil {
		return nil, false
	}
	v.declared(name)
	x, ok := v.val[name]
	return x, ok
}

// Str returns a String or Enum value, or def.
func (v *Values) Str(name, def string) string {
	if x, ok := v.get(name); ok {
		return x.(string)
	}
	return def
}

// Bool returns a Bool value, or def.
func (v *Values) Bool(name string, def bool) bool {
	if x, ok := v.get(name); ok {
		return x.(bool)
	}
	return def
}

// Int returns an Int value, or def.
func (v *Values) Int(name string, def int) int {
	if x, ok := v.get(name); ok {
		return x.(int)
	}
	return def
}

// Float returns a Number value.
func (v *Values) Float(name string) (float64, bool) {
	x, ok := v.get(name)
	if !ok {
		return 0, false
	}
	return x.(float64), true
}

// Dur returns a Duration value, or def.
func (v *Values) Dur(name string, def time.Duration) time.Duration {
	if x, ok := v.get(name); ok {
		return x.(time.Duration)
	}
	return def
}

// Strings returns a List of String values (nil when absent or bad).
func (v *Values) Strings(name string) []string {
	if x, ok := v.get(name); ok {
		s, _ := x.([]string)
		return s
	}
	return nil
}

// Sub returns a nested Object (nil when absent or bad).
func (v *Values) Sub(name string) *Values {
	if x, ok := v.get(name); ok {
		return x.(*Values)
	}
	return nil
}

// Entries returns a Map of Object values in written order.
func (v *Values) Map(name string) []Entry {
	if x, ok := v.get(name); ok {
		e, _ := x.([]Entry)
		return e
	}
	return nil
}

// Pairs returns a Map of Any values (or a Map whose Elem is nil) in written order.
func (v *Values) Pairs(name string) []yamlx.KV {
	if x, ok := v.get(name); ok {
		kv, _ := x.([]yamlx.KV)
		return kv
	}
	return nil
}

// Value returns a key's value as its Type decoded it.
func (v *Values) Value(name string) (any, bool) { return v.get(name) }

// Get returns the decoded value as Go values: strings, numbers, booleans,
// durations, lists; for Any or Raw fields, the plain value of the node.
func (v *Values) Get(name string) (any, bool) {
	if x, ok := v.get(name); ok {
		if n, isNode := x.(*yaml.Node); isNode {
			return yamlx.Value(n), true
		}
		return x, true
	}
	if kv, ok := v.KV(name); ok {
		return yamlx.Value(kv.Value), true
	}
	return nil, false
}

// Describe the default for docs.
func defaultText(d any) string {
	switch x := d.(type) {
	case nil:
		return ""
	case string:
		if x == "" {
			return `""`
		}
		return x
	case time.Duration:
		return x.String()
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = k + ": " + defaultText(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return fmt.Sprint(d)
}

// Declares reports whether the object behind v declares name (for owners
// that decode two related objects with one function).
func (v *Values) Declares(name string) bool {
	_, ok := v.obj.Field(name)
	return ok
}
