package run_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/run"
	"github.com/toolwright/toolwright/internal/harness"
	"github.com/toolwright/toolwright/internal/testsite"
)

// reportServer serves testdata/real/downloads and /report?size=N[&length=1]:
// a CSV attachment of N bytes, streamed in 64 KiB writes (with a
// Content-Length only when length=1). It notes how many bytes each report
// got written before it ended or its connection was closed.
type reportServer struct {
	mu      sync.Mutex
	written []int64
}

func (s *reportServer) handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", testsite.Handler(filepath.Join(testsite.Dir(), "..", "real", "downloads")))
	mux.HandleFunc("/report", func(w http.ResponseWriter, r *http.Request) {
		size, _ := strconv.ParseInt(r.URL.Query().Get("size"), 10, 64)
		w.Header().Set("Content-Type", "text/csv")
		w.Header().Set("Content-Disposition", `attachment; filename="report.csv"`)
		if r.URL.Query().Get("length") == "1" {
			w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
		}
		row := []byte("2026-01-01,order,NW-0001,42.00,shipped,hiking boots and a rain jacket\n")
		chunk := make([]byte, 0, 64<<10)
		for len(chunk)+len(row) <= cap(chunk) {
			chunk = append(chunk, row...)
		}
		var n int64
		defer func() {
			s.mu.Lock()
			s.written = append(s.written, n)
			s.mu.Unlock()
		}()
		f, _ := w.(http.Flusher)
		for n < size {
			part := chunk[:min(int64(len(chunk)), size-n)]
			m, err := w.Write(part)
			n += int64(m)
			if err != nil {
				return
			}
			if f != nil {
				f.Flush()
			}
			// A 64 MB report past its first 6 MB is paced (about 9 s in
			// all), so "stopped long before the end" does not depend on
			// how fast loopback is against a loaded engine; reading it
			// whole (the bug) still takes all 64 MB.
			if size > 32<<20 && n > 6<<20 {
				select {
				case <-time.After(10 * time.Millisecond):
				case <-r.Context().Done():
					return
				}
			}
		}
	})
	return mux
}

// reports are the byte counts of the reports served so far.
func (s *reportServer) reports() []int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int64(nil), s.written...)
}

const reportWorkflow = `
name: get_report
description: Download a report.
risk: read
params:
  which: {type: target, prefix: dl.report., description: Which report}
steps:
  - goto: ${{ config.shop_base }}/index.html
  - download: {click: "${{ params.which }}", into: file, max_bytes: 5000000}
output:
  file: ${{ vars.file }}
`

func reportHarness(t *testing.T, subresources string) (*harness.Harness, *reportServer) {
	t.Helper()
	srv := &reportServer{}
	h := harness.NewReal(t, map[string]string{"get_report": reportWorkflow}, reportPolicy(subresources), reportFixture(srv))
	return h, srv
}

// reportFixture serves srv's reports with the downloads pages' selector
// map and workflows.
func reportFixture(srv *reportServer) harness.Fixture {
	return harness.Fixture{
		Start:     func(tb testing.TB) *testsite.Site { return testsite.Serve(tb, srv.handler()) },
		Selectors: "testdata/real/downloads/selectors.yaml",
		Workflows: "testdata/real/downloads/workflows",
	}
}

// reportPolicy allows only loopback, with subresources as given.
func reportPolicy(subresources string) func(*config.Config) {
	return func(c *config.Config) {
		c.Policy.AllowedHosts = []string{"127.0.0.1"}
		c.Policy.Subresources = subresources
	}
}

// TestDownloadLimitWhileStreaming: a download larger than its max_bytes
// (5 MB) is stopped while it streams, not after it arrived: the server of
// a 64 MB report gets its connection closed long before the end, with or
// without a Content-Length, under policy.subresources: any and
// allowed_hosts alike; nothing is kept. A 3 MB report arrives whole under
// both. Before: under allowed_hosts the guard read every document response
// whole to add its connection rules, so all 64 MB were sent (and held in
// the browser's memory) before the limit was looked at.
func TestDownloadLimitWhileStreaming(t *testing.T) {
	for _, mode := range []string{"allowed_hosts", "any"} {
		t.Run(mode, func(t *testing.T) {
			h, srv := reportHarness(t, mode)
			for _, which := range []string{"stream", "sized"} {
				before := len(srv.reports())
				env := h.Code(h.Call("get_report", `{"which": "dl.report.`+which+`"}`), "limit_exceeded", "max_bytes (5000000 bytes)")
				entries, _ := os.ReadDir(filepath.Join(h.Cfg.StateDir, "downloads", env.TraceID))
				if len(entries) != 0 {
					t.Errorf("%s: a download over max_bytes left %d files", which, len(entries))
				}
				// The server ends once its connection is closed.
				harness.WaitFor(t, 2*time.Minute, "the report's request to end", func() bool { return len(srv.reports()) > before })
				if n := srv.reports()[before]; n >= 32<<20 {
					t.Errorf("%s: the server sent %d of 64 MB before the download over 5 MB was stopped", which, n>>20)
				}
			}
			env := h.OK(h.Call("get_report", `{"which": "dl.report.small"}`))
			ref, _ := env.Data["file"].(map[string]any)
			if ref == nil || fmt.Sprint(ref["bytes"]) != "3000000" || ref["name"] != "report.csv" {
				t.Fatalf("the 3 MB report: %s", env.JSON())
			}
		})
	}
}

// TestPlantedDownloadNotServed: resources/read serves only the files the
// engine recorded a download step keeping; a file put beside a kept
// download (same folder, a valid name) is not served. Before: any regular
// file in the trace's downloads folder was.
func TestPlantedDownloadNotServed(t *testing.T) {
	h, _ := reportHarness(t, "any")
	env := h.OK(h.Call("get_report", `{"which": "dl.report.small"}`))
	ref, _ := env.Data["file"].(map[string]any)
	uri, _ := ref["uri"].(string)
	ctx := context.Background()
	if d, err := h.Eng.ReadDownload(ctx, uri); err != nil || len(d.Text) != 3000000 {
		t.Fatalf("the kept download %s: %v", uri, err)
	}
	dir := filepath.Join(h.Cfg.StateDir, "downloads", env.TraceID)
	for _, name := range []string{"planted.csv", "2-report.csv"} {
		harness.WriteFile(t, filepath.Join(dir, name), "id,secret\n1,planted\n")
		_, err := h.Eng.ReadDownload(ctx, run.DownloadURIPrefix+env.TraceID+"/"+name)
		if !errors.Is(err, run.ErrNoDownload) {
			t.Errorf("the planted %s: err = %v, want ErrNoDownload", name, err)
		}
	}
}
