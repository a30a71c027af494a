package sqlstore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/toolwright/toolwright/engine/store"
	"github.com/toolwright/toolwright/engine/store/storetest"
)

func opts(o storetest.Options) Options {
	return Options{LeaseDuration: o.LeaseDuration, Now: o.Now, AuditKey: o.AuditKey, OldAuditKeys: o.OldAuditKeys, BusyTimeout: o.BusyTimeout}
}

// sqliteBackend makes a fresh file per test.
func sqliteBackend(t testing.TB) storetest.Database {
	path := filepath.Join(t.TempDir(), "state", FileName)
	return storetest.Database{
		Open: func(t testing.TB, o storetest.Options) store.Store {
			return openT(t, func() (*DB, error) { return OpenSQLite(path, opts(o)) })
		},
		Exec: func(t testing.TB, q string, args ...any) {
			t.Helper()
			execRaw(t, "sqlite", path, q, args...)
		},
		Lock:        func(t testing.TB) func() { return holdLock(t, "sqlite", path, `BEGIN IMMEDIATE`) },
		ReadyWrites: true,
	}
}

// pgURL is a fresh schema in $TOOLWRIGHT_TEST_PG for one test, dropped when
// it ends; the store reaches it through search_path.
func pgURL(t testing.TB) string {
	t.Helper()
	base := storetest.PostgresURL(t)
	var b [6]byte
	rand.Read(b[:])
	schema := "tw_test_" + hex.EncodeToString(b[:])
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(`CREATE SCHEMA ` + schema); err != nil {
		admin.Close()
		t.Fatalf("create schema in %s: %v", redactURL(base), err)
	}
	t.Cleanup(func() {
		admin.Exec(`DROP SCHEMA ` + schema + ` CASCADE`)
		admin.Close()
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

func postgresBackend(t testing.TB) storetest.Database {
	u := pgURL(t)
	return storetest.Database{
		Open: func(t testing.TB, o storetest.Options) store.Store {
			return openT(t, func() (*DB, error) { return OpenPostgres(u, opts(o)) })
		},
		Exec: func(t testing.TB, q string, args ...any) {
			t.Helper()
			execRaw(t, "pgx", u, q, args...)
		},
		Lock: func(t testing.TB) func() {
			return holdLock(t, "pgx", u, `BEGIN`, `LOCK TABLE idempotency, audit_head, traces, store_meta IN EXCLUSIVE MODE`)
		},
		LockAll: func(t testing.TB) func() {
			return holdLock(t, "pgx", u, `BEGIN`, `LOCK TABLE `+strings.Join(tableNames, ", ")+` IN ACCESS EXCLUSIVE MODE`)
		},
	}
}

// holdLock runs stmts on a connection of its own and keeps its transaction
// open (holding what it locked) until the returned func rolls it back.
func holdLock(t testing.TB, driver, dsn string, stmts ...string) func() {
	t.Helper()
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range stmts {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var once sync.Once
	unlock := func() {
		once.Do(func() {
			conn.ExecContext(ctx, `ROLLBACK`)
			conn.Close()
			db.Close()
		})
	}
	t.Cleanup(unlock)
	return unlock
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

// execRaw runs q through a connection of its own, as an editor would.
func execRaw(t testing.TB, driver, dsn, q string, args ...any) {
	t.Helper()
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(context.Background(), q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

func TestContractSQLite(t *testing.T) { storetest.Run(t, sqliteBackend) }

func TestContractPostgres(t *testing.T) {
	storetest.PostgresURL(t)
	storetest.Run(t, postgresBackend)
}

// tableNames are the store's tables, for tests that lock them all.
var tableNames = []string{"idempotency", "traces", "audit", "audit_head", "grants", "environments", "env_pool", "store_meta", "sessions", "handoffs"}
