package app_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/engine/store"
	"github.com/toolwright/toolwright/internal/testsite"
)

// nobodyComes runs person_sign_in on a; nobody answers, so it ends
// human_required with the environment kept for a person.
func nobodyComes(t *testing.T, a *app.App) *result.Envelope {
	t.Helper()
	done, _ := askHuman(t, a)
	var got *result.Envelope
	select {
	case got = <-done:
	case <-time.After(5 * time.Minute):
		t.Fatal("the call did not end")
	}
	if got.Code != "human_required" || got.Handoff == nil {
		b, _ := json.Marshal(got)
		t.Fatalf("person_sign_in: %s", b)
	}
	return got
}

// closeApp stops a's server as a restart does: its environments close
// (the local browser with them) and its in-memory timers die with the
// store it held.
func closeApp(t *testing.T, a *app.App) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := a.Close(ctx); err != nil {
		t.Fatal(err)
	}
}

// handoffOf is the stored handoff of envID.
func handoffOf(t *testing.T, st store.Store, envID string) store.Handoff {
	t.Helper()
	hs, err := st.ListHandoffs(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hs {
		if h.EnvID == envID {
			return h
		}
	}
	t.Fatalf("no handoff of %s in %+v", envID, hs)
	return store.Handoff{}
}

// sweep runs the handoff sweep of a, as `serve` does on start and every
// run.HandoffSweepEvery.
func sweep(t *testing.T, a *app.App) {
	t.Helper()
	if _, err := a.Engine.SweepHandoffs(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestHandoffExpiresAcrossRestart: a call hands its environment to a
// person and nobody comes; the server stops before expires_at, so its
// timer never fires. The next server to start finishes the handoff as
// expired once expires_at has passed, and audits it. Before, the handoff
// stayed unfinished in the store for ever.
func TestHandoffExpiresAcrossRestart(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	site := newShopSite(t)
	cfgPath := askHumanProject(t, site.URL, "10s")
	a := openShop(t, cfgPath, nil)
	got := nobodyComes(t, a)
	h := got.Handoff
	// The server dies at once, its store first: its timer can no longer
	// finish the handoff, however slowly its browsers shut down.
	stopped := time.Now()
	_ = a.Store.Close()
	closeApp(t, a)
	if stopped.After(h.ExpiresAt) {
		t.Fatalf("the server stopped after expires_at %s: the test shows nothing", h.ExpiresAt)
	}
	time.Sleep(time.Until(h.ExpiresAt) + 500*time.Millisecond) // the downtime spans expires_at

	b := openShop(t, cfgPath, nil)
	if x := handoffOf(t, b.Store, h.EnvID); !x.Finished.IsZero() {
		t.Fatalf("the handoff was finished while no server ran: %+v", x)
	}
	sweep(t, b)
	if x := handoffOf(t, b.Store, h.EnvID); x.FinishedBy != "expired" || x.Finished.IsZero() {
		t.Errorf("after the restart: %+v, want finished as expired", x)
	}
	handoffAudited(t, b, h.EnvID, got.TraceID, "started", "kept", "expired")
	sweep(t, b) // once only
	handoffAudited(t, b, h.EnvID, got.TraceID, "started", "kept", "expired")
}

// TestHandoffLostWithItsServer: a call hands its environment to a person
// for ten minutes. Another server on the same store leaves the handoff
// alone while the first one runs (it still has the environment); once the
// first stops, and its local browser with it, the handoff is finished as
// lost and audited, and the ui no longer lists it.
func TestHandoffLostWithItsServer(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	site := newShopSite(t)
	cfgPath := askHumanProject(t, site.URL, "10m")
	wf := filepath.Join(filepath.Dir(cfgPath), "workflows", "person_sign_in.yaml")
	body, err := os.ReadFile(wf)
	if err != nil {
		t.Fatal(err)
	}
	// The call waits about 40 s (its deadline), then keeps the environment 10m.
	if err := os.WriteFile(wf, []byte(strings.Replace(string(body), "deadline: 4m", "deadline: 45s", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	a := openShop(t, cfgPath, nil)
	got := nobodyComes(t, a)
	h := got.Handoff
	if time.Until(h.ExpiresAt) < 5*time.Minute {
		t.Fatalf("expires_at %s: want minutes away", h.ExpiresAt)
	}

	b := openShop(t, cfgPath, nil)
	ui := startUI(t, b.Config)
	sweep(t, b)
	if x := handoffOf(t, b.Store, h.EnvID); !x.Finished.IsZero() {
		t.Fatalf("another server finished a handoff whose server still runs: %+v", x)
	}
	if row := ui.row(t, h.EnvID); !strings.Contains(row, "type the code from the phone") {
		t.Errorf("the ui's row of the open handoff: %q", row)
	}

	closeApp(t, a)
	if row := ui.row(t, h.EnvID); row != "" {
		t.Errorf("the ui lists the handoff of a closed environment: %s", row)
	}
	sweep(t, b)
	if x := handoffOf(t, b.Store, h.EnvID); x.FinishedBy != "lost" || x.Finished.IsZero() {
		t.Errorf("after its server stopped: %+v, want finished as lost", x)
	}
	handoffAudited(t, b, h.EnvID, got.TraceID, "started", "kept", "lost")
	if open, _ := b.Store.ListHandoffs(context.Background(), true); len(open) != 0 {
		t.Errorf("open handoffs: %+v", open)
	}
}
