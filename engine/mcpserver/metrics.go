package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/engine/store"
)

// Operations endpoints of `serve --http` (DESIGN.md "CLI"):
//
//	/healthz  the process is up (200 "ok"); no token needed
//	/readyz   the store answers and workflows are loaded (200, else 503,
//	          with a JSON body saying which check failed); no token needed
//	/metrics  Prometheus text format; behind the token when one is set
const (
	HealthPath  = "/healthz"
	ReadyPath   = "/readyz"
	MetricsPath = "/metrics"
)

// ReadyTimeout bounds the store check of /readyz.
const ReadyTimeout = 2 * time.Second

// Metrics are the server's Prometheus metrics, on a registry of their own
// (several servers in one process, as in tests, never share counters).
//
//	toolwright_calls_total{tool,code}                    tools/call answers
//	toolwright_call_duration_seconds{tool}               their durations
//	toolwright_step_duration_seconds{kind,code}          each step of a recorded call
//	toolwright_store_latency_seconds{op}                 store calls on the call path
//	toolwright_environments_open{purpose,provider}       environments open now
//	toolwright_sessions_open                             MCP sessions open now
//	toolwright_calls_in_flight                           tool calls running now
//
// plus the Go runtime and process collectors.
type Metrics struct {
	reg      *prometheus.Registry
	calls    *prometheus.CounterVec
	callDur  *prometheus.HistogramVec
	stepDur  *prometheus.HistogramVec
	storeLat *prometheus.HistogramVec
	live     *liveCollector
}

// NewMetrics makes the metrics and registers them on reg (nil: a registry
// of their own). Pass them in Options.Metrics, and wrap the engine's store
// with Store before the engine is made, to get store latency and step
// durations. A registry that already holds one of them (NewMetrics twice on
// one registry) is an error naming it, and reg is left as it was.
func NewMetrics(reg *prometheus.Registry) (*Metrics, error) {
	if reg == nil {
		reg = prometheus.NewRegistry()
	}
	m := &Metrics{
		reg: reg,
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "toolwright_calls_total", Help: "Tool calls answered, by tool and envelope code.",
		}, []string{"tool", "code"}),
		callDur: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "toolwright_call_duration_seconds", Help: "Duration of tool calls, by tool.",
			Buckets: prometheus.ExponentialBuckets(0.01, 2, 15),
		}, []string{"tool"}),
		stepDur: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "toolwright_step_duration_seconds", Help: "Duration of the steps of recorded calls, by step kind and code.",
			Buckets: prometheus.ExponentialBuckets(0.001, 2, 16),
		}, []string{"kind", "code"}),
		storeLat: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "toolwright_store_latency_seconds", Help: "Latency of state store operations on the call path, by operation.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 16),
		}, []string{"op"}),
		live: &liveCollector{
			envs: prometheus.NewDesc("toolwright_environments_open", "Browser environments open now, by purpose and provider.", []string{"purpose", "provider"}, nil),
			sess: prometheus.NewDesc("toolwright_sessions_open", "MCP sessions open now.", nil, nil),
			busy: prometheus.NewDesc("toolwright_calls_in_flight", "Tool calls running now.", nil, nil),
		},
	}
	cs := []struct {
		name string
		c    prometheus.Collector
	}{
		{"toolwright_calls_total", m.calls},
		{"toolwright_call_duration_seconds", m.callDur},
		{"toolwright_step_duration_seconds", m.stepDur},
		{"toolwright_store_latency_seconds", m.storeLat},
		{"toolwright_environments_open, toolwright_sessions_open and toolwright_calls_in_flight", m.live},
		{"the Go runtime collector", collectors.NewGoCollector()},
		{"the process collector", collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})},
	}
	for i, c := range cs {
		err := reg.Register(c.c)
		if err == nil {
			continue
		}
		for _, done := range cs[:i] {
			reg.Unregister(done.c)
		}
		if errors.As(err, &prometheus.AlreadyRegisteredError{}) {
			return nil, fmt.Errorf("metrics: %s is already registered on this registry (NewMetrics once per registry)", c.name)
		}
		return nil, fmt.Errorf("metrics: registering %s: %w", c.name, err)
	}
	return m, nil
}

// Registry is where the metrics are registered (to add more, or to gather in tests).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// call counts one answered tools/call.
func (m *Metrics) call(tool string, env *result.Envelope) {
	m.calls.WithLabelValues(tool, env.Code).Inc()
	m.callDur.WithLabelValues(tool).Observe(float64(env.DurationMS) / 1000)
}

// Store wraps st so its latency on the call path is measured and the steps
// of every recorded trace are observed.
func (m *Metrics) Store(st store.Store) store.Store {
	if st == nil {
		return nil
	}
	return &measuredStore{Store: st, m: m}
}

// liveCollector reads the gauges of what is open when Prometheus scrapes.
type liveCollector struct {
	envs, sess, busy *prometheus.Desc
	srv              atomic.Pointer[Server] // set once, by New
}

func (c *liveCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.envs
	ch <- c.sess
	ch <- c.busy
}

func (c *liveCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.srv.Load()
	if s == nil {
		return
	}
	ch <- gauge(c.sess, float64(s.sessions()))
	ch <- gauge(c.busy, float64(s.inflight.Load()))
	if bm := s.eng.Browsers(); bm != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		st := bm.Stats(ctx)
		cancel()
		provider := bm.Provider().Name()
		for purpose, k := range st.ByPurpose {
			ch <- gauge(c.envs, float64(k), purpose, provider)
		}
	}
}

// measuredStore times the store operations a call makes.
type measuredStore struct {
	store.Store
	m *Metrics
}

func (s *measuredStore) since(op string, start time.Time) {
	s.m.storeLat.WithLabelValues(op).Observe(time.Since(start).Seconds())
}

func (s *measuredStore) Claim(ctx context.Context, tool, taskID, argsHash string, ttl time.Duration) (store.Claim, error) {
	defer s.since("claim", time.Now())
	return s.Store.Claim(ctx, tool, taskID, argsHash, ttl)
}

func (s *measuredStore) SaveTrace(ctx context.Context, t *store.Trace) error {
	for _, st := range t.Steps {
		s.m.stepDur.WithLabelValues(st.Kind, st.Code).Observe(float64(st.DurationMS) / 1000)
	}
	defer s.since("save_trace", time.Now())
	return s.Store.SaveTrace(ctx, t)
}

func (s *measuredStore) AppendAudit(ctx context.Context, rec *store.AuditRecord) error {
	defer s.since("append_audit", time.Now())
	return s.Store.AppendAudit(ctx, rec)
}

func (s *measuredStore) LiveGrantID(ctx context.Context, tool, taskID string, now time.Time) (string, error) {
	defer s.since("live_grant", time.Now())
	return s.Store.LiveGrantID(ctx, tool, taskID, now)
}

func (s *measuredStore) Ready(ctx context.Context) error {
	defer s.since("ready", time.Now())
	return s.Store.Ready(ctx)
}

func (s *measuredStore) AuditHead(ctx context.Context) (int64, string, error) {
	defer s.since("audit_head", time.Now())
	return s.Store.AuditHead(ctx)
}

// opsRoutes adds /healthz, /readyz and /metrics to mux.
func (s *Server) opsRoutes(mux *http.ServeMux) {
	mux.HandleFunc(HealthPath, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	mux.HandleFunc(ReadyPath, s.ready)
	mux.Handle(MetricsPath, promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{ErrorLog: nil}))
}

// ready answers /readyz: the store can record a call (store.Ready: the
// database opened is still there and takes writes) within ReadyTimeout,
// and at least one workflow is loaded.
func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	type check struct {
		OK    bool   `json:"ok"`
		Error string `json:"error,omitempty"`
	}
	out := struct {
		Ready bool  `json:"ready"`
		Store check `json:"store"`
		Tools int   `json:"tools"`
	}{Tools: len(s.eng.Workflows().Names())}
	out.Store.OK = true
	if st := s.eng.Store(); st != nil {
		ctx, cancel := context.WithTimeout(r.Context(), ReadyTimeout)
		err := st.Ready(ctx)
		cancel()
		if err != nil {
			out.Store = check{Error: s.eng.Redactor().Redact(err.Error())}
		}
	}
	out.Ready = out.Store.OK && out.Tools > 0
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if !out.Ready {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	_ = json.NewEncoder(w).Encode(out)
}

// publicPath reports whether path is answered without the token: the
// probes, which say nothing but up or not.
func publicPath(path string) bool { return path == HealthPath || path == ReadyPath }

// gauge is one gauge sample of d; a label mismatch is reported to the
// scraper as an invalid metric rather than a panic at scrape time.
func gauge(d *prometheus.Desc, v float64, labels ...string) prometheus.Metric {
	m, err := prometheus.NewConstMetric(d, prometheus.GaugeValue, v, labels...)
	if err != nil {
		return prometheus.NewInvalidMetric(d, err)
	}
	return m
}
