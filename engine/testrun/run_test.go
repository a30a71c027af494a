package testrun

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"github.com/toolwright/toolwright/internal/testbrowser"
	"github.com/toolwright/toolwright/internal/testsite"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolwright/toolwright/engine/config"
)

// TestMain runs the parallel tests testsite.Parallel at a time, without
// the ACME_* variables the demo config reads its secrets from (as a
// machine without them: TestExamples, TestSkipsCasesNeedingAnUnsetSecret),
// unset once for the whole binary so those tests run in parallel too.
func TestMain(m *testing.M) {
	for _, n := range []string{"ACME_USER", "ACME_PASSWORD"} {
		os.Unsetenv(n)
	}
	testsite.Main(m)
}

// These tests run real cases on real Chromium against the demo site (examples/demo/site).

var durationRE = regexp.MustCompile(` \([0-9.]+(ns|µs|ms|s|m)\)$`)

// lines is the text output with durations taken out.
func lines(out string) []string {
	var ls []string
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		ls = append(ls, durationRE.ReplaceAllString(l, ""))
	}
	return ls
}

func runFiles(t *testing.T, base *config.Config, paths ...string) (*Report, string) {
	t.Helper()
	testbrowser.Config(t, base) // the cases' environments in the package's shared Chromium
	// A ceiling for the steps that set no timeout: at a load of ~20 (the
	// suite itself) the realsite orders' pages took over 10 s, the default.
	base.Limits.StepTimeout = time.Minute
	// A whole file of cases, on a loaded machine.
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	var out bytes.Buffer
	rep, err := Run(ctx, paths, Options{Config: base, Out: &out})
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	if len(rep.Problems) > 0 {
		t.Fatalf("problems: %v", rep.Problems.Err())
	}
	return rep, out.String()
}

// TestExamples runs examples/demo/tests with the demo config, as
// `toolwright --config examples/demo/toolwright.yaml test examples/demo/tests`
// does, without the ACME_* variables the config reads its secrets from.
func TestExamples(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	base, err := config.Load("../../examples/demo/toolwright.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if base.SecretsErr() == nil {
		t.Fatal("want the demo config to miss its secrets here")
	}
	rep, out := runFiles(t, base, "../../examples/demo/tests")
	if !rep.OK() || rep.Passed < 10 {
		t.Fatalf("want every case to pass:\n%s", out)
	}
	for _, l := range lines(out) {
		if !strings.HasPrefix(l, "== ") && !strings.HasPrefix(l, "PASS ") {
			t.Errorf("unexpected line %q", l)
		}
	}
}

// TestRealsiteExamples runs examples/realsite/tests, the workflows for a
// shop built like real ones (testdata/real/site), as
// `toolwright --config examples/realsite/toolwright.yaml test` does.
func TestRealsiteExamples(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	base, err := config.Load("../../examples/realsite/toolwright.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rep, out := runFiles(t, base, "../../examples/realsite/tests")
	if !rep.OK() || rep.Passed < 17 {
		t.Fatalf("want every case to pass:\n%s", out)
	}
}

// TestEnvironments runs an env: given flow on the default workflows, where
// later cases use the env_id of the first.
func TestEnvironments(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	rep, out := runFiles(t, config.Default(t.TempDir()), "../../testdata/testrun/environments.yaml")
	want := []string{
		"== ../../testdata/testrun/environments.yaml",
		"PASS prepare an environment",
		"PASS open the sign-in page in it",
		"PASS read the page's text",
		"PASS close it",
		"PASS a closed environment is gone",
	}
	if diff := cmp.Diff(want, lines(out)); diff != "" || !rep.OK() {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}

// failingLines is the output of testdata/testrun/failing.yaml, durations
// taken out.
var failingLines = []string{
	"== ../../testdata/testrun/failing.yaml",
	"FAIL wrong count: data.rows.count: want 15, got 10",
	"PASS right count",
	`FAIL a business error where success was expected: ok: want true, got false; message: want a string containing "sku", got "no product with SKU ACM-9999"`,
	"    got unknown_sku: no product with SKU ACM-9999",
	`FAIL a path that is not there: data.price: want a string matching /^EUR/, got "$129.00"; data.sku.first: want "A", got nothing (data.sku is "ACM-1001", which has no "first")`,
	`FAIL a case that uses a failed case: it uses case "a business error where success was expected", which did not pass`,
	`FAIL an exact map: data: want {"name":"Giant rubber band","sku":"ACM-1003"}, got {"name":"Giant rubber band","price":"$18.75","sku":"ACM-1003"} (data has the unexpected key "price")`,
}

// TestFailing proves that failures are reported with the right message.
func TestFailing(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	rep, out := runFiles(t, config.Default(t.TempDir()), "../../testdata/testrun/failing.yaml")
	if diff := cmp.Diff(failingLines, lines(out)); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
	if rep.OK() || rep.Passed != 1 || rep.Failed != 5 || rep.Summary() != "1 passed, 5 failed" {
		t.Errorf("report: passed %d, failed %d, summary %q", rep.Passed, rep.Failed, rep.Summary())
	}
	c := rep.Files[0].Cases[0]
	var env map[string]any
	if err := json.Unmarshal(c.Envelope, &env); err != nil || env["ok"] != true {
		t.Errorf("the report keeps the envelope: %s (%v)", c.Envelope, err)
	}
}

// TestCLI runs the toolwright binary: exit 1 on a failing case and on a
// file with problems, 0 when all pass, and the JSON report.
func TestCLI(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the toolwright binary")
	}
	testsite.NeedChromium(t)
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build toolwright")
	}
	bin := filepath.Join(t.TempDir(), "toolwright")
	build := exec.Command(goBin, "build", "-o", bin, "github.com/toolwright/toolwright/cmd/toolwright")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ACME_") {
			env = append(env, kv)
		}
	}
	tw := func(args ...string) (string, int) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = "../.."
		cmd.Env = env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if stderr.Len() > 0 {
			t.Logf("stderr of %v:\n%s", args, stderr.String())
		}
		return stdout.String(), code
	}

	out, code := tw("test", "testdata/testrun/failing.yaml", "--run", "^wrong count$")
	want := []string{
		"== testdata/testrun/failing.yaml",
		"FAIL wrong count: data.rows.count: want 15, got 10",
		"0 passed, 1 failed",
	}
	if diff := cmp.Diff(want, lines(out)); diff != "" || code != 1 {
		t.Errorf("failing case: exit %d, output (-want +got):\n%s", code, diff)
	}

	out, code = tw("--config", "examples/demo/toolwright.yaml", "test", "examples/demo/tests", "--run", "bounded|unknown sku is")
	want = []string{
		"== examples/demo/tests/products.yaml",
		"PASS an unknown sku is a business error",
		"== examples/demo/tests/search_catalog.yaml",
		"PASS max_pages is bounded",
		"2 passed, 0 failed",
	}
	if diff := cmp.Diff(want, lines(out)); diff != "" || code != 0 {
		t.Errorf("passing cases: exit %d, output (-want +got):\n%s", code, diff)
	}

	out, code = tw("test", "testdata/testrun/failing.yaml", "--run", "uses a failed", "--format", "json")
	var rep Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	// The case it uses runs too, and fails first.
	if code != 1 || rep.Passed != 0 || rep.Failed != 2 || len(rep.Files) != 1 || len(rep.Files[0].Cases) != 2 ||
		rep.Files[0].Cases[1].Failures[0] != `it uses case "a business error where success was expected", which did not pass` {
		t.Errorf("json: exit %d\n%s", code, out)
	}

	dir := t.TempDir()
	bad := writeTemp(t, dir, "bad.yaml", "cases:\n  - name: a\n    tool: search_catalog\n    expect: {ok: true, data.rows.cont: 1}\n    expct: {}\n")
	out, code = tw("--config", "examples/demo/toolwright.yaml", "test", bad)
	// A secret that cannot be read is no problem of the file: a case
	// needing it is skipped when the cases run (TestSkipsCasesNeedingAnUnsetSecret).
	want = []string{
		bad + `:5:5: case "a": unknown key "expct" (did you mean "expect"?)`,
		"1 problem in the test files; no case ran",
	}
	if diff := cmp.Diff(want, lines(out)); diff != "" || code != 1 {
		t.Errorf("problems: exit %d, output (-want +got):\n%s", code, diff)
	}
	writeFile(t, bad, "secrets: {acme_user: u@example.com, acme_password: pw-123456}\ncases:\n  - name: a\n    tool: search_catalog\n    args: {max_page: 1}\n    expect: {ok: true, data.rowz.count: 1}\n")
	out, code = tw("--config", "examples/demo/toolwright.yaml", "test", bad)
	want = []string{
		bad + `:5:12: case "a": tool "search_catalog" has no argument "max_page" (did you mean "max_pages"?); to test that it is refused, expect code: invalid_params`,
		bad + `:6:24: case "a" expect: tool "search_catalog" has no output "rowz" (did you mean "rows"?)`,
		"2 problems in the test files; no case ran",
	}
	if diff := cmp.Diff(want, lines(out)); diff != "" || code != 1 {
		t.Errorf("problems against the workflows: exit %d, output (-want +got):\n%s", code, diff)
	}
	// Every problem of a file in one run: its own (a misspelt key, a bad
	// matcher) and those against the workflows (an unknown argument, an
	// unknown output, an unknown tool), with positions.
	writeFile(t, bad, "secrets: {acme_user: u@example.com, acme_password: pw-123456}\ncases:\n  - name: a\n    tool: search_catalog\n    args: {max_page: 1}\n    expect: {ok: true, data.rowz.count: 1, code: {length: 2}}\n    grnt: true\n  - name: b\n    tool: serch_catalog\n    expect: {ok: true}\n")
	out, code = tw("--config", "examples/demo/toolwright.yaml", "test", bad)
	want = []string{
		bad + `:5:12: case "a": tool "search_catalog" has no argument "max_page" (did you mean "max_pages"?); to test that it is refused, expect code: invalid_params`,
		bad + `:6:24: case "a" expect: tool "search_catalog" has no output "rowz" (did you mean "rows"?)`,
		bad + `:6:51: case "a" expect code: unknown matcher "length" (did you mean "len"?); to compare a whole map, write {equals: {...}}`,
		bad + `:7:5: case "a": unknown key "grnt" (did you mean "grant"?)`,
		bad + `:9:11: case "b": unknown tool "serch_catalog" (did you mean "search_catalog"?)`,
		"5 problems in the test files; no case ran",
	}
	if diff := cmp.Diff(want, lines(out)); diff != "" || code != 1 {
		t.Errorf("all problems in one run: exit %d, output (-want +got):\n%s", code, diff)
	}
}

// TestSkipsCasesNeedingAnUnsetSecret (issue 23): a secret the config
// declares that cannot be read and the file does not set stops only the
// cases whose tool reads it (and the cases that use them): those are
// skipped, naming the secret and its source; the others run, and the run
// is not a failure. Failed before: "2 problems in the test files; no case
// ran".
func TestSkipsCasesNeedingAnUnsetSecret(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	base, err := config.Load("../../examples/demo/toolwright.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := writeTemp(t, dir, "mixed.yaml", `serve: `+absSite(t)+`
vars: {acme_base: "${{ site.url }}"}
secrets: {acme_user: buyer@example.com}
cases:
  - name: details of a product
    tool: product_details
    args: {sku: ACM-1002}
    expect: {ok: true, data.name: Rocket skates}
  - name: a search
    id: search
    tool: search_catalog
    args: {query: ""}
    expect: {ok: true}
  - name: uses the search
    tool: product_details
    args: {sku: "${{ cases.search.data.rows.items.0.sku }}"}
    expect: {ok: true}
`)
	rep, out := runFiles(t, base, file)
	want := []string{
		"== " + file,
		"PASS details of a product",
		`SKIP a search: tool "search_catalog" needs secret "acme_password", which cannot be read (environment variable ACME_PASSWORD is not set); set it, or give it a test value under secrets:`,
		`SKIP uses the search: it uses case "a search", which was skipped: tool "search_catalog" needs secret "acme_password", which cannot be read (environment variable ACME_PASSWORD is not set); set it, or give it a test value under secrets:`,
	}
	if diff := cmp.Diff(want, lines(out)); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
	if !rep.OK() || rep.Passed != 1 || rep.Failed != 0 || rep.Skipped != 2 || rep.Summary() != "1 passed, 0 failed, 2 skipped" {
		t.Errorf("report: ok %v, passed %d, failed %d, skipped %d, summary %q", rep.OK(), rep.Passed, rep.Failed, rep.Skipped, rep.Summary())
	}
	if len(rep.Files) == 1 && len(rep.Files[0].Cases) == 3 {
		if c := rep.Files[0].Cases[1]; c.Passed || c.Skipped == nil || !cmp.Equal(c.Skipped.Secrets, []string{"acme_password"}) || c.Envelope != nil {
			t.Errorf("skipped case in the report: %+v", c)
		}
	}
}
