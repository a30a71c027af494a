package workflow

import (
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"

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

var paramKeys = []string{"type", "description", "required", "default", "enum", "enum_from", "min", "max", "min_length", "max_length", "pattern", "format", "items", "max_items", "prefix"}

// keysFor says which keys each type accepts, for precise messages.
var keysFor = map[string][]string{
	TString:  {"enum", "enum_from", "min_length", "max_length", "pattern", "format"},
	TInteger: {"enum", "min", "max"},
	TNumber:  {"min", "max"},
	TBoolean: {},
	TArray:   {"items", "max_items"},
	TTarget:  {"prefix"},
}

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// decodeParam reads one parameter. item is true for an array's items spec.
func (d *decoder) decodeParam(name string, keyN, n *yaml.Node, item bool) *Param {
	where := fmt.Sprintf("param %q", name)
	if item {
		where += " items"
	}
	p := &Param{Name: name, Pos: d.pos(keyN)}
	kvs, ok := yamlx.Map(d.file, n, where, d.ps)
	if !ok {
		return nil
	}
	yamlx.Known(d.file, kvs, paramKeys, where, d.ps)
	get := map[string]yamlx.KV{}
	for _, kv := range kvs {
		get[kv.Key] = kv
	}
	if kv, ok := get["type"]; ok {
		if s, ok := yamlx.String(d.file, kv.Value, where+" type", d.ps); ok {
			if !contains(paramTypes, s) {
				d.ps.Addf(d.pos(kv.Value), lint.BadValue, "%s: type must be one of %s, found %q%s", where, strings.Join(paramTypes, ", "), s, lint.Suggest(s, paramTypes))
				return nil
			}
			p.Type = s
		}
	} else {
		d.ps.Addf(d.pos(keyN), lint.Missing, "%s: missing type (one of %s)", where, strings.Join(paramTypes, ", "))
		return nil
	}
	if p.Type == "" {
		return nil
	}
	if item && (p.Type == TArray || p.Type == TTarget) {
		d.ps.Addf(d.pos(get["type"].Value), lint.BadValue, "%s: items must be a scalar type (string, integer, number or boolean)", where)
		return nil
	}
	for _, kv := range kvs {
		switch kv.Key {
		case "type", "description", "required", "default":
			continue
		}
		if !contains(keysFor[p.Type], kv.Key) {
			d.ps.Addf(d.pos(kv.KeyN), lint.UnknownKey, "%s: %s does not apply to type %s", where, kv.Key, p.Type)
		}
	}
	if kv, ok := get["description"]; ok {
		p.Description, _ = yamlx.String(d.file, kv.Value, where+" description", d.ps)
	}
	if strings.TrimSpace(p.Description) == "" && !item {
		d.ps.Addf(d.pos(keyN), lint.Missing, "%s: missing description (the agent reads it to choose a value)", where)
	}
	if kv, ok := get["required"]; ok {
		p.Required, _ = yamlx.Bool(d.file, kv.Value, where+" required", d.ps)
	}
	num := func(key string) *float64 {
		kv, ok := get[key]
		if !ok || !contains(keysFor[p.Type], key) {
			return nil
		}
		v, ok := yamlx.Number(d.file, kv.Value, where+" "+key, d.ps)
		if !ok {
			return nil
		}
		if p.Type == TInteger && v != math.Trunc(v) {
			d.ps.Addf(d.pos(kv.Value), lint.BadValue, "%s: %s must be a whole number for an integer", where, key)
		}
		return &v
	}
	integer := func(key string) (int, bool) {
		kv, ok := get[key]
		if !ok || !contains(keysFor[p.Type], key) {
			return 0, false
		}
		v, ok := yamlx.Int(d.file, kv.Value, where+" "+key, d.ps)
		if ok && v < 0 {
			d.ps.Addf(d.pos(kv.Value), lint.BadValue, "%s: %s must not be negative", where, key)
			return 0, false
		}
		return v, ok
	}
	switch p.Type {
	case TInteger, TNumber:
		p.Min, p.Max = num("min"), num("max")
		if p.Min == nil || p.Max == nil {
			d.ps.Addf(d.pos(keyN), lint.Unbounded, "%s: %s needs both min and max, so no unbounded number reaches a workflow", where, map[string]string{TInteger: "an integer", TNumber: "a number"}[p.Type])
		} else if *p.Min > *p.Max {
			d.ps.Addf(d.pos(keyN), lint.BadValue, "%s: min %v is greater than max %v", where, *p.Min, *p.Max)
		}
	case TString:
		p.MaxLength = DefaultMaxLength
		if v, ok := integer("max_length"); ok {
			p.MaxLength = v
		}
		if v, ok := integer("min_length"); ok {
			p.MinLength = &v
			if v > p.MaxLength {
				d.ps.Addf(d.pos(get["min_length"].Value), lint.BadValue, "%s: min_length %d is greater than max_length %d", where, v, p.MaxLength)
			}
		}
		if kv, ok := get["pattern"]; ok {
			if s, ok := yamlx.String(d.file, kv.Value, where+" pattern", d.ps); ok {
				re, err := regexp.Compile(s)
				if err != nil {
					d.ps.Addf(d.pos(kv.Value), lint.BadValue, "%s: pattern is not a valid RE2 expression: %v", where, err)
				} else {
					p.Pattern, p.re = s, re
				}
			}
		}
		if kv, ok := get["format"]; ok {
			if s, ok := yamlx.String(d.file, kv.Value, where+" format", d.ps); ok {
				if s != "url" {
					d.ps.Addf(d.pos(kv.Value), lint.BadValue, "%s: format must be url, found %q", where, s)
				} else {
					p.Format = s
				}
			}
		}
		if kv, ok := get["enum_from"]; ok {
			if s, ok := yamlx.String(d.file, kv.Value, where+" enum_from", d.ps); ok {
				if s != "regions" {
					d.ps.Addf(d.pos(kv.Value), lint.BadValue, "%s: enum_from must be regions, found %q", where, s)
				} else {
					p.EnumFrom = s
					for _, r := range d.cfg.RegionNames() {
						p.Enum = append(p.Enum, r)
					}
				}
			}
		}
	case TArray:
		if kv, ok := get["items"]; ok {
			p.Items = d.decodeParam(name, kv.KeyN, kv.Value, true)
		} else {
			d.ps.Addf(d.pos(keyN), lint.Missing, "%s: an array needs items (a scalar parameter spec)", where)
		}
		if v, ok := integer("max_items"); ok {
			p.MaxItems = v
			if v > d.cfg.Limits.MaxListItems {
				d.ps.Addf(d.pos(get["max_items"].Value), lint.Unbounded, "%s: max_items %d is above limits.max_list_items (%d)", where, v, d.cfg.Limits.MaxListItems)
			}
		} else {
			d.ps.Addf(d.pos(keyN), lint.Unbounded, "%s: an array needs max_items", where)
		}
	case TTarget:
		kv, ok := get["prefix"]
		if !ok {
			d.ps.Addf(d.pos(keyN), lint.Missing, "%s: a target parameter needs a prefix (its allowed values are the selector-map targets starting with it)", where)
			break
		}
		if s, ok := yamlx.String(d.file, kv.Value, where+" prefix", d.ps); ok {
			p.Prefix = s
			for _, t := range d.sel.WithPrefix(s) {
				p.Enum = append(p.Enum, t)
			}
			if len(p.Enum) == 0 {
				d.ps.Addf(d.pos(kv.Value), lint.UnknownRef, "%s: no selector-map target starts with %q", where, s)
			}
		}
	}
	if kv, ok := get["enum"]; ok && contains(keysFor[p.Type], "enum") {
		if p.EnumFrom != "" {
			d.ps.Addf(d.pos(kv.KeyN), lint.BadValue, "%s: give enum or enum_from, not both", where)
		} else if vn := yamlx.Resolve(kv.Value); vn == nil || vn.Kind != yaml.SequenceNode || len(vn.Content) == 0 {
			d.ps.Addf(d.pos(kv.Value), lint.BadValue, "%s: enum must be a non-empty list", where)
		} else {
			// Each value must pass the other rules; p.Enum is set after, so
			// a value is never checked against the list being built.
			var values []any
			for _, c := range vn.Content {
				v := yamlx.Value(c)
				if msg := p.check(v); msg != "" {
					d.ps.Addf(d.pos(c), lint.BadValue, "%s: enum value %v: %s", where, v, msg)
					continue
				}
				values = append(values, normalize(p.Type, v))
			}
			p.Enum = values
		}
	}
	if kv, ok := get["default"]; ok {
		v := yamlx.Value(kv.Value)
		if msg := p.check(v); msg != "" {
			d.ps.Addf(d.pos(kv.Value), lint.BadValue, "%s: default %s", where, msg)
		} else {
			p.Default, p.HasDefault = normalize(p.Type, v), true
		}
		if p.Required {
			d.ps.Addf(d.pos(get["required"].Value), lint.BadValue, "%s: a parameter with a default is never required; drop required: true", where)
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
