package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/store"
	"github.com/toolwright/toolwright/engine/store/sqlstore"
	"github.com/toolwright/toolwright/internal/testsite"
)

// TestFullDiskRefusesCalls: the state filesystem fills up under a running
// server (prlimit sets the serve process's file size limit to 1 byte, so
// every write that grows a file fails with EFBIG, as on a full disk): the
// next call of a read tool answers store_unavailable, retryable, and its
// page is never requested. Before, the call ran and answered ok with no
// audit record.
func TestFullDiskRefusesCalls(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("no prlimit (util-linux)")
	}
	bin := serveBinary(t)
	var hits atomic.Int32
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte(`<!doctype html><title>t</title><h1>Heading</h1>`))
	}))
	defer site.Close()
	cfg := serveSet(t, t.TempDir(), site.URL, serveWorkflows)
	p := startStdio(t, bin, "serve", "--config", cfg)
	p.listTools(t)
	call := func(id int64) map[string]any {
		t.Helper()
		p.send(t, `{"jsonrpc":"2.0","id":`+strconv.FormatInt(id, 10)+`,"method":"tools/call","params":{"name":"read_title","arguments":{}}}`)
		var res struct{ StructuredContent map[string]any }
		if err := json.Unmarshal(p.await(t, id, 60*time.Second).Result, &res); err != nil {
			t.Fatal(err)
		}
		return res.StructuredContent
	}
	if env := call(10); env["code"] != "ok" {
		t.Fatalf("first call: %v", env)
	}
	if out, err := exec.Command(prlimit, "--pid", strconv.Itoa(p.cmd.Process.Pid), "--fsize=1").CombinedOutput(); err != nil {
		t.Skipf("prlimit: %v: %s", err, out)
	}
	before := hits.Load()
	env := call(11)
	if env["code"] != "store_unavailable" || env["retryable"] != true {
		t.Fatalf("with the disk full: %v\nstderr: %s", env, p.stderr.String())
	}
	if n := hits.Load() - before; n != 0 {
		t.Fatalf("the call ran (%d requests) though the store could not record it", n)
	}
}

// twCLI runs the binary with extra environment variables and returns its
// stdout, stderr and exit status.
func twCLI(t *testing.T, bin string, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// rewriteAuditPlain rewrites the whole audit chain of the SQLite file with
// recomputed plain hashes, changing every code, as anyone who can write the
// file (but lacks audit.key) could.
func rewriteAuditPlain(t *testing.T, dbPath string) {
	t.Helper()
	db, err := sql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT seq, time_ms, task_id, tool, risk, env_id, purpose, grant_id, code, trace_id FROM audit ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	var recs []store.AuditRecord
	for rows.Next() {
		var r store.AuditRecord
		var ms int64
		if err := rows.Scan(&r.Seq, &ms, &r.TaskID, &r.Tool, &r.Risk, &r.EnvID, &r.Purpose, &r.GrantID, &r.Code, &r.TraceID); err != nil {
			t.Fatal(err)
		}
		r.Time = store.FromMS(ms)
		recs = append(recs, r)
	}
	rows.Close()
	prev := ""
	for _, r := range recs {
		r.Code, r.PrevHash = "rewritten", prev
		r.Seal(nil)
		if _, err := db.Exec(`UPDATE audit SET code = $1, prev_hash = $2, hash = $3 WHERE seq = $4`, r.Code, r.PrevHash, r.Hash, r.Seq); err != nil {
			t.Fatal(err)
		}
		prev = r.Hash
	}
	if _, err := db.Exec(`UPDATE audit_head SET hash = $1 WHERE id = 1`, prev); err != nil {
		t.Fatal(err)
	}
}

// TestAuditKeyAndHead: `audit head` prints SEQ:HASH and `audit verify
// --head` catches a whole-chain rewrite that a plain chain cannot show;
// with audit.key the chain turns keyed from the next record, and a rewrite
// without the key fails `audit verify`; a key the config names but that
// cannot be read stops the CLI with exit 2. Before: no audit.key, no `audit
// head`, no --head, and the rewrite verified ok.
func TestAuditKeyAndHead(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	bin := serveBinary(t)
	dir := t.TempDir()
	cfg := serveSet(t, dir, "http://127.0.0.1:1", serveWorkflows)
	dbPath := filepath.Join(dir, "state", sqlstore.FileName)
	noKey := []string{"TOOLWRIGHT_AUDIT_KEY="} // never the default key of whoever runs the test
	for range 2 {
		if out, errb, code := twCLI(t, bin, noKey, "--config", cfg, "run", "set_only"); code != 0 {
			t.Fatalf("run: %d %s %s", code, out, errb)
		}
	}
	out, errb, code := twCLI(t, bin, noKey, "--config", cfg, "audit", "head")
	anchor := strings.TrimSpace(out)
	if code != 0 || !strings.HasPrefix(anchor, "2:") || len(anchor) != 2+64 {
		t.Fatalf("audit head: %d %q %s", code, out, errb)
	}
	if out, _, code := twCLI(t, bin, noKey, "--config", cfg, "audit", "verify", "--head", anchor); code != 0 || !strings.Contains(out, "anchored head") {
		t.Fatalf("verify --head on the intact chain: %d %s", code, out)
	}
	rewriteAuditPlain(t, dbPath)
	if out, _, code := twCLI(t, bin, noKey, "--config", cfg, "audit", "verify"); code != 0 {
		t.Fatalf("a plain chain rewritten whole should verify without an anchor (that is its limit): %d %s", code, out)
	}
	out, _, code = twCLI(t, bin, noKey, "--config", cfg, "audit", "verify", "--head", anchor)
	if code != 1 || !strings.Contains(out, "does not match") {
		t.Fatalf("verify --head after a whole-chain rewrite: %d %s", code, out)
	}
	if _, errb, code := twCLI(t, bin, noKey, "--config", cfg, "audit", "verify", "--head", "two:abc"); code != 2 {
		t.Fatalf("a malformed --head: exit %d %s", code, errb)
	}

	// audit.key from a file named in the config
	keyFile := filepath.Join(dir, "audit.key")
	cliMust(t, os.WriteFile(keyFile, []byte("the-operators-audit-key\n"), 0o600))
	appendFile(t, cfg, "audit:\n  key: {file: ./audit.key}\n")
	if out, errb, code := twCLI(t, bin, noKey, "--config", cfg, "run", "set_only"); code != 0 {
		t.Fatalf("run with the key: %d %s %s", code, out, errb)
	}
	out, _, _ = twCLI(t, bin, noKey, "--config", cfg, "audit", "head")
	if !strings.HasPrefix(strings.TrimSpace(out), "3:"+store.KeyedPrefix) {
		t.Fatalf("head after a call with the key: %q", out)
	}
	if out, _, code := twCLI(t, bin, noKey, "--config", cfg, "audit", "verify"); code != 0 {
		t.Fatalf("verify with the key (plain records, then keyed): %d %s", code, out)
	}
	// someone without the key rewrites the whole chain again
	rewriteAuditPlain(t, dbPath)
	out, _, code = twCLI(t, bin, noKey, "--config", cfg, "audit", "verify")
	if code != 1 || !strings.Contains(out, "no record is keyed") {
		t.Fatalf("verify with the key after a rewrite without it: %d %s", code, out)
	}
	// the key the config names cannot be read: exit 2, the value never printed
	cliMust(t, os.Remove(keyFile))
	_, errb, code = twCLI(t, bin, noKey, "--config", cfg, "audit", "verify")
	if code != 2 || !strings.Contains(errb, "audit.key") {
		t.Fatalf("verify with an unreadable audit.key: %d %s", code, errb)
	}
}

// oldCallDir makes a call's folder under root, last modified days ago.
func oldCallDir(t *testing.T, root string, days int) string {
	t.Helper()
	dir := filepath.Join(root, store.NewTraceID())
	cliMust(t, os.MkdirAll(dir, 0o700))
	f := filepath.Join(dir, "page.html")
	cliMust(t, os.WriteFile(f, []byte("<p>old</p>"), 0o600))
	when := time.Now().Add(-time.Duration(days) * 24 * time.Hour)
	cliMust(t, os.Chtimes(f, when, when))
	cliMust(t, os.Chtimes(dir, when, when))
	return dir
}

// TestGCAndServePrune: `toolwright gc` deletes traces past retention.traces
// and call folders past retention.artifacts and says how many; `serve`
// does the same on its own when it starts (and hourly after). Before,
// nothing pruned either.
func TestGCAndServePrune(t *testing.T) {
	t.Parallel()
	bin := serveBinary(t)
	dir := t.TempDir()
	cfg := serveSet(t, dir, "http://127.0.0.1:1", serveWorkflows)
	state := filepath.Join(dir, "state")
	st, err := sqlstore.OpenSQLite(filepath.Join(state, sqlstore.FileName), sqlstore.Options{})
	cliMust(t, err)
	ctx := context.Background()
	for _, age := range []time.Duration{40 * 24 * time.Hour, time.Hour} {
		cliMust(t, st.SaveTrace(ctx, &store.Trace{Tool: "read_title", Start: time.Now().Add(-age), Code: "ok"}))
	}
	cliMust(t, st.Close())
	old := oldCallDir(t, filepath.Join(state, "artifacts"), 8)
	oldDownload := oldCallDir(t, filepath.Join(state, "downloads"), 9)
	recent := oldCallDir(t, filepath.Join(state, "artifacts"), 1)

	out, errb, code := twCLI(t, bin, nil, "--config", cfg, "gc", "--format", "json")
	var p struct {
		Traces       int64 `json:"traces"`
		ArtifactDirs int   `json:"artifact_dirs"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &p) != nil || p.Traces != 1 || p.ArtifactDirs != 2 {
		t.Fatalf("gc: exit %d %s %s", code, out, errb)
	}
	for path, want := range map[string]bool{old: false, oldDownload: false, recent: true} {
		if _, err := os.Stat(path); (err == nil) != want {
			t.Errorf("after gc %s: exists=%v, want %v", path, err == nil, want)
		}
	}
	if out, _, _ := twCLI(t, bin, nil, "--config", cfg, "gc"); !strings.HasPrefix(out, "pruned 0 traces (older than 30d)") {
		t.Errorf("gc again: %q", out)
	}

	// serve prunes on its own
	another := oldCallDir(t, filepath.Join(state, "artifacts"), 10)
	p2 := startStdio(t, bin, "serve", "--config", cfg)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(another); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not prune %s within 30s; stderr:\n%s", another, p2.stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, err := os.Stat(recent); err != nil {
		t.Errorf("serve pruned a recent folder: %v", err)
	}
}
