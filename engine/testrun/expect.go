package testrun

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/result"
)

// envelopeFields are the top-level keys of an envelope an expectation may name.
var envelopeFields = []string{"ok", "code", "message", "retryable", "needs_human", "data", "task_id", "trace_id", "attempts", "duration_ms", "step"}

// matcherKeys are the keys of a matcher map.
var matcherKeys = MatcherDecl.Names()

// check is one line of expect: a path and what must be there.
type check struct {
	path string   // as written: data.rows.count
	segs []string // split at the dots
	pos  lint.Pos
	want want
}

// want is an exact value or a set of matchers that must all hold.
type want struct {
	equals      any // may hold templates
	hasEquals   bool
	contains    any // may hold templates
	hasContains bool
	matches     *regexp.Regexp
	length      *int
	exists      *bool
}

// EnvelopeTree turns an envelope into the JSON tree expectations look at, with
// the fields JSON leaves out set to their zero values.
func EnvelopeTree(env *result.Envelope) map[string]any {
	var tree map[string]any
	if err := json.Unmarshal(env.JSON(), &tree); err != nil || tree == nil {
		tree = map[string]any{}
	}
	for k, zero := range map[string]any{"message": "", "data": map[string]any{}, "task_id": "", "trace_id": "", "attempts": float64(0), "step": ""} {
		if _, ok := tree[k]; !ok {
			tree[k] = zero
		}
	}
	return tree
}

// walk follows path from v. When it cannot, why says where it stopped.
func walk(v any, path []string) (got any, found bool, why string) {
	at := ""
	for _, seg := range path {
		name := seg
		if at != "" {
			name = at + "." + seg
		}
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[seg]
			if !ok {
				return nil, false, fmt.Sprintf("%s has no key %q%s", where(at), seg, keysHint(seg, x))
			}
			v = next
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil {
				return nil, false, fmt.Sprintf("%s is a list: index it with a number, as in %s.0", where(at), at)
			}
			if i < 0 || i >= len(x) {
				return nil, false, fmt.Sprintf("%s has %d items, so no item %d", where(at), len(x), i)
			}
			v = x[i]
		default:
			return nil, false, fmt.Sprintf("%s is %s, which has no %q", where(at), show(v), seg)
		}
		at = name
	}
	return v, true, ""
}

func where(at string) string {
	if at == "" {
		return "the envelope"
	}
	return at
}

// keysHint offers the closest key, or lists a few keys.
func keysHint(key string, m map[string]any) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if s := lint.Suggest(key, keys); s != "" {
		return s
	}
	if len(keys) == 0 {
		return " (it is empty)"
	}
	if len(keys) > 8 {
		keys = append(keys[:8], "...")
	}
	return " (it has " + strings.Join(keys, ", ") + ")"
}

// eval checks the envelope tree; it returns "" when the check holds, or
// what is wrong: `data.rows.count: want 15, got 10`.
func (c *check) eval(env any, sc *scope) string {
	got, found, why := walk(env, c.segs)
	e := &evaluation{c: c, w: c.want, got: got, found: found, nothing: "got nothing (" + why + ")", sc: sc}
	for _, matcher := range []func() string{e.exists, e.equals, e.contains, e.matches, e.length} {
		if msg := matcher(); msg != "" {
			return msg
		}
	}
	return ""
}

// evaluation is one check against one envelope: what its path found, and
// a method per matcher, each "" when it holds (or is not given).
type evaluation struct {
	c       *check
	w       want
	got     any
	found   bool
	nothing string // why nothing was found, as a message says it
	sc      *scope
}

func (e *evaluation) fail(format string, args ...any) string {
	return e.c.path + ": " + fmt.Sprintf(format, args...)
}

func (e *evaluation) exists() string {
	switch {
	case e.w.exists == nil:
	case *e.w.exists && !e.found:
		return e.fail("want a value, %s", e.nothing)
	case !*e.w.exists && e.found:
		return e.fail("want nothing, got %s", show(e.got))
	}
	return ""
}

func (e *evaluation) equals() string {
	if !e.w.hasEquals {
		return ""
	}
	v, err := resolve(e.w.equals, e.sc)
	if err != nil {
		return e.fail("%v", err)
	}
	v = normalize(v)
	switch {
	case !e.found && v != nil:
		return e.fail("want %s, %s", show(v), e.nothing)
	case e.found && !reflect.DeepEqual(v, e.got):
		return e.fail("want %s, got %s%s", show(v), show(e.got), firstDiff(v, e.got, e.c.path))
	}
	return ""
}

func (e *evaluation) contains() string {
	if !e.w.hasContains {
		return ""
	}
	v, err := resolve(e.w.contains, e.sc)
	if err != nil {
		return e.fail("%v", err)
	}
	v = normalize(v)
	if !e.found {
		return e.fail("want something containing %s, %s", show(v), e.nothing)
	}
	switch g := e.got.(type) {
	case string:
		s, ok := v.(string)
		if !ok {
			s = textOf(v)
		}
		if !strings.Contains(g, s) {
			return e.fail("want a string containing %s, got %s", show(s), show(g))
		}
	case []any:
		if !slices.ContainsFunc(g, func(item any) bool { return reflect.DeepEqual(item, v) }) {
			return e.fail("want a list containing %s, got %s", show(v), show(g))
		}
	default:
		return e.fail("want a string or list containing %s, got %s", show(v), show(e.got))
	}
	return ""
}

func (e *evaluation) matches() string {
	if e.w.matches == nil {
		return ""
	}
	if !e.found {
		return e.fail("want a string matching /%s/, %s", e.w.matches, e.nothing)
	}
	s, ok := e.got.(string)
	if !ok || !e.w.matches.MatchString(s) {
		return e.fail("want a string matching /%s/, got %s", e.w.matches, show(e.got))
	}
	return ""
}

func (e *evaluation) length() string {
	if e.w.length == nil {
		return ""
	}
	if !e.found {
		return e.fail("want length %d, %s", *e.w.length, e.nothing)
	}
	n := -1
	switch g := e.got.(type) {
	case string:
		n = utf8.RuneCountInString(g)
	case []any:
		n = len(g)
	case map[string]any:
		n = len(g)
	}
	switch {
	case n < 0:
		return e.fail("want length %d, got %s, which has no length", *e.w.length, show(e.got))
	case n != *e.w.length:
		return e.fail("want length %d, got length %d", *e.w.length, n)
	}
	return ""
}

// firstDiff says where two unequal maps or lists first differ, as
// "; at data.rows.items.2.sku: ..." ("" for scalars: the values say it all).
func firstDiff(want, got any, at string) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return ""
		}
		keys := make([]string, 0, len(w)+len(g))
		for k := range w {
			keys = append(keys, k)
		}
		for k := range g {
			if _, dup := w[k]; !dup {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			wv, inW := w[k]
			gv, inG := g[k]
			switch {
			case !inG:
				return fmt.Sprintf(" (%s has no key %q)", at, k)
			case !inW:
				return fmt.Sprintf(" (%s has the unexpected key %q)", at, k)
			case !reflect.DeepEqual(wv, gv):
				if d := firstDiff(wv, gv, at+"."+k); d != "" {
					return d
				}
				return fmt.Sprintf(" (at %s.%s: want %s, got %s)", at, k, show(wv), show(gv))
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok {
			return ""
		}
		for i := 0; i < len(w) && i < len(g); i++ {
			if !reflect.DeepEqual(w[i], g[i]) {
				p := fmt.Sprintf("%s.%d", at, i)
				if d := firstDiff(w[i], g[i], p); d != "" {
					return d
				}
				return fmt.Sprintf(" (at %s: want %s, got %s)", p, show(w[i]), show(g[i]))
			}
		}
		if len(w) != len(g) {
			return fmt.Sprintf(" (%s has %d items, not %d)", at, len(g), len(w))
		}
	}
	return ""
}

// normalize makes a decoded YAML value comparable with a JSON tree:
// every number becomes a float64.
func normalize(v any) any {
	switch x := v.(type) {
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case float32:
		return float64(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalize(e)
		}
		return out
	}
	return v
}

// show writes a value for a message: JSON, cut when long.
func show(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	b := bytes.TrimRight(buf.Bytes(), "\n")
	const max = 200
	if len(b) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(b[cut]) {
			cut--
		}
		return string(b[:cut]) + "…"
	}
	return string(b)
}
