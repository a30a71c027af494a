package mcpserver_test

import (
	"context"
	"github.com/toolwright/toolwright/internal/testsite"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolwright/toolwright/engine/mcpserver"
)

func TestCheckHTTP(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		addr, token string
		ok          bool
	}{
		{"127.0.0.1:8080", "", true},
		{"localhost:8080", "", true},
		{"[::1]:8080", "", true},
		{"127.0.0.1:0", "", true},
		{"0.0.0.0:8080", "", false},
		{":8080", "", false},
		{"192.168.1.5:8080", "", false},
		{"example.com:443", "", false},
		{"0.0.0.0:8080", "s3cret", true},
		{"192.168.1.5:8080", "s3cret", true},
		{"", "", false},
		{"127.0.0.1", "", false}, // no port
	} {
		err := mcpserver.CheckHTTP(tc.addr, tc.token)
		if (err == nil) != tc.ok {
			t.Errorf("CheckHTTP(%q, token %v) = %v, want ok %v", tc.addr, tc.token != "", err, tc.ok)
		}
	}
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

func TestHTTPGuard(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	f := newFixture(t, mcpserver.Options{MaxBodyBytes: 4096})
	type req struct {
		name, host, origin, auth, body string
		want                           int
	}
	run := func(t *testing.T, h http.Handler, cases []req) {
		for _, tc := range cases {
			body := tc.body
			if body == "" {
				body = initBody
			}
			r := httptest.NewRequest(http.MethodPost, "http://"+tc.host+"/mcp", strings.NewReader(body))
			r.Host = tc.host
			r.Header.Set("Content-Type", "application/json")
			r.Header.Set("Accept", "application/json, text/event-stream")
			if tc.origin != "" {
				r.Header.Set("Origin", tc.origin)
			}
			if tc.auth != "" {
				r.Header.Set("Authorization", tc.auth)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tc.want {
				t.Errorf("%s: status %d, want %d (%s)", tc.name, w.Code, tc.want, strings.TrimSpace(w.Body.String()))
			}
		}
	}
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 5000) + `"}}`
	t.Run("loopback", func(t *testing.T) {
		run(t, f.srv.Handler("127.0.0.1", ""), []req{
			{name: "loopback host", host: "127.0.0.1:8080", want: 200},
			{name: "localhost host", host: "localhost:8080", want: 200},
			{name: "ipv6 loopback host", host: "[::1]:8080", want: 200},
			{name: "loopback origin", host: "127.0.0.1:8080", origin: "http://localhost:6274", want: 200},
			{name: "rebinding host", host: "evil.example", want: 403},
			{name: "rebinding host with port", host: "evil.example:8080", want: 403},
			{name: "foreign origin", host: "127.0.0.1:8080", origin: "http://evil.example", want: 403},
			{name: "null origin", host: "127.0.0.1:8080", origin: "null", want: 403},
			{name: "large body", host: "127.0.0.1:8080", body: big, want: 413},
		})
	})
	t.Run("token", func(t *testing.T) {
		run(t, f.srv.Handler("10.1.2.3", "s3cret"), []req{
			{name: "no token", host: "10.1.2.3:8080", want: 401},
			{name: "wrong token", host: "10.1.2.3:8080", auth: "Bearer nope", want: 401},
			{name: "basic auth", host: "10.1.2.3:8080", auth: "Basic czNjcmV0", want: 401},
			{name: "token", host: "10.1.2.3:8080", auth: "Bearer s3cret", want: 200},
			{name: "token, lowercase scheme", host: "10.1.2.3:8080", auth: "bearer s3cret", want: 200},
			{name: "token on loopback name", host: "localhost:8080", auth: "Bearer s3cret", want: 200},
			{name: "other host", host: "evil.example:8080", auth: "Bearer s3cret", want: 403},
			{name: "foreign origin", host: "10.1.2.3:8080", origin: "http://evil.example", auth: "Bearer s3cret", want: 403},
			{name: "bound origin", host: "10.1.2.3:8080", origin: "http://10.1.2.3:8080", auth: "Bearer s3cret", want: 200},
		})
	})
	t.Run("every interface", func(t *testing.T) {
		run(t, f.srv.Handler("0.0.0.0", "s3cret"), []req{
			{name: "any host with token", host: "toolwright.internal:8080", auth: "Bearer s3cret", want: 200},
			{name: "same origin", host: "toolwright.internal:8080", origin: "https://toolwright.internal:8080", auth: "Bearer s3cret", want: 200},
			{name: "cross origin", host: "toolwright.internal:8080", origin: "https://evil.example", auth: "Bearer s3cret", want: 403},
			{name: "no token", host: "toolwright.internal:8080", want: 401},
		})
	})
}

// TestServeListener serves on a real loopback port with the SDK's
// Streamable HTTP client, then shuts down while a session is open.
func TestServeListener(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	f := newFixture(t, mcpserver.Options{ShutdownGrace: time.Second})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- f.srv.ServeListener(ctx, ln, "") }()
	url := "http://" + ln.Addr().String() + mcpserver.Path

	c := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	must(t, err)
	defer cs.Close()
	if v := cs.InitializeResult().ServerInfo.Name; v != "toolwright" {
		t.Errorf("server name %q", v)
	}
	tools, err := cs.ListTools(context.Background(), nil)
	must(t, err)
	if len(tools.Tools) != len(workflowFiles) {
		t.Errorf("%d tools over HTTP, want %d", len(tools.Tools), len(workflowFiles))
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "set_only", Arguments: map[string]any{"name": "http"}})
	must(t, err)
	if env := checkResult(t, res); env["code"] != "ok" {
		t.Errorf("call over HTTP: %v", env)
	}

	// DNS rebinding over the wire: the SDK client cannot send a foreign Host.
	for name, set := range map[string]func(*http.Request){
		"host":   func(r *http.Request) { r.Host = "evil.example" },
		"origin": func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") },
	} {
		r, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(initBody))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		set(r)
		resp, err := http.DefaultClient.Do(r)
		must(t, err)
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("foreign %s: status %d, want 403", name, resp.StatusCode)
		}
	}

	start := time.Now()
	cancel()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("ServeListener: %v", err)
		}
		t.Logf("shut down in %s with a session open", time.Since(start).Round(time.Millisecond))
	case <-time.After(10 * time.Second):
		t.Fatal("the HTTP server did not shut down")
	}
}

// TestShutdownGrace stops serving while a call runs: the call gets
// ShutdownGrace, then it is cancelled and still answered with its envelope.
func TestShutdownGrace(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	f := newFixture(t, mcpserver.Options{ShutdownGrace: 500 * time.Millisecond})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- f.srv.ServeListener(ctx, ln, "") }()
	started := make(chan struct{}, 8)
	c := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { started <- struct{}{} },
	})
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: "http://" + ln.Addr().String() + mcpserver.Path}, nil)
	must(t, err)
	defer cs.Close()
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	answers := make(chan answer, 1)
	go func() {
		p := &mcp.CallToolParams{Name: "wait_slow", Arguments: map[string]any{}}
		p.SetProgressToken("shutdown")
		res, err := cs.CallTool(context.Background(), p)
		answers <- answer{res, err}
	}()
	<-started
	<-started // the goto step is running
	start := time.Now()
	cancel()
	select {
	case a := <-answers:
		if a.err != nil {
			t.Fatalf("the call in flight got an error instead of an envelope: %v", a.err)
		}
		if env := checkResult(t, a.res); env["code"] != "cancelled" {
			t.Errorf("envelope %v, want code cancelled", env)
		}
		took := time.Since(start)
		t.Logf("call in flight answered %s after shutdown began", took.Round(time.Millisecond))
		if took < 500*time.Millisecond || took > 500*time.Millisecond+promptCancel {
			t.Errorf("answered after %s, want the 500ms grace and then a prompt cancellation", took)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the call in flight was never answered")
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("ServeListener: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the HTTP server did not shut down")
	}
}
