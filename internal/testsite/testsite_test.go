package testsite

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod"
)

func TestMain(m *testing.M) { Main(m) }

func get(t *testing.T, c *http.Client, u string) (*http.Response, string) {
	t.Helper()
	res, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(body)
}

func TestHandlers(t *testing.T) {
	t.Parallel()
	s := Start(t)
	if !strings.HasPrefix(s.URL("/x"), "http://127.0.0.1:") {
		t.Errorf("not on loopback: %s", s.URL("/x"))
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	for _, page := range []string{"index.html", "login.html", "catalog.html", "product.html", "broken.html", "links.html", "ambiguous.html", "products.js", "auth.js", "site.css"} {
		if res, _ := get(t, http.DefaultClient, s.URL(page)); res.StatusCode != 200 {
			t.Errorf("%s: status %d", page, res.StatusCode)
		}
	}

	res, body := get(t, noRedirect, s.URL("/redirect?to="+url.QueryEscape("http://localhost:1/x")))
	if res.StatusCode != http.StatusFound || res.Header.Get("Location") != "http://localhost:1/x" {
		t.Errorf("redirect: %d %q %s", res.StatusCode, res.Header.Get("Location"), body)
	}

	res, body = get(t, http.DefaultClient, s.URL("/status?code=503"))
	if res.StatusCode != 503 || !strings.Contains(body, "status 503") {
		t.Errorf("status: %d %s", res.StatusCode, body)
	}

	start := time.Now()
	res, body = get(t, http.DefaultClient, s.URL("/slow?ms=150"))
	if d := time.Since(start); res.StatusCode != 200 || d < 150*time.Millisecond || !strings.Contains(body, "waited 150 ms") {
		t.Errorf("slow: %d after %s: %s", res.StatusCode, d, body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL("/slow?ms=20000"), nil)
	start = time.Now()
	if _, err := http.DefaultClient.Do(req); err == nil || time.Since(start) > 10*time.Second {
		t.Errorf("slow ignored the cancelled request: %v after %s", err, time.Since(start))
	}

	res, _ = get(t, noRedirect, s.URL("/setcookie?name=acme_user&value=a%40example.com&next=/catalog.html"))
	if res.StatusCode != http.StatusFound || res.Header.Get("Location") != "/catalog.html" || len(res.Cookies()) != 1 {
		t.Errorf("setcookie: %d %q %v", res.StatusCode, res.Header.Get("Location"), res.Cookies())
	}
	req, _ = http.NewRequest(http.MethodGet, s.URL("/cookies"), nil)
	req.AddCookie(&http.Cookie{Name: "b", Value: "2"})
	req.AddCookie(&http.Cookie{Name: "a", Value: "1"})
	r2, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r2.Body)
	r2.Body.Close()
	if string(b) != "a=1\nb=2\n" {
		t.Errorf("cookies: %q", b)
	}
}

// ceiling bounds a wait for the page: generous, so that a loaded machine
// is never a failure (a condition met early returns at once).
const ceiling = 2 * time.Minute

func text(t *testing.T, p *rod.Page, css string) string {
	t.Helper()
	return strings.TrimSpace(p.Timeout(ceiling).MustElement(css).MustText())
}

func TestSignIn(t *testing.T) {
	t.Parallel()
	s := Start(t)
	p := NewPage(t, Browser(t), s.URL("/catalog.html?q=anvil"))
	// Signed out: the catalog sends us to the form, and back after it.
	p.Timeout(ceiling).MustWait(`() => location.pathname === "/login.html"`)
	if h := text(t, p, "h1"); h != "Sign in to Acme" {
		t.Fatalf("heading %q", h)
	}
	p.MustElement("#email").MustInput("buyer@example.com")
	p.MustElement("#password").MustInput("wrong")
	p.MustElement("#sign-in").MustClick()
	if e := text(t, p, "#login-error"); e != "Invalid email or password" || !p.MustElement("#login-error").MustVisible() {
		t.Fatalf("login error %q", e)
	}
	p.MustElement("#password").MustSelectAllText().MustInput("hunter2")
	wait := p.WaitNavigation("load")
	p.MustElement("#sign-in").MustClick()
	wait()
	if got := text(t, p, "#signed-in"); !strings.HasPrefix(got, "Signed in as buyer@example.com") {
		t.Errorf("catalog says %q", got)
	}
	p.Timeout(ceiling).MustElement("#results tbody tr td.sku")
	if sku := text(t, p, "#results tbody tr td.sku"); sku != "ACM-1001" {
		t.Errorf("anvil search found %q", sku)
	}

	// broken.html signs in the same way with its own ids.
	p2 := NewPage(t, Browser(t), s.URL("/broken.html"))
	p2.MustElement("#user-mail").MustInput("other@example.com")
	p2.MustElement("#user-pass").MustInput("pw")
	wait = p2.WaitNavigation("load")
	p2.MustElement("#do-sign-in").MustClick()
	wait()
	if got := text(t, p2, "#user-email"); got != "other@example.com" {
		t.Errorf("broken.html sign-in: %q", got)
	}
}

func TestCatalogPages(t *testing.T) {
	t.Parallel()
	s := Start(t)
	p := NewPage(t, Browser(t), "")
	s.SignIn(t, p, "buyer@example.com")
	Goto(t, p, s.URL("/catalog.html?delay=100"))
	p = p.Timeout(ceiling)
	if n := len(p.MustElements("#results tbody tr")); n != 0 {
		t.Fatalf("%d rows before a search", n)
	}
	p.MustElement("input[name=q]").MustInput("").MustType('\r') // Enter searches; empty = all
	var skus []string
	for page := 1; ; page++ {
		first := p.MustElement("#results tbody tr")
		rows := p.MustElements("#results tbody tr td.sku")
		for _, r := range rows {
			skus = append(skus, r.MustText())
		}
		if got := text(t, p, "#page-info"); got != "Page "+string(rune('0'+page))+" of 5" {
			t.Errorf("page info %q", got)
		}
		next := p.MustElement("#next-page")
		if next.MustProperty("disabled").Bool() {
			break
		}
		url := p.MustInfo().URL
		next.MustClick()
		// The old first row goes stale when the next page replaces it.
		p.MustWait(`(el) => !el.isConnected`, first.Object)
		if p.MustInfo().URL != url {
			t.Errorf("the URL changed on Next")
		}
	}
	if len(skus) != 23 || skus[0] != "ACM-1001" || skus[22] != "ACM-1023" {
		t.Errorf("read %d skus: %v", len(skus), skus)
	}

	// Sort and search again: the table empties at once (in the change
	// event), then refills.
	p.MustElement("#sort").MustSelect("Price: high to low")
	if sku := text(t, p, "#results tbody tr td.sku"); sku != "ACM-1022" {
		t.Errorf("most expensive first: %q", sku)
	}

	// A row's detail link leads to the product page.
	wait := p.WaitNavigation("load")
	p.MustElement("#results tbody tr a.detail").MustClick()
	wait()
	if got := text(t, p, "#product-name"); got != "Rocket sled" {
		t.Errorf("product %q", got)
	}
	p.MustElement("#add-to-cart").MustClick()
	if got := text(t, p, "#cart-status"); got != "Added" {
		t.Errorf("cart status %q", got)
	}
}

func TestLinks(t *testing.T) {
	t.Parallel()
	s := Start(t)
	other := strings.Replace(s.URL("/login.html"), "127.0.0.1", "localhost", 1)
	p := NewPage(t, Browser(t), s.URL("/links.html?other="+url.QueryEscape(other)))
	if href := p.MustElement("#external").MustProperty("href").Str(); href != other {
		t.Errorf("external link %q, want %q", href, other)
	}
	wait := p.WaitNavigation("load")
	p.MustElement("#go-other").MustClick()
	wait()
	if got := p.MustInfo().URL; got != other {
		t.Errorf("the button went to %q", got)
	}
}

func TestLaunchBrowser(t *testing.T) {
	t.Parallel()
	b := LaunchBrowser(t)
	s := Start(t)
	p := NewPage(t, b, s.URL("/cookies"))
	if got := text(t, p, "body"); got != "" {
		t.Errorf("a fresh context has cookies: %q", got)
	}
}

// recordTB notes whether a test was skipped or failed, stopping like testing does.
type recordTB struct {
	testing.TB
	skipped, failed bool
}

type stopped struct{}

func (r *recordTB) Helper()               {}
func (r *recordTB) Skip(...any)           { r.skipped = true; panic(stopped{}) }
func (r *recordTB) Fatalf(string, ...any) { r.failed = true; panic(stopped{}) }

// TestRequireChromium: with TOOLWRIGHT_REQUIRE_CHROMIUM=1 a missing Chromium
// fails the test instead of skipping it. Before: it always skipped.
func TestRequireChromium(t *testing.T) {
	for _, tc := range []struct {
		env           string
		skip, failure bool
	}{{"", true, false}, {"1", false, true}} {
		t.Setenv(RequireChromiumEnv, tc.env)
		r := &recordTB{TB: t}
		func() {
			defer func() {
				if p := recover(); p != nil && p != (stopped{}) {
					panic(p)
				}
			}()
			skipNoChromium(r)
		}()
		if r.skipped != tc.skip || r.failed != tc.failure {
			t.Errorf("%s=%q: skipped %v, failed %v", RequireChromiumEnv, tc.env, r.skipped, r.failed)
		}
	}
}
