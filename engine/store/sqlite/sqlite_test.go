package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/toolwright/toolwright/engine/store"
	"github.com/toolwright/toolwright/engine/store/sqlite"
	"github.com/toolwright/toolwright/engine/store/sqlstore"
	"github.com/toolwright/toolwright/engine/store/storetest"
)

// TestContract runs the store contract on SQLite: a fresh state dir per
// test, opened as an empty store.url opens it.
func TestContract(t *testing.T) {
	storetest.Run(t, func(t testing.TB) storetest.Database {
		dir := filepath.Join(t.TempDir(), "state")
		path := filepath.Join(dir, sqlstore.FileName)
		return storetest.Database{
			Open: func(t testing.TB, o storetest.Options) store.Store {
				t.Helper()
				s, err := sqlite.Open("", dir, o.Store())
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { s.Close() })
				return s
			},
			Exec: func(t testing.TB, q string, args ...any) {
				t.Helper()
				storetest.ExecRaw(t, "sqlite", path, q, args...)
			},
			Lock:        func(t testing.TB) func() { return storetest.HoldLock(t, "sqlite", path, `BEGIN IMMEDIATE`) },
			ReadyWrites: true,
		}
	})
}
