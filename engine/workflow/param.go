package workflow

import (
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/toolwright/toolwright/engine/decl"
	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/yamlx"
	"gopkg.in/yaml.v3"
)

// Param types.
const (
	TString  = "string"
	TInteger = "integer"
	TNumber  = "number"
	TBoolean = "boolean"
	TArray   = "array"
	TTarget  = "target"
)

var paramTypes = []string{TString, TInteger, TNumber, TBoolean, TArray, TTarget}

// DefaultMaxLength bounds strings that declare no max_length.
const DefaultMaxLength = 1000

// Param is one declared parameter.
type Param struct {
	Name        string
	Type        string
	Description string
	Required    bool
	Default     any
	HasDefault  bool
	Enum        []any
	EnumFrom    string
	Min, Max    *float64
	MinLength   *int
	MaxLength   int
	Pattern     string
	Format      string
	Items       *Param
	MaxItems    int
	Prefix      string
	Pos         lint.Pos

	re *regexp.Regexp
}

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// decodeParam reads one parameter. item is true for an array's items spec.
func (d *decoder) decodeParam(name string, keyN, n *yaml.Node, item bool) *Param {
	where := "params." + name
	obj := ParamDecl
	if item {
		where += ".items"
		obj = ItemDecl
	}
	p := &Param{Name: name, Pos: d.pos(keyN)}
	v := obj.Decode(d.file, n, where, d.ps)
	if v == nil {
		return nil
	}
	p.Type = v.Str("type", "")
	if p.Type == "" {
		return nil // missing or not a type: reported, and the type's rules cannot be checked
	}
	applies := keysFor(p.Type)
	for _, kv := range v.Entries {
		f, _ := obj.Field(kv.Key)
		if len(f.For) > 0 && !contains(applies, kv.Key) {
			d.ps.Addf(d.pos(kv.KeyN), lint.UnknownKey, "%s: %s does not apply to type %s (it is for %s)", where, kv.Key, p.Type, strings.Join(f.For, ", "))
		}
	}
	p.Description = v.Str("description", "")
	if v.OK("description") && strings.TrimSpace(p.Description) == "" {
		d.ps.Addf(v.Pos("description"), lint.Missing, "%s: description is empty (the agent reads it to choose a value)", where)
	}
	if v.Declares("required") {
		p.Required = v.Bool("required", false)
	}
	has := func(key string) bool { return contains(applies, key) && v.OK(key) }
	num := func(key string) *float64 {
		if !has(key) {
			return nil
		}
		x, _ := v.Float(key)
		if p.Type == TInteger && x != math.Trunc(x) {
			d.ps.Addf(v.Pos(key), lint.BadValue, "%s: %s must be a whole number for an integer", where, key)
		}
		return &x
	}
	switch p.Type {
	case TInteger, TNumber:
		p.Min, p.Max = num("min"), num("max")
		written := func(k string) bool { return v.Has(k) || v.Meant(k) }
		if !written("min") || !written("max") {
			d.ps.Addf(d.pos(keyN), lint.Unbounded, "%s: %s needs both min and max, so no unbounded number reaches a workflow", where, map[string]string{TInteger: "an integer", TNumber: "a number"}[p.Type])
		} else if p.Min != nil && p.Max != nil && *p.Min > *p.Max {
			d.ps.Addf(d.pos(keyN), lint.BadValue, "%s: min %v is greater than max %v", where, *p.Min, *p.Max)
		}
	case TString:
		p.MaxLength = v.Int("max_length", DefaultMaxLength)
		if has("min_length") {
			ml := v.Int("min_length", 0)
			p.MinLength = &ml
			if ml > p.MaxLength {
				d.ps.Addf(v.Pos("min_length"), lint.BadValue, "%s: min_length %d is greater than max_length %d", where, ml, p.MaxLength)
			}
		}
		if has("pattern") {
			s := v.Str("pattern", "")
			re, err := regexp.Compile(s)
			if err != nil {
				d.ps.Addf(v.Pos("pattern"), lint.BadValue, "%s: pattern is not a valid RE2 expression: %v", where, err)
			} else {
				p.Pattern, p.re = s, re
			}
		}
		p.Format = v.Str("format", "")
		if has("enum_from") {
			p.EnumFrom = v.Str("enum_from", "")
			for _, r := range d.cfg.RegionNames() {
				p.Enum = append(p.Enum, r)
			}
		}
	case TArray:
		if kv, ok := v.KV("items"); ok {
			p.Items = d.decodeParam(name, kv.KeyN, kv.Value, true)
		} else if !v.Meant("items") {
			d.ps.Addf(d.pos(keyN), lint.Missing, "%s: an array needs items (a scalar parameter spec)", where)
		}
		if has("max_items") {
			p.MaxItems = v.Int("max_items", 0)
			if p.MaxItems > d.cfg.Limits.MaxListItems {
				d.ps.Addf(v.Pos("max_items"), lint.Unbounded, "%s: max_items %d is above limits.max_list_items (%d)", where, p.MaxItems, d.cfg.Limits.MaxListItems)
			}
		} else if !v.Has("max_items") && !v.Meant("max_items") {
			d.ps.Addf(d.pos(keyN), lint.Unbounded, "%s: an array needs max_items", where)
		}
	case TTarget:
		if !v.Has("prefix") {
			if !v.Meant("prefix") {
				d.ps.Addf(d.pos(keyN), lint.Missing, "%s: a target parameter needs a prefix (its allowed values are the selector-map targets starting with it)", where)
			}
			break
		}
		if has("prefix") {
			p.Prefix = v.Str("prefix", "")
			for _, t := range d.sel.WithPrefix(p.Prefix) {
				p.Enum = append(p.Enum, t)
			}
			if len(p.Enum) == 0 {
				d.ps.Addf(v.Pos("prefix"), lint.UnknownRef, "%s: no selector-map target starts with %q%s", where, p.Prefix, lint.Suggest(p.Prefix, d.sel.Names()))
			}
		}
	}
	if kv, ok := v.KV("enum"); ok && contains(applies, "enum") {
		if p.EnumFrom != "" {
			d.ps.Addf(d.pos(kv.KeyN), lint.BadValue, "%s: give enum or enum_from, not both", where)
		} else if vn := yamlx.Resolve(kv.Value); vn == nil || vn.Kind != yaml.SequenceNode || len(vn.Content) == 0 {
			d.ps.Addf(d.pos(kv.Value), lint.BadValue, "%s: enum must be a non-empty list", where)
		} else {
			// Each value must pass the other rules; p.Enum is set after, so
			// a value is never checked against the list being built.
			var values []any
			for _, c := range vn.Content {
				x := yamlx.Value(c)
				if msg := p.check(x); msg != "" {
					d.ps.Addf(d.pos(c), lint.BadValue, "%s: enum value %v: %s", where, x, msg)
					continue
				}
				values = append(values, normalize(p.Type, x))
			}
			p.Enum = values
		}
	}
	if kv, ok := defaultKV(v); ok {
		x := yamlx.Value(kv.Value)
		if msg := p.check(x); msg != "" {
			d.ps.Addf(d.pos(kv.Value), lint.BadValue, "%s: default %s", where, msg)
		} else {
			p.Default, p.HasDefault = normalize(p.Type, x), true
		}
		if p.Required {
			d.ps.Addf(v.Pos("required"), lint.BadValue, "%s: a parameter with a default is never required; drop required: true", where)
			p.Required = false
		}
	}
	return p
}

// normalize turns YAML numbers into the type the schema expects.
func normalize(typ string, v any) any {
	if typ == TNumber {
		if i, ok := v.(int); ok {
			return float64(i)
		}
	}
	return v
}

// check returns "" when v passes the parameter's rules, or what is wrong.
// It checks defaults and enum values at load time; call arguments go
// through the generated JSON schema.
func (p *Param) check(v any) string {
	switch p.Type {
	case TString, TTarget:
		s, ok := v.(string)
		if !ok {
			return fmt.Sprintf("must be a string, found %v", v)
		}
		n := utf8.RuneCountInString(s)
		if p.MaxLength > 0 && n > p.MaxLength {
			return fmt.Sprintf("is longer than max_length %d", p.MaxLength)
		}
		if p.MinLength != nil && n < *p.MinLength {
			return fmt.Sprintf("is shorter than min_length %d", *p.MinLength)
		}
		if p.re != nil && !p.re.MatchString(s) {
			return fmt.Sprintf("does not match pattern %s", p.Pattern)
		}
		if p.Format == "url" && s != "" {
			u, err := url.Parse(s)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return fmt.Sprintf("%q is not an http(s) URL", s)
			}
		}
	case TInteger:
		i, ok := v.(int)
		if !ok {
			return fmt.Sprintf("must be a whole number, found %v", v)
		}
		return p.inRange(float64(i))
	case TNumber:
		switch x := v.(type) {
		case int:
			return p.inRange(float64(x))
		case float64:
			return p.inRange(x)
		}
		return fmt.Sprintf("must be a number, found %v", v)
	case TBoolean:
		if _, ok := v.(bool); !ok {
			return fmt.Sprintf("must be true or false, found %v", v)
		}
	case TArray:
		list, ok := v.([]any)
		if !ok {
			return fmt.Sprintf("must be a list, found %v", v)
		}
		if p.MaxItems > 0 && len(list) > p.MaxItems {
			return fmt.Sprintf("has more than max_items %d", p.MaxItems)
		}
		if p.Items != nil {
			for _, it := range list {
				if msg := p.Items.check(it); msg != "" {
					return "item " + msg
				}
			}
		}
	}
	if len(p.Enum) > 0 {
		for _, e := range p.Enum {
			if fmt.Sprint(e) == fmt.Sprint(v) {
				return ""
			}
		}
		return fmt.Sprintf("%v is not one of %v", v, p.Enum)
	}
	return ""
}

func (p *Param) inRange(f float64) string {
	if p.Min != nil && f < *p.Min {
		return fmt.Sprintf("%v is below min %v", f, *p.Min)
	}
	if p.Max != nil && f > *p.Max {
		return fmt.Sprintf("%v is above max %v", f, *p.Max)
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func defaultKV(v *decl.Values) (yamlx.KV, bool) {
	if !v.Declares("default") {
		return yamlx.KV{}, false
	}
	return v.KV("default")
}
