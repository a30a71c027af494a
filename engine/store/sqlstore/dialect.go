package sqlstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib" // also registers the "pgx" driver
	"modernc.org/sqlite"             // registers the "sqlite" driver
	sqlite3 "modernc.org/sqlite/lib"
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
	// busy reports an error that means another writer holds a lock.
	busy func(error) bool
	// retryBusy: a busy answer comes back after a short wait (SQLite's
	// busy_timeout on the write connection is sqliteAttemptWait,
	// PostgreSQL's lock_timeout is postgresAttemptWait), so a statement is
	// tried again until its own bound (DB.locked).
	retryBusy bool
	// probe is Ready's statement (health.go): $1 is the store_id seen at
	// open, $2 (probeWrite only) the time; it must affect one row (SQLite: an UPDATE, which
	// proves a write goes through) or return one row holding true
	// (PostgreSQL: the session may write, checked without a commit).
	probe      string
	probeWrite bool
	// oneWriter: every write goes through one connection (SQLite), so
	// writes queue for it in DB.locked before their lock wait starts.
	oneWriter bool
	// lost reports an error that means the connection to the server is
	// gone (nil where there is no server: SQLite).
	lost func(error) bool
}

// migrationLockKey is the pg_advisory_xact_lock key of toolwright's
// migrations ("toolwrig" in ASCII).
const migrationLockKey = 0x746f6f6c77726967

var sqliteDialect = dialect{
	name:       "sqlite",
	open:       openSQLiteDBs,
	snapshot:   sql.LevelDefault, // a read transaction is a snapshot in WAL mode
	prepare:    true,
	busy:       sqliteBusy,
	retryBusy:  true,
	probe:      `UPDATE store_meta SET checked_ms = $2 WHERE id = 1 AND store_id = $1`,
	probeWrite: true,
	oneWriter:  true,
}

// sqliteAttemptWait is the busy_timeout of SQLite's write connection: one
// attempt at the file's write lock; DB.locked tries again up to its bound.
const sqliteAttemptWait = 200 * time.Millisecond

func sqliteBusy(err error) bool {
	var e *sqlite.Error
	if !errors.As(err, &e) {
		return false
	}
	c := e.Code() & 0xff
	return c == sqlite3.SQLITE_BUSY || c == sqlite3.SQLITE_LOCKED
}

// postgresBusy is the one place a PostgreSQL error becomes store_busy: the
// SQLSTATEs of a lock another session holds (lock_timeout expired, a
// deadlock, a serialization failure).
func postgresBusy(err error) bool {
	var e *pgconn.PgError
	if !errors.As(err, &e) {
		return false
	}
	switch e.Code {
	case "55P03", "40P01", "40001": // lock_not_available, deadlock_detected, serialization_failure
		return true
	}
	return false
}

// postgresLost reports an error that means the server closed the session or
// the connection broke: the server was stopped or restarted, or an operator
// terminated the backend. Every idle connection of the pool is then likely
// dead too (DB.dropIdle).
func postgresLost(err error) bool {
	var e *pgconn.PgError
	if errors.As(err, &e) {
		switch e.Code {
		case "57P01", "57P02", "57P03": // admin_shutdown, crash_shutdown, cannot_connect_now
			return true
		}
		return false
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var ne net.Error
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, driver.ErrBadConn) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.As(err, &ne) || pgconn.SafeToRetry(err)
}

// postgresAttemptWait is the lock_timeout of every PostgreSQL session the
// store opens (unless the URL sets one): one statement waits this long for a
// lock another session holds (a row's, or a table's under LOCK TABLE, which
// in ACCESS EXCLUSIVE mode stops reads too), then fails with 55P03, and
// DB.locked tries again up to the operation's bound. So the writes and
// reads before a call runs answer store_busy within Options.LockWait, like
// SQLite, and no statement waits for a lock without end.
const postgresAttemptWait = 500 * time.Millisecond

var postgresDialect = dialect{
	name:        "postgres",
	open:        openPostgresDB,
	migrateLock: fmt.Sprintf(`SELECT pg_advisory_xact_lock(%d)`, int64(migrationLockKey)),
	lockRow:     ` FOR UPDATE`,
	snapshot:    sql.LevelRepeatableRead,
	busy:        postgresBusy,
	retryBusy:   true,
	lost:        postgresLost,
	// One round trip and no commit: the database is the one opened and
	// this session may write (not a standby after a failover, not
	// default_transaction_read_only). A full disk shows on the call's own
	// writes.
	probe: `SELECT NOT pg_is_in_recovery() AND current_setting('transaction_read_only') = 'off'
		FROM store_meta WHERE id = 1 AND store_id = $1`,
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
	if o.ReadOnly {
		// One read pool, refusing every write at the SQL level; no WAL
		// switch, which would write the file.
		q.Add("_pragma", "query_only(1)")
		rdb, err := sql.Open("sqlite", path+"?"+q.Encode())
		if err != nil {
			return nil, nil, err
		}
		rdb.SetMaxOpenConns(o.Conns)
		return rdb, rdb, nil
	}
	wq := url.Values{}
	wq.Set("_pragma", fmt.Sprintf("busy_timeout(%d)", sqliteAttemptWait.Milliseconds()))
	wq.Add("_pragma", "foreign_keys(1)")
	wq.Add("_pragma", "synchronous(NORMAL)")
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
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, nil, err
	}
	if _, set := cfg.RuntimeParams["lock_timeout"]; !set {
		cfg.RuntimeParams["lock_timeout"] = fmt.Sprint(postgresAttemptWait.Milliseconds())
	}
	db := stdlib.OpenDB(*cfg)
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
