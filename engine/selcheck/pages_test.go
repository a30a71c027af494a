package selcheck

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolwright/toolwright/engine/policy"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/internal/testsite"
)

const pagesMap = `shop.signin:
  pages: ["*/signin.html*"]
shop.signin.email:
  css: "#email"
  fallbacks:
    - css: input[name=email]
shop.orders.table:
  css: "#orders"
  pages: ["*/orders.html*"]
shop.heading:
  css: h1
shop.note:
  css: "#note"
  fallbacks:
    - css: input[name=email]
`

// TestCheckWherePagesSay (issue 23): a target is checked only on the pages
// its entry or its prefix's entry names in pages:, and reported elsewhere
// on the others, not broken; a fallback that finds only an <input
// type=hidden> does not make a good primary "broken: fix it". Failed
// before: on orders.html shop.signin.email was "fallback ... primary css
// \"#email\" is broken: fix it" (a hidden field named email) and
// shop.orders.table not_found on signin.html.
func TestCheckWherePagesSay(t *testing.T) {
	t.Parallel() // its own folder and browser context
	testsite.NeedChromium(t)
	dir := t.TempDir()
	mapPath := filepath.Join(dir, "selectors.yaml")
	if err := os.WriteFile(mapPath, []byte(pagesMap), 0o644); err != nil {
		t.Fatal(err)
	}
	m, ps := selector.Load(mapPath)
	if len(ps) > 0 {
		t.Fatal(ps.Err())
	}
	fixture := func(name string) string {
		p, err := filepath.Abs(filepath.Join("..", "..", "testdata", "selcheck", name))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	tab := testsite.NewPage(t, testsite.Browser(t), "")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := Run(ctx, tab, []string{fixture("signin.html"), fixture("orders.html")}, Options{Map: m, MapPath: mapPath, Redactor: policy.NewRedactor(nil)})
	if err != nil || len(res) != 2 {
		t.Fatalf("run: %v %+v", err, res)
	}
	status := func(p *Page) map[string]string {
		out := map[string]string{}
		for _, h := range p.Targets {
			out[h.Name] = h.Status
		}
		return out
	}
	if diff := cmp.Diff(map[string]string{"shop.signin.email": "primary", "shop.heading": "primary", "shop.note": "fallback"}, status(res[0])); diff != "" {
		t.Errorf("signin.html (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"shop.orders.table"}, res[0].Elsewhere); diff != "" {
		t.Errorf("signin.html elsewhere (-want +got):\n%s", diff)
	}
	// The HTML report lists them too (it showed only the checked ones).
	if diff := cmp.Diff(res[0].Elsewhere, res[0].report.Elsewhere); diff != "" {
		t.Errorf("signin.html's report page, elsewhere (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"shop.orders.table": "primary", "shop.heading": "primary", "shop.note": "not_found"}, status(res[1])); diff != "" {
		t.Errorf("orders.html (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"shop.signin.email"}, res[1].Elsewhere); diff != "" {
		t.Errorf("orders.html elsewhere (-want +got):\n%s", diff)
	}
	for _, h := range res[1].Targets {
		if h.Name == "shop.note" && !strings.Contains(h.Message, `fallback 1 css "input[name=email]" matched only hidden input fields (type=hidden), not counted`) {
			t.Errorf("shop.note on orders.html: %s", h.Message)
		}
	}
	var b strings.Builder
	if err := Write(&b, res, "text"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "elsewhere\t1 target lives on other pages (pages:), not checked here: shop.signin.email") {
		t.Errorf("text:\n%s", b.String())
	}
}
