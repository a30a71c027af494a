package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// procSpec is one command that procCmd times.
type procSpec struct {
	Name string   `json:"name"`
	Argv []string `json:"argv"`
	// JSON: the command prints one JSON value on stdout; time until it is complete.
	JSON bool `json:"json"`
	// Rows: the output must hold this many catalog rows (0: do not check).
	Rows int `json:"rows"`
}

type procResult struct {
	Name       string    `json:"name"`
	Argv       []string  `json:"argv"`
	ToOutputMS []float64 `json:"to_output_ms,omitempty"` // process start → last byte of the JSON value
	ToExitMS   []float64 `json:"to_exit_ms"`             // process start → exit
	MedianOut  float64   `json:"median_to_output_ms,omitempty"`
	MedianExit float64   `json:"median_to_exit_ms"`
	Rows       []Row     `json:"rows,omitempty"`
}

// procCmd times whole processes, round-robin over the commands of a spec
// file so that a load change on the machine hits them alike. One untimed
// warm-up run of each comes first (it fills the page cache).
//
//	harness proc -spec specs.json -runs 7 -out proc.json
func procCmd(args []string) error {
	fs := flag.NewFlagSet("proc", flag.ExitOnError)
	specFile := fs.String("spec", "", "JSON file: [{name, argv, json, rows}, ...]")
	runs := fs.Int("runs", 7, "timed runs of each command")
	out := fs.String("out", "", "write the JSON result here (default stdout)")
	_ = fs.Parse(args)
	data, err := os.ReadFile(*specFile)
	if err != nil {
		return err
	}
	var specs []procSpec
	if err := json.Unmarshal(data, &specs); err != nil {
		return fmt.Errorf("%s: %w", *specFile, err)
	}
	res := make([]*procResult, len(specs))
	for i, s := range specs {
		res[i] = &procResult{Name: s.Name, Argv: s.Argv}
	}
	for r := 0; r <= *runs; r++ {
		for i, s := range specs {
			toOut, toExit, value, err := timeProc(s)
			if err != nil {
				return fmt.Errorf("%s: %w", s.Name, err)
			}
			if s.Rows > 0 {
				rows := rowsOf(value)
				if len(rows) != s.Rows {
					return fmt.Errorf("%s: want %d rows, got %d", s.Name, s.Rows, len(rows))
				}
				res[i].Rows = rows
			}
			if r == 0 {
				continue // warm-up
			}
			if s.JSON {
				res[i].ToOutputMS = append(res[i].ToOutputMS, millis(toOut))
			}
			res[i].ToExitMS = append(res[i].ToExitMS, millis(toExit))
		}
	}
	for _, r := range res {
		r.MedianOut = median(r.ToOutputMS)
		r.MedianExit = median(r.ToExitMS)
	}
	return writeJSON(*out, res)
}

// timeProc runs one command; it must exit 0.
func timeProc(s procSpec) (toOut, toExit time.Duration, value any, err error) {
	if len(s.Argv) == 0 {
		return 0, 0, nil, errors.New("empty argv")
	}
	cmd := exec.Command(s.Argv[0], s.Argv[1:]...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, 0, nil, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, nil, err
	}
	br := bufio.NewReader(stdout)
	if s.JSON {
		dec := json.NewDecoder(br)
		if derr := dec.Decode(&value); derr != nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			return 0, 0, nil, fmt.Errorf("reading its JSON output: %v (stderr: %s)", derr, tail(stderr.String()))
		}
		toOut = time.Since(start)
		_, _ = io.Copy(io.Discard, io.MultiReader(dec.Buffered(), br))
	} else {
		_, _ = io.Copy(io.Discard, br)
	}
	werr := cmd.Wait()
	toExit = time.Since(start)
	if werr != nil {
		return 0, 0, nil, fmt.Errorf("%v (stderr: %s)", werr, tail(stderr.String()))
	}
	return toOut, toExit, value, nil
}

func tail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 2000 {
		s = "..." + s[len(s)-2000:]
	}
	return s
}
