package project_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/testrun"
	"github.com/toolwright/toolwright/engine/workflow"
)

var update = flag.Bool("update", false, "rewrite golden files")

const repo = "../../.."

func testConfig(t *testing.T) *config.Config {
	t.Helper()
	path, _ := filepath.Abs(filepath.Join(repo, "testdata", "toolwright.yaml"))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg, ps := config.Parse(path, data)
	if len(ps) > 0 {
		t.Fatal(ps.Err())
	}
	return cfg
}

// check lints one corpus file with the checker its folder names.
func check(t *testing.T, cfg *config.Config, kind, path string) lint.Problems {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	switch kind {
	case "workflows":
		_, ps := workflow.LoadPaths(cfg, []string{path})
		return ps
	case "selectors":
		_, ps := selector.Parse(path, data)
		return ps
	case "config":
		_, ps := config.Parse(path, data)
		return ps
	case "tests":
		_, ps := testrun.Decode(path, data)
		return ps
	}
	t.Fatalf("unknown corpus folder %s", kind)
	return nil
}

type want struct {
	line, col int
	text      string
}

var wantRE = regexp.MustCompile(`(?m)^# want: (\d+):(\d+): (.*)$`)

func corpusFiles(t *testing.T, dir string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, kind := range []string{"workflows", "selectors", "config", "tests"} {
		err := filepath.WalkDir(filepath.Join(dir, kind), func(p string, d os.DirEntry, err error) error {
			if err != nil {
				if os.IsNotExist(err) {
					return filepath.SkipDir
				}
				return err
			}
			if !d.IsDir() && strings.HasSuffix(p, ".yaml") {
				abs, _ := filepath.Abs(p)
				out[kind] = append(out[kind], abs)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestMistakesCorpus: each file of testdata/lint/mistakes holds one mistake
// authors make (a few hold two of a kind), and says in its header where it
// must be reported and what the message must say (the fix). Exactly those
// problems, no knock-on ones: one mistake, one problem.
func TestMistakesCorpus(t *testing.T) {
	cfg := testConfig(t)
	root, _ := filepath.Abs(repo)
	files := corpusFiles(t, filepath.Join(repo, "testdata", "lint", "mistakes"))
	var all []string
	n := 0
	for kind, paths := range files {
		for _, p := range paths {
			n++
			data, _ := os.ReadFile(p)
			var wants []want
			for _, m := range wantRE.FindAllStringSubmatch(string(data), -1) {
				l, _ := strconv.Atoi(m[1])
				c, _ := strconv.Atoi(m[2])
				wants = append(wants, want{l, c, m[3]})
			}
			if len(wants) == 0 {
				t.Errorf("%s: no # want: line", p)
				continue
			}
			ps := check(t, cfg, kind, p)
			rel, _ := filepath.Rel(root, p)
			for _, pr := range ps {
				pr.File = filepath.ToSlash(rel)
				all = append(all, pr.String())
			}
			if len(ps) != len(wants) {
				t.Errorf("%s: want %d problem(s), got %d:\n%v", rel, len(wants), len(ps), ps.Err())
				continue
			}
			for _, w := range wants {
				found := false
				for _, pr := range ps {
					if pr.Line == w.line && pr.Col == w.col && strings.Contains(pr.Message, w.text) {
						found = true
					}
				}
				if !found {
					t.Errorf("%s: want a problem at %d:%d saying %q, got:\n%v", rel, w.line, w.col, w.text, ps.Err())
				}
			}
		}
	}
	if n < 80 {
		t.Errorf("the corpus has %d mistakes, want at least 80", n)
	}
	sort.Strings(all)
	goldenFile(t, "lint_mistakes.txt", []byte(strings.Join(all, "\n")+"\n"))
}

// TestTrickyCorpus: valid files that use YAML's less common forms
// (anchors and aliases, block scalars, comments everywhere, long forms,
// nested containers) validate cleanly.
func TestTrickyCorpus(t *testing.T) {
	cfg := testConfig(t)
	files := corpusFiles(t, filepath.Join(repo, "testdata", "lint", "tricky"))
	n := 0
	for kind, paths := range files {
		for _, p := range paths {
			n++
			if ps := check(t, cfg, kind, p); len(ps) > 0 {
				t.Errorf("%s must validate cleanly:\n%v", p, ps.Err())
			}
		}
	}
	if n == 0 {
		t.Fatal("no tricky files")
	}
}

func goldenFile(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join(repo, "testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	wantB, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(wantB), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got); rerun with -update if the change is right:\n%s", name, diff)
	}
}

var _ = fmt.Sprint
