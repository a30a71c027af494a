package run_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/run"
	"github.com/toolwright/toolwright/engine/store"
	"github.com/toolwright/toolwright/engine/store/sqlstore"
	"github.com/toolwright/toolwright/internal/harness"
)

// callDir makes a call's folder of files under root, last modified at when.
func callDir(t *testing.T, root, name string, when time.Time) string {
	t.Helper()
	dir := filepath.Join(root, name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(dir, "page.html")
	harness.WriteFile(t, f, strings.Repeat("x", 100))
	for _, p := range []string{f, dir} {
		if err := os.Chtimes(p, when, when); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestPruneRetention: traces older than retention.traces leave the store
// (newer ones and the audit log stay), call folders of artifacts and
// downloads older than retention.artifacts are removed (newer ones and
// folders not named like a trace id stay), and 0 keeps everything. Before:
// nothing pruned artifacts at all.
func TestPruneRetention(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := config.Default(dir)
	st, err := sqlstore.OpenSQLite(filepath.Join(dir, "state.db"), sqlstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	now := time.Now()
	old, fresh := store.NewTraceID(), store.NewTraceID()
	for id, start := range map[string]time.Time{old: now.Add(-31 * 24 * time.Hour), fresh: now.Add(-29 * 24 * time.Hour)} {
		if err := st.SaveTrace(ctx, &store.Trace{ID: id, Tool: "t", Start: start, Code: "ok"}); err != nil {
			t.Fatal(err)
		}
		if err := st.AppendAudit(ctx, &store.AuditRecord{Time: start, Tool: "t", Code: "ok", TraceID: id}); err != nil {
			t.Fatal(err)
		}
	}
	downloads := filepath.Join(cfg.StateDir, "downloads")
	oldArt := callDir(t, cfg.Artifacts(), store.NewTraceID(), now.Add(-8*24*time.Hour))
	newArt := callDir(t, cfg.Artifacts(), store.NewTraceID(), now.Add(-6*24*time.Hour))
	oldDl := callDir(t, downloads, store.NewTraceID(), now.Add(-30*24*time.Hour))
	notACall := callDir(t, cfg.Artifacts(), "keep-me", now.Add(-400*24*time.Hour))

	keep := *cfg
	keep.Retention = config.Retention{}
	if p, err := run.Prune(ctx, &keep, st, now); err != nil || p.Traces != 0 || p.ArtifactDirs != 0 {
		t.Fatalf("retention 0: %+v %v", p, err)
	}
	p, err := run.Prune(ctx, cfg, st, now)
	if err != nil {
		t.Fatal(err)
	}
	if p.Traces != 1 || p.ArtifactDirs != 2 || p.ArtifactBytes != 200 {
		t.Fatalf("pruned %+v, want 1 trace and 2 folders of 100 bytes", p)
	}
	if _, err := st.GetTrace(ctx, old); err == nil {
		t.Error("the 31-day-old trace is still there")
	}
	if _, err := st.GetTrace(ctx, fresh); err != nil {
		t.Errorf("the 29-day-old trace: %v", err)
	}
	for path, want := range map[string]bool{oldArt: false, oldDl: false, newArt: true, notACall: true} {
		if _, err := os.Stat(path); (err == nil) != want {
			t.Errorf("%s: exists=%v, want %v", path, err == nil, want)
		}
	}
	if seq, _, _ := st.AuditHead(ctx); seq != 2 {
		t.Errorf("the audit log lost records: head at %d", seq)
	}
	if prob, err := st.CheckAudit(ctx); prob != nil || err != nil {
		t.Errorf("audit chain after pruning: %v %v", prob, err)
	}
}

var bigPageWorkflows = map[string]string{
	"big_fail": `
name: big_fail
description: Open a big page, then fail, so the failure capture keeps it.
risk: read
steps:
  - goto: {url: "${{ config.big_base }}/big", wait_until: domcontentloaded}
    timeout: 30s
  - fail: {code: stopped_here, message: the test stops here}
`,
	"big_shot": `
name: big_shot
description: Screenshot the big page.
risk: read
steps:
  - goto: {url: "${{ config.big_base }}/big", wait_until: domcontentloaded}
    timeout: 30s
  - screenshot: {into: shot}
    timeout: 30s
output:
  shot: ${{ vars.shot }}
`,
}

// TestArtifactsBounded: with limits.max_artifact_bytes a failure on a page
// far larger keeps a page.html cut to the bound with a marker, no file of
// the call is above the bound (a screenshot that would be is not kept, and
// the trace says so), and a screenshot step above it is limit_exceeded.
// Before, page.html was kept whole (a 42 MB page gave a 42 MB file).
func TestArtifactsBounded(t *testing.T) {
	t.Parallel()
	// 8 KiB: far below any screenshot of a 1280×720 page of text.
	const bound = 8 << 10
	big := "<!doctype html><title>big</title><body>" + strings.Repeat("<p>row of a long report, with a few words in it</p>\n", 4000) + "</body>"
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(big))
	}))
	defer site.Close()
	h := harness.New(t, bigPageWorkflows, func(c *config.Config) {
		c.Vars["big_base"] = site.URL
		c.Limits.MaxArtifactBytes = bound
	})
	env := h.Code(h.Call("big_fail", `{}`), "stopped_here")
	tr, err := h.St.GetTrace(context.Background(), env.TraceID)
	if err != nil {
		t.Fatal(err)
	}
	var html string
	for _, a := range tr.Artifacts {
		path := filepath.Join(h.Cfg.Artifacts(), filepath.FromSlash(a))
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > bound {
			t.Errorf("%s is %d bytes, above the bound %d", a, fi.Size(), bound)
		}
		if strings.HasSuffix(a, "/page.html") {
			b, _ := os.ReadFile(path)
			html = string(b)
		}
	}
	if !strings.HasPrefix(html, "<!doctype html>") || !strings.Contains(html, "<!-- toolwright: page.html cut here: 8192 of its ") {
		t.Fatalf("page.html (%d bytes) is not the start of the page with a marker (artifacts %v)", len(html), tr.Artifacts)
	}
	// The failure screenshot is above the bound, so it is not kept and the
	// trace says so (unless a loaded machine ran the capture out of its 3 s
	// first, which the trace says instead).
	if strings.Contains(strings.Join(tr.Artifacts, " "), "failure.png") ||
		!strings.Contains(tr.Error, "above limits.max_artifact_bytes (8192)") && !strings.Contains(tr.Error, "ran out of its") {
		t.Errorf("the failure screenshot above the bound: artifacts %v, trace error %q", tr.Artifacts, tr.Error)
	}
	h.Code(h.Call("big_shot", `{}`), "limit_exceeded")
}
