package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	_ "modernc.org/sqlite"             // registers the "sqlite" driver
)

// dialect is everything SQLite and PostgreSQL do differently. The schema and
// every statement are shared: `$n` placeholders, INSERT ... ON CONFLICT DO
// NOTHING, conditional UPDATEs, the portable types TEXT, INTEGER and BIGINT.
type dialect struct {
	name string
	// open returns the write and read handles (the same pool on PostgreSQL).
	open func(dsn string, o Options) (w, r *sql.DB, err error)
	// migrateLock runs first in the migration transaction, so replicas that
	// start together migrate one at a time ("" where the write transaction
	// already serialises).
	migrateLock string
	// lockRow ends a SELECT that must lock the row it reads until the
	// transaction ends ("" where the write transaction already holds the
	// database's one write lock).
	lockRow string
	// snapshot is the isolation of a read that must see one consistent
	// state (CheckAudit).
	snapshot sql.IsolationLevel
	// prepare says whether to prepare hot statements once. pgx already
	// caches prepared statements per connection; preparing through
	// database/sql again would cost a round trip per transaction.
	prepare bool
}

// migrationLockKey is the pg_advisory_xact_lock key of toolwright's
// migrations ("toolwrig" in ASCII).
const migrationLockKey = 0x746f6f6c77726967

var sqliteDialect = dialect{
	name:     "sqlite",
	open:     openSQLiteDBs,
	snapshot: sql.LevelDefault, // a read transaction is a snapshot in WAL mode
	prepare:  true,
}

var postgresDialect = dialect{
	name:        "postgres",
	open:        openPostgresDB,
	migrateLock: fmt.Sprintf(`SELECT pg_advisory_xact_lock(%d)`, int64(migrationLockKey)),
	lockRow:     ` FOR UPDATE`,
	snapshot:    sql.LevelRepeatableRead,
}

// openSQLiteDBs opens one write connection (BEGIN IMMEDIATE, so writers from
// several processes queue on the file lock up front instead of failing when
// they upgrade a read lock; writers in one process queue in Go) and a read
// pool, both in WAL mode.
func openSQLiteDBs(path string, o Options) (*sql.DB, *sql.DB, error) {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", o.BusyTimeout.Milliseconds()))
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	wq := url.Values{}
	for k, v := range q {
		wq[k] = append([]string(nil), v...)
	}
	wq.Add("_pragma", "journal_mode(WAL)")
	wq.Set("_txlock", "immediate")

	wdb, err := sql.Open("sqlite", path+"?"+wq.Encode())
	if err != nil {
		return nil, nil, err
	}
	wdb.SetMaxOpenConns(1)
	wdb.SetMaxIdleConns(1)
	wdb.SetConnMaxLifetime(0)
	wdb.SetConnMaxIdleTime(0)
	// The read pool opens lazily, after migrate has set WAL mode on the file.
	rdb, err := sql.Open("sqlite", path+"?"+q.Encode())
	if err != nil {
		wdb.Close()
		return nil, nil, err
	}
	rdb.SetMaxOpenConns(o.Conns)
	rdb.SetMaxIdleConns(o.Conns)
	rdb.SetConnMaxIdleTime(0)
	return wdb, rdb, nil
}

// openPostgresDB opens one pool through pgx's database/sql driver.
func openPostgresDB(dsn string, o Options) (*sql.DB, *sql.DB, error) {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return nil, nil, err
	}
	db.SetMaxOpenConns(o.Conns)
	db.SetMaxIdleConns(o.Conns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), o.BusyTimeout)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, nil, err
	}
	return db, db, nil
}
