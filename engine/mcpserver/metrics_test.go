package mcpserver_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/toolwright/toolwright/engine/mcpserver"
	"github.com/toolwright/toolwright/engine/store/sqlstore"
	"github.com/toolwright/toolwright/internal/testbrowser"
	"github.com/toolwright/toolwright/internal/testsite"
)

const openEnvWorkflow = `name: open_catalog_env
description: Open an environment for the catalog and keep it.
risk: read
env: new
steps:
  - open_env: {purpose: catalog}
output:
  env_id: ${{ env.id }}
`

func get(t *testing.T, h http.Handler, path, token string) (int, string) {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:8080"+path, nil)
	r.Host = "127.0.0.1:8080"
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	b, _ := io.ReadAll(w.Result().Body)
	return w.Code, string(b)
}

// metric finds the value of one sample line of the Prometheus text format.
func metric(t *testing.T, body, name string, labels ...string) string {
	t.Helper()
	for _, line := range strings.Split(body, "\n") {
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") {
			continue
		}
		ok := true
		for _, l := range labels {
			ok = ok && strings.Contains(line, l)
		}
		if ok {
			return line[strings.LastIndexByte(line, ' ')+1:]
		}
	}
	return ""
}

func TestMetricsAndProbes(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	testbrowser.OwnBrowser(t) // the environments gauge is labelled with the provider: local's
	files := map[string]string{"open_catalog_env.yaml": openEnvWorkflow}
	for k, v := range workflowFiles {
		files[k] = v
	}
	m := newMetrics(t)
	f := newFixtureWith(t, mcpserver.Options{Metrics: m}, files)
	ctx := context.Background()
	call := func(tool string, args map[string]any) {
		t.Helper()
		if _, err := f.session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args}); err != nil {
			t.Fatal(err)
		}
	}
	call("set_only", map[string]any{"name": "a"})
	call("set_only", map[string]any{"name": "b", "task_id": "T-1"})
	call("read_title", map[string]any{"page": "login.html"})
	call("read_title", map[string]any{"times": 9}) // invalid_params
	call("open_catalog_env", map[string]any{})

	h := f.srv.Handler("127.0.0.1", "s3cret")
	if code, _ := get(t, h, "/metrics", ""); code != http.StatusUnauthorized {
		t.Errorf("/metrics without the token: %d", code)
	}
	code, body := get(t, h, "/metrics", "s3cret")
	if code != 200 {
		t.Fatalf("/metrics: %d %s", code, body)
	}
	for _, c := range []struct {
		name   string
		labels []string
		want   string
	}{
		{"toolwright_calls_total", []string{`tool="set_only"`, `code="ok"`}, "2"},
		{"toolwright_calls_total", []string{`tool="read_title"`, `code="ok"`}, "1"},
		{"toolwright_calls_total", []string{`tool="read_title"`, `code="invalid_params"`}, "1"},
		{"toolwright_call_duration_seconds_count", []string{`tool="read_title"`}, "2"},
		{"toolwright_step_duration_seconds_count", []string{`kind="goto"`, `code="ok"`}, "1"},
		{"toolwright_step_duration_seconds_count", []string{`kind="set"`, `code="ok"`}, "3"},
		{"toolwright_store_latency_seconds_count", []string{`op="claim"`}, "1"},
		{"toolwright_store_latency_seconds_count", []string{`op="save_trace"`}, "5"},
		{"toolwright_environments_open", []string{`purpose="catalog"`, `provider="local"`}, "1"},
		{"toolwright_sessions_open", nil, "1"},
		{"toolwright_calls_in_flight", nil, "0"},
	} {
		if got := metric(t, body, c.name, c.labels...); got != c.want {
			t.Errorf("%s%v = %q, want %s", c.name, c.labels, got, c.want)
		}
	}
	if !regexp.MustCompile(`(?m)^go_goroutines \d+`).MatchString(body) {
		t.Error("no Go runtime metrics")
	}

	// The probes need no token.
	if code, body := get(t, h, "/healthz", ""); code != 200 || body != "ok\n" {
		t.Errorf("/healthz: %d %q", code, body)
	}
	if code, body := get(t, h, "/readyz", ""); code != 200 || !strings.Contains(body, `"ready":true`) {
		t.Errorf("/readyz: %d %s", code, body)
	}
	// The store goes away: not ready, and the answer says why.
	must(t, f.app.Store.Close())
	if code, body := get(t, h, "/readyz", ""); code != http.StatusServiceUnavailable || !strings.Contains(body, `"ready":false`) || !strings.Contains(body, `"store":{"ok":false,"error":`) {
		t.Errorf("/readyz with the store closed: %d %s", code, body)
	}
	// A probe is no way around the guard's other checks.
	r := httptest.NewRequest(http.MethodGet, "http://evil.example/healthz", nil)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusForbidden {
		t.Errorf("/healthz with a foreign Host: %d", w.Code)
	}
}

// The SQLite file deleted, or replaced by another, under a running server:
// /readyz fails and names the store (before, it kept answering ready while
// every record went into the deleted file).
func TestReadyzNoticesLostDatabase(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"deleted", "replaced"} {
		t.Run(how, func(t *testing.T) {
			f := newFixtureWith(t, mcpserver.Options{Metrics: newMetrics(t)}, workflowFiles)
			h := f.srv.Handler("127.0.0.1", "")
			if code, body := get(t, h, "/readyz", ""); code != 200 {
				t.Fatalf("/readyz: %d %s", code, body)
			}
			db := filepath.Join(f.cfg.StateDir, sqlstore.FileName)
			switch how {
			case "deleted":
				must(t, os.Remove(db))
			case "replaced":
				other := filepath.Join(t.TempDir(), "copy.db")
				data, err := os.ReadFile(db)
				must(t, err)
				must(t, os.WriteFile(other, data, 0o600)) // even a faithful copy is another file
				must(t, os.Rename(other, db))
			}
			code, body := get(t, h, "/readyz", "")
			if code != http.StatusServiceUnavailable || !strings.Contains(body, `"store":{"ok":false`) || !strings.Contains(body, "the database file was "+how+" under the running server") {
				t.Fatalf("/readyz with the database %s: %d %s", how, code, body)
			}
		})
	}
}

// NewMetrics twice on one registry, and one Metrics for two servers, are
// errors that say so, not a panic (the registration was MustRegister) and
// not a second server silently taking the first's gauges; the registry
// keeps what it held.
func TestMetricsRegisteredTwice(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	m, err := mcpserver.NewMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	before, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	again, err := mcpserver.NewMetrics(reg)
	if err == nil || again != nil || !strings.Contains(err.Error(), "toolwright_calls_total is already registered on this registry") {
		t.Errorf("NewMetrics twice on one registry: %v, %v; want an error naming toolwright_calls_total", again, err)
	}
	if after, err := reg.Gather(); err != nil || len(after) != len(before) {
		t.Errorf("after the second NewMetrics the registry has %d families (%v), want %d", len(after), err, len(before))
	}

	// A registry that holds one of them only: the error names it and the
	// metrics registered before it are taken back.
	reg = prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector())
	if _, err := mcpserver.NewMetrics(reg); err == nil || !strings.Contains(err.Error(), "the Go runtime collector is already registered") {
		t.Errorf("NewMetrics on a registry with a Go collector: %v", err)
	}
	reg.Unregister(collectors.NewGoCollector())
	if _, err := mcpserver.NewMetrics(reg); err != nil {
		t.Errorf("NewMetrics after the Go collector left: %v (a failed NewMetrics left some registered)", err)
	}

	// One Metrics, two servers.
	f := newFixtureWith(t, mcpserver.Options{Metrics: m}, workflowFiles)
	if srv, err := mcpserver.New(f.app.Engine, mcpserver.Options{Metrics: m}); err == nil || srv != nil || !strings.Contains(err.Error(), "already count another server") {
		t.Errorf("a second server on the same Metrics: made %t, err %v; want an error", srv != nil, err)
	}
}
