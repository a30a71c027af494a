package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// reportCmd prints the Markdown report of one run of examples/bench/run.sh
// from the JSON files it left in -dir.
func reportCmd(args []string) error {
	fl := flag.NewFlagSet("report", flag.ExitOnError)
	dir := fl.String("dir", "", "the results folder of one run")
	_ = fl.Parse(args)

	var machine struct {
		Date      string `json:"date"`
		LoadStart string `json:"load_start"`
		Chromium  string `json:"chromium"`
		Node      string `json:"node"`
		Go        string `json:"go"`
		PWMCP     string `json:"playwright_mcp"`
		Runs      int    `json:"runs"`
		Command   string `json:"command"`
		Commit    string `json:"commit"`
		Uptime    string `json:"uptime_start"`
	}
	if err := readJSON(*dir, "machine.json", &machine); err != nil {
		return err
	}
	var cmp compareResult
	haveCmp := readJSON(*dir, "compare.json", &cmp) == nil
	var procs []procResult
	haveProc := readJSON(*dir, "proc.json", &procs) == nil && len(procs) == 2
	var warm warmResult
	haveWarm := readJSON(*dir, "warm.json", &warm) == nil
	var rodWarm struct {
		RunsMS  []float64 `json:"runs_ms"`
		TreeCPU float64   `json:"tree_cpu_ms_per_run"`
	}
	haveRodWarm := readJSON(*dir, "rodwarm.json", &rodWarm) == nil
	var rodDefault struct {
		RunsMS []float64 `json:"runs_ms"`
	}
	haveRodDefault := readJSON(*dir, "rodwarm-default-sleeper.json", &rodDefault) == nil
	var cold struct {
		Init  []float64 `json:"to_initialize_ms"`
		List  []float64 `json:"to_tools_list_ms"`
		Tools int       `json:"tools"`
		Brw   bool      `json:"browser_launched"`
	}
	haveCold := readJSON(*dir, "cold.json", &cold) == nil
	var validate []procResult
	haveValidate := readJSON(*dir, "validate.json", &validate) == nil && len(validate) == 1

	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	p := func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }

	p("## Machine")
	p("")
	p("| | |")
	p("|---|---|")
	p("| date | %s |", machine.Date)
	p("| nproc | %d |", runtime.NumCPU())
	p("| CPU | %s |", cpuModel())
	p("| memory | %s |", memTotal())
	p("| Chromium | %s |", machine.Chromium)
	p("| Go / Node / Playwright MCP | %s / %s / %s |", machine.Go, machine.Node, machine.PWMCP)
	p("| load average (1/5/15 min) at start → end | %s → %s |", machine.LoadStart, loadAvg())
	p("| `uptime` at start | %s |", machine.Uptime)
	p("| commit | %s |", machine.Commit)
	p("| command | `%s` |", machine.Command)
	p("")

	var cmpp *compareResult
	if haveCmp {
		cmpp = &cmp
	}
	var warmp *warmResult
	if haveWarm {
		warmp = &warm
	}
	reportFloor(p, *dir, cmpp, warmp)

	if haveCmp {
		tw, kept, pw, lean := cmp.Action["toolwright"], cmp.Action["toolwright_kept"], cmp.Action["playwright"], cmp.Action["playwright_lean"]
		p("## (a) One business action over MCP: sign in, search \"%s\", read %d result pages", cmp.Query, cmp.Pages)
		p("")
		gap := "back to back"
		if cmp.GapMS > 0 {
			gap = fmt.Sprintf("each after a %d ms pause (an agent's thinking time) and once no server's processes are busy (so no run pays for the background work of the one before it: a temporary environment's disposal and the spare's refill, a peer's Chromium)", cmp.GapMS)
		}
		p("Medians of %d runs each, runs alternating, %s. Both servers are warm (started once; one untimed run launched their browser), so **browser launch is not included** on either side. toolwright's `search_catalog` (`env: temporary`) opens and closes a fresh browser context for every call; Playwright MCP (`--isolated`) keeps one context for the session, and so does the *kept environment* column (`search_catalog_given`, `env: given`, in an environment opened once by `search_catalog_open`). Wall time is the client's, from the first tool call sent to the last result received; an agent's own thinking time between calls is not in it. Ratios are toolwright (`search_catalog`) ÷ the Playwright MCP column to their left.", cmp.Runs, gap)
		p("")
		p("| | toolwright: `search_catalog` | toolwright, kept environment | Playwright MCP: agent, one call per step | ratio | target | Playwright MCP: lean agent | ratio |")
		p("|---|---:|---:|---:|---:|---|---:|---:|")
		type col func(actionSummary) float64
		row := func(name string, f col, format, ratioFormat, target string, inverse bool) {
			ratio := func(other actionSummary) string {
				if other.Calls == 0 {
					return "—"
				}
				if inverse {
					return fmt.Sprintf(ratioFormat, f(other))
				}
				return fmt.Sprintf(ratioFormat, f(tw)/f(other))
			}
			p("| %s | %s | %s | %s | %s | %s | %s | %s |", name, num(tw, f, format), num(kept, f, format), num(pw, f, format), ratio(pw), target, num(lean, f, format), ratio(lean))
		}
		row("tool calls", func(s actionSummary) float64 { return s.Calls }, "%.0f", "1/%.0f", "1 vs ≥10", true)
		row("bytes returned to the agent (tool-result content)", func(s actionSummary) float64 { return s.Bytes }, "%.0f", "%.2f", "≤ 0.20", false)
		row("bytes of the whole results (with structuredContent)", func(s actionSummary) float64 { return s.ResultBytes }, "%.0f", "%.2f", "", false)
		row("wall time, median (ms)", func(s actionSummary) float64 { return s.MedianMS }, "%.0f", "%.2f", "≤ 0.60", false)
		row("CPU time of the server and its Chromium, median (s)", func(s actionSummary) float64 { return s.CPU }, "%.2f", "%.2f", "", false)
		same := func(s actionSummary) string {
			if s.Calls == 0 {
				return "—"
			}
			return yes(cmp.SameRows)
		}
		p("| same %d rows on every run | %s | %s | %s | | | %s | |", len(cmp.Rows), same(tw), same(kept), same(pw), same(lean))
		p("")
		if pw0 := cmp.Action["playwright_settle0"]; pw0.Calls > 0 {
			p("Playwright MCP waits after every action for the work it triggered to settle, up to 500 ms by default (`--timeout-settle`); that is most of its clicks' and key presses' time below. The same scripted agent on a second Playwright MCP started with `--timeout-settle 0` (the agent's own `browser_wait_for` calls still wait for the results):")
			p("")
			p("| | toolwright: `search_catalog` | toolwright, kept environment | Playwright MCP, default | Playwright MCP, `--timeout-settle 0` |")
			p("|---|---:|---:|---:|---:|")
			p("| wall time, median (ms) | %.0f | %.0f | %.0f | %.0f |", tw.MedianMS, kept.MedianMS, pw.MedianMS, pw0.MedianMS)
			p("| ratio to `--timeout-settle 0` | %.2f | %s | %.2f | 1 |", tw.MedianMS/pw0.MedianMS, num(kept, func(s actionSummary) float64 { return s.MedianMS / pw0.MedianMS }, "%.2f"), pw.MedianMS/pw0.MedianMS)
			p("| CPU time of the server and its Chromium, median (s) | %.2f | %s | %.2f | %.2f |", tw.CPU, num(kept, func(s actionSummary) float64 { return s.CPU }, "%.2f"), pw.CPU, pw0.CPU)
			p("| tool calls / bytes | %.0f / %.0f | %s / %s | %.0f / %.0f | %.0f / %.0f |", tw.Calls, tw.Bytes, num(kept, func(s actionSummary) float64 { return s.Calls }, "%.0f"), num(kept, func(s actionSummary) float64 { return s.Bytes }, "%.0f"), pw.Calls, pw.Bytes, pw0.Calls, pw0.Bytes)
			p("")
			p("Runs (ms), `--timeout-settle 0`: %v. Per call (last run): %s.", ints(pw0.RunsMS), stepList(pw0.Steps))
			p("")
		}
		p("First call (launches the browser): toolwright %.0f ms, Playwright MCP agent run %.0f ms.", cmp.TWFirst, cmp.PWFirst)
		p("")
		p("Runs (ms): toolwright %v; kept environment %v; Playwright MCP %v; lean %v.", ints(tw.RunsMS), ints(kept.RunsMS), ints(pw.RunsMS), ints(lean.RunsMS))
		p("")
		p("Playwright MCP agent, per call (last run): %s.", stepList(pw.Steps))
		p("")
		if len(lean.Steps) > 0 {
			p("Lean agent, per call (last run): %s.", stepList(lean.Steps))
			p("")
		}
	}

	if haveProc || haveWarm {
		p("## (b) toolwright against a hand-written go-rod program")
		p("")
		p("| | toolwright | hand-written rod | ratio | target |")
		p("|---|---:|---:|---:|---|")
		if haveProc {
			tw, rd := procs[0], procs[1]
			p("| process start → envelope printed, median of %d (includes Chromium launch) | %.0f ms | %.0f ms | %.2f | ≤ 1.2 |", len(tw.ToOutputMS), tw.MedianOut, rd.MedianOut, tw.MedianOut/rd.MedianOut)
			p("| process start → process exit (browser shut down too) | %.0f ms | %.0f ms | %.2f | |", tw.MedianExit, rd.MedianExit, tw.MedianExit/rd.MedianExit)
		}
		if haveWarm && haveRodWarm {
			tm, rm := median(warm.RunsMS), median(rodWarm.RunsMS)
			p("| in process, warm browser: `engine.Call` vs the same rod code, median of %d | %.0f ms | %.0f ms | %.2f | |", len(warm.RunsMS), tm, rm, tm/rm)
			if haveRodDefault {
				dm := median(rodDefault.RunsMS)
				p("| the same, rod left with its default backoff sleeper | %.0f ms | %.0f ms | %.2f | |", tm, dm, tm/dm)
			}
		}
		p("")
		if haveProc {
			p("The rod program (internal/rodref) fills fields the way toolwright's fill step does (value cleared, one `Input.insertText`, input and change events) and re-checks a missing element every 100 ms and the page change after Next every 50 ms; rod's default sleeper backs off to 200, 400, 800 ms and 1 s (last row).")
			p("")
			p("Commands: `%s` and `%s`. Runs alternate; one untimed run of each first.", strings.Join(short(procs[0].Argv), " "), strings.Join(short(procs[1].Argv), " "))
			p("")
			p("Runs to envelope (ms): toolwright %v; rod %v.", ints(procs[0].ToOutputMS), ints(procs[1].ToOutputMS))
			p("")
		}
		if haveWarm && haveRodWarm {
			p("Warm runs (ms): engine.Call %v; rod %v. CPU per action, the process and its Chromium: toolwright %.0f ms (of which Go %.0f ms), rod %.0f ms.", ints(warm.RunsMS), ints(rodWarm.RunsMS), warm.TreeCPU, warm.CPU, rodWarm.TreeCPU)
			p("")
		}
		if haveWarm && len(warm.Breakdown) > 0 {
			p("Where a warm `engine.Call` of search_catalog spends its time (medians over the runs; step times from the trace, placed on the progress timeline):")
			p("")
			p("| phase | ms |")
			p("|---|---:|")
			total := 0.0
			for _, ph := range warm.Breakdown {
				p("| %s | %.0f |", ph.Name, ph.MedianMS)
				total += ph.MedianMS
			}
			p("| sum of the medians (call median: %.0f) | %.0f |", median(warm.RunsMS), total)
			p("")
		}
	}

	if haveCold || haveValidate {
		p("## (c) Cold start and validate with 200 workflows")
		p("")
		p("| | median | target |")
		p("|---|---:|---|")
		if haveCold {
			p("| `toolwright serve` (stdio): process start → initialize answered | %.0f ms | |", median(cold.Init))
			p("| `toolwright serve` (stdio): process start → tools/list answered (%d tools; browser launched: %s) | %.0f ms | ≤ 150 ms |", cold.Tools, yesNo(cold.Brw), median(cold.List))
		}
		if haveValidate {
			p("| `toolwright validate` on 200 workflows: process start → exit | %.0f ms | ≤ 300 ms |", validate[0].MedianExit)
		}
		p("")
		if haveCold {
			p("tools/list runs (ms): %v. One untimed start first (it creates the state store); the timed ones are restarts.", ints(cold.List))
			p("")
		}
	}

	if haveCmp && (cmp.Throughput != nil || cmp.Memory != nil || cmp.ThroughputErr != "" || cmp.MemoryErr != "") {
		p("## (d) Throughput and memory (toolwright serve, one MCP session)")
		p("")
		if cmp.ThroughputErr != "" {
			p("The throughput run failed on this machine at this load: %s", cmp.ThroughputErr)
			p("")
		}
		if cmp.MemoryErr != "" {
			p("The memory run failed: %s", cmp.MemoryErr)
			p("")
		}
		if t := cmp.Throughput; t != nil {
			p("| %d × search_catalog | total, median of %d rounds | per call | calls/s | CPU per call (server + Chromium) |", t.Calls, t.Rounds)
			p("|---|---:|---:|---:|---:|")
			p("| one at a time | %.0f ms | %.0f ms | %.2f | %.2f s |", t.MedSeq, t.MedSeq/float64(t.Calls), float64(t.Calls)/t.MedSeq*1000, t.CPUSeq)
			p("| all in parallel (%d environments at once) | %.0f ms | %.0f ms | %.2f | %.2f s |", t.Calls, t.MedPar, t.MedPar/float64(t.Calls), float64(t.Calls)/t.MedPar*1000, t.CPUPar)
			p("")
			p("Speed-up of parallel over sequential: %.2f× on %d cores. Rounds (ms): sequential %v, parallel %v.", t.MedSeq/t.MedPar, runtime.NumCPU(), ints(t.Seq), ints(t.Par))
			p("")
		}
		if m := cmp.Memory; m != nil {
			p("| Chromium processes of the server | RSS | PSS | processes |")
			p("|---|---:|---:|---:|")
			p("| browser up, 0 environments | %.0f MB | %.0f MB | %.0f |", m.Env0.RSS, m.Env0.PSS, m.Env0.N)
			p("| 1 open environment (signed in, 3 result pages read) | %.0f MB | %.0f MB | %.0f |", m.Env1.RSS, m.Env1.PSS, m.Env1.N)
			p("| 8 open environments | %.0f MB | %.0f MB | %.0f |", m.Env8.RSS, m.Env8.PSS, m.Env8.N)
			p("| **per environment**: (8 − 1) / 7 | **%.0f MB** | **%.0f MB** | |", m.MarginalRSS, m.MarginalPSS)
			p("| per environment: total at 8 / 8 | %.0f MB | %.0f MB | |", m.TotalRSS, m.TotalPSS)
			p("")
			p("RSS counts pages shared between Chromium's processes once per process, so it overstates; PSS splits shared pages among the processes that map them.")
			p("")
		}
	}

	for _, gb := range []struct{ file, title string }{
		{"gobench.txt", "Go benchmarks (engine/run/bench_test.go)"},
		{"gobench-selector.txt", "Go benchmarks of the selector engine (engine/selector/bench_test.go: resolve cost; extract cost at 5/50/200 rows × 8 fields against one evaluate)"},
	} {
		data, err := os.ReadFile(filepath.Join(*dir, gb.file))
		if err != nil {
			continue
		}
		p("## %s", gb.title)
		p("")
		p("```")
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			if strings.HasPrefix(line, "Benchmark") || strings.HasPrefix(line, "cpu:") || strings.HasPrefix(line, "ok") || strings.HasPrefix(line, "PASS") {
				p("%s", line)
			}
		}
		p("```")
		p("")
	}
	if data, err := os.ReadFile(filepath.Join(*dir, "requests-per-action.txt")); err == nil {
		p("## CDP requests per action (engine/selector TestRequestsPerAction)")
		p("")
		p("```")
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "=== RUN") {
				p("%s", line)
			}
		}
		p("```")
		p("")
	}
	return nil
}

// warmResult is what `harness warm` writes.
type warmResult struct {
	RunsMS       []float64 `json:"runs_ms"`
	IdleMS       []float64 `json:"idle_ms_per_call"`
	CPU          float64   `json:"go_cpu_ms_per_call"`
	TreeCPU      float64   `json:"tree_cpu_ms_per_call"`
	Breakdown    []phase   `json:"breakdown"`
	StepRequests []struct {
		Name   string  `json:"name"`
		Median float64 `json:"median"`
	} `json:"step_requests"`
	StepMethods map[string]string `json:"step_methods"`
	CountedBy   string            `json:"cdp_counted_by"`
}

type actionSummary struct {
	Calls       float64   `json:"calls"`
	Bytes       float64   `json:"bytes"`
	ResultBytes float64   `json:"result_bytes"`
	MedianMS    float64   `json:"median_ms"`
	CPU         float64   `json:"median_cpu_s"`
	RunsMS      []float64 `json:"runs_ms"`
	Steps       []struct {
		Tool  string  `json:"tool"`
		MS    float64 `json:"ms"`
		Bytes int     `json:"bytes"`
	} `json:"steps"`
}

type memSample struct {
	RSS float64 `json:"rss_mb"`
	PSS float64 `json:"pss_mb"`
	N   float64 `json:"processes"`
}

type compareResult struct {
	Runs     int                      `json:"runs"`
	GapMS    int                      `json:"gap_ms"`
	Query    string                   `json:"query"`
	Pages    int                      `json:"pages"`
	TWFirst  float64                  `json:"toolwright_first_call_ms"`
	PWFirst  float64                  `json:"playwright_first_run_ms"`
	SameRows bool                     `json:"same_rows"`
	Rows     []Row                    `json:"rows"`
	Action   map[string]actionSummary `json:"action"`
	// (e) the wide page: row count → server → bytes
	Wide       map[string]map[string]wideBytes `json:"wide"`
	CDTVersion string                          `json:"chrome_devtools_mcp"`
	CDTError   string                          `json:"chrome_devtools_error"`
	// (d) failures, when the machine was too loaded
	ThroughputErr string `json:"throughput_error"`
	MemoryErr     string `json:"memory_error"`
	// (d)
	Throughput *struct {
		Calls  int       `json:"calls"`
		Rounds int       `json:"rounds"`
		Seq    []float64 `json:"sequential_ms"`
		Par    []float64 `json:"parallel_ms"`
		MedSeq float64   `json:"median_sequential_ms"`
		MedPar float64   `json:"median_parallel_ms"`
		CPUSeq float64   `json:"cpu_s_per_call_sequential"`
		CPUPar float64   `json:"cpu_s_per_call_parallel"`
	} `json:"throughput"`
	Memory *struct {
		Env0        memSample `json:"env0"`
		Env1        memSample `json:"env1"`
		Env8        memSample `json:"env8"`
		MarginalRSS float64   `json:"per_env_marginal_rss_mb"`
		MarginalPSS float64   `json:"per_env_marginal_pss_mb"`
		TotalRSS    float64   `json:"per_env_total_rss_mb"`
		TotalPSS    float64   `json:"per_env_total_pss_mb"`
	} `json:"memory"`
}

func readJSON(dir, name string, v any) error {
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

func num(s actionSummary, f func(actionSummary) float64, format string) string {
	if s.Calls == 0 {
		return "—"
	}
	return fmt.Sprintf(format, f(s))
}

func stepList(steps []struct {
	Tool  string  `json:"tool"`
	MS    float64 `json:"ms"`
	Bytes int     `json:"bytes"`
}) string {
	var parts []string
	for _, s := range steps {
		parts = append(parts, fmt.Sprintf("%s %.0f ms %d B", strings.TrimPrefix(s.Tool, "browser_"), s.MS, s.Bytes))
	}
	return strings.Join(parts, "; ")
}

func ints(xs []float64) string {
	var parts []string
	for _, x := range xs {
		parts = append(parts, fmt.Sprintf("%.0f", x))
	}
	return strings.Join(parts, ", ")
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "NO"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// short drops the folders of the binary names in argv, for the report.
func short(argv []string) []string {
	out := append([]string(nil), argv...)
	if len(out) > 0 {
		out[0] = filepath.Base(out[0])
	}
	for i, a := range out {
		if strings.HasPrefix(a, "/") && (strings.HasSuffix(a, ".yaml")) {
			out[i] = "CONFIG"
		}
	}
	return out
}

func cpuModel() string {
	data, _ := os.ReadFile("/proc/cpuinfo")
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

func memTotal() string {
	data, _ := os.ReadFile("/proc/meminfo")
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "MemTotal:") {
			var kb int
			fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(line, "MemTotal:")), "%d", &kb)
			return fmt.Sprintf("%.1f GiB", float64(kb)/1024/1024)
		}
	}
	return "?"
}

func loadAvg() string {
	data, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
