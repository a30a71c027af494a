package mcpserver_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolwright/toolwright/engine/mcpserver"
	"github.com/toolwright/toolwright/internal/testsite"
)

// postInit sends one initialize and returns the status.
func postInit(c *http.Client, url string) (int, string, error) {
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(initBody))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp.StatusCode, string(b), nil
}

// slowClient opens a connection and sends head (at a trickle: a pause
// after each line), then body one byte every 100ms; it reports when the
// server closed the connection.
func slowClient(addr, head string, trickle bool, body int, closed chan<- time.Duration) {
	start := time.Now()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		closed <- -1
		return
	}
	defer c.Close()
	go func() { // the server's answer (408, 400) or its closing
		_, _ = io.Copy(io.Discard, c)
		closed <- time.Since(start)
	}()
	if !trickle {
		if _, err := io.WriteString(c, head); err != nil {
			return
		}
		head = ""
	}
	for i := 0; i < len(head); i++ {
		if _, err := c.Write([]byte{head[i]}); err != nil {
			return
		}
		if i > len(head)-5 || strings.HasSuffix(head[:i+1], "\r\n") {
			time.Sleep(100 * time.Millisecond)
		}
	}
	for i := 0; i < body; i++ {
		if _, err := c.Write([]byte("x")); err != nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestHTTPLimits holds the server under a flood of 1000 session openings,
// slow clients and a per-client burst while a real browser call completes.
// Before: sessions were unbounded (every initialize got 200), slow bodies
// were held open without a read timeout, and nothing capped one client.
func TestHTTPLimits(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	const maxSessions = 256
	f := newFixture(t, mcpserver.Options{
		MaxSessions: maxSessions,
		// Short enough for the slow clients below to be closed in seconds,
		// long enough that a starved server goroutine on a busy machine
		// does not cut off an honest initialize (a reset at load 70).
		ReadHeaderTimeout: 3 * time.Second, ReadTimeout: 4 * time.Second, IdleTimeout: 4 * time.Second,
		MaxClientRequests: 8,
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = f.srv.ServeListener(ctx, ln, "") }()
	addr := ln.Addr().String()
	url := "http://" + addr + mcpserver.Path

	// The real client holds one session from the start.
	c := mcp.NewClient(&mcp.Implementation{Name: "real", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	must(t, err)
	defer cs.Close()

	// 1000 initializes, 8 at a time (the per-address cap): exactly the
	// sessions left are opened, the rest get 503.
	open := 0
	for range f.srv.MCP().Sessions() {
		open++ // the fixture's in-memory session and the real client's
	}
	left := int64(maxSessions - open)
	goroutines := runtime.NumGoroutine()
	// No keep-alive: with a short IdleTimeout the server may close a pooled
	// connection just as a stalled worker reuses it (an EOF, not a limit).
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 30 * time.Second}
	var ok, full, other, retried atomic.Int64
	var firstOther atomic.Value
	var wg sync.WaitGroup
	work := make(chan struct{})
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range work {
				code, body, err := postInit(hc, url)
				for try := 0; try < 50 && err == nil && code == http.StatusTooManyRequests && strings.Contains(body, "from this client"); try++ {
					// The server counts a request until its handler has
					// returned, which may be just after the client read
					// the answer; so a worker sending its next request at
					// once can find the 8 slots still taken. It does what
					// the 429 says: try again, for half a second at most,
					// so a slot the server never gives back still shows
					// as "other" below.
					retried.Add(1)
					time.Sleep(10 * time.Millisecond)
					code, body, err = postInit(hc, url)
				}
				switch {
				case err == nil && code == 200:
					ok.Add(1)
				case err == nil && code == 503 && strings.Contains(body, "http.max_sessions"):
					full.Add(1)
				default:
					other.Add(1)
					firstOther.CompareAndSwap(nil, fmt.Sprintf("%d %q %v", code, body, err))
				}
			}
		}()
	}
	start := time.Now()
	for range 1000 {
		work <- struct{}{}
	}
	close(work)
	wg.Wait()
	t.Logf("1000 initializes in %s: %d opened, %d refused with 503, %d other, %d retried after a 429; goroutines %d → %d",
		time.Since(start).Round(time.Millisecond), ok.Load(), full.Load(), other.Load(), retried.Load(), goroutines, runtime.NumGoroutine())
	if ok.Load() != left || full.Load() != 1000-left || other.Load() != 0 {
		t.Errorf("opened %d, refused %d, other %d (first: %v); want %d, %d, 0",
			ok.Load(), full.Load(), other.Load(), firstOther.Load(), left, 1000-left)
	}

	// Slow clients: headers at a trickle (ReadHeaderTimeout) and bodies at a
	// trickle (ReadTimeout); the server closes every one of them.
	closed := make(chan time.Duration, 64)
	for range 20 {
		go slowClient(addr, "POST /mcp HTTP/1.1\r\nHost: "+addr+"\r\nContent-Type: application/json\r\n\r\n", true, 0, closed)
	}
	for range 20 {
		go slowClient(addr, "POST /mcp HTTP/1.1\r\nHost: "+addr+"\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n", false, 500, closed)
	}

	// Meanwhile a real browser call completes.
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_title", Arguments: map[string]any{"page": "login.html"}})
	must(t, err)
	if env := checkResult(t, res); env["code"] != "ok" {
		t.Errorf("real call under load: %v", env)
	}

	var longest time.Duration
	for range 40 {
		select {
		case d := <-closed:
			if d < 0 {
				t.Error("a slow client could not connect")
			}
			longest = max(longest, d)
		case <-time.After(20 * time.Second):
			t.Fatal("a slow client was still held open after 20s")
		}
	}
	t.Logf("40 slow clients closed by the server; the last after %s", longest.Round(time.Millisecond))

	// One client at its cap: requests beyond MaxClientRequests get 429.
	// Eight slow bodies of one session hold its eight slots until the
	// server's ReadTimeout ends them; one that ended is replaced, so the
	// slots stay held until a ninth request was refused. What the ninth
	// requests got is kept for the failure message.
	burst := "POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nMcp-Session-Id: burst\r\nContent-Length: 100\r\n\r\n"
	held := make(chan time.Duration, 64)
	for range 8 {
		go slowClient(addr, burst, false, 100, held)
	}
	ninth := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 3 * time.Second}
	seen := map[string]int{}
	deadline := time.Now().Add(20 * time.Second)
	for {
		for len(held) > 0 {
			<-held
			go slowClient(addr, burst, false, 100, held)
		}
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{}`))
		req.Header.Set("Mcp-Session-Id", "burst")
		resp, err := ninth.Do(req)
		if err != nil {
			seen["error "+err.Error()]++
		} else {
			resp.Body.Close()
			if resp.StatusCode == http.StatusTooManyRequests {
				break
			}
			seen[resp.Status]++
		}
		if time.Now().After(deadline) {
			t.Fatalf("no 429 for a ninth request of one session within 20s; the ninth requests got %v", seen)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestHTTPSessionIdleTimeout: a full server opens sessions again once idle
// ones time out. Before: sessions lived an hour.
func TestHTTPSessionIdleTimeout(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	f := newFixture(t, mcpserver.Options{MaxSessions: 3, SessionIdleTimeout: time.Second})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = f.srv.ServeListener(ctx, ln, "") }()
	url := "http://" + ln.Addr().String() + mcpserver.Path
	var codes []int
	for range 3 { // the fixture's own session is the third
		code, _, err := postInit(http.DefaultClient, url)
		must(t, err)
		codes = append(codes, code)
	}
	if codes[0] != 200 || codes[1] != 200 || codes[2] != 503 {
		t.Fatalf("statuses %v, want 200 200 503", codes)
	}
	waitFor(t, 20*time.Second, "idle sessions to close and a new session to open", func() bool {
		code, _, err := postInit(http.DefaultClient, url)
		return err == nil && code == 200
	})
}
