package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolwright/toolwright/internal/testsite"
)

// cli runs the root command in-process and returns stdout, stderr and the
// exit status main would use.
func cli(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	root := newRoot(&out, &errOut)
	root.SetArgs(args)
	code := exitStatus(root, root.ExecuteContext(inProcess(t)), &errOut)
	return out.String(), errOut.String(), code
}

func repoPath(t *testing.T, parts ...string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join(append([]string{"..", ".."}, parts...)...))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestValidate(t *testing.T) {
	t.Parallel()
	cfg := repoPath(t, "testdata", "toolwright.yaml")
	out, errOut, code := cli(t, "--config", cfg, "validate")
	if code != 0 || out != "" || !strings.Contains(errOut, "ok: 3 tools") {
		t.Errorf("clean set: code %d, out %q, err %q", code, out, errOut)
	}
	bad := repoPath(t, "testdata", "lint", "bad")
	out, _, code = cli(t, "--config", cfg, "validate", bad)
	if code != 1 || !strings.Contains(out, `unknown_keys.yaml:7:5: unknown step kind "clik" (did you mean "click"?)`) {
		t.Errorf("bad set: code %d, out:\n%s", code, out)
	}
	out, _, code = cli(t, "--config", cfg, "validate", "--format", "json", bad)
	var problems []struct {
		File    string `json:"file"`
		Line    int    `json:"line"`
		Col     int    `json:"col"`
		Kind    string `json:"kind"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal([]byte(out), &problems); err != nil || code != 1 || len(problems) < 20 {
		t.Fatalf("json: code %d, %d problems, %v", code, len(problems), err)
	}
	if p := problems[0]; p.Line == 0 || p.Col == 0 || p.Kind == "" || p.Message == "" {
		t.Errorf("json problem lacks fields: %+v", p)
	}
}

func TestToolsSchemaDocs(t *testing.T) {
	t.Parallel()
	cfg := repoPath(t, "testdata", "toolwright.yaml")
	out, _, code := cli(t, "--config", cfg, "tools", "--json")
	var tools []struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"inputSchema"`
		Annotations map[string]any  `json:"annotations"`
		ServedBy    string          `json:"served_by"`
	}
	if err := json.Unmarshal([]byte(out), &tools); err != nil || code != 0 {
		t.Fatalf("tools --json: %d tools, %v", len(tools), err)
	}
	workflows := 0
	for _, tl := range tools {
		if tl.ServedBy == "" {
			workflows++
		}
	}
	if workflows != 3 || len(tools) == 3 {
		t.Fatalf("tools --json: %d tools, %d of them workflows; want the 3 workflows and the recording tools", len(tools), workflows)
	}
	for _, tl := range tools {
		var compact bytes.Buffer
		if err := json.Compact(&compact, tl.InputSchema); err != nil {
			t.Fatal(err)
		}
		if tl.Name == "add_to_cart" && (tl.Annotations["readOnlyHint"] != false || !strings.Contains(compact.String(), `"required":["sku","task_id"]`)) {
			t.Errorf("add_to_cart: %s %v", tl.InputSchema, tl.Annotations)
		}
	}
	out, _, code = cli(t, "schema")
	var schema map[string]any
	if err := json.Unmarshal([]byte(out), &schema); err != nil || code != 0 || schema["$schema"] == nil {
		t.Errorf("schema: %v", err)
	}
	out, _, _ = cli(t, "--config", cfg, "docs")
	if !strings.Contains(out, "## search_catalog") || !strings.Contains(out, "| `max_pages` | integer |") {
		t.Errorf("docs:\n%s", out)
	}
	out, _, _ = cli(t, "docs", "--steps")
	if !strings.Contains(out, "## paginate") {
		t.Error("docs --steps lacks paginate")
	}
}

// writeConfig writes a config serving the demo workflows against site.
func writeConfig(t *testing.T, site *testsite.Site) string {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "toolwright.yaml")
	body := "workflows: " + repoPath(t, "examples", "demo", "workflows") + "\n" +
		"selectors: " + repoPath(t, "examples", "demo", "selectors.yaml") + "\n" +
		"state_dir: " + filepath.Join(dir, "state") + "\n" +
		"vars: {acme_base: " + site.URL("") + "}\n" +
		"secrets: {acme_user: {file: user}, acme_password: {file: password}}\n" +
		"policy: {write_tools: grant, allowed_hosts: [127.0.0.1]}\n" +
		"limits: {step_timeout: 1m}\n" // a ceiling: the demo's pages took over 10 s (the default) at a load of 50
	for name, body := range map[string]string{"toolwright.yaml": body, "user": "cli-user@example.com", "password": "cli-password-9000"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return cfg
}

func TestRunAndSelectorsCheck(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	site := testsite.Start(t)
	cfg := writeConfig(t, site)

	out, _, code := cli(t, "--config", cfg, "run", "search_catalog", "--arg", "max_pages=2", "--arg", "query=")
	var env map[string]any
	if err := json.Unmarshal([]byte(out), &env); err != nil || code != 0 || env["ok"] != true {
		t.Fatalf("run: code %d, %v\n%s", code, err, out)
	}
	rows := env["data"].(map[string]any)["rows"].(map[string]any)
	if rows["count"] != float64(10) || rows["truncated"] != true {
		t.Errorf("rows: %v", rows)
	}
	// pages counts pages read, not rows (it said 10 here, 15 for 3 pages).
	if p := env["data"].(map[string]any)["pages"]; p != float64(2) {
		t.Errorf("pages: %v, want 2", p)
	}
	out, _, code = cli(t, "--config", cfg, "run", "search_catalog", "--arg", "max_pages=two")
	if code != 1 || !strings.Contains(out, `"code": "invalid_params"`) || !strings.Contains(out, "max_pages") {
		t.Errorf("a bad --arg: code %d\n%s", code, out)
	}
	out, _, code = cli(t, "--config", cfg, "run", "add_to_cart", "--arg", "sku=ACM-1001", "--task-id", "T-1")
	if code != 1 || !strings.Contains(out, `"code": "not_granted"`) {
		t.Errorf("a write tool without a grant: code %d\n%s", code, out)
	}

	out, _, code = cli(t, "--config", cfg, "selectors", "check", "--prefix", "acme.login.", "--page", site.URL("/login.html"))
	if code != 0 || !strings.Contains(out, "primary") || strings.Contains(out, "fallback") {
		t.Errorf("login page: code %d\n%s", code, out)
	}
	out, _, code = cli(t, "--config", cfg, "selectors", "check", "--prefix", "acme.login.", "--page", site.URL("/broken.html"))
	if code != 1 || !strings.Contains(out, "fallback") {
		t.Errorf("broken page: code %d\n%s", code, out)
	}
	out, _, code = cli(t, "--config", cfg, "selectors", "check", "--prefix", "acme.login.", "--page", filepath.Join(testsite.DemoDir(), "login.html"))
	if code != 0 || !strings.Contains(out, "primary") {
		t.Errorf("a local file: code %d\n%s", code, out)
	}
}
