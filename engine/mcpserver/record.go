package mcpserver

import (
	"bytes"
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
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolwright/toolwright/engine/browser"
	"github.com/toolwright/toolwright/engine/config"
	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/engine/policy"
	"github.com/toolwright/toolwright/engine/record"
	"github.com/toolwright/toolwright/engine/result"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/store"
)

// Recording (serve --record): an agent records a workflow the way a person
// does with `toolwright record`. Primitive tools act on one environment per
// MCP session, addressing elements by the refs of page_snapshot; the
// recorder's capture script sees their real input events as it sees a
// person's, and save_workflow drafts the same files from them into
// workflows/drafts/, where nothing is served until a person moves it.
// Each call goes through the same policy as a workflow call: a write
// primitive needs a task_id and a live grant (policy.write_tools), page_open
// is held to policy.allowed_hosts (and the environment's guard holds every
// navigation to it), results are redacted and every call is audited.

// recordPurpose is the purpose of recording environments.
const recordPurpose = "record"

// recordTool is one primitive tool.
type recordTool struct {
	name, risk, doc string
	props           string // JSON Schema properties (task_id added)
	required        []string
	run             func(ctx context.Context, r *recording, args map[string]any) (map[string]any, error)
}

// recorders holds the recordings of a server, one per MCP session.
type recorders struct {
	s   *Server
	cfg *config.Config

	mu   sync.Mutex
	live map[string]*recording
}

// recording is one session's environment and recorder.
type recording struct {
	env   *browser.Env
	rec   *record.Recorder
	start string // the first page opened
	mu    sync.Mutex
}

// EnableRecording adds the primitive tools and save_workflow (serve
// --record). They exist only then.
func (s *Server) EnableRecording(cfg *config.Config) error {
	rs := &recorders{s: s, cfg: cfg, live: map[string]*recording{}}
	for _, t := range rs.tools() {
		var props map[string]any
		if err := json.Unmarshal([]byte(t.props), &props); err != nil {
			return fmt.Errorf("record tool %s: %w", t.name, err)
		}
		props["task_id"] = map[string]any{"type": "string", "pattern": `^[A-Za-z0-9._:-]{1,128}$`, "description": "the task this recording belongs to (a write primitive needs one, and a grant for it)"}
		schema := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
		if len(t.required) > 0 {
			schema["required"] = t.required
		}
		raw, _ := json.Marshal(schema)
		ro, no := t.risk == policy.RiskRead, false
		open := true
		tool := &mcp.Tool{Name: t.name, Description: t.doc, InputSchema: json.RawMessage(raw),
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: ro, DestructiveHint: &no, OpenWorldHint: &open}}
		t := t
		if err := s.addToolHandler(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return rs.call(ctx, req, t)
		}); err != nil {
			return err
		}
	}
	return nil
}

// addToolHandler registers a tool with its own handler.
func (s *Server) addToolHandler(t *mcp.Tool, h mcp.ToolHandler) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	s.mcp.AddTool(t, h)
	return nil
}

func (rs *recorders) tools() []recordTool {
	return []recordTool{
		{name: "page_open", risk: policy.RiskRead, doc: "Open a URL in the recording's browser page (the first one is where the recorded workflow starts).",
			props: `{"url": {"type": "string", "maxLength": 2000, "description": "an http(s) URL"}}`, required: []string{"url"}, run: rs.pageOpen},
		{name: "page_snapshot", risk: policy.RiskRead, doc: "The page's fields, buttons, links and texts, one a line, each with a ref ([e12]) the other page_ tools take.",
			props: `{}`, run: rs.snapshot},
		{name: "page_click", risk: policy.RiskWrite, doc: "Click the element ref (from page_snapshot) with the mouse.",
			props: `{"ref": {"type": "string", "pattern": "^e[0-9]{1,6}$"}}`, required: []string{"ref"}, run: rs.click},
		{name: "page_fill", risk: policy.RiskWrite, doc: "Type text into the field ref, replacing what it holds: value, or secret (the name of a configured secret, typed by the server and recorded as ${{ secrets.NAME }}).",
			props: `{"ref": {"type": "string", "pattern": "^e[0-9]{1,6}$"}, "value": {"type": "string", "maxLength": 1000}, "secret": {"type": "string", "maxLength": 64}}`, required: []string{"ref"}, run: rs.fill},
		{name: "page_select", risk: policy.RiskWrite, doc: "Choose an option (by value or label) in the <select> ref.",
			props: `{"ref": {"type": "string", "pattern": "^e[0-9]{1,6}$"}, "value": {"type": "string", "maxLength": 200}}`, required: []string{"ref", "value"}, run: rs.choose},
		{name: "page_press", risk: policy.RiskWrite, doc: "Press a key (Enter, Escape, Tab, ArrowDown, one character), in the field ref when given.",
			props: `{"key": {"type": "string", "maxLength": 20}, "ref": {"type": "string", "pattern": "^e[0-9]{1,6}$"}}`, required: []string{"key"}, run: rs.press},
		{name: "page_extract", risk: policy.RiskRead, doc: "Read the text of the element ref, and mark it as a value the recorded workflow returns.",
			props: `{"ref": {"type": "string", "pattern": "^e[0-9]{1,6}$"}}`, required: []string{"ref"}, run: rs.extract},
		{name: "save_workflow", risk: policy.RiskWrite, doc: "Draft a workflow from this session's successful page_ calls: workflows/drafts/NAME.yaml, its selector entries and its test file. Drafts are never served until a person moves them into workflows/.",
			props: `{"name": {"type": "string", "pattern": "^[a-z][a-z0-9_]{0,63}$"}, "description": {"type": "string", "minLength": 1, "maxLength": 1000}}`, required: []string{"name", "description"}, run: rs.save},
	}
}

// call runs one primitive under the server's policy and audits it.
func (rs *recorders) call(ctx context.Context, req *mcp.CallToolRequest, t recordTool) (*mcp.CallToolResult, error) {
	s := rs.s
	s.inflight.Add(1)
	defer s.inflight.Add(-1)
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	start := time.Now()
	var args map[string]any
	env := func() *result.Envelope {
		dec := json.NewDecoder(bytes.NewReader(req.Params.Arguments))
		dec.UseNumber()
		if len(req.Params.Arguments) > 0 {
			if err := dec.Decode(&args); err != nil {
				return result.Failure(errs.New(errs.InvalidParams, "arguments: %v", err))
			}
		}
		if err := checkArgs(t, args); err != nil {
			return result.Failure(err)
		}
		taskID, _ := args["task_id"].(string)
		gid, err := policy.DecideWith(ctx, policy.WriteMode(rs.cfg.Policy.WriteTools), t.risk, t.name, taskID, s.eng.Store(), rs.cfg.GrantCommand)
		if err != nil {
			rs.audit(ctx, t, taskID, "", "", errs.As(err).Code)
			return result.Failure(err)
		}
		r, err := rs.session(ctx, req)
		if err != nil {
			rs.audit(ctx, t, taskID, "", gid, errs.As(err).Code)
			return result.Failure(err)
		}
		r.mu.Lock()
		data, err := t.run(ctx, r, args)
		r.mu.Unlock()
		env := result.Success(data)
		if err != nil {
			env = result.Failure(err)
		}
		env.TaskID = taskID
		rs.audit(ctx, t, taskID, r.env.ID, gid, env.Code)
		return env
	}()
	env.DurationMS = time.Since(start).Milliseconds()
	b := s.eng.Redactor().RedactBytes(env.JSON())
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}, StructuredContent: json.RawMessage(b), IsError: !env.OK}, nil
}

// checkArgs applies the tool's schema: known keys, required ones, strings.
func checkArgs(t recordTool, args map[string]any) error {
	var props map[string]map[string]any
	_ = json.Unmarshal([]byte(t.props), &props)
	for k, v := range args {
		if k == "task_id" {
			if s, ok := v.(string); !ok || s == "" || len(s) > 128 {
				return errs.New(errs.InvalidParams, "task_id: a string of 1 to 128 characters")
			}
			continue
		}
		p, ok := props[k]
		if !ok {
			return errs.New(errs.InvalidParams, "unknown argument %q (rule: additionalProperties)", k)
		}
		s, ok := v.(string)
		if !ok {
			return errs.New(errs.InvalidParams, "%s: want a string", k)
		}
		if max, ok := p["maxLength"].(float64); ok && len([]rune(s)) > int(max) {
			return errs.New(errs.InvalidParams, "%s: longer than %d characters (rule: maxLength)", k, int(max))
		}
	}
	for _, k := range t.required {
		if s, _ := args[k].(string); s == "" {
			return errs.New(errs.InvalidParams, "%s is required", k)
		}
	}
	return nil
}

func (rs *recorders) audit(ctx context.Context, t recordTool, taskID, envID, grant, code string) {
	err := rs.s.eng.Store().AppendAudit(context.WithoutCancel(ctx), &store.AuditRecord{
		TaskID: taskID, Tool: t.name, Risk: t.risk, EnvID: envID, Purpose: recordPurpose, GrantID: grant, Code: code,
	})
	if err != nil {
		rs.s.log.Error("audit record not written", "tool", t.name, "err", err)
	}
}

// session is the recording of req's MCP session, opened on first use.
func (rs *recorders) session(ctx context.Context, req *mcp.CallToolRequest) (*recording, error) {
	id := ""
	if req.Session != nil {
		id = req.Session.ID()
	}
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
		rs.s.eng.Browsers().Release(env)
		return nil, errs.Wrap(errs.EnvUnavailable, err, "the recording could not start")
	}
	r := &recording{env: env, rec: rec}
	rs.live[id] = r
	return r, nil
}

func str(args map[string]any, k string) string { s, _ := args[k].(string); return s }

func (rs *recorders) pageOpen(ctx context.Context, r *recording, args map[string]any) (map[string]any, error) {
	u := str(args, "url")
	if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		return nil, errs.New(errs.InvalidParams, "url: an http(s) URL, got %q", u)
	}
	if ok, why := rs.s.eng.Hosts().AllowedURL(u); !ok {
		return nil, errs.New(errs.HostNotAllowed, "%s", why)
	}
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
	if _, has := args["secret"]; has {
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
	raw, err := r.rec.Call(ctx, "mark", str(args, "ref"))
	if err != nil {
		return nil, refErr(err)
	}
	var v string
	_ = json.Unmarshal(raw, &v)
	return map[string]any{"value": v}, nil
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
