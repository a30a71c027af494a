// Command rodsearch is the hand-written go-rod program the benchmarks hold
// toolwright against: the steps of examples/demo/workflows/search_catalog.yaml
// on the Acme demo site — sign in, search, read up to N result pages — with
// plain rod calls (internal/rodref), on the system Chromium launched with the
// flags engine/browser uses.
//
//	ACME_USER=... ACME_PASSWORD=... rodsearch -base http://127.0.0.1:PORT [-query ACM] [-pages 3]
//
// It prints {"rows": [...], "count": N} on stdout. With -warm N it launches
// the browser once, runs the search N+1 times (the first is a warm-up) and
// prints {"runs_ms": [...], "cdp_requests": [...], "rows": [...], ...}: each
// run in a fresh browser context (like toolwright's env: temporary), or with
// -kept in one page kept across runs (like env: given).
//
// -fill toolwright (the default) fills a field the way toolwright's fill
// step does: value cleared, the text inserted in one Input.insertText, input
// and change fired. -fill rod is idiomatic rod: SelectAllText, then Input
// (which first waits for the field to keep its shape over two animation
// frames). The report labels which one it ran.
//
// Waiting: by default (-sleeper toolwright) rod re-checks a missing element
// every 100 ms and the page change after Next every 50 ms, the intervals
// toolwright's selector engine and paginate used to poll at. -sleeper rod
// keeps rod's default backoff (200 ms, 400 ms, 800 ms, then 1 s), which is
// what rod code gets without tuning.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/toolwright/toolwright/examples/bench/internal/procstat"
	"github.com/toolwright/toolwright/internal/rodref"
)

func main() {
	base := flag.String("base", "", "the Acme site's base URL, e.g. http://127.0.0.1:8000")
	query := flag.String("query", "", "search words")
	pages := flag.Int("pages", 3, "result pages to read")
	warm := flag.Int("warm", 0, "launch once, then time this many searches on the warm browser")
	kept := flag.Bool("kept", false, "with -warm: run every search in one page kept across runs (like env: given)")
	bin := flag.String("bin", "", "Chromium binary (default: looked up on PATH like toolwright does)")
	sleeper := flag.String("sleeper", "toolwright", "how waits re-check: toolwright (100 ms, 50 ms for the page change) or rod (rod's default backoff)")
	fill := flag.String("fill", string(rodref.FillToolwright), "how fields are filled: toolwright (value cleared, insertText, input+change) or rod (SelectAllText + Input)")
	flag.Parse()
	o := rodref.Options{Query: *query, Pages: *pages, Fill: rodref.Fill(*fill)}
	switch *sleeper {
	case "toolwright":
	case "rod":
		o.ElementPoll, o.ChangePoll = rod.DefaultSleeper, rod.DefaultSleeper
	default:
		fmt.Fprintln(os.Stderr, "rodsearch: -sleeper is toolwright or rod")
		os.Exit(2)
	}
	if o.Fill != rodref.FillToolwright && o.Fill != rodref.FillRod {
		fmt.Fprintln(os.Stderr, "rodsearch: -fill is toolwright or rod")
		os.Exit(2)
	}
	o.Base, o.User, o.Password = *base, os.Getenv("ACME_USER"), os.Getenv("ACME_PASSWORD")
	if o.Base == "" || o.User == "" || o.Password == "" {
		fmt.Fprintln(os.Stderr, "rodsearch: need -base and the ACME_USER and ACME_PASSWORD environment variables")
		os.Exit(2)
	}
	if os.Getenv("RODSEARCH_VERBOSE") != "" {
		last := time.Now()
		o.Step = func(name string) {
			fmt.Fprintf(os.Stderr, "%6.1fms  then %s\n", float64(time.Since(last).Microseconds())/1000, name)
			last = time.Now()
		}
	}
	if err := run(*bin, o, *warm, *kept, *sleeper); err != nil {
		fmt.Fprintln(os.Stderr, "rodsearch:", err)
		os.Exit(1)
	}
}

func run(bin string, o rodref.Options, warm int, kept bool, sleeper string) error {
	var n rodref.Counter
	b, stop, err := rodref.Start(bin, &n)
	if err != nil {
		return err
	}
	defer stop()
	ctx := context.Background()
	if warm <= 0 {
		rows, err := rodref.Search(ctx, b, o)
		if err != nil {
			return err
		}
		return json.NewEncoder(os.Stdout).Encode(map[string]any{"rows": rows, "count": len(rows)})
	}
	if kept {
		inc, err := b.Incognito()
		if err != nil {
			return err
		}
		if o.Page, err = inc.Page(proto.TargetCreateTarget{}); err != nil {
			return err
		}
	}
	var rows []rodref.Row
	var runs []float64
	var reqs []int
	var cpu0 time.Duration
	for i := 0; i <= warm; i++ {
		if i == 1 {
			cpu0 = procstat.TreeCPU(os.Getpid())
		}
		n.Reset()
		start := time.Now()
		rows, err = rodref.Search(ctx, b, o)
		if err != nil {
			return err
		}
		if i > 0 { // run 0 is the warm-up
			runs = append(runs, float64(time.Since(start).Microseconds())/1000)
			reqs = append(reqs, n.Total())
		}
	}
	cpu := procstat.TreeCPU(os.Getpid()) - cpu0
	return json.NewEncoder(os.Stdout).Encode(map[string]any{
		"runs_ms": runs, "cdp_requests": reqs, "cdp_by_method": n.ByMethod(),
		"rows": rows, "count": len(rows), "fill": o.Fill, "sleeper": sleeper, "kept": kept,
		"tree_cpu_ms_per_run": float64(cpu.Microseconds()) / 1000 / float64(warm)})
}
