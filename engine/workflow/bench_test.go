package workflow_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolwright/toolwright/engine/workflow"
)

// writeMany writes n copies of search_catalog under distinct names.
func writeMany(tb testing.TB, n int) string {
	tb.Helper()
	src, err := os.ReadFile(filepath.Join(repo, "examples", "demo", "workflows", "search_catalog.yaml"))
	if err != nil {
		tb.Fatal(err)
	}
	dir := tb.TempDir()
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("search_catalog_%03d", i)
		data := strings.Replace(string(src), "name: search_catalog", "name: "+name, 1)
		if err := os.WriteFile(filepath.Join(dir, name+".yaml"), []byte(data), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

// BenchmarkLoad200 loads, lints, compiles and generates schemas for 200 workflows.
func BenchmarkLoad200(b *testing.B) {
	cfg := testConfig(b)
	cfg.Workflows = writeMany(b, 200)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		set, ps := workflow.Load(cfg)
		if len(ps) > 0 || len(set.Names()) != 200 {
			b.Fatalf("%d tools, problems: %v", len(set.Names()), ps.Err())
		}
	}
}

// BenchmarkLoad200Distinct is BenchmarkLoad200 where no two files, and no
// two iterations, share an expression (each copy's expressions start with
// a comment holding its own number), so the loader's cache of compiled
// expressions never answers: the cost of a set of 200 different workflows.
func BenchmarkLoad200Distinct(b *testing.B) {
	cfg := testConfig(b)
	src, err := os.ReadFile(filepath.Join(repo, "examples", "demo", "workflows", "search_catalog.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dir := b.TempDir()
		for j := 0; j < 200; j++ {
			name := fmt.Sprintf("search_catalog_%03d", j)
			data := strings.Replace(string(src), "name: search_catalog", "name: "+name, 1)
			tag := fmt.Sprintf("${{ /*%07d*/ ", i*200+j)
			data = strings.ReplaceAll(data, "${{ ", tag)
			data = strings.ReplaceAll(data, tag+"params.max_pages", "${{ params.max_pages") // a loop bound is a plain reference
			if err := os.WriteFile(filepath.Join(dir, name+".yaml"), []byte(data), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		cfg.Workflows = dir
		b.StartTimer()
		set, ps := workflow.Load(cfg)
		if len(ps) > 0 || len(set.Names()) != 200 {
			b.Fatalf("%d tools, problems: %v", len(set.Names()), ps.Err())
		}
	}
}

// BenchmarkBind validates and binds the arguments of one call.
func BenchmarkBind(b *testing.B) {
	cfg := testConfig(b)
	set, ps := workflow.Load(cfg)
	if len(ps) > 0 {
		b.Fatal(ps.Err())
	}
	w, _ := set.Tool("search_catalog")
	raw := []byte(`{"query":"widget","max_pages":3,"task_id":"T-1"}`)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := w.Bind(raw); err != nil {
			b.Fatal(err)
		}
	}
}

func writeTestFile(tb testing.TB, path, body string) {
	tb.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		tb.Fatal(err)
	}
}
