package main

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/store"
	"github.com/toolwright/toolwright/engine/store/sqlstore"
)

// TestServeFinishesLeftHandoffs: handoffs a server before left open (it
// stopped before their expiry; its local browser is gone) are finished by
// the next `serve` when it starts — past expires_at as expired, one whose
// environment nobody has any more as lost — and audited. Before, they
// stayed open in the store for ever.
func TestServeFinishesLeftHandoffs(t *testing.T) {
	t.Parallel()
	bin := serveBinary(t)
	dir := t.TempDir()
	cfg := serveSet(t, dir, "http://127.0.0.1:1", serveWorkflows)
	path := filepath.Join(dir, "state", sqlstore.FileName)
	st, err := sqlstore.OpenSQLite(path, sqlstore.Options{})
	cliMust(t, err)
	ctx := context.Background()
	now := time.Now()
	cliMust(t, st.SaveHandoff(ctx, &store.Handoff{EnvID: "env_past", Purpose: "shop", Message: "type the code", TraceID: "tr_1",
		Endpoint: "ws://127.0.0.1:1/devtools/browser/gone", TargetID: "T1", Created: now.Add(-time.Hour), Expires: now.Add(-time.Minute)}))
	cliMust(t, st.SaveHandoff(ctx, &store.Handoff{EnvID: "env_gone", Purpose: "shop", Message: "type the code", TraceID: "tr_2",
		Endpoint: "ws://127.0.0.1:1/devtools/browser/gone", TargetID: "T2", Created: now.Add(-time.Minute), Expires: now.Add(time.Hour)}))
	cliMust(t, st.Close())

	p := startStdio(t, bin, "serve", "--config", cfg)
	st, err = sqlstore.OpenSQLite(path, sqlstore.Options{})
	cliMust(t, err)
	defer st.Close()
	// Each is finished, then audited: wait for both.
	var audited map[string]string
	deadline := time.Now().Add(60 * time.Second)
	for {
		un, err := st.UnfinishedHandoffs(ctx)
		cliMust(t, err)
		recs, err := st.ExportAudit(ctx, time.Time{}, time.Time{})
		cliMust(t, err)
		audited = map[string]string{}
		for _, r := range recs {
			if r.Tool == "handoff" {
				audited[r.EnvID] += r.Code + ";"
			}
		}
		if len(un) == 0 && len(audited) == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 60s serve left %+v unfinished, audited %v; stderr:\n%s", un, audited, p.stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	hs, err := st.ListHandoffs(ctx, false)
	cliMust(t, err)
	got := map[string]string{}
	for _, h := range hs {
		got[h.EnvID] = h.FinishedBy
	}
	if got["env_past"] != "expired" || got["env_gone"] != "lost" {
		t.Errorf("finished by %v, want env_past expired and env_gone lost", got)
	}
	if audited["env_past"] != "expired;" || audited["env_gone"] != "lost;" {
		t.Errorf("handoff audit records %v, want one expired and one lost", audited)
	}
}
