package decl

import (
	"fmt"
	"path/filepath"
	"reflect"

	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/yamlx"
)

// Fill sets the struct dst points to from v, so a Go struct is filled
// from its declaration instead of by a hand switch: each struct field
// tagged `decl:"key"` gets key's decoded value, or the key's Default when
// it is absent or its value did not decode. v may be nil (defaults only).
// A Nested key fills a struct (or a pointer to one, made when the key is
// written); a Map of Nested values fills a map of structs; a Map of Any
// values a map[string]any. A Raw key gets only its Default: its owner
// decodes a written value itself. Path keys are made absolute against
// dir; Conv turns a value into the struct's (an error is reported at the
// value). A tag naming an undeclared key panics: the declaration is the
// one list.
func (o *Object) Fill(v *Values, dst any, dir string, ps *lint.Problems) {
	o.fill(v, reflect.ValueOf(dst).Elem(), dir, ps)
}

func (o *Object) fill(v *Values, rv reflect.Value, dir string, ps *lint.Problems) {
	rt := rv.Type()
	for i := 0; i < rt.NumField(); i++ {
		key := rt.Field(i).Tag.Get("decl")
		if key == "" {
			continue
		}
		f, ok := o.Field(key)
		if !ok {
			panic(fmt.Sprintf("decl: %s.%s is tagged %q, which %s does not declare", rt.Name(), rt.Field(i).Name, key, o.Name))
		}
		f.fill(v, rv.Field(i), dir, ps)
	}
}

func (f *Field) fill(v *Values, dst reflect.Value, dir string, ps *lint.Problems) {
	x, written := any(nil), false
	if v != nil && !f.Raw {
		x, written = v.val[f.Name]
	}
	if written && f.Path && x == "" {
		written = false // an empty path is the default
	}
	if !written {
		if f.Default == nil {
			if f.Type == Nested && dst.Kind() == reflect.Struct {
				f.Obj.fill(nil, dst, dir, ps)
			}
			return
		}
		x = f.Default
	}
	if f.Conv != nil {
		where := f.Name
		if v != nil {
			where = join(v.Where, f.Name)
		}
		y, err := f.Conv(where, x)
		if err != nil {
			if !written {
				panic(fmt.Sprintf("decl: the default of %s does not convert: %v", f.Name, err))
			}
			ps.Addf(v.Pos(f.Name), lint.BadValue, "%v", err)
			return
		}
		x = y
	}
	f.set(x, dst, dir, ps)
}

// set stores one value (decoded, or a Default) into dst.
func (f *Field) set(x any, dst reflect.Value, dir string, ps *lint.Problems) {
	switch val := x.(type) {
	case *Values:
		if dst.Kind() == reflect.Pointer {
			dst.Set(reflect.New(dst.Type().Elem()))
			dst = dst.Elem()
		}
		f.Obj.fill(val, dst, dir, ps)
		return
	case map[string]any:
		f.setMap(val, dst, dir, ps)
		return
	case []Entry:
		m := reflect.MakeMapWithSize(dst.Type(), len(val))
		for _, e := range val {
			ev := reflect.New(dst.Type().Elem()).Elem()
			f.Elem.Obj.fill(e.Values, ev, dir, ps)
			m.SetMapIndex(reflect.ValueOf(e.Key), ev)
		}
		dst.Set(m)
		return
	case []yamlx.KV:
		m := make(map[string]any, len(val))
		for _, kv := range val {
			m[kv.Key] = yamlx.Value(kv.Value)
		}
		dst.Set(reflect.ValueOf(m))
		return
	case []string:
		dst.Set(reflect.ValueOf(append([]string(nil), val...)))
		return
	case string:
		if f.Path && val != "" && !filepath.IsAbs(val) {
			x = filepath.Join(dir, val)
		}
	}
	dst.Set(reflect.ValueOf(x).Convert(dst.Type()))
}

// setMap stores a Default written as a map: the keys of a Nested value
// (a struct), or the entries of a Map (each a map of its keys when the
// values are Nested).
func (f *Field) setMap(m map[string]any, dst reflect.Value, dir string, ps *lint.Problems) {
	switch {
	case f.Type == Nested:
		if dst.Kind() == reflect.Pointer {
			dst.Set(reflect.New(dst.Type().Elem()))
			dst = dst.Elem()
		}
		f.Obj.fill(nil, dst, dir, ps)
		rt := dst.Type()
		for i := 0; i < rt.NumField(); i++ {
			key := rt.Field(i).Tag.Get("decl")
			if x, ok := m[key]; ok && key != "" {
				sub, _ := f.Obj.Field(key)
				sub.set(x, dst.Field(i), dir, ps)
			}
		}
	case f.Elem != nil && f.Elem.Type == Nested:
		out := reflect.MakeMapWithSize(dst.Type(), len(m))
		for k, x := range m {
			ev := reflect.New(dst.Type().Elem()).Elem()
			f.Elem.setMap(x.(map[string]any), ev, dir, ps)
			out.SetMapIndex(reflect.ValueOf(k), ev)
		}
		dst.Set(out)
	default:
		out := make(map[string]any, len(m))
		for k, x := range m {
			out[k] = x
		}
		dst.Set(reflect.ValueOf(out))
	}
}
