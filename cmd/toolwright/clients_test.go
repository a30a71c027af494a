package main

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// The client configs in examples/clients are valid JSON, and every server
// they start is a toolwright command line that parses to `serve`.
func TestClientConfigs(t *testing.T) {
	files, _ := filepath.Glob(repoPath(t, "examples", "clients", "*.json"))
	if len(files) < 4 {
		t.Fatalf("%d client configs", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		cliMust(t, err)
		var cfg struct {
			MCPServers map[string]struct {
				Command string
				Args    []string
				URL     string
			} `json:"mcpServers"`
			Servers map[string]struct {
				Command string
				Args    []string
				URL     string
			} `json:"servers"`
		}
		if err := json.Unmarshal(b, &cfg); err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		servers := cfg.MCPServers
		if servers == nil {
			servers = cfg.Servers
		}
		if len(servers) == 0 {
			t.Errorf("%s: no servers", f)
		}
		for name, s := range servers {
			if s.Command == "" {
				if s.URL == "" {
					t.Errorf("%s %s: neither command nor url", f, name)
				}
				continue
			}
			root := newRoot(io.Discard, io.Discard)
			cmd, rest, err := root.Find(s.Args)
			if err != nil || cmd.Name() != "serve" || s.Command != "toolwright" {
				t.Errorf("%s %s: %s %v does not run serve (%v)", f, name, s.Command, s.Args, err)
				continue
			}
			if err := cmd.ParseFlags(rest); err != nil {
				t.Errorf("%s %s: flags %v: %v", f, name, rest, err)
			}
		}
	}
}
