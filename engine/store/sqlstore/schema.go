package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// migrations are applied in order; migrations[i] moves the schema from
// version i to i+1. Append only: never edit a migration that has shipped.
// Types are the portable subset (TEXT, INTEGER, BIGINT) that SQLite and
// PostgreSQL both accept, and every statement runs on both.
var migrations = [][]string{
	{ // 1: idempotency, traces, audit, grants
		`CREATE TABLE IF NOT EXISTS idempotency (
			tool           TEXT   NOT NULL,
			task_id        TEXT   NOT NULL,
			args_hash      TEXT   NOT NULL,
			status         TEXT   NOT NULL,
			lease_owner    TEXT   NOT NULL DEFAULT '',
			lease_until_ms BIGINT NOT NULL DEFAULT 0,
			envelope       TEXT,
			created_ms     BIGINT NOT NULL,
			expires_ms     BIGINT NOT NULL,
			PRIMARY KEY (tool, task_id)
		)`,
		`CREATE INDEX IF NOT EXISTS idempotency_expires ON idempotency (expires_ms)`,
		`CREATE TABLE IF NOT EXISTS traces (
			id          TEXT    NOT NULL PRIMARY KEY,
			task_id     TEXT    NOT NULL DEFAULT '',
			tool        TEXT    NOT NULL,
			args        TEXT,
			start_ms    BIGINT  NOT NULL,
			duration_ms BIGINT  NOT NULL DEFAULT 0,
			code        TEXT    NOT NULL,
			message     TEXT    NOT NULL DEFAULT '',
			attempts    INTEGER NOT NULL DEFAULT 0,
			env_id      TEXT    NOT NULL DEFAULT '',
			purpose     TEXT    NOT NULL DEFAULT '',
			steps       TEXT,
			artifacts   TEXT,
			error_text  TEXT    NOT NULL DEFAULT ''
		)`,
		`CREATE INDEX IF NOT EXISTS traces_start ON traces (start_ms)`,
		`CREATE INDEX IF NOT EXISTS traces_task ON traces (task_id)`,
		`CREATE TABLE IF NOT EXISTS audit (
			seq       BIGINT NOT NULL PRIMARY KEY,
			time_ms   BIGINT NOT NULL,
			task_id   TEXT   NOT NULL DEFAULT '',
			tool      TEXT   NOT NULL DEFAULT '',
			risk      TEXT   NOT NULL DEFAULT '',
			env_id    TEXT   NOT NULL DEFAULT '',
			purpose   TEXT   NOT NULL DEFAULT '',
			grant_id  TEXT   NOT NULL DEFAULT '',
			code      TEXT   NOT NULL DEFAULT '',
			trace_id  TEXT   NOT NULL DEFAULT '',
			prev_hash TEXT   NOT NULL,
			hash      TEXT   NOT NULL
		)`,
		`CREATE INDEX IF NOT EXISTS audit_time ON audit (time_ms)`,
		// audit_head holds the last seq and hash in one row (id = 1); it lets
		// CheckAudit notice rows cut from the end.
		`CREATE TABLE IF NOT EXISTS audit_head (
			id   INTEGER NOT NULL PRIMARY KEY,
			seq  BIGINT  NOT NULL,
			hash TEXT    NOT NULL
		)`,
		`CREATE TABLE IF NOT EXISTS grants (
			id         TEXT    NOT NULL PRIMARY KEY,
			tool       TEXT    NOT NULL,
			task_id    TEXT    NOT NULL,
			reason     TEXT    NOT NULL,
			granted_by TEXT    NOT NULL DEFAULT '',
			created_ms BIGINT  NOT NULL,
			expires_ms BIGINT  NOT NULL,
			revoked    INTEGER NOT NULL DEFAULT 0,
			revoked_ms BIGINT  NOT NULL DEFAULT 0
		)`,
		`CREATE INDEX IF NOT EXISTS grants_tool_task ON grants (tool, task_id)`,
	},
	{ // 2: the audit head row exists from the start, so every append locks it
		`INSERT INTO audit_head (id, seq, hash) SELECT 1, 0, '' WHERE NOT EXISTS (SELECT 1 FROM audit_head WHERE id = 1)`,
	},
	{ // 3: the environment registry; env_pool is the row reservations lock
		`CREATE TABLE IF NOT EXISTS environments (
			id             TEXT    NOT NULL PRIMARY KEY,
			provider       TEXT    NOT NULL,
			endpoint       TEXT    NOT NULL DEFAULT '',
			context_id     TEXT    NOT NULL DEFAULT '',
			target_id      TEXT    NOT NULL DEFAULT '',
			session        TEXT    NOT NULL DEFAULT '',
			region         TEXT    NOT NULL,
			purpose        TEXT    NOT NULL,
			temporary      INTEGER NOT NULL DEFAULT 0,
			lease_owner    TEXT    NOT NULL DEFAULT '',
			lease_until_ms BIGINT  NOT NULL DEFAULT 0,
			last_used_ms   BIGINT  NOT NULL,
			created_ms     BIGINT  NOT NULL,
			closed         INTEGER NOT NULL DEFAULT 0,
			closed_ms      BIGINT  NOT NULL DEFAULT 0,
			closed_why     TEXT    NOT NULL DEFAULT ''
		)`,
		`CREATE INDEX IF NOT EXISTS environments_open ON environments (closed, region, purpose)`,
		`CREATE INDEX IF NOT EXISTS environments_context ON environments (context_id)`,
		`CREATE INDEX IF NOT EXISTS environments_endpoint ON environments (endpoint)`,
		`CREATE TABLE IF NOT EXISTS env_pool (id INTEGER NOT NULL PRIMARY KEY)`,
		`INSERT INTO env_pool (id) SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM env_pool WHERE id = 1)`,
	},
	{ // 4: the store's identity: a random store_id (written by migrate), so
		// a database replaced under a running server is noticed; checked_ms
		// is what Ready's write probe touches on SQLite
		`CREATE TABLE IF NOT EXISTS store_meta (
			id         INTEGER NOT NULL PRIMARY KEY,
			store_id   TEXT    NOT NULL,
			checked_ms BIGINT  NOT NULL DEFAULT 0
		)`,
	},
	{ // 5: the envelope the agent was told, bounded, for the trace viewer
		`ALTER TABLE traces ADD COLUMN envelope TEXT`,
	},
	{ // 6: saved sign-in state per purpose (sealed: the store never holds
		// it in clear) and the environments handed to a person
		`CREATE TABLE IF NOT EXISTS sessions (
			purpose    TEXT   NOT NULL PRIMARY KEY,
			sealed     TEXT   NOT NULL,
			key_id     TEXT   NOT NULL,
			saved_ms   BIGINT NOT NULL,
			expires_ms BIGINT NOT NULL,
			saved_by   TEXT   NOT NULL DEFAULT ''
		)`,
		`CREATE TABLE IF NOT EXISTS handoffs (
			env_id      TEXT   NOT NULL PRIMARY KEY,
			purpose     TEXT   NOT NULL,
			message     TEXT   NOT NULL DEFAULT '',
			endpoint    TEXT   NOT NULL DEFAULT '',
			target_id   TEXT   NOT NULL DEFAULT '',
			trace_id    TEXT   NOT NULL DEFAULT '',
			created_ms  BIGINT NOT NULL,
			expires_ms  BIGINT NOT NULL,
			finished_ms BIGINT NOT NULL DEFAULT 0,
			finished_by TEXT   NOT NULL DEFAULT ''
		)`,
	},
	{ // 7: the open environments of processes whose browsers die with them
		// (provider local), published for toolwright ui while the owner
		// renews alive_until_ms
		`CREATE TABLE IF NOT EXISTS published_envs (
			id             TEXT    NOT NULL PRIMARY KEY,
			owner          TEXT    NOT NULL,
			process        TEXT    NOT NULL DEFAULT '',
			provider       TEXT    NOT NULL DEFAULT '',
			endpoint       TEXT    NOT NULL DEFAULT '',
			target_id      TEXT    NOT NULL DEFAULT '',
			region         TEXT    NOT NULL DEFAULT '',
			purpose        TEXT    NOT NULL DEFAULT '',
			temporary      INTEGER NOT NULL DEFAULT 0,
			created_ms     BIGINT  NOT NULL,
			last_used_ms   BIGINT  NOT NULL DEFAULT 0,
			alive_until_ms BIGINT  NOT NULL
		)`,
		`CREATE INDEX IF NOT EXISTS published_envs_owner ON published_envs (owner)`,
	},
	{ // 8: what each target's element looked like when it last resolved,
		// for repair proposals once it stops resolving (engine/repair)
		`CREATE TABLE IF NOT EXISTS fingerprints (
			target     TEXT   NOT NULL PRIMARY KEY,
			data       TEXT   NOT NULL,
			hash       TEXT   NOT NULL,
			page       TEXT   NOT NULL DEFAULT '',
			seen_ms    BIGINT NOT NULL,
			changed_ms BIGINT NOT NULL
		)`,
	},
}

// migrate creates or upgrades the schema in one write transaction, under
// the dialect's migration lock, so processes and replicas that open a new
// database at once do not both migrate it.
func (s *DB) migrate(ctx context.Context) error {
	return s.writeTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if s.d.migrateLock != "" {
			// Another replica's migration may take longer than one
			// statement's lock_timeout: wait for it (the open's own
			// bound still holds).
			if _, err := tx.ExecContext(ctx, `SET LOCAL lock_timeout = 0`); err != nil {
				return fmt.Errorf("take the migration lock: %w", err)
			}
			if _, err := tx.ExecContext(ctx, s.d.migrateLock); err != nil {
				return fmt.Errorf("take the migration lock: %w", err)
			}
		}
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
			return fmt.Errorf("create schema_version: %w", err)
		}
		var v int
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&v); err != nil {
			return fmt.Errorf("read schema version: %w", err)
		}
		if v > len(migrations) {
			return fmt.Errorf("database schema version %d is newer than this toolwright supports (%d); upgrade toolwright", v, len(migrations))
		}
		for i := v; i < len(migrations); i++ {
			for _, q := range migrations[i] {
				if _, err := tx.ExecContext(ctx, q); err != nil {
					return fmt.Errorf("migrate to schema version %d: %w", i+1, err)
				}
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version (version) VALUES ($1)`, i+1); err != nil {
				return fmt.Errorf("record schema version %d: %w", i+1, err)
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO store_meta (id, store_id) VALUES (1, $1) ON CONFLICT (id) DO NOTHING`, newOwner()); err != nil {
			return fmt.Errorf("record the store id: %w", err)
		}
		if err := tx.QueryRowContext(ctx, `SELECT store_id FROM store_meta WHERE id = 1`).Scan(&s.id); err != nil {
			return fmt.Errorf("read the store id: %w", err)
		}
		return nil
	})
}

// query is one statement of the hot path: prepared once where the dialect
// wants it, otherwise sent as text (pgx caches its prepared form per
// connection).
type query struct {
	text string
	db   *sql.DB
	st   *sql.Stmt
}

func (q *query) exec(ctx context.Context, tx *sql.Tx, args ...any) (sql.Result, error) {
	switch {
	case tx != nil && q.st != nil:
		return tx.StmtContext(ctx, q.st).ExecContext(ctx, args...)
	case tx != nil:
		return tx.ExecContext(ctx, q.text, args...)
	case q.st != nil:
		return q.st.ExecContext(ctx, args...)
	}
	return q.db.ExecContext(ctx, q.text, args...)
}

func (q *query) row(ctx context.Context, tx *sql.Tx, args ...any) *sql.Row {
	switch {
	case tx != nil && q.st != nil:
		return tx.StmtContext(ctx, q.st).QueryRowContext(ctx, args...)
	case tx != nil:
		return tx.QueryRowContext(ctx, q.text, args...)
	case q.st != nil:
		return q.st.QueryRowContext(ctx, args...)
	}
	return q.db.QueryRowContext(ctx, q.text, args...)
}

// queries are the statements of the per-call hot path. Write statements
// belong to the write handle (on SQLite its one connection) and are bound to
// a transaction when given one.
type queries struct {
	all []*sql.Stmt

	idemGet      query
	idemInsert   query
	idemTakeOver query
	idemComplete query
	idemRelease  query
	idemRenew    query
	traceInsert  query
	auditHead    query
	auditInsert  query
	auditHeadSet query
	grantLive    query
}

const idemCols = `args_hash, status, lease_owner, lease_until_ms, envelope, expires_ms`

func (qs *queries) prepare(ctx context.Context, s *DB) error {
	p := func(db *sql.DB, dst *query, text string) error {
		*dst = query{text: text, db: db}
		if !s.d.prepare {
			return nil
		}
		st, err := db.PrepareContext(ctx, text)
		if err != nil {
			return fmt.Errorf("%s: %w", text, err)
		}
		qs.all = append(qs.all, st)
		dst.st = st
		return nil
	}
	w, r := s.wdb, s.rdb
	return errors.Join(
		p(r, &qs.idemGet, `SELECT `+idemCols+` FROM idempotency WHERE tool = $1 AND task_id = $2`),
		// A claim never reads then inserts: the insert itself decides.
		p(w, &qs.idemInsert, `INSERT INTO idempotency (tool, task_id, args_hash, status, lease_owner, lease_until_ms, envelope, created_ms, expires_ms)
			VALUES ($1, $2, $3, 'pending', $4, $5, NULL, $6, $7) ON CONFLICT (tool, task_id) DO NOTHING`),
		// Takes over a record only while it is still expired or stale ($8).
		p(w, &qs.idemTakeOver, `UPDATE idempotency SET args_hash = $3, status = 'pending', lease_owner = $4, lease_until_ms = $5,
			envelope = NULL, created_ms = $6, expires_ms = $7
			WHERE tool = $1 AND task_id = $2
			AND ((status = 'done' AND expires_ms <= $8) OR (status = 'pending' AND lease_until_ms <= $8))`),
		p(w, &qs.idemComplete, `UPDATE idempotency SET status = 'done', envelope = $1, lease_owner = '', lease_until_ms = 0, expires_ms = $2
			WHERE tool = $3 AND task_id = $4 AND status = 'pending' AND lease_owner = $5`),
		p(w, &qs.idemRelease, `DELETE FROM idempotency WHERE tool = $1 AND task_id = $2 AND status = 'pending' AND lease_owner = $3`),
		p(w, &qs.idemRenew, `UPDATE idempotency SET lease_until_ms = $1 WHERE tool = $2 AND task_id = $3 AND status = 'pending' AND lease_owner = $4`),
		// A trace replaces its own stub (code 'running'), never a finished trace.
		p(w, &qs.traceInsert, `INSERT INTO traces (id, task_id, tool, args, start_ms, duration_ms, code, message, attempts, env_id, purpose, steps, artifacts, error_text, envelope)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
			ON CONFLICT (id) DO UPDATE SET task_id = excluded.task_id, tool = excluded.tool, args = excluded.args,
			start_ms = excluded.start_ms, duration_ms = excluded.duration_ms, code = excluded.code, message = excluded.message,
			attempts = excluded.attempts, env_id = excluded.env_id, purpose = excluded.purpose, steps = excluded.steps,
			artifacts = excluded.artifacts, error_text = excluded.error_text, envelope = excluded.envelope
			WHERE traces.code = 'running'`),
		p(w, &qs.auditHead, `SELECT seq, hash FROM audit_head WHERE id = 1`+s.d.lockRow),
		p(w, &qs.auditInsert, `INSERT INTO audit (seq, time_ms, task_id, tool, risk, env_id, purpose, grant_id, code, trace_id, prev_hash, hash)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`),
		p(w, &qs.auditHeadSet, `UPDATE audit_head SET seq = $1, hash = $2 WHERE id = 1 AND seq = $3`),
		p(r, &qs.grantLive, `SELECT `+grantCols+` FROM grants
			WHERE tool = $1 AND task_id = $2 AND revoked = 0 AND expires_ms > $3 ORDER BY expires_ms DESC, id DESC LIMIT 1`),
	)
}

func (qs *queries) close() {
	for _, s := range qs.all {
		s.Close()
	}
	qs.all = nil
}
