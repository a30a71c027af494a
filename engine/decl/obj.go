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
	if err := o.appendJSON(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// appendJSON writes o into b. Nested objects are written in place: through
// json.Marshal each level's output would be checked and compacted again by
// the level above, which made schema generation a tenth of loading.
func (o *Obj) appendJSON(b *bytes.Buffer) error {
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		if err := appendValue(b, o.vals[k]); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}

// appendValue writes one value: objects and lists of them in place, every
// other value as json.Marshal writes it.
func appendValue(b *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case *Obj:
		if x == nil {
			b.WriteString("null")
			return nil
		}
		return x.appendJSON(b)
	case []any:
		if x == nil {
			b.WriteString("null")
			return nil
		}
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := appendValue(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
		return nil
	}
	vb, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b.Write(vb)
	return nil
}

// Merge adds every key of other, in its order.
func (o *Obj) Merge(other *Obj) *Obj {
	for _, k := range other.keys {
		o.Set(k, other.vals[k])
	}
	return o
}
