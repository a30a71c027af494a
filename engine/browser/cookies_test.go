package browser

import (
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/proto"
)

// cookieCases are cookies at and past each of Chromium's rules.
var cookieCases = []StateCookie{
	{Name: "sid", Value: "abc", Domain: "127.0.0.1", Path: "/"},
	{Name: "__Host-a", Value: "1", Domain: "127.0.0.1", Path: "/"},
	{Name: "__host-b", Value: "1", Domain: "127.0.0.1", Path: "/"},
	{Name: "__Host-c", Value: "1", Domain: "127.0.0.1", Path: "/", Secure: true},
	{Name: "__Host-d", Value: "1", Domain: "127.0.0.1", Path: "/app", Secure: true},
	{Name: "__Host-e", Value: "1", Domain: ".example.com", Path: "/", Secure: true},
	{Name: "__Secure-f", Value: "1", Domain: "127.0.0.1", Path: "/"},
	{Name: "__Secure-g", Value: "1", Domain: "127.0.0.1", Path: "/", Secure: true},
	{Name: "noslash", Value: "1", Domain: "127.0.0.1", Path: "app"},
	{Name: "emptypath", Value: "1", Domain: "127.0.0.1", Path: ""},
	{Name: "semipath", Value: "1", Domain: "127.0.0.1", Path: "/a;b"},
	{Name: "path1024", Value: "1", Domain: "127.0.0.1", Path: "/" + strings.Repeat("p", 1023)},
	{Name: "path1025", Value: "1", Domain: "127.0.0.1", Path: "/" + strings.Repeat("p", 1024)},
	{Name: "v4096", Value: strings.Repeat("v", 4096-len("v4096")), Domain: "127.0.0.1", Path: "/"},
	{Name: "v4097", Value: strings.Repeat("v", 4097-len("v4097")), Domain: "127.0.0.1", Path: "/"},
	{Name: "v5000", Value: strings.Repeat("v", 5000), Domain: "127.0.0.1", Path: "/"},
	{Name: "a=b", Value: "1", Domain: "127.0.0.1", Path: "/"},
	{Name: "a;b", Value: "1", Domain: "127.0.0.1", Path: "/"},
	{Name: "ctl\x01", Value: "1", Domain: "127.0.0.1", Path: "/"},
	{Name: "with space", Value: "1", Domain: "127.0.0.1", Path: "/"},
	{Name: "semivalue", Value: "1;2", Domain: "127.0.0.1", Path: "/"},
	{Name: "tabvalue", Value: "1\t2", Domain: "127.0.0.1", Path: "/"},
	{Name: "delvalue", Value: "1\x7f2", Domain: "127.0.0.1", Path: "/"},
	{Name: "utf8value", Value: "é", Domain: "127.0.0.1", Path: "/"},
	{Name: "emptyvalue", Value: "", Domain: "127.0.0.1", Path: "/"},
	{Name: "nodomain", Value: "1", Domain: "", Path: "/"},
	{Name: "samesitenone", Value: "1", Domain: "127.0.0.1", Path: "/", SameSite: "None"},
	{Name: "expired", Value: "1", Domain: "127.0.0.1", Path: "/", Expires: 1000},
}

// CookieProblem (what `sessions import` checks) refuses exactly the
// cookies this Chromium refuses to set, each tried on its own.
func TestCookieRulesAgreeWithChromium(t *testing.T) {
	t.Parallel()
	m := newTestManager(t, Options{})
	env := mustOpen(t, m, "", "cookies")
	ctx := testCtx(t, time.Minute)
	for _, c := range cookieCases {
		refused, err := env.setCookies(ctx, []StateCookie{c})
		if err != nil {
			t.Fatalf("%q: %v", c.Name, err)
		}
		chromium, ours := len(refused) == 1, CookieProblem(c)
		if chromium != (ours != "") {
			t.Errorf("cookie %s: Chromium refused it: %v; CookieProblem: %q", CookieLabel(c), chromium, ours)
		}
	}
}

// One cookie Chromium refuses loses only itself: the others are set, and
// each refused one is named.
func TestRestoreStateOneBadCookieLosesOnlyItself(t *testing.T) {
	t.Parallel()
	m := newTestManager(t, Options{})
	env := mustOpen(t, m, "", "restore")
	ctx := testCtx(t, time.Minute)
	st := &StorageState{Cookies: []StateCookie{
		{Name: "first", Value: "1", Domain: "127.0.0.1", Path: "/"},
		{Name: "__Host-pref", Value: "1", Domain: "127.0.0.1", Path: "/"},
		{Name: "scoped", Value: "1", Domain: "127.0.0.1", Path: "app"},
		{Name: "big", Value: strings.Repeat("v", 5000), Domain: "127.0.0.1", Path: "/"},
		{Name: "last", Value: "2", Domain: "127.0.0.1", Path: "/"},
	}}
	refused, err := env.RestoreState(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(refused, ",") != `"__Host-pref" (domain 127.0.0.1, path /),"scoped" (domain 127.0.0.1, path app),"big" (domain 127.0.0.1, path /)` {
		t.Errorf("refused %q", refused)
	}
	res, err := proto.StorageGetCookies{BrowserContextID: env.ctxID}.Call(env.conn.browser.Context(ctx))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range res.Cookies {
		names = append(names, c.Name)
	}
	if strings.Join(names, ",") != "first,last" && strings.Join(names, ",") != "last,first" {
		t.Errorf("cookies set: %v, want first and last", names)
	}
}
