package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/toolwright/toolwright/examples/bench/internal/procstat"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/engine/run"
	"github.com/toolwright/toolwright/engine/store"
)

// warmCmd times engine.Call of one tool on a warm engine (browser already
// launched by a warm-up call) in this process: what toolwright itself costs
// without process start, browser launch or MCP framing.
//
//	harness warm -config FILE -runs N -tool search_catalog -args '{"query":"ACM","max_pages":3}'
func warmCmd(args []string) error {
	fs := flag.NewFlagSet("warm", flag.ExitOnError)
	cfgPath := fs.String("config", "", "toolwright config")
	runs := fs.Int("runs", 10, "timed calls (after one warm-up call)")
	tool := fs.String("tool", "search_catalog", "tool to call")
	argJSON := fs.String("args", `{"query":"ACM","max_pages":3}`, "arguments as JSON")
	out := fs.String("out", "", "write the JSON result here (default stdout)")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile of the timed calls here")
	gap := fs.Duration("gap", 0, "pause between calls (an agent's thinking time), not timed")
	openTool := fs.String("open", "", "first call this tool once (env: new, e.g. search_catalog_open) and pass the env_id it returns in -tool's arguments: a kept environment (env: given)")
	openArgs := fs.String("open-args", `{"purpose":"kept"}`, "arguments of -open")
	countCDP := fs.Bool("count-cdp", false, "run on a Chromium of its own through a counting DevTools proxy (browser.provider: cdp) and report the CDP requests of each step")
	_ = fs.Parse(args)

	a, proxy, closeAll, err := openApp(*cfgPath, *countCDP)
	if err != nil {
		return err
	}
	defer closeAll()
	ctx := context.Background()
	// Each step's start, from the progress callback, for the breakdown.
	type event struct {
		label string
		at    time.Duration
	}
	var events []event
	var callStart time.Time
	call := func() (*result.Envelope, time.Duration, error) {
		events = events[:0]
		start := time.Now()
		callStart = start
		env, err := a.Engine.Call(ctx, run.Request{Tool: *tool, Args: json.RawMessage(*argJSON),
			Progress: func(_, _ int, label string) { events = append(events, event{label, time.Since(start)}) }})
		d := time.Since(start)
		if err != nil {
			return nil, d, err
		}
		if !env.OK {
			return nil, d, fmt.Errorf("%s failed: %s", *tool, env.JSON())
		}
		return env, d, nil
	}
	if *openTool != "" {
		env, err := a.Engine.Call(ctx, run.Request{Tool: *openTool, Args: json.RawMessage(*openArgs)})
		if err != nil {
			return err
		}
		if !env.OK {
			return fmt.Errorf("%s failed: %s", *openTool, env.JSON())
		}
		id, _ := env.Data["env_id"].(string)
		if id == "" {
			return fmt.Errorf("%s returned no env_id: %s", *openTool, env.JSON())
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(*argJSON), &m); err != nil {
			return fmt.Errorf("-args: %w", err)
		}
		m["env_id"] = id
		raw, _ := json.Marshal(m)
		*argJSON = string(raw)
	}
	if _, _, err := call(); err != nil { // launches the browser
		return err
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
	}
	var ms, idle []float64
	var last *result.Envelope
	phases := newPhases()
	requests := newPhases() // CDP requests per step, when the trace records them or -count-cdp counts them
	var lastMethods map[string]string
	var timeline []any
	cpu0, tree0 := cpuTime(), procstat.TreeCPU(os.Getpid())
	for i := 0; i < *runs; i++ {
		if *gap > 0 {
			time.Sleep(*gap)
		}
		env, d, err := call()
		if err != nil {
			return err
		}
		ms = append(ms, millis(d))
		last = env
		// Where the time went: the trace's step durations placed on the
		// progress timeline (the trace is read after the clock stopped).
		tr, err := a.Store.GetTrace(ctx, env.TraceID)
		if err == nil {
			idle = append(idle, idleOf(tr))
		}
		if err != nil || len(tr.Steps) != len(events) || len(events) == 0 {
			continue // a retried step would not line up
		}
		phases.add("open the environment (browser context, page, guard)", events[0].at)
		// CDP requests, from the proxy: a step's from its start to the end of
		// its recorded duration (ms resolution, so +1 ms), the rest of the
		// time to the next step's start to the phase the gap belongs to.
		lastMethods = map[string]string{}
		var betweenMethods []string
		window := func(name string, from, to time.Duration, keep bool) []string {
			if proxy == nil || to < from {
				return nil
			}
			m := proxy.between(callStart.Add(from), callStart.Add(to))
			if keep {
				requests.addN(name, float64(len(m)))
				lastMethods[name] = methodCounts(m)
			}
			return m
		}
		window("open the environment (browser context, page, guard)", 0, events[0].at, true)
		seen := map[string]int{}
		var between time.Duration
		for j, ev := range events {
			rec := tr.Steps[j]
			seen[rec.Path]++
			name := fmt.Sprintf("step %s %s", rec.Path, stepName(ev.label))
			if seen[rec.Path] > 1 {
				name += fmt.Sprintf(" (run %d)", seen[rec.Path])
			}
			end := d
			if j+1 < len(events) {
				end = events[j+1].at
			}
			own := time.Duration(rec.DurationMS) * time.Millisecond
			if rec.Kind == "paginate" {
				own = 0 // its record holds no duration: its time is its steps' and the page turns
			} else {
				phases.add(name, own)
			}
			ownEnd := min(ev.at+own+time.Millisecond, end)
			if proxy != nil {
				window(name, ev.at, ownEnd, rec.Kind != "paginate")
			} else if n, ok := stepRequests(rec); ok {
				requests.addN(name, float64(n))
			}
			gap := end - ev.at - own
			switch {
			case j+1 == len(events):
				phases.add("after the last step: output, close the environment, trace, audit", gap)
				window("after the last step: output, close the environment, trace, audit", ownEnd, end, true)
			case seen[tr.Steps[j+1].Path] > 0 && loopsBack(rec.Path, tr.Steps[j+1].Path):
				// The next step ran before: a loop went round (paginate: check
				// next, click it, wait until the page changed).
				turn := fmt.Sprintf("paginate: next page, wait for it (before run %d of step %s)", seen[tr.Steps[j+1].Path]+1, tr.Steps[j+1].Path)
				phases.add(turn, gap)
				window(turn, ownEnd, end, true)
			default:
				between += gap
				betweenMethods = append(betweenMethods, window("", ownEnd, end, false)...)
			}
		}
		phases.add("executor between steps (sum of the gaps)", between)
		if proxy != nil {
			timeline = timeline[:0]
			reqs := proxy.timeline(callStart, callStart.Add(d))
			k := 0
			for j, ev := range events {
				for k < len(reqs) && reqs[k].AtMS < millis(ev.at) {
					timeline = append(timeline, reqs[k])
					k++
				}
				timeline = append(timeline, map[string]any{"at_ms": millis(ev.at), "step": tr.Steps[j].Path + " " + stepName(ev.label), "duration_ms": tr.Steps[j].DurationMS})
			}
			for ; k < len(reqs); k++ {
				timeline = append(timeline, reqs[k])
			}
		}
		if proxy != nil {
			requests.addN("executor between steps (sum of the gaps)", float64(len(betweenMethods)))
			lastMethods["executor between steps (sum of the gaps)"] = methodCounts(betweenMethods)
		}
	}
	cpu, tree := cpuTime()-cpu0, procstat.TreeCPU(os.Getpid())-tree0
	pprof.StopCPUProfile()
	return writeJSON(*out, map[string]any{
		"runs_ms":   ms,
		"median_ms": median(ms),
		// Each call's time spent waiting for something that did not
		// happen (the steps' idle_ms added up): 0 when nothing is waited
		// out.
		"idle_ms_per_call": idle,
		// CPU time of this (Go) process per call; Chromium's is not in it.
		"go_cpu_ms_per_call": millis(cpu) / float64(*runs),
		// CPU time of this process and its Chromium per call.
		"tree_cpu_ms_per_call": millis(tree) / float64(*runs),
		"rows":                 rowsOf(last.Data),
		"breakdown":            phases.medians(),
		"step_requests":        requests.namedMedians(),
		"step_methods":         lastMethods, // of the last run, with -count-cdp
		"cdp_counted_by":       countedBy(proxy != nil),
		"steps_note":           "engine.Call on a warm engine: store (traces, audit) on, fresh browser context per call",
		"gap_ms":               millis(*gap),
		"last_timeline":        timeline, // with -count-cdp: the last call's steps and CDP requests in time order
	})
}

// idleOf is the time tr's steps spent waiting for something that did not
// happen (StepRecord.IdleMS), in all.
func idleOf(tr *store.Trace) float64 {
	var ms int64
	for _, s := range tr.Steps {
		ms += s.IdleMS
	}
	return float64(ms)
}

func countedBy(proxy bool) string {
	if proxy {
		return "a DevTools proxy in front of the browser (browser.provider: cdp): every request sent from a step's start to the end of its recorded duration; what comes after, to the next step, goes to the phase of that gap"
	}
	return "the trace"
}

// loopsBack reports whether next, a step that ran before, comes at or
// before cur in the same list: a loop went round between them.
func loopsBack(cur, next string) bool {
	ci, ni := strings.LastIndexByte(cur, '.'), strings.LastIndexByte(next, '.')
	if ci < 0 || ni < 0 || cur[:ci] != next[:ni] {
		return false
	}
	a, _ := strconv.Atoi(cur[ci+1:])
	b, _ := strconv.Atoi(next[ni+1:])
	return b <= a
}

// stepName drops the "(#N)" of a progress label.
func stepName(label string) string {
	if i := strings.LastIndex(label, " (#"); i >= 0 {
		return label[:i]
	}
	return label
}

// phases collects durations by name, in first-seen order.
type phases struct {
	order []string
	ms    map[string][]float64
}

func newPhases() *phases { return &phases{ms: map[string][]float64{}} }

func (p *phases) add(name string, d time.Duration) {
	if _, ok := p.ms[name]; !ok {
		p.order = append(p.order, name)
	}
	p.ms[name] = append(p.ms[name], millis(d))
}

func (p *phases) addN(name string, n float64) {
	if _, ok := p.ms[name]; !ok {
		p.order = append(p.order, name)
	}
	p.ms[name] = append(p.ms[name], n)
}

type namedMedian struct {
	Name   string  `json:"name"`
	Median float64 `json:"median"`
}

func (p *phases) namedMedians() []namedMedian {
	out := make([]namedMedian, 0, len(p.order))
	for _, n := range p.order {
		out = append(out, namedMedian{n, median(p.ms[n])})
	}
	return out
}

type phase struct {
	Name     string  `json:"name"`
	MedianMS float64 `json:"median_ms"`
}

func (p *phases) medians() []phase {
	out := make([]phase, 0, len(p.order))
	for _, n := range p.order {
		out = append(out, phase{n, median(p.ms[n])})
	}
	return out
}

// cpuTime is the user+system CPU time of this process.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if path == "" {
		_, err = os.Stdout.Write(data)
		return err
	}
	return os.WriteFile(path, data, 0o644)
}
