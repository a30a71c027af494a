package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/store"
)

// Ready implements store.Store: the database is still the one opened, and
// it takes a write now (SQLite) or this session may write (PostgreSQL),
// within Options.LockWait. The engine asks before every call, /readyz on
// every probe.
//
// A SQLite file deleted or replaced while the server runs is noticed by
// comparing the path with the file opened (a deleted file stays writable
// through the open descriptor, so every later record would be lost
// silently); a replaced PostgreSQL database by its store_id.
//
// A PostgreSQL connection found dead (the server restarted since the pool
// last used it, within the second in which pgx does not ping a connection
// it reuses) is not the store being unavailable: the pool's idle
// connections are dropped and the probe, a read, runs once more on a new
// one. Without that, the first call after a restart answered
// store_unavailable although the server was up again.
func (s *DB) Ready(ctx context.Context) error {
	err := s.ready(ctx)
	if s.lost(err) && ctx.Err() == nil {
		s.dropIdle()
		err = s.ready(ctx)
	}
	return s.fail("check the store", err)
}

// ready runs Ready's checks once; its error is uncoded.
func (s *DB) ready(ctx context.Context) error {
	if s.isClosed() {
		return store.ErrClosed
	}
	if err := s.sameFile(); err != nil {
		return err
	}
	var conn *sql.Conn
	if !s.d.probeWrite {
		// The connection is taken before the lock wait starts: opening one
		// (on PostgreSQL a new server process, after a cancelled query
		// closed the last) is not waiting for a lock, and on a loaded
		// machine it takes longer than the wait.
		c, err := s.rdb.Conn(ctx)
		if err != nil {
			return err
		}
		defer c.Close()
		conn = c
	}
	err := s.locked(ctx, s.opts.LockWait, func(ctx context.Context) error {
		if s.d.probeWrite {
			res, err := s.wdb.ExecContext(ctx, s.d.probe, s.id, s.nowMS())
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil || n != 1 {
				return errReplaced
			}
			return nil
		}
		var writable bool
		err := conn.QueryRowContext(ctx, s.d.probe, s.id).Scan(&writable)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return errReplaced
		case err != nil:
			return err
		case !writable:
			return errReadOnly
		}
		return nil
	})
	if errors.Is(err, errReplaced) {
		return errs.Wrap(errs.StoreUnavailable, fmt.Errorf("store: %s: %w", s.where, err),
			"the state store cannot record calls (the database was replaced under the running server); an operator must restore it and restart the server")
	}
	return err
}

// lost reports an error that says a connection to the server was lost
// (never on SQLite).
func (s *DB) lost(err error) bool {
	return err != nil && s.d.lost != nil && s.d.lost(err)
}

// dropIdle closes the pool's idle connections, after one was found lost:
// after a restart they are all dead, and each would otherwise fail the
// next statement that takes it. Connections in use are discarded by
// database/sql when they come back broken. Only a dialect with a server
// loses connections (PostgreSQL), and there wdb and rdb are one pool of
// Options.Conns.
func (s *DB) dropIdle() {
	// database/sql closes idle connections beyond the new limit at once;
	// the limit is set back right after. Concurrent drops interleave
	// harmlessly: each ends by restoring the limit.
	s.rdb.SetMaxIdleConns(0)
	s.rdb.SetMaxIdleConns(s.opts.Conns)
}

// sameFile reports, on SQLite, a database file deleted or replaced since
// the store opened it (nil on PostgreSQL).
func (s *DB) sameFile() error {
	if s.file == nil {
		return nil
	}
	now, err := os.Stat(s.where)
	if err == nil && os.SameFile(s.file.info, now) {
		// The same file, but its header overwritten in place (a stray
		// write, a disk fault): the open connection keeps working from its
		// cache and the WAL, and every record it takes is lost at the next
		// restart, when the file no longer opens.
		if s.file.headerOK() {
			return nil
		}
		err = errHeader
	}
	why := "the database file was replaced"
	switch {
	case errors.Is(err, fs.ErrNotExist):
		why = "the database file was deleted"
	case errors.Is(err, errHeader):
		why = "the database file's header was overwritten"
	case err != nil:
		why = "the database file cannot be checked"
	}
	return errs.Wrap(errs.StoreUnavailable, fmt.Errorf("store: %s: %s since the store opened it", s.where, why),
		"the state store cannot record calls (%s under the running server); an operator must restore it and restart the server", why)
}

// sqliteHeader starts every SQLite database file.
const sqliteHeader = "SQLite format 3\x00"

var errHeader = errors.New("the header is not SQLite's")

var (
	errReplaced = errors.New("the store_id differs from the one read at open: the database was replaced")
	errReadOnly = errors.New("the database accepts no writes (read-only or a standby)")
)

// fail gives an error of the call path its code: store_busy when another
// writer held a lock past the write's wait, store_unavailable for any other
// failure to read or write (a closed store, a full disk, a read-only or
// missing database, a lost connection). Coded errors and the caller's own
// cancellation pass through. The raw error stays as the cause, for the
// trace; the message is for the agent.
func (s *DB) fail(what string, err error) error {
	if err == nil {
		return nil
	}
	if s.lost(err) {
		s.dropIdle()
	}
	var e *errs.Error
	switch {
	case errors.As(err, &e):
		return err
	case errors.Is(err, errLockWait) || s.d.busy(err):
		return errs.Wrap(errs.StoreBusy, fmt.Errorf("store: %s: %w", what, err),
			"the state store is locked by another writer, so the call did not run; try again")
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("store: %s: %w", what, err)
	}
	return errs.Wrap(errs.StoreUnavailable, fmt.Errorf("store: %s: %w", what, err),
		"the state store cannot record the call, so it did not run; try again later")
}
