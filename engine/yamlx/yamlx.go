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
	n, _ := doc(file, data, ps, false)
	return n
}

// DocOrEmpty is Doc for files that may be empty (a config of comments):
// an empty file gives nil and no problem.
func DocOrEmpty(file string, data []byte, ps *lint.Problems) *yaml.Node {
	n, _ := doc(file, data, ps, true)
	return n
}

// Recovery says how a file with YAML syntax errors was read anyway: the
// lines that were set aside so the rest parses. Problems found on them,
// and missing keys (which may be on them), are knock-ons of the syntax
// errors already reported; Filter drops them.
type Recovery struct {
	Lines map[int]bool
}

// Filter drops the knock-on problems of a recovered file from ps[from:].
func (r *Recovery) Filter(ps lint.Problems, file string, from int) lint.Problems {
	if r == nil {
		return ps
	}
	out := ps[:from]
	for _, p := range ps[from:] {
		if p.File == file && (r.Lines[p.Line] || p.Kind == lint.Missing) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// DocRecover is Doc that goes on after a syntax error: it reports the
// error, sets the offending line aside (a `key: value` keeps its key with
// a placeholder value, any other line becomes a comment) and parses again,
// up to maxRecover times, so every syntax error of the file is reported
// and the rest of it can still be checked. The root is nil when nothing
// could be read; rec is non-nil when lines were set aside.
func DocRecover(file string, data []byte, ps *lint.Problems) (root *yaml.Node, rec *Recovery) {
	var local lint.Problems
	root, rawLine := doc(file, data, &local, false)
	*ps = append(*ps, local...)
	if root != nil || len(local) == 0 || local[0].Kind != lint.Syntax || local[0].Message == "the file is empty" {
		return root, nil
	}
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	rec = &Recovery{Lines: map[int]bool{}}
	last := local[0]
	for i := 0; i < maxRecover; i++ {
		// The cause's line first; when that does not help, the parser's.
		// (yaml.v3 names a block's or a flow's start 0-based: rawLine+1.)
		l := -1
		for _, c := range []int{last.Line, rawLine, rawLine + 1} {
			if c >= 1 && c <= len(lines) && !rec.Lines[c] && setAside(lines[c-1]) != lines[c-1] {
				l = c
				break
			}
		}
		if l < 0 {
			return nil, nil
		}
		lines[l-1] = setAside(lines[l-1])
		rec.Lines[l] = true
		var more lint.Problems
		root, rawLine = doc(file, []byte(strings.Join(lines, "\n")), &more, false)
		if root != nil {
			*ps = append(*ps, more...)
			return root, rec
		}
		if len(more) == 0 || more[0].Kind != lint.Syntax {
			return nil, nil
		}
		last = more[0]
		*ps = append(*ps, last)
	}
	return nil, nil
}

const maxRecover = 20

// setAside neutralises one line: `key: value` keeps its key (and any "- ")
// with a placeholder, anything else becomes a comment at its indentation.
func setAside(l string) string {
	ind := len(l) - len(strings.TrimLeft(l, " \t"))
	rest := l[ind:]
	lead := ""
	for strings.HasPrefix(rest, "- ") {
		lead += "- "
		rest = rest[2:]
	}
	if k := strings.Index(rest, ": "); k > 0 && !strings.ContainsAny(rest[:k], "\"'{}[],#&*!|>%@`") {
		return strings.Repeat(" ", ind) + lead + rest[:k] + ": \"\""
	}
	if strings.HasSuffix(strings.TrimSpace(rest), ":") && !strings.ContainsAny(rest, "\"'{}[],#") {
		return l
	}
	if lead != "" {
		return strings.Repeat(" ", ind) + "- \"\""
	}
	return strings.Repeat(" ", ind) + "#" + rest
}

// doc parses one document; on a syntax error it also returns the line the
// parser named (the cause may be reported on another).
func doc(file string, data []byte, ps *lint.Problems, emptyOK bool) (*yaml.Node, int) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			if !emptyOK {
				ps.Addf(lint.Pos{File: file, Line: 1, Col: 1}, lint.Syntax, "the file is empty")
			}
			return nil, 0
		}
		p, raw := syntaxProblem(file, data, err)
		*ps = append(*ps, p)
		return nil, raw
	}
	if len(doc.Content) == 0 {
		if !emptyOK {
			ps.Addf(lint.Pos{File: file, Line: 1, Col: 1}, lint.Syntax, "the file is empty")
		}
		return nil, 0
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		ps.Addf(lint.At(file, &extra), lint.Syntax, "only one YAML document per file is allowed")
	}
	return doc.Content[0], 0
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

// CommaSplit tells whether kv, an unknown key, is the rest of the value
// before it cut by an unquoted comma inside a {...} flow map, as in
// `{description: Read it, or not}` (YAML reads "or not" as a key with no
// value). It returns the message for the first piece and ok with an empty
// message for the pieces after it, which are the same mistake.
func CommaSplit(kvs []KV, kv KV) (string, bool) {
	i := -1
	for j := range kvs {
		if kvs[j].KeyN == kv.KeyN {
			i = j
		}
	}
	if i <= 0 || !bareKey(kv) {
		return "", false
	}
	j := i - 1
	for j > 0 && bareKey(kvs[j]) && kvs[j].KeyN.Line == kv.KeyN.Line {
		j--
	}
	prev := kvs[j]
	v := Resolve(prev.Value)
	if v == nil || v.Kind != yaml.ScalarNode || v.Style != 0 || v.Tag == "!!null" || v.Line != kv.KeyN.Line || v.Column >= kv.KeyN.Column {
		return "", false
	}
	if j != i-1 {
		return "", true
	}
	text := v.Value
	for k := i; k < len(kvs) && bareKey(kvs[k]) && kvs[k].KeyN.Line == kv.KeyN.Line; k++ {
		text += ", " + kvs[k].Key
	}
	return fmt.Sprintf("the comma after %q ends the value of %s inside {...}, so %q was read as a key: quote the value, as in %s: %s", v.Value, prev.Key, kv.Key, prev.Key, strconv.Quote(text)), true
}

// bareKey: a plain key written with no value (`or both` in `{a: b, or both}`).
func bareKey(kv KV) bool {
	v := Resolve(kv.Value)
	return kv.KeyN.Style == 0 && v != nil && v.Kind == yaml.ScalarNode && v.Tag == "!!null" && v.Value == ""
}
