package tmpl_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/tmpl"
	"gopkg.in/yaml.v3"
)

var scope = tmpl.Scope{
	Params: []string{"query", "max_pages"}, Config: []string{"base"},
	Secrets: []string{"password"}, Vars: []string{"rows"},
}

var env = tmpl.Env{
	"params":  map[string]any{"query": "bolt", "max_pages": 3},
	"config":  map[string]any{"base": "http://127.0.0.1:8000"},
	"secrets": map[string]any{"password": "pw"},
	"vars":    map[string]any{"rows": []any{1, 2}},
	"env":     map[string]any{"id": "env_1", "region": "local", "purpose": "default"},
	"page":    map[string]any{"url": "http://x/", "title": "X"},
}

func TestTemplates(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want any
	}{
		{"plain text", "plain text"},
		{"${{ params.max_pages }}", 3},     // one template keeps its type
		{"${{ params.max_pages * 2 }}", 6}, // arithmetic
		{"${{ config.base }}/login.html", "http://127.0.0.1:8000/login.html"},
		{"q=${{ params.query }}&n=${{ len(vars.rows) }}", "q=bolt&n=2"},
		{"${{ vars.rows }}", []any{1, 2}},
		{"${{ env.id }} in ${{ env.region }}", "env_1 in local"},
		{"${{ page.title }}", "X"},
	} {
		var ps lint.Problems
		tm := tmpl.CompileTemplate(tc.src, tmpl.Site{File: "f.yaml"}, scope, &ps)
		if len(ps) > 0 {
			t.Errorf("%q: %v", tc.src, ps.Err())
			continue
		}
		got, err := tm.Eval(env)
		if err != nil {
			t.Errorf("%q: %v", tc.src, err)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.src, diff)
		}
	}
}

func TestTemplateRefs(t *testing.T) {
	var ps lint.Problems
	if tm := tmpl.CompileTemplate("${{ vars.rows }}", tmpl.Site{}, scope, &ps); tm.VarRef != "rows" {
		t.Errorf("VarRef = %q", tm.VarRef)
	}
	if tm := tmpl.CompileTemplate("${{ params.query }}", tmpl.Site{}, scope, &ps); tm.ParamRef != "query" {
		t.Errorf("ParamRef = %q", tm.ParamRef)
	}
	if tm := tmpl.CompileTemplate("x ${{ vars.rows }}", tmpl.Site{}, scope, &ps); tm.VarRef != "" {
		t.Errorf("a mixed template is no var reference: %q", tm.VarRef)
	}
	if tm := tmpl.CompileTemplate("${{ page.url }}", tmpl.Site{}, scope, &ps); !tm.UsesPage {
		t.Error("page.url must mark the template as using the page")
	}
}

// TestProblems: unknown names are load errors at their column in the file.
func TestProblems(t *testing.T) {
	node := func(value string, style yaml.Style) *yaml.Node {
		return &yaml.Node{Kind: yaml.ScalarNode, Value: value, Line: 7, Column: 10, Style: style}
	}
	for _, tc := range []struct {
		src    string
		style  yaml.Style
		secret bool
		want   string
	}{
		{"${{ params.qeury }}", 0, false, `f.yaml:7:14: unknown parameter params.qeury (did you mean "query"?)`},
		{"${{ params.qeury }}", yaml.DoubleQuotedStyle, false, `f.yaml:7:15: unknown parameter params.qeury (did you mean "query"?)`},
		{"x ${{ vars.row }}", 0, false, `f.yaml:7:16: unknown variable vars.row (did you mean "rows"?)`},
		{"${{ secrets.password }}", 0, false, "f.yaml:7:14: secrets.* may be used only in fill.value, so no secret reaches a result, a trace or a URL"},
		{"${{ loop.index }}", 0, false, `f.yaml:7:14: unknown name "loop" (loop.* exists only inside repeat, for_each and paginate)`},
		{"${{ parms.query }}", 0, false, `f.yaml:7:14: unknown name "parms" (did you mean "params"?)`},
		{"${{ params.query", 0, false, "f.yaml:7:10: template ${{ is never closed: end it with }}"},
		{"{{ params.query }}", 0, false, `f.yaml:7:10: "{{ params.query }}" looks like a template without its $: write ${{ params.query }}`},
		{"${{ env.zone }}", 0, false, `f.yaml:7:14: unknown env field env.zone (known: id, purpose, region)`},
		// near misses of the delimiters are errors with the right form
		{"${ params.query }", 0, false, `f.yaml:7:10: "${ params.query }" uses one brace: templates are ${{ params.query }}`},
		{"q=$ {{ params.query }}", 0, false, `f.yaml:7:12: write ${{ with no space between $ and {{`},
		{"a ${{ params.query }", 0, false, `f.yaml:7:29: the template closes with one brace: write ${{ params.query }}`},
		{"${{{ params.query }}}", 0, false, `f.yaml:7:10: a template opens with two braces: ${{ ... }}, not three`},
		{"$(params.query)", 0, false, `f.yaml:7:10: "$(params.query)" is shell syntax: templates are ${{ params.query }}`},
		{"#{params.query}", 0, false, `f.yaml:7:10: "#{params.query}" is not a toolwright template: write ${{ params.query }}`},
		{"x {{ params.query }} y", 0, false, `f.yaml:7:12: "{{ params.query }}" looks like a template without its $: write ${{ params.query }}`},
		// words and operators from other languages
		{"${{ params.query === 'a' }}", 0, false, `f.yaml:7:27: expression "params.query === 'a'": === is not an operator here: write ==`},
		{"${{ params.query !== 'a' }}", 0, false, `f.yaml:7:27: expression "params.query !== 'a'": !== is not an operator here: write !=`},
		{"${{ params.query <> 'a' }}", 0, false, `f.yaml:7:27: expression "params.query <> 'a'": <> is not an operator here: write !=`},
		{"${{ params.query = 'a' }}", 0, false, `f.yaml:7:27: expression "params.query = 'a'": = is not an operator here: write ==`},
		{"${{ params.query == 'Not = this' && }}", 0, false, `f.yaml:7:45: expression "params.query == 'Not = this' &&": unexpected token EOF`},
		{"${{ params.query == null }}", 0, false, `f.yaml:7:30: unknown name "null" (write nil)`},
		{"${{ params.query != '' AND true }}", 0, false, `f.yaml:7:33: expression "params.query != '' AND true": AND is not an operator here: write and`},
	} {
		var ps lint.Problems
		sc := scope
		sc.SecretsAllowed = tc.secret
		tmpl.CompileTemplate(tc.src, tmpl.Site{File: "f.yaml", Node: node(tc.src, tc.style)}, sc, &ps)
		if len(ps) != 1 {
			t.Errorf("%q: want one problem, got %v", tc.src, ps)
			continue
		}
		if got := ps[0].String(); got != tc.want {
			t.Errorf("%q:\n got %s\nwant %s", tc.src, got, tc.want)
		}
	}
}

func TestConditions(t *testing.T) {
	var ps lint.Problems
	e := tmpl.CompileExpr("params.max_pages > 2 && len(vars.rows) == 2", tmpl.Site{}, scope, true, &ps)
	if len(ps) > 0 {
		t.Fatal(ps.Err())
	}
	if ok, err := e.Bool(env); err != nil || !ok {
		t.Errorf("Bool = %v, %v", ok, err)
	}
	// The template form is accepted for conditions too.
	e = tmpl.CompileExpr("${{ params.query == 'bolt' }}", tmpl.Site{}, scope, true, &ps)
	if ok, err := e.Bool(env); err != nil || !ok || len(ps) > 0 {
		t.Errorf("template-form condition: %v, %v, %v", ok, err, ps)
	}
	// A non-boolean result at run time is an error, not a silent false.
	e = tmpl.CompileExpr("vars.rows", tmpl.Site{}, scope, false, &ps)
	if _, err := e.Bool(env); err == nil || !strings.Contains(err.Error(), "not true or false") {
		t.Errorf("non-boolean condition: %v", err)
	}
	tmpl.CompileExpr("params.query ==", tmpl.Site{File: "f.yaml"}, scope, true, &ps)
	if len(ps) != 1 || ps[0].Kind != lint.Expression {
		t.Errorf("syntax error: %v", ps)
	}
}

// TestArgumentsAreData: a parameter value that looks like a template is
// never evaluated.
func TestArgumentsAreData(t *testing.T) {
	var ps lint.Problems
	tm := tmpl.CompileTemplate("q=${{ params.query }}", tmpl.Site{}, scope, &ps)
	e := tmpl.Env{"params": map[string]any{"query": "${{ secrets.password }}"}}
	got, err := tm.Eval(e)
	if err != nil || got != "q=${{ secrets.password }}" {
		t.Errorf("got %v, %v", got, err)
	}
}

// TestURLTemplates: in a URL field a value goes in URL-encoded as the part
// of the URL it lands in, the template's first value (the URL's base) and
// urlraw() as they are; elsewhere nothing is encoded.
func TestURLTemplates(t *testing.T) {
	urlScope := scope
	urlScope.URL = true
	e := tmpl.Env{
		"params": map[string]any{"query": "x&injected=1#frag", "max_pages": "a b/c?d"},
		"config": map[string]any{"base": "http://127.0.0.1:8000/app"},
	}
	for _, tc := range []struct {
		src  string
		sc   tmpl.Scope
		want string
	}{
		{"${{ config.base }}/s?q=${{ params.query }}&n=2", urlScope, "http://127.0.0.1:8000/app/s?q=x%26injected%3D1%23frag&n=2"},
		{"${{ config.base }}/items/${{ params.max_pages }}/edit", urlScope, "http://127.0.0.1:8000/app/items/a%20b/c%3Fd/edit"},
		{"${{ config.base }}/s#${{ params.max_pages }}", urlScope, "http://127.0.0.1:8000/app/s#a%20b/c%3Fd"},
		{"${{ config.base }}/s?${{ urlraw(params.query) }}", urlScope, "http://127.0.0.1:8000/app/s?x&injected=1#frag"},
		{"${{ params.query }}", urlScope, "x&injected=1#frag"},
		{"q=${{ params.query }}", scope, "q=x&injected=1#frag"},
		{"q=${{ urlraw(params.query) }}", scope, "q=x&injected=1#frag"},
	} {
		var ps lint.Problems
		tm := tmpl.CompileTemplate(tc.src, tmpl.Site{File: "f.yaml"}, tc.sc, &ps)
		if len(ps) > 0 {
			t.Errorf("%q: %v", tc.src, ps.Err())
			continue
		}
		got, err := tm.String(e)
		if err != nil {
			t.Errorf("%q: %v", tc.src, err)
			continue
		}
		if got != tc.want {
			t.Errorf("%q (url %v) = %q, want %q", tc.src, tc.sc.URL, got, tc.want)
		}
	}
}

// TestNoMatchResults: findIndex and findLastIndex give -1 when nothing
// matches, so `< 0` means "not found"; find gives no value (nil), and a
// comparison with no value fails as an EvalError that says so (NoValue).
// Before: findIndex gave nil and `findIndex(...) < 0` failed at run time.
func TestNoMatchResults(t *testing.T) {
	e := tmpl.Env{"vars": map[string]any{"rows": []any{1, 2}}}
	for src, want := range map[string]any{
		"${{ findIndex(vars.rows, # == 5) }}":         -1,
		"${{ findLastIndex(vars.rows, # == 5) }}":     -1,
		"${{ findIndex(vars.rows, # == 2) }}":         1,
		"${{ findIndex(vars.rows, # == 5) < 0 }}":     true,
		"${{ find(vars.rows, # == 5) }}":              nil,
		"${{ find(vars.rows, # == 5) ?? 0 }}":         0,
		"${{ findLastIndex(vars.rows, # > 0) >= 0 }}": true,
	} {
		var ps lint.Problems
		tm := tmpl.CompileTemplate(src, tmpl.Site{File: "f.yaml"}, scope, &ps)
		if len(ps) > 0 {
			t.Errorf("%q: %v", src, ps.Err())
			continue
		}
		got, err := tm.Eval(e)
		if err != nil || !cmp.Equal(got, want) {
			t.Errorf("%q = %v, %v; want %v", src, got, err, want)
		}
	}
	var ps lint.Problems
	tm := tmpl.CompileTemplate("${{ find(vars.rows, # == 5) < 3 }}", tmpl.Site{File: "f.yaml"}, scope, &ps)
	_, err := tm.Eval(e)
	var ee *tmpl.EvalError
	if !errors.As(err, &ee) || !ee.NoValue || !strings.Contains(ee.Reason, "no value") {
		t.Errorf("a comparison with no value: %#v", err)
	}
}

// chunk(list, n) cuts a flat list into rows of n, and the rows are a list
// derived from that one: they keep its truncated mark (ListOf).
func TestChunk(t *testing.T) {
	e := tmpl.Env{"vars": map[string]any{"rows": []any{"a", "b", "c", "d", "e"}}}
	var ps lint.Problems
	tm := tmpl.CompileTemplate("${{ chunk(vars.rows, 2) }}", tmpl.Site{File: "f.yaml"}, scope, &ps)
	if len(ps) > 0 {
		t.Fatal(ps.Err())
	}
	got, err := tm.Eval(e)
	want := []any{[]any{"a", "b"}, []any{"c", "d"}, []any{"e"}}
	if err != nil || !cmp.Equal(got, want) {
		t.Errorf("chunk = %v, %v; want %v", got, err, want)
	}
	if fmt.Sprint(tm.ListOf) != "[rows]" {
		t.Errorf("ListOf = %q, want [rows]", tm.ListOf)
	}
	tm = tmpl.CompileTemplate("${{ chunk(vars.rows, 0) }}", tmpl.Site{File: "f.yaml"}, scope, &ps)
	if _, err := tm.Eval(e); err == nil || !strings.Contains(err.Error(), "at least 1") {
		t.Errorf("chunk by 0: %v", err)
	}
}

// TestNoValueComparisonWarning (issue 19.10: "a comparison that can meet
// no value is a load warning"): an ordering comparison with find's,
// findLast's, first's or last's result, or a field of it, is a warning
// (kind warning, at the side that can be no value), never an error; a
// default (??) or a nil check on the same value first silences it, and
// findIndex (-1 when nothing matches) never warns. Before, none of these
// gave any warning and the call ended assertion_failed at run time.
func TestNoValueComparisonWarning(t *testing.T) {
	for src, want := range map[string]string{
		"${{ find(vars.rows, # > 2) < 3 }}":                                  "find(...) can be no value (find finds nothing)",
		"${{ 1 <= findLast(vars.rows, # > 2).qty }}":                         "findLast(...).qty can be no value (findLast finds nothing)",
		"${{ first(vars.rows) > 0 }}":                                        "first(...) can be no value (the list is empty)",
		"${{ (find(vars.rows, # > 2) ?? 0) < 3 }}":                           "",
		"${{ find(vars.rows, # > 2) != nil && find(vars.rows, # > 2) < 3 }}": "",
		"${{ findIndex(vars.rows, # > 2) < 0 }}":                             "",
		"${{ find(vars.rows, # > 2) == nil }}":                               "",
	} {
		var ps lint.Problems
		tmpl.CompileTemplate(src, tmpl.Site{File: "f.yaml"}, scope, &ps)
		var got []string
		for _, p := range ps {
			if p.Kind != lint.Warning {
				t.Errorf("%q: a problem that is not a warning: %v", src, p)
			}
			got = append(got, p.Message)
		}
		switch {
		case want == "" && len(got) > 0:
			t.Errorf("%q: warned %q, want no warning", src, got)
		case want != "" && (len(got) != 1 || !strings.Contains(got[0], want) || !strings.Contains(got[0], "assertion_failed") || !strings.Contains(got[0], "??")):
			t.Errorf("%q: %q, want one warning containing %q", src, got, want)
		}
	}
}
