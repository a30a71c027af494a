package postgres_test

import (
	"database/sql"
	"testing"

	"github.com/toolwright/toolwright/engine/store"
	"github.com/toolwright/toolwright/engine/store/postgres"
	"github.com/toolwright/toolwright/engine/store/storetest"
)

// TestContract runs the store contract on PostgreSQL ($TOOLWRIGHT_TEST_PG;
// skipped without it, except in CI): a fresh schema per test.
func TestContract(t *testing.T) {
	storetest.PostgresURL(t)
	storetest.Run(t, func(t testing.TB) storetest.Database {
		u := storetest.PostgresSchema(t)
		return storetest.Database{
			Open: func(t testing.TB, o storetest.Options) store.Store {
				t.Helper()
				s, err := postgres.Open(u, "", o.Store())
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { s.Close() })
				return s
			},
			Exec: func(t testing.TB, q string, args ...any) {
				t.Helper()
				storetest.ExecRaw(t, "pgx", u, q, args...)
			},
			Lock: func(t testing.TB) func() {
				return storetest.HoldLock(t, "pgx", u, `BEGIN`, `LOCK TABLE idempotency, audit_head, traces, store_meta IN EXCLUSIVE MODE`)
			},
			LockAll: func(t testing.TB) func() {
				return storetest.HoldLock(t, "pgx", u, `BEGIN`, `LOCK TABLE `+tables(t, u)+` IN ACCESS EXCLUSIVE MODE`)
			},
		}
	})
}

// tables names the store's tables in the schema u reaches (its migrations
// table aside), for a lock on all of them.
func tables(t testing.TB, u string) string {
	t.Helper()
	db, err := sql.Open("pgx", u)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var list string
	err = db.QueryRow(`SELECT string_agg(quote_ident(tablename), ', ' ORDER BY tablename) FROM pg_tables
		WHERE schemaname = current_schema() AND tablename <> 'schema_version'`).Scan(&list)
	if err != nil || list == "" {
		t.Fatalf("list the store's tables: %q, %v", list, err)
	}
	return list
}
