package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// migrations are applied in order; migrations[i] moves the schema from
// version i to i+1. Append only: never edit a migration that has shipped.
// Types are the portable subset (TEXT, INTEGER, BIGINT) that SQLite and
// PostgreSQL both accept.
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
		// audit_head holds the last seq and hash in one row (id = 1). Appends
		// update it with a compare-and-set, which serializes them on every
		// database and lets VerifyAudit notice rows cut from the end.
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
}

// SchemaVersion is the schema version this build writes.
func SchemaVersion() int { return len(migrations) }

// migrate creates or upgrades the schema in one write transaction, so two
// processes opening a new file at once do not both migrate it.
func (s *SQLite) migrate(ctx context.Context) error {
	return s.writeTx(ctx, func(tx *sql.Tx) error {
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
			if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version (version) VALUES (?)`, i+1); err != nil {
				return fmt.Errorf("record schema version %d: %w", i+1, err)
			}
		}
		return nil
	})
}

// stmts are the statements of the per-call hot path, prepared once. Write
// statements belong to the one write connection and are bound to a
// transaction with tx.StmtContext.
type stmts struct {
	all []*sql.Stmt

	idemGetR     *sql.Stmt
	idemGetW     *sql.Stmt
	idemInsert   *sql.Stmt
	idemTakeOver *sql.Stmt
	idemComplete *sql.Stmt
	idemRelease  *sql.Stmt
	idemRenew    *sql.Stmt
	traceInsert  *sql.Stmt
	auditHead    *sql.Stmt
	auditInsert  *sql.Stmt
	auditHeadSet *sql.Stmt
	auditHeadNew *sql.Stmt
	grantLive    *sql.Stmt
}

const idemCols = `args_hash, status, lease_owner, lease_until_ms, envelope, expires_ms`

func (st *stmts) prepare(ctx context.Context, wdb, rdb *sql.DB) error {
	p := func(db *sql.DB, dst **sql.Stmt, q string) error {
		s, err := db.PrepareContext(ctx, q)
		if err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
		st.all = append(st.all, s)
		*dst = s
		return nil
	}
	return errors.Join(
		p(rdb, &st.idemGetR, `SELECT `+idemCols+` FROM idempotency WHERE tool = ? AND task_id = ?`),
		p(wdb, &st.idemGetW, `SELECT `+idemCols+` FROM idempotency WHERE tool = ? AND task_id = ?`),
		p(wdb, &st.idemInsert, `INSERT INTO idempotency (tool, task_id, args_hash, status, lease_owner, lease_until_ms, envelope, created_ms, expires_ms)
			VALUES (?, ?, ?, 'pending', ?, ?, NULL, ?, ?)`),
		p(wdb, &st.idemTakeOver, `UPDATE idempotency SET args_hash = ?, status = 'pending', lease_owner = ?, lease_until_ms = ?,
			envelope = NULL, created_ms = ?, expires_ms = ? WHERE tool = ? AND task_id = ?`),
		p(wdb, &st.idemComplete, `UPDATE idempotency SET status = 'done', envelope = ?, lease_owner = '', lease_until_ms = 0, expires_ms = ?
			WHERE tool = ? AND task_id = ? AND status = 'pending' AND lease_owner = ?`),
		p(wdb, &st.idemRelease, `DELETE FROM idempotency WHERE tool = ? AND task_id = ? AND status = 'pending' AND lease_owner = ?`),
		p(wdb, &st.idemRenew, `UPDATE idempotency SET lease_until_ms = ? WHERE tool = ? AND task_id = ? AND status = 'pending' AND lease_owner = ?`),
		p(wdb, &st.traceInsert, `INSERT INTO traces (id, task_id, tool, args, start_ms, duration_ms, code, message, attempts, env_id, purpose, steps, artifacts, error_text)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		p(wdb, &st.auditHead, `SELECT seq, hash FROM audit_head WHERE id = 1`),
		p(wdb, &st.auditInsert, `INSERT INTO audit (seq, time_ms, task_id, tool, risk, env_id, purpose, grant_id, code, trace_id, prev_hash, hash)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		p(wdb, &st.auditHeadSet, `UPDATE audit_head SET seq = ?, hash = ? WHERE id = 1 AND seq = ?`),
		p(wdb, &st.auditHeadNew, `INSERT INTO audit_head (id, seq, hash) VALUES (1, ?, ?)`),
		p(rdb, &st.grantLive, `SELECT `+grantCols+` FROM grants
			WHERE tool = ? AND task_id = ? AND revoked = 0 AND expires_ms > ? ORDER BY expires_ms DESC, id DESC LIMIT 1`),
	)
}

func (st *stmts) close() {
	for _, s := range st.all {
		s.Close()
	}
	st.all = nil
}
