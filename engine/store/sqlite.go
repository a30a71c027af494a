package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Options tune a SQLite store. The zero value is the default.
type Options struct {
	// BusyTimeout is how long a write waits for another process holding the
	// file's write lock (default 10s).
	BusyTimeout time.Duration
	// IdempotencyTTL is used by Claim when it is given no ttl (default 24h).
	IdempotencyTTL time.Duration
	// LeaseDuration is how long a pending idempotency lease stays valid
	// without a heartbeat; a process that dies frees its task_ids after this
	// long (default 30s). The holder renews it every LeaseDuration/3.
	LeaseDuration time.Duration
	// ReadConns is the size of the read pool (default 4). Writes always go
	// through one connection per process, so writers in one process queue in
	// Go instead of spinning on SQLite's busy handler.
	ReadConns int
}

func (o Options) withDefaults() Options {
	if o.BusyTimeout <= 0 {
		o.BusyTimeout = 10 * time.Second
	}
	if o.IdempotencyTTL <= 0 {
		o.IdempotencyTTL = DefaultIdempotencyTTL
	}
	if o.LeaseDuration <= 0 {
		o.LeaseDuration = 30 * time.Second
	}
	if o.ReadConns <= 0 {
		o.ReadConns = 4
	}
	return o
}

// SQLite is the Store on one SQLite file. It is safe for concurrent use by
// many goroutines, and several processes may open the same file.
type SQLite struct {
	path string
	opts Options
	wdb  *sql.DB // one connection, BEGIN IMMEDIATE
	rdb  *sql.DB // read pool
	now  func() time.Time

	stmts stmts

	gateMu   sync.Mutex
	inflight map[string]chan struct{} // per (tool, task_id) in-process claim gate

	closeOnce sync.Once
	closing   chan struct{}
	bg        sync.WaitGroup // lease heartbeats

	purgeMu   sync.Mutex
	lastPurge time.Time
}

// PathIn is the database path inside stateDir.
func PathIn(stateDir string) string { return filepath.Join(stateDir, FileName) }

// Open opens (creating if needed) the database at path with default Options,
// and creates or migrates its schema.
func Open(path string) (*SQLite, error) { return OpenWith(path, Options{}) }

// OpenWith is Open with Options.
func OpenWith(path string, opts Options) (*SQLite, error) {
	opts = opts.withDefaults()
	if path == "" {
		return nil, errors.New("store: empty database path")
	}
	if strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("store: database path %q must not contain '?' or '#'", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("store: create state directory: %w", err)
	}
	// Create the file ourselves so it is private to the user from the start.
	if f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600); err != nil {
		return nil, fmt.Errorf("store: open %q: %w", path, err)
	} else {
		f.Close()
	}

	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", opts.BusyTimeout.Milliseconds()))
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
		return nil, fmt.Errorf("store: open %q: %w", path, err)
	}
	wdb.SetMaxOpenConns(1)
	wdb.SetMaxIdleConns(1)
	wdb.SetConnMaxLifetime(0)
	wdb.SetConnMaxIdleTime(0)

	s := &SQLite{
		path:     path,
		opts:     opts,
		wdb:      wdb,
		now:      time.Now,
		inflight: map[string]chan struct{}{},
		closing:  make(chan struct{}),
	}
	ctx := context.Background()
	if err := s.migrate(ctx); err != nil {
		wdb.Close()
		return nil, fmt.Errorf("store: %q: %w", path, err)
	}

	rdb, err := sql.Open("sqlite", path+"?"+q.Encode())
	if err != nil {
		wdb.Close()
		return nil, fmt.Errorf("store: open %q: %w", path, err)
	}
	rdb.SetMaxOpenConns(opts.ReadConns)
	rdb.SetMaxIdleConns(opts.ReadConns)
	rdb.SetConnMaxIdleTime(0)
	s.rdb = rdb

	if err := s.stmts.prepare(ctx, wdb, rdb); err != nil {
		s.closeDBs()
		return nil, fmt.Errorf("store: %q: prepare statements: %w", path, err)
	}
	return s, nil
}

// Path is the database file.
func (s *SQLite) Path() string { return s.path }

// Close stops lease heartbeats and closes the database. Leases still held are
// not released; they expire after Options.LeaseDuration.
func (s *SQLite) Close() error {
	var err error
	s.closeOnce.Do(func() {
		close(s.closing)
		s.bg.Wait()
		err = s.closeDBs()
	})
	return err
}

func (s *SQLite) closeDBs() error {
	s.stmts.close()
	var errR error
	if s.rdb != nil {
		errR = s.rdb.Close()
	}
	return errors.Join(s.wdb.Close(), errR)
}

func (s *SQLite) isClosed() bool {
	select {
	case <-s.closing:
		return true
	default:
		return false
	}
}

// nowMS is the store's clock in Unix milliseconds.
func (s *SQLite) nowMS() int64 { return s.now().UnixMilli() }

// msTime turns stored milliseconds back into a UTC time (zero stays zero).
func msTime(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

// timeMS is t in Unix milliseconds, 0 for the zero time.
func timeMS(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// writeTx runs fn in one write transaction (BEGIN IMMEDIATE on SQLite, so
// writers from several processes queue on the file lock up front instead of
// failing when they upgrade a read lock).
func (s *SQLite) writeTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if s.isClosed() {
		return ErrClosed
	}
	tx, err := s.wdb.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}
