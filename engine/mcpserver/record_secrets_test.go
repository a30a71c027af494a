package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/mcpserver"
	"github.com/toolwright/toolwright/internal/testsite"
)

// secretFieldsPage has a password field with a "show password" toggle, a
// PIN field drawn as dots, a field of at most 6 characters and a field
// whose text the page echoes in a paragraph.
const secretFieldsPage = `<!doctype html><title>secrets</title>
<p><label>Password <input id="pw" type="password"></label> <button id="show" type="button" onclick="document.getElementById('pw').type = 'text'">Show</button></p>
<p><label>PIN <input id="pin" autocomplete="one-time-code" style="-webkit-text-security: disc"></label></p>
<p><label>Code <input id="code" maxlength="6"></label></p>
<p><label>Note <input id="note"></label></p><p id="echo"></p>
<script>document.getElementById('note').addEventListener('input', (e) => { document.getElementById('echo').textContent = e.target.value })</script>`

// TestRecordingKeepsTypedSecrets (issue 47, item 4): what is typed into
// secret fields never reaches a page_snapshot answer or a draft's files:
// a password typed after the page's "show password" (the field is text
// now), a PIN in a text field drawn as dots, the part of a secret a
// maxlength field would keep (page_fill {secret} is refused, as fill is),
// and the start of a long secret the snapshot's cut leaves. Before: each
// was in the snapshot, and the password and the PIN were drafted as
// parameters whose recorded arguments the test file held.
func TestRecordingKeepsTypedSecrets(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, secretFieldsPage)
	}))
	t.Cleanup(site.Close)
	long := strings.Repeat("Lq9-wZr4-", 17) // 153 characters: past both cuts (80, 120)
	cfg := config.Default(t.TempDir())
	cfg.Policy.AllowedHosts = []string{"127.0.0.1"}
	cfg.Browser.Spare = 0
	cfg.SetSecretValue("long_token", long)
	cfg.SetSecretValue("code_key", "zx81-spectrum")
	must(t, os.MkdirAll(cfg.Workflows, 0o755))
	must(t, os.MkdirAll(filepath.Dir(cfg.Selectors), 0o755))
	must(t, os.WriteFile(cfg.Selectors, []byte("# the map\nsec.heading:\n  css: h1\n"), 0o644))
	a, err := app.OpenServer(cfg, slog.New(slog.DiscardHandler), nil)
	must(t, err)
	t.Cleanup(func() { _ = a.Close(context.Background()) })
	srv := newServer(t, a.Engine, mcpserver.Options{})
	must(t, srv.EnableRecording(cfg))
	f := &fixture{srv: srv, events: &events{changed: make(chan struct{}, 16)}}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	for _, tool := range []string{"page_fill", "page_click", "save_workflow"} {
		_, err := a.Store.AddGrant(ctx, tool, "rec-s", 15*time.Minute, "test", "test")
		must(t, err)
	}
	leaks := []string{"Hunter-Typed-77", "482913", "zx81", long[:8]}

	// The PIN alone: a password the config lacks, never drafted.
	s := recSession(ctx, t, f.connect(t))
	els := s.ok("page_open", map[string]any{"url": site.URL + "/"})["elements"].(string)
	s.ok("page_fill", map[string]any{"ref": s.ref(els, `\S+ "PIN"`), "value": "482913", "task_id": "rec-s"})
	if env := s.call("save_workflow", map[string]any{"name": "pin", "description": "Type a PIN.", "task_id": "rec-s"}); env["ok"] == true {
		t.Errorf("a draft was saved with a PIN typed into a field drawn as dots: %v", env)
	}
	// Then every other field, the snapshot and the draft.
	s.ok("page_click", map[string]any{"ref": s.ref(els, `button "Show"`), "task_id": "rec-s"})
	s.ok("page_fill", map[string]any{"ref": s.ref(els, `\S+ "Password"`), "value": "Hunter-Typed-77", "task_id": "rec-s"})
	if env := s.call("page_fill", map[string]any{"ref": s.ref(els, `\S+ "Code"`), "secret": "code_key", "task_id": "rec-s"}); env["code"] != "invalid_params" || !strings.Contains(fmt.Sprint(env["message"]), "maxlength") {
		t.Errorf("page_fill {secret} longer than the field's maxlength: %v, want invalid_params naming maxlength", env)
	}
	s.ok("page_fill", map[string]any{"ref": s.ref(els, `\S+ "Note"`), "secret": "long_token", "task_id": "rec-s"})
	snap := s.ok("page_snapshot", nil)["elements"].(string)
	if !strings.Contains(snap, "[redacted:long_token]") {
		t.Errorf("the echo of the long secret is not in the snapshot, redacted: the test proves nothing:\n%s", snap)
	}
	for _, l := range leaks {
		if strings.Contains(snap, l) {
			t.Errorf("page_snapshot shows %q:\n%s", l, snap)
		}
	}
	if env := s.call("save_workflow", map[string]any{"name": "typed", "description": "Type into secret fields.", "task_id": "rec-s"}); env["ok"] == true {
		t.Errorf("a draft was saved with a password typed into a field the page showed as text: %v", env)
	}
	_ = filepath.WalkDir(cfg.Workflows, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := os.ReadFile(p)
		for _, l := range leaks {
			if strings.Contains(string(b), l) {
				t.Errorf("%s holds %q", p, l)
			}
		}
		return nil
	})
}

// recSess calls the recording tools of one MCP session.
type recSess struct {
	ctx context.Context
	t   *testing.T
	cs  *mcp.ClientSession
}

func recSession(ctx context.Context, t *testing.T, cs *mcp.ClientSession) *recSess {
	return &recSess{ctx: ctx, t: t, cs: cs}
}

func (s *recSess) call(name string, args map[string]any) map[string]any {
	s.t.Helper()
	res, err := s.cs.CallTool(s.ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	must(s.t, err)
	var env map[string]any
	b, _ := json.Marshal(res.StructuredContent)
	must(s.t, json.Unmarshal(b, &env))
	return env
}

func (s *recSess) ok(name string, args map[string]any) map[string]any {
	s.t.Helper()
	env := s.call(name, args)
	if env["ok"] != true {
		s.t.Fatalf("%s %v: %v", name, args, env)
	}
	d, _ := env["data"].(map[string]any)
	return d
}

func (s *recSess) ref(elements, pattern string) string {
	s.t.Helper()
	m := regexp.MustCompile(`\[(e\d+)\] ` + pattern).FindStringSubmatch(elements)
	if m == nil {
		s.t.Fatalf("no element %q in the snapshot:\n%s", pattern, elements)
	}
	return m[1]
}
