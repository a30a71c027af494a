package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/mcpserver"
	"github.com/toolwright/toolwright/internal/testsite"
)

// burstFiles adds a tool that answers without opening a browser
// environment (its open_env never runs), so 40 of them at once cost no
// pages; nap sleeps first, so concurrent calls overlap.
var burstFiles = func() map[string]string {
	m := maps.Clone(workflowFiles)
	m["no_env.yaml"] = `name: no_env
description: Answer n without opening a browser environment.
risk: read
env: new
params:
  n: {type: integer, description: A number to echo, min: 0, max: 1000}
  nap: {type: boolean, description: Sleep 2 seconds first, default: false}
steps:
  - if: ${{ params.nap }}
    sleep: 2s
  - set: {n: "${{ params.n }}"}
  - if: ${{ params.n > 1000 }}
    do:
      - open_env: {}
output:
  n: ${{ vars.n }}
`
	return m
}()

// burstAnswer is what one raw HTTP request got.
type burstAnswer struct {
	status int
	header http.Header
	body   string
	err    error
}

// rawSession opens an MCP session over plain HTTP and returns its id.
func rawSession(t *testing.T, url string) string {
	t.Helper()
	post := func(body, sid string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
		}
		resp, err := (&http.Client{Timeout: 2 * time.Minute}).Do(req)
		must(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	resp := post(initBody, "")
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || sid == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, sid)
	}
	if resp := post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, sid); resp.StatusCode/100 != 2 {
		t.Fatalf("notifications/initialized: %d", resp.StatusCode)
	}
	return sid
}

// callRequest is the raw HTTP request of tools/call no_env with n.
func callRequest(addr, sid string, n int, nap bool) (head, body string) {
	body = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"no_env","arguments":{"n":%d,"nap":%t}}}`, 100+n, n, nap)
	head = "POST " + mcpserver.Path + " HTTP/1.1\r\nHost: " + addr + "\r\nContent-Type: application/json\r\n" +
		"Accept: application/json, text/event-stream\r\nMcp-Session-Id: " + sid + "\r\n" +
		fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body))
	return head, body
}

// readAnswer reads one HTTP response from c.
func readAnswer(c net.Conn) burstAnswer {
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return burstAnswer{err: err}
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	return burstAnswer{status: resp.StatusCode, header: resp.Header, body: string(b), err: err}
}

// envelopeOf finds the tool result's envelope in an answer (JSON or an
// SSE stream of one message).
func envelopeOf(body string) (map[string]any, error) {
	msg := body
	for _, line := range strings.Split(body, "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			msg = d
		}
	}
	var r struct {
		Result struct {
			StructuredContent map[string]any `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(msg)), &r); err != nil || r.Result.StructuredContent == nil {
		return nil, fmt.Errorf("no tool result in %q", body)
	}
	return r.Result.StructuredContent, nil
}

// checkBurst checks 40 answers to calls of one session: each is either the
// call's ok envelope (echoing its n) or a 429 that says why and when to
// retry; nothing dropped, nothing else. It returns how many were ok.
func checkBurst(t *testing.T, answers []burstAnswer) (ok, refused int) {
	t.Helper()
	for n, a := range answers {
		switch {
		case a.err != nil:
			t.Errorf("call %d: no answer: %v", n, a.err)
		case a.status == http.StatusTooManyRequests:
			if !strings.Contains(a.body, "too many requests at once from this client (at most 32)") || a.header.Get("Retry-After") == "" {
				t.Errorf("call %d: 429 without a clear reason or Retry-After: %v %q", n, a.header, a.body)
			}
			refused++
		case a.status == http.StatusOK:
			env, err := envelopeOf(a.body)
			if err != nil {
				t.Errorf("call %d: %v", n, err)
				continue
			}
			data, _ := env["data"].(map[string]any)
			if env["code"] != "ok" || data["n"] != float64(n) {
				t.Errorf("call %d: envelope %v, want ok with n %d", n, env, n)
				continue
			}
			ok++
		default:
			t.Errorf("call %d: status %d %q", n, a.status, a.body)
		}
	}
	return ok, refused
}

// TestHTTPSessionBurst sends 40 tools/call requests at once on one HTTP
// session, whose limit is 32 (DefaultMaxClientRequests): every request gets
// a clear answer, the 32 admitted end ok and the 8 others get 429 with
// Retry-After; nothing is dropped or left hanging.
//
// First, held: each request withholds the last byte of its body (as
// TestHTTPLimits holds its ninth), so all 40 are in the server at once
// whatever the machine's load; once the server has refused 8, every body
// is completed. Then, as an agent sends them: 40 at once over a pooled
// client, each call sleeping a moment.
func TestHTTPSessionBurst(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	f := newFixtureWith(t, mcpserver.Options{
		// Generous: the held bodies must not be cut off on a loaded machine.
		ReadHeaderTimeout: 2 * time.Minute, ReadTimeout: 3 * time.Minute,
	}, burstFiles)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = f.srv.ServeListener(ctx, ln, "") }()
	addr := ln.Addr().String()
	url := "http://" + addr + mcpserver.Path
	sid := rawSession(t, url)
	defer func() {
		if t.Failed() { // what the server said about the calls that failed
			for _, line := range strings.Split(f.logs.String(), "\n") {
				if (strings.Contains(line, "level=ERROR") || strings.Contains(line, "level=WARN")) && !strings.Contains(line, "status=429") {
					t.Log(line)
				}
			}
		}
	}()
	const calls, limit = 40, mcpserver.DefaultMaxClientRequests

	t.Run("held", func(t *testing.T) {
		answers := make([]burstAnswer, calls)
		rest := make([]func() error, calls)
		var wg sync.WaitGroup
		for n := range calls {
			c, err := net.Dial("tcp", addr)
			must(t, err)
			defer c.Close()
			head, body := callRequest(addr, sid, n, false)
			_, err = io.WriteString(c, head+body[:len(body)-1])
			must(t, err)
			rest[n] = func() error { _, err := io.WriteString(c, body[len(body)-1:]); return err }
			wg.Add(1)
			go func() {
				defer wg.Done()
				_ = c.SetReadDeadline(time.Now().Add(4 * time.Minute))
				answers[n] = readAnswer(c)
			}()
		}
		// The server refuses the 8 beyond the limit as their headers arrive
		// (it logs each refusal); their 429 follows once their body is read.
		waitFor(t, 3*time.Minute, "the server to refuse 8 of 40 held requests", func() bool {
			return strings.Count(f.logs.String(), "status=429") >= calls-limit
		})
		for n := range calls {
			if err := rest[n](); err != nil {
				t.Errorf("call %d: completing its body: %v", n, err)
			}
		}
		wg.Wait()
		ok, refused := checkBurst(t, answers)
		t.Logf("40 held calls on one session: %d ok, %d refused with 429", ok, refused)
		if ok != limit || refused != calls-limit {
			t.Errorf("%d ok and %d refused; want %d and %d", ok, refused, limit, calls-limit)
		}
	})

	t.Run("at once", func(t *testing.T) {
		hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: calls}, Timeout: 4 * time.Minute}
		defer hc.CloseIdleConnections()
		answers := make([]burstAnswer, calls)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for n := range calls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, body := callRequest(addr, sid, n, true)
				req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Mcp-Session-Id", sid)
				<-start
				resp, err := hc.Do(req)
				if err != nil {
					answers[n] = burstAnswer{err: err}
					return
				}
				b, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				answers[n] = burstAnswer{status: resp.StatusCode, header: resp.Header, body: string(b), err: err}
			}()
		}
		close(start)
		wg.Wait()
		ok, refused := checkBurst(t, answers)
		t.Logf("40 calls at once on one session: %d ok, %d refused with 429", ok, refused)
		if ok < limit {
			// At most 32 run at once, and calls that sleep 2 s overlap;
			// a refused call is answered at once.
			t.Errorf("%d ok; want at least %d", ok, limit)
		}
	})
}
