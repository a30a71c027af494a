package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/store"
)

// testPublishedEnvs: what an owner publishes is listed on every handle
// while its lease lives; publishing again replaces the owner's list (a
// record keeps its first Created); a record whose owner stopped renewing
// it is not listed, and the next publication by anyone deletes it; an
// empty list withdraws the owner's.
func testPublishedEnvs(t *testing.T, b Backend) {
	clk := &fakeClock{t: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	hs := handles(t, b, 2, Options{Now: clk.now})
	a, o := hs[0], hs[1]
	ctx := context.Background()
	t0 := clk.now()
	ids := func(s store.Store) string {
		t.Helper()
		es, err := s.PublishedEnvs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out := ""
		for _, e := range es {
			out += e.ID + ","
		}
		return out
	}
	e1 := store.PublishedEnv{ID: "env_1", Process: "host pid 1", Provider: "local", Endpoint: "ws://127.0.0.1:9/devtools/browser/a",
		TargetID: "T1", Region: "local", Purpose: "shop", LastUsed: t0}
	e2 := store.PublishedEnv{ID: "env_2", Provider: "local", Endpoint: "ws://127.0.0.1:9/devtools/browser/a", TargetID: "T2", Purpose: "default", Temporary: true}
	if err := a.PublishEnvs(ctx, "rA", []store.PublishedEnv{e1, e2}, t0.Add(30*time.Second)); err != nil {
		t.Fatal(err)
	}
	clk.add(time.Second)
	if err := o.PublishEnvs(ctx, "rB", []store.PublishedEnv{{ID: "env_3", Provider: "local", Purpose: "shop"}}, t0.Add(30*time.Second)); err != nil {
		t.Fatal(err)
	}
	es, err := o.PublishedEnvs(ctx)
	if err != nil || len(es) != 3 {
		t.Fatalf("published = %+v, %v", es, err)
	}
	g := es[0]
	if g.ID != "env_1" || g.Owner != "rA" || g.Process != "host pid 1" || g.Provider != "local" || g.Endpoint != e1.Endpoint || g.TargetID != "T1" ||
		g.Region != "local" || g.Purpose != "shop" || g.Temporary || !g.Created.Equal(t0) || !g.LastUsed.Equal(t0) || !g.AliveUntil.Equal(t0.Add(30*time.Second)) {
		t.Errorf("read back %+v", g)
	}
	if !es[1].Temporary || es[1].ID != "env_2" {
		t.Errorf("read back %+v", es[1])
	}
	// env_2 closed: rA's list is env_1 alone, renewed
	clk.add(9 * time.Second)
	if err := a.PublishEnvs(ctx, "rA", []store.PublishedEnv{e1}, clk.now().Add(30*time.Second)); err != nil {
		t.Fatal(err)
	}
	if got := ids(o); got != "env_1,env_3," {
		t.Errorf("after rA withdrew env_2: %s", got)
	}
	if es, _ := o.PublishedEnvs(ctx); len(es) == 0 || !es[0].Created.Equal(t0) {
		t.Errorf("env_1 republished: %+v, want created %s kept", es, t0)
	}
	// rB stops renewing (it died): past its lease env_3 is not listed
	clk.add(25 * time.Second) // t0+35s: rB ran out at t0+30s, rA lives until t0+40s
	if got := ids(a); got != "env_1," {
		t.Errorf("past rB's lease: %s, want env_1 alone", got)
	}
	// the next publication (rA's renewal, or a restarted process's first)
	// deletes rB's record: with the clock set back it is still gone
	if err := a.PublishEnvs(ctx, "rA", []store.PublishedEnv{e1}, clk.now().Add(30*time.Second)); err != nil {
		t.Fatal(err)
	}
	clk.add(-35 * time.Second)
	if got := ids(o); got != "env_1," {
		t.Errorf("rB's record was not deleted: %s", got)
	}
	// rA shuts down: an empty list withdraws its environments
	if err := a.PublishEnvs(ctx, "rA", nil, clk.now().Add(30*time.Second)); err != nil {
		t.Fatal(err)
	}
	if got := ids(o); got != "" {
		t.Errorf("after rA withdrew everything: %s", got)
	}
	if err := a.PublishEnvs(ctx, "", nil, clk.now()); err == nil {
		t.Error("publishing without an owner was accepted")
	}
}
