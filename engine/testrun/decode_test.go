package testrun

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolwright/toolwright/engine/lint"
)

// inline is where inline test files pretend to live, so that serve: ../site
// is testdata/site.
const inline = "../../testdata/testrun/inline.yaml"

var inlinePos = lint.Pos{File: inline, Line: 1, Col: 1}

func problems(t *testing.T, src string) []string {
	t.Helper()
	_, ps := Decode(inline, []byte(src))
	out := []string{}
	for _, p := range ps {
		out = append(out, strings.TrimPrefix(p.String(), inline+":"))
	}
	return out
}

func TestDecode(t *testing.T) {
	t.Parallel()
	src := `serve: ../site
workflows: [../../examples/demo/workflows]
selectors: ../../examples/demo/selectors.yaml
vars:
  acme_base: ${{ site.url }}
  pages: 3
secrets: {acme_user: buyer@example.com}
cases:
  - name: first
    id: first
    tool: search_catalog
    args: {query: bolt}
    expect: {ok: true}
  - name: second
    tool: add_to_cart
    task_id: T-1
    grant: true
    args: {sku: "${{ cases.first.data.rows.items.0.sku }}", note: "$${{ not a ref }}"}
    expect:
      data.sku: ${{ cases.first.data.rows.items.0.sku }}
      message: {contains: x, matches: '^a', len: 3, exists: true}
`
	f, ps := Decode(inline, []byte(src))
	if len(ps) > 0 {
		t.Fatalf("problems: %v", ps.Err())
	}
	dir := filepath.Dir(inline)
	if f.Serve != filepath.Join(dir, "../site") || f.Selectors != filepath.Join(dir, "../../examples/demo/selectors.yaml") {
		t.Errorf("paths: serve %q, selectors %q", f.Serve, f.Selectors)
	}
	if diff := cmp.Diff([]string{filepath.Join(dir, "../../examples/demo/workflows")}, f.Workflows); diff != "" {
		t.Errorf("workflows (-want +got):\n%s", diff)
	}
	if len(f.vars) != 2 || f.vars[0].name != "acme_base" || f.vars[1].value != 3 {
		t.Errorf("vars: %+v", f.vars)
	}
	if f.secrets["acme_user"] != "buyer@example.com" {
		t.Errorf("secrets: %v", f.secrets)
	}
	if len(f.Cases) != 2 {
		t.Fatalf("cases: %d", len(f.Cases))
	}
	c := f.Cases[1]
	if c.Name != "second" || c.Tool != "add_to_cart" || c.TaskID != "T-1" || !c.Grant {
		t.Errorf("case: %+v", c)
	}
	if diff := cmp.Diff([]int{0}, c.needs); diff != "" {
		t.Errorf("needs (-want +got):\n%s", diff)
	}
	if c.args["note"] != "${{ not a ref }}" {
		t.Errorf("$${{ should be a literal ${{, got %#v", c.args["note"])
	}
	if len(c.expect) != 2 || c.expect[1].want.length == nil || *c.expect[1].want.length != 3 || c.expect[1].want.matches == nil {
		t.Errorf("expect: %+v", c.expect)
	}
}

func TestDecodeProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src string
		want      []string
	}{
		{
			name: "unknown keys",
			src: `servee: ../site
cases:
  - name: a
    tool: t
    arg: {x: 1}
    expect: {ok: true}
`,
			want: []string{
				`1:1: test file: unknown key "servee" (did you mean "serve"?)`,
				`5:5: case "a": unknown key "arg" (did you mean "args"?)`,
			},
		},
		{
			name: "missing parts",
			src: `cases:
  - tool: t
    expect: {}
  - name: b
    expect: {ok: true}
`,
			want: []string{
				`2:5: case 1: missing name (what the case shows)`,
				`3:13: case 1: expect is empty; name at least one envelope field, as in {ok: true}`,
				`4:5: case "b": missing tool (the tool to call)`,
			},
		},
		{
			name: "no cases",
			src:  "serve: ../site\n",
			want: []string{`1:1: test file: missing cases (the calls, run in order: a list of {name, tool, args, expect})`},
		},
		{
			name: "paths",
			src: `serve: ../nowhere
selectors: ../site
workflows: [../site/links.html, ../missing]
cases: []
`,
			want: []string{
				`1:8: serve: ../../testdata/nowhere does not exist (paths are relative to the test file's folder)`,
				`3:33: workflows item: ../../testdata/missing does not exist (paths are relative to the test file's folder)`,
				`4:8: cases: the list is empty`,
			},
		},
		{
			name: "case keys",
			src: `cases:
  - name: a
    id: First
    tool: t
    grant: true
    args: {task_id: T-1}
    expect: {ok: true}
  - name: a
    tool: t
    grant: yes
    expect: {ok: true}
`,
			want: []string{
				`3:9: case "a".id "First" must be lowercase letters, digits and _, starting with a letter`,
				`5:12: case "a": grant: true needs a task_id (a grant is for one tool and one task_id)`,
				`6:12: case "a": write task_id as a key of the case (task_id: T-1), not in args`,
				`8:5: case name "a" is used twice (also on line 2)`,
				`10:12: case "a".grant must be true or false, found "yes"`,
			},
		},
		{
			name: "expect paths and matchers",
			src: `cases:
  - name: a
    tool: t
    expect:
      okk: true
      code.x: 1
      data..rows: 1
      data.a: {contain: x}
      data.b: {contains: x, lenn: 3}
      data.c: {matches: "("}
      data.d: {exists: false, len: 1}
      data.e: {len: -1}
      data.f: {sku: x}
`,
			want: []string{
				`5:7: case "a" expect: unknown envelope field "okk" (did you mean "ok"?) (expect keys are dotted paths into the envelope: ok, code, message, retryable, needs_human, data, task_id, trace_id, attempts, duration_ms, step)`,
				`6:7: case "a" expect: code has no fields (only data has): write code: VALUE`,
				`7:7: case "a" expect: "data..rows" has an empty name between dots`,
				`8:16: case "a" expect data.a: unknown matcher "contain" (did you mean "contains"?); to compare a whole map, write {equals: {...}}`,
				`9:29: case "a" expect data.b: unknown matcher "lenn" (did you mean "len"?) (matchers: equals, contains, matches, len, exists); to compare a whole map, write {equals: {...}}`,
				`10:25: case "a" expect data.c: matches: "(" is not a regular expression (RE2): error parsing regexp: missing closing ): ` + "`(`",
				`11:15: case "a" expect data.d: exists: false cannot go with other matchers`,
				`12:21: case "a" expect data.e: len must be 0 or more, found -1`,
			},
		},
		{
			name: "references",
			src: `vars:
  a: ${{ site.url }}
  b: ${{ cases.one.ok }}
cases:
  - name: one
    id: one
    tool: t
    args:
      own: ${{ cases.one.ok }}
      later: ${{ cases.two.ok }}
      typo: ${{ cases.on.ok }}
      root: ${{ sit.url }}
      index: ${{ cases.one.data.items[0] }}
      expr: ${{ 1 + 2 }}
      open: ${{ site.url
    expect: {ok: true}
  - name: two
    id: two
    tool: t
    args: {x: "${{ cases.onr.data }}"}
    expect: {data.x: "${{ cases.one.data.x }}/y"}
`,
			want: []string{
				`2:6: ${{ site.url }} needs serve: a folder to serve for the cases`,
				`3:6: vars b: ${{ cases.one.ok }}: vars can use only site.url (no case has run yet)`,
				`9:12: case "one": ${{ cases.one.ok }}: a case cannot use its own envelope`,
				`10:14: case "one": ${{ cases.two.ok }}: case "two" comes later; a case can use only earlier cases`,
				`11:13: case "one": ${{ cases.on.ok }}: no earlier case has id "on" (give the earlier case an id: to use its envelope)`,
				`12:13: unknown name "sit.url" (did you mean "site.url"?); a test file can use site.url and cases.ID.PATH`,
				`13:14: ${{ cases.one.data.items[0] }}: write list indexes as .0, not [0]; a test file can use site.url and cases.ID.PATH`,
				`14:13: ${{ 1 + 2 }}: only a dotted name is allowed here, not an expression; a test file can use site.url and cases.ID.PATH`,
				`15:13: "${{ site.url": ${{ is not closed with }} (write $${{ for a literal ${{)`,
				`20:15: case "two": ${{ cases.onr.data }}: no earlier case has id "onr" (did you mean "one"?)`,
			},
		},
		{
			name: "syntax",
			src:  "cases:\n  - name: a\n   tool: t\n",
			want: []string{`1:1: YAML syntax: did not find expected '-' indicator`},
		},
		{
			name: "secrets",
			src: `secrets: {a: "", b: [x]}
cases: [{name: a, tool: t, expect: {ok: true}}]
`,
			want: []string{
				`1:14: secret a: give a test value`,
				`1:21: secrets.b must be a single value, found a list`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, problems(t, tt.src)); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

func TestTemplates(t *testing.T) {
	t.Parallel()
	sc := &scope{
		siteURL: "http://127.0.0.1:9",
		cases: map[string]any{"open": map[string]any{
			"ok":   true,
			"data": map[string]any{"env_id": "env_1", "count": float64(3), "rows": map[string]any{"items": []any{map[string]any{"sku": "ACM-1"}}}},
		}},
	}
	tests := []struct {
		src  string
		want any
		err  string
	}{
		{src: "plain", want: "plain"},
		{src: "${{ site.url }}/login.html", want: "http://127.0.0.1:9/login.html"},
		{src: "${{cases.open.data.env_id}}", want: "env_1"},
		{src: "${{ cases.open.data.count }}", want: float64(3)},
		{src: "${{ cases.open.ok }}", want: true},
		{src: "n=${{ cases.open.data.count }} ok=${{ cases.open.ok }}", want: "n=3 ok=true"},
		{src: "${{ cases.open.data.rows.items.0.sku }}", want: "ACM-1"},
		{src: "$${{ params.x }} and ${{ site.url }}", want: "${{ params.x }} and http://127.0.0.1:9"},
		{src: "${{ cases.open.data.rows.items.1.sku }}", err: "${{ cases.open.data.rows.items.1.sku }}: data.rows.items has 1 items, so no item 1"},
		{src: "${{ cases.open.data.env }}", err: `${{ cases.open.data.env }}: data has no key "env" (it has count, env_id, rows)`},
		{src: "${{ cases.open.data.env_ib }}", err: `${{ cases.open.data.env_ib }}: data has no key "env_ib" (did you mean "env_id"?)`},
		{src: "${{ cases.gone.ok }}", err: `${{ cases.gone.ok }}: case "gone" has not run`},
	}
	for _, tt := range tests {
		v, err := parseString(tt.src, inlinePos)
		if err != nil {
			t.Fatalf("%s: %v", tt.src, err)
		}
		got, err := resolve(v, sc)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("%s: want error %q, got %v (%v)", tt.src, tt.err, err, got)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.src, diff)
		}
	}
}
