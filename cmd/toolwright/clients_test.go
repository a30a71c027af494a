package main

import (
	"encoding/json"
	"fmt"
	"github.com/toolwright/toolwright/engine/config"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The client configs in examples/clients are valid JSON, and every server
// they start is a toolwright command line that parses to `serve`.
func TestClientConfigs(t *testing.T) {
	t.Parallel()
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

// TestClientsCommand: `toolwright clients X` prints a config that starts
// this very binary with this project's config, by absolute paths, and that
// parses to serve; an unknown client is a usage error. (The shipped configs
// above name `toolwright` and a placeholder path, which run literally
// exits 2.)
func TestClientsCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "toolwright.yaml")
	cliMust(t, os.WriteFile(cfgPath, []byte("workflows: ./workflows\n"), 0o644))
	self, _ := os.Executable()
	self, _ = filepath.EvalSymlinks(self)
	for _, client := range clientNames {
		c := &cliSetup{cfg: cfgPath}
		stdout, stderr := c.mustCLI(t, 0, "clients", client)
		var cfg struct {
			MCPServers map[string]struct {
				Command string
				Args    []string
			} `json:"mcpServers"`
			Servers map[string]struct {
				Command string
				Args    []string
			} `json:"servers"`
		}
		if err := json.Unmarshal([]byte(stdout), &cfg); err != nil {
			t.Fatalf("%s: %v\n%s", client, err, stdout)
		}
		servers := cfg.MCPServers
		if client == "vscode" {
			servers = cfg.Servers
		}
		s, ok := servers["toolwright"]
		if !ok || s.Command != self {
			t.Errorf("%s: command %q, want this binary %q", client, s.Command, self)
		}
		if len(s.Args) != 3 || s.Args[0] != "--config" || s.Args[1] != cfgPath || s.Args[2] != "serve" {
			t.Errorf("%s: args %v, want [--config %s serve]", client, s.Args, cfgPath)
		}
		root := newRoot(io.Discard, io.Discard)
		if cmd, _, err := root.Find(s.Args); err != nil || cmd.Name() != "serve" {
			t.Errorf("%s: %v does not run serve", client, s.Args)
		}
		if !strings.Contains(stderr, ".json") {
			t.Errorf("%s: stderr does not say where the config goes: %q", client, stderr)
		}
	}
	c := &cliSetup{cfg: cfgPath}
	if _, _, code := c.cli(t, "clients", "emacs"); code != exitUsage {
		t.Errorf("unknown client: exit %d, want %d", code, exitUsage)
	}
}

// TestLogDurationsInMillis: durations in logs are whole milliseconds with
// the unit in the key, in JSON and in text. Failed before: "took":8480000000
// and took=8.48s.
func TestLogDurationsInMillis(t *testing.T) {
	t.Parallel()
	for format, want := range map[string]string{"json": `"took_ms":8480`, "text": "took_ms=8480"} {
		var b strings.Builder
		g := &globals{logLevel: "info", logFormat: format}
		root := newRoot(io.Discard, &b)
		log, err := g.logger(root, nil)
		cliMust(t, err)
		log.Info("browser started", "took", 8480*time.Millisecond, "wait_ms", 3*time.Millisecond)
		if !strings.Contains(b.String(), want) || strings.Contains(b.String(), "8.48") || strings.Contains(b.String(), "wait_ms_ms") {
			t.Errorf("%s: %s, want %s", format, b.String(), want)
		}
	}
}

// TestClientsPrintEnv: `toolwright clients X` prints an env block naming
// every variable the config reads — its secrets' {env: NAME} and the
// audit.key it names; not a secret read from a file — each as that
// client's reference to it (Claude Code ${VAR}, Cursor ${env:VAR}, VS Code
// ${input:VAR} with a hidden prompt, Claude Desktop ""), never a value, and
// says on stderr to fill them in. Before (issue 48): no env block, so the
// pasted config failed with config_error until every variable was added by
// hand.
func TestClientsPrintEnv(t *testing.T) {
	t.Setenv("TW_CL_USER", "value-Osprey-4471")
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "toolwright.yaml")
	cliMust(t, os.WriteFile(filepath.Join(dir, "pass"), []byte("file-Value-9931\n"), 0o600))
	cliMust(t, os.WriteFile(cfgPath, []byte(`workflows: ./workflows
secrets:
  acme_user: {env: TW_CL_USER}
  acme_password: {env: TW_CL_PASS}
  acme_token: {file: ./pass}
audit:
  key: {env: TW_CL_AUDIT}
`), 0o644))
	want := map[string]func(string) string{
		"claude-desktop": func(string) string { return "" },
		"claude-code":    func(v string) string { return "${" + v + "}" },
		"cursor":         func(v string) string { return "${env:" + v + "}" },
		"vscode":         func(v string) string { return "${input:" + v + "}" },
	}
	for _, client := range clientNames {
		c := &cliSetup{cfg: cfgPath}
		stdout, stderr := c.mustCLI(t, 0, "clients", client)
		var cfg struct {
			MCPServers map[string]struct{ Env map[string]string } `json:"mcpServers"`
			Servers    map[string]struct{ Env map[string]string } `json:"servers"`
			Inputs     []struct {
				ID       string `json:"id"`
				Password bool   `json:"password"`
			} `json:"inputs"`
		}
		cliMust(t, json.Unmarshal([]byte(stdout), &cfg))
		s := cfg.MCPServers["toolwright"]
		if client == "vscode" {
			s = cfg.Servers["toolwright"]
		}
		wantEnv := map[string]string{}
		for _, v := range []string{"TW_CL_USER", "TW_CL_PASS", "TW_CL_AUDIT"} {
			wantEnv[v] = want[client](v)
		}
		if fmt.Sprint(s.Env) != fmt.Sprint(wantEnv) {
			t.Errorf("%s: env %v, want %v", client, s.Env, wantEnv)
		}
		if client == "vscode" && (len(cfg.Inputs) != 3 || !cfg.Inputs[0].Password || cfg.Inputs[0].ID != "TW_CL_PASS") {
			t.Errorf("vscode: inputs %+v, want a hidden prompt per variable", cfg.Inputs)
		}
		if !strings.Contains(stderr, "TW_CL_PASS (secret acme_password)") {
			t.Errorf("%s: stderr does not say what to fill in: %q", client, stderr)
		}
		for _, v := range []string{"Osprey", "9931"} {
			if strings.Contains(stdout+stderr, v) {
				t.Errorf("%s: a value is printed:\n%s\n%s", client, stdout, stderr)
			}
		}
	}
}

// TestClientExamplesCarryEnv: each shipped client config in
// examples/clients starts toolwright with the env block `toolwright
// clients` prints for the demo's config (examples/demo/toolwright.yaml):
// every variable it reads, by name, as that client's reference to it, and
// for VS Code a hidden prompt for each. Before (issue 48): Claude Desktop's
// and Cursor's held made-up values, VS Code's none, so a pasted example
// did not match what the command prints.
func TestClientExamplesCarryEnv(t *testing.T) {
	t.Parallel()
	demo, err := config.Load(repoPath(t, "examples", "demo", "toolwright.yaml"))
	cliMust(t, err)
	vars := demo.EnvVars()
	if len(vars) == 0 {
		t.Fatal("the demo's config reads no variable: the test proves nothing")
	}
	files := map[string]string{
		"claude-desktop": "claude_desktop_config.json",
		"claude-code":    "claude_code.mcp.json",
		"cursor":         "cursor_mcp.json",
		"vscode":         "vscode_mcp.json",
	}
	for _, client := range clientNames {
		b, err := os.ReadFile(repoPath(t, "examples", "clients", files[client]))
		cliMust(t, err)
		var shipped struct {
			MCPServers map[string]struct{ Env map[string]string } `json:"mcpServers"`
			Servers    map[string]struct{ Env map[string]string } `json:"servers"`
			Inputs     []map[string]any                           `json:"inputs"`
		}
		cliMust(t, json.Unmarshal(b, &shipped))
		s := shipped.MCPServers["toolwright"]
		if client == "vscode" {
			s = shipped.Servers["toolwright"]
		}
		if got, want := fmt.Sprint(s.Env), fmt.Sprint(clientEnvBlock(client, vars)); got != want {
			t.Errorf("%s: the toolwright server's env is %s; toolwright clients prints %s", files[client], got, want)
		}
		if client != "vscode" {
			continue
		}
		for _, in := range vscodeInputs(vars) {
			found := false
			for _, have := range shipped.Inputs {
				found = found || fmt.Sprint(have) == fmt.Sprint(in)
			}
			if !found {
				t.Errorf("%s: no input %v", files[client], in)
			}
		}
	}
}
