// The scale example end to end: PostgreSQL on loopback, two Chromium
// endpoints with --remote-debugging-port, two `toolwright serve --http`
// replicas of this folder's workflows (http.stateless) and haproxy in front,
// driven by a real MCP client over HTTP. It needs TOOLWRIGHT_TEST_PG (.ci/run
// starts PostgreSQL with pg.sh), Chromium and haproxy; outside CI it skips
// when one is missing.
package scale_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolwright/toolwright/engine/store/storetest"
	"github.com/toolwright/toolwright/internal/testsite"
)

// shop is the site the workflows drive; it counts what reaches it.
type shop struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

func (s *shop) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

func newShop(t testing.TB) *shop {
	s := &shop{hits: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits[r.URL.Path]++
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		port := s.Listener.Addr().(*net.TCPAddr).Port
		switch r.URL.Path {
		case "/shop":
			if d, err := time.ParseDuration(r.URL.Query().Get("hold") + "s"); err == nil && d > 0 {
				time.Sleep(d)
			}
			who := "nobody"
			if c, err := r.Cookie("who"); err == nil {
				who = c.Value
			}
			fmt.Fprintf(w, `<h1 id="title">Shop</h1><p id="who">%s</p>
<button id="sign-in" onclick="document.cookie='who=signed in; path=/'; document.getElementById('who').textContent='signed in'">Sign in</button>
<a id="away" target="_blank" href="http://localhost:%d/away">elsewhere</a>`, who, port)
		case "/order":
			fmt.Fprintf(w, `<p id="done">ordered %s</p>`, r.URL.Query().Get("sku"))
		default:
			fmt.Fprint(w, `<p>page</p>`)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// pgSchema is a fresh schema for the run, reached through search_path.
func pgSchema(t testing.TB) string {
	base := storetest.PostgresURL(t)
	db, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	schema := fmt.Sprintf("tw_scale_%d", time.Now().UnixNano())
	if _, err := db.Exec(`CREATE SCHEMA ` + schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Exec(`DROP SCHEMA ` + schema + ` CASCADE`); db.Close() })
	u, _ := url.Parse(base)
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// build compiles toolwright once for the test.
func build(t testing.TB) string {
	bin := filepath.Join(t.TempDir(), "toolwright")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/toolwright")
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

type replica struct {
	url string
	cmd *exec.Cmd
}

func startReplica(t testing.TB, bin, cfg, name string) *replica {
	port := freePort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	cmd := exec.Command(bin, "--config", cfg, "--log-level", "debug", "serve", "--http", addr)
	dir := os.Getenv("TOOLWRIGHT_SCALE_LOGS") // keep the replicas' logs there
	if dir == "" {
		dir = t.TempDir()
	}
	logf, _ := os.Create(filepath.Join(dir, name+".log"))
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
		}
		if t.Failed() {
			b, _ := os.ReadFile(logf.Name())
			t.Logf("%s log:\n%s", name, tail(string(b), 4000))
		}
	})
	waitHTTP(t, "http://"+addr+"/readyz")
	return &replica{url: "http://" + addr + "/mcp", cmd: cmd}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

func waitHTTP(t testing.TB, u string) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := http.Get(u)
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never answered 200: %v", u, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func startHAProxy(t testing.TB, backends ...string) string {
	bin, err := exec.LookPath("haproxy")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("haproxy is not installed (apt-get install -y haproxy)")
		}
		t.Skip("haproxy is not installed")
	}
	port := freePort(t)
	var b strings.Builder
	fmt.Fprintf(&b, "global\n  maxconn 256\ndefaults\n  mode http\n  timeout connect 5s\n  timeout client 120s\n  timeout server 120s\n")
	fmt.Fprintf(&b, "frontend mcp\n  bind 127.0.0.1:%d\n  default_backend toolwright\n", port)
	fmt.Fprintf(&b, "backend toolwright\n  balance roundrobin\n  option httpchk\n  http-check send meth GET uri /healthz ver HTTP/1.1 hdr Host 127.0.0.1\n")
	for i, be := range backends {
		u, _ := url.Parse(be)
		fmt.Fprintf(&b, "  server r%d %s check inter 500ms fall 2 rise 1\n", i, u.Host)
	}
	cfg := filepath.Join(t.TempDir(), "haproxy.cfg")
	os.WriteFile(cfg, []byte(b.String()), 0o644)
	cmd := exec.Command(bin, "-f", cfg, "-db")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	waitHTTP(t, fmt.Sprintf("http://127.0.0.1:%d/healthz", port))
	return fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
}

// client is one MCP client over Streamable HTTP.
type client struct {
	t  testing.TB
	cs *mcp.ClientSession
}

func connect(t testing.TB, u string) *client {
	c := mcp.NewClient(&mcp.Implementation{Name: "scale-e2e", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: u, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatalf("connect %s: %v", u, err)
	}
	t.Cleanup(func() { cs.Close() })
	return &client{t: t, cs: cs}
}

// call returns the envelope of one tool call (an error for a transport failure).
func (c *client) call(tool string, args map[string]any) (map[string]any, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, err
	}
	b, _ := json.Marshal(res.StructuredContent)
	var env map[string]any
	json.Unmarshal(b, &env)
	return env, nil
}

func (c *client) must(tool string, args map[string]any, code string) map[string]any {
	c.t.Helper()
	env, err := c.call(tool, args)
	if err != nil {
		c.t.Fatalf("%s: %v", tool, err)
	}
	if env["code"] != code {
		c.t.Fatalf("%s: got %v, want %s", tool, env, code)
	}
	return env
}

func eventually(t *testing.T, d time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func cli(t *testing.T, bin, cfg string, args ...string) string {
	t.Helper()
	out, err := exec.Command(bin, append([]string{"--config", cfg}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("toolwright %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func TestScaleEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL clients, two browsers, two replicas and haproxy")
	}
	pg := pgSchema(t)
	testsite.NeedChromium(t)
	if _, err := exec.LookPath("haproxy"); err != nil && os.Getenv("CI") != "true" {
		t.Skip("haproxy is not installed")
	}
	s := newShop(t)
	ep1, kill1 := testsite.RemoteChromium(t)
	ep2, kill2 := testsite.RemoteChromium(t)
	bin := build(t)
	here, _ := filepath.Abs(".")
	// Each replica has its own state_dir (local scratch) and the same
	// artifacts_dir, as if each ran on its own machine with a shared mount.
	shared := t.TempDir()
	replicaConfig := func() string {
		cfg := filepath.Join(t.TempDir(), "toolwright.yaml")
		os.WriteFile(cfg, []byte(fmt.Sprintf(`workflows: %s/workflows
selectors: %s/selectors.yaml
state_dir: ./state
artifacts_dir: %s
store: {url: %q}
browser: {provider: cdp, endpoints: [%q, %q], max_environments: 8, max_per_purpose: 4, spare: 0}
vars: {shop_base: %q}
policy: {write_tools: grant, allowed_hosts: ["127.0.0.1"]}
http: {stateless: true}
`, here, here, shared, pg, ep1, ep2, s.URL)), 0o644)
		return cfg
	}
	cfg, cfgB := replicaConfig(), replicaConfig()

	a := startReplica(t, bin, cfg, "replica-a")
	b := startReplica(t, bin, cfgB, "replica-b")
	lb := startHAProxy(t, a.url, b.url)
	ca, cb := connect(t, a.url), connect(t, b.url)

	// Grants made with the CLI hold on every replica at once.
	for _, task := range []string{"T-open", "T-open-2", "T-20", "T-a", "T-b"} {
		tool := "place_order"
		if strings.HasPrefix(task, "T-open") {
			tool = "open_shop"
		}
		cli(t, bin, cfg, "grant", "--tool", tool, "--task", task, "--ttl", "15m", "--reason", "scale e2e")
	}

	t.Run("env made via A is used via B", func(t *testing.T) {
		env := ca.must("open_shop", map[string]any{"task_id": "T-open"}, "ok")
		id := env["data"].(map[string]any)["env_id"].(string)
		got := cb.must("read_shop", map[string]any{"env_id": id}, "ok")
		if who := got["data"].(map[string]any)["who"]; who != "signed in" {
			t.Fatalf("B reads %v in A's environment", who)
		}
	})

	t.Run("20 concurrent calls of one task_id through haproxy run once", func(t *testing.T) {
		clients := []*client{connect(t, lb), connect(t, lb), connect(t, lb), connect(t, lb)}
		var wg sync.WaitGroup
		out := make([]map[string]any, 20)
		errsSeen := make([]error, 20)
		for i := range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				out[i], errsSeen[i] = clients[i%4].call("place_order", map[string]any{"sku": "SKU-1", "task_id": "T-20"})
			}()
		}
		wg.Wait()
		for i := range out {
			if errsSeen[i] != nil || out[i]["code"] != "ok" || out[i]["trace_id"] != out[0]["trace_id"] {
				t.Fatalf("call %d: %v %v (first: %v)", i, out[i], errsSeen[i], out[0])
			}
		}
		if n := s.count("/order"); n != 1 {
			t.Fatalf("the order page was hit %d times, want once", n)
		}
	})

	t.Run("a CLI grant is honoured by every replica", func(t *testing.T) {
		ca.must("place_order", map[string]any{"sku": "SKU-A", "task_id": "T-a"}, "ok")
		cb.must("place_order", map[string]any{"sku": "SKU-B", "task_id": "T-b"}, "ok")
		ca.must("place_order", map[string]any{"sku": "SKU-N", "task_id": "T-none"}, "not_granted")
		cb.must("place_order", map[string]any{"sku": "SKU-N", "task_id": "T-none"}, "not_granted")
	})

	t.Run("a popup to a host not allowed is stopped with two replicas attached", func(t *testing.T) {
		env := ca.must("open_shop", map[string]any{"task_id": "T-open-2"}, "ok")
		id := env["data"].(map[string]any)["env_id"].(string)
		cb.must("read_shop", map[string]any{"env_id": id}, "ok") // B attaches too
		got, err := cb.call("leave_shop", map[string]any{"env_id": id})
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(500 * time.Millisecond)
		if n := s.count("/away"); n != 0 {
			t.Fatalf("the popup reached the other host %d times (envelope %v)", n, got)
		}
		if got["code"] != "host_not_allowed" {
			t.Fatalf("leave_shop: %v, want host_not_allowed", got)
		}
		// The failure's screenshot and page HTML are in the shared
		// artifacts_dir, named relative to it, whichever replica ran it.
		id, _ = got["trace_id"].(string)
		var tr struct{ Artifacts []string }
		if out := cli(t, bin, cfgB, "traces", id); json.Unmarshal([]byte(out), &tr) != nil {
			t.Fatalf("traces %s: %s", id, out)
		}
		if len(tr.Artifacts) != 2 {
			t.Fatalf("trace %s artifacts %v, want a screenshot and the page HTML", id, tr.Artifacts)
		}
		for _, a := range tr.Artifacts {
			if filepath.IsAbs(a) {
				t.Errorf("artifact %s is not relative to artifacts_dir", a)
			}
			if fi, err := os.Stat(filepath.Join(shared, a)); err != nil || fi.Size() == 0 {
				t.Errorf("artifact %s is not in the shared artifacts_dir: %v", a, err)
			}
		}
		for _, c := range []string{cfg, cfgB} {
			if _, err := os.Stat(filepath.Join(filepath.Dir(c), "state", "artifacts")); !os.IsNotExist(err) {
				t.Errorf("a replica wrote artifacts under its own state_dir: %v", err)
			}
		}
	})

	t.Run("audit verify passes after concurrent writes from both replicas", func(t *testing.T) {
		out := cli(t, bin, cfg, "audit", "verify") // exit 0, or cli fails the test
		if !strings.HasPrefix(out, "ok: ") {
			t.Fatalf("audit verify: %s", out)
		}
	})

	var live string
	t.Run("killing a Chromium endpoint", func(t *testing.T) {
		cli(t, bin, cfg, "grant", "--tool", "open_shop", "--task", "T-k1", "--ttl", "15m", "--reason", "scale e2e")
		env := ca.must("open_shop", map[string]any{"task_id": "T-k1"}, "ok")
		dead := env["data"].(map[string]any)["env_id"].(string)
		// Which browser holds it: the registry says.
		db, err := sql.Open("pgx", pg)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var endpoint string
		if err := db.QueryRow(`SELECT endpoint FROM environments WHERE id = $1`, dead).Scan(&endpoint); err != nil {
			t.Fatal(err)
		}
		u, _ := url.Parse(endpoint)
		switch {
		case strings.Contains(ep1, u.Host):
			kill1()
		case strings.Contains(ep2, u.Host):
			kill2()
		default:
			t.Fatalf("environment at %s, endpoints %s %s", endpoint, ep1, ep2)
		}
		for _, c := range []*client{ca, cb} {
			got, err := c.call("read_shop", map[string]any{"env_id": dead})
			if err != nil {
				t.Fatal(err)
			}
			if got["code"] != "env_not_found" && got["code"] != "env_unavailable" {
				t.Fatalf("an environment of a killed browser: %v", got)
			}
		}
		eventually(t, 15*time.Second, "env_not_found on both replicas", func() bool {
			ga, _ := ca.call("read_shop", map[string]any{"env_id": dead})
			gb, _ := cb.call("read_shop", map[string]any{"env_id": dead})
			return ga["code"] == "env_not_found" && gb["code"] == "env_not_found"
		})
		// The other endpoint keeps working.
		cli(t, bin, cfg, "grant", "--tool", "open_shop", "--task", "T-k2", "--ttl", "15m", "--reason", "scale e2e")
		env = cb.must("open_shop", map[string]any{"task_id": "T-k2"}, "ok")
		live = env["data"].(map[string]any)["env_id"].(string)
		ca.must("read_shop", map[string]any{"env_id": live}, "ok")
	})

	t.Run("a replica SIGKILLed mid-call leaves the environment usable through another", func(t *testing.T) {
		if live == "" {
			t.Skip("no live environment")
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			ca.call("read_shop", map[string]any{"env_id": live, "hold": 10})
		}()
		time.Sleep(2 * time.Second)
		_ = a.cmd.Process.Kill()
		<-done
		start := time.Now()
		got := cb.must("read_shop", map[string]any{"env_id": live}, "ok")
		t.Logf("usable through B %s after A died (lease expiry): %v", time.Since(start).Round(time.Second), got["data"])
	})

	out := cli(t, bin, cfg, "audit", "verify")
	if !strings.HasPrefix(out, "ok: ") {
		t.Fatalf("audit verify at the end: %s", out)
	}
	t.Logf("audit verify: %s", strings.TrimSpace(out))
}

// BenchmarkReplicas is calls per minute through haproxy with one replica
// and with two on the same pool (two Chromium endpoints, PostgreSQL), 4
// clients calling at once, for two workloads: "fresh" (shop_title: a new
// environment per call) and "kept" (read_shop in an environment each client
// opened once, attached by whichever replica answers). Besides calls/min it
// reports where the CPU went, so the numbers explain themselves:
// replica-ms/call is the CPU the toolwright replicas spent per call (all of
// them together, from /proc), machine-ms/call the CPU the whole machine was
// busy per call (browsers, haproxy, PostgreSQL and anything else running),
// cores-busy how many of the machine's cores were busy on average (2.0 on
// a saturated 2-core machine), and replica-ceiling/min the calls per minute one replica could serve per
// core it has if nothing else were the limit (60000 / replica-ms/call).
// A second replica can only help once one replica's CPU is the limit, that
// is when calls/min nears replica-ceiling/min. Run it side by side:
//
//	go test ./examples/scale -run '^$' -bench Replicas -benchtime 60x -count 3
func BenchmarkReplicas(b *testing.B) {
	pg := pgSchema(b)
	testsite.NeedChromium(b)
	s := newShop(b)
	ep1, _ := testsite.RemoteChromium(b)
	ep2, _ := testsite.RemoteChromium(b)
	bin := build(b)
	here, _ := filepath.Abs(".")
	for _, workload := range []string{"fresh", "kept"} {
		for _, n := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/replicas=%d", workload, n), func(b *testing.B) {
				cfg := filepath.Join(b.TempDir(), "toolwright.yaml")
				os.WriteFile(cfg, []byte(fmt.Sprintf(`workflows: %s/workflows
selectors: %s/selectors.yaml
state_dir: %s
store: {url: %q}
browser: {provider: cdp, endpoints: [%q, %q], max_environments: 16, max_per_purpose: 8, spare: 0}
vars: {shop_base: %q}
policy: {write_tools: enabled, allowed_hosts: ["127.0.0.1"]}
http: {stateless: true}
`, here, here, b.TempDir(), pg, ep1, ep2, s.URL)), 0o644)
				var urls []string
				var pids []int
				for i := range n {
					r := startReplica(b, bin, cfg, fmt.Sprintf("bench-%s-%d-%d", workload, n, i))
					urls = append(urls, r.url)
					pids = append(pids, r.cmd.Process.Pid)
				}
				lb := startHAProxy(b, urls...)
				clients := make([]*client, 4)
				calls := make([]func() (map[string]any, error), len(clients))
				for i := range clients {
					c := connect(b, lb)
					clients[i] = c
					calls[i] = func() (map[string]any, error) { return c.call("shop_title", map[string]any{}) }
					if workload == "kept" {
						env, err := c.call("open_shop", map[string]any{"task_id": fmt.Sprintf("bench-%d-%d-%d", n, i, time.Now().UnixNano())})
						if err != nil || env["code"] != "ok" {
							b.Fatalf("open_shop: %v %v", env, err)
						}
						id := env["data"].(map[string]any)["env_id"].(string)
						calls[i] = func() (map[string]any, error) { return c.call("read_shop", map[string]any{"env_id": id}) }
					}
					for range 2 { // warm: every replica has met the environment
						calls[i]()
					}
				}
				b.ResetTimer()
				cpu0, busy0 := cpuTicks(pids), machineBusyTicks()
				start := time.Now()
				var wg sync.WaitGroup
				work := make(chan struct{}, b.N)
				for range b.N {
					work <- struct{}{}
				}
				close(work)
				for i := range clients {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for range work {
							env, err := calls[i]()
							if err != nil || env["code"] != "ok" {
								b.Errorf("%s call: %v %v", workload, env, err)
								return
							}
						}
					}()
				}
				wg.Wait()
				took := time.Since(start)
				b.StopTimer()
				replicaMS := float64(cpuTicks(pids)-cpu0) * 10 / float64(b.N) // USER_HZ is 100 on Linux
				b.ReportMetric(float64(b.N)/took.Minutes(), "calls/min")
				b.ReportMetric(replicaMS, "replica-ms/call")
				busy := float64(machineBusyTicks()-busy0) * 10 // ms
				b.ReportMetric(busy/float64(b.N), "machine-ms/call")
				b.ReportMetric(busy/float64(took.Milliseconds()), "cores-busy")
				if replicaMS > 0 {
					b.ReportMetric(60000/replicaMS, "replica-ceiling/min")
				}
			})
		}
	}
}

// cpuTicks is the CPU time (user + system, in clock ticks) the processes
// pids have used so far.
func cpuTicks(pids []int) int64 {
	var n int64
	for _, pid := range pids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		// pid (comm) state ... : utime and stime are fields 14 and 15.
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) > 12 {
			var u, s int64
			fmt.Sscan(f[11], &u)
			fmt.Sscan(f[12], &s)
			n += u + s
		}
	}
	return n
}

// machineBusyTicks is the machine's non-idle CPU time so far, all cores.
func machineBusyTicks() int64 {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line) // cpu user nice system idle iowait irq softirq steal guest guest_nice
	var n int64
	for i, v := range f[1:] {
		if i == 3 || i == 4 || i >= 8 { // idle, iowait; guest time is in user already
			continue
		}
		var x int64
		fmt.Sscan(v, &x)
		n += x
	}
	return n
}
