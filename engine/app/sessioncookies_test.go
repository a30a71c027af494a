package app_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/browser"
	"github.com/toolwright/toolwright/engine/run"
	"github.com/toolwright/toolwright/engine/store"
	"github.com/toolwright/toolwright/internal/testsite"
)

// refusedCookies are cookies Chromium does not set, each for its own
// reason; their values must never reach a log.
var refusedCookies = []browser.StateCookie{
	{Name: "__Host-pref", Value: "host-v4lue-1", Domain: "127.0.0.1", Path: "/", Expires: -1, SameSite: "Lax"},
	{Name: "scoped", Value: "sc0ped-v4lue", Domain: "127.0.0.1", Path: "account", Expires: -1, SameSite: "Lax"},
	{Name: "big", Value: "b" + strings.Repeat("1g", 2500), Domain: "127.0.0.1", Path: "/", Expires: -1, SameSite: "Lax"},
}

// A saved session holding cookies Chromium refuses keeps the rest: the
// next server restores the sid and reads the account without signing in,
// and logs each refused cookie by name (never its value). Before, one
// refused cookie made Chromium refuse the whole Storage.setCookies call,
// so the environment started signed out and the call signed in again.
func TestSessionWithRefusedCookiesKeepsTheRest(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	site := newShopSite(t)
	cfgPath := shopProject(t, site.URL, "", "")
	a := openShop(t, cfgPath, nil)
	callShop(t, a)
	ctx := context.Background()
	key, err := store.NewSessionKey(shopKey)
	if err != nil {
		t.Fatal(err)
	}
	// As `sessions import` saved a state before it checked cookies.
	state, _, err := run.LoadSession(ctx, a.Store, key, "shop")
	if err != nil {
		t.Fatal(err)
	}
	state.Cookies = append(refusedCookies[:1:1], append(state.Cookies, refusedCookies[1:]...)...)
	if err := run.SaveSession(ctx, a.Store, key, "shop", state, time.Hour, "import"); err != nil {
		t.Fatal(err)
	}
	_ = a.Close(ctx)

	var logs bytes.Buffer
	b := openShop(t, cfgPath, &logs)
	env := callShop(t, b)
	if n := site.signIns.Load(); n != 1 {
		t.Errorf("a session with %d refused cookies: %d sign-in page loads, want still 1 (the sid restored)\n%s", len(refusedCookies), n, logs.String())
	}
	if d, _ := env.JSON(), 0; !bytes.Contains(d, []byte("Ada Lovelace")) {
		t.Errorf("data %s", d)
	}
	for _, c := range refusedCookies {
		if !strings.Contains(logs.String(), c.Name) {
			t.Errorf("the log does not name the refused cookie %q:\n%s", c.Name, logs.String())
		}
		if strings.Contains(logs.String(), c.Value[:12]) {
			t.Errorf("the log holds the value of cookie %q", c.Name)
		}
	}
}
