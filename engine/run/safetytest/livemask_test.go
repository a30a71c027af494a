package safetytest

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/htmlview"
	"github.com/toolwright/toolwright/internal/harness"
)

// rewriteSite has an editor (contenteditable), a field whose script
// rewrites what is typed (upper case, a space between characters, as a
// card number's or a code's mask does) and a plain field.
func rewriteSite(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>rewrite</title>
<div id="ed" contenteditable="true" style="min-height:2em;border:1px solid #888"></div>
<input id="up" autocomplete="off">
<input id="plain">
<script>
document.getElementById("up").addEventListener("input", (e) => {
  e.target.value = e.target.value.replace(/\s/g, "").toUpperCase().split("").join(" ");
});
</script>`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

const rewriteWorkflow = `
name: rewrite
description: Type a secret into an editor and into a field that rewrites it, and plain words elsewhere; keep the environment.
risk: read
env: new
steps:
  - open_env: {purpose: rewrite}
  - goto: ${{ config.rewrite }}/
  - fill: {target: rw.editor, value: "${{ secrets.pin }}"}
  - fill: {target: rw.up, value: "${{ secrets.pin }}"}
  - fill: {target: rw.plain, value: "plain words"}
output:
  env_id: ${{ env.id }}
`

// TestLiveViewMasksWhatSecretsWereTypedInto: a live view started
// without any secret's value (as `toolwright ui` without the service's
// secret variables) draws masked the editor a fill typed a secret into
// and the field whose script rewrote that secret, and leaves the field of
// plain words in clear. Before (issue 47, item 2): with no values to
// compare the live view masked nothing, and even with them it missed both
// (an editor's text, a value that no longer contains the secret).
func TestLiveViewMasksWhatSecretsWereTypedInto(t *testing.T) {
	t.Parallel()
	site := rewriteSite(t)
	h := harness.New(t, map[string]string{"rewrite": rewriteWorkflow}, func(c *config.Config) {
		harness.AddSelectors(t, c, "\nrw.editor:\n  css: \"#ed\"\nrw.up:\n  css: \"#up\"\nrw.plain:\n  css: \"#plain\"\n")
		c.Vars["rewrite"] = site.URL
		c.SetSecretValue("pin", "tw-pin-4471")
	})
	res := h.OK(h.Call("rewrite", `{}`))
	id, _ := res.Data["env_id"].(string)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	env, err := h.BM.Acquire(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	defer h.BM.Release(env)
	page := env.Page().Context(ctx)
	if got := page.MustEval(`() => document.getElementById("up").value`).String(); got != "T W - P I N - 4 4 7 1" {
		t.Fatalf("the rewriting field holds %q: the test proves nothing", got)
	}

	lv := htmlview.NewLive(env.Page(), htmlview.LiveOptions{Title: "take over"}) // no secret values
	srv := httptest.NewServer(http.StripPrefix("/live/e1", lv))
	defer srv.Close()
	defer lv.Close()
	firstFrame(ctx, t, srv.URL+"/live/e1/frames")

	style := func(id string) string {
		return page.MustEval(`(id) => getComputedStyle(document.getElementById(id)).webkitTextSecurity`, id).String()
	}
	for _, f := range []string{"ed", "up"} {
		if got := style(f); got != "disc" {
			t.Errorf("#%s, which a secret was typed into, is drawn with -webkit-text-security %q by the first frame, want disc", f, got)
		}
	}
	if got := style("plain"); got != "none" {
		t.Errorf("#plain (plain words) is masked too (%q): the mask is not about secrets", got)
	}
}

// firstFrame reads the live view's stream until its first frame.
func firstFrame(ctx context.Context, t *testing.T, url string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "data: ") {
			return
		}
	}
	t.Fatalf("the live view sent no frame: %v", sc.Err())
}
