package selector

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/google/go-cmp/cmp"
	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/internal/testsite"
)

func TestMain(m *testing.M) { testsite.Main(m) }

// acmeMap mirrors what selectors/selectors.yaml holds for the fixture site.
const acmeMap = `
acme.login.email:
  css: input[name=email]
  fallbacks:
    - label: Email
acme.login.password:
  css: input[name=password]
  fallbacks:
    - label: Password
acme.login.submit:
  css: "#login-form button[type=submit]"
  fallbacks:
    - role: button
      name: Sign in
    - text: Sign in
acme.login.error:
  css: "#login-error"
  fallbacks:
    - css: "[role=alert]"
acme.catalog.search_box:
  css: input[name=q]
  fallbacks:
    - label: Search catalog
acme.catalog.rows:
  css: "#results tbody tr"
  many: true
acme.catalog.row_sku:
  within: acme.catalog.rows
  css: td.sku
acme.catalog.row_name:
  within: acme.catalog.rows
  css: td.name
acme.catalog.next_page:
  css: "#next-page"
  fallbacks:
    - role: button
      name: Next
acme.missing:
  css: "#nope"
  fallbacks:
    - text: Nope
acme.ambiguous.save:
  css: button.save
`

func loadMap(t testing.TB, src string) *Map {
	t.Helper()
	m, ps := Parse("selectors.yaml", []byte(src))
	if len(ps) > 0 {
		t.Fatalf("selector map: %v", ps)
	}
	return m
}

func target(t testing.TB, src string) *Target {
	t.Helper()
	m := loadMap(t, "test.target:\n  "+src)
	return m.Targets["test.target"]
}

// open starts the fixture site and opens path in a fresh incognito page,
// signed in when signIn is set.
func open(t testing.TB, path string, signIn bool) (*testsite.Site, *rod.Page) {
	t.Helper()
	site := testsite.Start(t)
	p := testsite.NewPage(t, testsite.Browser(t), "")
	if signIn {
		site.SignIn(t, p, "buyer@example.com")
	}
	testsite.Goto(t, p, site.URL(path))
	return site, p
}

func resolveIn(t testing.TB, p *rod.Page, parent *rod.Element, tg *Target, timeout time.Duration, opt Options) (*Match, error) {
	t.Helper()
	ctx, cancel := WithBudget(context.Background(), timeout)
	defer cancel()
	return Resolve(ctx, p, parent, tg, opt)
}

func mustResolve(t testing.TB, p *rod.Page, parent *rod.Element, tg *Target) *Match {
	t.Helper()
	// A generous ceiling: the target is there, and resolving ends when it
	// is found (3s failed at a load of 80).
	m, err := resolveIn(t, p, parent, tg, 30*time.Second, Options{})
	if err != nil {
		t.Fatalf("resolve %s: %v", tg.Locators[0].Describe(), err)
	}
	return m
}

// ids names each matched element by its id, or else its text.
func ids(t testing.TB, m *Match) []string {
	t.Helper()
	var out []string
	for _, el := range m.Elements {
		res, err := el.Eval(`() => this.id || this.textContent.trim()`)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, res.Value.Str())
	}
	return out
}

type want struct {
	IDs       []string
	Strategy  string
	Locator   int
	Count     int
	Ambiguous bool
	Hidden    bool
}

func got(t testing.TB, m *Match) want {
	return want{IDs: ids(t, m), Strategy: m.Strategy, Locator: m.Locator, Count: m.Count, Ambiguous: m.Ambiguous, Hidden: m.Hidden}
}

func TestResolveStrategies(t *testing.T) {
	t.Parallel()
	_, login := open(t, "/login.html", false)
	_, broken := open(t, "/broken.html", false)
	_, amb := open(t, "/ambiguous.html", false)
	_, product := open(t, "/product.html?sku=ACM-1004", false)
	_, catalog := open(t, "/catalog.html", true)
	pages := map[string]*rod.Page{"login": login, "broken": broken, "ambiguous": amb, "product": product, "catalog": catalog}

	tests := []struct {
		name, page, target string
		want               want
	}{
		{"css", "login", "css: input[name=email]", want{IDs: []string{"email"}, Strategy: "css", Count: 1}},
		{"xpath", "login", `xpath: "//form//button[@type='submit']"`, want{IDs: []string{"sign-in"}, Strategy: "xpath", Count: 1}},
		{"xpath text node", "login", `xpath: "//h1/text()"`, want{IDs: []string{"login-title"}, Strategy: "xpath", Count: 1}},
		{"text is the button, not the heading", "login", "text: Sign in", want{IDs: []string{"sign-in"}, Strategy: "text", Count: 1}},
		{"text regex matches part", "login", "text: /^Sign in to/", want{IDs: []string{"login-title"}, Strategy: "text", Count: 1}},
		{"text regex flags", "login", "text: /(?i)forgot PASSWORD/", want{IDs: []string{"forgot-password"}, Strategy: "text", Count: 1}},
		{"text white space collapsed", "ambiguous", `text: "Export   all"`, want{IDs: []string{"export"}, Strategy: "text", Count: 1}},
		{"label for=", "login", "label: Email", want{IDs: []string{"email"}, Strategy: "label", Count: 1}},
		{"label nested", "broken", "label: Password", want{IDs: []string{"user-pass"}, Strategy: "label", Count: 1}},
		{"label regex", "login", "label: /^Pass/", want{IDs: []string{"password"}, Strategy: "label", Count: 1}},
		{"aria-label", "catalog", "label: Search catalog", want{IDs: []string{"q"}, Strategy: "label", Count: 1}},
		{"aria-labelledby", "product", "label: Quantity", want{IDs: []string{"qty"}, Strategy: "label", Count: 1}},
		{"label of a select", "catalog", "label: Sort by", want{IDs: []string{"sort"}, Strategy: "label", Count: 1}},
		{"role button", "login", "role: button\n  name: Sign in", want{IDs: []string{"sign-in"}, Strategy: "role", Count: 1}},
		{"role link", "login", "role: link\n  name: Forgot password?", want{IDs: []string{"forgot-password"}, Strategy: "role", Count: 1}},
		{"role textbox", "login", "role: textbox\n  name: Email", want{IDs: []string{"email"}, Strategy: "role", Count: 1}},
		{"role name regex", "login", "role: link\n  name: /^Forgot/", want{IDs: []string{"forgot-password"}, Strategy: "role", Count: 1}},
		{"role without name", "broken", "role: button", want{IDs: []string{"do-sign-in"}, Strategy: "role", Count: 1}},
		{"role heading", "login", "role: heading\n  name: Sign in to Acme", want{IDs: []string{"login-title"}, Strategy: "role", Count: 1}},
		{"innermost visible wins", "ambiguous", "text: Save draft", want{IDs: []string{"draft-label"}, Strategy: "text", Count: 1}},
		{"hidden copies skipped", "ambiguous", "text: Publish", want{IDs: []string{"publish"}, Strategy: "text", Count: 1}},
		{"ambiguous takes the first", "ambiguous", "text: Save", want{IDs: []string{"save-1"}, Strategy: "text", Count: 2, Ambiguous: true}},
		{"innermost css", "ambiguous", "css: .box", want{IDs: []string{"inner-box"}, Strategy: "css", Count: 1}},
		{"many css keeps nesting", "ambiguous", "css: .box\n  many: true", want{IDs: []string{"outer-box", "inner-box"}, Strategy: "css", Count: 2}},
		{"many text", "ambiguous", "text: Save\n  many: true", want{IDs: []string{"save-1", "save-2"}, Strategy: "text", Count: 2}},
		{"only hidden: returned as hidden", "ambiguous", "text: Archive", want{IDs: []string{"archive"}, Strategy: "text", Count: 1, Hidden: true}},
		{"fallback label", "broken", "css: input[name=email]\n  fallbacks:\n    - label: Email", want{IDs: []string{"user-mail"}, Strategy: "label", Locator: 1, Count: 1}},
		{"fallback 2", "broken", "css: \"#login-form button[type=submit]\"\n  fallbacks:\n    - xpath: //nothing\n    - text: Sign in", want{IDs: []string{"do-sign-in"}, Strategy: "text", Locator: 2, Count: 1}},
		{"primary before fallback", "login", "css: \"#login-form button[type=submit]\"\n  fallbacks:\n    - text: Sign in", want{IDs: []string{"sign-in"}, Strategy: "css", Count: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := mustResolve(t, pages[tt.page], nil, target(t, tt.target))
			if diff := cmp.Diff(tt.want, got(t, m)); diff != "" {
				t.Errorf("match (-want +got):\n%s", diff)
			}
		})
	}
}

func TestResolveVisibleSkipsHidden(t *testing.T) {
	t.Parallel()
	_, p := open(t, "/ambiguous.html", false)
	_, err := resolveIn(t, p, nil, target(t, "text: Archive"), 300*time.Millisecond, Options{Visible: true})
	if errs.CodeOf(err) != errs.TargetNotFound {
		t.Fatalf("a hidden-only target with Visible: got %v, want target_not_found", err)
	}
}

func TestResolveWithin(t *testing.T) {
	t.Parallel()
	_, p := open(t, "/catalog.html?q=&delay=50", true)
	m := loadMap(t, acmeMap)
	rows := mustResolve(t, p, nil, m.Targets["acme.catalog.rows"])
	if len(rows.Elements) != 5 || rows.Count != 5 {
		t.Fatalf("rows: got %d elements (count %d), want 5", len(rows.Elements), rows.Count)
	}
	var skus []string
	for _, row := range rows.Elements {
		sku := mustResolve(t, p, row, m.Targets["acme.catalog.row_sku"])
		if sku.Ambiguous {
			t.Errorf("row_sku is ambiguous inside one row")
		}
		skus = append(skus, ids(t, sku)...)
	}
	if diff := cmp.Diff([]string{"ACM-1001", "ACM-1002", "ACM-1003", "ACM-1004", "ACM-1005"}, skus); diff != "" {
		t.Errorf("skus (-want +got):\n%s", diff)
	}

	// Every strategy stays inside the parent.
	second := rows.Elements[1]
	for _, src := range []string{"xpath: //td[@class='name']", "text: /^Rocket|^Anvil/", "role: cell\n  name: /^\\$/", "role: link\n  name: Details"} {
		tg := target(t, src)
		got := mustResolve(t, p, second, tg)
		res, err := got.Element().Eval(`() => this.closest("tr").dataset.sku`)
		if err != nil {
			t.Fatal(err)
		}
		if sku := res.Value.Str(); sku != "ACM-1002" {
			t.Errorf("%s within the second row found an element of row %s", tg.Locators[0].Describe(), sku)
		}
	}

	// Map.Resolve follows within through the parent's first match.
	first, err := m.Resolve(context.Background(), p, "acme.catalog.row_name", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"Anvil, 50 kg"}, ids(t, first)); diff != "" {
		t.Errorf("row_name (-want +got):\n%s", diff)
	}
}

func TestResolveWaitsForDelayedResults(t *testing.T) {
	t.Parallel()
	_, p := open(t, "/catalog.html?q=bolt&delay=3000", true)
	rows := loadMap(t, acmeMap).Targets["acme.catalog.rows"]
	// Not there yet (the fixture renders them 3s after load), so the
	// resolve below has to wait for them: a look that does not wait fails.
	if _, err := resolveIn(t, p, nil, rows, 5*time.Second, Options{Visible: true, Once: true}); errs.CodeOf(err) != errs.TargetNotFound {
		t.Fatalf("before the fixture's delay: got %v, want target_not_found (the delay did not apply)", err)
	}
	m, err := resolveIn(t, p, nil, rows, 30*time.Second, Options{Visible: true})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, el := range m.Elements {
		names = append(names, el.MustElement("td.name").MustText())
	}
	want := []string{"Hex bolt M8, box of 100", "Hex bolt M10, box of 50", "Carriage bolt M6, box of 100"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

func TestResolveNotFound(t *testing.T) {
	t.Parallel()
	_, p := open(t, "/login.html?next=catalog.html", false)
	m := loadMap(t, acmeMap)
	_, err := resolveIn(t, p, nil, m.Targets["acme.missing"], time.Second, Options{})
	e := errs.As(err)
	if e == nil || e.Code != errs.TargetNotFound || !e.Retryable {
		t.Fatalf("got %#v, want a retryable target_not_found", err)
	}
	if want := "target acme.missing not found on /login.html after 1s (tried css, text)"; e.Message != want {
		t.Errorf("message:\n got %q\nwant %q", e.Message, want)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("the cause should be kept for the trace: %v", err)
	}

	// A many target with no match is not found either.
	_, err = resolveIn(t, p, nil, target(t, "css: li.nothing\n  many: true"), 200*time.Millisecond, Options{})
	if errs.CodeOf(err) != errs.TargetNotFound {
		t.Errorf("empty many target: got %v, want target_not_found", err)
	}
}

func TestResolveBadLocatorFailsFast(t *testing.T) {
	t.Parallel()
	_, p := open(t, "/login.html", false)
	start := time.Now()
	// The map refuses a css that does not parse at load; the resolver must
	// still fail fast on one that reaches it (Chromium may refuse what the
	// checker let through), so the target is built directly.
	bad := func(fallback Locator) *Target {
		return &Target{Name: "test.target", Locators: []Locator{{Strategy: CSS, Value: "button[["}, fallback}}
	}
	_, err := resolveIn(t, p, nil, bad(Locator{Strategy: XPath, Value: "//["}), time.Minute, Options{})
	if errs.CodeOf(err) != errs.TargetNotFound {
		t.Fatalf("got %v, want target_not_found", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("invalid locators were polled for %s", d)
	}
	var ee *rod.EvalError
	if !errors.As(err, &ee) {
		t.Errorf("the JS error should be the cause: %v", err)
	}
	// A bad primary does not stop a good fallback.
	m := mustResolve(t, p, nil, bad(Locator{Strategy: Text, Value: "Sign in"}))
	if m.Locator != 1 {
		t.Errorf("locator: got %d, want 1", m.Locator)
	}
}

func TestResolveCancel(t *testing.T) {
	t.Parallel()
	_, p := open(t, "/login.html", false)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(150*time.Millisecond, cancel)
	start := time.Now()
	_, err := Resolve(ctx, p, nil, target(t, "css: \"#nope\"\n  fallbacks:\n    - role: button\n      name: Nope"), Options{Poll: time.Minute})
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("cancel took %s", d)
	}
	if errs.CodeOf(err) != errs.Cancelled || !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want cancelled", err)
	}
}

func TestResolveStaleParent(t *testing.T) {
	t.Parallel()
	_, p := open(t, "/catalog.html?q=&delay=50", true)
	m := loadMap(t, acmeMap)
	rows := mustResolve(t, p, nil, m.Targets["acme.catalog.rows"])
	p.MustElement("#next-page").MustClick()
	p.MustWait(`() => { const r = document.querySelector("#results tbody tr"); return !!r && r.dataset.sku === "ACM-1006" }`)
	_, err := resolveIn(t, p, rows.Element(), m.Targets["acme.catalog.row_sku"], 300*time.Millisecond, Options{})
	if errs.CodeOf(err) != errs.TargetNotFound {
		t.Fatalf("inside a stale row: got %v, want target_not_found", err)
	}
	if !strings.Contains(err.Error(), "target acme.catalog.row_sku within acme.catalog.rows not found on /catalog.html") {
		t.Errorf("message: %v", err)
	}

	// A parent from a page navigated away from: its object is gone.
	testsite.Goto(t, p, strings.Replace(p.MustInfo().URL, "catalog.html", "login.html", 1))
	for _, src := range []string{"css: td.sku", "role: cell"} {
		start := time.Now()
		_, err = resolveIn(t, p, rows.Element(), target(t, src), 300*time.Millisecond, Options{})
		if errs.CodeOf(err) != errs.TargetNotFound || time.Since(start) > 20*time.Second {
			t.Errorf("%s inside a row of a former page: got %v after %s", src, err, time.Since(start))
		}
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	m := loadMap(t, acmeMap)
	names := []string{"acme.login.email", "acme.login.password", "acme.login.submit", "acme.login.error"}

	_, login := open(t, "/login.html", false)
	hs := Check(context.Background(), login, m, names)
	want := []Health{
		{Name: "acme.login.email", Status: "primary", Strategy: "css", Count: 1, Message: `css "input[name=email]" matched 1 element`},
		{Name: "acme.login.password", Status: "primary", Strategy: "css", Count: 1, Message: `css "input[name=password]" matched 1 element`},
		{Name: "acme.login.submit", Status: "primary", Strategy: "css", Count: 1, Message: `css "#login-form button[type=submit]" matched 1 element`},
		{Name: "acme.login.error", Status: "primary", Strategy: "css", Count: 1, Hidden: true, Message: `css "#login-error" matched 1 element (hidden)`},
	}
	if diff := cmp.Diff(want, hs); diff != "" {
		t.Errorf("login.html (-want +got):\n%s", diff)
	}
	if !AllPrimary(hs) {
		t.Errorf("AllPrimary is false on login.html")
	}

	_, broken := open(t, "/broken.html", false)
	hs = Check(context.Background(), broken, m, append(names, "acme.missing"))
	want = []Health{
		{Name: "acme.login.email", Status: "fallback", Locator: 1, Strategy: "label", Count: 1,
			Message: `fallback 1 label "Email" matched 1 element; primary css "input[name=email]" is broken: fix it`},
		{Name: "acme.login.password", Status: "fallback", Locator: 1, Strategy: "label", Count: 1,
			Message: `fallback 1 label "Password" matched 1 element; primary css "input[name=password]" is broken: fix it`},
		{Name: "acme.login.submit", Status: "fallback", Locator: 1, Strategy: "role", Count: 1,
			Message: `fallback 1 role "button" name "Sign in" matched 1 element; primary css "#login-form button[type=submit]" is broken: fix it`},
		{Name: "acme.login.error", Status: "fallback", Locator: 1, Strategy: "css", Count: 1, Hidden: true,
			Message: `fallback 1 css "[role=alert]" matched 1 element (hidden); primary css "#login-error" is broken: fix it`},
		{Name: "acme.missing", Status: "not_found", Message: `tried css "#nope", text "Nope"`},
	}
	if diff := cmp.Diff(want, hs); diff != "" {
		t.Errorf("broken.html (-want +got):\n%s", diff)
	}
	if AllPrimary(hs) {
		t.Errorf("AllPrimary is true on broken.html")
	}
	var buf bytes.Buffer
	if err := FormatHealth(&buf, hs); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != len(hs) || !strings.HasPrefix(lines[0], "fallback   acme.login.email     fallback 1 label") {
		t.Errorf("FormatHealth:\n%s", buf.String())
	}
}

func TestCheckWithinAndAmbiguous(t *testing.T) {
	t.Parallel()
	m := loadMap(t, acmeMap)
	_, catalog := open(t, "/catalog.html?q=&delay=300", true)
	hs := Check(context.Background(), catalog, m, []string{"acme.catalog.rows", "acme.catalog.row_sku", "acme.catalog.next_page"})
	want := []Health{
		{Name: "acme.catalog.rows", Status: "primary", Strategy: "css", Count: 5, Message: `css "#results tbody tr" matched 5 elements`},
		{Name: "acme.catalog.row_sku", Status: "primary", Strategy: "css", Count: 1, Message: `css "td.sku" matched 1 element`},
		{Name: "acme.catalog.next_page", Status: "primary", Strategy: "css", Count: 1, Message: `css "#next-page" matched 1 element`},
	}
	if diff := cmp.Diff(want, hs); diff != "" {
		t.Errorf("catalog.html (-want +got):\n%s", diff)
	}

	_, amb := open(t, "/ambiguous.html", false)
	hs = Check(context.Background(), amb, m, []string{"acme.ambiguous.save", "acme.catalog.row_sku"})
	want = []Health{
		{Name: "acme.ambiguous.save", Status: "ambiguous", Strategy: "css", Count: 2, Message: `css "button.save" matched 2 elements; the first is used`},
		{Name: "acme.catalog.row_sku", Status: "not_found", Message: "parent acme.catalog.rows not found"},
	}
	if diff := cmp.Diff(want, hs); diff != "" {
		t.Errorf("ambiguous.html (-want +got):\n%s", diff)
	}
}

func TestRoundDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		299*time.Millisecond + 600*time.Microsecond: "300ms",
		4999 * time.Millisecond:                     "5s",
		1500 * time.Millisecond:                     "1.5s",
		42 * time.Millisecond:                       "42ms",
		time.Minute:                                 "1m0s",
	} {
		if got := roundDuration(d); got != want {
			t.Errorf("roundDuration(%s) = %s, want %s", d, got, want)
		}
	}
}

func TestJSRegexp(t *testing.T) {
	tests := []struct{ in, src, flags string }{
		{`^Sign in`, `^Sign in`, ``},
		{`(?i)sign`, `sign`, `i`},
		{`(?is)a.b`, `a.b`, `is`},
		{`(?P<n>\d+)`, `(?<n>\d+)`, ``},
		{`\Afoo\z`, `(?<![\s\S])foo(?![\s\S])`, ``},
		{`a\\z`, `a\\z`, ``},
		{`(?:x)`, `(?:x)`, ``},
	}
	for _, tt := range tests {
		src, flags := jsRegexp(tt.in)
		if src != tt.src || flags != tt.flags {
			t.Errorf("jsRegexp(%q) = %q, %q; want %q, %q", tt.in, src, flags, tt.src, tt.flags)
		}
	}
}

// BenchmarkResolveCSS compares Resolve with a css primary against rod's own
// page.Element on the same page.
func BenchmarkResolveCSS(b *testing.B) {
	_, p := open(b, "/login.html", false)
	tg := target(b, "css: \"#login-form button[type=submit]\"")
	ctx := context.Background()
	for range 50 { // warm up the page, its JS helpers and the connection
		if _, err := Resolve(ctx, p, nil, tg, Options{}); err != nil {
			b.Fatal(err)
		}
		p.MustElement("#login-form button[type=submit]")
	}
	b.Run("Resolve", func(b *testing.B) {
		for b.Loop() {
			if _, err := Resolve(ctx, p, nil, tg, Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("rod.Page.Element", func(b *testing.B) {
		for b.Loop() {
			if _, err := p.Element("#login-form button[type=submit]"); err != nil {
				b.Fatal(err)
			}
		}
	})
	tt := target(b, "text: Sign in")
	b.Run("Resolve/text", func(b *testing.B) {
		for b.Loop() {
			if _, err := Resolve(ctx, p, nil, tt, Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	tr := target(b, "role: button\n  name: Sign in")
	b.Run("Resolve/role", func(b *testing.B) {
		for b.Loop() {
			if _, err := Resolve(ctx, p, nil, tr, Options{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
