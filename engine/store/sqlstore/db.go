// Package sqlstore implements store.Store over database/sql on SQLite
// (modernc.org/sqlite, pure Go) and PostgreSQL (github.com/jackc/pgx/v5).
// Both run one schema and the same SQL; dialect.go holds the few places they
// differ.
//
// SQLite is one file, <state_dir>/toolwright.db, in WAL mode, so a running
// `toolwright serve` and a CLI command such as `toolwright grant` can use it
// at the same time. PostgreSQL is what several replicas share.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toolwright/toolwright/engine/backoff"
	"github.com/toolwright/toolwright/engine/store"
)

// Options tune a store (store.Options). The zero value is the default.
type Options = store.Options

func withDefaults(o Options, d *dialect) Options {
	if o.BusyTimeout <= 0 {
		o.BusyTimeout = 10 * time.Second
	}
	if o.LockWait <= 0 {
		o.LockWait = 1500 * time.Millisecond
	}
	if o.IdempotencyTTL <= 0 {
		o.IdempotencyTTL = store.DefaultIdempotencyTTL
	}
	if o.LeaseDuration <= 0 {
		o.LeaseDuration = 30 * time.Second
	}
	if o.Conns <= 0 {
		o.Conns = 4
		if d == &postgresDialect {
			o.Conns = 16
		}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// DB is a store.Store on SQLite or PostgreSQL. It is safe for concurrent use
// by many goroutines, and several processes may open the same database.
type DB struct {
	d     *dialect
	where string // the file, or the PostgreSQL URL without its password
	opts  Options
	wdb   *sql.DB // SQLite: one connection, BEGIN IMMEDIATE; PostgreSQL: the pool
	rdb   *sql.DB // SQLite: the read pool; PostgreSQL: the same pool
	now   func() time.Time

	q queries

	gateMu   sync.Mutex
	inflight map[string]chan struct{} // per (tool, task_id, args) in-process claim gate

	// writers holds SQLite's one write connection (nil on PostgreSQL, whose
	// locks are per row and whose pool reads share): writes of this process
	// queue for it before their lock wait starts, so waiting behind this
	// process's own writers (32 calls at once) is never taken for another
	// writer's lock. busySince
	// (Unix ns, 0: none) is when a write last found the lock held by
	// another writer with no write getting it since (SQLite only: its lock
	// is the whole database's): a write still queued when that is older
	// than its wait answers store_busy then.
	writers   chan struct{}
	busySince atomic.Int64

	closeOnce sync.Once
	closing   chan struct{}
	bg        sync.WaitGroup // lease heartbeats

	purgeMu   sync.Mutex
	lastPurge time.Time

	// id is the store_meta row's store_id read at open; file is the SQLite
	// file as it was at open, held open (nil on PostgreSQL and read-only
	// opens). Ready compares both, so a database deleted or replaced under
	// a running server is noticed (health.go).
	id   string
	file *heldFile
}

var _ store.Store = (*DB)(nil)

// FileName is the SQLite database file inside the state directory.
const FileName = "toolwright.db"

// OpenSQLite opens (creating if needed) the SQLite database at path.
func OpenSQLite(path string, opts Options) (*DB, error) {
	if path == "" {
		return nil, errors.New("store: empty database path")
	}
	if strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("store: database path %q must not contain '?' or '#'", path)
	}
	if opts.ReadOnly {
		// Never create or touch the file: a missing or empty one has no chain.
		fi, err := os.Stat(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("store: %w at %s", store.ErrNoDatabase, path)
		case err != nil:
			return nil, fmt.Errorf("store: %w", err)
		case !fi.Mode().IsRegular():
			return nil, fmt.Errorf("store: %s is not a regular file", path)
		case fi.Size() == 0:
			return nil, fmt.Errorf("store: %s is empty (0 bytes): %w", path, store.ErrNoSchema)
		}
		return open(&sqliteDialect, path, path, opts)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("store: create state directory: %w", err)
	}
	h, err := holdFile(path)
	if err != nil {
		return nil, err
	}
	s, err := open(&sqliteDialect, path, path, opts)
	if err != nil {
		h.release()
		return nil, err
	}
	s.file = h
	return s, nil
}

// OpenPostgres connects to the PostgreSQL database at url
// (postgres://user:pass@host:5432/db?sslmode=...; any other pgx connection
// parameter such as search_path may be added to the query).
func OpenPostgres(url string, opts Options) (*DB, error) {
	return open(&postgresDialect, url, redactURL(url), opts)
}

func open(d *dialect, dsn, where string, opts Options) (*DB, error) {
	opts = withDefaults(opts, d)
	wdb, rdb, err := d.open(dsn, opts)
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", where, err)
	}
	s := &DB{
		d: d, where: where, opts: opts, wdb: wdb, rdb: rdb, now: opts.Now,
		inflight: map[string]chan struct{}{},
		closing:  make(chan struct{}),
	}
	if d.oneWriter {
		s.writers = make(chan struct{}, 1)
	}
	ctx, cancel := context.WithTimeout(context.Background(), opts.BusyTimeout+30*time.Second)
	defer cancel()
	if opts.ReadOnly {
		if err := s.checkSchema(ctx); err != nil {
			s.closeDBs()
			return nil, fmt.Errorf("store: %s: %w", where, err)
		}
		return s, nil
	}
	if err := s.migrate(ctx); err != nil {
		s.closeDBs()
		return nil, fmt.Errorf("store: %s: %w", where, err)
	}
	if err := s.q.prepare(ctx, s); err != nil {
		s.closeDBs()
		return nil, fmt.Errorf("store: %s: prepare statements: %w", where, err)
	}
	return s, nil
}

// checkSchema is a read-only open's check: the schema is toolwright's, at
// a version this build knows, and its audit tables are there. It writes
// nothing.
func (s *DB) checkSchema(ctx context.Context) error {
	var v int
	if err := s.rdb.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&v); err != nil || v == 0 {
		return store.ErrNoSchema
	}
	if v > len(migrations) {
		return fmt.Errorf("database schema version %d is newer than this toolwright supports (%d); upgrade toolwright", v, len(migrations))
	}
	for _, table := range []string{"audit", "audit_head"} {
		if _, err := s.rdb.ExecContext(ctx, `SELECT 1 FROM `+table+` LIMIT 1`); err != nil {
			return fmt.Errorf("%w: table %s: %v", store.ErrNoSchema, table, err)
		}
	}
	return nil
}

// redactURL drops the password of a database URL for messages.
func redactURL(u string) string { return store.RedactURL(u) }

// Backend is "sqlite" or "postgres".
func (s *DB) Backend() string { return s.d.name }

// Where is the database file, or the PostgreSQL URL without its password.
func (s *DB) Where() string { return s.where }

// Close stops lease heartbeats and closes the database. Leases still held are
// not released; they expire after Options.LeaseDuration.
func (s *DB) Close() error {
	var err error
	s.closeOnce.Do(func() {
		close(s.closing)
		s.bg.Wait()
		err = s.closeDBs()
		if s.file != nil {
			s.file.release()
		}
	})
	return err
}

func (s *DB) closeDBs() error {
	s.q.close()
	var errR error
	if s.rdb != nil && s.rdb != s.wdb {
		errR = s.rdb.Close()
	}
	return errors.Join(s.wdb.Close(), errR)
}

func (s *DB) isClosed() bool {
	select {
	case <-s.closing:
		return true
	default:
		return false
	}
}

// nowMS is the store's clock in Unix milliseconds.
func (s *DB) nowMS() int64 { return s.now().UnixMilli() }

// writeTx runs fn in one write transaction (BEGIN IMMEDIATE on SQLite),
// waiting up to BusyTimeout for a lock another writer holds.
func (s *DB) writeTx(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error {
	return s.writeTxWait(ctx, s.opts.BusyTimeout, fn)
}

// writeTxWait is writeTx waiting at most wait for locks.
// fn must use the context it is given, which carries the bound.
func (s *DB) writeTxWait(ctx context.Context, wait time.Duration, fn func(ctx context.Context, tx *sql.Tx) error) error {
	return s.locked(ctx, wait, func(ctx context.Context) error {
		tx, err := s.wdb.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if err := fn(ctx, tx); err != nil {
			_ = tx.Rollback()
			return err
		}
		return tx.Commit()
	})
}

// execW runs one write statement outside a transaction, waiting up to
// BusyTimeout for locks.
func (s *DB) execW(ctx context.Context, q string, args ...any) (sql.Result, error) {
	var res sql.Result
	err := s.locked(ctx, s.opts.BusyTimeout, func(ctx context.Context) (err error) {
		res, err = s.wdb.ExecContext(ctx, q, args...)
		return err
	})
	return res, err
}

// errLockWait is the cause of a write's context when it waited its whole
// lock wait.
var errLockWait = errors.New("waited too long for a lock another writer holds")

// locked runs one write, fn, for at most wait. On SQLite each attempt waits
// for the file's write lock only sqliteAttemptWait (the busy_timeout of
// the write connection) and fn is tried again, with a growing pause, until
// wait has passed, so the one write connection is never held for long by a
// writer stuck behind another process and writes queued behind it in this
// process see their own bound. On SQLite a write first queues for the one
// write connection (enterWrite); its wait starts once it has it. A write
// that could not get its lock in time returns an error that busyErr
// recognises (store_busy).
func (s *DB) locked(ctx context.Context, wait time.Duration, fn func(ctx context.Context) error) error {
	if s.isClosed() {
		return store.ErrClosed
	}
	if s.writers != nil {
		if err := s.enterWrite(ctx, wait); err != nil {
			return err
		}
		defer func() { <-s.writers }()
		return s.lockedSQLite(ctx, wait, fn)
	}
	wctx, cancel := context.WithTimeoutCause(ctx, wait, errLockWait)
	defer cancel()
	pause := backoff.New(5*time.Millisecond, 100*time.Millisecond)
	for {
		err := fn(wctx)
		switch {
		case err == nil:
			return nil
		case ctx.Err() != nil:
			return err // the caller gave up: its own error
		case wctx.Err() != nil:
			return fmt.Errorf("%w: %w", errLockWait, err)
		case !s.d.busy(err) || !s.d.retryBusy:
			return err
		}
		if !pause.Sleep(wctx, nil) {
			if ctx.Err() != nil {
				return err
			}
			return fmt.Errorf("%w: %w", errLockWait, err)
		}
	}
}

// lockedSQLite is locked on SQLite, holding the write connection: fn is
// tried again while it finds the lock held by another writer (each attempt
// waits for it at most sqliteAttemptWait, the connection's busy_timeout)
// until the wait has passed. The wait bounds only that: a statement is
// never cancelled for taking long on a loaded machine, where a write of a
// millisecond's work can take seconds and is no lock at all.
func (s *DB) lockedSQLite(ctx context.Context, wait time.Duration, fn func(ctx context.Context) error) error {
	deadline := s.lockDeadline(wait)
	pause := backoff.New(5*time.Millisecond, 100*time.Millisecond)
	for {
		err := fn(ctx)
		switch {
		case err == nil:
			s.busySince.Store(0)
			return nil
		case ctx.Err() != nil || !s.d.busy(err):
			return err
		}
		s.busySince.CompareAndSwap(0, time.Now().UnixNano())
		if time.Now().After(deadline) {
			return fmt.Errorf("%w: %w", errLockWait, err)
		}
		pctx, cancel := context.WithDeadline(ctx, deadline)
		slept := pause.Sleep(pctx, nil)
		cancel()
		if !slept && ctx.Err() != nil {
			return err
		}
	}
}

// lockDeadline is when a write starting now gives up on a lock another
// writer holds: after wait, or sooner when the lock has already been held
// for a while (busySince; writes queued behind one that found it held),
// though never before one more attempt.
func (s *DB) lockDeadline(wait time.Duration) time.Time {
	now := time.Now()
	d := now.Add(wait)
	if b := s.busySince.Load(); b != 0 {
		d = time.Unix(0, b).Add(wait)
		if floor := now.Add(2 * sqliteAttemptWait); d.Before(floor) {
			d = floor
		}
	}
	return d
}

// enterWrite takes a write slot, waiting while this process's other writes
// hold them. It gives up with errLockWait only when another writer has
// held the database's lock for longer than wait (busySince), with the
// caller's cancellation, or when the store closes.
func (s *DB) enterWrite(ctx context.Context, wait time.Duration) error {
	select {
	case s.writers <- struct{}{}:
		return nil
	default:
	}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case s.writers <- struct{}{}:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-s.closing:
			return store.ErrClosed
		case <-tick.C:
			if b := s.busySince.Load(); b != 0 && time.Since(time.Unix(0, b)) >= wait {
				return fmt.Errorf("%w: another writer has held the database's lock for %s", errLockWait, time.Since(time.Unix(0, b)).Round(time.Millisecond))
			}
		}
	}
}

// ExecRaw runs one statement outside the store's logic. It is for tests that
// tamper with rows as an editor of the database would, and for tools; the
// engine never calls it.
func (s *DB) ExecRaw(ctx context.Context, query string, args ...any) error {
	_, err := s.wdb.ExecContext(ctx, query, args...)
	return err
}
