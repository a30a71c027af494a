package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/store"
)

// Three replicas reserve 30 environments at once under max 8: exactly 8
// are admitted, the rest get env_unavailable, and max_per_purpose holds for
// kept ones.
func testEnvReserveLimits(t *testing.T, b Backend) {
	hs := handles(t, b, 3, Options{})
	ctx := context.Background()
	var ok, full atomic.Int32
	var wg sync.WaitGroup
	for i := range 30 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec := &store.EnvRecord{ID: fmt.Sprintf("env_%02d", i), Provider: "cdp", Region: "local", Purpose: "p", Temporary: true}
			err := hs[i%3].ReserveEnv(ctx, rec, store.EnvLimits{Max: 8, MaxPerKept: 2}, "o", time.Now().Add(time.Minute))
			switch {
			case err == nil:
				ok.Add(1)
			case errs.CodeOf(err) == errs.EnvUnavailable:
				full.Add(1)
			default:
				t.Errorf("reserve %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	if ok.Load() != 8 || full.Load() != 22 {
		t.Fatalf("%d reserved, %d refused; want 8 and 22", ok.Load(), full.Load())
	}
	c, err := hs[0].CountEnvs(ctx)
	if err != nil || c.Total != 8 || c.ByPurpose["p"] != 0 {
		t.Fatalf("counts %+v, %v", c, err)
	}
	// kept environments of one purpose: at most MaxPerKept
	lim := store.EnvLimits{Max: 100, MaxPerKept: 2}
	for i := range 3 {
		err := hs[1].ReserveEnv(ctx, &store.EnvRecord{ID: fmt.Sprint("kept_", i), Provider: "cdp", Region: "local", Purpose: "orders"}, lim, "", time.Time{})
		if (i < 2) != (err == nil) {
			t.Fatalf("kept %d: %v", i, err)
		}
	}
	if err := hs[1].CloseEnv(ctx, "kept_0", "closed by close_env"); err != nil {
		t.Fatal(err)
	}
	if err := hs[2].ReserveEnv(ctx, &store.EnvRecord{ID: "kept_3", Provider: "cdp", Region: "local", Purpose: "orders"}, lim, "", time.Time{}); err != nil {
		t.Fatalf("a closed environment still counts: %v", err)
	}
}

func testEnvLeases(t *testing.T, b Backend) {
	clk := &fakeClock{t: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	hs := handles(t, b, 2, Options{Now: clk.now})
	a, o := hs[0], hs[1]
	ctx := context.Background()
	rec := &store.EnvRecord{ID: "env_1", Provider: "cdp", Region: "local", Purpose: "orders"}
	if err := a.ReserveEnv(ctx, rec, store.EnvLimits{}, "A", clk.now().Add(30*time.Second)); err != nil {
		t.Fatal(err)
	}
	if err := a.SetEnvLocation(ctx, "env_1", "ws://127.0.0.1:9222/devtools/browser/x", "CTX1", "T1", ""); err != nil {
		t.Fatal(err)
	}
	got, err := o.GetEnv(ctx, "env_1")
	if err != nil || got.Endpoint != "ws://127.0.0.1:9222/devtools/browser/x" || got.ContextID != "CTX1" || got.TargetID != "T1" ||
		got.LeaseOwner != "A" || !got.Leased(clk.now()) || got.Closed {
		t.Fatalf("record from another replica: %+v, %v", got, err)
	}
	if ok, err := o.LeaseEnv(ctx, "env_1", "B", clk.now().Add(30*time.Second)); ok || err != nil {
		t.Fatalf("B leased an environment A holds: %v, %v", ok, err)
	}
	if idle, _ := o.IdleEnvs(ctx, "local", "orders", time.Time{}); len(idle) != 0 {
		t.Fatalf("a held environment is idle: %+v", idle)
	}
	// A renews, then dies: after its lease runs out B takes the environment
	if ok, _ := a.LeaseEnv(ctx, "env_1", "A", clk.now().Add(30*time.Second)); !ok {
		t.Fatal("A cannot renew its own lease")
	}
	clk.add(31 * time.Second)
	if idle, _ := o.IdleEnvs(ctx, "local", "orders", time.Time{}); len(idle) != 1 {
		t.Fatalf("an expired lease is not idle: %+v", idle)
	}
	if ok, err := o.LeaseEnv(ctx, "env_1", "B", clk.now().Add(30*time.Second)); !ok || err != nil {
		t.Fatalf("B cannot take over an expired lease: %v, %v", ok, err)
	}
	if err := a.ReleaseEnv(ctx, "env_1", "A"); err != nil { // A's late release changes nothing
		t.Fatal(err)
	}
	if got, _ := o.GetEnv(ctx, "env_1"); got.LeaseOwner != "B" {
		t.Fatalf("a stale owner released B's lease: %+v", got)
	}
	clk.add(time.Second)
	if err := o.ReleaseEnv(ctx, "env_1", "B"); err != nil {
		t.Fatal(err)
	}
	got, _ = a.GetEnv(ctx, "env_1")
	if got.LeaseOwner != "" || !got.LastUsed.Equal(clk.now()) {
		t.Fatalf("after release: %+v", got)
	}
	if f, err := a.FindEnvByContext(ctx, "CTX1"); err != nil || f == nil || f.ID != "env_1" {
		t.Fatalf("find by context: %+v, %v", f, err)
	}
	if idle, _ := a.IdleEnvs(ctx, "", "", clk.now()); len(idle) != 0 {
		t.Fatalf("used before now: %+v", idle)
	}
	if idle, _ := a.IdleEnvs(ctx, "", "", clk.now().Add(time.Millisecond)); len(idle) != 1 {
		t.Fatalf("used before now+1ms: %+v", idle)
	}
	// a spare taken by a call gets its purpose
	if err := a.AdoptEnv(ctx, "env_1", "catalog", false); err != nil {
		t.Fatal(err)
	}
	if got, _ := o.GetEnv(ctx, "env_1"); got.Purpose != "catalog" || got.Temporary {
		t.Fatalf("adopted: %+v", got)
	}
}

func testEnvClose(t *testing.T, b Backend) {
	hs := handles(t, b, 2, Options{})
	ctx := context.Background()
	for i, ep := range []string{"ws://a", "ws://a", "ws://b"} {
		id := fmt.Sprint("env_", i)
		if err := hs[0].ReserveEnv(ctx, &store.EnvRecord{ID: id, Provider: "cdp", Region: "local", Purpose: "p"}, store.EnvLimits{}, "", time.Time{}); err != nil {
			t.Fatal(err)
		}
		hs[0].SetEnvLocation(ctx, id, ep, fmt.Sprint("CTX", i), "T", "")
	}
	n, err := hs[1].CloseEnvsAt(ctx, "ws://a", "its browser stopped")
	if err != nil || n != 2 {
		t.Fatalf("closed %d at ws://a, %v", n, err)
	}
	got, _ := hs[0].GetEnv(ctx, "env_0")
	if !got.Closed || got.ClosedWhy != "its browser stopped" {
		t.Fatalf("lost browser: %+v", got)
	}
	if ok, _ := hs[0].LeaseEnv(ctx, "env_0", "A", time.Now().Add(time.Minute)); ok {
		t.Fatal("leased a closed environment")
	}
	if f, _ := hs[0].FindEnvByContext(ctx, "CTX0"); f != nil {
		t.Fatalf("a closed context is found: %+v", f)
	}
	if err := hs[1].CloseEnv(ctx, "env_2", "closed by close_env"); err != nil {
		t.Fatal(err)
	}
	if err := hs[1].CloseEnv(ctx, "env_2", "idle"); err != nil {
		t.Fatal(err)
	}
	if got, _ := hs[0].GetEnv(ctx, "env_2"); got.ClosedWhy != "closed by close_env" {
		t.Fatalf("a second close rewrote the reason: %+v", got)
	}
	if c, _ := hs[0].CountEnvs(ctx); c.Total != 0 {
		t.Fatalf("counts %+v", c)
	}
	if _, err := hs[0].GetEnv(ctx, "env_nope"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
}

// A temporary environment whose replica died mid-call (its lease ran out:
// a temporary one is held, and its lease renewed, for its whole life) is
// closed in the registry as lost when the next environment is reserved, on
// any replica; a live one is not. Before: it stayed open for ever (only
// the count skipped it).
func testEnvTemporaryLostClosed(t *testing.T, b Backend) {
	clk := &fakeClock{t: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
	hs := handles(t, b, 2, Options{Now: clk.now})
	a, o := hs[0], hs[1]
	ctx := context.Background()
	for _, id := range []string{"tmp_dead", "tmp_live"} {
		if err := a.ReserveEnv(ctx, &store.EnvRecord{ID: id, Provider: "cdp", Region: "local", Purpose: "p", Temporary: true},
			store.EnvLimits{Max: 8}, "A", clk.now().Add(30*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	clk.add(20 * time.Second)
	if ok, _ := a.LeaseEnv(ctx, "tmp_live", "A", clk.now().Add(30*time.Second)); !ok {
		t.Fatal("A cannot renew its lease")
	}
	clk.add(11 * time.Second) // tmp_dead's lease ran out; tmp_live's did not
	if err := o.ReserveEnv(ctx, &store.EnvRecord{ID: "tmp_next", Provider: "cdp", Region: "local", Purpose: "p", Temporary: true},
		store.EnvLimits{Max: 8}, "B", clk.now().Add(30*time.Second)); err != nil {
		t.Fatal(err)
	}
	dead, err := o.GetEnv(ctx, "tmp_dead")
	if err != nil || !dead.Closed || !strings.Contains(dead.ClosedWhy, "lost") {
		t.Fatalf("a temporary environment whose lease ran out: %+v, %v; want closed as lost", dead, err)
	}
	if live, err := o.GetEnv(ctx, "tmp_live"); err != nil || live.Closed {
		t.Fatalf("a temporary environment still held was closed: %+v, %v", live, err)
	}
}
