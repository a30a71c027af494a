package mcpserver_test

import (
	"context"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/mcpserver"
	"github.com/toolwright/toolwright/internal/testsite"
)

// TestDownloadResources: a download's reference names the file by a path
// relative to state_dir and by an MCP resource URI, which a client reads
// with resources/read over Streamable HTTP (where a server path is of no
// use): the text with secrets redacted. A write tool's file needs that
// call's grant, as the call did; unknown, partial and escaping names are
// not found.
func TestDownloadResources(t *testing.T) {
	testsite.NeedChromium(t)
	site := testsite.StartReal(t)
	dir := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(dir, "workflows"), 0o755))
	t.Setenv("TW_TEST_ORDER_SECRET", "NW-4960")
	cfg := "workflows: ./workflows\nselectors: ./selectors.yaml\nstate_dir: ./state\n" +
		"vars:\n  shop: " + strings.TrimSuffix(site.URL(""), "/") + "\npolicy:\n  write_tools: grant\n  allowed_hosts: [127.0.0.1]\n" +
		"secrets:\n  order_no: {env: TW_TEST_ORDER_SECRET}\n"
	must(t, os.WriteFile(filepath.Join(dir, "toolwright.yaml"), []byte(cfg), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "selectors.yaml"), []byte("shop.export:\n  css: \"a#export-csv\"\n"), 0o644))
	steps := "steps:\n  - goto: ${{ config.shop }}/orders.html\n  - download: {click: shop.export, into: csv}\noutput:\n  csv: ${{ vars.csv }}\n"
	must(t, os.WriteFile(filepath.Join(dir, "workflows", "export.yaml"), []byte("name: export\ndescription: Export the orders.\nrisk: read\n"+steps), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "workflows", "export_w.yaml"), []byte("name: export_w\ndescription: Export the orders, as a write tool.\nrisk: write\n"+steps), 0o644))
	a, err := app.OpenServer(loadConfig(t, filepath.Join(dir, "toolwright.yaml")), slog.New(slog.DiscardHandler), nil)
	must(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = a.Close(ctx)
	})
	srv := newServer(t, a.Engine, mcpserver.Options{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = srv.ServeListener(ctx, ln, "") }()
	c := mcp.NewClient(&mcp.Implementation{Name: "resources-test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + ln.Addr().String() + mcpserver.Path}, nil)
	must(t, err)
	defer cs.Close()

	if cs.InitializeResult().Capabilities.Resources == nil {
		t.Errorf("the server does not advertise resources")
	}
	tpl, err := cs.ListResourceTemplates(ctx, nil)
	must(t, err)
	if len(tpl.ResourceTemplates) != 1 || tpl.ResourceTemplates[0].URITemplate != "toolwright://downloads/{trace}/{name}" {
		t.Errorf("resource templates: %+v", tpl.ResourceTemplates)
	}

	call := func(tool string, args map[string]any) (map[string]any, string) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		must(t, err)
		env := checkResult(t, res)
		if env["ok"] != true {
			t.Fatalf("%s: %v", tool, env)
		}
		ref := env["data"].(map[string]any)["csv"].(map[string]any)
		return ref, env["trace_id"].(string)
	}
	ref, trace := call("export", map[string]any{})
	want, err := os.ReadFile(filepath.Join(testsite.RealDir(), "export", "orders.csv"))
	must(t, err)
	if !filepath.IsAbs(ref["file"].(string)) || !strings.HasSuffix(ref["file"].(string), "/downloads/"+trace+"/orders.csv") || ref["uri"] != "toolwright://downloads/"+trace+"/orders.csv" ||
		ref["name"] != "orders.csv" || ref["mime"] != "text/csv" || ref["bytes"] != float64(len(want)) {
		t.Errorf("file reference: %v", ref)
	}
	saved, err := os.ReadFile(ref["file"].(string))
	if err != nil || string(saved) != string(want) {
		t.Errorf("the file under state_dir differs (%v)", err)
	}
	read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: ref["uri"].(string)})
	must(t, err)
	if len(read.Contents) != 1 || read.Contents[0].MIMEType != "text/csv" || read.Contents[0].URI != ref["uri"] {
		t.Fatalf("resources/read: %+v", read.Contents)
	}
	if got, redacted := read.Contents[0].Text, strings.ReplaceAll(string(want), "NW-4960", "[redacted:order_no]"); got != redacted || !strings.Contains(got, "NW-4959") {
		t.Errorf("resources/read text (secrets redacted):\n%s\nwant\n%s", got, redacted)
	}

	for _, uri := range []string{
		"toolwright://downloads/" + trace + "/other.csv",
		"toolwright://downloads/tr_01M8RZBDNPTJHVBE9S11DK0BP7/orders.csv",
		"toolwright://downloads/" + trace + "/..%2F..%2Ftoolwright.yaml",
		"toolwright://downloads/" + trace + "/%2e%2e",
		"toolwright://downloads/" + trace + "/0b5d8a2e-1c2f-4f0e-9d1a-2b3c4d5e6f70.crdownload",
		"toolwright://downloads/../state.db",
	} {
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri}); err == nil || !strings.Contains(err.Error(), "not found") {
			t.Errorf("%s: %v, want not found", uri, err)
		}
	}

	// A write tool's download: readable while the call's grant lives.
	g, err := a.Store.AddGrant(ctx, "export_w", "T-dl", time.Hour, "test", "tester")
	must(t, err)
	ref, _ = call("export_w", map[string]any{"task_id": "T-dl"})
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: ref["uri"].(string)}); err != nil {
		t.Errorf("with the grant: %v", err)
	}
	must(t, a.Store.Revoke(ctx, g.ID))
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: ref["uri"].(string)}); err == nil || !strings.Contains(err.Error(), "not_granted") {
		t.Errorf("after the grant was revoked: %v, want not_granted", err)
	}
}
