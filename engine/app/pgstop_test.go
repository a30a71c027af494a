package app_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/engine/run"
	"github.com/toolwright/toolwright/engine/store/storetest"
	"github.com/toolwright/toolwright/internal/testsite"
)

// ownPostgres is a PostgreSQL server of one test (examples/scale/pg.sh),
// which the test may stop and start without disturbing the shared one
// other packages' tests use.
type ownPostgres struct {
	dir, port, url string
}

// startOwnPostgres starts a throwaway PostgreSQL on a free loopback port.
// It runs where the PostgreSQL tests run ($TOOLWRIGHT_TEST_PG set: CI, or
// a developer who started one), and is skipped otherwise, as they are. It
// is stopped by its PID when the test ends.
func startOwnPostgres(t *testing.T) *ownPostgres {
	t.Helper()
	storetest.PostgresURL(t) // skips (fails in CI) as every PostgreSQL test
	root, err := os.MkdirTemp("", "tw-pg-")
	if err != nil {
		t.Fatal(err)
	}
	// As root, pg.sh runs the server as the postgres user, who must reach
	// the data directory.
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	pg := &ownPostgres{dir: filepath.Join(root, "data"), port: port}
	t.Cleanup(func() {
		pg.stop(t, syscall.SIGINT) // fast shutdown
		os.RemoveAll(root)
	})
	pg.start(t)
	return pg
}

func (pg *ownPostgres) start(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "bash", "../../examples/scale/pg.sh", "start", pg.dir, pg.port).Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("pg.sh start: %v %s", err, stderr)
	}
	pg.url = strings.TrimSpace(string(out))
}

// pid is the postmaster's PID (0 when it is not running).
func (pg *ownPostgres) pid() int {
	b, err := os.ReadFile(filepath.Join(pg.dir, "postmaster.pid"))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.SplitN(string(b), "\n", 2)[0])
	return pid
}

// stop signals the postmaster (SIGQUIT: immediate shutdown, as a crash;
// SIGINT: fast shutdown) and waits until it is gone.
func (pg *ownPostgres) stop(t *testing.T, sig syscall.Signal) {
	t.Helper()
	pid := pg.pid()
	if pid == 0 {
		return
	}
	if err := syscall.Kill(pid, sig); err != nil {
		t.Logf("signal PostgreSQL %d: %v", pid, err)
		return
	}
	deadline := time.Now().Add(2 * time.Minute)
	for alive(pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("PostgreSQL %d still running 2 minutes after %v", pid, sig)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// alive: the process exists and is not a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && len(s) > i+2 {
		return s[i+2] != 'Z'
	}
	return true
}

// orderSite counts the orders placed; each POST is held until the round's
// release is closed, so the test can stop the store while the write is
// under way.
type orderSite struct {
	*httptest.Server
	orders  atomic.Int64
	arrived chan struct{}
	mu      sync.Mutex
	release chan struct{}
}

func newOrderSite(t *testing.T) *orderSite {
	s := &orderSite{arrived: make(chan struct{}, 8), release: make(chan struct{})}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.Method != http.MethodPost {
			fmt.Fprint(w, `<!doctype html><title>order</title><form method="post" action="/order"><button id="place">Place the order</button></form>`)
			return
		}
		n := s.orders.Add(1)
		s.mu.Lock()
		release := s.release
		s.mu.Unlock()
		s.arrived <- struct{}{}
		select {
		case <-release:
		case <-time.After(5 * time.Minute):
		}
		fmt.Fprintf(w, `<!doctype html><title>placed</title><p id="placed">order %d placed</p>`, n)
	}))
	t.Cleanup(s.Close)
	return s
}

// releaseOrders lets the held POSTs answer; later ones are held again.
func (s *orderSite) releaseOrders() {
	s.mu.Lock()
	defer s.mu.Unlock()
	close(s.release)
	s.release = make(chan struct{})
}

// orderReplica opens a server process (an App) of the order project on the
// store at storeURL, with its environments in the package's browser.
func orderReplica(t *testing.T, base, storeURL string, logs *syncWriter) *app.App {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"toolwright.yaml": fmt.Sprintf(`workflows: workflows
selectors: selectors.yaml
state_dir: state
vars: {base: %q}
store: {url: %q}
browser: {spare: 0}
policy:
  write_tools: enabled
  allowed_hosts: [127.0.0.1]
`, base, storeURL),
		"selectors.yaml": "order.place: {css: \"#place\", effect: write}\norder.placed: {css: \"#placed\"}\n",
		"workflows/place_order.yaml": `name: place_order
description: Place an order (one POST, which the site counts).
risk: write
deadline: 8m
steps:
  - goto: ${{ config.base }}/order
  - click: order.place
    timeout: 6m
  - wait: {visible: order.placed}
    timeout: 6m
  - extract: {from: order.placed, into: placed}
output:
  placed: ${{ vars.placed }}
`,
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return openApp(t, filepath.Join(dir, "toolwright.yaml"), logs)
}

func (w *syncWriter) text() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

func placeOrder(t *testing.T, a *app.App, taskID string) *result.Envelope {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 9*time.Minute)
	defer cancel()
	env, err := a.Engine.Call(ctx, run.Request{Tool: "place_order", Args: json.RawMessage(`{"task_id":"` + taskID + `"}`)})
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func envJSON(env *result.Envelope) string {
	b, _ := json.Marshal(env)
	return string(b)
}

// TestPostgresStoppedMidWrite: two replicas on one PostgreSQL. A write
// call runs on replica A; while the site handles its POST, PostgreSQL is
// stopped (immediate shutdown, as a crash) and started again, before A's
// call ends or after it; then the same task_id is called on replica B. The
// write never runs a second time (the site counts its POSTs), B answers
// what DESIGN.md says (the envelope A stored, or outcome_unknown), and A
// never answers ok for a call it could not record. Before: with the store
// still down when A's steps ended, A answered ok with nothing recorded (no
// audit record, no trace, no stored envelope) and B outcome_unknown; now A
// answers outcome_unknown too.
func TestPostgresStoppedMidWrite(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	pg := startOwnPostgres(t)
	site := newOrderSite(t)
	logsA, logsB := &syncWriter{b: &bytes.Buffer{}}, &syncWriter{b: &bytes.Buffer{}}
	a := orderReplica(t, site.URL, pg.url, logsA)
	b := orderReplica(t, site.URL, pg.url, logsB)
	defer func() {
		if t.Failed() {
			t.Logf("replica A's log:\n%s\nreplica B's log:\n%s", logsA.text(), logsB.text())
		}
	}()
	for _, restart := range []string{"before A ends", "after A ends"} {
		t.Run("restarted "+restart, func(t *testing.T) {
			taskID := "T-" + strings.ReplaceAll(restart, " ", "-")
			before := site.orders.Load()
			done := make(chan *result.Envelope, 1)
			go func() { done <- placeOrder(t, a, taskID) }()
			select {
			case <-site.arrived:
			case env := <-done:
				t.Fatalf("replica A answered before its order reached the site: %s", envJSON(env))
			case <-time.After(5 * time.Minute):
				t.Fatal("the order never reached the site")
			}
			pg.stop(t, syscall.SIGQUIT)
			if restart == "before A ends" {
				pg.start(t)
			}
			site.releaseOrders()
			var envA *result.Envelope
			select {
			case envA = <-done:
			case <-time.After(9 * time.Minute):
				t.Fatal("replica A never answered")
			}
			if restart == "after A ends" {
				pg.start(t)
			}
			t.Logf("replica A: %s", envJSON(envA))
			envB := placeOrder(t, b, taskID)
			t.Logf("replica B: %s", envJSON(envB))
			checkNotRunTwice(t, site.orders.Load()-before, envA, envB)
		})
	}
}

// checkNotRunTwice: one order placed; B answers outcome_unknown or A's
// stored envelope; A answers ok only when it recorded it.
func checkNotRunTwice(t *testing.T, orders int64, envA, envB *result.Envelope) {
	t.Helper()
	if orders != 1 {
		t.Errorf("the site got %d orders, want 1", orders)
	}
	switch {
	case envB.Code == "outcome_unknown":
		if envB.Retryable || !envB.NeedsHuman {
			t.Errorf("replica B: outcome_unknown must be needs_human, not retryable: %s", envJSON(envB))
		}
	case envB.TraceID == envA.TraceID && envB.Code == envA.Code:
		// A recorded its answer; B returned it.
	default:
		t.Errorf("replica B answered %s; want outcome_unknown or replica A's stored envelope", envJSON(envB))
	}
	if envA.OK && (envB.Code != envA.Code || envB.TraceID != envA.TraceID) {
		t.Errorf("replica A answered ok for a call it did not record (B: %s)", envB.Code)
	}
	if !envA.OK && envA.Retryable {
		t.Errorf("replica A answered a retryable %s for a write that ran: %s", envA.Code, envJSON(envA))
	}
}
