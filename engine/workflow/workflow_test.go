package workflow_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/lint"
	_ "github.com/toolwright/toolwright/engine/step/kinds"
	"github.com/toolwright/toolwright/engine/workflow"
)

var update = flag.Bool("update", false, "rewrite golden files")

// repo is the repository root, from this package's folder.
const repo = "../.."

// testConfig reads testdata/toolwright.yaml without resolving secrets.
func testConfig(t testing.TB) *config.Config {
	t.Helper()
	path, err := filepath.Abs(filepath.Join(repo, "testdata", "toolwright.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg, ps := config.Parse(path, data)
	if len(ps) > 0 {
		t.Fatalf("test config: %v", ps.Err())
	}
	return cfg
}

// golden compares got with testdata/golden/NAME, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join(repo, "testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got); rerun with -update if the change is right:\n%s", name, diff)
	}
}

// relative prints problems with paths relative to the repository root.
func relative(t *testing.T, ps lint.Problems) []byte {
	root, err := filepath.Abs(repo)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, p := range ps {
		rel, err := filepath.Rel(root, p.File)
		if err == nil {
			p.File = filepath.ToSlash(rel)
		}
		b.WriteString(p.String() + "\n")
	}
	return []byte(b.String())
}

func TestGoodSetIsClean(t *testing.T) {
	cfg := testConfig(t)
	set, ps := workflow.Load(cfg)
	if len(ps) > 0 {
		t.Fatalf("problems in examples/demo/workflows:\n%v", ps.Err())
	}
	if len(set.Names()) == 0 {
		t.Fatal("no tools loaded")
	}
}

// TestLintGolden: every kind of mistake is reported, at its line and
// column, all of them in one run.
func TestLintGolden(t *testing.T) {
	cfg := testConfig(t)
	bad, err := filepath.Abs(filepath.Join(repo, "testdata", "lint", "bad"))
	if err != nil {
		t.Fatal(err)
	}
	_, ps := workflow.LoadPaths(cfg, []string{bad})
	golden(t, "lint_bad.txt", relative(t, ps))
	kinds := map[string]bool{}
	for _, p := range ps {
		kinds[p.Kind] = true
		if p.Line == 0 {
			t.Errorf("problem without a line: %s", p)
		}
	}
	for _, k := range []string{lint.Syntax, lint.UnknownKey, lint.UnknownKind, lint.BadValue, lint.Missing, lint.BadName, lint.Unbounded, lint.UnknownRef, lint.Expression, lint.Secret, lint.Risk, lint.Cycle} {
		if !kinds[k] {
			t.Errorf("no problem of kind %q in the bad corpus", k)
		}
	}
}

func TestSchemasGolden(t *testing.T) {
	root, err := filepath.Abs(repo)
	if err != nil {
		t.Fatal(err)
	}
	demo, ps := workflow.Load(testConfig(t))
	if len(ps) > 0 {
		t.Fatal(ps.Err())
	}
	defaults, ps := workflow.Load(config.Default(root))
	if len(ps) > 0 {
		t.Fatal(ps.Err())
	}
	for _, w := range append(demo.Tools(), defaults.Tools()...) {
		// The generated schema compiles (it is compiled lazily, on the first call).
		if _, err := w.Bind([]byte(`{"unknown_argument": 1}`)); err == nil || !strings.Contains(err.Error(), "invalid_params") {
			t.Errorf("%s: a bad call was not refused by its schema: %v", w.Name, err)
		}
		var in, out any
		if err := json.Unmarshal(w.InputSchema, &in); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(w.OutputSchema, &out); err != nil {
			t.Fatal(err)
		}
		b, _ := json.MarshalIndent(map[string]any{"input": json.RawMessage(w.InputSchema), "output": json.RawMessage(w.OutputSchema), "annotations": w.Annotations()}, "", "  ")
		golden(t, "schema_"+w.Name+".json", append(b, '\n'))
	}
}

func TestFileSchemaGolden(t *testing.T) {
	b, err := workflow.FileSchemaFor(nil)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "workflow.schema.json", append(b, '\n'))
}
