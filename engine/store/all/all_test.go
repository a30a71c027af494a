package all_test

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/toolwright/toolwright/engine/store"
	_ "github.com/toolwright/toolwright/engine/store/all"
	"github.com/toolwright/toolwright/engine/store/sqlstore"
)

const module = "github.com/toolwright/toolwright/"

// TestEveryBackendRunsTheContract: every registered backend is tested by
// being registered: the package its Open lives in has a test that runs
// the store contract (storetest.Run), as engine/store/sqlite and
// engine/store/postgres do.
func TestEveryBackendRunsTheContract(t *testing.T) {
	t.Parallel()
	bs := store.Backends()
	if len(bs) < 2 || !bs[0].Default {
		t.Fatalf("backends %v: want sqlite (the default) and postgres at least", bs)
	}
	for _, b := range bs {
		fn := runtime.FuncForPC(reflect.ValueOf(b.Open).Pointer()).Name() // .../engine/store/sqlite.Open
		pkg := fn[:strings.LastIndex(fn, ".")]
		rel, ours := strings.CutPrefix(pkg, module)
		if !ours {
			t.Errorf("backend %s opens from %s, outside this module", b.Name, pkg)
			continue
		}
		tests, _ := filepath.Glob(filepath.Join("..", "..", "..", filepath.FromSlash(rel), "*_test.go"))
		runs := false
		for _, f := range tests {
			src, err := os.ReadFile(f)
			runs = runs || err == nil && strings.Contains(string(src), "storetest.Run(")
		}
		if !runs {
			t.Errorf("backend %s is registered, but no test of %s runs the store contract (storetest.Run)", b.Name, rel)
		}
	}
}

// TestOpenPicksBackend: store.Open picks the backend by store.url: the
// default for an empty one, the one registered for its scheme otherwise;
// any other url is refused naming what is wanted, and no error shows a
// password.
func TestOpenPicksBackend(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, err := store.Open("", dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if db, ok := s.(*sqlstore.DB); !ok || db.Backend() != "sqlite" || db.Where() != filepath.Join(dir, sqlstore.FileName) {
		t.Fatalf("empty url: %T", s)
	}
	for _, u := range []string{"mysql://x", "sqlite:///tmp/x.db", "127.0.0.1:5432"} {
		if _, err := store.Open(u, dir, store.Options{}); err == nil || !strings.Contains(err.Error(), "want empty (SQLite in state_dir) or postgres://user:pass@host:5432/db") {
			t.Errorf("Open(%q): %v", u, err)
		}
	}
	_, err = store.Open("postgres://tw:s3cret@127.0.0.1:1/db?connect_timeout=1", dir, store.Options{BusyTimeout: 1})
	if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "tw:xxxxx@127.0.0.1:1") {
		t.Fatalf("unreachable postgres: %v", err)
	}
	if _, err := store.Open("", "", store.Options{}); err == nil {
		t.Fatal("an empty url without a state dir opened")
	}
}
