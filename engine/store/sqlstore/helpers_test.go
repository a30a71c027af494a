package sqlstore

import (
	"testing"

	"github.com/toolwright/toolwright/engine/store/storetest"
)

// The store contract runs in the backends' packages (engine/store/sqlite,
// engine/store/postgres); these are the helpers of this package's own
// tests of the shared SQL.

// pgURL is a fresh schema in $TOOLWRIGHT_TEST_PG for one test, dropped when
// it ends; the store reaches it through search_path.
func pgURL(t testing.TB) string { return storetest.PostgresSchema(t) }

// holdLock runs stmts on a connection of its own and keeps its transaction
// open until the returned func rolls it back.
func holdLock(t testing.TB, driver, dsn string, stmts ...string) func() {
	t.Helper()
	return storetest.HoldLock(t, driver, dsn, stmts...)
}

func openT(t testing.TB, open func() (*DB, error)) *DB {
	t.Helper()
	s, err := open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
