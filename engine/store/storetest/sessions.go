package storetest

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/store"
)

// testSessions: a session saved on one handle (replica) is read on
// another, replaced by a later save, hidden once expired, listed without
// its data, and deleted by purpose or all at once.
func testSessions(t *testing.T, b Backend) {
	now := time.Now().Truncate(time.Millisecond)
	clock := func() time.Time { return now }
	hs := handles(t, b, 2, Options{Now: func() time.Time { return clock() }})
	a, other := hs[0], hs[1]
	ctx := context.Background()
	if _, err := a.GetSession(ctx, "shop"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("GetSession of nothing: %v, want ErrNotFound", err)
	}
	s1 := &store.Session{Purpose: "shop", Sealed: []byte{0, 1, 2, 255}, KeyID: "k1", Saved: now, Expires: now.Add(time.Hour), SavedBy: "env-1"}
	if err := a.SaveSession(ctx, s1); err != nil {
		t.Fatal(err)
	}
	got, err := other.GetSession(ctx, "shop")
	if err != nil {
		t.Fatalf("another handle: %v", err)
	}
	if !bytes.Equal(got.Sealed, s1.Sealed) || got.KeyID != "k1" || got.SavedBy != "env-1" || !got.Expires.Equal(s1.Expires) {
		t.Errorf("read back %+v, want %+v", got, s1)
	}
	s2 := &store.Session{Purpose: "shop", Sealed: []byte("second"), KeyID: "k2", Saved: now, Expires: now.Add(2 * time.Hour), SavedBy: "import"}
	if err := other.SaveSession(ctx, s2); err != nil {
		t.Fatal(err)
	}
	if err := a.SaveSession(ctx, &store.Session{Purpose: "admin", Sealed: []byte("x"), KeyID: "k2", Saved: now, Expires: now.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	if got, err = a.GetSession(ctx, "shop"); err != nil || string(got.Sealed) != "second" || got.KeyID != "k2" {
		t.Errorf("after a second save: %+v, %v", got, err)
	}
	list, err := other.ListSessions(ctx)
	if err != nil || len(list) != 2 || list[0].Purpose != "admin" || list[1].Purpose != "shop" || list[1].Sealed != nil || list[1].Bytes == 0 {
		t.Errorf("ListSessions = %+v, %v", list, err)
	}
	clock = func() time.Time { return now.Add(90 * time.Second) }
	if _, err := a.GetSession(ctx, "admin"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an expired session: %v, want ErrNotFound", err)
	}
	if n, err := a.DeleteSessions(ctx, "shop"); err != nil || n != 1 {
		t.Errorf("DeleteSessions(shop) = %d, %v", n, err)
	}
	if n, err := other.DeleteSessions(ctx, ""); err != nil || n != 1 {
		t.Errorf("DeleteSessions(all) = %d, %v", n, err)
	}
	if err := a.SaveSession(ctx, &store.Session{Purpose: "", Sealed: []byte("x")}); err == nil {
		t.Error("a session without a purpose was saved")
	}
}

// testHandoffs: a handoff is open on every handle until finished (once)
// or expired.
func testHandoffs(t *testing.T, b Backend) {
	now := time.Now().Truncate(time.Millisecond)
	clock := func() time.Time { return now }
	hs := handles(t, b, 2, Options{Now: func() time.Time { return clock() }})
	a, other := hs[0], hs[1]
	ctx := context.Background()
	h := &store.Handoff{EnvID: "env-1", Purpose: "shop", Message: "type the code", Endpoint: "ws://127.0.0.1:1/devtools/browser/x", TargetID: "T1", TraceID: "tr_1", Expires: now.Add(time.Hour)}
	if err := a.SaveHandoff(ctx, h); err != nil {
		t.Fatal(err)
	}
	if err := a.SaveHandoff(ctx, &store.Handoff{EnvID: "env-2", Purpose: "shop", Expires: now.Add(time.Minute)}); err != nil {
		t.Fatal(err)
	}
	open, err := other.ListHandoffs(ctx, true)
	if err != nil || len(open) != 2 {
		t.Fatalf("open handoffs = %+v, %v", open, err)
	}
	var h1 store.Handoff
	for _, x := range open {
		if x.EnvID == "env-1" {
			h1 = x
		}
	}
	if h1.Message != "type the code" || h1.TargetID != "T1" || h1.Endpoint == "" || !h1.Finished.IsZero() {
		t.Errorf("read back %+v", h1)
	}
	ok, err := other.FinishHandoff(ctx, "env-1", "ui 127.0.0.1:5")
	if err != nil || !ok {
		t.Errorf("FinishHandoff = %v, %v", ok, err)
	}
	if ok, _ := a.FinishHandoff(ctx, "env-1", "again"); ok {
		t.Error("a finished handoff was finished twice")
	}
	clock = func() time.Time { return now.Add(2 * time.Minute) }
	if open, _ = a.ListHandoffs(ctx, true); len(open) != 0 {
		t.Errorf("open after finishing one and the other expiring: %+v", open)
	}
	// env-2 expired unfinished (its server stopped before its timer):
	// still unfinished, for the next server to finish as expired
	if un, err := other.UnfinishedHandoffs(ctx); err != nil || len(un) != 1 || un[0].EnvID != "env-2" {
		t.Errorf("unfinished handoffs = %+v, %v; want env-2", un, err)
	}
	if ok, err := other.FinishHandoff(ctx, "env-2", "expired"); err != nil || !ok {
		t.Errorf("finish the expired env-2 = %v, %v", ok, err)
	}
	if un, err := a.UnfinishedHandoffs(ctx); err != nil || len(un) != 0 {
		t.Errorf("unfinished handoffs after finishing env-2 = %+v, %v", un, err)
	}
	all, err := a.ListHandoffs(ctx, false)
	if err != nil || len(all) != 2 {
		t.Fatalf("all handoffs = %+v, %v", all, err)
	}
	for _, x := range all {
		if x.EnvID == "env-1" && (x.FinishedBy != "ui 127.0.0.1:5" || x.Finished.IsZero()) {
			t.Errorf("finished handoff = %+v", x)
		}
	}
}
