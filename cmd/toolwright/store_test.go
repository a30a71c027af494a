package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolwright/toolwright/internal/testsite"
)

// TestFullDiskRefusesCalls: the state filesystem fills up under a running
// server (prlimit sets the serve process's file size limit to 1 byte, so
// every write that grows a file fails with EFBIG, as on a full disk): the
// next call of a read tool answers store_unavailable, retryable, and its
// page is never requested. Before, the call ran and answered ok with no
// audit record.
func TestFullDiskRefusesCalls(t *testing.T) {
	testsite.NeedChromium(t)
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("no prlimit (util-linux)")
	}
	bin := serveBinary(t)
	var hits atomic.Int32
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Write([]byte(`<!doctype html><title>t</title><h1>Heading</h1>`))
	}))
	defer site.Close()
	cfg := serveSet(t, t.TempDir(), site.URL, serveWorkflows)
	p := startStdio(t, bin, "serve", "--config", cfg)
	p.listTools(t)
	call := func(id int64) map[string]any {
		t.Helper()
		p.send(t, `{"jsonrpc":"2.0","id":`+strconv.FormatInt(id, 10)+`,"method":"tools/call","params":{"name":"read_title","arguments":{}}}`)
		var res struct{ StructuredContent map[string]any }
		if err := json.Unmarshal(p.await(t, id, 60*time.Second).Result, &res); err != nil {
			t.Fatal(err)
		}
		return res.StructuredContent
	}
	if env := call(10); env["code"] != "ok" {
		t.Fatalf("first call: %v", env)
	}
	if out, err := exec.Command(prlimit, "--pid", strconv.Itoa(p.cmd.Process.Pid), "--fsize=1").CombinedOutput(); err != nil {
		t.Skipf("prlimit: %v: %s", err, out)
	}
	before := hits.Load()
	env := call(11)
	if env["code"] != "store_unavailable" || env["retryable"] != true {
		t.Fatalf("with the disk full: %v\nstderr: %s", env, p.stderr.String())
	}
	if n := hits.Load() - before; n != 0 {
		t.Fatalf("the call ran (%d requests) though the store could not record it", n)
	}
}
