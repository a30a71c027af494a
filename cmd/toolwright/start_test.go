package main

// Start anywhere: `serve` launched the way MCP clients launch it (working
// directory /, no config, only HOME/XDG_STATE_HOME), a secret that cannot
// be read, and the demo's grant path.

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/internal/testsite"
)

// clientEnv is the environment of a server an MCP client starts: the
// process's own (PATH for Chromium) with HOME and XDG_STATE_HOME under home.
func clientEnv(home string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_STATE_HOME=") && !strings.HasPrefix(kv, "TOOLWRIGHT_") {
			env = append(env, kv)
		}
	}
	return append(env, append([]string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state")}, extra...)...)
}

// listTools initializes the session and lists the tools.
func (p *stdioPeer) listTools(t *testing.T) []mcp.Tool {
	t.Helper()
	p.send(t, stdioInit)
	if r := p.await(t, 1, 2*time.Minute); r.Error != nil {
		t.Fatalf("initialize: %v", r.Error)
	}
	p.send(t, stdioInitialized)
	p.send(t, stdioList)
	var list struct{ Tools []mcp.Tool }
	if err := json.Unmarshal(p.await(t, 2, 2*time.Minute).Result, &list); err != nil {
		t.Fatal(err)
	}
	return list.Tools
}

// call calls a tool and returns its envelope.
func (p *stdioPeer) call(t *testing.T, id int64, tool string, args map[string]any) *result.Envelope {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	p.send(t, string(b))
	r := p.await(t, id, 90*time.Second)
	if r.Error != nil {
		t.Fatalf("tools/call %s: %v", tool, r.Error)
	}
	var res struct{ StructuredContent result.Envelope }
	if err := json.Unmarshal(r.Result, &res); err != nil {
		t.Fatal(err)
	}
	return &res.StructuredContent
}

func toolNames(tools []mcp.Tool) []string {
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	return names
}

// The issue: started from / with no config, state went to /.toolwright,
// which cannot be created, and the client only saw "Connection closed".
func TestServeFromRootWithoutConfig(t *testing.T) {
	t.Parallel()
	bin := serveBinary(t)
	home := t.TempDir()
	cmd := exec.Command(bin, "serve")
	cmd.Dir = "/"
	cmd.Env = clientEnv(home)
	p := startStdioCmd(t, cmd)
	names := toolNames(p.listTools(t))
	if len(names) < 4 || !strings.Contains(strings.Join(names, ","), "open_page") {
		t.Fatalf("tools %v, want the built-in ones; stderr:\n%s", names, p.stderr.String())
	}
	// The built-in workflows and the state go to the user's state dir.
	if _, err := os.Stat(filepath.Join(home, "state", "toolwright", "defaults", "workflows")); err != nil {
		t.Errorf("no defaults under $XDG_STATE_HOME/toolwright: %v", err)
	}
	p.stdin.Close()
	if err := p.cmd.Wait(); err != nil {
		t.Errorf("serve exited with %v; stderr:\n%s", err, p.stderr.String())
	}

	// Without XDG_STATE_HOME: ~/.local/state/toolwright.
	cmd = exec.Command(bin, "serve")
	cmd.Dir = "/"
	for _, kv := range clientEnv(home) {
		if !strings.HasPrefix(kv, "XDG_STATE_HOME=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	p = startStdioCmd(t, cmd)
	if n := len(p.listTools(t)); n != len(names) {
		t.Errorf("%d tools without XDG_STATE_HOME, want %d", n, len(names))
	}
	if _, err := os.Stat(filepath.Join(home, ".local", "state", "toolwright", "defaults")); err != nil {
		t.Errorf("no defaults under ~/.local/state/toolwright: %v", err)
	}
	p.stdin.Close()
	_ = p.cmd.Wait()
}

var secretWorkflow = `name: sign_in
description: Type the account's user name into the sign-in form.
risk: read
steps:
  - goto: ${{ config.base }}/login.html
  - fill: {target: site.email, value: "${{ secrets.site_user }}"}
output:
  done: true
`

var callsSecretWorkflow = `name: via_call
description: Call sign_in.
risk: read
steps:
  - call: {tool: sign_in}
output:
  done: true
`

// A secret whose variable is not set: serve starts, logs it, serves the
// tools that do not need it, and answers the ones that do (also through a
// call step) with config_error. run fails fast with exit 2.
func TestServeWithMissingSecret(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	bin := serveBinary(t)
	site := testsite.Start(t)
	dir := t.TempDir()
	cfg := serveSet(t, dir, site.URL(""), map[string]string{
		"set_only.yaml": serveWorkflows["set_only.yaml"], "sign_in.yaml": secretWorkflow, "via_call.yaml": callsSecretWorkflow,
	})
	b, _ := os.ReadFile(cfg)
	b = append(b, "secrets:\n  site_user: {env: TOOLWRIGHT_TEST_UNSET_USER}\n"...)
	cliMust(t, os.WriteFile(cfg, b, 0o644))
	cliMust(t, os.WriteFile(filepath.Join(dir, "selectors.yaml"), []byte("site.heading:\n  css: h1\nsite.email:\n  css: input[name=email]\n"), 0o644))

	cmd := exec.Command(bin, "serve", "--config", cfg)
	cmd.Env = clientEnv(t.TempDir())
	p := startStdioCmd(t, cmd)
	if names := strings.Join(toolNames(p.listTools(t)), ","); names != "set_only,sign_in,via_call" {
		t.Fatalf("tools %s", names)
	}
	if env := p.call(t, 3, "set_only", map[string]any{"name": "x"}); !env.OK || env.Data["greeting"] != "hello x" {
		t.Errorf("set_only: %+v", env)
	}
	for i, tool := range []string{"sign_in", "via_call"} {
		env := p.call(t, int64(4+i), tool, map[string]any{})
		if env.OK || env.Code != "config_error" || !env.NeedsHuman || env.Retryable ||
			!strings.Contains(env.Message, `"site_user"`) || !strings.Contains(env.Message, "TOOLWRIGHT_TEST_UNSET_USER") {
			t.Errorf("%s: %+v", tool, env)
		}
	}
	logs := p.stderr.String()
	if !strings.Contains(logs, "secret=site_user") || !strings.Contains(logs, "TOOLWRIGHT_TEST_UNSET_USER") || !strings.Contains(logs, "sign_in,via_call") {
		t.Errorf("stderr does not name the secret, its variable and its tools:\n%s", logs)
	}
	p.stdin.Close()
	_ = p.cmd.Wait()

	// run runs a tool that needs no unset secret, as serve serves it, and
	// fails fast on one that reads it: a configuration error, exit 2.
	if _, errOut, code := cli(t, "--config", cfg, "run", "set_only"); code != 0 {
		t.Errorf("run of a tool without the missing secret: exit %d, stderr %q", code, errOut)
	}
	_, errOut, code := cli(t, "--config", cfg, "run", "sign_in")
	if code != exitUsage || !strings.Contains(errOut, "TOOLWRIGHT_TEST_UNSET_USER") {
		t.Errorf("run with a missing secret: exit %d, stderr %q", code, errOut)
	}
}

var grantHint = regexp.MustCompile(`allow it with: (toolwright grant --demo --tool add_to_cart --task (\S+)) --ttl 15m`)

// The demo's grant path: the command a not_granted refusal of `serve
// --demo` prints works against the demo's own state dir.
func TestDemoGrantPath(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	bin := serveBinary(t)
	home := t.TempDir()
	cmd := exec.Command(bin, "serve", "--demo")
	cmd.Dir = "/"
	cmd.Env = clientEnv(home)
	p := startStdioCmd(t, cmd)
	p.listTools(t)
	env := p.call(t, 3, "add_to_cart", map[string]any{"sku": "ACM-1002", "task_id": "T-demo"})
	m := grantHint.FindStringSubmatch(env.Message)
	if env.Code != "not_granted" || m == nil || m[2] != "T-demo" {
		t.Fatalf("refusal: %+v", env)
	}
	// Run the printed command as the operator would (same HOME), as a
	// process of its own: the test changes no variable of its own process,
	// so it runs in parallel.
	operator := func(args ...string) (string, string, int) {
		t.Helper()
		return twCLI(t, bin, []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state")}, args...)
	}
	args := append(strings.Fields(m[1])[1:], "--reason", "demo")
	out, errOut, code := operator(args...)
	if code != 0 || !strings.Contains(out, "add_to_cart may run for task T-demo") {
		t.Fatalf("%s: exit %d\n%s%s", m[1], code, out, errOut)
	}
	if env := p.call(t, 4, "add_to_cart", map[string]any{"sku": "ACM-1002", "task_id": "T-demo"}); !env.OK {
		t.Errorf("after the grant: %+v", env)
	}
	// The grant lives in the demo's state dir, not the default one.
	out, _, _ = operator("grants", "--format", "json")
	if strings.Contains(out, "T-demo") {
		t.Errorf("the demo's grant shows up outside --demo: %s", out)
	}
	out, _, _ = operator("grants", "--demo", "--format", "json")
	if !strings.Contains(out, "T-demo") {
		t.Errorf("grants --demo lacks the grant: %s", out)
	}
	p.stdin.Close()
	_ = p.cmd.Wait()
}
