// Command screenshots makes the README's pictures of the selector health
// report and of the trace viewer (`toolwright ui`) from the built-in Acme
// demo, on real Chromium. Run it with make.sh; it writes PNG files into -out.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/htmlview"
	"github.com/toolwright/toolwright/engine/policy"
	"github.com/toolwright/toolwright/engine/run"
	"github.com/toolwright/toolwright/engine/selcheck"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/internal/testsite"
)

func main() {
	out := flag.String("out", "docs/screenshots", "folder for the PNG files")
	flag.Parse()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	tmp, err := os.MkdirTemp("", "toolwright-screenshots-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	ctx := context.Background()

	d, err := app.StartDemo(nil, filepath.Join(tmp, "state"), "")
	if err != nil {
		log.Fatal(err)
	}
	defer d.Close()
	a, err := app.Open(d.Config, slog.New(slog.DiscardHandler))
	if err != nil {
		log.Fatal(err)
	}
	defer a.Close(ctx)

	// Two calls for the trace viewer: one that works, one that fails.
	call := func(tool, args string) string {
		env, err := a.Engine.Call(ctx, run.Request{Tool: tool, Args: []byte(args)})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s %s: %s (%s)\n", tool, args, env.Code, env.TraceID)
		return env.TraceID
	}
	call("search_catalog", `{"query":"bolt","max_pages":2}`)
	failed := call("product_details", `{"sku":"ACM-9999"}`)

	// The selector health report of the login page and of a redesigned copy.
	m, ps := selector.Load(d.Config.Selectors)
	if len(ps) > 0 {
		log.Fatal(ps.Err())
	}
	env, err := a.Browsers.OpenTemporary(ctx, "", "screenshots")
	if err != nil {
		log.Fatal(err)
	}
	// Sign the environment in, as selectors check --setup would.
	if err := env.Page().Navigate(d.SiteURL + "/setcookie?name=acme_user&value=buyer&next=/catalog.html"); err != nil {
		log.Fatal(err)
	}
	report := filepath.Join(tmp, "report")
	var secrets []string
	for _, v := range d.Config.RedactedValues() {
		secrets = append(secrets, v)
	}
	_, err = selcheck.Run(ctx, env.Page(), []string{d.SiteURL + "/catalog.html?q=bolt"},
		selcheck.Options{Map: m, MapPath: "examples/demo/selectors.yaml", Names: m.WithPrefix("acme.catalog."), ReportDir: report,
			Redactor: policy.NewRedactor(d.Config.RedactedValues()), Secrets: secrets})
	a.Browsers.Release(env)
	if err != nil {
		log.Fatal(err)
	}

	b, stop, err := testsite.Launch(filepath.Join(tmp, "chromium"))
	if err != nil {
		log.Fatal(err)
	}
	defer stop()
	shoot(b, "file://"+filepath.Join(report, "index.html"), filepath.Join(*out, "selectors-report.png"))
	ui := httptest.NewServer(&htmlview.UI{Store: a.Store, ArtifactsDir: a.Config.Artifacts()})
	defer ui.Close()
	shoot(b, ui.URL+"/", filepath.Join(*out, "ui-calls.png"))
	shoot(b, ui.URL+"/trace/"+failed, filepath.Join(*out, "ui-trace.png"))
}

// shoot saves a screenshot of u, 1200 px wide, at most 1600 px tall.
func shoot(b *rod.Browser, u, file string) {
	p := b.MustPage("")
	defer p.MustClose()
	p.MustSetViewport(1200, 900, 1, false)
	p.Timeout(30 * time.Second).MustNavigate(u).MustWaitLoad()
	h := p.MustEval(`() => document.documentElement.scrollHeight`).Int()
	p.MustSetViewport(1200, min(h, 1600), 1, false) // frames paint inside the viewport only
	time.Sleep(300 * time.Millisecond)
	png, err := p.Screenshot(false, &proto.PageCaptureScreenshot{Format: proto.PageCaptureScreenshotFormatPng})
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(file, png, 0o644); err != nil {
		log.Fatal(err)
	}
	fmt.Println("wrote", file)
}
