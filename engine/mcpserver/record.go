package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf16"

	"github.com/go-rod/rod/lib/proto"
	"github.com/toolwright/toolwright/engine/browser"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/policy"
	"github.com/toolwright/toolwright/engine/record"
	"github.com/toolwright/toolwright/engine/run"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/workflow"
)

// Recording (serve --record): an agent records a workflow the way a person
// does with `toolwright record`. Primitive tools act on one environment per
// MCP session, addressing elements by the refs of page_snapshot; the
// recorder's capture script sees their real input events as it sees a
// person's, and save_workflow drafts the same files from them into
// workflows/drafts/, where nothing is served until a person moves it.
// The primitives are native tools (workflow.NewNative): declared once
// below, they take the engine's one call path, as a workflow does — the
// schema enforced with every pattern and bound before the body runs, the
// store asked, the grant checked (policy.write_tools), page_open's url held
// to policy.allowed_hosts (and the environment's guard holds every
// navigation to it), the result redacted, audited and traced.

// recordPurpose is the purpose of recording environments.
const recordPurpose = "record"

// recordTool is one primitive tool: its declaration and its body.
type recordTool struct {
	spec workflow.NativeSpec
	run  func(rs *recorders, ctx context.Context, r *recording, args map[string]any) (map[string]any, error)
}

// recorders holds the recordings of a server, one per MCP session.
type recorders struct {
	s   *Server
	cfg *config.Config

	mu   sync.Mutex
	live map[string]*recording
}

// recording is one session's environment and recorder. It ends with its
// MCP session, or after browser.idle_timeout without a call: its
// environment is held for it (the browser's reaper never takes a held
// one), so without an end every recording would keep its environment
// until a restart, and a purpose full of them answers env_unavailable.
type recording struct {
	env   *browser.Env
	rec   *record.Recorder
	start string // the first page opened

	mu    sync.Mutex  // one call at a time; guards what follows
	idle  *time.Timer // ends the recording after idleTimeout without a call
	used  time.Time   // when the last call ended
	ended string      // why the recording ended ("" while it lives)
}

// Patterns of the primitives' arguments.
const (
	refPattern  = `^e[0-9]{1,6}$` // a ref of page_snapshot
	namePattern = `^[a-z][a-z0-9_]{0,63}$`
)

// param declares a string parameter of a primitive.
func param(name, doc string, maxLen int, pattern string, required bool) *workflow.Param {
	return &workflow.Param{Name: name, Type: workflow.TString, Description: doc, MaxLength: maxLen, Pattern: pattern, Required: required}
}

// refParam is the ref of an element, from page_snapshot.
func refParam(doc string, required bool) *workflow.Param {
	return param("ref", doc, 8, refPattern, required)
}

// recordToolList declares serve --record's tools, once: their schemas,
// the checks of the call path, toolwright tools and toolwright grant all
// read it. The page_ primitives repeat (a second click on Next clicks
// again), so their task_id scopes a grant only; save_workflow keeps its
// answer by task_id, as a workflow does.
func recordToolList() []recordTool {
	const read, write = policy.RiskRead, policy.RiskWrite
	one := func(min int) *int { return &min }
	desc := param("description", "what the drafted tool does, for the agents that will call it", 1000, "", true)
	desc.MinLength = one(1)
	secret := param("secret", "the name of a configured secret, typed by the server and recorded as ${{ secrets.NAME }} (instead of value)", 64, "", false)
	secret.MinLength = one(1)
	url := param("url", "an http(s) URL on a host policy.allowed_hosts allows", 2000, "", true)
	url.Format = "url"
	return []recordTool{
		{workflow.NativeSpec{Name: "page_open", Risk: read, Repeats: true, Params: []*workflow.Param{url},
			Description: "Open a URL in the recording's browser page (the first one is where the recorded workflow starts)."}, (*recorders).pageOpen},
		{workflow.NativeSpec{Name: "page_snapshot", Risk: read, Repeats: true,
			Description: "The page's fields, buttons, links and texts, one a line, each with a ref ([e12]) the other page_ tools take."}, (*recorders).snapshot},
		{workflow.NativeSpec{Name: "page_click", Risk: write, Repeats: true, Params: []*workflow.Param{refParam("the element to click", true)},
			Description: "Click the element ref (from page_snapshot) with the mouse."}, (*recorders).click},
		{workflow.NativeSpec{Name: "page_fill", Risk: write, Repeats: true,
			Params:      []*workflow.Param{refParam("the field to type into", true), param("value", "the text to type", 1000, "", false), secret},
			Description: "Type text into the field ref, replacing what it holds: value, or secret (the name of a configured secret, typed by the server and recorded as ${{ secrets.NAME }})."}, (*recorders).fill},
		{workflow.NativeSpec{Name: "page_select", Risk: write, Repeats: true,
			Params:      []*workflow.Param{refParam("the <select> or listbox", true), param("value", "the option's value or label", 200, "", true)},
			Description: "Choose an option (by value or label) in the <select> ref."}, (*recorders).choose},
		{workflow.NativeSpec{Name: "page_press", Risk: write, Repeats: true,
			Params:      []*workflow.Param{param("key", "a named key (Enter, Escape, Tab, ArrowDown, ...) or one character", 20, "", true), refParam("the field to press it in (default: where the focus is)", false)},
			Description: "Press a key (Enter, Escape, Tab, ArrowDown, one character), in the field ref when given."}, (*recorders).press},
		{workflow.NativeSpec{Name: "page_extract", Risk: read, Repeats: true,
			Params: []*workflow.Param{refParam("the element to read", true),
				{Name: "list", Type: workflow.TBoolean, Description: "ref is a row of a list, or an element in one: the list's rows are marked (every row like ref's), and an element in a row as a field each row returns", Default: false, HasDefault: true}},
			Description: "Read the text of the element ref, and mark it as a value the recorded workflow returns. With list, mark the rows of ref's list (and ref as one of their fields); once a list is marked, an element in one of its rows is a field of every row. The draft reads every page of a marked list with paginate, turned by the control page_next marks (or the one the recorder finds)."}, (*recorders).extract},
		{workflow.NativeSpec{Name: "page_next", Risk: read, Repeats: true, Params: []*workflow.Param{refParam("the control that turns the list's page", true)},
			Description: "Mark the element ref as the control that turns the marked list's page (the recorder finds a Next by itself; this names another)."}, (*recorders).next},
		{workflow.NativeSpec{Name: "save_workflow", Risk: write,
			Params:      []*workflow.Param{param("name", "the tool's name, also its file name", 64, namePattern, true), desc},
			Description: "Draft a workflow from this session's successful page_ calls: workflows/drafts/NAME.yaml, its selector entries and its test file. Drafts are never served until a person moves them into workflows/."}, (*recorders).save},
	}
}

// RecordTools are the tools serve --record adds, as declared (no body):
// what toolwright tools lists and toolwright grant accepts.
func RecordTools() []*workflow.Workflow {
	list := recordToolList()
	out := make([]*workflow.Workflow, 0, len(list))
	for _, t := range list {
		w, err := workflow.NewNative(t.spec)
		if err != nil {
			panic(err) // a declaration above is wrong: TestEveryToolTakesOnePath fails
		}
		out = append(out, w)
	}
	return out
}

// EnableRecording adds the primitive tools and save_workflow (serve
// --record). They exist only then, and take the engine's one call path
// (run.Engine.AddNative): this file holds only their declarations and
// bodies.
func (s *Server) EnableRecording(cfg *config.Config) error {
	rs := &recorders{s: s, cfg: cfg, live: map[string]*recording{}}
	for _, t := range recordToolList() {
		w, err := workflow.NewNative(t.spec)
		if err != nil {
			return err
		}
		if err := s.eng.AddNative(w, rs.body(t)); err != nil {
			return err
		}
	}
	s.OnSessionEnd(func(key string) {
		rs.mu.Lock()
		r := rs.live[key]
		rs.mu.Unlock()
		if r != nil {
			rs.end(key, r, "its MCP session ended")
		}
	})
	s.Sync(s.eng.Workflows())
	return nil
}

// body is the native body of t: the session's recording, then t's run.
func (rs *recorders) body(t recordTool) run.NativeFunc {
	return func(ctx context.Context, in *run.NativeCall) (map[string]any, error) {
		r, err := rs.session(ctx, in.Session)
		if err != nil {
			return nil, err
		}
		in.UseEnv(r.env)
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.ended != "" { // it ended while this call waited for it
			return nil, errs.New(errs.EnvNotFound, "the recording ended (%s); call page_open to start a new one", r.ended)
		}
		defer func() { r.used = time.Now() }()
		return t.run(rs, ctx, r, in.Params)
	}
}

// idleTimeout is how long a recording lives without a call.
func (rs *recorders) idleTimeout() time.Duration {
	if d := rs.cfg.Browser.IdleTimeout; d > 0 {
		return d
	}
	return 10 * time.Minute
}

// idleEnd ends r when no call used it for idleTimeout; a call that ran
// meanwhile sets the timer again for what is left.
func (rs *recorders) idleEnd(key string, r *recording) {
	d := rs.idleTimeout()
	r.mu.Lock()
	left := d - time.Since(r.used)
	if left > 0 && r.ended == "" {
		r.idle.Reset(left)
	}
	r.mu.Unlock()
	if left > 0 {
		return
	}
	rs.end(key, r, fmt.Sprintf("no call for %s", d))
}

// end forgets r and closes its environment, once the call running in it
// (if any) has finished.
func (rs *recorders) end(key string, r *recording, why string) {
	rs.mu.Lock()
	if rs.live[key] == r {
		delete(rs.live, key)
	}
	rs.mu.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended != "" {
		return
	}
	r.ended = why
	r.idle.Stop()
	r.rec.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := rs.s.eng.Browsers().Close(ctx, r.env.ID); err != nil {
		rs.s.log.Debug("recording environment already gone", "env", r.env.ID, "err", err)
	}
	rs.s.log.Info("recording ended", "env", r.env.ID, "why", why)
}

// session is the recording of MCP session id, opened on first use.
func (rs *recorders) session(ctx context.Context, id string) (*recording, error) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if r := rs.live[id]; r != nil {
		select {
		case <-r.env.Done():
		default:
			return r, nil
		}
	}
	env, err := rs.s.eng.Browsers().Open(ctx, "", recordPurpose)
	if err != nil {
		return nil, err
	}
	var m *selector.Map
	if _, err := os.Stat(rs.cfg.Selectors); err == nil {
		m, _ = selector.Load(rs.cfg.Selectors)
	}
	rec, err := record.Start(ctx, env.Page(), record.Options{Map: m, Log: rs.s.log})
	if err != nil {
		_ = rs.s.eng.Browsers().Close(context.WithoutCancel(ctx), env.ID) // its page is half set up: never reused
		return nil, errs.Wrap(errs.EnvUnavailable, err, "the recording could not start")
	}
	r := &recording{env: env, rec: rec, used: time.Now()}
	r.mu.Lock() // the timer's function reads r.idle under r.mu
	r.idle = time.AfterFunc(rs.idleTimeout(), func() { rs.idleEnd(id, r) })
	r.mu.Unlock()
	rs.live[id] = r
	return r, nil
}

func str(args map[string]any, k string) string { s, _ := args[k].(string); return s }

func (rs *recorders) pageOpen(ctx context.Context, r *recording, args map[string]any) (map[string]any, error) {
	// The call path checked its scheme (the schema) and its host
	// (policy.allowed_hosts, as for every format: url parameter).
	u := str(args, "url")
	if err := r.rec.Open(ctx, u); err != nil {
		return nil, errs.Wrap(errs.NavigationFailed, err, "%s did not load", u)
	}
	if r.start == "" {
		r.start = u
	} else {
		r.rec.Note(&record.Event{K: "goto", URL: u})
	}
	return rs.snapshot(ctx, r, nil)
}

func (rs *recorders) snapshot(ctx context.Context, r *recording, _ map[string]any) (map[string]any, error) {
	if r.start == "" {
		return nil, errs.New(errs.InvalidParams, "no page yet: call page_open first")
	}
	raw, err := r.rec.Call(ctx, "snapshot")
	if err != nil {
		return nil, errs.Wrap(errs.NavigationFailed, err, "the page cannot be read: %v", err)
	}
	var snap struct {
		URL   string   `json:"url"`
		Title string   `json:"title"`
		Lines []string `json:"lines"`
	}
	if err := json.Unmarshal(raw, &snap); err != nil {
		return nil, err
	}
	red := rs.s.eng.Redactor()
	for i, l := range snap.Lines {
		// A value cut short ends `"…` (its quote, then …): redact the start of a secret the
		// cut left there (the answer's own redaction sees whole values).
		if v, cut := strings.CutSuffix(l, "\"\u2026"); cut {
			snap.Lines[i] = red.RedactCut(v) + "\"\u2026"
		}
	}
	return map[string]any{"url": snap.URL, "title": snap.Title, "elements": strings.Join(snap.Lines, "\n")}, nil
}

// refErr is a page-side refusal about a ref, for the agent.
func refErr(err error) error { return errs.New(errs.TargetNotFound, "%v", err) }

// mouse clicks at the element ref with real input events.
func (rs *recorders) mouse(ctx context.Context, r *recording, ref string) error {
	raw, err := r.rec.Call(ctx, "point", ref)
	if err != nil {
		return refErr(err)
	}
	var pt [2]float64
	if err := json.Unmarshal(raw, &pt); err != nil {
		return err
	}
	p := r.rec.Page().Context(ctx)
	for _, ev := range []proto.InputDispatchMouseEvent{
		{Type: proto.InputDispatchMouseEventTypeMouseMoved, X: pt[0], Y: pt[1]},
		{Type: proto.InputDispatchMouseEventTypeMousePressed, X: pt[0], Y: pt[1], Button: proto.InputMouseButtonLeft, ClickCount: 1},
		{Type: proto.InputDispatchMouseEventTypeMouseReleased, X: pt[0], Y: pt[1], Button: proto.InputMouseButtonLeft, ClickCount: 1},
	} {
		if err := ev.Call(p); err != nil {
			return err
		}
	}
	return nil
}

func (rs *recorders) click(ctx context.Context, r *recording, args map[string]any) (map[string]any, error) {
	if err := rs.mouse(ctx, r, str(args, "ref")); err != nil {
		return nil, err
	}
	return map[string]any{"clicked": str(args, "ref")}, nil
}

func (rs *recorders) fill(ctx context.Context, r *recording, args map[string]any) (map[string]any, error) {
	value, secret := str(args, "value"), str(args, "secret")
	if secret != "" {
		v, ok := rs.cfg.SecretValues()[secret]
		if !ok {
			return nil, errs.New(errs.InvalidParams, "secret: no configured secret %q (the config has %s)", secret, strings.Join(rs.cfg.SecretNames(), ", "))
		}
		value = v
	}
	ref := str(args, "ref")
	if err := rs.mouse(ctx, r, ref); err != nil {
		return nil, err
	}
	raw, err := r.rec.Call(ctx, "focus", ref, secret != "")
	if err != nil {
		return nil, refErr(err)
	}
	if err := fits(raw, ref, value, secret); err != nil {
		return nil, err
	}
	if err := (proto.InputInsertText{Text: value}).Call(r.rec.Page().Context(ctx)); err != nil {
		return nil, err
	}
	if err := r.rec.Flush(ctx); err != nil {
		return nil, refErr(err)
	}
	return map[string]any{"filled": ref}, nil
}

// fits refuses, before anything is typed, a value longer than the
// field's maxlength (raw: the capture script's answer to focus), as the
// fill step does: the field would keep only its start, and of a secret
// that start would be drafted as a parameter's recorded argument.
func fits(raw []byte, ref, value, secret string) error {
	var max int
	_ = json.Unmarshal(raw, &max)
	n := len(utf16.Encode([]rune(value))) // maxlength counts UTF-16 code units
	if max <= 0 || n <= max {
		return nil
	}
	what := "value"
	if secret != "" {
		what = "secret " + secret
	}
	return errs.New(errs.InvalidParams, "%s is %d characters and field %s keeps at most %d (its maxlength): it would keep only part of it; nothing was typed", what, n, ref, max)
}

func (rs *recorders) choose(ctx context.Context, r *recording, args map[string]any) (map[string]any, error) {
	raw, err := r.rec.Call(ctx, "choose", str(args, "ref"), str(args, "value"))
	if err != nil {
		return nil, refErr(err)
	}
	var v string
	_ = json.Unmarshal(raw, &v)
	return map[string]any{"selected": v}, nil
}

// keys are the named keys page_press takes: key, code, virtual key code, text.
var keys = map[string]struct {
	code string
	vk   int
	text string
}{
	"Enter": {"Enter", 13, "\r"}, "Escape": {"Escape", 27, ""}, "Tab": {"Tab", 9, ""}, "Backspace": {"Backspace", 8, ""},
	"ArrowDown": {"ArrowDown", 40, ""}, "ArrowUp": {"ArrowUp", 38, ""}, "ArrowLeft": {"ArrowLeft", 37, ""}, "ArrowRight": {"ArrowRight", 39, ""},
	"PageDown": {"PageDown", 34, ""}, "PageUp": {"PageUp", 33, ""}, "Home": {"Home", 36, ""}, "End": {"End", 35, ""}, "Delete": {"Delete", 46, ""},
}

func (rs *recorders) press(ctx context.Context, r *recording, args map[string]any) (map[string]any, error) {
	key := str(args, "key")
	k, named := keys[key]
	if !named && len([]rune(key)) != 1 {
		return nil, errs.New(errs.InvalidParams, "key: a named key (Enter, Escape, Tab, ArrowDown, ...) or one character, got %q", key)
	}
	if !named {
		k.code, k.text = "", key
	}
	if ref := str(args, "ref"); ref != "" {
		if _, err := r.rec.Call(ctx, "focus", ref); err != nil {
			return nil, refErr(err)
		}
	}
	p := r.rec.Page().Context(ctx)
	down := proto.InputDispatchKeyEvent{Type: proto.InputDispatchKeyEventTypeKeyDown, Key: key, Code: k.code, WindowsVirtualKeyCode: k.vk, Text: k.text}
	up := proto.InputDispatchKeyEvent{Type: proto.InputDispatchKeyEventTypeKeyUp, Key: key, Code: k.code, WindowsVirtualKeyCode: k.vk}
	if err := down.Call(p); err != nil {
		return nil, err
	}
	if err := up.Call(p); err != nil {
		return nil, err
	}
	return map[string]any{"pressed": key}, nil
}

func (rs *recorders) extract(ctx context.Context, r *recording, args map[string]any) (map[string]any, error) {
	op := "mark"
	if list, _ := args["list"].(bool); list {
		op = "list"
	}
	raw, err := r.rec.Call(ctx, op, str(args, "ref"))
	if err != nil {
		return nil, refErr(err)
	}
	var v struct {
		Value string `json:"value"`
		Field string `json:"field"`
		Rows  *int   `json:"rows"`
		Next  *bool  `json:"next"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, errs.Wrap(errs.Internal, err, "page_extract: the page's answer: %v", err)
	}
	out := map[string]any{"value": v.Value}
	if v.Field != "" {
		out["field"] = v.Field
	}
	if v.Rows != nil {
		out["rows"] = *v.Rows
	}
	if v.Next != nil {
		out["next_page"] = *v.Next
		if !*v.Next {
			out["note"] = "no next-page control found: the draft reads this page only; mark the control that turns it with page_next"
		}
	}
	return out, nil
}

// next marks the control that turns the marked list's page.
func (rs *recorders) next(ctx context.Context, r *recording, args map[string]any) (map[string]any, error) {
	if _, err := r.rec.Call(ctx, "next", str(args, "ref")); err != nil {
		return nil, refErr(err)
	}
	return map[string]any{"next_page": true}, nil
}

// save drafts the session's workflow into workflows/drafts/: NAME.yaml,
// NAME.selectors.yaml (the new entries, to move into the selector map)
// and NAME.test.yaml.
func (rs *recorders) save(ctx context.Context, r *recording, args map[string]any) (map[string]any, error) {
	if r.start == "" {
		return nil, errs.New(errs.InvalidParams, "nothing recorded: call page_open and act on the page first")
	}
	if err := r.rec.Flush(ctx); err != nil {
		return nil, refErr(err)
	}
	name := str(args, "name")
	var m *selector.Map
	if _, err := os.Stat(rs.cfg.Selectors); err == nil {
		m, _ = selector.Load(rs.cfg.Selectors)
	}
	red := rs.s.eng.Redactor()
	d, err := record.MakeDraft(r.rec.Recording(), record.DraftOptions{
		Name: name, Description: str(args, "description"), StartURL: r.start, Map: m,
		Secrets: rs.cfg.SecretValues(), Vars: rs.cfg.Vars, MaxLoop: rs.cfg.Limits.MaxLoop, UploadsDir: rs.cfg.UploadsDir,
		Redact: red.Redact,
	})
	if err != nil {
		return nil, errs.New(errs.InvalidParams, "%v", err)
	}
	dir := filepath.Join(rs.cfg.Workflows, "drafts")
	paths := record.Paths{
		Workflow:     filepath.Join(dir, name+".yaml"),
		Selectors:    filepath.Join(dir, name+".selectors.yaml"),
		Test:         filepath.Join(dir, name+".test.yaml"),
		NewSelectors: true,
	}
	if err := record.Write(d, paths); err != nil {
		return nil, errs.New(errs.InvalidParams, "%v", err)
	}
	return map[string]any{
		"workflow": paths.Workflow, "selectors": paths.Selectors, "test": paths.Test,
		"steps": d.Workflow, "risk": d.Risk,
		"note": "a draft: a person reviews it, appends the selector entries to the selector map and moves the workflow into " + rs.cfg.Workflows + " to serve it",
	}, nil
}
