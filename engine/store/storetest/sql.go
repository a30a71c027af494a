package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"sync"
	"testing"

	"github.com/toolwright/toolwright/engine/store"
)

// What the SQL backends' fixtures share: raw access to their database
// through database/sql (the driver registered by whoever imports it), as
// an editor or a second writer would have it.

// ExecRaw runs q on the database at dsn through a connection of its own.
func ExecRaw(t testing.TB, driver, dsn, q string, args ...any) {
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

// HoldLock runs stmts on a connection of its own and keeps its transaction
// open (holding what it locked) until the returned func rolls it back, or
// the test ends.
func HoldLock(t testing.TB, driver, dsn string, stmts ...string) (unlock func()) {
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
	unlock = func() {
		once.Do(func() {
			conn.ExecContext(ctx, `ROLLBACK`)
			conn.Close()
			db.Close()
		})
	}
	t.Cleanup(unlock)
	return unlock
}

// PostgresSchema is a fresh schema in $TOOLWRIGHT_TEST_PG for one test,
// dropped when it ends: the URL that reaches it (through search_path),
// for the "pgx" driver. It skips t as PostgresURL does.
func PostgresSchema(t testing.TB) string {
	t.Helper()
	base := PostgresURL(t)
	var b [6]byte
	rand.Read(b[:])
	schema := "tw_test_" + hex.EncodeToString(b[:])
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admin.Exec(`CREATE SCHEMA ` + schema); err != nil {
		admin.Close()
		t.Fatalf("create schema in %s: %v", store.RedactURL(base), err)
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
