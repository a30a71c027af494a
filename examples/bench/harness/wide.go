package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/toolwright/toolwright/engine/run"
)

// wideCmd measures the cost of reading a whole page with extract, in
// process: for each row count, bench_wide_open loads /bench/wide?rows=N in an
// environment that stays open, then bench_wide_read (8 fields, objects),
// bench_wide_table (8 fields, format: table) and bench_wide_one (1 field)
// run -runs times each, alternating. Reported per row count and tool: the
// extract step's own time, the whole call's, and the bytes of the envelope
// as JSON (what the model is handed as text); with -count-cdp, each read
// call's CDP requests (the whole call: one extract). The step's time is
// taken twice: from the trace (whole milliseconds, truncated: up to 1 ms
// off at 5–40 ms) and, finer, from the progress callback, the extract
// step's start to the start of the step after it (the read tools end with
// a set step for that), in microseconds like the floor's evaluate.
//
//	harness wide -config FILE -rows 5,50,200 -runs N
func wideCmd(args []string) error {
	fs := flag.NewFlagSet("wide", flag.ExitOnError)
	cfgPath := fs.String("config", "", "toolwright config")
	rowList := fs.String("rows", "5,50,200", "row counts of the wide page")
	runs := fs.Int("runs", 7, "timed calls of each tool per row count (after one warm-up)")
	out := fs.String("out", "", "write the JSON result here (default stdout)")
	countCDP := fs.Bool("count-cdp", false, "run on a Chromium of its own through a counting DevTools proxy and report each read call's CDP requests")
	_ = fs.Parse(args)

	a, proxy, closeAll, err := openApp(*cfgPath, *countCDP)
	if err != nil {
		return err
	}
	defer closeAll()
	ctx := context.Background()
	var lastStart time.Time
	var starts []time.Duration // each step's start in the last call, from the progress callback
	call := func(tool string, args map[string]any) (map[string]any, string, time.Duration, int, error) {
		raw, _ := json.Marshal(args)
		cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
		defer cancel()
		starts = starts[:0]
		start := time.Now()
		lastStart = start
		env, err := a.Engine.Call(cctx, run.Request{Tool: tool, Args: raw,
			Progress: func(_, _ int, _ string) { starts = append(starts, time.Since(start)) }})
		d := time.Since(start)
		if err != nil {
			return nil, "", d, 0, err
		}
		if !env.OK {
			return nil, "", d, 0, fmt.Errorf("%s: %s", tool, env.JSON())
		}
		return env.Data, env.TraceID, d, len(env.JSON()), nil
	}
	tools := []string{"bench_wide_read", "bench_wide_table", "bench_wide_one"}
	type sample struct {
		ExtractMS, FineMS, CallMS []float64
		Bytes                     int
		Requests                  []float64
	}
	result := map[string]any{}
	for _, c := range strings.Split(*rowList, ",") {
		rows, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil {
			return fmt.Errorf("-rows: %q is not a number", c)
		}
		data, _, _, _, err := call("bench_wide_open", map[string]any{"rows": rows})
		if err != nil {
			return err
		}
		envID, _ := data["env_id"].(string)
		got := map[string]*sample{}
		for _, t := range tools {
			got[t] = &sample{}
		}
		for i := 0; i <= *runs; i++ {
			for _, t := range tools {
				data, traceID, d, size, err := call(t, map[string]any{"env_id": envID})
				if err != nil {
					return err
				}
				if n := listCount(data["rows"]); n != rows {
					return fmt.Errorf("%s read %d rows of %d", t, n, rows)
				}
				if i == 0 {
					continue // warm-up
				}
				s := got[t]
				s.CallMS = append(s.CallMS, millis(d))
				s.Bytes = size
				if len(starts) >= 2 {
					s.FineMS = append(s.FineMS, millis(starts[1]-starts[0]))
				}
				tr, err := a.Store.GetTrace(ctx, traceID)
				if err == nil && len(tr.Steps) > 0 {
					s.ExtractMS = append(s.ExtractMS, float64(tr.Steps[0].DurationMS))
					if proxy != nil {
						s.Requests = append(s.Requests, float64(len(proxy.between(lastStart, lastStart.Add(d)))))
					} else if n, ok := stepRequests(tr.Steps[0]); ok {
						s.Requests = append(s.Requests, float64(n))
					}
				}
			}
		}
		if _, _, _, _, err := call("close_environment", map[string]any{"env_id": envID}); err != nil {
			return err
		}
		per := map[string]any{}
		for _, t := range tools {
			s := got[t]
			m := map[string]any{
				"extract_median_ms": median(s.ExtractMS), "call_median_ms": median(s.CallMS),
				"extract_ms": s.ExtractMS, "envelope_bytes": s.Bytes,
			}
			if len(s.Requests) > 0 {
				m["cdp_requests"] = median(s.Requests)
			}
			if len(s.FineMS) > 0 {
				m["extract_fine_median_ms"], m["extract_fine_ms"] = median(s.FineMS), s.FineMS
			}
			per[t] = m
		}
		result[strconv.Itoa(rows)] = per
	}
	return writeJSON(*out, map[string]any{
		"wide": result,
		"note": "engine.Call in process on a warm engine; extract_ms is the extract step's duration from the trace (ms resolution, truncated); extract_fine_ms the same step from its start to the next step's start (progress callback, µs resolution)",
	})
}

// listCount is the count of a list or table in an envelope's data.
func listCount(v any) int {
	raw, _ := json.Marshal(v)
	var l struct {
		Count int `json:"count"`
	}
	_ = json.Unmarshal(raw, &l)
	return l.Count
}
