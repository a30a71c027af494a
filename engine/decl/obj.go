package decl

import (
	"bytes"
	"encoding/json"
)

// Obj is a JSON object that keeps its keys in the order they were added,
// so generated schemas list properties in the order they were declared.
type Obj struct {
	keys []string
	vals map[string]any
}

// NewObj makes an ordered object from alternating keys and values.
func NewObj(kv ...any) *Obj {
	o := &Obj{vals: map[string]any{}}
	for i := 0; i+1 < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1])
	}
	return o
}

// Set adds or replaces a key.
func (o *Obj) Set(k string, v any) *Obj {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
	return o
}

// Get returns a key's value.
func (o *Obj) Get(k string) (any, bool) {
	v, ok := o.vals[k]
	return v, ok
}

// MarshalJSON writes the keys in order.
func (o *Obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := json.Marshal(o.vals[k])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Merge adds every key of other, in its order.
func (o *Obj) Merge(other *Obj) *Obj {
	for _, k := range other.keys {
		o.Set(k, other.vals[k])
	}
	return o
}
