package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolwright/toolwright/engine/store"
	"github.com/toolwright/toolwright/engine/store/storetest"
)

// schemaVersion is the schema version this build writes.
func schemaVersion() int { return len(migrations) }

func TestSQLiteSchemaAndWAL(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	s := openT(t, func() (*DB, error) { return OpenSQLite(path, Options{}) })
	s.Close()
	s = openT(t, func() (*DB, error) { return OpenSQLite(path, Options{}) })
	var n, v int
	if err := s.rdb.QueryRow(`SELECT COUNT(*), MAX(version) FROM schema_version`).Scan(&n, &v); err != nil {
		t.Fatal(err)
	}
	if n != schemaVersion() || v != schemaVersion() {
		t.Fatalf("schema_version has %d rows, max %d; want %d", n, v, schemaVersion())
	}
	var mode string
	s.rdb.QueryRow(`PRAGMA journal_mode`).Scan(&mode)
	if mode != "wal" {
		t.Fatalf("journal_mode %q, want wal", mode)
	}
	if _, err := s.wdb.Exec(`UPDATE schema_version SET version = 99`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := OpenSQLite(path, Options{}); err == nil || !strings.Contains(err.Error(), "newer than this toolwright") {
		t.Fatalf("opened a database from a newer toolwright: %v", err)
	}
}

func TestPostgresMigratesOnce(t *testing.T) {
	u := pgURL(t)
	// replicas starting together: every Open migrates under the advisory
	// lock, and the schema ends at one version row per migration.
	errc := make(chan error, 4)
	for range 4 {
		go func() {
			s, err := OpenPostgres(u, Options{})
			if err == nil {
				s.Close()
			}
			errc <- err
		}()
	}
	for range 4 {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	s := openT(t, func() (*DB, error) { return OpenPostgres(u, Options{}) })
	var n, v int
	if err := s.rdb.QueryRow(`SELECT COUNT(*), MAX(version) FROM schema_version`).Scan(&n, &v); err != nil {
		t.Fatal(err)
	}
	if n != schemaVersion() || v != schemaVersion() {
		t.Fatalf("schema_version has %d rows, max %d; want %d", n, v, schemaVersion())
	}
	if s.Backend() != "postgres" {
		t.Fatal(s.Backend())
	}
}

// TestReadOnlyOpenNeverWrites: a read-only open (audit verify) of a missing
// file, a 0-byte file or a database without toolwright's schema (SQLite and
// PostgreSQL) fails with store.ErrNoSchema (or store.ErrNoDatabase) and creates
// nothing; of a real store it reads the chain. Before there was no such
// open: verify migrated whatever it opened.
func TestReadOnlyOpenNeverWrites(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	if _, err := OpenSQLite(path, Options{ReadOnly: true}); !errors.Is(err, store.ErrNoDatabase) {
		t.Errorf("a missing file: %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a read-only open created the file: %v", err)
	}
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenSQLite(path, Options{ReadOnly: true}); !errors.Is(err, store.ErrNoSchema) {
		t.Errorf("a 0-byte file: %v", err)
	}
	if fi, _ := os.Stat(path); fi.Size() != 0 {
		t.Errorf("a read-only open wrote %d bytes", fi.Size())
	}
	os.Remove(path)
	s := openT(t, func() (*DB, error) { return OpenSQLite(path, Options{}) })
	if err := s.AppendAudit(context.Background(), &store.AuditRecord{Tool: "t", Code: "ok"}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	ro := openT(t, func() (*DB, error) { return OpenSQLite(path, Options{ReadOnly: true}) })
	if p, err := ro.CheckAudit(context.Background()); p != nil || err != nil {
		t.Errorf("read-only check of an intact chain: %v, %v", p, err)
	}
	if seq, _, err := ro.AuditHead(context.Background()); seq != 1 || err != nil {
		t.Errorf("read-only head: %d, %v", seq, err)
	}
	if err := ro.AppendAudit(context.Background(), &store.AuditRecord{Tool: "t", Code: "ok"}); err == nil {
		t.Error("a read-only store appended a record")
	}

	if os.Getenv(storetest.PostgresEnv) == "" {
		return
	}
	u := pgURL(t)
	if _, err := OpenPostgres(u, Options{ReadOnly: true}); !errors.Is(err, store.ErrNoSchema) {
		t.Errorf("an empty PostgreSQL schema: %v", err)
	}
	db, err := sql.Open("pgx", u)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var table sql.NullString
	if err := db.QueryRow(`SELECT to_regclass('schema_version')::text`).Scan(&table); err != nil || table.Valid {
		t.Errorf("the read-only open made a table: %v, %v", table, err)
	}
}
