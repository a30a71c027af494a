package mcpserver_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolwright/toolwright/engine/mcpserver"
)

// roundRobin is a balancer with no affinity: each request goes to the next
// replica.
func roundRobin(t *testing.T, replicas ...http.Handler) (url string, hits []*atomic.Int32) {
	hits = make([]*atomic.Int32, len(replicas))
	for i := range hits {
		hits[i] = &atomic.Int32{}
	}
	var mu sync.Mutex
	next := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		i := next % len(replicas)
		next++
		mu.Unlock()
		hits[i].Add(1)
		replicas[i].ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + mcpserver.Path, hits
}

// With http.stateless, two replicas behind a plain round-robin balancer
// answer one client: initialize, tools/list and calls land on either, and
// progress still reaches the client inside a request. Without it, the
// second replica does not know the first one's session.
func TestStatelessReplicasRoundRobin(t *testing.T) {
	t.Parallel()
	f := newFixture(t, mcpserver.Options{})
	replicas := func(stateless bool) (http.Handler, http.Handler) {
		o := mcpserver.Options{Stateless: stateless}
		return newServer(t, f.app.Engine, o).Handler("127.0.0.1", ""), newServer(t, f.app.Engine, o).Handler("127.0.0.1", "")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	a, b := replicas(true)
	url, hits := roundRobin(t, a, b)
	var progress atomic.Int32
	c := mcp.NewClient(&mcp.Implementation{Name: "rr", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { progress.Add(1) },
	})
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if tools, err := cs.ListTools(ctx, nil); err != nil || len(tools.Tools) == 0 {
		t.Fatalf("tools/list: %v", err)
	}
	for i := range 4 {
		p := &mcp.CallToolParams{Name: "set_only", Arguments: map[string]any{"name": "rr"}}
		p.SetProgressToken(i + 1)
		res, err := cs.CallTool(ctx, p)
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if got := checkResult(t, res); got["data"].(map[string]any)["greeting"] != "hello rr" {
			t.Fatalf("call %d: %v", i, got)
		}
	}
	if hits[0].Load() < 3 || hits[1].Load() < 3 {
		t.Fatalf("requests per replica: %d and %d; round-robin should spread them", hits[0].Load(), hits[1].Load())
	}
	if progress.Load() < 4 {
		t.Fatalf("%d progress notifications over 4 calls", progress.Load())
	}

	// Stateful replicas behind the same balancer lose the session.
	a, b = replicas(false)
	url, _ = roundRobin(t, a, b)
	c2 := mcp.NewClient(&mcp.Implementation{Name: "rr", Version: "1"}, nil)
	cs2, err := c2.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true, MaxRetries: -1}, nil)
	if err == nil {
		_, err = cs2.ListTools(ctx, nil)
		cs2.Close()
	}
	if err == nil {
		t.Fatal("stateful replicas behind round-robin kept one session; the test cannot tell the modes apart")
	}
}
