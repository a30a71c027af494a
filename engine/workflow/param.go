package workflow

import (
	"fmt"
	"math"
	"net/url"
	"regexp"
	"slices"
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
	pv := &paramVals{Values: v, where: where, keyN: keyN, applies: keysFor(p.Type)}
	for _, kv := range v.Entries {
		f, _ := obj.Field(kv.Key)
		if len(f.For) > 0 && !slices.Contains(pv.applies, kv.Key) {
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
	switch p.Type {
	case TInteger, TNumber:
		d.paramNumbers(p, pv)
	case TString:
		d.paramString(p, pv)
	case TArray:
		d.paramArray(p, pv)
	case TTarget:
		d.paramTarget(p, pv)
	}
	if kv, ok := v.KV("enum"); ok && slices.Contains(pv.applies, "enum") {
		d.paramEnum(p, pv, kv)
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

// paramVals is a decoded parameter with what its rules' messages need.
type paramVals struct {
	*decl.Values
	where   string
	keyN    *yaml.Node // the parameter's name, where problems of the whole are reported
	applies []string   // the keys of its type
}

// has reports whether key applies to the type and was written well.
func (pv *paramVals) has(key string) bool { return slices.Contains(pv.applies, key) && pv.OK(key) }

// paramNumbers reads an integer's or a number's min and max (both required).
func (d *decoder) paramNumbers(p *Param, pv *paramVals) {
	num := func(key string) *float64 {
		if !pv.has(key) {
			return nil
		}
		x, _ := pv.Float(key)
		if p.Type == TInteger && x != math.Trunc(x) {
			d.ps.Addf(pv.Pos(key), lint.BadValue, "%s: %s must be a whole number for an integer", pv.where, key)
		}
		return &x
	}
	p.Min, p.Max = num("min"), num("max")
	written := func(k string) bool { return pv.Has(k) || pv.Meant(k) }
	if !written("min") || !written("max") {
		d.ps.Addf(d.pos(pv.keyN), lint.Unbounded, "%s: %s needs both min and max, so no unbounded number reaches a workflow", pv.where, map[string]string{TInteger: "an integer", TNumber: "a number"}[p.Type])
	} else if p.Min != nil && p.Max != nil && *p.Min > *p.Max {
		d.ps.Addf(d.pos(pv.keyN), lint.BadValue, "%s: min %v is greater than max %v", pv.where, *p.Min, *p.Max)
	}
}

// paramString reads a string's lengths, pattern, format and enum_from.
func (d *decoder) paramString(p *Param, pv *paramVals) {
	p.MaxLength = pv.Int("max_length", DefaultMaxLength)
	if pv.has("min_length") {
		ml := pv.Int("min_length", 0)
		p.MinLength = &ml
		if ml > p.MaxLength {
			d.ps.Addf(pv.Pos("min_length"), lint.BadValue, "%s: min_length %d is greater than max_length %d", pv.where, ml, p.MaxLength)
		}
	}
	if pv.has("pattern") {
		s := pv.Str("pattern", "")
		re, err := regexp.Compile(s)
		if err != nil {
			d.ps.Addf(pv.Pos("pattern"), lint.BadValue, "%s: pattern is not a valid RE2 expression: %v", pv.where, err)
		} else {
			p.Pattern, p.re = s, re
		}
	}
	p.Format = pv.Str("format", "")
	if pv.has("enum_from") {
		p.EnumFrom = pv.Str("enum_from", "")
		for _, r := range d.cfg.RegionNames() {
			p.Enum = append(p.Enum, r)
		}
	}
}

// paramArray reads an array's items spec and max_items (both required).
func (d *decoder) paramArray(p *Param, pv *paramVals) {
	if kv, ok := pv.KV("items"); ok {
		p.Items = d.decodeParam(p.Name, kv.KeyN, kv.Value, true)
	} else if !pv.Meant("items") {
		d.ps.Addf(d.pos(pv.keyN), lint.Missing, "%s: an array needs items (a scalar parameter spec)", pv.where)
	}
	if pv.has("max_items") {
		p.MaxItems = pv.Int("max_items", 0)
		if p.MaxItems > d.cfg.Limits.MaxListItems {
			d.ps.Addf(pv.Pos("max_items"), lint.Unbounded, "%s: max_items %d is above limits.max_list_items (%d)", pv.where, p.MaxItems, d.cfg.Limits.MaxListItems)
		}
	} else if !pv.Has("max_items") && !pv.Meant("max_items") {
		d.ps.Addf(d.pos(pv.keyN), lint.Unbounded, "%s: an array needs max_items", pv.where)
	}
}

// paramTarget reads a target parameter's prefix: its values are the
// selector-map targets starting with it.
func (d *decoder) paramTarget(p *Param, pv *paramVals) {
	if !pv.Has("prefix") {
		if !pv.Meant("prefix") {
			d.ps.Addf(d.pos(pv.keyN), lint.Missing, "%s: a target parameter needs a prefix (its allowed values are the selector-map targets starting with it)", pv.where)
		}
		return
	}
	if pv.has("prefix") {
		p.Prefix = pv.Str("prefix", "")
		for _, t := range d.sel.WithPrefix(p.Prefix) {
			p.Enum = append(p.Enum, t)
		}
		if len(p.Enum) == 0 {
			d.ps.Addf(pv.Pos("prefix"), lint.UnknownRef, "%s: no selector-map target starts with %q%s", pv.where, p.Prefix, lint.Suggest(p.Prefix, d.sel.Names()))
		}
	}
}

// paramEnum reads enum: each value must pass the parameter's other rules.
func (d *decoder) paramEnum(p *Param, pv *paramVals, kv yamlx.KV) {
	if p.EnumFrom != "" {
		d.ps.Addf(d.pos(kv.KeyN), lint.BadValue, "%s: give enum or enum_from, not both", pv.where)
		return
	}
	vn := yamlx.Resolve(kv.Value)
	if vn == nil || vn.Kind != yaml.SequenceNode || len(vn.Content) == 0 {
		d.ps.Addf(d.pos(kv.Value), lint.BadValue, "%s: enum must be a non-empty list", pv.where)
		return
	}
	// p.Enum is set after, so a value is never checked against the list
	// being built.
	var values []any
	for _, c := range vn.Content {
		x := yamlx.Value(c)
		if msg := p.check(x); msg != "" {
			d.ps.Addf(d.pos(c), lint.BadValue, "%s: enum value %v: %s", pv.where, x, msg)
			continue
		}
		values = append(values, normalize(p.Type, x))
	}
	p.Enum = values
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

func defaultKV(v *decl.Values) (yamlx.KV, bool) {
	if !v.Declares("default") {
		return yamlx.KV{}, false
	}
	return v.KV("default")
}
