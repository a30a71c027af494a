package htmlview

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/input"
	"github.com/go-rod/rod/lib/proto"

	"github.com/toolwright/toolwright/internal/testsite"
)

const secondFactor = `<!doctype html><title>code</title>
<form id="f" onsubmit="event.preventDefault(); document.title = 'sent:' + document.getElementById('code').value">
<p><label>user <input id="user" value=""></label></p>
<p><label>code <input id="code" autocomplete="one-time-code" style="font-size:24px;width:300px"></label></p>
<p><button id="send" style="font-size:24px">send</button></p></form>
<div style="height:3000px"></div>`

// until polls cond until it holds, failing t after a generous minute.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestMain closes the browser the live view tests share.
func TestMain(m *testing.M) { testsite.Main(m) }

// TestLiveView drives a page through its live view from a second page of
// a real browser, as a person would: the viewer shows frames, its clicks,
// typing and wheel reach the page, and a secret the page holds is masked.
func TestLiveView(t *testing.T) {
	t.Parallel()
	b := testsite.Browser(t) // the env and the viewer: two incognito contexts of the shared browser
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, secondFactor)
	}))
	defer site.Close()
	env := testsite.NewPage(t, b, site.URL)
	env.MustElement("#user").MustInput("hunter2-secret")

	lv := NewLive(env, LiveOptions{Title: "take over", Message: "type the code", Secrets: []string{"hunter2-secret"}})
	mux := http.NewServeMux()
	mux.Handle("/live/e1/", http.StripPrefix("/live/e1", lv))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	defer lv.Close() // first: it ends the viewer's stream

	viewer := testsite.NewPage(t, b, srv.URL+"/live/e1/")
	until(t, "a frame in the viewer", func() bool {
		v := viewer.MustEval(`() => document.getElementById('live').getAttribute('data-frames') || '0'`).String()
		return v != "0" && viewer.MustEval(`() => document.getElementById('screen').naturalWidth`).Int() > 0
	})
	if got := viewer.MustElement("#message").MustText(); got != "type the code" {
		t.Errorf("message = %q", got)
	}
	if sec := env.MustEval(`() => getComputedStyle(document.getElementById('user')).webkitTextSecurity`).String(); sec != "disc" {
		t.Errorf("the field holding a secret is not masked before the first frame: -webkit-text-security %q", sec)
	}

	// Where the code field is, in the viewer's coordinates.
	at := func(sel string) (float64, float64) {
		r := env.MustEval(`(s) => { const r = document.querySelector(s).getBoundingClientRect(); return [r.x + r.width/2, r.y + r.height/2, innerWidth, innerHeight] }`, sel)
		x, y, w, h := r.Get("0").Num(), r.Get("1").Num(), r.Get("2").Num(), r.Get("3").Num()
		v := viewer.MustEval(`() => { const r = document.getElementById('screen').getBoundingClientRect(); return [r.x, r.y, r.width, r.height] }`)
		return v.Get("0").Num() + x*v.Get("2").Num()/w, v.Get("1").Num() + y*v.Get("3").Num()/h
	}
	x, y := at("#code")
	viewer.Mouse.MustMoveTo(x, y)
	viewer.Mouse.MustClick(proto.InputMouseButtonLeft)
	until(t, "the click to focus the code field", func() bool {
		return env.MustEval(`() => document.activeElement && document.activeElement.id`).String() == "code"
	})
	viewer.Keyboard.MustType(input.Digit4, input.Digit2, input.Digit7, input.Backspace, input.Digit9)
	until(t, "the typed code", func() bool {
		return env.MustEval(`() => document.getElementById('code').value`).String() == "429"
	})
	viewer.Keyboard.MustType(input.Enter)
	until(t, "the form sent by Enter", func() bool { return env.MustInfo().Title == "sent:429" })

	// The wheel scrolls the page.
	viewer.Mouse.MustMoveTo(x, y)
	viewer.Mouse.MustScroll(0, 400)
	until(t, "the wheel to scroll the page", func() bool { return env.MustEval(`() => scrollY`).Num() > 0 })
	if !lv.Touched() {
		t.Error("Touched() = false after input")
	}
}

// TestLiveInputGuard: input without the viewer's header (a cross-site
// form) is refused, and so is a GET.
func TestLiveInputGuard(t *testing.T) {
	lv := NewLive(&rod.Page{}, LiveOptions{})
	srv := httptest.NewServer(http.StripPrefix("/l", lv))
	defer srv.Close()
	res, err := http.Post(srv.URL+"/l/input", "application/json", strings.NewReader(`{"t":"paste","text":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusForbidden {
		t.Errorf("POST without header: %d, want 403", res.StatusCode)
	}
	res, err = http.Get(srv.URL + "/l/input")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET input: %d, want 405", res.StatusCode)
	}
	_ = context.Background
}

// TestLiveMasksFramesAndShadowRoots (issue 21: secrets the engine typed
// stay masked): a secret in a field of a same-site frame, of a cross-site
// frame (its own renderer) and of an open shadow root is drawn masked too.
// Before, only the top document's own fields were masked.
func TestLiveMasksFramesAndShadowRoots(t *testing.T) {
	t.Parallel()
	b := testsite.Browser(t)
	field := `<!doctype html><input id="pw" value="">`
	inner := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, field)
	}))
	defer inner.Close()
	// localhost is another site than 127.0.0.1: that frame is out of process.
	cross := strings.Replace(inner.URL, "127.0.0.1", "localhost", 1)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/inner" {
			fmt.Fprint(w, field)
			return
		}
		fmt.Fprintf(w, `<!doctype html><title>frames</title><iframe id="same" src="/inner"></iframe><iframe id="cross" src="%s/inner"></iframe>
<div id="host"></div><script>document.getElementById('host').attachShadow({mode: 'open'}).innerHTML = '<input id="shadowed">'</script>`, cross)
	}))
	defer site.Close()
	env := testsite.NewPage(t, b, site.URL)
	secret := "hunter2-secret"
	env.MustWaitLoad()
	same := env.MustElement("#same").MustFrame().MustWaitLoad()
	// The cross-site frame is a target of its own (rod's Frame cannot
	// evaluate in it): its page, by its frame id.
	crossEl := env.MustElement("#cross")
	until(t, "the cross-site frame's document", func() bool {
		n, err := proto.DOMDescribeNode{ObjectID: crossEl.Object.ObjectID}.Call(env)
		return err == nil && n.Node.FrameID != ""
	})
	n, err := proto.DOMDescribeNode{ObjectID: crossEl.Object.ObjectID}.Call(env)
	if err != nil {
		t.Fatal(err)
	}
	crossFrame := b.MustPageFromTargetID(proto.TargetTargetID(n.Node.FrameID)).MustWaitLoad()
	same.MustElement("#pw").MustInput(secret)
	crossFrame.MustElement("#pw").MustInput(secret)
	env.MustEval(`(s) => { const e = document.getElementById('host').shadowRoot.getElementById('shadowed'); e.value = s }`, secret)

	lv := NewLive(env, LiveOptions{Title: "take over", Message: "check", Secrets: []string{secret}})
	srv := httptest.NewServer(http.StripPrefix("/live/e1", lv))
	defer srv.Close()
	defer lv.Close()
	viewer := testsite.NewPage(t, b, srv.URL+"/live/e1/")
	until(t, "a frame in the viewer", func() bool {
		return viewer.MustEval(`() => document.getElementById('live').getAttribute('data-frames') || '0'`).String() != "0"
	})
	masked := func(p *rod.Page, js string) bool {
		return p.MustEval(js).String() == "disc"
	}
	until(t, "the same-site frame's field masked", func() bool {
		return masked(same, `() => getComputedStyle(document.getElementById('pw')).webkitTextSecurity`)
	})
	until(t, "the cross-site frame's field masked", func() bool {
		return masked(crossFrame, `() => getComputedStyle(document.getElementById('pw')).webkitTextSecurity`)
	})
	until(t, "the shadow root's field masked", func() bool {
		return masked(env, `() => getComputedStyle(document.getElementById('host').shadowRoot.getElementById('shadowed')).webkitTextSecurity`)
	})
}

// TestLiveDoneAnswerStays: the answer to "done" stays on the viewer when
// the live view closes after it (as the ui closes an environment's view
// once its handoff is finished). Before, the stream's end then replaced
// it with "the page is gone", so the person never read that their work
// was saved (and TestTakeOverSecondFactor, waiting for that answer, timed
// out in CI when the end arrived after it).
func TestLiveDoneAnswerStays(t *testing.T) {
	t.Parallel()
	b := testsite.Browser(t)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, secondFactor)
	}))
	defer site.Close()
	env := testsite.NewPage(t, b, site.URL)
	const answer = "saved as the session of purpose \"shop\""
	lv := NewLive(env, LiveOptions{Title: "take over", Done: func(*http.Request) (string, error) { return answer, nil }})
	srv := httptest.NewServer(http.StripPrefix("/live/e1", lv))
	defer srv.Close()
	defer lv.Close()

	viewer := testsite.NewPage(t, b, srv.URL+"/live/e1/")
	state := func() string { return viewer.MustElement("#state").MustText() }
	until(t, "a frame in the viewer", func() bool { return state() == "live" })
	viewer.MustElement("#done").MustClick()
	until(t, "the done answer", func() bool { return state() == answer })
	lv.Close() // the stream ends after the answer arrived
	until(t, "the viewer to see the stream's end", func() bool {
		return viewer.MustEval(`() => document.getElementById('live').getAttribute('data-ended') || ''`).String() == "1"
	})
	if got := state(); got != answer {
		t.Errorf("after the stream ended the viewer says %q, want the done answer %q", got, answer)
	}
}
