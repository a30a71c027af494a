package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// playwrightState is a storage state as Playwright's
// browserContext.storageState() writes it.
const playwrightState = `{
  "cookies": [
    {"name": "sid", "value": "c00kie-value-9f2e", "domain": "127.0.0.1", "path": "/", "expires": 1893456000, "httpOnly": true, "secure": false, "sameSite": "Lax"},
    {"name": "tmp", "value": "t", "domain": ".example.com", "path": "/app", "expires": -1, "httpOnly": false, "secure": true, "sameSite": "None"}
  ],
  "origins": [
    {"origin": "http://127.0.0.1:8000", "localStorage": [{"name": "theme", "value": "dark"}, {"name": "token", "value": "abc"}]}
  ]
}`

// TestCLISessionsRoundTrip: import → list → export gives Playwright's
// format back unchanged; the database never holds the cookie in clear;
// clear --purpose removes it; without a key, import is a usage error.
func TestCLISessionsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "toolwright.yaml")
	if err := os.WriteFile(cfg, []byte("state_dir: ./state\nsessions: {key: {env: TW_TEST_SESSION_KEY}, ttl: 2d}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "state.json")
	if err := os.WriteFile(in, []byte(playwrightState), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(want int, args ...string) (string, string) {
		t.Helper()
		var out, errb bytes.Buffer
		root := newRoot(&out, &errb)
		root.SetArgs(append([]string{"--config", cfg}, args...))
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		if code := exitStatus(root, root.ExecuteContext(ctx), &errb); code != want {
			t.Fatalf("toolwright %s: exit %d, want %d\n%s%s", strings.Join(args, " "), code, want, out.String(), errb.String())
		}
		return out.String(), errb.String()
	}
	t.Setenv("TW_TEST_SESSION_KEY", "")
	_, stderr := run(2, "sessions", "import", "--purpose", "shop", in)
	if !strings.Contains(stderr, "sessions.key") {
		t.Errorf("import without a key: %q", stderr)
	}
	t.Setenv("TW_TEST_SESSION_KEY", "the key of the round-trip test")
	run(0, "sessions", "import", "--purpose", "shop", in)
	out, _ := run(0, "sessions", "list", "--format", "json")
	var list []map[string]any
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 1 || list[0]["purpose"] != "shop" || list[0]["saved_by"] != "import" {
		t.Fatalf("list = %s (%v)", out, err)
	}
	out, _ = run(0, "sessions", "export", "--purpose", "shop")
	var got, want any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal([]byte(playwrightState), &want)
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Errorf("export after import:\n%s\nwant\n%s", g, w)
	}
	db, _ := os.ReadFile(filepath.Join(dir, "state", "toolwright.db"))
	wal, _ := os.ReadFile(filepath.Join(dir, "state", "toolwright.db-wal"))
	if bytes.Contains(db, []byte("c00kie-value-9f2e")) || bytes.Contains(wal, []byte("c00kie-value-9f2e")) {
		t.Error("the database holds the cookie value in clear")
	}
	t.Setenv("TW_TEST_SESSION_KEY", "another key, not the one it was sealed with")
	_, stderr = run(1, "sessions", "export", "--purpose", "shop")
	if !strings.Contains(stderr, "another sessions.key") {
		t.Errorf("export with a wrong key: %q", stderr)
	}
	run(0, "sessions", "clear", "--purpose", "shop")
	out, _ = run(0, "sessions", "list", "--format", "json")
	if strings.TrimSpace(out) != "[]" {
		t.Errorf("after clear: %s", out)
	}
	run(2, "sessions", "import", "--purpose", "shop", filepath.Join(dir, "nope.json"))
}

// sessionsCLI writes a config with sessions on into a temporary folder
// and returns it and a runner of commands on it.
func sessionsCLI(t *testing.T) (string, func(want int, args ...string) (string, string)) {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "toolwright.yaml")
	if err := os.WriteFile(cfg, []byte("state_dir: ./state\nsessions: {key: {env: TW_TEST_SESSION_KEY}, ttl: 2d}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TW_TEST_SESSION_KEY", "the key of the sessions tests, 32+")
	return dir, func(want int, args ...string) (string, string) {
		t.Helper()
		var out, errb bytes.Buffer
		root := newRoot(&out, &errb)
		root.SetArgs(append([]string{"--config", cfg}, args...))
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		if code := exitStatus(root, root.ExecuteContext(ctx), &errb); code != want {
			t.Fatalf("toolwright %s: exit %d, want %d\n%s%s", strings.Join(args, " "), code, want, out.String(), errb.String())
		}
		return out.String(), errb.String()
	}
}

// import checks each cookie as Chromium would: a state holding cookies it
// refuses is not saved, and each refused one is named with its rule, never
// its value. Before, import said "saved" and the one refused cookie made
// every restore of the purpose start signed out.
func TestCLISessionsImportRefusesBadCookies(t *testing.T) {
	dir, run := sessionsCLI(t)
	in := filepath.Join(dir, "bad.json")
	long := strings.Repeat("L0ng", 1250)
	bad := `{"cookies": [
  {"name": "sid", "value": "good-s1d-value", "domain": "127.0.0.1", "path": "/", "expires": -1, "httpOnly": true, "secure": false, "sameSite": "Lax"},
  {"name": "__Host-pref", "value": "h0st-value", "domain": "127.0.0.1", "path": "/", "expires": -1, "httpOnly": false, "secure": false, "sameSite": "Lax"},
  {"name": "scoped", "value": "sc0ped-value", "domain": "127.0.0.1", "path": "account", "expires": -1, "httpOnly": false, "secure": false, "sameSite": "Lax"},
  {"name": "big", "value": "` + long + `", "domain": "127.0.0.1", "path": "/", "expires": -1, "httpOnly": false, "secure": false, "sameSite": "Lax"}
], "origins": []}`
	if err := os.WriteFile(in, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	_, stderr := run(2, "sessions", "import", "--purpose", "shop", in)
	for _, want := range []string{
		`Chromium would refuse 3 cookie(s), so nothing was saved`,
		`cookies[1] "__Host-pref" (domain 127.0.0.1, path /): a __Host- cookie must be secure`,
		`cookies[2] "scoped" (domain 127.0.0.1, path account): its path does not start with /`,
		`cookies[3] "big" (domain 127.0.0.1, path /): its name and value are 5003 bytes; Chromium takes at most 4096`,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("import of refused cookies: stderr lacks %q:\n%s", want, stderr)
		}
	}
	for _, v := range []string{"h0st-value", "sc0ped-value", "L0ngL0ng", "good-s1d"} {
		if strings.Contains(stderr, v) {
			t.Errorf("stderr holds a cookie value %q", v)
		}
	}
	if out, _ := run(0, "sessions", "list", "--format", "json"); strings.TrimSpace(out) != "[]" {
		t.Errorf("a refused import saved a session: %s", out)
	}
}

// export --out writes mode 0600 whatever FILE was: before, an existing
// 0644 file kept its mode with the cookies in it.
func TestCLISessionsExportIsPrivate(t *testing.T) {
	dir, run := sessionsCLI(t)
	in := filepath.Join(dir, "state.json")
	if err := os.WriteFile(in, []byte(playwrightState), 0o600); err != nil {
		t.Fatal(err)
	}
	run(0, "sessions", "import", "--purpose", "shop", in)
	for _, tc := range []struct {
		name string
		prep func(path string)
	}{
		{"new", func(string) {}},
		{"existing_0644", func(p string) { os.WriteFile(p, []byte("old contents, longer than nothing"), 0o644) }},
		{"existing_0666", func(p string) { os.WriteFile(p, nil, 0o644); os.Chmod(p, 0o666) }},
	} {
		out := filepath.Join(dir, tc.name+".json")
		tc.prep(out)
		run(0, "sessions", "export", "--purpose", "shop", "--out", out)
		fi, err := os.Stat(out)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: export --out left mode %v, want 0600", tc.name, fi.Mode().Perm())
		}
		b, _ := os.ReadFile(out)
		if !strings.Contains(string(b), "c00kie-value-9f2e") || strings.Contains(string(b), "old contents") {
			t.Errorf("%s: export wrote %q", tc.name, b)
		}
	}
	if tmp, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(tmp) != 0 {
		t.Errorf("temporary files left: %v", tmp)
	}
}

// TestCLISessionsSessionStorage: import reads each origin's sessionStorage
// (the extra key Playwright ignores) and export writes it back; an origin
// with only session storage still has its localStorage list. A session
// with nothing in it is imported with a warning naming the purpose, and
// list shows it as empty. Before (issue 48): export dropped sessionStorage
// and an empty session said nothing anywhere.
func TestCLISessionsSessionStorage(t *testing.T) {
	dir, run := sessionsCLI(t)
	state := `{"cookies": [], "origins": [
  {"origin": "http://127.0.0.1:8000", "localStorage": [], "sessionStorage": [{"name": "token", "value": "s3ss-t0ken"}]}
]}`
	in, blank := filepath.Join(dir, "state.json"), filepath.Join(dir, "blank.json")
	if err := os.WriteFile(in, []byte(state), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(blank, []byte(`{"cookies": [], "origins": []}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, stderr := run(0, "sessions", "import", "--purpose", "tab", in); strings.Contains(stderr, "warning") {
		t.Errorf("import of a session holding a token warned: %s", stderr)
	}
	out, _ := run(0, "sessions", "export", "--purpose", "tab")
	var got, want any
	_ = json.Unmarshal([]byte(out), &got)
	_ = json.Unmarshal([]byte(state), &want)
	if g, w := mustJSON(t, got), mustJSON(t, want); g != w {
		t.Errorf("export after import:\n%s\nwant\n%s", g, w)
	}
	_, stderr := run(0, "sessions", "import", "--purpose", "blank", blank)
	if !strings.Contains(stderr, `warning: purpose "blank": the saved session holds nothing`) {
		t.Errorf("import of an empty session: stderr %q", stderr)
	}
	out, _ = run(0, "sessions", "list", "--format", "json")
	var list []map[string]any
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 2 {
		t.Fatalf("list = %s (%v)", out, err)
	}
	holds := map[any]any{}
	for _, s := range list {
		holds[s["purpose"]] = s["holds"]
	}
	if holds["blank"] != "empty" || holds["tab"] != "0 cookies, 1 origin (0 local, 1 session storage items)" {
		t.Errorf("list holds = %v", holds)
	}
	if out, _ := run(0, "sessions", "list"); !strings.Contains(out, "empty") {
		t.Errorf("list (text) does not show the empty session:\n%s", out)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
