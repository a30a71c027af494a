// Package policy holds the rules a call must pass and the cleaning every
// string gets before it leaves the engine: secret redaction, the allowed
// hosts of navigations, and the grant decision for write tools.
package policy

import (
	"encoding/json"
	"errors"
	"reflect"
	"sort"
	"strings"
)

// Redactor replaces secret values with "[redacted:NAME]". It is built once
// from the configured secrets and is safe for concurrent use.
type Redactor struct {
	rep *strings.Replacer // nil when there is nothing to redact
	// twice: some value could reappear around or inside a marker, so a
	// second pass runs when the first changed something
	twice bool
	names []string
	// tails are every form of every secret with its marker, for RedactCut
	tails []pair
}

// pair is a text to replace and its marker.
type pair struct{ old, marker string }

// NewRedactor builds a Redactor for secrets (name → value). Empty values are
// ignored. Besides each raw value it catches the forms a value takes on its
// way out (redact_forms.go): percent-encoded by each of encodeURIComponent,
// encodeURI, form encoding (+ for space), the URL parser's component sets
// and escape(); HTML-escaped (named, decimal and hex references); escaped in
// JSON and JavaScript string literals; and base64 (standard and URL-safe,
// padded or not). Where values overlap, the longest match wins;
// where two secrets share a value, the name that sorts first is used.
func NewRedactor(secrets map[string]string) *Redactor {
	names := make([]string, 0, len(secrets))
	for n, v := range secrets {
		if v != "" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	seen := map[string]bool{}
	var pairs []pair
	var markers []string
	for _, n := range names {
		v := secrets[n]
		marker := "[redacted:" + n + "]"
		markers = append(markers, marker)
		for _, form := range forms(v) {
			if form == "" || seen[form] {
				continue
			}
			seen[form] = true
			pairs = append(pairs, pair{form, marker})
		}
	}
	r := &Redactor{names: names, tails: pairs}
	if len(pairs) == 0 {
		return r
	}
	// strings.Replacer takes, at each position, the first old string in
	// argument order that matches: longest first makes the longest win.
	sort.SliceStable(pairs, func(i, j int) bool { return len(pairs[i].old) > len(pairs[j].old) })
	args := make([]string, 0, 2*len(pairs))
	for _, p := range pairs {
		args = append(args, p.old, p.marker)
		if strings.ContainsAny(p.old, "[]") {
			r.twice = true
		}
		for _, m := range markers {
			if strings.Contains(m, p.old) {
				r.twice = true
			}
		}
	}
	r.rep = strings.NewReplacer(args...)
	return r
}

// htmlEscapers write a value the ways HTML serializers do: a browser's
// outerHTML in attribute values (current Chromium also escapes < and >; older
// ones only & and ") and in text, and Go's html.EscapeString. A failed call's
// page.html artifact holds field values in attributes.
var htmlEscapers = []*strings.Replacer{
	strings.NewReplacer("&", "&amp;", `"`, "&quot;", "<", "&lt;", ">", "&gt;", "\u00a0", "&nbsp;"),
	strings.NewReplacer("&", "&amp;", `"`, "&quot;", "\u00a0", "&nbsp;"),
	strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "\u00a0", "&nbsp;"),
	strings.NewReplacer("&", "&amp;", "'", "&#39;", "<", "&lt;", ">", "&gt;", `"`, "&#34;"),
}

// Names are the names of the secrets with a value, sorted.
func (r *Redactor) Names() []string { return append([]string(nil), r.names...) }

// Redact replaces every secret value in s with "[redacted:NAME]".
func (r *Redactor) Redact(s string) string {
	if r == nil || r.rep == nil || s == "" {
		return s
	}
	out := r.rep.Replace(s)
	if r.twice && out != s {
		out = r.rep.Replace(out)
	}
	return out
}

// minCutPrefix is the shortest start of a secret RedactCut replaces: a
// shorter one is too common a text to take for a secret's.
const minCutPrefix = 4

// RedactCut is Redact for s, a text cut short at its end (a value shown
// up to a length): besides whole secrets, the start of a secret (in any of
// its forms, at least minCutPrefix bytes) that the cut left at the end of
// s is replaced by its marker. Redact alone finds only whole values, so
// the first 80 characters of a long secret passed it.
func (r *Redactor) RedactCut(s string) string {
	s = r.Redact(s)
	if r == nil {
		return s
	}
	best, marker := 0, ""
	for _, p := range r.tails {
		for n := len(p.old) - 1; n >= minCutPrefix && n > best; n-- {
			if strings.HasSuffix(s, p.old[:n]) {
				best, marker = n, p.marker
				break
			}
		}
	}
	if best == 0 {
		return s
	}
	return s[:len(s)-best] + marker
}

// RedactBytes is Redact for bytes; it returns a new slice (b itself when
// there are no secrets).
func (r *Redactor) RedactBytes(b []byte) []byte {
	if r == nil || r.rep == nil || len(b) == 0 {
		return b
	}
	return []byte(r.Redact(string(b)))
}

// RedactAny returns a deep copy of v with every string redacted, map keys
// included. It walks the values encoding/json produces (map[string]any,
// []any, string, float64, json.Number, bool, nil) and any other map, slice,
// array, pointer or struct by reflection; json.RawMessage and []byte are
// redacted as text, and an error becomes its redacted message (a string at
// the top, an error with that message inside an error-typed field). Unexported
// struct fields are copied as they are, not redacted.
func (r *Redactor) RedactAny(v any) any {
	if r == nil || r.rep == nil {
		return v
	}
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		return r.Redact(x)
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[r.Redact(k)] = r.RedactAny(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = r.RedactAny(e)
		}
		return s
	case []string:
		s := make([]string, len(x))
		for i, e := range x {
			s[i] = r.Redact(e)
		}
		return s
	case map[string]string:
		m := make(map[string]string, len(x))
		for k, e := range x {
			m[r.Redact(k)] = r.Redact(e)
		}
		return m
	case json.RawMessage:
		return json.RawMessage(r.RedactBytes(x))
	case []byte:
		return r.RedactBytes(x)
	case bool, float64, float32, int, int64, int32, int16, int8, uint, uint64, uint32, uint16, uint8, json.Number:
		return x
	case error:
		return r.Redact(x.Error())
	}
	return r.redactValue(reflect.ValueOf(v)).Interface()
}

var errorType = reflect.TypeFor[error]()

// redactValue deep-copies rv with strings redacted.
func (r *Redactor) redactValue(rv reflect.Value) reflect.Value {
	switch rv.Kind() {
	case reflect.String:
		out := reflect.New(rv.Type()).Elem()
		out.SetString(r.Redact(rv.String()))
		return out
	case reflect.Interface:
		if rv.IsNil() {
			return rv
		}
		out := reflect.New(rv.Type()).Elem()
		if err, ok := rv.Elem().Interface().(error); ok && errorType.AssignableTo(rv.Type()) {
			// an error field stays an error, with a redacted message
			out.Set(reflect.ValueOf(errors.New(r.Redact(err.Error()))))
			return out
		}
		inner := reflect.ValueOf(r.RedactAny(rv.Elem().Interface()))
		if !inner.IsValid() || !inner.Type().AssignableTo(rv.Type()) {
			inner = r.redactValue(rv.Elem()) // e.g. an error kept as an error
		}
		out.Set(inner)
		return out
	case reflect.Pointer:
		if rv.IsNil() {
			return rv
		}
		out := reflect.New(rv.Type().Elem())
		out.Elem().Set(r.redactValue(rv.Elem()))
		return out
	case reflect.Slice:
		if rv.IsNil() {
			return rv
		}
		out := reflect.MakeSlice(rv.Type(), rv.Len(), rv.Len())
		for i := range rv.Len() {
			out.Index(i).Set(r.redactValue(rv.Index(i)))
		}
		return out
	case reflect.Array:
		out := reflect.New(rv.Type()).Elem()
		for i := range rv.Len() {
			out.Index(i).Set(r.redactValue(rv.Index(i)))
		}
		return out
	case reflect.Map:
		if rv.IsNil() {
			return rv
		}
		out := reflect.MakeMapWithSize(rv.Type(), rv.Len())
		it := rv.MapRange()
		for it.Next() {
			out.SetMapIndex(r.redactValue(it.Key()), r.redactValue(it.Value()))
		}
		return out
	case reflect.Struct:
		out := reflect.New(rv.Type()).Elem()
		out.Set(rv) // unexported fields (a time.Time's, say) are kept as they are
		for i := range rv.NumField() {
			if out.Field(i).CanSet() {
				out.Field(i).Set(r.redactValue(rv.Field(i)))
			}
		}
		return out
	}
	return rv
}
