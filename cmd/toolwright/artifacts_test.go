package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/htmlview"
	"github.com/toolwright/toolwright/engine/store"
)

// TestArtifactsDir: with artifacts_dir set, a failed call's screenshot and
// page HTML go there (not under state_dir), the trace records them relative
// to it, and the ui finds them through the config, wherever the folder is
// mounted.
func TestArtifactsDir(t *testing.T) {
	t.Parallel()
	c := newCLISetup(t)
	b, err := os.ReadFile(c.cfg)
	cliMust(t, err)
	cliMust(t, os.WriteFile(c.cfg, append(b, "artifacts_dir: ./shared\n"...), 0o644))
	shared := filepath.Join(filepath.Dir(c.cfg), "shared")

	failed := envelope(t, first(c.mustCLI(t, exitFailed, "run", "product_details", "--arg", "sku=ACM-9999"))) // no secret typed: its screenshot is kept
	out, _ := c.mustCLI(t, 0, "traces", failed.TraceID)
	var tr store.Trace
	cliMust(t, json.Unmarshal([]byte(out), &tr))
	want := []string{failed.TraceID + "/failure.png", failed.TraceID + "/page.html"}
	if strings.Join(tr.Artifacts, " ") != strings.Join(want, " ") {
		t.Fatalf("trace artifacts %v, want %v (relative to artifacts_dir)", tr.Artifacts, want)
	}
	for _, a := range tr.Artifacts {
		if fi, err := os.Stat(filepath.Join(shared, a)); err != nil || fi.Size() == 0 {
			t.Errorf("%s is not in artifacts_dir: %v", a, err)
		}
	}
	if _, err := os.Stat(filepath.Join(c.state, "artifacts", failed.TraceID)); !os.IsNotExist(err) {
		t.Errorf("artifacts were also written under state_dir: %v", err)
	}

	// Another replica mounts the shared folder elsewhere: its config names
	// that path, and the same trace's files are found there.
	moved := filepath.Join(t.TempDir(), "mnt")
	cliMust(t, os.Rename(shared, moved))
	cfg, err := config.Load(c.cfg)
	cliMust(t, err)
	cfg.ArtifactsDir = moved
	st, err := app.OpenStore(cfg)
	cliMust(t, err)
	defer st.Close()
	srv := httptest.NewServer(&htmlview.UI{Store: st, ArtifactsDir: cfg.Artifacts()})
	defer srv.Close()
	for _, name := range []string{"page.html", "failure.png"} {
		resp, err := http.Get(srv.URL + "/artifact/" + failed.TraceID + "/" + name)
		cliMust(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || len(body) == 0 {
			t.Errorf("ui %s: %d, %d bytes", name, resp.StatusCode, len(body))
		}
	}
}
