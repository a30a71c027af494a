package app_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/input"
	"github.com/go-rod/rod/lib/proto"

	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/htmlview"
	"github.com/toolwright/toolwright/engine/run"
	"github.com/toolwright/toolwright/engine/store"
	"github.com/toolwright/toolwright/internal/testsite"
)

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestTakeOverSecondFactor: the agent's environment stops at the second
// factor and is handed over; a person, in another real browser, opens the
// ui (behind its token), takes the environment over, clicks the code
// field, types the code, presses Enter and done. What they did is the
// purpose's session (the next call runs signed in, the sign-in page not
// loaded again), the handoff is finished and audited with who finished it.
func TestTakeOverSecondFactor(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	site := newShopSite(t)
	cfgPath := shopProject(t, site.URL, "", "")
	a := openShop(t, cfgPath, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	// The agent's part: sign in up to the second factor, in a kept
	// environment of purpose shop.
	env, err := a.Browsers.Open(ctx, "", "shop")
	if err != nil {
		t.Fatal(err)
	}
	p := env.Page().Context(ctx)
	if err := p.Navigate(site.URL + "/login"); err != nil {
		t.Fatal(err)
	}
	_ = p.WaitLoad()
	p.MustElement("#email").MustInput("ada@example.com")
	p.MustElement("#password").MustInput("correct horse")
	p.MustElement("#signin").MustClick()
	waitFor(t, "the second-factor page", func() bool { return strings.HasSuffix(p.MustInfo().URL, "/otp") })
	_ = p.WaitLoad()
	a.Browsers.Release(env)
	if err := a.Store.SaveHandoff(ctx, &store.Handoff{EnvID: env.ID, Purpose: "shop", Message: "type the code from the phone",
		Endpoint: env.Endpoint(), TargetID: string(env.Page().TargetID), Expires: time.Now().Add(10 * time.Minute)}); err != nil {
		t.Fatal(err)
	}

	key, err := run.SessionKey(a.Config)
	if err != nil || key == nil {
		t.Fatalf("session key: %v", err)
	}
	ui := &htmlview.UI{Store: a.Store, Token: "ui-token", Envs: &app.LiveEnvs{Store: a.Store, Key: key, TTL: time.Hour},
		Secrets: []string{"correct horse"}}
	srv := httptest.NewServer(ui)
	defer srv.Close()
	defer ui.Close()

	// The person's part, in a browser of their own.
	viewer := typeCodeAsPerson(t, srv.URL, env.ID, func() *rod.Page { return env.Page().Context(ctx) }, "type the code from the phone", "shop")
	waitFor(t, "the account page in the environment", func() bool {
		return strings.HasSuffix(env.Page().Context(ctx).MustInfo().URL, "/account")
	})
	viewer.MustElement("#done").MustClick()
	said := "" // what the live view says, logged as it changes: a failure shows why
	waitFor(t, "the done answer", func() bool {
		state := viewer.MustElement("#state").MustText()
		if state != said {
			said = state
			t.Logf("the live view says %q", state)
		}
		return strings.Contains(state, "saved as the session")
	})

	if open, _ := a.Store.ListHandoffs(ctx, true); len(open) != 0 {
		t.Errorf("open handoffs after done: %+v", open)
	}
	recs, err := a.Store.ExportAudit(ctx, time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range recs {
		if r.Tool == "handoff" && r.EnvID == env.ID && r.Purpose == "shop" && r.Code == "finished" && strings.HasPrefix(r.TaskID, "ui ") {
			found = true
		}
	}
	if !found {
		t.Errorf("no audit record of the finished handoff in %+v", recs)
	}
	// The agent's next call runs signed in: no sign-in page.
	callShop(t, a)
	if n := site.signIns.Load(); n != 1 {
		t.Errorf("after the handoff: %d sign-in page loads, want 1 (the agent's, before the handoff)", n)
	}
}

// typeCodeAsPerson is a person's part of a handoff, in a browser of their
// own: the ui's environments list (at uiURL) shows envID's row saying each
// of inRow, the take-over link opens its live view, and through the live
// view they click the second-factor page's code field (page is the
// environment's page) and type 424242 and Enter. It returns the viewer.
func typeCodeAsPerson(t *testing.T, uiURL, envID string, page func() *rod.Page, inRow ...string) *rod.Page {
	t.Helper()
	vb := testsite.Browser(t) // the person's browser: an incognito context of the shared one
	viewer := testsite.NewPage(t, vb, uiURL+"/envs?token=ui-token")
	row := viewer.MustElement(`tr.env[data-env="` + envID + `"]`)
	for _, want := range inRow {
		if !strings.Contains(row.MustText(), want) {
			t.Errorf("the environments list row: %q, want %q in it", row.MustText(), want)
		}
	}
	row.MustElement("a.takeover").MustClick()
	waitFor(t, "a frame of the live view", func() bool {
		v, err := viewer.Eval(`() => { const l = document.getElementById('live'); return l ? (l.getAttribute('data-frames') || '0') : '0' }`)
		return err == nil && v.Value.String() != "0"
	})
	x, y := onScreen(viewer, page(), "#code")
	viewer.Mouse.MustMoveTo(x, y)
	viewer.Mouse.MustClick(proto.InputMouseButtonLeft)
	waitFor(t, "the click to focus the code field", func() bool {
		return page().MustEval(`() => document.activeElement && document.activeElement.id`).String() == "code"
	})
	viewer.Keyboard.MustType(input.Digit4, input.Digit2, input.Digit4, input.Digit2, input.Digit4, input.Digit2, input.Enter)
	return viewer
}
