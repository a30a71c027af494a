// Package yamlx decodes straight from yaml.Node so every value keeps its line
// and column, and every mistake becomes a lint problem instead of a panic.
package yamlx

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/toolwright/toolwright/engine/lint"
	"gopkg.in/yaml.v3"
)

// KV is one key of a mapping with its value.
type KV struct {
	Key   string
	KeyN  *yaml.Node
	Value *yaml.Node
}

// Doc parses one YAML document and returns its root value node. A syntax
// error becomes a problem at the line YAML reports.
func Doc(file string, data []byte, ps *lint.Problems) *yaml.Node {
	return doc(file, data, ps, false)
}

// DocOrEmpty is Doc for files that may be empty (a config of comments):
// an empty file gives nil and no problem.
func DocOrEmpty(file string, data []byte, ps *lint.Problems) *yaml.Node {
	return doc(file, data, ps, true)
}

func doc(file string, data []byte, ps *lint.Problems, emptyOK bool) *yaml.Node {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			if !emptyOK {
				ps.Addf(lint.Pos{File: file, Line: 1, Col: 1}, lint.Syntax, "the file is empty")
			}
			return nil
		}
		*ps = append(*ps, syntaxProblem(file, data, err))
		return nil
	}
	if len(doc.Content) == 0 {
		if !emptyOK {
			ps.Addf(lint.Pos{File: file, Line: 1, Col: 1}, lint.Syntax, "the file is empty")
		}
		return nil
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		ps.Addf(lint.At(file, &extra), lint.Syntax, "only one YAML document per file is allowed")
	}
	return doc.Content[0]
}

// Resolve follows aliases.
func Resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// Describe names a node's kind for error messages ("a list", "a map", ...).
func Describe(n *yaml.Node) string {
	n = Resolve(n)
	if n == nil {
		return "nothing"
	}
	switch n.Kind {
	case yaml.MappingNode:
		return "a map"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "an empty value"
		}
		return fmt.Sprintf("%q", n.Value)
	}
	return "a value"
}

// Map returns the pairs of a mapping node in written order, reporting
// duplicate keys. where names the thing for messages ("step", "param query").
func Map(file string, n *yaml.Node, where string, ps *lint.Problems) ([]KV, bool) {
	n = Resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		ps.Addf(lint.At(file, n), lint.BadValue, "%s must be a map, found %s", where, Describe(n))
		return nil, false
	}
	seen := map[string]int{}
	var kvs []KV
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			ps.Addf(lint.At(file, k), lint.BadValue, "%s: keys must be plain names", where)
			continue
		}
		if k.Value == "<<" {
			ps.Addf(lint.At(file, k), lint.BadValue, "%s: YAML merge keys (<<) are not supported", where)
			continue
		}
		if first, dup := seen[k.Value]; dup {
			ps.Addf(lint.At(file, k), lint.Duplicate, "%s: key %q appears twice (first on line %d): YAML keeps one value per key; remove one or rename it", where, k.Value, first)
			continue
		}
		seen[k.Value] = k.Line
		kvs = append(kvs, KV{Key: k.Value, KeyN: k, Value: v})
	}
	return kvs, true
}

// Known reports keys of kvs not in allowed, with a suggestion.
func Known(file string, kvs []KV, allowed []string, where string, ps *lint.Problems) {
	for _, kv := range kvs {
		ok := false
		for _, a := range allowed {
			if a == kv.Key {
				ok = true
				break
			}
		}
		if !ok {
			ps.Addf(lint.At(file, kv.KeyN), lint.UnknownKey, "%s: unknown key %q%s", where, kv.Key, lint.Suggest(kv.Key, allowed))
		}
	}
}

// IsNull is true for an absent or `~`/empty value.
func IsNull(n *yaml.Node) bool {
	n = Resolve(n)
	return n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null")
}

// Scalar returns a scalar's text, or reports what it found instead.
func Scalar(file string, n *yaml.Node, where string, ps *lint.Problems) (string, bool) {
	n = Resolve(n)
	if n == nil || n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		ps.Addf(lint.At(file, n), lint.BadValue, "%s must be a single value, found %s", where, Describe(n))
		return "", false
	}
	return n.Value, true
}

// String returns a string scalar. Numbers and booleans are accepted as their text.
func String(file string, n *yaml.Node, where string, ps *lint.Problems) (string, bool) {
	return Scalar(file, n, where, ps)
}

// Bool decodes true/false.
func Bool(file string, n *yaml.Node, where string, ps *lint.Problems) (bool, bool) {
	s, ok := Scalar(file, n, where, ps)
	if !ok {
		return false, false
	}
	switch s {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	ps.Addf(lint.At(file, n), lint.BadValue, "%s must be true or false, found %q", where, s)
	return false, false
}

// Int decodes an integer.
func Int(file string, n *yaml.Node, where string, ps *lint.Problems) (int, bool) {
	s, ok := Scalar(file, n, where, ps)
	if !ok {
		return 0, false
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		ps.Addf(lint.At(file, n), lint.BadValue, "%s must be a whole number, found %q", where, s)
		return 0, false
	}
	return v, true
}

// Number decodes an integer or decimal number.
func Number(file string, n *yaml.Node, where string, ps *lint.Problems) (float64, bool) {
	s, ok := Scalar(file, n, where, ps)
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		ps.Addf(lint.At(file, n), lint.BadValue, "%s must be a number, found %q", where, s)
		return 0, false
	}
	return v, true
}

// Duration decodes a Go duration such as 500ms, 10s or 2m.
func Duration(file string, n *yaml.Node, where string, ps *lint.Problems) (time.Duration, bool) {
	s, ok := Scalar(file, n, where, ps)
	if !ok {
		return 0, false
	}
	d, err := ParseDuration(s)
	if err != nil {
		ps.Addf(lint.At(file, n), lint.BadValue, "%s must be a duration like 500ms, 10s or 2m, found %q", where, s)
		return 0, false
	}
	return d, true
}

// ParseDuration is time.ParseDuration that refuses negative values.
func ParseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return 0, err
	}
	if d < 0 {
		return 0, fmt.Errorf("negative duration %q", s)
	}
	return d, nil
}

// Strings decodes a list of strings.
func Strings(file string, n *yaml.Node, where string, ps *lint.Problems) ([]string, bool) {
	n = Resolve(n)
	if n == nil || n.Kind != yaml.SequenceNode {
		ps.Addf(lint.At(file, n), lint.BadValue, "%s must be a list, found %s", where, Describe(n))
		return nil, false
	}
	out := make([]string, 0, len(n.Content))
	ok := true
	for _, c := range n.Content {
		s, good := Scalar(file, c, where+" item", ps)
		ok = ok && good
		out = append(out, s)
	}
	return out, ok
}

// Value turns a scalar, list or map node into plain Go values
// (string, int, float64, bool, nil, []any, map[string]any).
func Value(n *yaml.Node) any {
	n = Resolve(n)
	if n == nil {
		return nil
	}
	switch n.Kind {
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return nil
		case "!!bool":
			return n.Value == "true"
		case "!!int":
			if v, err := strconv.ParseInt(n.Value, 0, 64); err == nil {
				return int(v)
			}
		case "!!float":
			if v, err := strconv.ParseFloat(n.Value, 64); err == nil {
				return v
			}
		}
		return n.Value
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			out = append(out, Value(c))
		}
		return out
	case yaml.MappingNode:
		out := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			out[n.Content[i].Value] = Value(n.Content[i+1])
		}
		return out
	}
	return nil
}
