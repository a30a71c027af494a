package testrun

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/engine/workflow"
)

// evalCase decodes one case whose expect is given, and checks it against env.
func evalCase(t *testing.T, expect string, env *result.Envelope, sc *scope) []string {
	t.Helper()
	src := "cases:\n  - {name: prev, id: prev, tool: t, expect: {ok: true}}\n  - name: c\n    tool: t\n    expect:\n" + indent(expect, "      ")
	f, ps := Decode(inline, []byte(src))
	if len(ps) > 0 {
		t.Fatalf("%s: %v", expect, ps.Err())
	}
	tree := EnvelopeTree(env)
	out := []string{}
	for _, ch := range f.Cases[1].expect {
		if msg := ch.eval(tree, sc); msg != "" {
			out = append(out, msg)
		}
	}
	return out
}

func indent(s, by string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = by + l
	}
	return strings.Join(lines, "\n") + "\n"
}

func TestExpect(t *testing.T) {
	t.Parallel()
	rows := result.NewList([]any{
		map[string]any{"sku": "ACM-1005", "name": "Hex bolt M8, box of 100", "price": "$12.40"},
		map[string]any{"sku": "ACM-1006", "name": "Hex bolt M10, box of 50", "price": "$14.90"},
	}, true, 0)
	ok := result.Success(map[string]any{"rows": rows, "pages": 2, "tags": []any{"a", "b"}})
	ok.TaskID, ok.TraceID, ok.Attempts = "T-1", "tr_1", 1
	bad := result.Failure(errs.New(errs.InvalidParams, "argument %q must be at most 5 (rule: maximum)", "max_pages"))
	sc := &scope{cases: map[string]any{"prev": EnvelopeTree(ok)}}
	tests := []struct {
		name   string
		env    *result.Envelope
		expect string
		want   []string
	}{
		{"all hold", ok, `ok: true
code: ok
message: ""
step: ""
retryable: false
task_id: T-1
data.pages: 2
data.rows.count: 2
data.rows.truncated: true
data.rows.items.1.sku: ACM-1006
data.rows.items.0: {sku: ACM-1005, name: "Hex bolt M8, box of 100", price: "$12.40"}
data.rows.items: {len: 2}
data.rows.items.0.name: {contains: bolt, matches: '^Hex', len: 23}
data.tags: {contains: b}
data.tags.0: {exists: true}
data.nothing: {exists: false}
data.nothing.deeper: null
data.tags.1: ${{ cases.prev.data.tags.1 }}
trace_id: ${{ cases.prev.trace_id }}
data.rows.items.0.sku: "${{ cases.prev.data.rows.items.0.sku }}"`, nil},
		{"scalars", ok, `ok: false
code: invalid_params
data.pages: 3
data.rows.count: "2"
attempts: 2`, []string{
			`ok: want false, got true`,
			`code: want "invalid_params", got "ok"`,
			`data.pages: want 3, got 2`,
			`data.rows.count: want "2", got 2`,
			`attempts: want 2, got 1`,
		}},
		{"missing paths", ok, `data.rowz.count: 2
data.rows.items.5.sku: x
data.rows.items.first: x
data.pages.x: 1
data.rows.items.0.sku: {exists: false}
data.gone: {exists: true}`, []string{
			`data.rowz.count: want 2, got nothing (data has no key "rowz" (did you mean "rows"?))`,
			`data.rows.items.5.sku: want "x", got nothing (data.rows.items has 2 items, so no item 5)`,
			`data.rows.items.first: want "x", got nothing (data.rows.items is a list: index it with a number, as in data.rows.items.0)`,
			`data.pages.x: want 1, got nothing (data.pages is 2, which has no "x")`,
			`data.rows.items.0.sku: want nothing, got "ACM-1005"`,
			`data.gone: want a value, got nothing (data has no key "gone" (it has pages, rows, tags))`,
		}},
		{"matchers", ok, `data.rows.items.0.name: {contains: nut}
data.tags: {contains: c}
data.pages: {contains: 2}
data.rows.items.0.price: {matches: '^EUR'}
data.rows.count: {matches: '2'}
data.rows.items: {len: 3}
data.rows.truncated: {len: 1}`, []string{
			`data.rows.items.0.name: want a string containing "nut", got "Hex bolt M8, box of 100"`,
			`data.tags: want a list containing "c", got ["a","b"]`,
			`data.pages: want a string or list containing 2, got 2`,
			`data.rows.items.0.price: want a string matching /^EUR/, got "$12.40"`,
			`data.rows.count: want a string matching /2/, got 2`,
			`data.rows.items: want length 3, got length 2`,
			`data.rows.truncated: want length 1, got true, which has no length`,
		}},
		{"maps and lists", ok, `data.rows.items.0: {sku: ACM-1005, name: "Hex bolt M8, box of 100"}
data.rows.items.1: {sku: ACM-1006, name: "Hex bolt M10, box of 50", price: "$14.90", qty: 1}
data.tags: [a, c]
data.rows: {equals: {count: 2}}`, []string{
			`data.rows.items.0: want {"name":"Hex bolt M8, box of 100","sku":"ACM-1005"}, got {"name":"Hex bolt M8, box of 100","price":"$12.40","sku":"ACM-1005"} (data.rows.items.0 has the unexpected key "price")`,
			`data.rows.items.1: want {"name":"Hex bolt M10, box of 50","price":"$14.90","qty":1,"sku":"ACM-1006"}, got {"name":"Hex bolt M10, box of 50","price":"$14.90","sku":"ACM-1006"} (data.rows.items.1 has no key "qty")`,
			`data.tags: want ["a","c"], got ["a","b"] (at data.tags.1: want "c", got "b")`,
			`data.rows: want {"count":2}, got {"count":2,"items":[{"name":"Hex bolt M8, box of 100","price":"$12.40","sku":"ACM-1005"},{"name":"Hex bolt M10, box of 50","price":"$14.90","sku":"ACM-1006"}],"truncated":true} (data.rows has the unexpected key "items")`,
		}},
		{"a failure", bad, `ok: false
code: invalid_params
message: {contains: max_pages}
data: {}
data.rows.count: 15
task_id: ""`, []string{
			`data.rows.count: want 15, got nothing (data has no key "rows" (it is empty))`,
		}},
		{"a reference that does not resolve", ok, `data.pages: ${{ cases.prev.data.page }}`, []string{
			`data.pages: ${{ cases.prev.data.page }}: data has no key "page" (did you mean "pages"?)`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := evalCase(t, tt.expect, tt.env, sc)
			if tt.want == nil {
				tt.want = []string{}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("failures (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCaseLine(t *testing.T) {
	t.Parallel()
	c := &CaseReport{Name: "n", Failures: []string{"a: want 1, got 2", "b: want 3, got 4"},
		got: EnvelopeTree(result.Failure(errs.New("unknown_sku", "no product with SKU ACM-9999")))}
	if got, want := c.Line(), "FAIL n: a: want 1, got 2; b: want 3, got 4\n    got unknown_sku: no product with SKU ACM-9999"; got != want {
		t.Errorf("line:\n%s\nwant:\n%s", got, want)
	}
	c = &CaseReport{Name: "n", Passed: true, duration: 812_345_678}
	if got, want := c.Line(), "PASS n (812ms)"; got != want {
		t.Errorf("line %q, want %q", got, want)
	}
}

// demoSet loads the demo workflows without a browser.
func demoSet(t *testing.T) *workflow.Set {
	t.Helper()
	cfg := config.Default(t.TempDir())
	cfg.Workflows = "../../examples/demo/workflows"
	cfg.Selectors = "../../examples/demo/selectors.yaml"
	cfg.Vars["acme_base"] = "http://127.0.0.1:1"
	cfg.SetSecretValue("acme_user", "u")
	cfg.SetSecretValue("acme_password", "p")
	set, ps := workflow.Load(cfg)
	if len(ps) > 0 {
		t.Fatal(ps.Err())
	}
	return set
}

func TestCheck(t *testing.T) {
	t.Parallel()
	src := `cases:
  - name: typo in the tool
    tool: serch_catalog
    expect: {ok: true}
  - name: typo in an argument
    tool: search_catalog
    args: {query: x, max_page: 2}
    expect: {ok: true, data.rowz.count: 1, data.rows.count: 1}
  - name: refusing an unknown argument on purpose
    tool: search_catalog
    args: {max_page: 2}
    expect: {code: invalid_params}
  - name: grant on a read tool
    tool: product_details
    task_id: T-1
    grant: true
    args: {sku: ACM-1001, env_id: e}
    expect: {ok: true}
  - name: grant on a write tool
    tool: add_to_cart
    task_id: T-1
    grant: true
    args: {sku: ACM-1001}
    expect: {ok: true, data.name: x}
`
	f, ps := Decode(inline, []byte(src))
	if len(ps) > 0 {
		t.Fatal(ps.Err())
	}
	var got []string
	for _, p := range checkCases(f, demoSet(t), nil) {
		got = append(got, strings.TrimPrefix(p.String(), inline+":"))
	}
	want := []string{
		`3:11: case "typo in the tool": unknown tool "serch_catalog" (did you mean "search_catalog"?)`,
		`7:22: case "typo in an argument": tool "search_catalog" has no argument "max_page" (did you mean "max_pages"?); to test that it is refused, expect code: invalid_params`,
		`8:24: case "typo in an argument" expect: tool "search_catalog" has no output "rowz" (did you mean "rows"?)`,
		`16:12: case "grant on a read tool": grant: true, but "product_details" is a risk: read tool and needs no grant`,
		`17:27: case "grant on a read tool": tool "product_details" has no argument "env_id" (it has sku); to test that it is refused, expect code: invalid_params`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

// TestDeriveCopiesConfig fails when config.Config grows a field that
// derive does not know about: a test run must not silently drop a setting.
func TestDeriveCopiesConfig(t *testing.T) {
	t.Parallel()
	// Store, ArtifactsDir, Audit and Retention are left out on purpose (a
	// test run keeps its records and files under its own throwaway state
	// dir: never in shared ones, keyed by the server's audit key or pruned);
	// GrantCommand keeps its default so messages name plain `toolwright grant`;
	// ShutdownGrace is for serve, not for test runs; StateDirNote says why a
	// state dir was chosen, and a test run chooses its own; UI (the hand-over
	// link) keeps its default; Sessions stays off (its
	// default, no key): a test case signs in as written, never with a saved
	// session of the server's.
	copied := []string{"Sessions", "StateDirNote", "UI", "File", "Workflows", "Selectors", "StateDir", "UploadsDir", "Store", "ArtifactsDir", "Audit", "Retention", "Vars", "Secrets", "Browser", "Regions", "WarmupURL", "Policy", "Repair", "Limits", "HTTP", "GrantCommand", "ShutdownGrace"}
	var fields []string
	for _, f := range reflect.VisibleFields(reflect.TypeFor[config.Config]()) {
		if f.IsExported() {
			fields = append(fields, f.Name)
		}
	}
	sort.Strings(copied)
	sort.Strings(fields)
	if diff := cmp.Diff(copied, fields); diff != "" {
		t.Errorf("config.Config changed: update derive and this list (-known +now):\n%s", diff)
	}
}

func TestDerive(t *testing.T) {
	dir := t.TempDir()
	cfgFile := filepath.Join(dir, "toolwright.yaml")
	demo, err := filepath.Abs("../../examples/demo")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, cfgFile, `workflows: `+demo+`/workflows
selectors: `+demo+`/selectors.yaml
vars: {acme_base: "http://127.0.0.1:8000", other: 1}
secrets:
  acme_user: {env: TOOLWRIGHT_TESTRUN_NO_SUCH_VAR, redact: false}
  acme_password: {env: TOOLWRIGHT_TESTRUN_NO_SUCH_VAR}
  unused: {env: TOOLWRIGHT_TESTRUN_NO_SUCH_VAR}
policy: {write_tools: grant, allowed_hosts: [example.com]}
limits: {max_loop: 7}
`)
	base, err := config.Load(cfgFile)
	if err != nil {
		t.Fatal(err)
	}
	if base.SecretsErr() == nil {
		t.Fatal("the base config should miss its secrets")
	}
	f, ps := Decode(inline, []byte(`serve: ../site
vars: {acme_base: "${{ site.url }}/x"}
secrets: {acme_user: buyer@example.com, extra: e}
cases: [{name: a, tool: t, expect: {ok: true}}]
`))
	if len(ps) > 0 {
		t.Fatal(ps.Err())
	}
	state := filepath.Join(dir, "state")
	cfg, err := derive(base, f, state, &scope{siteURL: "http://127.0.0.1:5"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.SecretsErr() != nil {
		t.Errorf("the derived config has a secrets error: %v", cfg.SecretsErr())
	}
	if cfg.StateDir != state || cfg.Workflows != base.Workflows || cfg.Limits.MaxLoop != 7 || cfg.Policy.WriteTools != "grant" {
		t.Errorf("config: %+v", cfg)
	}
	if diff := cmp.Diff(map[string]any{"acme_base": "http://127.0.0.1:5/x", "other": 1, "warmup_url": ""}, cfg.Vars); diff != "" {
		t.Errorf("vars (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"example.com", "127.0.0.1"}, cfg.Policy.AllowedHosts); diff != "" {
		t.Errorf("allowed_hosts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"acme_user": "buyer@example.com", "extra": "e"}, cfg.SecretValues()); diff != "" {
		t.Errorf("secrets (-want +got):\n%s", diff)
	}
	// acme_user is an identity (redact: false) in the config: its test
	// value is not redacted either.
	if diff := cmp.Diff(map[string]string{"extra": "e"}, cfg.RedactedValues()); diff != "" {
		t.Errorf("redacted secrets (-want +got):\n%s", diff)
	}
	// A secret that cannot be read stays declared and missing: a workflow
	// may name it, and a call reading it answers config_error.
	if diff := cmp.Diff([]string{"acme_password", "unused"}, cfg.MissingSecrets()); diff != "" {
		t.Errorf("missing secrets (-want +got):\n%s", diff)
	}
	if cfg.MissingSecret("acme_password") != "environment variable TOOLWRIGHT_TESTRUN_NO_SUCH_VAR is not set" {
		t.Errorf("why acme_password is missing: %q", cfg.MissingSecret("acme_password"))
	}
	if len(base.Policy.AllowedHosts) != 1 {
		t.Errorf("derive changed the base config: %v", base.Policy.AllowedHosts)
	}
	// So a workflow that uses the missing secret loads: no problem (its
	// cases are skipped when they run, see TestSkipsCasesNeedingAnUnsetSecret).
	p, ps, err := prepare(writeTemp(t, dir, "t.yaml", `serve: `+absSite(t)+`
vars: {acme_base: "${{ site.url }}"}
secrets: {acme_user: buyer@example.com}
cases: [{name: a, tool: search_catalog, expect: {ok: true}}]
`), base, state)
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	if len(ps) > 0 || p.set == nil {
		t.Errorf("problems: %v", ps.Err())
	}
}

func TestSelected(t *testing.T) {
	t.Parallel()
	f, ps := Decode(inline, []byte(`cases:
  - {name: open, id: open, tool: t, expect: {ok: true}}
  - {name: other, id: other, tool: t, expect: {ok: true}}
  - {name: use, id: use, tool: t, args: {e: "${{ cases.open.data.x }}"}, expect: {ok: true}}
  - {name: use use, tool: t, args: {e: "${{ cases.use.data.x }}"}, expect: {ok: true}}
`))
	if len(ps) > 0 {
		t.Fatal(ps.Err())
	}
	p := &prepared{file: f}
	for re, want := range map[string][]bool{
		"":         {true, true, true, true},
		"^use use": {true, false, true, true},
		"other":    {false, true, false, false},
		"nothing":  {false, false, false, false},
	} {
		var filter *regexp.Regexp
		if re != "" {
			filter = regexp.MustCompile(re)
		}
		if diff := cmp.Diff(want, p.selected(filter)); diff != "" {
			t.Errorf("--run %q (-want +got):\n%s", re, diff)
		}
	}
}

func TestRunProblems(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := writeTemp(t, dir, "bad.yaml", "cases:\n  - name: a\n    tool: nope\n    expect: {okk: true}\n")
	rep, err := Run(context.Background(), []string{dir}, Options{Config: config.Default(dir)})
	if err != nil {
		t.Fatal(err)
	}
	// Both problems in one run: the file's own and the one against the workflows.
	if rep.OK() || len(rep.Problems) != 2 || rep.Summary() != "2 problems in the test files; no case ran" {
		t.Fatalf("report: %+v", rep)
	}
	if got := rep.Problems[0].String(); got != bad+`:3:11: case "a": unknown tool "nope"` {
		t.Errorf("problem: %s", got)
	}
	if got := rep.Problems[1].String(); !strings.HasPrefix(got, bad+`:4:14: case "a" expect: unknown envelope field "okk" (did you mean "ok"?)`) {
		t.Errorf("problem: %s", got)
	}
	if _, err := Run(context.Background(), []string{filepath.Join(dir, "missing")}, Options{Config: config.Default(dir)}); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("a missing path: %v", err)
	}
	empty := t.TempDir()
	if _, err := Run(context.Background(), []string{empty}, Options{Config: config.Default(dir)}); err == nil || !strings.Contains(err.Error(), "no test files") {
		t.Errorf("an empty folder: %v", err)
	}
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeTemp(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	writeFile(t, p, body)
	return p
}

func absSite(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs("../../examples/demo/site")
	if err != nil {
		t.Fatal(err)
	}
	return p
}
