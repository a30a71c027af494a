package safetytest

// End-to-end tests of "Safety and memory": idempotency, grants, the audit
// chain, traces and artifacts, secret redaction, allowed hosts and response
// limits, on real Chromium, real SQLite and the fixture site.

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"html"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/engine/run"
	"github.com/toolwright/toolwright/internal/harness"
	"github.com/toolwright/toolwright/internal/testbrowser"
)

// counter is a loopback HTTP server that counts every request it gets, by
// request URI. handle, when set, writes the answer; n is the number of
// requests to that URI so far, this one included.
type counter struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
	all  int
}

func newCounter(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, n int)) *counter {
	t.Helper()
	c := &counter{hits: map[string]int{}}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.all++
		c.hits[r.URL.RequestURI()]++
		n := c.hits[r.URL.RequestURI()]
		c.mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		if handle != nil {
			handle(w, r, n)
			return
		}
		fmt.Fprintf(w, "<!doctype html><title>counted</title><body>hit %d of %s</body>", n, html.EscapeString(r.URL.RequestURI()))
	}))
	t.Cleanup(c.Close)
	return c
}

// count is the number of requests to uri ("/order?item=bolt").
func (c *counter) count(uri string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits[uri]
}

// total is the number of requests of any kind.
func (c *counter) total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.all
}

// plain is an envelope as an agent reads it: its JSON, decoded.
func plain(t *testing.T, env *result.Envelope) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(env.JSON(), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// --- idempotency -------------------------------------------------------------

const placeOrder = `
name: place_order
description: Place an order for an item on the order server, which counts every order.
risk: write
params:
  item: {type: string, description: The item to order, pattern: "^[a-z]+$", max_length: 20, required: true}
steps:
  - goto: "${{ config.orders }}/order?item=${{ params.item }}"
  - extract: {from: acme.page_body, into: receipt}
output:
  item: ${{ params.item }}
  receipt: ${{ vars.receipt }}
`

const flakyOrder = `
name: flaky_order
description: Confirm an order on a server whose confirm button only shows from the second visit.
risk: write
steps:
  - goto: "${{ config.orders }}/flaky"
  - click: acme.missing
    timeout: 5s
  - extract: {from: acme.page_body, into: receipt}
output:
  receipt: ${{ vars.receipt }}
`

const rejectedOrder = `
name: rejected_order
description: Place an order the server always rejects.
risk: write
steps:
  - goto: "${{ config.orders }}/reject"
  - fail: {code: out_of_stock, message: "the item is sold out"}
`

// orderServer answers /order (a receipt numbered by the requests to that
// URI; item=wait blocks until release is closed, after telling arrived),
// /flaky (the confirm button from the second request on) and /reject.
func orderServer(t *testing.T, arrived chan<- struct{}, release <-chan struct{}) *counter {
	return newCounter(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch r.URL.Path {
		case "/order":
			item := r.URL.Query().Get("item")
			if item == "wait" && arrived != nil {
				arrived <- struct{}{}
				select {
				case <-release:
				case <-time.After(20 * time.Second):
				}
			}
			fmt.Fprintf(w, "<!doctype html><title>receipt</title><body>order %d for %s</body>", n, html.EscapeString(item))
		case "/flaky":
			if n < 2 {
				fmt.Fprint(w, "<!doctype html><title>not yet</title><body>come back later</body>")
				return
			}
			fmt.Fprintf(w, `<!doctype html><title>confirm</title><body><button id="no-such-element">Confirm %d</button></body>`, n)
		case "/reject":
			fmt.Fprint(w, "<!doctype html><title>sold out</title><body>sold out</body>")
		default:
			http.NotFound(w, r)
		}
	})
}

func TestIdempotencyRunsOnce(t *testing.T) {
	t.Parallel()
	arrived, release := make(chan struct{}, 1), make(chan struct{})
	orders := orderServer(t, arrived, release)
	h := harness.New(t, map[string]string{"place_order": placeOrder, "flaky_order": flakyOrder, "rejected_order": rejectedOrder},
		func(c *config.Config) {
			c.Vars["orders"] = orders.URL
			c.Policy.WriteTools = "enabled"
		})

	// 20 concurrent calls, one task_id, the same arguments: one run.
	const n = 20
	envs := make([]*result.Envelope, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	gate := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			envs[i], errs[i] = h.Eng.Call(ctx, run.Request{Tool: "place_order", Args: json.RawMessage(`{"task_id":"T-once","item":"bolt"}`)})
		}()
	}
	close(gate)
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("call %d: %v", i, errs[i])
		}
		h.OK(envs[i])
	}
	if got := orders.count("/order?item=bolt"); got != 1 {
		t.Fatalf("20 concurrent calls with one task_id placed %d orders, want 1", got)
	}
	first := envs[0]
	if !strings.HasPrefix(first.TraceID, "tr_") || first.TaskID != "T-once" || first.Data["receipt"] != "order 1 for bolt" {
		t.Fatalf("envelope: %s", first.JSON())
	}
	for i, env := range envs[1:] {
		if env.TraceID != first.TraceID {
			t.Errorf("call %d has trace %s, call 0 has %s", i+1, env.TraceID, first.TraceID)
		}
		if d := cmp.Diff(plain(t, first), plain(t, env)); d != "" {
			t.Errorf("call %d differs from call 0 (-0 +%d):\n%s", i+1, i+1, d)
		}
	}
	if tr := h.Traces("T-once"); len(tr) != 1 {
		t.Errorf("%d traces for T-once, want 1 (one run)", len(tr))
	}
	recs := h.AuditOf("T-once")
	if len(recs) != n {
		t.Errorf("%d audit records for T-once, want one per call (%d)", len(recs), n)
	}
	for _, r := range recs {
		if r.TraceID != first.TraceID || r.Code != "ok" || r.Tool != "place_order" || r.Risk != "write" {
			t.Errorf("audit record %+v", r)
		}
	}

	// The same task_id with other arguments is a conflict, and runs nothing.
	env := h.Code(h.Call("place_order", `{"task_id":"T-once","item":"nut"}`), "task_id_conflict", "T-once")
	if env.Retryable || env.NeedsHuman || env.TraceID == first.TraceID {
		t.Errorf("conflict envelope: %s", env.JSON())
	}
	if got := orders.count("/order?item=nut"); got != 0 {
		t.Errorf("a conflicting call placed %d orders", got)
	}

	// Other arguments while the first call still runs: a conflict at once.
	pending := make(chan *result.Envelope, 1)
	go func() {
		env, _ := h.Eng.Call(context.Background(), run.Request{Tool: "place_order", Args: json.RawMessage(`{"task_id":"T-pending","item":"wait"}`)})
		pending <- env
	}()
	select {
	case <-arrived:
	case <-time.After(30 * time.Second):
		t.Fatal("the first call never reached the order server")
	}
	start := time.Now()
	h.Code(h.Call("place_order", `{"task_id":"T-pending","item":"bolt"}`), "task_id_conflict")
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("a conflict with a running call took %s", took)
	}
	close(release)
	held := h.OK(<-pending)
	again := h.OK(h.Call("place_order", `{"task_id":"T-pending","item":"wait"}`))
	if again.TraceID != held.TraceID || orders.count("/order?item=wait") != 1 {
		t.Errorf("repeat after a pending run: trace %s (want %s), %d orders", again.TraceID, held.TraceID, orders.count("/order?item=wait"))
	}
	if got := orders.count("/order?item=bolt"); got != 1 {
		t.Errorf("the conflicting call placed an order: %d", got)
	}

	// A retryable failure is not stored: the next call runs again.
	fail1 := h.Code(h.Call("flaky_order", `{"task_id":"T-flaky"}`), "target_not_found")
	if !fail1.Retryable {
		t.Fatalf("want a retryable failure: %s", fail1.JSON())
	}
	ok2 := h.OK(h.Call("flaky_order", `{"task_id":"T-flaky"}`))
	if ok2.TraceID == fail1.TraceID || orders.count("/flaky") != 2 {
		t.Errorf("after a retryable failure the call did not run again: trace %s, %d visits", ok2.TraceID, orders.count("/flaky"))
	}
	ok3 := h.OK(h.Call("flaky_order", `{"task_id":"T-flaky"}`))
	if ok3.TraceID != ok2.TraceID || orders.count("/flaky") != 2 {
		t.Errorf("a success is stored: trace %s (want %s), %d visits", ok3.TraceID, ok2.TraceID, orders.count("/flaky"))
	}

	// A failure that is not retryable is stored like a success.
	rej := h.Code(h.Call("rejected_order", `{"task_id":"T-rej"}`), "out_of_stock")
	rej2 := h.Code(h.Call("rejected_order", `{"task_id":"T-rej"}`), "out_of_stock")
	if rej2.TraceID != rej.TraceID || orders.count("/reject") != 1 {
		t.Errorf("a non-retryable failure ran again: trace %s (want %s), %d visits", rej2.TraceID, rej.TraceID, orders.count("/reject"))
	}

	// A restart keeps the records.
	h.Restart()
	after := h.OK(h.Call("place_order", `{"task_id":"T-once","item":"bolt"}`))
	if after.TraceID != first.TraceID {
		t.Errorf("after a restart: trace %s, want the stored %s", after.TraceID, first.TraceID)
	}
	if d := cmp.Diff(plain(t, first), plain(t, after)); d != "" {
		t.Errorf("after a restart the envelope differs (-before +after):\n%s", d)
	}
	if got := h.Code(h.Call("rejected_order", `{"task_id":"T-rej"}`), "out_of_stock"); got.TraceID != rej.TraceID {
		t.Errorf("after a restart the stored failure has trace %s, want %s", got.TraceID, rej.TraceID)
	}
	h.Code(h.Call("place_order", `{"task_id":"T-once","item":"nut"}`), "task_id_conflict")
	if got := orders.count("/order?item=bolt") + orders.count("/reject"); got != 2 {
		t.Errorf("after a restart a stored call ran again (%d requests, want 2)", got)
	}
	// Every call has a trace, the refused ones too; one of them ran.
	var ran []string
	for _, tr := range h.Traces("T-once") {
		if tr.Code != "task_id_conflict" {
			ran = append(ran, tr.ID)
		}
	}
	if len(ran) != 1 || ran[0] != first.TraceID {
		t.Errorf("after a restart the traces of T-once that ran are %v, want [%s]", ran, first.TraceID)
	}
	if b := h.Browsers(); b != 0 {
		t.Errorf("answering from stored records started %d browsers", b)
	}
}

// --- grants ------------------------------------------------------------------

const cancelOrder = `
name: cancel_order
description: Cancel an order on the order server.
risk: destructive
params:
  item: {type: string, description: The item, pattern: "^[a-z]+$", max_length: 20, required: true}
steps:
  - goto: "${{ config.orders }}/cancel?item=${{ params.item }}"
`

func TestGrants(t *testing.T) {
	t.Parallel()
	orders := newCounter(t, nil)
	wfs := map[string]string{"place_order": placeOrder, "cancel_order": cancelOrder}
	h := harness.NewCold(t, wfs, func(c *config.Config) {
		c.Vars["orders"] = orders.URL
		c.Policy.WriteTools = "grant"
	})
	ctx := context.Background()
	call := func(task, item string) *result.Envelope {
		t.Helper()
		return h.Call("place_order", fmt.Sprintf(`{"task_id":%q,"item":%q}`, task, item))
	}

	// No grant: refused before any browser work, with the command to run.
	env := h.Code(call("T-1", "bolt"), "not_granted", "toolwright grant --tool place_order --task T-1 --ttl")
	if !env.NeedsHuman || env.Retryable {
		t.Errorf("not_granted envelope: %s", env.JSON())
	}
	if orders.total() != 0 || h.Browsers() != 0 {
		t.Fatalf("a refused call reached the site (%d requests) or started a browser (%d)", orders.total(), h.Browsers())
	}
	if rec := h.AuditByTrace(env.TraceID); rec.Code != "not_granted" || rec.GrantID != "" || rec.Risk != "write" {
		t.Errorf("audit of the refusal: %+v", rec)
	}

	// Grants for another task_id or another tool do not count.
	if _, err := h.St.AddGrant(ctx, "place_order", "T-2", time.Hour, "another task", "tester"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.St.AddGrant(ctx, "cancel_order", "T-1", time.Hour, "another tool", "tester"); err != nil {
		t.Fatal(err)
	}
	h.Code(call("T-1", "bolt"), "not_granted")

	// The grant for this tool and task_id: the call runs (the earlier
	// refusal was not stored), and the audit names the grant.
	g, err := h.St.AddGrant(ctx, "place_order", "T-1", time.Hour, "ticket 42", "tester")
	if err != nil {
		t.Fatal(err)
	}
	env = h.OK(call("T-1", "bolt"))
	if orders.count("/order?item=bolt") != 1 {
		t.Fatalf("the granted call placed %d orders", orders.count("/order?item=bolt"))
	}
	if rec := h.AuditByTrace(env.TraceID); rec.GrantID != g.ID || rec.Code != "ok" || rec.Risk != "write" || rec.EnvID == "" {
		t.Errorf("audit of the granted call: %+v (grant %s)", rec, g.ID)
	}

	// Revoked: a repeat still gets the stored envelope (the idempotency
	// check comes before the grant check); other arguments are refused.
	if err := h.St.Revoke(ctx, g.ID); err != nil {
		t.Fatal(err)
	}
	if again := h.OK(call("T-1", "bolt")); again.TraceID != env.TraceID {
		t.Errorf("a repeat after the revoke ran again: %s", again.JSON())
	}
	h.Code(call("T-1", "nut"), "task_id_conflict")
	if err := h.St.Revoke(ctx, "gr_nosuchgrant"); err == nil {
		t.Error("revoking an unknown grant is not an error")
	}

	// A short grant expires.
	short, err := h.St.AddGrant(ctx, "place_order", "T-3", 1500*time.Millisecond, "short", "tester")
	if err != nil {
		t.Fatal(err)
	}
	h.OK(call("T-3", "nut"))
	time.Sleep(time.Until(short.Expires) + 100*time.Millisecond)
	h.OK(call("T-3", "nut")) // the stored envelope
	h.Code(call("T-4", "nut"), "not_granted")
	if got := orders.count("/order?item=nut"); got != 1 {
		t.Errorf("%d orders for T-3, want 1", got)
	}

	// Destructive tools need a grant too.
	h.Code(h.Call("cancel_order", `{"task_id":"T-9","item":"bolt"}`), "not_granted")
	cg, err := h.St.AddGrant(ctx, "cancel_order", "T-9", time.Hour, "cancel", "tester")
	if err != nil {
		t.Fatal(err)
	}
	env = h.OK(h.Call("cancel_order", `{"task_id":"T-9","item":"bolt"}`))
	if rec := h.AuditByTrace(env.TraceID); rec.GrantID != cg.ID || rec.Risk != "destructive" {
		t.Errorf("audit of the destructive call: %+v", rec)
	}

	// A read tool needs none.
	env = h.OK(h.Call("product_details", `{"sku":"ACM-1001"}`))
	if rec := h.AuditByTrace(env.TraceID); rec.GrantID != "" || rec.Risk != "read" {
		t.Errorf("audit of the read call: %+v", rec)
	}
}

func TestWriteToolsDisabled(t *testing.T) {
	t.Parallel()
	orders := newCounter(t, nil)
	h := harness.New(t, map[string]string{"place_order": placeOrder}, func(c *config.Config) {
		c.Vars["orders"] = orders.URL
		c.Policy.WriteTools = "disabled"
	})
	if _, err := h.St.AddGrant(context.Background(), "place_order", "T-1", time.Hour, "granted, but disabled", "tester"); err != nil {
		t.Fatal(err)
	}
	env := h.Code(h.Call("place_order", `{"task_id":"T-1","item":"bolt"}`), "not_granted", "disabled")
	if !env.NeedsHuman {
		t.Errorf("disabled: %s", env.JSON())
	}
	if orders.total() != 0 {
		t.Errorf("a disabled write tool reached the site")
	}
	h.OK(h.Call("product_details", `{"sku":"ACM-1001"}`))
}

// --- audit -------------------------------------------------------------------

func TestAuditChainCatchesTampering(t *testing.T) {
	t.Parallel()
	h := harness.New(t, nil, nil)
	ctx := context.Background()
	h.OK(h.Call("product_details", `{"sku":"ACM-1001"}`))
	h.Code(h.Call("product_details", `{"sku":"ACM-9999"}`), "unknown_sku")
	h.Code(h.Call("product_details", `{"sku":"bad"}`), "invalid_params")
	h.OK(h.Call("add_to_cart", `{"sku":"ACM-1002","task_id":"T-cart"}`))
	if p, err := h.St.CheckAudit(ctx); err != nil || p != nil {
		t.Fatalf("an untouched log fails verification: %v %v", p, err)
	}
	seq, _, err := h.St.AuditHead(ctx)
	if err != nil || seq != 4 {
		t.Fatalf("audit head seq %d (%v), want 4", seq, err)
	}

	db, err := sql.Open("sqlite", h.St.Where())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}
	// Turn the failure of seq 2 into a success.
	exec(`UPDATE audit SET code = 'ok' WHERE seq = 2`)
	bad, err := h.St.VerifyAudit(ctx)
	if err != nil || bad == nil || bad.Seq != 2 || bad.Code != "ok" {
		t.Fatalf("an edited record: VerifyAudit = %+v, %v; want seq 2", bad, err)
	}
	exec(`UPDATE audit SET code = 'unknown_sku' WHERE seq = 2`)
	if p, err := h.St.CheckAudit(ctx); err != nil || p != nil {
		t.Fatalf("the restored log fails: %v %v", p, err)
	}
	// Drop the last record: the head gives it away.
	exec(`DELETE FROM audit WHERE seq = 4`)
	p, err := h.St.CheckAudit(ctx)
	if err != nil || p == nil || p.Record.Seq != 4 {
		t.Fatalf("a removed record: CheckAudit = %v, %v; want seq 4", p, err)
	}
}

// --- traces and artifacts ----------------------------------------------------

const missingButton = `
name: missing_button
description: Sign in, then press a button the page does not have.
risk: read
steps:
  - goto: ${{ config.acme_base }}/login.html
  - fill: {target: acme.login.email, value: "${{ secrets.acme_user }}"}
  - click: acme.missing
    timeout: 300ms
    retry: {attempts: 2, backoff: 50ms}
`

func TestFailedCallTrace(t *testing.T) {
	t.Parallel()
	h := harness.New(t, map[string]string{"missing_button": missingButton}, nil)
	env := h.Code(h.Call("missing_button", `{}`), "target_not_found")
	tr := h.Trace(env)
	if tr.Code != "target_not_found" || tr.Tool != "missing_button" || tr.Attempts != 2 || tr.DurationMS <= 0 || tr.Error == "" {
		t.Errorf("trace: code %s tool %s attempts %d duration %d error %q", tr.Code, tr.Tool, tr.Attempts, tr.DurationMS, tr.Error)
	}
	type row struct {
		Kind, Target, Code string
		Attempt            int
		Strategy           bool
	}
	var got []row
	for _, s := range tr.Steps {
		got = append(got, row{s.Kind, s.Target, s.Code, s.Attempt, s.Strategy != ""})
	}
	want := []row{
		{"goto", "", "ok", 1, false},
		{"fill", "acme.login.email", "ok", 1, true},
		{"click", "acme.missing", "target_not_found", 1, false},
		{"click", "acme.missing", "target_not_found", 2, false},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("trace steps (-want +got):\n%s", d)
	}
	if len(tr.Steps) == 4 {
		if s := tr.Steps[1].Strategy; !strings.HasPrefix(s, "css") {
			t.Errorf("fill matched by %q, want the primary css", s)
		}
		for _, s := range tr.Steps[2:] {
			if s.DurationMS < 150 || s.Error == "" {
				t.Errorf("failed attempt %d: %d ms, error %q", s.Attempt, s.DurationMS, s.Error)
			}
		}
	}
	var png, page []byte
	for _, a := range tr.Artifacts {
		if !strings.HasPrefix(a, env.TraceID+"/") {
			t.Errorf("artifact %s is not recorded as %s/NAME, relative to artifacts_dir", a, env.TraceID)
		}
		b, err := os.ReadFile(filepath.Join(h.Cfg.StateDir, "artifacts", a))
		if err != nil {
			t.Fatalf("artifact %s is not in the state dir's artifacts/: %v", a, err)
		}
		switch filepath.Ext(a) {
		case ".png":
			png = b
		case ".html":
			page = b
		}
	}
	// The call typed a secret into the page: its failure screenshot is
	// kept all the same, masked, for the operator (typed.go).
	if len(png) == 0 || strings.Contains(tr.Error, "capture") {
		t.Errorf("no failure screenshot among %v: %q", tr.Artifacts, tr.Error)
	}
	if !bytes.Contains(page, []byte("Sign in to Acme")) || !bytes.Contains(page, []byte("[redacted:acme_user]")) {
		t.Errorf("page.html lacks the page or the redacted field: %.300s", page)
	}
	// An ok call keeps no artifacts.
	ok := h.OK(h.Call("product_details", `{"sku":"ACM-1001"}`))
	if a := h.Trace(ok).Artifacts; len(a) != 0 {
		t.Errorf("an ok call kept artifacts %v", a)
	}
}

// --- secrets -----------------------------------------------------------------

// Distinctive secrets with characters that HTML, JSON and URLs escape. Each
// core is a run of letters and digits every encoding keeps as it is.
const (
	secretUser     = "kx9Quartz7731+ops@example.com"
	secretUserCore = "kx9Quartz7731"
	secretPass     = `Pw"Zebra93412Quokka<&>'/`
	secretPassCore = "Zebra93412Quokka"
)

const leakyLogin = `
name: leaky_login
description: Sign in, type the password into a visible field too, then fail on a missing button.
risk: read
steps:
  - goto: ${{ config.acme_base }}/login.html
  - fill: {target: acme.login.email, value: "${{ secrets.acme_user }}"}
  - fill: {target: acme.login.password, value: "${{ secrets.acme_password }}"}
  - click: acme.login.submit
  - wait: {visible: acme.catalog.signed_in}
  - fill: {target: acme.catalog.search_box, value: "${{ secrets.acme_password }}"}
  - click: acme.missing
    timeout: 300ms
`

const echoSecret = `
name: echo_secret
description: Type secrets into fields and read them back.
risk: read
steps:
  - goto: ${{ config.acme_base }}/login.html
  - fill: {target: acme.login.email, value: "${{ secrets.acme_user }}"}
  - fill: {target: acme.login.password, value: "${{ secrets.acme_password }}"}
  - extract: {from: acme.login.password, attr: value, into: password}
  - click: acme.login.submit
  - wait: {visible: acme.catalog.signed_in}
  - extract: {from: acme.catalog.signed_in, into: user}
  - fill: {target: acme.catalog.search_box, value: "${{ secrets.acme_password }}"}
  - extract: {from: acme.catalog.search_box, attr: value, into: typed}
  - set: {sentence: "I typed ${{ vars.typed }} as ${{ vars.user }}"}
output:
  password: ${{ vars.password }}
  user: ${{ vars.user }}
  typed: ${{ vars.typed }}
  sentence: ${{ vars.sentence }}
  url: ${{ page.url }}
`

// secretForms are the ways a secret value may be written down.
func secretForms(v, core string) []string {
	j, _ := json.Marshal(v)
	return []string{v, core, url.QueryEscape(v), url.PathEscape(v), html.EscapeString(v), string(j[1 : len(j)-1])}
}

// findSecrets lists where any form of the test secrets appears in b.
func findSecrets(b []byte) []string {
	var out []string
	for _, f := range append(secretForms(secretUser, secretUserCore), secretForms(secretPass, secretPassCore)...) {
		if i := bytes.Index(b, []byte(f)); i >= 0 {
			lo, hi := max(0, i-40), min(len(b), i+len(f)+40)
			out = append(out, fmt.Sprintf("%q in …%q…", f, b[lo:hi]))
		}
	}
	return out
}

// scanTree reads every file under dir as bytes and reports each secret found.
func scanTree(t *testing.T, dir string) (files int) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) {
				return nil // a browser profile file that went away
			}
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if os.IsNotExist(err) {
			return nil
		}
		if err != nil {
			return err
		}
		files++
		for _, hit := range findSecrets(b) {
			t.Errorf("secret in %s: %s", path, hit)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func secretHarness(t *testing.T, workflows map[string]string) *harness.Harness {
	return harness.New(t, workflows, func(c *config.Config) {
		c.SetSecretValue("acme_user", secretUser)
		c.SetSecretValue("acme_password", secretPass)
	})
}

func TestSecretsNeverWritten(t *testing.T) {
	t.Parallel()
	testbrowser.OwnBrowser(t) // it scans the browser's profile, which lives in the harness's folder
	h := secretHarness(t, map[string]string{"leaky_login": leakyLogin})
	env := h.Code(h.Call("leaky_login", `{}`), "target_not_found")
	for _, hit := range findSecrets(env.JSON()) {
		t.Errorf("secret in the envelope: %s", hit)
	}
	tr := h.Trace(env)
	// page.html and the failure screenshot, masked, kept for the operator
	// even though secrets were typed (typed.go)
	if len(tr.Artifacts) != 2 || strings.Contains(tr.Error, "capture") {
		t.Fatalf("the failed call kept %v (%q), want failure.png and page.html", tr.Artifacts, tr.Error)
	}
	page, err := os.ReadFile(filepath.Join(h.Cfg.StateDir, "artifacts", env.TraceID, "page.html"))
	if err != nil {
		t.Fatal(err)
	}
	// The field that held the password is there, blanked or redacted.
	if !bytes.Contains(page, []byte("[redacted:acme_password]")) || !bytes.Contains(page, []byte("[redacted:acme_user]")) {
		t.Errorf("page.html does not show the redacted values: %s", page)
	}
	root := filepath.Dir(h.Cfg.StateDir) // the harness's whole folder: database, WAL, artifacts, browser profile
	if n := scanTree(t, root); n < 3 {
		t.Errorf("scanned only %d files", n)
	}
	h.Restart() // checkpoints the WAL into the database, ends the browser
	if n := scanTree(t, root); n < 2 {
		t.Errorf("scanned only %d files", n)
	}
}

func TestSecretReadBackIsRedacted(t *testing.T) {
	t.Parallel()
	h := secretHarness(t, map[string]string{"echo_secret": echoSecret})
	env := h.OK(h.Call("echo_secret", `{}`))
	d := env.Data
	if d["password"] != "" {
		t.Errorf("a password field read as %q", d["password"])
	}
	if d["typed"] != "[redacted:acme_password]" {
		t.Errorf("the password typed into a visible field read back as %q", d["typed"])
	}
	if d["user"] != "[redacted:acme_user]" {
		t.Errorf("the signed-in user read back as %q", d["user"])
	}
	if d["sentence"] != "I typed [redacted:acme_password] as [redacted:acme_user]" {
		t.Errorf("sentence = %q", d["sentence"])
	}
	for _, hit := range findSecrets(env.JSON()) {
		t.Errorf("secret in the envelope: %s", hit)
	}
	scanTree(t, filepath.Dir(h.Cfg.StateDir))
}

// --- allowed hosts -----------------------------------------------------------

const openPage = `
name: open_page
description: Open a page by URL and read its title.
risk: read
params:
  url: {type: string, format: url, description: The page to open, max_length: 200, required: true}
steps:
  - goto: ${{ params.url }}
output:
  title: ${{ page.title }}
`

// leave builds a workflow that opens links.html with ?other= and leaves it
// by target; with wait, it then waits for the other page.
func leave(name, target string, wait bool) string {
	w := `
name: ` + name + `
description: Leave the links page for the other site by ` + target + `.
risk: read
params:
  other: {type: string, description: The other site's page, max_length: 200, required: true}
steps:
  - goto: "${{ config.acme_base }}/links.html?other=${{ params.other }}"
  - click: ` + target + "\n"
	if wait {
		w += "  - wait: {text: \"hit \", timeout: 30s}\n" // the other page's text
	}
	return w
}

func TestAllowedHosts(t *testing.T) {
	t.Parallel()
	other := newCounter(t, nil) // on 127.0.0.1; addressed as localhost it is another host
	_, port, _ := strings.Cut(strings.TrimPrefix(other.URL, "http://"), ":")
	allowedURL := other.URL + "/elsewhere"
	blockedURL := "http://localhost:" + port + "/elsewhere"
	wfs := map[string]string{"open_page": openPage, "goto_other": gotoOther, "leave_optional": leaveOptional, "leave_later": leaveLater}
	kinds := map[string]string{"external": "acme.links.external", "redirect": "acme.links.redirect", "script": "acme.links.script"}
	for k, target := range kinds {
		wfs["leave_"+k] = leave("leave_"+k, target, true)
		wfs["leave_"+k+"_last"] = leave("leave_"+k+"_last", target, false)
	}
	h := harness.NewCold(t, wfs, func(c *config.Config) {
		c.Policy.AllowedHosts = []string{"127.0.0.1"}
		c.Vars["other_blocked"] = blockedURL
	})

	// A url parameter on another host: refused before any browser work.
	env := h.Code(h.Call("open_page", fmt.Sprintf(`{"url":%q}`, blockedURL)), "host_not_allowed", "localhost:"+port)
	if !env.NeedsHuman || env.Retryable {
		t.Errorf("url parameter: %s", env.JSON())
	}
	if tr := h.Trace(env); len(tr.Steps) != 0 || tr.EnvID != "" {
		t.Errorf("the refused call ran %d steps in environment %q", len(tr.Steps), tr.EnvID)
	}
	if b := h.Browsers(); b != 0 || other.total() != 0 {
		t.Fatalf("the refused call started %d browsers, sent %d requests", b, other.total())
	}
	// The same server by an allowed name is reached: the counter works.
	env = h.OK(h.Call("open_page", fmt.Sprintf(`{"url":%q}`, allowedURL)))
	if env.Data["title"] != "counted" || other.count("/elsewhere") != 1 {
		t.Fatalf("allowed url: %s, %d requests", env.JSON(), other.count("/elsewhere"))
	}

	for _, k := range []string{"external", "redirect", "script"} {
		before := other.total()
		h.OK(h.Call("leave_"+k, fmt.Sprintf(`{"other":%q}`, allowedURL)))
		// The allowed navigation may still be on its way when the call ends
		// (the step after the click does not wait for it): let it land, so
		// it is not counted against the refused calls below.
		for end := time.Now().Add(30 * time.Second); other.total() <= before && time.Now().Before(end); {
			time.Sleep(20 * time.Millisecond)
		}
		if other.total() <= before {
			t.Errorf("leaving by %s to an allowed host sent no request: the test proves nothing", k)
		}
		time.Sleep(200 * time.Millisecond)
		before = other.total()
		for _, tool := range []string{"leave_" + k, "leave_" + k + "_last"} {
			env := h.Call(tool, fmt.Sprintf(`{"other":%q}`, blockedURL))
			// The click itself reports it, not a later step that timed out.
			if env.Code != "host_not_allowed" || !env.NeedsHuman || !strings.Contains(env.Message, "localhost") || !strings.HasPrefix(env.Step, "click ") {
				t.Errorf("%s: want host_not_allowed, got %s", tool, env.JSON())
			}
		}
		if got := other.total() - before; got != 0 {
			t.Errorf("leaving by %s to a host not allowed sent %d requests to it", k, got)
		}
	}

	// optional does not skip a refused navigation.
	before := other.total()
	env = h.Call("leave_optional", fmt.Sprintf(`{"other":%q}`, blockedURL))
	if env.Code != "host_not_allowed" || env.Step != "click acme.links.external (#2)" {
		t.Errorf("an optional click to a host not allowed: %s", env.JSON())
	}

	// A navigation the page starts well after the click (a script's timer),
	// refused while a sleep runs: named after the click, not the sleep
	// (the same happened to leave_optional at times on a busy machine).
	env = h.Call("leave_later", fmt.Sprintf(`{"other":%q}`, blockedURL))
	if env.Code != "host_not_allowed" || env.Step != "click acme.links.later (#2)" {
		t.Errorf("a late navigation to a host not allowed: %s", env.JSON())
	}

	// A goto to the other host.
	env = h.Code(h.Call("goto_other", `{}`), "host_not_allowed", "localhost:"+port)
	if env.Step != "goto (#1)" {
		t.Errorf("goto: %s", env.JSON())
	}
	if got := other.total() - before; got != 0 {
		t.Errorf("a goto to a host not allowed sent %d requests to it", got)
	}
}

const leaveOptional = `
name: leave_optional
description: Leave the links page by a click marked optional.
risk: read
params:
  other: {type: string, description: The other site's page, max_length: 200, required: true}
steps:
  - goto: "${{ config.acme_base }}/links.html?other=${{ params.other }}"
  - click: acme.links.external
    optional: true
  - sleep: 300ms
`

const leaveLater = `
name: leave_later
description: Click a button that leaves for the other site 600ms later, then sleep.
risk: read
params:
  other: {type: string, description: The other site's page, max_length: 200, required: true}
steps:
  - goto: "${{ config.acme_base }}/links.html?later=600&other=${{ params.other }}"
  - click: acme.links.later
  - sleep: 2s
  - set: {done: yes}
`

const gotoOther = `
name: goto_other
description: Go to the other host directly.
risk: read
steps:
  - goto: ${{ config.other_blocked }}
`

// --- limits ------------------------------------------------------------------

func TestListAndResponseLimits(t *testing.T) {
	t.Parallel()
	h := harness.New(t, nil, func(c *config.Config) { c.Limits.MaxListItems = 3 })
	env := h.OK(h.Call("search_catalog", `{"max_pages": 1}`))
	rows := harness.List(t, env, "rows")
	if rows.Count != 3 || len(rows.Items) != 3 || !rows.Truncated {
		t.Errorf("max_list_items 3: %d rows (count %d), truncated %v", len(rows.Items), rows.Count, rows.Truncated)
	}

	h = harness.New(t, nil, func(c *config.Config) { c.Limits.MaxResponseBytes = 1000 })
	small := h.OK(h.Call("product_details", `{"sku":"ACM-1001"}`))
	if n := len(small.JSON()); n > 1000 {
		t.Fatalf("a small result is %d bytes", n)
	}
	env = h.Code(h.Call("search_catalog", `{"max_pages": 5, "task_id": "T-big"}`), "limit_exceeded", "max_response_bytes")
	if env.Retryable || env.Data != nil {
		t.Errorf("limit_exceeded envelope: %s", env.JSON())
	}
	if tr := h.Trace(env); tr.Code != "limit_exceeded" {
		t.Errorf("trace code %s", tr.Code)
	}
}
