package safetytest

import (
	"context"
	"database/sql"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/internal/harness"
)

// probeSite counts the requests a call makes, so a test can tell a call
// that ran from one that did not. With onHit set, the handler runs it while
// the call is in the middle of its goto.
type probeSite struct {
	*httptest.Server
	hits  atomic.Int32
	onHit atomic.Pointer[func()]
}

func startProbeSite(t *testing.T) *probeSite {
	p := &probeSite{}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/probe" {
			http.NotFound(w, r)
			return
		}
		p.hits.Add(1)
		if f := p.onHit.Load(); f != nil {
			(*f)()
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<!doctype html><title>probe page</title><p>probe</p>`))
	}))
	t.Cleanup(p.Close)
	return p
}

var storeWorkflows = map[string]string{
	"read_probe": `
name: read_probe
description: Read the probe page.
risk: read
steps:
  - goto: ${{ config.probe_base }}/probe
output:
  title: ${{ page.title }}
`,
	"write_probe": `
name: write_probe
description: Open the probe page as a write would.
risk: write
steps:
  - goto: ${{ config.probe_base }}/probe
output:
  title: ${{ page.title }}
`,
}

func newStoreHarness(t *testing.T) (*harness.Harness, *probeSite, string) {
	t.Helper()
	p := startProbeSite(t)
	h := harness.New(t, storeWorkflows, func(c *config.Config) { c.Vars["probe_base"] = p.URL })
	return h, p, filepath.Join(filepath.Dir(h.Cfg.Workflows), "state.db")
}

// wantStoreCode checks a call the store refused: the code, retryable, not
// for a person, and nothing requested from the site.
func wantStoreCode(t *testing.T, env *result.Envelope, code string) {
	t.Helper()
	if env.OK || env.Code != code || !env.Retryable || env.NeedsHuman {
		t.Fatalf("want %s (retryable), got %s", code, env.JSON())
	}
	if strings.Contains(env.Message, "state.db") || strings.Contains(env.Message, "sqlite") {
		t.Fatalf("the message carries lower-layer text: %q", env.Message)
	}
}

// The database deleted under a running engine: every later call is refused
// with store_unavailable before it runs (before, they ran and their records
// went into the deleted file).
func TestStoreDeletedFailsClosed(t *testing.T) {
	t.Parallel()
	h, p, db := newStoreHarness(t)
	h.OK(h.Call("read_probe", `{}`))
	if err := os.Remove(db); err != nil {
		t.Fatal(err)
	}
	before := p.hits.Load()
	wantStoreCode(t, h.Call("read_probe", `{}`), errs.StoreUnavailable)
	wantStoreCode(t, h.Call("read_probe", `{"task_id":"T-read"}`), errs.StoreUnavailable)
	wantStoreCode(t, h.Call("write_probe", `{"task_id":"T-write"}`), errs.StoreUnavailable)
	if n := p.hits.Load() - before; n != 0 {
		t.Fatalf("%d requests reached the site after the store was lost", n)
	}
}

// The database file replaced by another one (a restore over a running
// server) is refused the same way.
func TestStoreReplacedFailsClosed(t *testing.T) {
	t.Parallel()
	h, p, db := newStoreHarness(t)
	h.OK(h.Call("read_probe", `{}`))
	other := filepath.Join(t.TempDir(), "other.db")
	harness.WriteFile(t, other, "")
	if err := os.Rename(other, db); err != nil {
		t.Fatal(err)
	}
	before := p.hits.Load()
	wantStoreCode(t, h.Call("read_probe", `{}`), errs.StoreUnavailable)
	if n := p.hits.Load() - before; n != 0 {
		t.Fatalf("%d requests reached the site after the store was replaced", n)
	}
}

// Another process holds the database's write lock: calls answer store_busy
// (retryable) without running, within the store's lock wait (1.5 s; the
// test allows 30 s so a loaded machine cannot fail it, while the old code
// ran the call and answered ok, or waited out a 10 s busy timeout). When
// the lock goes, calls work again.
func TestStoreLockedAnswersBusy(t *testing.T) {
	t.Parallel()
	h, p, db := newStoreHarness(t)
	h.OK(h.Call("read_probe", `{}`))
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	ctx := context.Background()
	conn, err := raw.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	before := p.hits.Load()
	start := time.Now()
	wantStoreCode(t, h.Call("read_probe", `{}`), errs.StoreBusy)
	wantStoreCode(t, h.Call("write_probe", `{"task_id":"T-busy"}`), errs.StoreBusy)
	if took := time.Since(start); took > 30*time.Second {
		t.Fatalf("two store_busy answers took %s", took)
	}
	if n := p.hits.Load() - before; n != 0 {
		t.Fatalf("%d requests reached the site while the store was locked", n)
	}
	if _, err := conn.ExecContext(ctx, `ROLLBACK`); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	h.OK(h.Call("write_probe", `{"task_id":"T-busy"}`))
}

// The store lost while a read call runs (the site's handler deletes the
// database mid-goto): the read's result is withheld, since its audit record
// cannot be written. A write keeps its true envelope: its effect happened.
func TestStoreLostMidCallWithholdsRead(t *testing.T) {
	t.Parallel()
	h, p, db := newStoreHarness(t)
	del := func() { os.Remove(db) }
	p.onHit.Store(&del)
	env := h.Call("read_probe", `{}`)
	wantStoreCode(t, env, errs.StoreUnavailable)
	if env.Data != nil || !strings.Contains(env.Message, "withheld") {
		t.Fatalf("a read whose audit record was lost returned %s", env.JSON())
	}
}

func TestStoreLostMidCallKeepsWriteOutcome(t *testing.T) {
	t.Parallel()
	h, p, db := newStoreHarness(t)
	del := func() { os.Remove(db) }
	p.onHit.Store(&del)
	env := h.OK(h.Call("write_probe", `{"task_id":"T-w"}`))
	if env.Data["title"] != "probe page" {
		t.Fatalf("write envelope %s", env.JSON())
	}
}

// The database's header overwritten in place under a running engine (a
// stray write, a disk fault; issue 22, item 12): calls are refused with
// store_unavailable before they run, never run unrecorded.
func TestStoreHeaderOverwrittenFailsClosed(t *testing.T) {
	t.Parallel()
	h, p, db := newStoreHarness(t)
	h.OK(h.Call("read_probe", `{}`))
	f, err := os.OpenFile(db, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte(strings.Repeat("not a database! ", 7)), 0); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	before := p.hits.Load()
	wantStoreCode(t, h.Call("read_probe", `{}`), errs.StoreUnavailable)
	wantStoreCode(t, h.Call("write_probe", `{"task_id":"T-header"}`), errs.StoreUnavailable)
	if n := p.hits.Load() - before; n != 0 {
		t.Fatalf("%d requests reached the site after the header was overwritten", n)
	}
}
