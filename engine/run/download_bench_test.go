package run_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/run"
	"github.com/toolwright/toolwright/internal/harness"
)

// BenchmarkDownloadSubresources downloads a 20 MB report (a CSV attachment
// with its Content-Length, from a loopback server) through a workflow's
// download step under policy.subresources: any and allowed_hosts, one
// engine and browser each, alternating call by call. It reports each
// side's median (any-ms, allowed-ms) and their ratio (allowed/any). Run it
// with
//
//	go test ./engine/run -run '^$' -bench DownloadSubresources -benchtime 7x
func BenchmarkDownloadSubresources(b *testing.B) {
	const wf = `
name: get_year
description: Download the yearly report.
risk: read
deadline: 5m
steps:
  - goto: ${{ config.shop_base }}/index.html
  - download: {click: dl.report.year, into: file, max_bytes: 30000000}
    timeout: 4m
output:
  file: ${{ vars.file }}
`
	start := func(subresources string) *harness.Parts {
		return harness.StartOn(b, reportFixture(&reportServer{}), map[string]string{"get_year": wf}, reportPolicy(subresources))
	}
	sides := []struct {
		name string
		p    *harness.Parts
		ms   []float64
	}{{name: "any", p: start("any")}, {name: "allowed", p: start("allowed_hosts")}}
	call := func(p *harness.Parts) time.Duration {
		ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
		defer cancel()
		t0 := time.Now()
		env, err := p.Eng.Call(ctx, run.Request{Tool: "get_year", Args: json.RawMessage(`{}`)})
		d := time.Since(t0)
		if err != nil {
			b.Fatal(err)
		}
		if !env.OK {
			b.Fatalf("download: %s", env.JSON())
		}
		file, _ := env.Data["file"].(map[string]any)
		if n, _ := file["bytes"].(int64); n != 20971520 {
			if f, _ := file["bytes"].(int); f != 20971520 {
				b.Fatalf("downloaded %v bytes, want 20971520: %s", file["bytes"], env.JSON())
			}
		}
		return d
	}
	for i := range sides { // warm: each browser started, the page cached
		call(sides[i].p)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range sides {
			s := &sides[(i+j)%2]
			s.ms = append(s.ms, float64(call(s.p).Microseconds())/1000)
		}
	}
	b.StopTimer()
	median := func(v []float64) float64 {
		v = slices.Clone(v)
		slices.Sort(v)
		return v[len(v)/2]
	}
	a, h := median(sides[0].ms), median(sides[1].ms)
	b.ReportMetric(a, "any-ms")
	b.ReportMetric(h, "allowed-ms")
	b.ReportMetric(h/a, "allowed/any")
	b.ReportMetric(0, "ns/op")
}
