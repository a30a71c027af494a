package htmlview

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/toolwright/toolwright/engine/store"
)

// UI serves `toolwright ui`: the recent calls and each call's step timeline,
// envelope, arguments, failure screenshot and page HTML. It only reads the
// store and the artifact files it names.
type UI struct {
	Store store.Store
	// ArtifactsDir is artifacts_dir, which the paths traces record are
	// relative to.
	ArtifactsDir string
	// Token, when set, is required: as "Authorization: Bearer TOKEN", or once
	// as ?token=TOKEN, which sets a cookie for the rest of the visit.
	Token string
	// Hosts are the Host names accepted besides loopback (the bound host).
	Hosts []string
	// Limit bounds the calls listed (default 200).
	Limit int
	// Envs, when set, lists the open environments at /envs, each with a
	// live view at /env/ID/ (see Live).
	Envs Envs
	// Secrets are values the live views never show.
	Secrets []string
	// Repairs, when set, lists the pending repair proposals at /repairs,
	// each with an apply button (POST /repairs/apply).
	Repairs Repairs

	lives lives
}

const cookieName = "toolwright_ui"

// Sinces are the time filters offered.
var Sinces = []string{"", "15m", "1h", "24h", "168h"}

// ServeHTTP routes: / the call list, /trace/ID a call, /artifact/ID/NAME
// its files, /envs the open environments, /env/ID/ one's live view.
func (u *UI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !u.hostOK(r.Host) {
		http.Error(w, "forbidden: Host not allowed", http.StatusForbidden)
		return
	}
	if u.Token != "" {
		if q := r.URL.Query().Get("token"); q != "" && u.match(q) {
			http.SetCookie(w, &http.Cookie{Name: cookieName, Value: q, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			http.Redirect(w, r, r.URL.Path, http.StatusSeeOther)
			return
		}
		if !u.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="toolwright ui"`)
			http.Error(w, "unauthorized: open the address with ?token=TOKEN once, or send Authorization: Bearer TOKEN", http.StatusUnauthorized)
			return
		}
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "no-referrer")
	path := r.URL.Path
	if rest, ok := strings.CutPrefix(path, "/env/"); ok {
		u.live(w, r, rest) // the live view takes the person's input (POST)
		return
	}
	if path == "/repairs/apply" {
		u.applyRepair(w, r) // the person's apply (POST)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "read-only", http.StatusMethodNotAllowed)
		return
	}
	switch {
	case path == "/envs":
		u.envsPage(w, r)
	case path == "/repairs":
		u.repairsPage(w, r)
	case path == "/repairs.js":
		repairsJS(w)
	case path == "/":
		u.calls(w, r)
	case strings.HasPrefix(path, "/trace/"):
		u.trace(w, r, strings.TrimPrefix(path, "/trace/"))
	case strings.HasPrefix(path, "/artifact/"):
		u.artifact(w, r, strings.TrimPrefix(path, "/artifact/"))
	default:
		http.NotFound(w, r)
	}
}

func (u *UI) calls(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := struct{ Tool, Code, Since string }{q.Get("tool"), q.Get("code"), q.Get("since")}
	limit := u.Limit
	if limit <= 0 {
		limit = 200
	}
	tf := store.TraceFilter{Tool: f.Tool, Limit: limit, FailedOnly: f.Code == "failed"}
	if d, err := time.ParseDuration(f.Since); err == nil && d > 0 {
		tf.Since = time.Now().Add(-d)
	}
	list, err := u.Store.ListTraces(r.Context(), tf)
	if err != nil {
		http.Error(w, "the store cannot be read: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	// The choices come from every recent call, the rows from the filter.
	all, _ := u.Store.ListTraces(r.Context(), store.TraceFilter{Limit: 1000})
	tools, codes := map[string]bool{f.Tool: true}, map[string]bool{}
	for _, t := range all {
		tools[t.Tool] = true
		codes[t.Code] = true
	}
	if f.Code != "" && f.Code != "failed" {
		codes[f.Code] = true
		kept := list[:0]
		for _, t := range list {
			if t.Code == f.Code {
				kept = append(kept, t)
			}
		}
		list = kept
	}
	render(w, "calls", map[string]any{
		"Title": "recent calls", "Home": "./", "Calls": list, "Filter": f,
		"ToolNames": sortedKeys(tools), "Codes": sortedKeys(codes), "Sinces": Sinces,
	})
}

// Bar is one step on the timeline, in percent of the call's duration.
type Bar struct {
	Path, Label, Code, Strategy string
	DurationMS                  int64
	Left, Width                 float64
	Indent                      int
	// Held counts the requests policy.subresources refused while the step
	// ran; HeldURLs names the first of them, one a line.
	Held     int
	HeldURLs string
	// State is how the step ended, for its colour: ok, failed, or skipped
	// (an if: or when: that did not hold: not a failure).
	State string
	// Fallback: a fallback locator matched, so the primary is broken.
	Fallback bool
	// Locators are what a failed step looked for; Note says why a step
	// was skipped.
	Locators []string
	Note     string
	// ReadWith is the step whose request read this extract's value
	// (store.StepRecord.ReadWith): why it took no time.
	ReadWith string
	// Repair is the step's repair: a proposal for its broken target (see
	// /repairs), or the one it went on with (repair: use); nil for none.
	Repair *store.Repair
}

// Bars lays the steps out in time. Steps run one after another; a nested
// step (path "3.1") starts where its parent did plus its earlier siblings.
func Bars(t *store.Trace) []Bar {
	total := float64(t.DurationMS)
	var sum int64
	for _, s := range t.Steps {
		if !strings.Contains(s.Path, ".") {
			sum += s.DurationMS
		}
	}
	if float64(sum) > total {
		total = float64(sum)
	}
	if total <= 0 {
		total = 1
	}
	next := map[string]int64{} // parent path → where its next child starts (ms)
	var out []Bar
	for _, s := range t.Steps {
		parent := ""
		if i := strings.LastIndexByte(s.Path, '.'); i >= 0 {
			parent = s.Path[:i]
		}
		start := next[parent]
		next[parent] = start + s.DurationMS
		next[s.Path] = start
		label := s.Kind
		if s.Name != "" {
			label = s.Name
		} else if s.Target != "" {
			label += " " + s.Target
		}
		if s.Attempt > 1 {
			label += " (attempt " + strconv.Itoa(s.Attempt) + ")"
		}
		out = append(out, Bar{
			Path: s.Path, Label: label, Code: s.Code, Strategy: s.Strategy, DurationMS: s.DurationMS,
			Left: float64(start) / total * 100, Width: max(float64(s.DurationMS)/total*100, 0.2),
			Indent: strings.Count(s.Path, "."),
			Held:   s.Held, HeldURLs: strings.Join(s.HeldURLs, "\n"),
			State: stepState(s.Code), Fallback: strings.HasPrefix(s.Strategy, "fallback"),
			Locators: s.Locators, ReadWith: s.ReadWith, Repair: s.Repair,
		})
		if s.Code == "skipped" {
			out[len(out)-1].Note = s.Error
		}
	}
	return out
}

func stepState(code string) string {
	switch code {
	case "ok", "skipped":
		return code
	}
	return "failed"
}

func (u *UI) trace(w http.ResponseWriter, r *http.Request, id string) {
	t, err := u.Store.GetTrace(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		http.NotFound(w, r)
		return
	}
	if err != nil {
		http.Error(w, "the store cannot be read: "+err.Error(), http.StatusServiceUnavailable)
		return
	}
	env := map[string]any{"ok": t.Code == "ok", "code": t.Code, "trace_id": t.ID, "attempts": t.Attempts, "duration_ms": t.DurationMS}
	if t.Message != "" {
		env["message"] = t.Message
	}
	if t.TaskID != "" {
		env["task_id"] = t.TaskID
	}
	var images, htmls []string
	for _, a := range t.Artifacts {
		name := filepath.Base(a)
		link := "../artifact/" + t.ID + "/" + name
		switch strings.ToLower(filepath.Ext(name)) {
		case ".png", ".jpg", ".jpeg":
			images = append(images, link)
		case ".html", ".htm":
			htmls = append(htmls, link)
		}
	}
	envText := indent(env)
	if len(t.Envelope) > 0 { // what the agent was told, as stored
		envText = indentRaw(t.Envelope)
	}
	bars := Bars(t)
	fallbacks := 0
	for _, b := range bars {
		if b.Fallback {
			fallbacks++
		}
	}
	render(w, "trace", map[string]any{
		"Title": t.Tool + " " + t.ID, "Home": "../", "Trace": t, "Bars": bars, "Fallbacks": fallbacks,
		"Envelope": envText, "Args": indentRaw(t.Args), "Images": images, "Pages": htmls,
	})
}

// artifact serves one file a trace names. HTML is served under a CSP
// sandbox: no scripts, no requests, no same origin.
func (u *UI) artifact(w http.ResponseWriter, r *http.Request, rest string) {
	id, name, ok := strings.Cut(rest, "/")
	if !ok || strings.ContainsAny(name, `/\`) || name == "" {
		http.NotFound(w, r)
		return
	}
	t, err := u.Store.GetTrace(r.Context(), id)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	for _, a := range t.Artifacts {
		if filepath.Base(a) != name {
			continue
		}
		p := store.ArtifactPath(u.ArtifactsDir, a)
		if p == "" {
			break
		}
		b, err := os.ReadFile(p)
		if err != nil {
			http.Error(w, "artifact cannot be read", http.StatusNotFound)
			return
		}
		switch strings.ToLower(filepath.Ext(name)) {
		case ".html", ".htm":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Content-Security-Policy", "sandbox; default-src 'none'; img-src data:; style-src 'unsafe-inline'")
		case ".png":
			w.Header().Set("Content-Type", "image/png")
		default:
			w.Header().Set("Content-Type", "application/octet-stream")
		}
		_, _ = w.Write(b)
		return
	}
	http.NotFound(w, r)
}

func render(w http.ResponseWriter, name string, data map[string]any) {
	renderCSP(w, name, data, "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; frame-src 'self'")
}

// renderCSP renders page name under the content security policy csp.
func renderCSP(w http.ResponseWriter, name string, data map[string]any, csp string) {
	data["Nav"] = true
	var b bytes.Buffer
	if err := pages.ExecuteTemplate(&b, name, data); err != nil {
		http.Error(w, "render: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", csp)
	_, _ = w.Write(b.Bytes())
}

func indent(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

func indentRaw(raw json.RawMessage) string {
	if len(raw) == 0 {
		return "{}"
	}
	var b bytes.Buffer
	if json.Indent(&b, raw, "", "  ") != nil {
		return string(raw)
	}
	return b.String()
}

func (u *UI) match(tok string) bool {
	a, b := sha256.Sum256([]byte(tok)), sha256.Sum256([]byte(u.Token))
	return subtle.ConstantTimeCompare(a[:], b[:]) == 1
}

func (u *UI) authorized(r *http.Request) bool {
	if scheme, cred, ok := strings.Cut(r.Header.Get("Authorization"), " "); ok && strings.EqualFold(scheme, "Bearer") && u.match(strings.TrimSpace(cred)) {
		return true
	}
	c, err := r.Cookie(cookieName)
	return err == nil && u.match(c.Value)
}

// hostOK refuses Host names other than loopback and the bound host (DNS rebinding).
func (u *UI) hostOK(hostport string) bool {
	h := hostport
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		h = host
	}
	h = strings.ToLower(strings.Trim(h, "[]"))
	if h == "localhost" {
		return true
	}
	if ip := net.ParseIP(h); ip != nil && ip.IsLoopback() {
		return true
	}
	for _, a := range u.Hosts {
		if strings.EqualFold(a, h) || a == "*" {
			return true
		}
	}
	return false
}
