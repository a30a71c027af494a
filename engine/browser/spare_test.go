package browser

import (
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/errs"
)

// spareOf is the first ready spare of m, or nil.
func spareOf(m *Manager) *Env {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.spares) == 0 {
		return nil
	}
	return m.spares[0]
}

// filling says whether m is making a spare right now.
func filling(m *Manager) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.filling != nil
}

func waitSpare(t *testing.T, m *Manager) *Env {
	t.Helper()
	var e *Env
	eventually(t, time.Minute, "a spare environment", func() bool { e = spareOf(m); return e != nil })
	return e
}

func TestSpareIsUsedRefilledAndGuarded(t *testing.T) {
	t.Parallel()
	s := newSite(t, html(`<h1>ok</h1>`))
	allowed := s.Listener.Addr().String()
	m := newTestManager(t, Options{Spare: 1, AllowURL: func(u string) bool { return strings.Contains(u, allowed) }})

	// No browser and no spare before the first call needs one.
	if c, _ := localOf(t, m).current(); c != nil || spareOf(m) != nil || filling(m) {
		t.Fatal("a browser or a spare was started before the first Open")
	}
	first, err := m.OpenTemporary(testCtx(t, 2*time.Minute), "", "")
	if err != nil {
		t.Fatal(err)
	}
	// None is made while the call runs: only when it ends.
	if spareOf(m) != nil || filling(m) {
		t.Fatal("a spare is being made while the first call runs")
	}
	kept := mustOpen(t, m, "", "kept")
	m.Release(kept) // a call ended
	spare := waitSpare(t, m)
	if spare.ID == first.ID || spare.ID == kept.ID {
		t.Fatal("the spare is an environment a call holds or kept")
	}
	if st := m.Stats(testCtx(t, time.Minute)); st.Environments != 2 || st.Spare != 1 {
		t.Errorf("stats with a spare = %+v", st)
	}
	m.Release(first)

	// The next temporary call gets the spare, held for it, with its page
	// and the allowed-hosts guard in place.
	tmp, err := m.OpenTemporary(testCtx(t, 2*time.Minute), "", "")
	if err != nil {
		t.Fatal(err)
	}
	if tmp.ID != spare.ID || !tmp.Temporary || tmp.Purpose != DefaultPurpose || !tmp.Busy() {
		t.Fatalf("OpenTemporary = %s (temporary %v, purpose %q, busy %v), want the spare %s", tmp.ID, tmp.Temporary, tmp.Purpose, tmp.Busy(), spare.ID)
	}
	if got, err := m.Get(tmp.ID); err != nil || got != tmp {
		t.Fatalf("Get(spare taken) = %v, %v", got, err)
	}
	mustNavigate(t, tmp, s.URL)
	if got := bodyText(t, tmp); got != "ok" {
		t.Errorf("page text in the spare = %q", got)
	}
	blocked := strings.Replace(s.URL, "127.0.0.1", "localhost", 1) + "/elsewhere"
	_ = navigate(t, tmp, blocked)
	if u, ok := tmp.TakeBlocked(); !ok || u != blocked {
		t.Errorf("the spare's guard did not block %s (got %q, %v)", blocked, u, ok)
	}

	// It is refilled in the background with a fresh one when the call ends.
	if spareOf(m) != nil || filling(m) {
		t.Fatal("the spare is refilled while the call that took it runs")
	}
	m.Release(tmp)
	_, err = m.Get(tmp.ID)
	wantCode(t, err, errs.EnvNotFound) // a temporary one still closes on Release
	next := waitSpare(t, m)
	if next.ID == tmp.ID {
		t.Fatal("the spare was not replaced")
	}

	// An Open that finds no idle environment of its purpose takes it too,
	// and it keeps no cookies of anyone: it was never used.
	alpha := mustOpen(t, m, "", "alpha")
	defer m.Release(alpha)
	if alpha.ID != next.ID || alpha.Temporary || alpha.Purpose != "alpha" {
		t.Errorf("Open = %s (temporary %v, purpose %q), want the spare %s as alpha", alpha.ID, alpha.Temporary, alpha.Purpose, next.ID)
	}
}

// TestSpareBeingMadeIsWaitedFor: a call that comes while the spare is
// being made waits for it instead of opening another.
func TestSpareBeingMadeIsWaitedFor(t *testing.T) {
	t.Parallel()
	m := newTestManager(t, Options{Spare: 1})
	first := mustOpen(t, m, "", "")
	m.Release(first) // starts making the spare
	if !filling(m) && spareOf(m) == nil {
		t.Fatal("no spare is being made after a call ended")
	}
	tmp, err := m.OpenTemporary(testCtx(t, 2*time.Minute), "", "")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Release(tmp)
	if spareOf(m) != nil || filling(m) {
		t.Error("the spare was not the one handed out")
	}
	if st := m.Stats(testCtx(t, time.Minute)); st.Environments != 2 || st.Spare != 0 {
		t.Errorf("stats = %+v, want the kept one and the temporary one that was the spare", st)
	}
}

func TestSpareCountsTowardTheLimitAndGivesWay(t *testing.T) {
	t.Parallel()
	m := newTestManager(t, Options{Spare: 1, MaxEnvironments: 3, Regions: map[string]Region{DefaultRegion: {}, "eu": {}}})
	a := mustOpen(t, m, "", "a")
	m.Release(a)
	waitSpare(t, m)
	a = mustOpen(t, m, "", "a")    // the idle one again, not the spare
	b := mustOpen(t, m, "eu", "b") // another region: not the spare's
	if spareOf(m) == nil {
		t.Fatal("the spare was dropped though the pool had room")
	}
	if st := m.Stats(testCtx(t, time.Minute)); st.Environments != 2 || st.Spare != 1 {
		t.Errorf("stats = %+v", st)
	}
	// The pool (3) is full with the spare; a call needing room gets the
	// spare's, and no new spare is made while there is none.
	c := mustOpen(t, m, "eu", "c")
	if spareOf(m) != nil || filling(m) {
		t.Fatal("a spare is kept or made in a full pool")
	}
	_, err := m.OpenTemporary(testCtx(t, time.Second), "", "")
	wantCode(t, err, errs.EnvUnavailable)
	if !strings.Contains(err.Error(), "environment pool is full (3 open") {
		t.Errorf("pool-full message: %v", err)
	}
	// Closing one makes room, and the spare comes back.
	if err := m.Close(testCtx(t, time.Minute), c.ID); err != nil {
		t.Fatal(err)
	}
	waitSpare(t, m)
	m.Release(a)
	m.Release(b)
}

func TestSpareDisabled(t *testing.T) {
	t.Parallel()
	m := newTestManager(t, Options{})
	env, err := m.OpenTemporary(testCtx(t, 2*time.Minute), "", "")
	if err != nil {
		t.Fatal(err)
	}
	// Release decides about a refill before it returns.
	m.Release(env)
	if spareOf(m) != nil || filling(m) {
		t.Error("a spare is made after a release with Options.Spare 0")
	}
	if st := m.Stats(testCtx(t, time.Minute)); st.Spare != 0 {
		t.Errorf("stats = %+v", st)
	}
}

func TestSpareClosedOnShutdown(t *testing.T) {
	t.Parallel()
	m := newTestManager(t, Options{Spare: 1})
	env := mustOpen(t, m, "", "")
	m.Release(env)
	spare := waitSpare(t, m)
	_, dir := localOf(t, m).current()
	if err := m.Shutdown(testCtx(t, time.Minute)); err != nil {
		t.Fatal(err)
	}
	wantCode(t, spare.Err(), errs.EnvUnavailable)
	if spareOf(m) != nil || filling(m) {
		t.Error("a spare outlived Shutdown")
	}
	if pids := processesUsing(dir); len(pids) != 0 {
		t.Errorf("chromium processes still running after Shutdown: %v", pids)
	}

	// Shutdown while a spare is being made stops it too.
	m2 := newTestManager(t, Options{Spare: 1})
	env2 := mustOpen(t, m2, "", "")
	m2.Release(env2)
	_, dir2 := localOf(t, m2).current()
	if err := m2.Shutdown(testCtx(t, time.Minute)); err != nil {
		t.Fatal(err)
	}
	if spareOf(m2) != nil || filling(m2) {
		t.Error("a spare being made outlived Shutdown")
	}
	if pids := processesUsing(dir2); len(pids) != 0 {
		t.Errorf("chromium processes still running after Shutdown: %v", pids)
	}
	if _, err := os.Stat(dir2); !os.IsNotExist(err) {
		t.Errorf("profile %s is still there", dir2)
	}
}

func TestSpareDiscardedWhenTheBrowserDies(t *testing.T) {
	t.Parallel()
	s := newSite(t, http.HandlerFunc(html("fresh")))
	m := newTestManager(t, Options{Spare: 1})
	env := mustOpen(t, m, "", "")
	m.Release(env)
	spare := waitSpare(t, m)
	conn, _ := localOf(t, m).current()
	if err := syscall.Kill(conn.pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	eventually(t, 30*time.Second, "the spare to be discarded", func() bool { return spareOf(m) == nil })
	wantCode(t, spare.Err(), errs.EnvUnavailable)

	// The next call runs in a fresh browser, not in the dead spare.
	tmp, err := m.OpenTemporary(testCtx(t, 2*time.Minute), "", "")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Release(tmp)
	if tmp.ID == spare.ID {
		t.Fatal("a spare of a dead browser was handed out")
	}
	mustNavigate(t, tmp, s.URL)
	if got := bodyText(t, tmp); got != "fresh" {
		t.Errorf("page text = %q", got)
	}
}

// TestFullPoolWaitsForRoom: a call that finds the pool full waits for an
// environment to come free within its deadline, and a spare is not made
// while calls wait (it would take their room). Before: env_unavailable at
// once, and the spare's refill took the place a released call freed.
func TestFullPoolWaitsForRoom(t *testing.T) {
	t.Parallel()
	m := newTestManager(t, Options{Spare: 1, MaxEnvironments: 2})
	a := mustOpen(t, m, "", "a")
	b := mustOpen(t, m, "", "b")
	got := make(chan error, 2)
	for range 2 {
		go func() {
			env, err := m.OpenTemporary(testCtx(t, 2*time.Minute), "", "")
			if err == nil {
				defer m.Release(env)
				err = navigate(t, env, "about:blank")
			}
			got <- err
		}()
	}
	// Both wait (the pool is full) rather than fail; releasing a and b
	// lets each in, and no spare takes the room in between.
	for waiting(m) < 2 {
		select {
		case err := <-got:
			t.Fatalf("a call on a full pool did not wait for room: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	m.Release(a)
	if err := m.Close(testCtx(t, 2*time.Minute), a.ID); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(testCtx(t, 2*time.Minute), b.ID); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := <-got; err != nil {
			t.Fatalf("a call waiting for room: %v", err)
		}
	}
}

// waiting counts the calls in Open or OpenTemporary.
func waiting(m *Manager) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.wanting
}
