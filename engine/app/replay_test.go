package app_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/record"
	"github.com/toolwright/toolwright/internal/testbrowser"
	"github.com/toolwright/toolwright/internal/testsite"
)

// record's replay of a write tool runs it once, let through by a grant
// that ends with the replay: afterwards no grant exists for its task_id.
// Before, the replay stored a 15-minute grant for task record-NAME that
// nobody revoked, so an agent could run the tool under it with its own
// arguments.
func TestRecordReplayLeavesNoGrant(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	var saves atomic.Int64
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.Method != http.MethodPost {
			fmt.Fprint(w, `<!doctype html><title>note</title><form method="post"><button id="save">Save</button></form>`)
			return
		}
		fmt.Fprintf(w, `<!doctype html><title>saved</title><p id="saved">saved %d</p>`, saves.Add(1))
	}))
	t.Cleanup(site.Close)
	dir := t.TempDir()
	for name, body := range map[string]string{
		"toolwright.yaml": fmt.Sprintf("workflows: workflows\nselectors: selectors.yaml\nstate_dir: state\nvars: {base: %q}\npolicy:\n  write_tools: grant\n  allowed_hosts: [127.0.0.1]\n", site.URL),
		"selectors.yaml":  "note.save: {css: \"#save\", effect: write}\nnote.saved: {css: \"#saved\"}\n",
		"workflows/save_note.yaml": `name: save_note
description: Save a note (one POST, which the site counts).
risk: write
steps:
  - goto: ${{ config.base }}/note
  - click: note.save
  - extract: {from: note.saved, into: saved}
output:
  saved: ${{ vars.saved }}
`,
	} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := config.Load(filepath.Join(dir, "toolwright.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	testbrowser.Config(t, cfg)
	d := &record.Draft{Name: "save_note", TaskID: "record-save_note", Risk: "write", Args: map[string]any{},
		Observed: map[string]any{"saved": "saved 1"}}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	env, diffs, err := app.Replay(ctx, cfg, slog.New(slog.DiscardHandler), d, "ops@test")
	if err != nil {
		t.Fatal(err)
	}
	if !env.OK || len(diffs) != 0 || saves.Load() != 1 {
		t.Fatalf("the replay: %s %s, diffs %v, %d saves", env.Code, env.Message, diffs, saves.Load())
	}
	st, err := app.OpenStore(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	grants, err := st.ListGrants(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range grants {
		t.Errorf("a grant is left after the replay: %s for tool %s, task %s, until %s (%s)", g.ID, g.Tool, g.TaskID, g.Expires, g.Reason)
	}
	if id, err := st.LiveGrantID(ctx, "save_note", "record-save_note", time.Now()); id != "" || err != nil {
		t.Errorf("a live grant for task record-save_note: %q, %v", id, err)
	}
	// The replay's call is audited under the grant it ran with.
	recs, err := st.ExportAudit(ctx, time.Time{}, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || recs[0].Tool != "save_note" || recs[0].TaskID != "record-save_note" || recs[0].Code != "ok" || recs[0].GrantID != "record-replay:ops@test" {
		t.Errorf("audit after the replay: %+v", recs)
	}
}
