package config_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/toolwright/toolwright/engine/browser/provider/all" // its providers are browser.provider's values
	"github.com/toolwright/toolwright/engine/config"
	_ "github.com/toolwright/toolwright/engine/store/all" // its backends are store.url's values
)

func TestDefaults(t *testing.T) {
	c, ps := config.Parse("/srv/tw/toolwright.yaml", []byte("# nothing set\n"))
	if len(ps) > 0 {
		t.Fatal(ps.Err())
	}
	if c.Workflows != "/srv/tw/workflows" || c.Selectors != "/srv/tw/selectors/selectors.yaml" || c.StateDir != "/srv/tw/.toolwright" {
		t.Errorf("paths: %s %s %s", c.Workflows, c.Selectors, c.StateDir)
	}
	if c.Browser.MaxEnvironments != 8 || c.Browser.MaxPerPurpose != 4 || c.Browser.IdleTimeout != 10*time.Minute || !c.Browser.Headless {
		t.Errorf("browser: %+v", c.Browser)
	}
	if c.Limits.MaxLoop != 100 || c.Limits.MaxListItems != 200 || c.Limits.MaxResponseBytes != 65536 || c.Limits.MaxDeadline != 10*time.Minute ||
		c.Limits.StepTimeout != 10*time.Second {
		t.Errorf("limits: %+v", c.Limits)
	}
	if len(c.Regions) != 1 || c.Policy.WriteTools != "grant" || c.HTTP.Addr != "127.0.0.1:8080" {
		t.Errorf("regions %v, policy %v, http %v", c.Regions, c.Policy, c.HTTP)
	}
}

func TestFullConfig(t *testing.T) {
	src := `
workflows: ./wf
selectors: /etc/tw/selectors.yaml
vars: {acme_base: "http://127.0.0.1:8000", retries: 3}
secrets:
  user: {env: TW_TEST_USER}
  password: {file: secret.txt}
browser: {provider: local, headless: false, max_environments: 2, max_per_purpose: 1, idle_timeout: 30s}
regions:
  local: {}
  US-CA: {proxy: "http://u:p@127.0.0.1:3128", egress_check: {url: "http://127.0.0.1:9/ip", expect_status: 204}}
warmup_url: http://127.0.0.1:8000/
policy: {write_tools: enabled, allowed_hosts: ["127.0.0.1", "*.example.com"], subresources: allowed_hosts}
limits: {max_deadline: 2m, max_loop: 10, max_list_items: 50, max_response_bytes: 1000, step_timeout: 45s}
http: {addr: "0.0.0.0:9000", token: {env: TW_TEST_TOKEN}}
`
	dir := t.TempDir()
	file := filepath.Join(dir, "toolwright.yaml")
	if err := os.WriteFile(file, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "secret.txt"), []byte("s3cret-from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TW_TEST_USER", "user-from-env")
	c, err := config.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SecretsErr(); err != nil {
		t.Fatal(err)
	}
	if c.Workflows != filepath.Join(dir, "wf") || c.Selectors != "/etc/tw/selectors.yaml" {
		t.Errorf("paths %s %s", c.Workflows, c.Selectors)
	}
	if got := c.SecretValues(); got["user"] != "user-from-env" || got["password"] != "s3cret-from-file" {
		t.Errorf("secrets = %v", got)
	}
	if c.Vars["retries"] != 3 || c.Vars["warmup_url"] != "http://127.0.0.1:8000/" {
		t.Errorf("vars = %v", c.Vars)
	}
	us := c.Regions["US-CA"]
	if us.Proxy == "" || us.EgressCheck == nil || us.EgressCheck.ExpectStatus != 204 {
		t.Errorf("region %+v", us)
	}
	if c.Browser.Headless || c.Browser.MaxEnvironments != 2 || c.Limits.MaxLoop != 10 || c.Limits.StepTimeout != 45*time.Second || c.Policy.WriteTools != "enabled" || len(c.Policy.AllowedHosts) != 2 || c.Policy.Subresources != "allowed_hosts" {
		t.Errorf("config %+v", c)
	}
	if config.IsLoopback(c.HTTP.Addr) || !config.IsLoopback("127.0.0.1:8080") || !config.IsLoopback("localhost:1") || !config.IsLoopback("[::1]:80") {
		t.Error("IsLoopback")
	}
}

func TestMissingSecretNeverPrintsValues(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "toolwright.yaml")
	if err := os.WriteFile(file, []byte("secrets: {a: {env: TW_SURELY_UNSET_VAR}}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := config.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SecretsErr(); err == nil || !strings.Contains(err.Error(), "TW_SURELY_UNSET_VAR is not set") {
		t.Errorf("SecretsErr = %v", err)
	}
}

func TestProblems(t *testing.T) {
	src := `
workflow: ./wf
secrets:
  inline: hunter2
browser: {provider: firefox, max_environments: 0}
policy: {write_tools: maybe, subresources: allowed_hosts}
limits: {max_deadline: soon, step_timeout: 0s}
`
	_, ps := config.Parse("/x/toolwright.yaml", []byte(src))
	var got []string
	for _, p := range ps {
		got = append(got, p.String())
	}
	want := []string{
		`/x/toolwright.yaml:2:1: config: unknown key "workflow" (did you mean "workflows"?)`,
		`/x/toolwright.yaml:4:11: secrets.inline: write {env: NAME} or {file: PATH}; secret values never go in the config file itself`,
		`/x/toolwright.yaml:5:21: browser.provider must be local, cdp or webdriver, found "firefox"`,
		`/x/toolwright.yaml:5:48: browser.max_environments must be at least 1, found 0`,
		`/x/toolwright.yaml:6:9: policy.subresources: allowed_hosts needs hosts in policy.allowed_hosts (empty allows every host)`,
		`/x/toolwright.yaml:6:23: policy.write_tools must be grant, enabled or disabled, found "maybe"`,
		`/x/toolwright.yaml:7:24: limits.max_deadline must be a duration like 500ms, 10s or 2m, found "soon"`,
		`/x/toolwright.yaml:7:44: limits.step_timeout must be above 0, found 0s`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, p := range ps {
		if strings.Contains(p.Message, "hunter2") {
			t.Errorf("a problem repeats an inline secret: %s", p)
		}
	}
}

func TestBrowserSpare(t *testing.T) {
	for _, tc := range []struct {
		src     string
		want    int
		problem string
	}{
		{"# nothing set\n", 1, ""},
		{"browser: {spare: 0}\n", 0, ""},
		{"browser: {spare: 3, max_environments: 4}\n", 3, ""},
		{"browser: {spare: -1}\n", 1, "/x/toolwright.yaml:1:18: browser.spare must be at least 0, found -1"},
		{"browser: {max_environments: 2, spare: 5}\n", 2, "/x/toolwright.yaml:1:10: browser.spare (5) must not exceed browser.max_environments (2)"},
		{"browser: {spare: lots}\n", 1, "/x/toolwright.yaml:1:18: browser.spare"},
	} {
		c, ps := config.Parse("/x/toolwright.yaml", []byte(tc.src))
		var got []string
		for _, p := range ps {
			got = append(got, p.String())
		}
		if tc.problem == "" && len(got) > 0 || tc.problem != "" && (len(got) != 1 || !strings.HasPrefix(got[0], tc.problem)) {
			t.Errorf("%q: problems %q, want %q", tc.src, got, tc.problem)
		}
		if c != nil && c.Browser.Spare != tc.want {
			t.Errorf("%q: spare = %d, want %d", tc.src, c.Browser.Spare, tc.want)
		}
	}
}

func TestUserStateDir(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	// With no config file, the state dir does not depend on the working directory.
	load := func() *config.Config {
		t.Chdir(t.TempDir())
		c, err := config.Load("")
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, "xdg"))
	if c := load(); c.StateDir != filepath.Join(home, "xdg", "toolwright") || c.GrantCommand != "toolwright grant" {
		t.Errorf("with XDG_STATE_HOME: state_dir %s, grant command %q", c.StateDir, c.GrantCommand)
	}
	t.Setenv("XDG_STATE_HOME", "relative/dir") // not absolute: ignored, as the spec says
	if got := load().StateDir; got != filepath.Join(home, ".local", "state", "toolwright") {
		t.Errorf("without XDG_STATE_HOME: %s", got)
	}
}

func TestMissingSecrets(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "toolwright.yaml")
	if err := os.WriteFile(file, []byte("secrets:\n  a: {env: TOOLWRIGHT_TEST_NOPE}\n  b: {file: ./nope}\n  c: {env: TOOLWRIGHT_TEST_SET}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TOOLWRIGHT_TEST_SET", "value-c")
	c, err := config.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.MissingSecrets(); len(got) != 2 || got[0] != "a" || got[1] != "b" || c.SecretsErr() == nil {
		t.Fatalf("missing %v, err %v", got, c.SecretsErr())
	}
	if why := c.MissingSecret("a"); !strings.Contains(why, "TOOLWRIGHT_TEST_NOPE") {
		t.Errorf("a: %q", why)
	}
	if why := c.MissingSecret("b"); !strings.Contains(why, filepath.Join(dir, "nope")) || c.MissingSecret("c") != "" {
		t.Errorf("b: %q", why)
	}
	if !strings.HasPrefix(c.GrantCommand, "toolwright --config ") {
		t.Errorf("grant command %q", c.GrantCommand)
	}
}

func TestStoreURL(t *testing.T) {
	c, ps := config.Parse("/srv/tw/toolwright.yaml", []byte("store: {url: \"postgres://tw:pw@127.0.0.1:5432/tw\"}\n"))
	if len(ps) > 0 || c.Store.URL != "postgres://tw:pw@127.0.0.1:5432/tw" {
		t.Fatalf("store.url %q, %v", c.Store.URL, ps.Err())
	}
	if c, _ := config.Parse("/srv/tw/toolwright.yaml", nil); c.Store.URL != "" {
		t.Fatalf("default store.url %q, want empty (SQLite in state_dir)", c.Store.URL)
	}
	_, ps = config.Parse("/srv/tw/toolwright.yaml", []byte("store: {url: \"mysql://tw:pw@db/tw\", pool: 3}\n"))
	got := ps.Err().Error()
	if !strings.Contains(got, "store.url must be empty (SQLite in state_dir) or postgres://") || strings.Contains(got, "pw@") || !strings.Contains(got, `"pool"`) {
		t.Fatalf("problems: %s", got)
	}
}

// artifacts_dir: empty is state_dir/artifacts (also when state_dir is
// changed later, as the demo does); a relative path is relative to the file.
func TestArtifactsDir(t *testing.T) {
	c, ps := config.Parse("/srv/tw/toolwright.yaml", []byte("state_dir: /var/tw\n"))
	if len(ps) > 0 {
		t.Fatal(ps.Err())
	}
	if got := c.Artifacts(); got != "/var/tw/artifacts" {
		t.Errorf("default artifacts %s", got)
	}
	c.StateDir = "/var/demo"
	if got := c.Artifacts(); got != "/var/demo/artifacts" {
		t.Errorf("artifacts after state_dir moved: %s", got)
	}
	c, ps = config.Parse("/srv/tw/toolwright.yaml", []byte("artifacts_dir: ../shared/art\n"))
	if len(ps) > 0 {
		t.Fatal(ps.Err())
	}
	if got := c.Artifacts(); got != "/srv/shared/art" {
		t.Errorf("artifacts_dir %s", got)
	}
}

func TestRetentionAndArtifactLimit(t *testing.T) {
	c, ps := config.Parse("/srv/tw/toolwright.yaml", []byte("# nothing set\n"))
	if len(ps) > 0 {
		t.Fatal(ps.Err())
	}
	if c.Retention.Traces != 30*24*time.Hour || c.Retention.Artifacts != 7*24*time.Hour || c.Limits.MaxArtifactBytes != 5<<20 {
		t.Fatalf("defaults: retention %+v, max_artifact_bytes %d", c.Retention, c.Limits.MaxArtifactBytes)
	}
	c, ps = config.Parse("/srv/tw/toolwright.yaml", []byte("retention: {traces: 90d, artifacts: 36h}\nlimits: {max_artifact_bytes: 65536}\n"))
	if len(ps) > 0 {
		t.Fatal(ps.Err())
	}
	if c.Retention.Traces != 90*24*time.Hour || c.Retention.Artifacts != 36*time.Hour || c.Limits.MaxArtifactBytes != 65536 {
		t.Fatalf("set: %+v %d", c.Retention, c.Limits.MaxArtifactBytes)
	}
	c, ps = config.Parse("/srv/tw/toolwright.yaml", []byte("retention: {traces: 0, artifacts: \"0\"}\n"))
	if len(ps) > 0 || c.Retention.Traces != 0 || c.Retention.Artifacts != 0 {
		t.Fatalf("keep forever: %+v %v", c.Retention, ps.Err())
	}
	_, ps = config.Parse("/srv/tw/toolwright.yaml", []byte("retention:\n  traces: a month\n  artifacts: -3d\n"))
	if err := ps.Err(); err == nil || !strings.Contains(err.Error(), "toolwright.yaml:2:11: retention.traces: want a duration such as 30d") ||
		!strings.Contains(err.Error(), "retention.artifacts") {
		t.Fatalf("bad retention: %v", err)
	}
}

func TestAuditKey(t *testing.T) {
	t.Setenv(config.DefaultAuditKeyEnv, "")
	c, _ := config.Parse("/srv/tw/toolwright.yaml", []byte("# nothing set\n"))
	if k, err := c.AuditKey(); k != nil || err != nil {
		t.Fatalf("no key configured, default variable empty: %q %v", k, err)
	}
	t.Setenv(config.DefaultAuditKeyEnv, "from-the-environment")
	if k, err := c.AuditKey(); string(k) != "from-the-environment" || err != nil {
		t.Fatalf("default variable set: %q %v", k, err)
	}
	dir := t.TempDir()
	c, ps := config.Parse(filepath.Join(dir, "toolwright.yaml"), []byte("audit:\n  key: {file: audit.key}\n"))
	if len(ps) > 0 {
		t.Fatal(ps.Err())
	}
	_, err := c.AuditKey()
	var ce *config.Error
	if err == nil || !errors.As(err, &ce) || !strings.Contains(err.Error(), "audit.key: cannot read file") {
		t.Fatalf("a named key file that is missing: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "audit.key"), []byte("s3cr3t-key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if k, err := c.AuditKey(); string(k) != "s3cr3t-key" || err != nil {
		t.Fatalf("key file: %q %v", k, err)
	}
	if _, ps := config.Parse(filepath.Join(dir, "toolwright.yaml"), []byte("audit:\n  key: s3cr3t-key\n")); ps.Err() == nil || strings.Contains(ps.Err().Error(), "s3cr3t") {
		t.Fatalf("a key written in the config itself: %v", ps.Err())
	}
}

// TestSecretRedactKey: an entry of secrets may say redact: false (an
// identity, still a secret's source); RedactedValues leaves it out while
// SecretValues keeps it for fill; the key belongs to secrets only. Before
// (issue 19 (5)): redact was an unknown key.
func TestSecretRedactKey(t *testing.T) {
	t.Setenv("TW_T_USER", "admin")
	t.Setenv("TW_T_PASS", "pw-Kestrel-44")
	dir := t.TempDir()
	path := filepath.Join(dir, "toolwright.yaml")
	if err := os.WriteFile(path, []byte("secrets:\n  wp_user: {env: TW_T_USER, redact: false}\n  wp_password: {env: TW_T_PASS, redact: true}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Secrets["wp_user"].NoRedact || c.Secrets["wp_password"].NoRedact {
		t.Errorf("secrets: %+v", c.Secrets)
	}
	if got := c.SecretValues(); got["wp_user"] != "admin" || got["wp_password"] != "pw-Kestrel-44" {
		t.Errorf("SecretValues: %v", got)
	}
	if got := c.RedactedValues(); len(got) != 1 || got["wp_password"] != "pw-Kestrel-44" {
		t.Errorf("RedactedValues: %v", got)
	}
	_, ps := config.Parse("/x/toolwright.yaml", []byte("audit:\n  key: {env: K, redact: false}\nsecrets:\n  a: {env: A, redact: nope}\n"))
	msg := ps.Err().Error()
	if !strings.Contains(msg, `redact`) || len(ps) != 2 {
		t.Errorf("redact outside secrets, or not a boolean: %v", ps)
	}
}
