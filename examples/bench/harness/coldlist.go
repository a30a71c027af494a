package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// coldlistCmd times a cold `toolwright serve` over stdio: process start →
// initialize → notifications/initialized → tools/list answered (all pages),
// and checks that no browser was launched for it. One untimed start comes
// first (it creates the state store and fills the page cache), so the timed
// starts are restarts of a server on a machine that has run it before.
//
//	harness coldlist -bin toolwright -config DIR/toolwright.yaml -runs 10
func coldlistCmd(args []string) error {
	fl := flag.NewFlagSet("coldlist", flag.ExitOnError)
	bin := fl.String("bin", "toolwright", "the toolwright binary")
	cfg := fl.String("config", "", "config serving the workflows")
	runs := fl.Int("runs", 10, "timed starts")
	out := fl.String("out", "", "write the JSON result here (default stdout)")
	_ = fl.Parse(args)

	var initMS, listMS []float64
	tools := 0
	launched := false
	for r := 0; r <= *runs; r++ {
		res, err := coldStart(*bin, *cfg)
		if err != nil {
			return err
		}
		if r == 0 {
			continue
		}
		initMS = append(initMS, res.initMS)
		listMS = append(listMS, res.listMS)
		tools = res.tools
		launched = launched || res.browser
	}
	if launched {
		return fmt.Errorf("serve launched a browser before any tool call")
	}
	return writeJSON(*out, map[string]any{
		"to_initialize_ms":        initMS,
		"to_tools_list_ms":        listMS,
		"median_to_initialize_ms": median(initMS),
		"median_to_tools_list_ms": median(listMS),
		"tools":                   tools,
		"browser_launched":        launched,
	})
}

type coldResult struct {
	initMS, listMS float64
	tools          int
	browser        bool
}

func coldStart(bin, cfg string) (*coldResult, error) {
	cmd := exec.Command(bin, "--config", cfg, "--log-level", "warn", "serve")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer func() {
		_ = stdin.Close() // EOF on stdin ends the server
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}()
	rd := bufio.NewReader(stdout)
	send := func(v any) error {
		b, _ := json.Marshal(v)
		_, err := stdin.Write(append(b, '\n'))
		return err
	}
	recv := func(id int) (json.RawMessage, error) {
		for {
			line, err := rd.ReadBytes('\n')
			if err != nil {
				if err == io.EOF {
					err = fmt.Errorf("server closed stdout (stderr: %s)", tail(stderr.String()))
				}
				return nil, err
			}
			var msg struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(line, &msg) != nil || msg.ID == nil || *msg.ID != id {
				continue // a notification or a log line
			}
			if msg.Error != nil {
				return nil, fmt.Errorf("request %d: %s", id, msg.Error)
			}
			return msg.Result, nil
		}
	}
	res := &coldResult{}
	if err := send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "toolwright-bench", "version": "0"},
	}}); err != nil {
		return nil, err
	}
	if _, err := recv(1); err != nil {
		return nil, err
	}
	res.initMS = millis(time.Since(start))
	if err := send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); err != nil {
		return nil, err
	}
	cursor := ""
	for id := 2; ; id++ {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		if err := send(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": params}); err != nil {
			return nil, err
		}
		raw, err := recv(id)
		if err != nil {
			return nil, err
		}
		var page struct {
			Tools      []json.RawMessage `json:"tools"`
			NextCursor string            `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &page); err != nil {
			return nil, err
		}
		res.tools += len(page.Tools)
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	res.listMS = millis(time.Since(start))
	res.browser = hasChromiumChild(cmd.Process.Pid) || hasProfile(cfg)
	return res, nil
}

// hasChromiumChild reports a chromium process among pid's children.
func hasChromiumChild(pid int) bool {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(s[i+1:])
		if len(fields) < 2 {
			continue
		}
		if ppid, _ := strconv.Atoi(fields[1]); ppid == pid && p != pid {
			comm := s[strings.IndexByte(s, '(')+1 : i]
			if strings.Contains(comm, "chrom") {
				return true
			}
		}
	}
	return false
}

// hasProfile reports a Chromium profile under the config's state_dir/tmp
// (the local provider makes one when it launches the browser).
func hasProfile(cfg string) bool {
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(cfg), "state", "tmp", "toolwright-chromium-*"))
	return len(matches) > 0
}
