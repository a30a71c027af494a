package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolwright/toolwright/engine/store"
	"github.com/toolwright/toolwright/engine/store/sqlstore"
	"github.com/toolwright/toolwright/internal/testsite"
)

// built is the toolwright binary the tests of this package share, built
// on first use and removed by TestMain.
var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

func TestMain(m *testing.M) {
	code := testsite.Run(m)
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// serveBinary builds the toolwright binary (once per test binary).
func serveBinary(tb testing.TB) string {
	tb.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "toolwright-bin-"); built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "toolwright")
		if runtime.GOOS == "windows" {
			built.bin += ".exe"
		}
		out, err := exec.Command("go", "build", "-o", built.bin, ".").CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		tb.Fatal(built.err)
	}
	return built.bin
}

// serveSet writes a config, a selector map and workflows into dir and
// returns the config's path.
func serveSet(tb testing.TB, dir, base string, workflows map[string]string) string {
	tb.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "workflows"), 0o755); err != nil {
		tb.Fatal(err)
	}
	files := map[string]string{
		"toolwright.yaml": "workflows: ./workflows\nselectors: ./selectors.yaml\nstate_dir: ./state\n" +
			"vars:\n  base: " + base + "\nhttp:\n  token: {env: TOOLWRIGHT_SERVE_TEST_TOKEN}\n" +
			"limits: {step_timeout: 1m} # a ceiling: pages took over 10 s (the default) at a load of 50\n",
		"selectors.yaml": "site.heading:\n  css: h1\n",
	}
	for name, body := range workflows {
		files[filepath.Join("workflows", name)] = body
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return filepath.Join(dir, "toolwright.yaml")
}

var serveWorkflows = map[string]string{
	"read_title.yaml": `name: read_title
description: Open a fixture page and read its main heading.
risk: read
params:
  page: {type: string, description: The page to open, max_length: 40, default: index.html}
steps:
  - goto: ${{ config.base }}/${{ params.page }}
  - extract: {from: site.heading, into: heading}
output:
  heading: ${{ vars.heading }}
`,
	"set_only.yaml": `name: set_only
description: Compute a greeting without touching a page.
risk: read
params:
  name: {type: string, description: Who to greet, max_length: 20, default: world}
steps:
  - set: {greeting: "hello ${{ params.name }}"}
output:
  greeting: ${{ vars.greeting }}
`,
}

// stdioPeer drives `toolwright serve` over its stdin and stdout, keeping
// every stdout line.
type stdioPeer struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string
	all    []string
	stderr *testsite.Buffer
}

func startStdio(tb testing.TB, bin string, args ...string) *stdioPeer {
	tb.Helper()
	return startStdioCmd(tb, exec.Command(bin, args...))
}

// startStdioCmd is startStdio for a command the caller prepared (its
// working directory, its environment).
func startStdioCmd(tb testing.TB, cmd *exec.Cmd) *stdioPeer {
	tb.Helper()
	p := &stdioPeer{cmd: cmd, lines: make(chan string, 64), stderr: &testsite.Buffer{}}
	p.cmd.Stderr = p.stderr
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		tb.Fatal(err)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	tb.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			_ = p.cmd.Process.Kill()
			_ = p.cmd.Wait()
		}
	})
	return p
}

func (p *stdioPeer) send(tb testing.TB, msg string) {
	tb.Helper()
	if _, err := io.WriteString(p.stdin, msg+"\n"); err != nil {
		tb.Fatal(err)
	}
}

// await reads stdout lines until the answer to id.
func (p *stdioPeer) await(tb testing.TB, id int64, timeout time.Duration) *jsonrpc.Response {
	tb.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				tb.Fatalf("stdout closed before answer %d; stderr:\n%s", id, p.stderr.String())
			}
			p.all = append(p.all, line)
			msg, err := jsonrpc.DecodeMessage([]byte(line))
			if err != nil && isNullIDError(line) {
				continue // the answer to a line that was not a message
			}
			if err != nil {
				tb.Fatalf("stdout line is not JSON-RPC: %q (%v)", line, err)
			}
			if r, ok := msg.(*jsonrpc.Response); ok && r.ID.Raw() == id {
				return r
			}
		case <-deadline:
			tb.Fatalf("no answer %d within %s; stderr:\n%s", id, timeout, p.stderr.String())
		}
	}
}

// isNullIDError: a JSON-RPC error answer with "id": null (which the SDK's
// decoder refuses, as it takes every response to need an id).
func isNullIDError(line string) bool {
	var m struct {
		ID    *json.RawMessage `json:"id"`
		Error *struct{ Code int }
	}
	return json.Unmarshal([]byte(line), &m) == nil && m.ID == nil && m.Error != nil && m.Error.Code != 0 &&
		strings.Contains(line, `"id":null`)
}

const (
	stdioInit        = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"stdio-test","version":"1"}}}`
	stdioInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`
	stdioList        = `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`
)

func TestServeStdio(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	bin := serveBinary(t)
	site := testsite.Start(t)
	cfg := serveSet(t, t.TempDir(), site.URL(""), serveWorkflows)
	p := startStdio(t, bin, "serve", "--config", cfg, "--log-level", "debug")

	if tools := p.listTools(t); len(tools) != 2 {
		t.Fatalf("%d tools, want 2", len(tools))
	}
	p.send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_title","arguments":{"page":"login.html"},"_meta":{"progressToken":7}}}`)
	var res struct {
		IsError           bool
		StructuredContent map[string]any
		Content           []map[string]any
	}
	if err := json.Unmarshal(p.await(t, 3, 60*time.Second).Result, &res); err != nil {
		t.Fatal(err)
	}
	data, _ := res.StructuredContent["data"].(map[string]any)
	if res.IsError || data["heading"] != "Sign in to Acme" || len(res.Content) != 1 {
		t.Fatalf("tools/call: %+v", res)
	}
	p.send(t, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope","arguments":{}}}`)
	if r := p.await(t, 4, 2*time.Minute); r.Error == nil || !strings.Contains(r.Error.Error(), "unknown tool") {
		t.Errorf("unknown tool: %+v", r)
	}

	// Closing stdin ends the session; the server closes the browser and exits 0.
	p.stdin.Close()
	done := make(chan error, 1)
	go func() {
		for line := range p.lines {
			p.all = append(p.all, line)
		}
		done <- p.cmd.Wait()
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve exited with %v; stderr:\n%s", err, p.stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not exit after stdin closed")
	}
	progress := 0
	for _, line := range p.all {
		msg, err := jsonrpc.DecodeMessage([]byte(line))
		if err != nil {
			t.Errorf("stdout line is not JSON-RPC: %q", line)
			continue
		}
		if r, ok := msg.(*jsonrpc.Request); ok && r.Method == "notifications/progress" {
			progress++
		}
	}
	t.Logf("stdout: %d lines, all JSON-RPC (%d progress notifications)", len(p.all), progress)
	if progress < 2 {
		t.Errorf("%d progress notifications, want one per step and one at the end", progress)
	}
	logs := p.stderr.String()
	for _, want := range []string{"level=DEBUG", "trace_id=tr_", "tool=read_title", "serving MCP over stdio"} {
		if !strings.Contains(logs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, logs)
		}
	}
}

func TestServeHTTP(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	bin := serveBinary(t)
	site := testsite.Start(t)
	cfg := serveSet(t, t.TempDir(), site.URL(""), serveWorkflows)
	cmd := exec.Command(bin, "serve", "--config", cfg, "--http", "127.0.0.1:0")
	stderr := &testsite.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	urlRE := regexp.MustCompile(`url=(http://127\.0\.0\.1:\d+/mcp)`)
	var url string
	deadline := time.Now().Add(20 * time.Second)
	for url == "" {
		if m := urlRE.FindStringSubmatch(stderr.String()); m != nil {
			url = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("no listening line on stderr:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}

	c := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(tools.Tools) != 2 {
		t.Fatalf("tools/list over HTTP: %v, %+v", err, tools)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "set_only", Arguments: map[string]any{"name": "http"}})
	if err != nil || res.IsError {
		t.Fatalf("tools/call over HTTP: %v %+v", err, res)
	}

	for name, tc := range map[string]struct {
		set  func(*http.Request)
		want int
	}{
		"loopback":       {func(*http.Request) {}, 200},
		"foreign host":   {func(r *http.Request) { r.Host = "evil.example" }, 403},
		"foreign origin": {func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") }, 403},
		"body over 1MiB": {func(r *http.Request) {
			r.Body = io.NopCloser(strings.NewReader(strings.Repeat(" ", 2<<20) + stdioInit))
			r.ContentLength = -1 // chunked: the limit holds while reading too
		}, 413},
	} {
		r, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(stdioInit))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		tc.set(r)
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s: status %d, want %d", name, resp.StatusCode, tc.want)
		}
	}

	// SIGTERM: graceful shutdown with a session open, browsers and store closed, exit 0.
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve exited with %v; stderr:\n%s", err, stderr.String())
		}
		t.Logf("SIGTERM to exit: %s", time.Since(start).Round(time.Millisecond))
	case <-time.After(20 * time.Second):
		t.Fatalf("serve did not stop on SIGTERM; stderr:\n%s", stderr.String())
	}
	cs.Close()
}

func TestServeRefusesOpenAddressWithoutToken(t *testing.T) {
	t.Setenv("TOOLWRIGHT_SERVE_TEST_TOKEN", "")
	os.Unsetenv("TOOLWRIGHT_SERVE_TEST_TOKEN")
	cfg := serveSet(t, t.TempDir(), "http://127.0.0.1:1", serveWorkflows)
	for _, addr := range []string{"0.0.0.0:0", ":0"} {
		var out, errb bytes.Buffer
		root := newRoot(&out, &errb)
		root.SetArgs([]string{"serve", "--config", cfg, "--http", addr})
		err := root.Execute()
		if err == nil || !strings.Contains(err.Error(), "refusing to serve without a token") {
			t.Errorf("serve --http %s without a token: %v", addr, err)
		}
		if out.Len() > 0 {
			t.Errorf("stdout: %q", out.String())
		}
	}
}

// BenchmarkColdStartToolsList measures a process start to its first
// tools/list answer over stdio with 200 generated workflows. The browser
// starts lazily, so no Chromium may run.
func BenchmarkColdStartToolsList(b *testing.B) {
	bin := serveBinary(b)
	dir := b.TempDir()
	wfs := map[string]string{}
	for i := range 200 {
		name := fmt.Sprintf("tool_%03d", i)
		wfs[name+".yaml"] = fmt.Sprintf(`name: %s
description: Generated tool number %d for the cold start benchmark.
risk: read
params:
  query: {type: string, description: Search words, max_length: 100, default: ""}
  pages: {type: integer, description: Pages to read, min: 1, max: 5, default: 1}
  mode: {type: string, description: How to search, pattern: "^(fast|full)$", max_length: 4, default: fast}
steps:
  - set: {q: "${{ params.query }}", n: "${{ params.pages }}"}
  - goto: ${{ config.base }}/index.html
  - extract: {from: site.heading, into: heading}
output:
  heading: ${{ vars.heading }}
  q: ${{ vars.q }}
`, name, i)
	}
	cfg := serveSet(b, dir, "http://127.0.0.1:1", wfs)
	var times []time.Duration
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		p := startStdio(b, bin, "serve", "--config", cfg, "--log-level", "warn")
		p.send(b, stdioInit)
		p.await(b, 1, 30*time.Second)
		p.send(b, stdioInitialized)
		p.send(b, stdioList)
		r := p.await(b, 2, 30*time.Second)
		times = append(times, time.Since(start))
		b.StopTimer()
		if i == 0 {
			var list struct{ Tools []json.RawMessage }
			if err := json.Unmarshal(r.Result, &list); err != nil || len(list.Tools) != 200 {
				b.Fatalf("tools/list: %v, %d tools", err, len(list.Tools))
			}
			if kids := descendants(p.cmd.Process.Pid); len(kids) > 0 {
				b.Fatalf("serve started processes before any call: %v", kids)
			}
		}
		p.stdin.Close()
		for range p.lines {
		}
		if err := p.cmd.Wait(); err != nil {
			b.Fatalf("serve: %v\n%s", err, p.stderr.String())
		}
		b.StartTimer()
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "ms-median")
	b.ReportMetric(float64(times[len(times)*9/10].Microseconds())/1000, "ms-p90")
}

// descendants lists the commands of pid's child processes, recursively (Linux).
func descendants(pid int) []string {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	parent := map[int]int{}
	comm := map[int]string{}
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(stat)
		lo, hi := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if lo < 0 || hi < lo {
			continue
		}
		fields := strings.Fields(s[hi+1:])
		if len(fields) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(fields[1])
		parent[n], comm[n] = ppid, s[lo+1:hi]
	}
	var out []string
	for n := range parent {
		for p := parent[n]; p > 1; p = parent[p] {
			if p == pid {
				out = append(out, comm[n])
				break
			}
		}
	}
	return out
}

// TestServeStdioHardened runs the real binary: bad lines get JSON-RPC errors
// and the session goes on; a call running when stdin closes is still
// answered before the process exits 0. Before: "hello world" made serve
// exit 1, and a call in flight at EOF was never answered.
func TestServeStdioHardened(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	bin := serveBinary(t)
	site := testsite.Start(t)
	wfs := map[string]string{"sleep_briefly.yaml": `name: sleep_briefly
description: Wait a moment, then answer.
risk: read
steps:
  - sleep: 1500ms
  - set: {done: true}
output:
  done: ${{ vars.done }}
`}
	cfg := serveSet(t, t.TempDir(), site.URL(""), wfs)
	// The call in flight at EOF may first start Chromium: on a busy
	// machine that alone can outlast the default grace of 10s.
	appendFile(t, cfg, "shutdown_grace: 2m\n")
	p := startStdio(t, bin, "serve", "--config", cfg)
	p.send(t, stdioInit)
	p.await(t, 1, 2*time.Minute)
	p.send(t, stdioInitialized)
	for i, bad := range []string{"hello world", "42", `[{"jsonrpc":"2.0","id":9,"method":"ping"}]`, "\x00\xff", `{"jsonrpc":"2.0","id":`} {
		p.send(t, bad)
		id := int64(10 + i)
		p.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id))
		if r := p.await(t, id, 2*time.Minute); r.Error != nil {
			t.Errorf("ping after %q: %v", bad, r.Error)
		}
	}
	errorsSeen := 0
	for _, l := range p.all {
		if strings.Contains(l, `"id":null`) && (strings.Contains(l, "-32700") || strings.Contains(l, "-32600")) {
			errorsSeen++
		}
	}
	if errorsSeen != 5 {
		t.Errorf("%d JSON-RPC error replies with id null, want 5:\n%s", errorsSeen, strings.Join(p.all, "\n"))
	}
	p.send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sleep_briefly","arguments":{}}}`)
	time.Sleep(300 * time.Millisecond)
	p.stdin.Close()
	r := p.await(t, 3, 2*time.Minute)
	var res struct{ StructuredContent map[string]any }
	if err := json.Unmarshal(r.Result, &res); err != nil || res.StructuredContent["code"] != "ok" {
		t.Fatalf("call in flight at EOF: %s %v", r.Result, r.Error)
	}
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("serve exited with %v; stderr:\n%s", err, p.stderr.String())
	}
}

// chromiumUsing lists the pids of processes whose command line mentions dir.
func chromiumUsing(dir string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !bytes.Contains(cmdline, []byte(dir)) {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil {
			if i := bytes.LastIndexByte(stat, ')'); i > 0 && i+2 < len(stat) && stat[i+2] == 'Z' {
				continue // a zombie is not running
			}
		}
		pids = append(pids, pid)
	}
	return pids
}

// TestServeKilledLeavesNoChromium SIGKILLs a real `toolwright serve` with a
// browser open: no Chromium process survives it, and the next start removes
// the profile it left. Before: Chromium was reparented to PID 1 and ran on,
// its profile left in the state dir.
func TestServeKilledLeavesNoChromium(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	bin := serveBinary(t)
	site := testsite.Start(t)
	dir := t.TempDir()
	cfg := serveSet(t, dir, site.URL(""), serveWorkflows)
	state := filepath.Join(dir, "state")
	p := startStdio(t, bin, "serve", "--config", cfg)
	p.send(t, stdioInit)
	p.await(t, 1, 2*time.Minute)
	p.send(t, stdioInitialized)
	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_title","arguments":{}}}`)
	p.await(t, 2, 60*time.Second)
	before := chromiumUsing(state)
	if len(before) == 0 {
		t.Fatal("no Chromium process uses the state dir while serving")
	}
	profiles, _ := filepath.Glob(filepath.Join(state, "tmp", "toolwright-chromium-*"))
	if len(profiles) != 1 {
		t.Fatalf("profiles while serving: %v", profiles)
	}
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = p.cmd.Wait()
	deadline := time.Now().Add(time.Minute)
	for len(chromiumUsing(state)) > 0 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if left := chromiumUsing(state); len(left) > 0 {
		for _, pid := range left {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		t.Fatalf("%d of %d Chromium processes outlived the SIGKILLed server by a minute", len(left), len(before))
	}
	t.Logf("%d Chromium processes ended with the server", len(before))

	// The next start removes the profile the killed server left.
	q := startStdio(t, bin, "serve", "--config", cfg)
	q.send(t, stdioInit)
	q.await(t, 1, 2*time.Minute)
	if _, err := os.Stat(profiles[0]); !os.IsNotExist(err) {
		t.Errorf("the stale profile %s is still there after a restart (%v)", profiles[0], err)
	}
	q.stdin.Close()
	_ = q.cmd.Wait()
}

// TestKilledWriteIsNotRunAgain SIGKILLs `toolwright run` in the middle of a
// write tool, then repeats the call with the same task_id: the repeat
// answers outcome_unknown (needs_human, not retryable) and never runs the
// write a second time; a read tool may run again. Before: the repeat waited
// out the lease and ran the write again. The answer carries the trace id of
// the interrupted call (its stub, saved as it started, completed by the
// answer). Before: the repeat's own trace id, and the interrupted call had
// no trace at all.
func TestKilledWriteIsNotRunAgain(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	bin := serveBinary(t)
	site := testsite.Start(t)
	dir := t.TempDir()
	wfs := map[string]string{
		"slow_write.yaml": `name: slow_write
description: A write that takes a while.
risk: write
steps:
  - set: {started: true}
  - sleep: 10s
`,
	}
	cfg := serveSet(t, dir, site.URL(""), wfs)
	appendFile(t, cfg, "policy:\n  write_tools: enabled\n")
	first := exec.Command(bin, "--config", cfg, "run", "slow_write", "--task-id", "T-crash")
	first.Stderr = &testsite.Buffer{}
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill it once it has claimed the task_id and is running (its stub
	// trace is there).
	st, err := sqlstore.OpenSQLite(filepath.Join(dir, "state", sqlstore.FileName), sqlstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var stub *store.Trace
	for end := time.Now().Add(60 * time.Second); stub == nil; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("the first call never started")
		}
		trs, _ := st.ListTraces(context.Background(), store.TraceFilter{TaskID: "T-crash"})
		if len(trs) == 1 && trs[0].Code == store.TraceRunning {
			stub = &trs[0]
		}
	}
	_ = first.Process.Kill()
	_ = first.Wait()

	start := time.Now()
	out, _ := exec.Command(bin, "--config", cfg, "run", "slow_write", "--task-id", "T-crash").Output()
	var env struct {
		Code       string
		Retryable  bool
		NeedsHuman bool   `json:"needs_human"`
		TraceID    string `json:"trace_id"`
	}
	if err := json.Unmarshal(out, &env); err != nil {
		t.Fatalf("repeat: %v: %s", err, out)
	}
	if env.Code != "outcome_unknown" || env.Retryable || !env.NeedsHuman {
		t.Fatalf("repeat after the crash: %s", out)
	}
	t.Logf("the repeat answered outcome_unknown after %s (the dead call's lease running out)", time.Since(start).Round(time.Second))
	if env.TraceID != stub.ID {
		t.Errorf("outcome_unknown names trace %s, want the interrupted call's %s", env.TraceID, stub.ID)
	}
	tr, err := st.GetTrace(context.Background(), stub.ID)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Code != "outcome_unknown" || !tr.Start.Equal(stub.Start) || tr.TaskID != "T-crash" || tr.Tool != "slow_write" {
		t.Errorf("the interrupted call's trace after the answer: code %s, start %s (stub %s), task %s, tool %s", tr.Code, tr.Start, stub.Start, tr.TaskID, tr.Tool)
	}
	// And it stays that way: the next repeat gets the same envelope.
	out2, _ := exec.Command(bin, "--config", cfg, "run", "slow_write", "--task-id", "T-crash").Output()
	if !bytes.Contains(out2, []byte(env.TraceID)) {
		t.Errorf("second repeat: %s, want the stored outcome_unknown %s", out2, env.TraceID)
	}
}

// TestAuditVerifyNeverCreatesDB: `audit verify` with no database exits 2
// and leaves none behind. Before: it created an empty one and printed ok.
func TestAuditVerifyNeverCreatesDB(t *testing.T) {
	t.Parallel()
	bin := serveBinary(t)
	dir := t.TempDir()
	cfg := serveSet(t, dir, "http://127.0.0.1:1", nil)
	cmd := exec.Command(bin, "--config", cfg, "audit", "verify")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "no audit database") {
		t.Errorf("audit verify without a database: %v: %s", err, out)
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "state")); len(ents) != 0 {
		t.Errorf("audit verify left files in the state dir: %v", ents)
	}
}

// appendFile adds text at the end of the file at path.
func appendFile(tb testing.TB, path, text string) {
	tb.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

// TestServeUnwritableHome: a service user whose home cannot be written
// (HOME=/nonexistent) and who gives no config gets a state dir under the
// system temp dir, a log line saying so, and a working server. Before
// (issue 22 (11)): serve exited with "mkdir /nonexistent: permission denied".
func TestServeUnwritableHome(t *testing.T) {
	t.Parallel()
	bin := serveBinary(t)
	cmd := exec.Command(bin, "serve")
	cmd.Dir = "/"
	cmd.Env = []string{"HOME=/nonexistent", "PATH=" + os.Getenv("PATH")}
	uid := os.Getuid()
	if uid == 0 {
		// root may write anywhere: run as nobody, as a service would
		uid = 65534
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		for d := filepath.Dir(bin); d != "/"; d = filepath.Dir(d) {
			if err := os.Chmod(d, 0o755); err != nil {
				t.Fatal(err)
			}
			if d == os.TempDir() || filepath.Dir(d) == os.TempDir() {
				break
			}
		}
	}
	state := filepath.Join(os.TempDir(), fmt.Sprintf("toolwright-%d", uid))
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("serve with an unwritable home: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "cannot be made") || !strings.Contains(stderr.String(), "using "+state) {
		t.Errorf("no log line about the fallback state dir:\n%s", stderr.String())
	}
	if !strings.Contains(stdout.String(), `"id":1,"result"`) {
		t.Errorf("serve did not answer initialize:\n%s\n%s", stdout.String(), stderr.String())
	}
	if fi, err := os.Stat(state); err != nil || !fi.IsDir() {
		t.Errorf("state dir %s: %v", state, err)
	}
}
