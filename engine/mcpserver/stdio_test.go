package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/toolwright/toolwright/engine/mcpserver"
	"github.com/toolwright/toolwright/internal/testsite"
)

// stdioClient talks newline-delimited JSON-RPC to ServeIO over pipes.
type stdioClient struct {
	in     *io.PipeWriter
	lines  chan string
	served chan error
	cancel context.CancelFunc
}

func startIO(t *testing.T, srv *mcpserver.Server) *stdioClient {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	c := &stdioClient{in: inW, lines: make(chan string, 64), served: make(chan error, 1), cancel: cancel}
	go func() {
		c.served <- srv.ServeIO(ctx, inR, outW)
		outW.Close()
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 8<<20)
		for sc.Scan() {
			c.lines <- sc.Text()
		}
		close(c.lines)
	}()
	t.Cleanup(func() { cancel(); inW.Close() })
	return c
}

func (c *stdioClient) send(t *testing.T, s string) {
	t.Helper()
	if _, err := io.WriteString(c.in, s); err != nil {
		t.Fatalf("write: %v", err)
	}
}

// next is the next line the server wrote, decoded as one JSON-RPC response.
func (c *stdioClient) next(t *testing.T, d time.Duration) map[string]any {
	t.Helper()
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				t.Fatal("the server closed stdout")
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("stdout line is not JSON: %q", l)
			}
			if m["jsonrpc"] != "2.0" {
				t.Fatalf("stdout line is not JSON-RPC 2.0: %q", l)
			}
			if _, isNote := m["method"]; isNote {
				continue // progress and other notifications
			}
			return m
		case <-time.After(d):
			t.Fatalf("no answer within %s", d)
		}
	}
}

const (
	ioInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"io-test","version":"1"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}` + "\n"
)

func (c *stdioClient) initialize(t *testing.T) {
	t.Helper()
	c.send(t, ioInit)
	if r := c.next(t, 10*time.Second); r["id"] != 1.0 || r["error"] != nil {
		t.Fatalf("initialize: %v", r)
	}
}

// TestStdioSurvivesBadInput sends every kind of bad line the issue found
// fatal; each gets its JSON-RPC error and the next request is still served.
// Before: the first bad line ended the session (serve exited 1).
func TestStdioSurvivesBadInput(t *testing.T) {
	t.Parallel()
	f := newFixture(t, mcpserver.Options{MaxBodyBytes: 4096})
	c := startIO(t, f.srv)
	c.initialize(t)
	for i, tc := range []struct {
		name, line string
		code       float64
		id         any
		want       string
	}{
		{"text", "hello world", -32700, nil, "parse error"},
		{"binary", "\x00\x01\xff\xfe{", -32700, nil, "parse error"},
		{"nul bytes", "\x00\x00\x00", -32700, nil, "parse error"},
		{"a number", "42", -32600, nil, "JSON object"},
		{"a string", `"ping"`, -32600, nil, "JSON object"},
		{"null", `null`, -32600, nil, "JSON object"},
		{"batch", `[{"jsonrpc":"2.0","id":5,"method":"ping"}]`, -32600, nil, "batches are not supported"},
		{"empty batch", `[]`, -32600, nil, "batches are not supported"},
		{"two messages on a line", `{"jsonrpc":"2.0","id":6,"method":"ping"}{"jsonrpc":"2.0","id":7,"method":"ping"}`, -32700, nil, "parse error"},
		{"partial line", `{"jsonrpc":"2.0","id":8,"method":`, -32700, nil, "parse error"},
		{"no version", `{"id":9,"method":"ping"}`, -32600, 9.0, `"jsonrpc" must be "2.0"`},
		{"wrong version", `{"jsonrpc":"1.0","id":"a","method":"ping"}`, -32600, "a", `"jsonrpc" must be "2.0"`},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, -32600, nil, `"id" must be`},
		{"number method", `{"jsonrpc":"2.0","id":10,"method":7}`, -32600, 10.0, `"method" must be a string`},
		{"neither request nor response", `{"jsonrpc":"2.0"}`, -32600, nil, "want a request"},
		{"too long", `{"jsonrpc":"2.0","id":11,"method":"ping","params":{"x":"` + strings.Repeat("a", 10000) + `"}}`, -32600, nil, "longer than 4096 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c.send(t, tc.line+"\n")
			r := c.next(t, 5*time.Second)
			e, _ := r["error"].(map[string]any)
			if e == nil || e["code"] != tc.code || !strings.Contains(e["message"].(string), tc.want) {
				t.Errorf("answer %v, want error %v containing %q", r, tc.code, tc.want)
			}
			if id, has := r["id"]; !has || id != tc.id {
				t.Errorf("answer id %v (present %v), want %v", id, has, tc.id)
			}
			// The next request is still served.
			id := 100 + i
			c.send(t, `{"jsonrpc":"2.0","id":`+itoa(id)+`,"method":"ping"}`+"\n")
			if r := c.next(t, 5*time.Second); r["id"] != float64(id) || r["error"] != nil {
				t.Errorf("ping after %s: %v", tc.name, r)
			}
		})
	}
	c.send(t, "\n   \r\n") // blank lines are skipped without an answer
	c.send(t, `{"jsonrpc":"2.0","id":"last","method":"tools/list"}`+"\r\n")
	if r := c.next(t, 5*time.Second); r["id"] != "last" || r["result"] == nil {
		t.Errorf("tools/list at the end: %v", r)
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// A call that sleeps, so a test can close stdin while it runs.
var sleepyFiles = func() map[string]string {
	m := maps.Clone(workflowFiles)
	m["sleep_briefly.yaml"] = `name: sleep_briefly
description: Wait a moment, then answer.
risk: read
steps:
  - sleep: 1500ms
  - set: {done: true}
output:
  done: ${{ vars.done }}
`
	return m
}()

// TestStdioDrain closes the input (EOF) and, separately, stops serving
// (SIGTERM) while a call runs: the call's envelope is still written before
// the session closes. Before: the client got EOF and no envelope.
func TestStdioDrain(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	// The grace is a ceiling for the running call to finish, not what is
	// tested: 10 s ran out at a load of 20, and the call was cancelled.
	f := newFixtureWith(t, mcpserver.Options{ShutdownGrace: 3 * time.Minute}, sleepyFiles)
	for _, how := range []string{"eof", "sigterm"} {
		t.Run(how, func(t *testing.T) {
			c := startIO(t, f.srv)
			c.initialize(t)
			c.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sleep_briefly","arguments":{}}}`+"\n")
			time.Sleep(200 * time.Millisecond) // the call is read and running
			if how == "eof" {
				c.in.Close()
			} else {
				c.cancel()
			}
			r := c.next(t, 3*time.Minute)
			res, _ := r["result"].(map[string]any)
			sc, _ := res["structuredContent"].(map[string]any)
			if r["id"] != 2.0 || sc["code"] != "ok" {
				t.Fatalf("answer after %s: %v", how, r)
			}
			select {
			case err := <-c.served:
				if err != nil {
					t.Errorf("ServeIO: %v", err)
				}
			case <-time.After(time.Minute):
				t.Fatal("ServeIO did not return after the drain")
			}
		})
	}
}

// TestStdioDrainGrace: a call still running when the grace runs out is
// cancelled, and its cancelled envelope is still written.
func TestStdioDrainGrace(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	f := newFixture(t, mcpserver.Options{ShutdownGrace: 300 * time.Millisecond})
	c := startIO(t, f.srv)
	c.initialize(t)
	c.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait_slow","arguments":{}}}`+"\n")
	time.Sleep(300 * time.Millisecond)
	start := time.Now()
	c.in.Close()
	r := c.next(t, 20*time.Second)
	res, _ := r["result"].(map[string]any)
	sc, _ := res["structuredContent"].(map[string]any)
	if r["id"] != 2.0 || sc["code"] != "cancelled" {
		t.Fatalf("answer: %v", r)
	}
	if took := time.Since(start); took < 300*time.Millisecond || took > 300*time.Millisecond+promptCancel {
		t.Errorf("answered %s after EOF, want the 300ms grace and then a prompt cancellation", took)
	}
}

var _ = jsonrpc.CodeParseError
