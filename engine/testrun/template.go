package testrun

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/toolwright/toolwright/engine/lint"
)

// template is a string of a test file that holds ${{ }} references.
type template struct {
	src   string
	pos   lint.Pos
	parts []tpart
}

// tpart is literal text or one reference.
type tpart struct {
	text string
	ref  *ref
}

// ref is what one ${{ }} names: site.url, or a path into an earlier case's envelope.
type ref struct {
	text   string   // as written, trimmed
	site   bool     // site.url
	caseID string   // cases.ID...
	path   []string // ... .PATH inside that case's envelope
	pos    lint.Pos
}

// whole reports whether the template is exactly one reference, so it keeps
// the referenced value's type.
func (t *template) whole() bool { return len(t.parts) == 1 && t.parts[0].ref != nil }

func (t *template) refs() []*ref {
	var out []*ref
	for _, p := range t.parts {
		if p.ref != nil {
			out = append(out, p.ref)
		}
	}
	return out
}

// parseString reads the references of s. It returns s itself (with $${{
// unescaped) when there are none, else a *template.
func parseString(s string, pos lint.Pos) (any, error) {
	if !strings.Contains(s, "${{") {
		return s, nil
	}
	t := &template{src: s, pos: pos}
	var text strings.Builder
	rest := s
	for rest != "" {
		i := strings.Index(rest, "${{")
		if i < 0 {
			text.WriteString(rest)
			break
		}
		if i > 0 && rest[i-1] == '$' { // $${{ is a literal ${{
			text.WriteString(rest[:i-1] + "${{")
			rest = rest[i+3:]
			continue
		}
		text.WriteString(rest[:i])
		rest = rest[i+3:]
		j := strings.Index(rest, "}}")
		if j < 0 {
			return nil, fmt.Errorf("%q: ${{ is not closed with }} (write $${{ for a literal ${{)", s)
		}
		r, err := parseRef(strings.TrimSpace(rest[:j]), pos)
		if err != nil {
			return nil, err
		}
		if text.Len() > 0 {
			t.parts = append(t.parts, tpart{text: text.String()})
			text.Reset()
		}
		t.parts = append(t.parts, tpart{ref: r})
		rest = rest[j+2:]
	}
	if text.Len() > 0 {
		t.parts = append(t.parts, tpart{text: text.String()})
	}
	if len(t.refs()) == 0 {
		var b strings.Builder
		for _, p := range t.parts {
			b.WriteString(p.text)
		}
		return b.String(), nil
	}
	return t, nil
}

var (
	refRoots = []string{"site.url", "cases"}
	segRE    = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
)

func parseRef(s string, pos lint.Pos) (*ref, error) {
	const help = "a test file can use site.url and cases.ID.PATH"
	if s == "" {
		return nil, fmt.Errorf("empty ${{ }}: %s", help)
	}
	if strings.Contains(s, "[") {
		return nil, fmt.Errorf("${{ %s }}: write list indexes as .0, not [0]; %s", s, help)
	}
	segs := strings.Split(s, ".")
	for _, seg := range segs {
		if seg == "" {
			return nil, fmt.Errorf("${{ %s }}: empty name between dots", s)
		}
		if !segRE.MatchString(seg) {
			return nil, fmt.Errorf("${{ %s }}: only a dotted name is allowed here, not an expression; %s", s, help)
		}
	}
	r := &ref{text: s, pos: pos}
	switch segs[0] {
	case "site":
		if s != "site.url" {
			return nil, fmt.Errorf("unknown name %q: the served site has only site.url", s)
		}
		r.site = true
	case "cases":
		if len(segs) < 2 {
			return nil, fmt.Errorf("${{ %s }}: name a case, as in cases.ID.data.NAME", s)
		}
		r.caseID, r.path = segs[1], segs[2:]
	default:
		return nil, fmt.Errorf("unknown name %q%s; %s", s, lint.Suggest(s, refRoots), help)
	}
	return r, nil
}

// scope is what references resolve against while a file runs.
type scope struct {
	siteURL string
	cases   map[string]any  // case id → its envelope as a JSON tree
	passed  map[string]bool // case id → it ran and passed
}

func (sc *scope) lookup(r *ref) (any, error) {
	if r.site {
		return sc.siteURL, nil
	}
	env, ok := sc.cases[r.caseID]
	if !ok {
		return nil, fmt.Errorf("${{ %s }}: case %q has not run", r.text, r.caseID)
	}
	v, found, why := walk(env, r.path)
	if !found {
		return nil, fmt.Errorf("${{ %s }}: %s", r.text, why)
	}
	return v, nil
}

// resolve replaces the templates in v (a plain value, list or map) by
// their values.
func resolve(v any, sc *scope) (any, error) {
	switch x := v.(type) {
	case *template:
		if x.whole() {
			return sc.lookup(x.parts[0].ref)
		}
		var b strings.Builder
		for _, p := range x.parts {
			if p.ref == nil {
				b.WriteString(p.text)
				continue
			}
			val, err := sc.lookup(p.ref)
			if err != nil {
				return nil, err
			}
			b.WriteString(textOf(val))
		}
		return b.String(), nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			r, err := resolve(e, sc)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			r, err := resolve(e, sc)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	}
	return v, nil
}

// textOf is a value as it appears inside a longer string.
func textOf(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// refsIn lists the references of a decoded value.
func refsIn(v any) []*ref {
	switch x := v.(type) {
	case *template:
		return x.refs()
	case []any:
		var out []*ref
		for _, e := range x {
			out = append(out, refsIn(e)...)
		}
		return out
	case map[string]any:
		var out []*ref
		for _, e := range x {
			out = append(out, refsIn(e)...)
		}
		return out
	}
	return nil
}
