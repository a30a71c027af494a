package record_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/toolwright/toolwright/engine/app"
	"github.com/toolwright/toolwright/engine/browser"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/record"
	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/internal/testbrowser"
	"github.com/toolwright/toolwright/internal/testsite"
)

func TestMain(m *testing.M) { testsite.Main(m) }

// waitFor is the ceiling of every condition a test waits for: generous
// (the package's tests run in parallel, on a machine maybe loaded), the
// condition ends it early.
const waitFor = 2 * time.Minute

// hand is a person's hand on the recorded page: real input events over
// CDP (the mouse moved, pressed and released; text inserted as a keyboard
// would; keys down and up), never a script that clicks for them.
type hand struct {
	t *testing.T
	p *rod.Page
}

func (h hand) ctx() *rod.Page { return h.p.Timeout(waitFor) }

func (h hand) clickAt(x, y float64) {
	h.t.Helper()
	p := h.ctx()
	for _, ev := range []proto.InputDispatchMouseEvent{
		{Type: proto.InputDispatchMouseEventTypeMouseMoved, X: x, Y: y},
		{Type: proto.InputDispatchMouseEventTypeMousePressed, X: x, Y: y, Button: proto.InputMouseButtonLeft, ClickCount: 1},
		{Type: proto.InputDispatchMouseEventTypeMouseReleased, X: x, Y: y, Button: proto.InputMouseButtonLeft, ClickCount: 1},
	} {
		if err := ev.Call(p); err != nil {
			h.t.Fatalf("mouse: %v", err)
		}
	}
}

// box is the viewport center of what js (an expression of the page's
// main world, evaluated after the element is scrolled into view)
// returns.
func (h hand) box(js string) (float64, float64) {
	h.t.Helper()
	var x, y float64
	h.wait(fmt.Sprintf(`(() => { const el = %s; return !!el && el.getBoundingClientRect().width > 0; })()`, js))
	res, err := h.ctx().Eval(fmt.Sprintf(`() => { const el = %s; el.scrollIntoView({block: "center"}); const r = el.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }`, js))
	if err != nil {
		h.t.Fatalf("locate %s: %v", js, err)
	}
	arr := res.Value.Arr()
	x, y = arr[0].Num(), arr[1].Num()
	return x, y
}

func (h hand) click(css string) {
	h.t.Helper()
	h.clickAt(h.box(fmt.Sprintf("document.querySelector(%q)", css)))
}

func (h hand) clickJS(js string) {
	h.t.Helper()
	h.clickAt(h.box(js))
}

func (h hand) typeText(s string) {
	h.t.Helper()
	if err := (proto.InputInsertText{Text: s}).Call(h.ctx()); err != nil {
		h.t.Fatalf("type: %v", err)
	}
}

func (h hand) key(name string, code int, text string) {
	h.t.Helper()
	p := h.ctx()
	down := proto.InputDispatchKeyEvent{Type: proto.InputDispatchKeyEventTypeKeyDown, Key: name, Code: name, WindowsVirtualKeyCode: code, Text: text}
	up := proto.InputDispatchKeyEvent{Type: proto.InputDispatchKeyEventTypeKeyUp, Key: name, Code: name, WindowsVirtualKeyCode: code}
	if err := down.Call(p); err != nil {
		h.t.Fatalf("key: %v", err)
	}
	if err := up.Call(p); err != nil {
		h.t.Fatalf("key: %v", err)
	}
}

func (h hand) enter() { h.key("Enter", 13, "\r") }

// toolbar presses a button of the recorder's toolbar. It lives in a
// closed shadow root the page cannot reach; DevTools can (pierce).
func (h hand) toolbar(act string) {
	h.t.Helper()
	p := h.ctx()
	var x, y float64
	deadline := time.Now().Add(waitFor)
	for {
		doc, err := proto.DOMGetDocument{Depth: gsonInt(-1), Pierce: true}.Call(p)
		if err == nil {
			if host := findNode(doc.Root, "TOOLWRIGHT-RECORDER"); host != nil && len(host.ShadowRoots) > 0 {
				n, err := proto.DOMQuerySelector{NodeID: host.ShadowRoots[0].NodeID, Selector: fmt.Sprintf("[data-act=%q]", act)}.Call(p)
				if err == nil && n.NodeID != 0 {
					bm, err := proto.DOMGetBoxModel{NodeID: n.NodeID}.Call(p)
					if err == nil {
						q := bm.Model.Content
						x, y = (q[0]+q[4])/2, (q[1]+q[5])/2
						break
					}
				}
			}
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("the recorder's toolbar button %q never showed", act)
		}
		time.Sleep(100 * time.Millisecond)
	}
	h.clickAt(x, y)
}

// status is the text the recorder's toolbar shows the person now.
func (h hand) status() string {
	h.t.Helper()
	p := h.ctx()
	doc, err := proto.DOMGetDocument{Depth: gsonInt(-1), Pierce: true}.Call(p)
	if err != nil {
		h.t.Fatalf("the page's DOM: %v", err)
	}
	host := findNode(doc.Root, "TOOLWRIGHT-RECORDER")
	if host == nil || len(host.ShadowRoots) == 0 {
		h.t.Fatal("no recorder toolbar on the page")
	}
	n, err := proto.DOMQuerySelector{NodeID: host.ShadowRoots[0].NodeID, Selector: ".status"}.Call(p)
	if err != nil || n.NodeID == 0 {
		h.t.Fatalf("the toolbar's status: %v", err)
	}
	html, err := proto.DOMGetOuterHTML{NodeID: n.NodeID}.Call(p)
	if err != nil {
		h.t.Fatalf("the toolbar's status: %v", err)
	}
	return html.OuterHTML
}

// recording waits until the recorder's toolbar shows on the page: what a
// person sees before acting in a popup the recorder has just followed (a
// click before it, in a test's hand a few milliseconds after the popup
// opened, is not recorded: TestRecordOrder drafted an empty popup at a
// load of 23).
func (h hand) recording() {
	h.t.Helper()
	deadline := time.Now().Add(waitFor)
	for {
		doc, err := proto.DOMGetDocument{Depth: gsonInt(-1), Pierce: true}.Call(h.ctx())
		if err == nil && findNode(doc.Root, "TOOLWRIGHT-RECORDER") != nil {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatal("the recorder's toolbar never showed")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func gsonInt(i int) *int { return &i }

func findNode(n *proto.DOMNode, name string) *proto.DOMNode {
	if n == nil {
		return nil
	}
	if n.NodeName == name {
		return n
	}
	for _, c := range n.Children {
		if f := findNode(c, name); f != nil {
			return f
		}
	}
	return nil
}

// wait polls a main-world expression until it is true.
func (h hand) wait(js string) {
	h.t.Helper()
	deadline := time.Now().Add(waitFor)
	for {
		res, err := h.p.Timeout(5 * time.Second).Eval("() => " + js)
		if err == nil && res.Value.Bool() {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("waited %s for %s (last error %v)", waitFor, js, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// project is a toolwright project in a temporary folder: a config whose
// workflows and selector map start empty (the map with a comment that
// must survive the recording), serving dir of testdata.
type project struct {
	t    *testing.T
	cfg  *config.Config
	site *testsite.Site
	dir  string
}

// mapHeader starts the map: a comment that must stay, and a target the
// recorder must reuse for the element it resolves to.
const mapHeader = "# The selector map of the recording tests.\n# This comment must stay.\nlumen.email:\n  description: the sign-in email\n  css: \"#email\"\n"

func newProject(t *testing.T, secrets map[string]string) *project {
	t.Helper()
	testsite.NeedChromium(t)
	site := testsite.StartDir(t, "record")
	dir := t.TempDir()
	cfg := config.Default(dir)
	cfg.Vars["lumen_base"] = strings.TrimSuffix(site.URL(""), "/")
	for k, v := range secrets {
		cfg.SetSecretValue(k, v)
	}
	cfg.Browser.Spare = 0
	testbrowser.Config(t, cfg) // recording and replay in the package's shared Chromium
	for _, d := range []string{cfg.Workflows, filepath.Dir(cfg.Selectors), cfg.UploadsDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(cfg.Selectors, []byte(mapHeader), 0o644); err != nil {
		t.Fatal(err)
	}
	return &project{t: t, cfg: cfg, site: site, dir: dir}
}

// session is one recording in progress.
type session struct {
	p    *project
	bm   *browser.Manager
	env  *browser.Env
	rec  *record.Recorder
	hand hand
	url  string
}

// start opens an environment as `toolwright record` does and the page.
func (p *project) start(page string) *session {
	t := p.t
	t.Helper()
	bo, err := app.BrowserOptions(p.cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	bm, err := browser.NewManager(bo)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bm.Shutdown(context.Background()) })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	env, err := bm.OpenTemporary(ctx, "", "record")
	if err != nil {
		t.Fatal(err)
	}
	m, ps := selector.Load(p.cfg.Selectors)
	if len(ps) > 0 {
		t.Fatal(ps.Err())
	}
	var log *slog.Logger
	if os.Getenv("RECORD_DEBUG") != "" {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	rec, err := record.Start(ctx, env.Page(), record.Options{Map: m, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	url := p.site.URL("/" + page)
	if err := rec.Open(ctx, url); err != nil {
		t.Fatal(err)
	}
	return &session{p: p, bm: bm, env: env, rec: rec, hand: hand{t: t, p: env.Page()}, url: url}
}

// finish presses Finish and drafts, writes, validates and replays the tool.
func (s *session) finish(name string) (*record.Draft, *result.Envelope, []string) {
	t := s.p.t
	t.Helper()
	s.hand.toolbar("finish")
	select {
	case <-s.rec.Finished():
	case <-time.After(waitFor):
		t.Fatal("Finish was pressed but the recorder did not finish")
	}
	if err := s.rec.Err(); err != nil {
		t.Fatal(err)
	}
	rec := s.rec.Stop()
	s.bm.Release(s.env)
	_ = s.bm.Shutdown(context.Background()) // as record does: the replay opens a manager of its own
	d, diffs, env, err := s.p.draft(rec, name, s.url)
	if err != nil {
		t.Fatal(err)
	}
	return d, env, diffs
}

// draft is what `toolwright record` does after the person finished.
func (p *project) draft(rec *record.Recording, name, url string) (*record.Draft, []string, *result.Envelope, error) {
	cfg := p.cfg
	t0 := time.Now()
	defer func() { p.t.Logf("after Finish: %s", time.Since(t0).Round(time.Millisecond)) }()
	m, _ := selector.Load(cfg.Selectors)
	d, err := record.MakeDraft(rec, record.DraftOptions{
		Name: name, Prefix: "lumen." + name, StartURL: url, Map: m, Secrets: cfg.SecretValues(),
		Vars: cfg.Vars, MaxLoop: cfg.Limits.MaxLoop, UploadsDir: cfg.UploadsDir,
	})
	if err != nil {
		return nil, nil, nil, err
	}
	paths := record.Paths{Workflow: filepath.Join(cfg.Workflows, name+".yaml"), Selectors: cfg.Selectors, Test: filepath.Join(p.dir, "tests", name+".yaml")}
	if err := record.Write(d, paths); err != nil {
		return nil, nil, nil, err
	}
	p.t.Logf("drafted and written in %s", time.Since(t0).Round(time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	env, diffs, err := app.Replay(ctx, cfg, slog.New(slog.DiscardHandler), d, "test")
	if err != nil {
		return d, nil, nil, fmt.Errorf("%w\n--- workflow\n%s", err, d.Workflow)
	}
	p.t.Logf("replayed at %s (%s, steps %d ms)", time.Since(t0).Round(time.Millisecond), env.Code, env.DurationMS)
	return d, diffs, env, nil
}

// clickIn clicks inner (CSS) inside the iframe frameCSS of the page, same
// site or not: the point is the iframe's content box plus the element's
// place in the frame's own viewport (read through the frame's own target
// when it runs in another process).
func (h hand) clickIn(frameCSS, inner string) {
	h.t.Helper()
	var ix, iy float64
	deadline := time.Now().Add(waitFor)
	for {
		res, err := h.ctx().Eval(fmt.Sprintf(`() => { const f = document.querySelector(%q); let d = null; try { d = f && f.contentDocument; } catch (e) {} if (!f) return null; if (!d) return "cross"; const el = d.querySelector(%q); if (!el) return null; const r = el.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }`, frameCSS, inner))
		if err == nil && res.Value.Str() == "cross" {
			ix, iy = h.crossBox(frameCSS, inner)
			break
		}
		if err == nil && len(res.Value.Arr()) == 2 {
			ix, iy = res.Value.Arr()[0].Num(), res.Value.Arr()[1].Num()
			break
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("%s in %s never showed", inner, frameCSS)
		}
		time.Sleep(100 * time.Millisecond)
	}
	off, err := h.ctx().Eval(fmt.Sprintf(`() => { const f = document.querySelector(%q); const r = f.getBoundingClientRect(); return [r.x + f.clientLeft, r.y + f.clientTop]; }`, frameCSS))
	if err != nil {
		h.t.Fatal(err)
	}
	o := off.Value.Arr()
	h.clickAt(o[0].Num()+ix, o[1].Num()+iy)
}

// crossBox is the center of inner in the out-of-process frame frameCSS,
// in the frame's viewport, read on the frame's own target.
func (h hand) crossBox(frameCSS, inner string) (float64, float64) {
	h.t.Helper()
	b := h.p.Browser()
	src, err := h.ctx().Eval(fmt.Sprintf(`() => document.querySelector(%q).src`, frameCSS))
	if err != nil {
		h.t.Fatal(err)
	}
	want := src.Value.Str()
	deadline := time.Now().Add(waitFor)
	for {
		targets, err := proto.TargetGetTargets{}.Call(b)
		if err != nil {
			h.t.Fatal(err)
		}
		for _, ti := range targets.TargetInfos {
			if ti.Type != "iframe" || ti.URL != want {
				continue
			}
			at, err := proto.TargetAttachToTarget{TargetID: ti.TargetID, Flatten: true}.Call(b)
			if err != nil {
				continue
			}
			expr := fmt.Sprintf(`(() => { const el = document.querySelector(%q); if (!el) return null; const r = el.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()`, inner)
			raw, err := b.Call(context.Background(), string(at.SessionID), "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true})
			_, _ = b.Call(context.Background(), "", "Target.detachFromTarget", map[string]any{"sessionId": at.SessionID})
			if err != nil {
				continue
			}
			var out struct {
				Result struct {
					Value []float64 `json:"value"`
				} `json:"result"`
			}
			if json.Unmarshal(raw, &out) == nil && len(out.Result.Value) == 2 {
				return out.Result.Value[0], out.Result.Value[1]
			}
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("%s in the frame %s (%s) never showed", inner, frameCSS, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
