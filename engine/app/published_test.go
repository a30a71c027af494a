package app_test

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/input"
	"github.com/go-rod/rod/lib/proto"

	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/browser"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/htmlview"
	"github.com/toolwright/toolwright/engine/run"
	"github.com/toolwright/toolwright/engine/store/sqlstore"
	"github.com/toolwright/toolwright/internal/testbrowser"
	"github.com/toolwright/toolwright/internal/testsite"
)

// uiProcess is `toolwright ui` as another process sees the store: its own
// store handle on the server's database, its own token, real HTTP.
type uiProcess struct {
	URL    string
	client *http.Client
}

func startUI(t *testing.T, cfg *config.Config) *uiProcess {
	t.Helper()
	st, err := app.OpenStore(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	key, err := run.SessionKey(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ui := &htmlview.UI{Store: st, Token: "ui-token", Envs: &app.LiveEnvs{Store: st, Key: key, TTL: time.Hour}}
	srv := httptest.NewServer(ui)
	t.Cleanup(srv.Close)
	t.Cleanup(ui.Close)
	jar, _ := cookiejar.New(nil)
	return &uiProcess{URL: srv.URL, client: &http.Client{Jar: jar}}
}

// row is the environments page's row of id ("" when it is not listed).
func (u *uiProcess) row(t *testing.T, id string) string {
	t.Helper()
	resp, err := u.client.Get(u.URL + "/envs?token=ui-token")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /envs: %d %s", resp.StatusCode, body)
	}
	m := regexp.MustCompile(`<tr class="env" data-env="` + regexp.QuoteMeta(id) + `">(.*?)</tr>`).FindSubmatch(body)
	if m == nil {
		return ""
	}
	return string(m[1])
}

// TestUIListsLocalEnvironments: with the local provider (browsers that die
// with the serving process, so no registry holds them), `toolwright ui`,
// another process on the same store, lists every open environment of the
// server, kept and temporary, with its purpose and the process that has
// it; a person takes a kept one over (clicks a field and types in it
// through the live view); once an environment closes it is no longer
// listed. Before, the ui listed nothing here (only handoffs).
func TestUIListsLocalEnvironments(t *testing.T) {
	t.Parallel()
	testsite.NeedChromium(t)
	testbrowser.OwnBrowser(t) // the local provider's own browser, as the row says
	site := newShopSite(t)
	a := openShop(t, shopProject(t, site.URL, "", ""), nil)
	if a.Config.Browser.Provider != "" && a.Config.Browser.Provider != "local" {
		t.Fatalf("provider %q, want local", a.Config.Browser.Provider)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	ui := startUI(t, a.Config)

	// Without the ui's token the list is refused.
	if resp, err := http.Get(ui.URL + "/envs"); err != nil || resp.StatusCode == http.StatusOK {
		t.Fatalf("GET /envs without the token: %v %v", resp, err)
	}

	kept, err := a.Browsers.Open(ctx, "", "shop")
	if err != nil {
		t.Fatal(err)
	}
	p := kept.Page().Context(ctx)
	if err := p.Navigate(site.URL + "/login"); err != nil {
		t.Fatal(err)
	}
	_ = p.WaitLoad()
	a.Browsers.Release(kept)
	temp, err := a.Browsers.OpenTemporary(ctx, "", "lookup")
	if err != nil {
		t.Fatal(err)
	}

	var row string
	waitFor(t, "the kept environment in the ui", func() bool { row = ui.row(t, kept.ID); return row != "" })
	host, _ := os.Hostname()
	for _, want := range []string{">shop<", ">kept<", ">local<", fmt.Sprintf("%s pid %d", host, os.Getpid()), `href="env/` + kept.ID + `/"`} {
		if !strings.Contains(row, want) {
			t.Errorf("the kept environment's row lacks %q: %s", want, row)
		}
	}
	waitFor(t, "the temporary environment in the ui", func() bool { row = ui.row(t, temp.ID); return row != "" })
	if !strings.Contains(row, ">lookup<") || !strings.Contains(row, ">temporary<") {
		t.Errorf("the temporary environment's row: %s", row)
	}
	a.Browsers.Release(temp) // a temporary environment closes with its call
	waitFor(t, "the temporary environment to leave the ui", func() bool { return ui.row(t, temp.ID) == "" })

	// A person takes the kept environment over from the list.
	vb := testsite.Browser(t) // the person's browser: an incognito context of the shared one
	viewer := testsite.NewPage(t, vb, ui.URL+"/envs?token=ui-token")
	viewer.MustElement(`tr.env[data-env="` + kept.ID + `"] a.takeover`).MustClick()
	waitFor(t, "a frame of the live view", func() bool {
		v, err := viewer.Eval(`() => { const l = document.getElementById('live'); return l ? (l.getAttribute('data-frames') || '0') : '0' }`)
		return err == nil && v.Value.String() != "0"
	})
	x, y := onScreen(viewer, kept.Page().Context(ctx), "#email")
	viewer.Mouse.MustMoveTo(x, y)
	viewer.Mouse.MustClick(proto.InputMouseButtonLeft)
	waitFor(t, "the click to focus the email field", func() bool {
		return kept.Page().Context(ctx).MustEval(`() => document.activeElement && document.activeElement.id`).String() == "email"
	})
	viewer.Keyboard.MustType(input.KeyA, input.KeyD, input.KeyA)
	waitFor(t, "the typed text in the environment", func() bool {
		return kept.Page().Context(ctx).MustEval(`() => document.getElementById('email').value`).String() == "ada"
	})

	if err := a.Browsers.Close(ctx, kept.ID); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the closed environment to leave the ui", func() bool { return ui.row(t, kept.ID) == "" })
}

// onScreen is where sel of the environment's page shows in the viewer's
// live view.
func onScreen(viewer, page *rod.Page, sel string) (float64, float64) {
	r := page.MustEval(`(s) => { const r = document.querySelector(s).getBoundingClientRect(); return [r.x + r.width/2, r.y + r.height/2, innerWidth, innerHeight] }`, sel)
	x, y, w, h := r.Get("0").Num(), r.Get("1").Num(), r.Get("2").Num(), r.Get("3").Num()
	v := viewer.MustEval(`() => { const r = document.getElementById('screen').getBoundingClientRect(); return [r.x, r.y, r.width, r.height] }`)
	return v.Get("0").Num() + x*v.Get("2").Num()/w, v.Get("1").Num() + y*v.Get("3").Num()/h
}

// ownerChild is set in the child process of TestUIDropsKilledOwner: the
// config it serves.
const ownerChild = "TOOLWRIGHT_TEST_OWNER_CHILD"

// childLease is the child's lease on what it publishes.
const childLease = 3 * time.Second

// runOwnerChild is the serving process TestUIDropsKilledOwner kills: it
// opens a kept environment with the local provider, publishing it as app
// does (with a short lease), prints its id and waits to be killed.
func runOwnerChild(cfgPath string) {
	fail := func(err error) { fmt.Println("ERR", err); os.Exit(1) }
	cfg, err := config.Load(cfgPath)
	if err != nil {
		fail(err)
	}
	st, err := app.OpenStore(cfg)
	if err != nil {
		fail(err)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	bo, err := app.BrowserOptions(cfg, log)
	if err != nil {
		fail(err)
	}
	bo.Registry, bo.Publisher, bo.LeaseDuration = st, st, childLease
	bm, err := browser.NewManager(bo)
	if err != nil {
		fail(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	env, err := bm.Open(ctx, "", "orphan")
	if err != nil {
		fail(err)
	}
	bm.Release(env)
	fmt.Println("ENV", env.ID)
	time.Sleep(10 * time.Minute) // killed long before
}

// TestUIDropsKilledOwner: a serving process (a child of the test) opens a
// kept environment and is killed with SIGKILL, so it withdraws nothing.
// Its record stays in the store, but once its lease has run out the ui no
// longer lists the environment (nor serves its take-over link), and the
// next server to start deletes the record.
func TestUIDropsKilledOwner(t *testing.T) {
	if cfg := os.Getenv(ownerChild); cfg != "" {
		runOwnerChild(cfg)
		return
	}
	t.Parallel()
	testsite.NeedChromium(t)
	site := newShopSite(t)
	cfgPath := shopProject(t, site.URL, "", "")
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	ui := startUI(t, cfg)

	cmd := exec.Command(os.Args[0], "-test.run", "^TestUIDropsKilledOwner$", "-test.count=1")
	cmd.Env = append(os.Environ(), ownerChild+"="+cfgPath)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	t.Cleanup(func() {
		if !killed {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	ids := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if id, ok := strings.CutPrefix(sc.Text(), "ENV "); ok {
				ids <- id
			} else if strings.HasPrefix(sc.Text(), "ERR ") {
				t.Errorf("the serving child: %s", sc.Text())
			}
		}
		close(ids)
	}()
	var id string
	select {
	case id = <-ids:
	case <-time.After(3 * time.Minute):
		t.Fatal("the serving child opened no environment")
	}
	if id == "" {
		t.Fatal("the serving child ended without an environment")
	}
	waitFor(t, "the child's environment in the ui", func() bool { return strings.Contains(ui.row(t, id), ">orphan<") })

	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	killed = true
	rows := func() int {
		db, err := sql.Open("sqlite", filepath.Join(cfg.StateDir, sqlstore.FileName))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var n int
		if err := db.QueryRow(`SELECT COUNT(*) FROM published_envs WHERE id = ?`, id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if rows() != 1 {
		t.Fatal("the killed child's record is not in the store: the test shows nothing")
	}
	waitFor(t, "the killed child's environment to leave the ui", func() bool { return ui.row(t, id) == "" })
	resp, err := ui.client.Get(ui.URL + "/env/" + id + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("the take-over link of the dead environment: %d, want 404", resp.StatusCode)
	}
	// The next server's first publication deletes the dead record.
	openShop(t, cfgPath, nil)
	waitFor(t, "the restarted server to delete the dead record", func() bool { return rows() == 0 })
}
