package main

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/store"
	"github.com/toolwright/toolwright/engine/store/sqlstore"
)

// auditSet is a config in a temporary folder with a state dir and n audit
// records appended through the store, as calls would.
func auditSet(t *testing.T, n int) (cfgPath, dbPath string) {
	t.Helper()
	dir := t.TempDir()
	cfgPath = serveSet(t, dir, "http://127.0.0.1:1", nil)
	cfg, err := config.Load(cfgPath)
	cliMust(t, err)
	st, err := app.OpenStore(cfg)
	cliMust(t, err)
	for i := range n {
		cliMust(t, st.AppendAudit(context.Background(), &store.AuditRecord{Tool: "read_title", Risk: "read", Code: "ok", TaskID: "T-" + string(rune('a'+i))}))
	}
	cliMust(t, st.Close())
	return cfgPath, filepath.Join(dir, "state", sqlstore.FileName)
}

// TestAuditVerifyEmptyOrWiped: `audit verify` fails on a database
// truncated to 0 bytes, replaced by an empty SQLite file, or whose chain
// was wiped (rows deleted, head reset), with or without audit.key, and never
// writes to the file; --allow-empty accepts an empty chain only without a
// key. Before: each printed "ok: 0 records" and exited 0, and the 0-byte
// file got a schema.
func TestAuditVerifyEmptyOrWiped(t *testing.T) {
	t.Setenv(config.DefaultAuditKeyEnv, "")
	verify := func(t *testing.T, cfg string, args ...string) (string, int) {
		t.Helper()
		out, errOut, code := cli(t, append([]string{"--config", cfg, "audit", "verify"}, args...)...)
		return out + errOut, code
	}
	unchanged := func(t *testing.T, path string, before []byte) {
		t.Helper()
		after, err := os.ReadFile(path)
		cliMust(t, err)
		if !bytes.Equal(before, after) {
			t.Errorf("audit verify wrote to the database: %d bytes before, %d after", len(before), len(after))
		}
		if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			t.Errorf("audit verify left files beside the database: %v", names)
		}
	}

	for _, key := range []string{"", "k3y-for-the-audit-chain"} {
		t.Run("key="+key, func(t *testing.T) {
			t.Setenv(config.DefaultAuditKeyEnv, key)
			cfg, db := auditSet(t, 3)
			if out, code := verify(t, cfg); code != 0 || !strings.HasPrefix(out, "ok: 3 records") {
				t.Fatalf("an intact chain: exit %d: %s", code, out)
			}

			// truncated to 0 bytes
			cliMust(t, os.Truncate(db, 0))
			for _, f := range []string{db + "-wal", db + "-shm"} {
				os.Remove(f)
			}
			for _, args := range [][]string{nil, {"--allow-empty"}} {
				out, code := verify(t, cfg, args...)
				if code != exitFailed || !strings.Contains(out, "no audit chain") || !strings.Contains(out, "0 bytes") {
					t.Errorf("a 0-byte database %v: exit %d: %s", args, code, out)
				}
			}
			unchanged(t, db, nil)

			// replaced by an empty SQLite file
			cliMust(t, os.Remove(db))
			edb, err := sql.Open("sqlite", db)
			cliMust(t, err)
			_, err = edb.Exec(`CREATE TABLE x (a INTEGER); DROP TABLE x`)
			cliMust(t, err)
			cliMust(t, edb.Close())
			empty, err := os.ReadFile(db)
			cliMust(t, err)
			if len(empty) == 0 {
				t.Fatal("the empty SQLite file has no header")
			}
			out, code := verify(t, cfg, "--allow-empty")
			if code != exitFailed || !strings.Contains(out, "no audit chain") || !strings.Contains(out, "no toolwright schema") {
				t.Errorf("an empty SQLite file: exit %d: %s", code, out)
			}
			unchanged(t, db, empty)
		})
	}

	// A wiped chain (rows deleted, head reset to the start).
	wipe := func(t *testing.T, db string) {
		t.Helper()
		w, err := sql.Open("sqlite", db)
		cliMust(t, err)
		defer w.Close()
		_, err = w.Exec(`DELETE FROM audit; UPDATE audit_head SET seq = 0, hash = ''`)
		cliMust(t, err)
	}
	t.Run("wiped", func(t *testing.T) {
		cfg, db := auditSet(t, 2)
		wipe(t, db)
		if out, code := verify(t, cfg); code != exitFailed || !strings.Contains(out, "no records") || !strings.Contains(out, "--allow-empty") {
			t.Errorf("a wiped chain: exit %d: %s", code, out)
		}
		if out, code := verify(t, cfg, "--allow-empty"); code != 0 || !strings.HasPrefix(out, "ok: 0 records") {
			t.Errorf("a wiped chain with --allow-empty and no key: exit %d: %s", code, out)
		}
		if out, code := verify(t, cfg, "--format", "json"); code != exitFailed || !strings.Contains(out, `"ok": false`) {
			t.Errorf("a wiped chain, json: exit %d: %s", code, out)
		}
	})
	t.Run("wiped with key", func(t *testing.T) {
		t.Setenv(config.DefaultAuditKeyEnv, "k3y-for-the-audit-chain")
		cfg, db := auditSet(t, 2)
		wipe(t, db)
		for _, args := range [][]string{nil, {"--allow-empty"}} {
			if out, code := verify(t, cfg, args...); code != exitFailed || !strings.Contains(out, "no records") || !strings.Contains(out, "audit.key is set") {
				t.Errorf("a wiped keyed chain %v: exit %d: %s", args, code, out)
			}
		}
	})
}

// TestAuditRotateKey: `audit rotate-key` moves a keyed chain to a new key
// with a record sealed by both; verify with the new key passes across the
// rotation (and with the old key as --old-key-env), verify with only the
// old key fails on the rotation, calls recorded afterwards with the new key
// keep the chain intact, and a rotation forged into the database (to a key
// of the forger's own) fails verify. Before: there was no rotate-key.
func TestAuditRotateKey(t *testing.T) {
	const oldKey, newKey = "k3y-for-the-audit-chain", "the-next-audit-k3y"
	t.Setenv(config.DefaultAuditKeyEnv, oldKey)
	t.Setenv("TW_NEW_AUDIT_KEY", newKey)
	cfgPath, db := auditSet(t, 3)
	run := func(args ...string) (string, int) {
		t.Helper()
		out, errOut, code := cli(t, append([]string{"--config", cfgPath, "audit"}, args...)...)
		return out + errOut, code
	}
	if out, code := run("rotate-key"); code != 2 || !strings.Contains(out, "exactly one of --new-key-env") {
		t.Fatalf("no new key: exit %d: %s", code, out)
	}
	if out, code := run("rotate-key", "--new-key-env", config.DefaultAuditKeyEnv); code == 0 || !strings.Contains(out, "is the current audit.key") {
		t.Fatalf("the same key: exit %d: %s", code, out)
	}
	out, code := run("rotate-key", "--new-key-env", "TW_NEW_AUDIT_KEY")
	if code != 0 || !strings.Contains(out, "rotated at seq 4: key "+store.KeyID([]byte(oldKey))+" -> key "+store.KeyID([]byte(newKey))) {
		t.Fatalf("rotate: exit %d: %s", code, out)
	}
	if out, code := run("verify"); code != exitFailed || !strings.Contains(out, "covers it") {
		t.Fatalf("verify with the old key after the rotation: exit %d: %s", code, out)
	}
	t.Setenv(config.DefaultAuditKeyEnv, newKey)
	t.Setenv("TW_OLD_AUDIT_KEY", oldKey)
	cfg, err := config.Load(cfgPath)
	cliMust(t, err)
	st, err := app.OpenStore(cfg)
	cliMust(t, err)
	cliMust(t, st.AppendAudit(context.Background(), &store.AuditRecord{Tool: "read_title", Risk: "read", Code: "ok", TaskID: "T-after"}))
	cliMust(t, st.Close())
	for _, args := range [][]string{{"verify"}, {"verify", "--old-key-env", "TW_OLD_AUDIT_KEY"}} {
		if out, code := run(args...); code != 0 || !strings.HasPrefix(out, "ok: 5 records, head hmac-sha256:"+store.KeyID([]byte(newKey))+":") {
			t.Fatalf("%v across the rotation: exit %d: %s", args, code, out)
		}
	}

	// a rotation forged by someone who can write the database but has no
	// key: to a key of their own, then a record under it
	forger := []byte("a key the forger made up")
	_, head := readHead(t, db)
	forged := store.NewRotation(6, time.Now(), head, "0", forger, forger)
	forged.GrantID = store.KeyedPrefix + store.KeyID([]byte(newKey)) + ":" + strings.Repeat("0", 64)
	forged.Hash = forged.ComputeHMAC(forger)
	raw, err := sql.Open("sqlite", db)
	cliMust(t, err)
	defer raw.Close()
	_, err = raw.Exec(`INSERT INTO audit (seq, time_ms, task_id, tool, risk, env_id, purpose, grant_id, code, trace_id, prev_hash, hash)
		VALUES (?, ?, '', ?, '', '', '', ?, 'ok', ?, ?, ?)`, forged.Seq, store.MS(forged.Time), forged.Tool, forged.GrantID, forged.TraceID, forged.PrevHash, forged.Hash)
	cliMust(t, err)
	_, err = raw.Exec(`UPDATE audit_head SET seq = 6, hash = ? WHERE id = 1`, forged.Hash)
	cliMust(t, err)
	if out, code := run("verify"); code != exitFailed || !strings.Contains(out, "at seq 6") || !strings.Contains(out, "forged rotation") {
		t.Fatalf("a forged rotation: exit %d: %s", code, out)
	}
}

// readHead reads the audit head row of a SQLite database.
func readHead(t *testing.T, db string) (int64, string) {
	t.Helper()
	raw, err := sql.Open("sqlite", db)
	cliMust(t, err)
	defer raw.Close()
	var seq int64
	var hash string
	cliMust(t, raw.QueryRow(`SELECT seq, hash FROM audit_head WHERE id = 1`).Scan(&seq, &hash))
	return seq, hash
}
