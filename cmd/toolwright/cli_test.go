package main

// In-process tests of the operator commands (grant, grants, revoke, audit,
// traces, replay) and of `run`, on the fixture site with real Chromium and
// a real SQLite state dir.

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"html"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/mcpserver"
	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/engine/store"
	"github.com/toolwright/toolwright/engine/store/sqlstore"
	"github.com/toolwright/toolwright/internal/testbrowser"
	"github.com/toolwright/toolwright/internal/testsite"
)

// Distinctive secrets with characters HTML, JSON and URLs escape; each core
// is a run every encoding keeps as it is.
const (
	cliSecretUser     = "qv4Marlin8826+ops@example.com"
	cliSecretUserCore = "qv4Marlin8826"
	cliSecretPass     = `Pw"Heron55107Wombat<&>'/`
	cliSecretPassCore = "Heron55107Wombat"
)

const cliMissingButton = `name: missing_button
description: Sign in, type the password into a visible field too, then press a button the page does not have.
risk: read
steps:
  - goto: ${{ config.acme_base }}/login.html
  - fill: {target: acme.login.email, value: "${{ secrets.acme_user }}"}
  - fill: {target: acme.login.password, value: "${{ secrets.acme_password }}"}
  - click: acme.login.submit
  - wait: {visible: acme.catalog.signed_in}
  - fill: {target: acme.catalog.search_box, value: "${{ secrets.acme_password }}"}
  - click: acme.missing
    timeout: 300ms
`

// cliSetup is a config in a temporary folder: the demo workflows and
// selector map, the fixture site, secrets from files kept outside the
// config's folder, write tools behind grants, only 127.0.0.1 allowed.
type cliSetup struct {
	cfg   string // the config file
	state string // its state_dir
	site  *testsite.Site
}

func newCLISetup(t *testing.T) *cliSetup {
	t.Helper()
	testsite.NeedChromium(t)
	site := testsite.Start(t)
	dir, secrets := t.TempDir(), t.TempDir()
	demo, err := filepath.Abs(filepath.Join("..", "..", "examples", "demo"))
	if err != nil {
		t.Fatal(err)
	}
	wdir := filepath.Join(dir, "workflows")
	cliMust(t, os.MkdirAll(wdir, 0o755))
	shared, _ := filepath.Glob(filepath.Join(demo, "workflows", "*.yaml"))
	if len(shared) == 0 {
		t.Fatal("no demo workflows")
	}
	for _, f := range shared {
		b, err := os.ReadFile(f)
		cliMust(t, err)
		cliMust(t, os.WriteFile(filepath.Join(wdir, filepath.Base(f)), b, 0o644))
	}
	cliMust(t, os.WriteFile(filepath.Join(wdir, "missing_button.yaml"), []byte(cliMissingButton), 0o644))
	cliMust(t, os.WriteFile(filepath.Join(secrets, "user"), []byte(cliSecretUser), 0o600))
	cliMust(t, os.WriteFile(filepath.Join(secrets, "password"), []byte(cliSecretPass), 0o600))
	cfg := fmt.Sprintf(`workflows: ./workflows
selectors: %q
state_dir: ./state
vars:
  acme_base: %s
secrets:
  acme_user: {file: %q}
  acme_password: {file: %q}
policy:
  write_tools: grant
  allowed_hosts: ["127.0.0.1"]
limits:
  step_timeout: 1m # a ceiling: the demo's pages took over 10 s (the default) at a load of 50
`, filepath.Join(demo, "selectors.yaml"), site.Server.URL, filepath.Join(secrets, "user"), filepath.Join(secrets, "password"))
	path := filepath.Join(dir, "toolwright.yaml")
	cliMust(t, os.WriteFile(path, []byte(cfg), 0o644))
	return &cliSetup{cfg: path, state: filepath.Join(dir, "state"), site: site}
}

func cliMust(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// cli runs the root command in-process, as main does, and returns what it
// printed and its exit status.
func (c *cliSetup) cli(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	root := newRoot(&out, &errb)
	root.SetArgs(append([]string{"--config", c.cfg}, args...))
	ctx, cancel := context.WithTimeout(inProcess(t), 3*time.Minute)
	defer cancel()
	code = exitStatus(root, root.ExecuteContext(ctx), &errb)
	return out.String(), errb.String(), code
}

// inProcess is the context of a command t runs in-process: the command
// opens its environments in the test binary's shared Chromium
// (testbrowser.Config) unless t called testbrowser.OwnBrowser.
func inProcess(t *testing.T) context.Context {
	return context.WithValue(context.Background(), browserAdjuster{}, func(cfg *config.Config) { testbrowser.Config(t, cfg) })
}

// mustCLI runs a command that must exit with want.
func (c *cliSetup) mustCLI(t *testing.T, want int, args ...string) (stdout, stderr string) {
	t.Helper()
	stdout, stderr, code := c.cli(t, args...)
	if code != want {
		t.Fatalf("toolwright %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, stdout, stderr)
	}
	return stdout, stderr
}

// envelope decodes the envelope `run` or `replay` printed.
func envelope(t *testing.T, stdout string) *result.Envelope {
	t.Helper()
	var env result.Envelope
	if err := json.Unmarshal([]byte(stdout), &env); err != nil {
		t.Fatalf("not an envelope: %v\n%s", err, stdout)
	}
	return &env
}

var grantLine = regexp.MustCompile(`^(gr_\S+): add_to_cart may run for task (\S+) until `)

// grant runs `toolwright grant` for add_to_cart and returns the grant's id.
func (c *cliSetup) grant(t *testing.T, task string) string {
	t.Helper()
	out, _ := c.mustCLI(t, 0, "grant", "--tool", "add_to_cart", "--task", task, "--ttl", "15m", "--reason", "ticket 7")
	m := grantLine.FindStringSubmatch(out)
	if m == nil || m[2] != task {
		t.Fatalf("grant printed %q", out)
	}
	return m[1]
}

func TestCLIGrants(t *testing.T) {
	t.Parallel()
	c := newCLISetup(t)

	// Without a grant, a write tool is refused with the command to run.
	out, _ := c.mustCLI(t, 1, "run", "add_to_cart", "--arg", "sku=ACM-1002", "--task-id", "T-1")
	env := envelope(t, out)
	if env.Code != "not_granted" || !env.NeedsHuman || !strings.Contains(env.Message, "toolwright --config "+c.cfg+" grant --tool add_to_cart --task T-1") {
		t.Errorf("without a grant: %s", out)
	}

	// Only write tools, known tools and bounded ttls can be granted; the
	// others are usage errors (exit 2).
	for _, tc := range []struct{ args, want string }{
		{"--tool product_details --task T-1 --reason r", "needs no grant"},
		{"--tool no_such_tool --task T-1 --reason r", `unknown tool "no_such_tool"`},
		{"--tool add_to_cart --task T-1 --ttl 48h --reason r", "at most 24h"},
		{"--tool add_to_cart --task T-1", `"reason" not set`},
		// A task_id no call can carry (issue 11 (10)): "*" is not a wildcard.
		{"--tool add_to_cart --task * --reason r", "task_id must be what a call can carry"},
		{"--tool add_to_cart --task T/1 --reason r", "task_id must be what a call can carry"},
		{"--tool add_to_cart --task " + strings.Repeat("T", 129) + " --reason r", "task_id must be what a call can carry"},
		{"--tool add_to_cart --task T-1 --reason " + strings.Repeat("r", 100<<10), "at most 500 characters, got 102400"},
	} {
		_, errOut := c.mustCLI(t, exitUsage, append([]string{"grant"}, strings.Fields(tc.args)...)...)
		if !strings.Contains(errOut, tc.want) {
			t.Errorf("grant %s: %q does not say %q", tc.args, errOut, tc.want)
		}
	}

	id := c.grant(t, "T-1")
	other := c.grant(t, "T-other")
	out, _ = c.mustCLI(t, 0, "grants")
	if !regexp.MustCompile(`(?m)^`+id+`\s+add_to_cart\s+T-1\s+.*\blive\s+ticket 7$`).MatchString(out) || !strings.Contains(out, other) {
		t.Errorf("grants does not list %s and %s as live:\n%s", id, other, out)
	}

	out, _ = c.mustCLI(t, 0, "run", "add_to_cart", "--arg", "sku=ACM-1002", "--task-id", "T-1")
	if env := envelope(t, out); !env.OK || env.Data["sku"] != "ACM-1002" {
		t.Errorf("with a grant: %s", out)
	}
	// A grant for another task_id does not count.
	out, _ = c.mustCLI(t, 1, "run", "add_to_cart", "--arg", "sku=ACM-1002", "--task-id", "T-2")
	if env := envelope(t, out); env.Code != "not_granted" {
		t.Errorf("with another task's grant: %s", out)
	}

	out, _ = c.mustCLI(t, 0, "revoke", id)
	if strings.TrimSpace(out) != "revoked "+id {
		t.Errorf("revoke printed %q", out)
	}
	out, _ = c.mustCLI(t, 0, "grants")
	if strings.Contains(out, id) || !strings.Contains(out, other) {
		t.Errorf("after revoke, grants lists:\n%s", out)
	}
	out, _ = c.mustCLI(t, 0, "grants", "--all")
	if !regexp.MustCompile(`(?m)^` + id + `\s.*\brevoked\b`).MatchString(out) {
		t.Errorf("grants --all does not show %s revoked:\n%s", id, out)
	}
	// After the revoke a repeat of the finished call gets its stored
	// envelope (idempotency comes before the grant check); new work is refused.
	out, _ = c.mustCLI(t, 0, "run", "add_to_cart", "--arg", "sku=ACM-1002", "--task-id", "T-1")
	if env := envelope(t, out); env.Code != "ok" {
		t.Errorf("repeat after revoke: %s", out)
	}
	out, _ = c.mustCLI(t, 1, "run", "add_to_cart", "--arg", "sku=ACM-1002", "--task-id", "T-3")
	if env := envelope(t, out); env.Code != "not_granted" {
		t.Errorf("after revoke: %s", out)
	}
	if _, errOut := c.mustCLI(t, 1, "revoke", "gr_nosuchgrant"); !strings.Contains(errOut, "not found") {
		t.Errorf("revoke of an unknown grant: %q", errOut)
	}
}

// TestNoToolGrants proves that grants are not a tool: the MCP tool list is
// exactly the workflows, and calling tools over MCP never adds a grant.
func TestNoToolGrants(t *testing.T) {
	t.Parallel()
	c := newCLISetup(t)
	cfg, err := config.Load(c.cfg)
	cliMust(t, err)
	a, err := app.Open(cfg, slog.New(slog.DiscardHandler))
	cliMust(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = a.Close(ctx)
	})
	srv, err := mcpserver.New(a.Engine, mcpserver.Options{})
	cliMust(t, err)
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	cliMust(t, err)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "cli-test", Version: "1"}, nil).Connect(ctx, ct, nil)
	cliMust(t, err)
	t.Cleanup(func() { cs.Close(); ss.Close() })

	res, err := cs.ListTools(ctx, nil)
	cliMust(t, err)
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if strings.Contains(tool.Name, "grant") || strings.Contains(tool.Name, "revoke") {
			t.Errorf("tool %q looks like a grant tool", tool.Name)
		}
	}
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(c.cfg), "workflows", "*.yaml"))
	var want []string
	for _, f := range files {
		want = append(want, strings.TrimSuffix(filepath.Base(f), ".yaml"))
	}
	sort.Strings(names)
	sort.Strings(want)
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Errorf("MCP tools %v, want exactly the workflows %v", names, want)
	}
	out, _ := c.mustCLI(t, 0, "tools", "--json")
	for _, w := range want {
		if !strings.Contains(out, `"name": "`+w+`"`) {
			t.Errorf("tools --json lacks %s", w)
		}
	}
	if strings.Contains(out, `"name": "grant`) {
		t.Errorf("tools --json lists a grant tool")
	}

	// The operator commands are not reachable as tools.
	for _, name := range []string{"grant", "grants", "revoke"} {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{"tool": "add_to_cart", "task": "T-1", "reason": "self"}})
		if err == nil {
			t.Errorf("calling %q over MCP did not fail", name)
		}
	}
	// An agent calling the write tool is refused, and that adds no grant.
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add_to_cart", Arguments: map[string]any{"sku": "ACM-1001", "task_id": "T-self"}})
	cliMust(t, err)
	if !r.IsError || !strings.Contains(fmt.Sprint(r.StructuredContent), "not_granted") {
		t.Errorf("add_to_cart over MCP: %+v", r.StructuredContent)
	}
	grants, err := a.Store.ListGrants(ctx, true)
	cliMust(t, err)
	if len(grants) != 0 {
		t.Errorf("grants exist after MCP calls: %+v", grants)
	}
}

func TestCLIAudit(t *testing.T) {
	t.Parallel()
	c := newCLISetup(t)
	gid := c.grant(t, "T-a")
	out, _ := c.mustCLI(t, 0, "run", "add_to_cart", "--arg", "sku=ACM-1003", "--task-id", "T-a")
	write := envelope(t, out)
	out, _ = c.mustCLI(t, 0, "run", "product_details", "--arg", "sku=ACM-1001")
	read := envelope(t, out)
	c.mustCLI(t, 1, "run", "product_details", "--arg", "sku=ACM-9999")

	out, _ = c.mustCLI(t, 0, "audit", "verify")
	if !strings.HasPrefix(out, "ok: 3 records, head ") {
		t.Errorf("audit verify: %q", out)
	}

	out, _ = c.mustCLI(t, 0, "audit", "export", "--format", "jsonl")
	recs, err := store.ReadAudit(strings.NewReader(out), "jsonl")
	cliMust(t, err)
	if len(recs) != 3 {
		t.Fatalf("%d exported records, want 3:\n%s", len(recs), out)
	}
	byTrace := map[string]store.AuditRecord{}
	for _, r := range recs {
		byTrace[r.TraceID] = r
	}
	w, r := byTrace[write.TraceID], byTrace[read.TraceID]
	if w.Tool != "add_to_cart" || w.Risk != "write" || w.Code != "ok" || w.TaskID != "T-a" || w.GrantID != gid ||
		!strings.HasPrefix(w.EnvID, "env_") || w.Purpose == "" {
		t.Errorf("the write call's record: %+v (grant %s)", w, gid)
	}
	if r.Tool != "product_details" || r.Risk != "read" || r.Code != "ok" || r.GrantID != "" || !strings.HasPrefix(r.EnvID, "env_") {
		t.Errorf("the read call's record: %+v", r)
	}
	if p := store.VerifyChain(recs, nil); p != nil {
		t.Errorf("the export does not verify: %s", p)
	}

	out, _ = c.mustCLI(t, 0, "audit", "export", "--format", "csv")
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	cliMust(t, err)
	if len(rows) != 4 {
		t.Fatalf("csv has %d rows, want a header and 3:\n%s", len(rows), out)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	var found bool
	for _, row := range rows[1:] {
		if row[col["trace_id"]] != write.TraceID {
			continue
		}
		found = true
		got := []string{row[col["tool"]], row[col["risk"]], row[col["code"]], row[col["task_id"]], row[col["env_id"]], row[col["purpose"]], row[col["grant_id"]]}
		want := []string{"add_to_cart", "write", "ok", "T-a", w.EnvID, w.Purpose, gid}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("csv row %v, want %v", got, want)
		}
	}
	if !found {
		t.Errorf("csv lacks the write call:\n%s", out)
	}
	if out, _ := c.mustCLI(t, 0, "audit", "export", "--until", "2000-01-01"); out != "" {
		t.Errorf("export --until 2000-01-01: %q", out)
	}
	if out, _ := c.mustCLI(t, 0, "audit", "export", "--since", "1h"); strings.Count(out, "\n") != 3 {
		t.Errorf("export --since 1h: %q", out)
	}

	// Someone removes the grant id from the write call's record.
	db, err := sql.Open("sqlite", filepath.Join(c.state, sqlstore.FileName))
	cliMust(t, err)
	defer db.Close()
	_, err = db.Exec(`UPDATE audit SET grant_id = '' WHERE seq = ?`, w.Seq)
	cliMust(t, err)
	out, _ = c.mustCLI(t, 1, "audit", "verify")
	if !strings.Contains(out, fmt.Sprintf("audit chain broken at seq %d", w.Seq)) || !strings.Contains(out, "first bad record: ") ||
		!strings.Contains(out, fmt.Sprintf(`"seq":%d`, w.Seq)) || !strings.Contains(out, write.TraceID) {
		t.Errorf("audit verify after tampering:\n%s", out)
	}
}

func TestCLITracesAndReplay(t *testing.T) {
	t.Parallel()
	c := newCLISetup(t)
	out, _ := c.mustCLI(t, 1, "run", "missing_button")
	failed := envelope(t, out)
	if failed.Code != "target_not_found" {
		t.Fatalf("run missing_button: %s", out)
	}
	out, _ = c.mustCLI(t, 0, "run", "product_details", "--arg", "sku=ACM-1001")
	okEnv := envelope(t, out)

	out, _ = c.mustCLI(t, 0, "traces", "--failed")
	if !regexp.MustCompile(`(?m)^`+failed.TraceID+`\s.*\bmissing_button\s+target_not_found\s`).MatchString(out) || strings.Contains(out, okEnv.TraceID) {
		t.Errorf("traces --failed:\n%s", out)
	}
	out, _ = c.mustCLI(t, 0, "traces")
	if !strings.Contains(out, failed.TraceID) || !strings.Contains(out, okEnv.TraceID) {
		t.Errorf("traces:\n%s", out)
	}

	out, _ = c.mustCLI(t, 0, "traces", failed.TraceID)
	var tr store.Trace
	cliMust(t, json.Unmarshal([]byte(out), &tr))
	// The failure screenshot (masked, the operator's) and page.html, kept
	// though the call typed a secret (README, Reliability: screenshots).
	if tr.Code != "target_not_found" || len(tr.Steps) != 7 || len(tr.Artifacts) != 2 || !strings.HasSuffix(tr.Artifacts[0], "failure.png") || !strings.HasSuffix(tr.Artifacts[1], "page.html") {
		t.Errorf("traces %s: code %s, %d steps, artifacts %v", failed.TraceID, tr.Code, len(tr.Steps), tr.Artifacts)
	}
	if n := len(tr.Steps); n > 0 {
		last := tr.Steps[n-1]
		if last.Kind != "click" || last.Target != "acme.missing" || last.Code != "target_not_found" || last.Attempt != 1 || last.DurationMS < 150 {
			t.Errorf("last step: %+v", last)
		}
		if first := tr.Steps[1]; first.Kind != "fill" || first.Strategy == "" || first.Code != "ok" {
			t.Errorf("fill step: %+v", first)
		}
	}

	// replay runs the call again: a new trace, the same outcome.
	out, errOut := c.mustCLI(t, 1, "replay", failed.TraceID)
	again := envelope(t, out)
	if again.Code != "target_not_found" || again.TraceID == failed.TraceID || !strings.HasPrefix(again.TraceID, "tr_") {
		t.Errorf("replay: %s", out)
	}
	if !strings.Contains(errOut, "replaying "+failed.TraceID) {
		t.Errorf("replay stderr: %q", errOut)
	}
	out, _ = c.mustCLI(t, 0, "traces", "--failed", "--json")
	var list []store.Trace
	cliMust(t, json.Unmarshal([]byte(out), &list))
	if len(list) != 2 || list[0].ID != again.TraceID || list[1].ID != failed.TraceID {
		t.Errorf("after replay, failed traces are %d: %s", len(list), out)
	}
	out, _ = c.mustCLI(t, 0, "replay", okEnv.TraceID)
	if env := envelope(t, out); !env.OK || env.TraceID == okEnv.TraceID || env.Data["name"] != okEnv.Data["name"] {
		t.Errorf("replay of an ok call: %s", out)
	}
	if _, errOut := c.mustCLI(t, 1, "replay", "tr_nosuchtrace"); !strings.Contains(errOut, "not found") {
		t.Errorf("replay of an unknown trace: %q", errOut)
	}

	// A write call whose task_id has a stored result: replay says that
	// nothing ran, and --task-id runs it again under a new task_id.
	c.grant(t, "T-r")
	out, _ = c.mustCLI(t, 0, "run", "add_to_cart", "--arg", "sku=ACM-1004", "--task-id", "T-r")
	stored := envelope(t, out)
	out, errOut = c.mustCLI(t, 0, "replay", stored.TraceID)
	if env := envelope(t, out); env.TraceID != stored.TraceID || !strings.Contains(errOut, "nothing ran") {
		t.Errorf("replay of a stored call: %s\nstderr: %s", out, errOut)
	}
	out, _ = c.mustCLI(t, 1, "replay", stored.TraceID, "--task-id", "T-r2")
	if env := envelope(t, out); env.Code != "not_granted" || env.TaskID != "T-r2" {
		t.Errorf("replay under an ungranted task_id: %s", out)
	}
	c.grant(t, "T-r2")
	out, _ = c.mustCLI(t, 0, "replay", stored.TraceID, "--task-id", "T-r2")
	if env := envelope(t, out); !env.OK || env.TraceID == stored.TraceID || env.TaskID != "T-r2" {
		t.Errorf("replay under a new task_id: %s", out)
	}
}

// cliSecretHits lists where any form of the test secrets appears in b.
func cliSecretHits(b []byte) []string {
	var out []string
	for _, s := range [][2]string{{cliSecretUser, cliSecretUserCore}, {cliSecretPass, cliSecretPassCore}} {
		j, _ := json.Marshal(s[0])
		for _, f := range []string{s[0], s[1], url.QueryEscape(s[0]), html.EscapeString(s[0]), string(j[1 : len(j)-1])} {
			if i := bytes.Index(b, []byte(f)); i >= 0 {
				lo, hi := max(0, i-40), min(len(b), i+len(f)+40)
				out = append(out, fmt.Sprintf("%q in …%q…", f, b[lo:hi]))
			}
		}
	}
	return out
}

func TestCLISecretsNeverLeak(t *testing.T) {
	t.Parallel()
	c := newCLISetup(t)
	var printed []string
	stdout, stderr := c.mustCLI(t, 1, "--log-level", "debug", "run", "missing_button")
	printed = append(printed, stdout, stderr)
	env := envelope(t, stdout)
	if env.Code != "target_not_found" {
		t.Fatalf("run: %s", stdout)
	}
	for _, args := range [][]string{
		{"traces", env.TraceID}, {"traces", "--json"}, {"audit", "export"}, {"audit", "export", "--format", "csv"},
	} {
		o, e := c.mustCLI(t, 0, args...)
		printed = append(printed, o, e)
	}
	o, e := c.mustCLI(t, 1, "--log-level", "debug", "replay", env.TraceID)
	printed = append(printed, o, e)
	for i, p := range printed {
		for _, hit := range cliSecretHits([]byte(p)) {
			t.Errorf("secret in output %d: %s", i, hit)
		}
	}
	// The whole state dir, byte by byte: database, WAL, artifacts.
	files := 0
	err := filepath.WalkDir(c.state, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		for _, hit := range cliSecretHits(b) {
			t.Errorf("secret in %s: %s", path, hit)
		}
		return nil
	})
	cliMust(t, err)
	page, err := os.ReadFile(filepath.Join(c.state, "artifacts", env.TraceID, "page.html"))
	cliMust(t, err)
	if files < 3 || !bytes.Contains(page, []byte("[redacted:acme_password]")) {
		t.Errorf("scanned %d files; page.html:\n%s", files, page)
	}
}
