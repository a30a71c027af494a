// Command harness holds the Go side of the toolwright benchmarks
// (examples/bench/run.sh drives it):
//
//	harness gen      -n 200 -dir DIR            write N workflows (and a config) for the cold-start bench
//	harness coldlist -bin TW -config CFG -runs N   process start → initialize → tools/list over stdio
//	harness proc     -runs N -- CMD ARGS...       time a command: to its first JSON value on stdout, and to exit
//	harness warm     -config CFG -runs N          engine.Call on a warm engine, in process
//	harness wide     -config CFG -rows 5,50,200   extract cost of a whole page, N rows × 8 fields, in process
//	harness report   -dir RESULTS               the Markdown table from the JSON files of one run
//	harness chromium                            the path of the Chromium toolwright starts here (package chromium)
//
// Every subcommand but chromium writes JSON (to -out or stdout) that report reads.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/toolwright/toolwright/engine/browser/chromium"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: harness gen|coldlist|proc|warm|wide|report|chromium [flags]")
		os.Exit(2)
	}
	cmds := map[string]func([]string) error{
		"gen": genCmd, "coldlist": coldlistCmd, "proc": procCmd, "warm": warmCmd, "wide": wideCmd, "report": reportCmd,
		"chromium": chromiumCmd,
	}
	f, ok := cmds[os.Args[1]]
	if !ok {
		fmt.Fprintf(os.Stderr, "harness: unknown subcommand %q\n", os.Args[1])
		os.Exit(2)
	}
	if err := f(os.Args[2:]); err != nil {
		fmt.Fprintf(os.Stderr, "harness %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}

// chromiumCmd prints the Chromium a headless toolwright starts when
// browser.bin is not set, so the benchmark scripts give every side (and
// toolwright, through browser.bin) the same binary.
func chromiumCmd([]string) error {
	bin, err := chromium.Find("", true)
	if err != nil {
		return err
	}
	fmt.Println(bin)
	return nil
}

func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Row is one catalog row, as toolwright's envelope and rodsearch print it.
type Row struct {
	SKU   string `json:"sku"`
	Name  string `json:"name"`
	Price string `json:"price"`
}

// rowsOf finds the catalog rows in a decoded output: a toolwright envelope
// ({"data": {"rows": {"items": [...]}}}), its data, or rodsearch's {"rows": [...]}.
func rowsOf(v any) []Row {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var probe struct {
		Data *struct {
			Rows struct {
				Items []Row `json:"items"`
			} `json:"rows"`
		} `json:"data"`
		Rows json.RawMessage `json:"rows"`
	}
	if json.Unmarshal(raw, &probe) != nil {
		return nil
	}
	if probe.Data != nil {
		return probe.Data.Rows.Items
	}
	var list []Row
	if json.Unmarshal(probe.Rows, &list) == nil {
		return list
	}
	var wrapped struct {
		Items []Row `json:"items"`
	}
	if json.Unmarshal(probe.Rows, &wrapped) == nil {
		return wrapped.Items
	}
	return nil
}
