package record

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/selsuggest"
	"gopkg.in/yaml.v3"
)

// DraftOptions say how a recording becomes files.
type DraftOptions struct {
	Name        string // the tool's name
	Description string // "": one is written from the steps
	Prefix      string // new targets are named PREFIX.NAME
	StartURL    string
	Map         *selector.Map     // the existing map (targets reused, names kept apart)
	Secrets     map[string]string // configured secrets: name → value
	Vars        map[string]any    // the config's vars: a URL under one is written with it
	MaxLoop     int               // limits.max_loop
	UploadsDir  string            // where upload files must be
	Redact      func(string) string
}

// Draft is what a recording becomes.
type Draft struct {
	Name     string
	Workflow string             // workflows/NAME.yaml
	Entries  []selsuggest.Entry // the new selector-map entries
	Test     string             // tests/NAME.yaml
	Args     map[string]any     // the arguments the person typed
	Observed map[string]any     // output name → what the person saw
	Risk     string
	TaskID   string // the replay's task_id (write tools need one)
}

// SecretNeeded stops a recording: a password was typed that matches no
// configured secret. Its value is never written anywhere.
type SecretNeeded struct {
	Field  string // the field's description
	Secret string // a name to give the secret
}

func (e *SecretNeeded) Error() string {
	return fmt.Sprintf("a password was typed into %s, and it matches no secret of the config: add one (for example secrets: {%s: {env: %s}} in toolwright.yaml, with the password in that variable) and record again; the password was not written anywhere",
		e.Field, e.Secret, strings.ToUpper(e.Secret))
}

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// drafter carries the state of one draft.
type drafter struct {
	o          DraftOptions
	entries    []selsuggest.Entry
	byKey      map[string]string // element key → target name (new or reused)
	names      map[string]bool
	params     *omap
	args       map[string]any
	pnames     map[string]bool
	outputs    *omap
	observed   map[string]any
	risk       string
	nextName   string              // the next-page control's target
	fieldNames map[string][]string // a list output → its fields, in order
	reads      []string            // what it returns, for the description
	acts       []string            // what it does, for the description
}

// omap is a YAML mapping that keeps its keys in order.
type omap struct {
	keys []string
	vals map[string]any
	flow bool
}

func newMap(flow bool, kv ...any) *omap {
	m := &omap{vals: map[string]any{}, flow: flow}
	for i := 0; i+1 < len(kv); i += 2 {
		m.set(kv[i].(string), kv[i+1])
	}
	return m
}

func (m *omap) set(k string, v any) {
	if _, ok := m.vals[k]; !ok {
		m.keys = append(m.keys, k)
	}
	m.vals[k] = v
}

func (m *omap) MarshalYAML() (any, error) {
	n := &yaml.Node{Kind: yaml.MappingNode}
	if m.flow {
		n.Style = yaml.FlowStyle
	}
	for _, k := range m.keys {
		var v yaml.Node
		if err := v.Encode(m.vals[k]); err != nil {
			return nil, err
		}
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: k}, &v)
	}
	return n, nil
}

// MakeDraft turns a recording into a workflow, selector entries and a test file.
func MakeDraft(rec *Recording, o DraftOptions) (*Draft, error) {
	if !nameRE.MatchString(o.Name) {
		return nil, fmt.Errorf("tool name %q: use lowercase letters, digits and _, starting with a letter (at most 64)", o.Name)
	}
	if o.Prefix == "" {
		o.Prefix = "rec." + o.Name
	}
	if !regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$`).MatchString(o.Prefix) {
		return nil, fmt.Errorf("--prefix %q: dotted lowercase names, like acme.search", o.Prefix)
	}
	if o.MaxLoop <= 0 {
		o.MaxLoop = 100
	}
	if o.Redact == nil {
		o.Redact = func(s string) string { return s }
	}
	d := &drafter{
		o: o, byKey: map[string]string{}, names: map[string]bool{}, params: newMap(false), args: map[string]any{},
		pnames: map[string]bool{}, fieldNames: map[string][]string{}, outputs: newMap(false), observed: map[string]any{}, risk: "read",
	}
	steps, err := d.steps(rec)
	if err != nil {
		return nil, err
	}
	return d.files(steps)
}

// pageSteps is the step list events of one page go into.
type pageSteps struct {
	list  *[]any
	page  int
	dirty bool // the last action may have changed the page: the next waits for its target
}

// draftRun is one pass over a recording's events: the steps so far, the
// list each page's events go into, and what marks and turns said.
type draftRun struct {
	*drafter
	top      []any
	lists    map[int]*pageSteps
	lastAct  int64
	started  bool
	spec     *Spec
	rowsAt   *pageSteps
	rowsIdx  int
	turns    int
	observed []map[string]any
	finished bool
}

func (d *drafter) steps(rec *Recording) ([]any, error) {
	r := &draftRun{drafter: d}
	r.top = append(r.top, newMap(false, "goto", d.urlOf(d.o.StartURL)))
	r.lists = map[int]*pageSteps{0: {list: &r.top}}
	evs := mergeFills(rec.Events)
	for i, ev := range evs {
		ps := r.lists[ev.Page]
		if ps == nil {
			continue // a page opened outside any recorded popup
		}
		done, err := r.event(ps, ev)
		if err == nil && !done {
			err = r.action(ps, ev, evs[i+1:])
		}
		if err != nil {
			return nil, err
		}
	}
	if err := r.insertRows(); err != nil {
		return nil, err
	}
	return r.top, nil
}

// event takes an event that is not a page action (a navigation, a submit,
// a popup, a turn, the finish, a mark) and says whether it was one.
func (r *draftRun) event(ps *pageSteps, ev *Event) (bool, error) {
	switch ev.K {
	case "nav":
		if r.started && ev.Page == 0 && ev.T-r.lastAct > 5000 && strings.HasPrefix(ev.URL, "http") {
			*ps.list = append(*ps.list, newMap(false, "goto", r.urlOf(ev.URL)))
			ps.dirty = true
		}
	case "goto":
		*ps.list = append(*ps.list, newMap(false, "goto", r.urlOf(ev.URL)))
		ps.dirty = true
		r.started = true
		r.lastAct = ev.T
	case "submit":
		if ev.Method == "post" {
			r.risk = "write"
		}
	case "popup":
		r.popup(ps, ev)
	case "popup_closed", "turn":
		if ev.K == "turn" && ev.Rows != nil {
			r.observed = append(r.observed, ev.Rows...)
			r.turns++
		}
	case "finish":
		if ev.Rows != nil {
			r.observed = append(r.observed, ev.Rows...)
		}
		r.finished = true
	case "mark":
		return true, r.mark(ps, ev)
	default:
		return false, nil
	}
	return true, nil
}

// popup turns the opener's last click into a popup step: the popup's
// actions become its steps.
func (r *draftRun) popup(ps *pageSteps, ev *Event) {
	var n int
	fmt.Sscan(ev.Value, &n)
	l := *ps.list
	for j := len(l) - 1; j >= 0; j-- {
		m, ok := l[j].(*omap)
		if !ok {
			continue
		}
		if t, ok := m.vals["click"]; ok {
			inner := []any{}
			p := newMap(false, "popup", newMap(false, "click", t, "steps", &inner))
			if dl, ok := m.vals["dialog"]; ok {
				p.set("dialog", dl)
			}
			l[j] = p
			r.lists[n] = &pageSteps{list: &inner, page: n, dirty: true}
			return
		}
	}
}

// mark takes what the person marked: a value to return, the rows, the
// next-page control.
func (r *draftRun) mark(ps *pageSteps, ev *Event) error {
	if ev.Spec != nil {
		r.spec = ev.Spec
	}
	switch ev.Mode {
	case "value":
		return r.markValue(ps, ev)
	case "rows":
		r.rowsAt, r.rowsIdx = ps, len(*ps.list)
	case "next":
		if ev.El != nil {
			t, err := r.target(ev.El, ev.Frames, "next-page control")
			if err != nil {
				return err
			}
			r.nextName = t
		}
	}
	return nil
}

// action adds the step of a page action, after a wait for its target when
// the action before may have changed the page.
func (r *draftRun) action(ps *pageSteps, ev *Event, rest []*Event) error {
	if !isAction(ev.K) {
		return nil
	}
	r.started = true
	r.lastAct = ev.T
	s, err := r.drafter.action(ev, rest)
	if err != nil || s == nil {
		return err
	}
	if t := targetOfStep(s); t != "" && ps.dirty {
		*ps.list = append(*ps.list, newMap(false, "wait", newMap(true, "visible", t)))
	}
	*ps.list = append(*ps.list, s)
	ps.dirty = ev.K == "click" || ev.K == "press" || ev.K == "select" || ev.K == "check" || ev.K == "upload"
	return nil
}

// insertRows puts the steps reading the marked rows where they were marked.
func (r *draftRun) insertRows() error {
	if r.spec == nil || r.spec.Rows == nil || r.rowsAt == nil {
		return nil
	}
	if len(r.spec.Rows.Fields) == 0 {
		return fmt.Errorf("rows were marked but no field in them: click each field to return after marking the row")
	}
	st, err := r.rows(r.spec, r.turns+1, r.observed, r.finished)
	if err != nil {
		return err
	}
	l := *r.rowsAt.list
	*r.rowsAt.list = append(l[:r.rowsIdx], append(st, l[r.rowsIdx:]...)...)
	return nil
}

// mergeFills keeps the last of fills in a row on one field (typing,
// erasing, typing again), and puts a fill before the key that ended it.
func mergeFills(evs []*Event) []*Event {
	var out []*Event
	for _, ev := range evs {
		if ev.K == "fill" && len(out) > 0 {
			if prev := out[len(out)-1]; prev.K == "fill" && prev.Page == ev.Page && sameEl(prev, ev) {
				out[len(out)-1] = ev
				continue
			}
		}
		out = append(out, ev)
	}
	return out
}

func sameEl(a, b *Event) bool {
	if a.El == nil || b.El == nil || len(a.El.Cands) == 0 || len(b.El.Cands) == 0 || len(a.Frames) != len(b.Frames) {
		return false
	}
	return a.El.Cands[0] == b.El.Cands[0]
}

func targetOfStep(s *omap) string {
	for _, k := range []string{"click", "fill", "select", "check", "press", "upload", "extract"} {
		v, ok := s.vals[k]
		if !ok {
			continue
		}
		switch v := v.(type) {
		case string:
			return v
		case *omap:
			for _, f := range []string{"target", "from"} {
				if t, ok := v.vals[f].(string); ok {
					return t
				}
			}
		}
	}
	return ""
}

// action is the step of one action, or nil.
func (d *drafter) action(ev *Event, rest []*Event) (*omap, error) {
	var target string
	if ev.El != nil {
		t, err := d.target(ev.El, ev.Frames, ev.K)
		if err != nil {
			return nil, err
		}
		target = t
	}
	var s *omap
	switch ev.K {
	case "click":
		s = newMap(false, "click", target)
		d.acts = append(d.acts, "clicks "+label(ev.El))
	case "fill":
		v, err := d.value(ev, target)
		if err != nil {
			return nil, err
		}
		s = newMap(false, "fill", newMap(true, "target", target, "value", v))
		d.acts = append(d.acts, "fills "+label(ev.El))
	case "select":
		p := d.param(target, "")
		var values []any
		for _, o := range ev.Options {
			values = append(values, o.Value)
		}
		desc := fmt.Sprintf("The option to choose in %s", label(ev.El))
		d.params.set(p, newMap(true, "type", "string", "description", desc, "enum", values, "required", true))
		d.args[p] = ev.Value
		s = newMap(false, "select", newMap(true, "target", target, "value", "${{ params."+p+" }}"))
		d.acts = append(d.acts, "chooses "+label(ev.El))
	case "check":
		s = newMap(false, "check", newMap(true, "target", target, "checked", ev.Checked))
		d.acts = append(d.acts, "checks "+label(ev.El))
	case "press":
		if target == "" {
			s = newMap(false, "press", ev.Key)
		} else {
			s = newMap(false, "press", newMap(true, "key", ev.Key, "target", target))
		}
		if ev.Key == "Enter" {
			d.acts = append(d.acts, "presses Enter")
		}
	case "upload":
		for _, f := range ev.Files {
			if d.o.UploadsDir == "" {
				break
			}
			if _, err := os.Stat(filepath.Join(d.o.UploadsDir, f)); err != nil {
				return nil, fmt.Errorf("the file %q was uploaded, but uploads take files from uploads_dir (%s) only: copy it there and record again", f, d.o.UploadsDir)
			}
		}
		files := make([]any, len(ev.Files))
		for i, f := range ev.Files {
			files[i] = f
		}
		s = newMap(false, "upload", newMap(true, "target", target, "files", files))
		d.acts = append(d.acts, "uploads "+strings.Join(ev.Files, ", "))
	}
	if ev.Dialog != nil {
		switch {
		case ev.Dialog.Type == "prompt" && ev.Dialog.Accepted:
			s.set("dialog", newMap(true, "accept", true, "text", ev.Dialog.Text))
		case ev.Dialog.Accepted:
			s.set("dialog", "accept")
		default:
			s.set("dialog", "dismiss")
		}
	}
	return s, nil
}

// value is what a fill types: a secret's reference when the text is a
// configured secret's value, else a parameter with the typed text as its
// recorded argument. A password that matches no secret stops the draft.
func (d *drafter) value(ev *Event, target string) (string, error) {
	names := make([]string, 0, len(d.o.Secrets))
	for n := range d.o.Secrets {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if v := d.o.Secrets[n]; v != "" && v == ev.Value {
			return "${{ secrets." + n + " }}", nil
		}
	}
	if ev.El.Password {
		return "", &SecretNeeded{Field: label(ev.El), Secret: secretName(d.o.Prefix)}
	}
	if n := d.cutSecret(ev); n != "" {
		return "", fmt.Errorf("%s keeps at most %d characters (its maxlength) and kept only the start of secrets.%s typed into it: a workflow cannot type that secret there; record with a field that takes the whole secret; the part it kept was not written anywhere", label(ev.El), ev.El.MaxLength, n)
	}
	p := d.param(target, "")
	max := ev.El.MaxLength
	if max <= 0 {
		max = 200
		for max < len(ev.Value) {
			max *= 2
		}
	}
	d.params.set(p, newMap(true, "type", "string", "description", "The text typed into "+label(ev.El), "max_length", max, "required", true))
	d.args[p] = ev.Value
	return "${{ params." + p + " }}", nil
}

// cutSecret names the secret whose start ev's field kept when its
// maxlength cut the secret typed into it (the value fills the field and a
// secret starts with it, longer), or "".
func (d *drafter) cutSecret(ev *Event) string {
	max := ev.El.MaxLength
	if max <= 0 || len(ev.Value) < 4 || len(utf16.Encode([]rune(ev.Value))) != max {
		return ""
	}
	for n, v := range d.o.Secrets {
		if len(v) > len(ev.Value) && strings.HasPrefix(v, ev.Value) {
			return n
		}
	}
	return ""
}

func secretName(prefix string) string {
	s := strings.ReplaceAll(prefix, ".", "_")
	return strings.TrimPrefix(s, "rec_") + "_password"
}

// param names a new parameter after a target (its last name part).
func (d *drafter) param(target, want string) string {
	base := want
	if base == "" {
		base = target[strings.LastIndex(target, ".")+1:]
	}
	if !nameRE.MatchString(base) {
		base = "value"
	}
	name := base
	for i := 2; d.pnames[name]; i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	d.pnames[name] = true
	return name
}

func label(e *Element) string {
	if e == nil {
		return "the page"
	}
	for _, s := range []string{e.Label, e.AccName, e.Text, e.Name, e.Placeholder, e.ID} {
		if s != "" {
			if len(s) > 40 {
				s = s[:40] + "…"
			}
			return fmt.Sprintf("%q", s)
		}
	}
	return "the " + e.Tag
}

// target names the element: an existing target that resolves to it, a
// new entry made for it earlier, or a new entry.
func (d *drafter) target(el *Element, frames []Element, kind string) (string, error) {
	frame := ""
	for i := range frames {
		f, err := d.entry(&frames[i], frame, "frame", "", false)
		if err != nil {
			return "", err
		}
		frame = f
	}
	return d.entry(el, frame, kind, "", false)
}

func (d *drafter) entry(el *Element, frame, kind, within string, many bool) (string, error) {
	if el.Reuse != "" && frame == "" {
		if t, ok := d.o.Map.Lookup(el.Reuse); ok && t.Writes() {
			d.risk = "write"
		}
		return el.Reuse, nil
	}
	if len(el.Cands) == 0 {
		return "", fmt.Errorf("the %s on %s could not be recorded: no locator matches it alone (give it an id, a name, a data-testid or a label)", kind, label(el))
	}
	key := frame + "|" + within + "|" + el.Cands[0].Describe()
	if n, ok := d.byKey[key]; ok {
		return n, nil
	}
	slug := selsuggest.Slug(el.Element)
	if kind == "value" {
		// A value is named for what it is, not for what it said once.
		v := el.Element
		v.Label, v.Text, v.AccName = "", "", ""
		if v.ID == "" && v.TestID == "" && v.Name == "" {
			v.ID = "value"
		}
		slug = selsuggest.Slug(v)
	}
	if kind == "frame" || el.Kind == "frame" {
		slug = strings.TrimSuffix(slug, "_frame") + "_frame"
	}
	name := d.newName(slug)
	e := selsuggest.Entry{Name: name, Kind: el.Kind, Description: selsuggest.Describe(el.Element, frame), Frame: frame, Within: within, Many: many, Locators: selsuggest.Arrange(el.Cands)}
	if e.Kind == "" {
		e.Kind = "element"
		e.Description = fmt.Sprintf("element %s", label(el))
		if frame != "" {
			e.Description += " (in the frame " + frame + ")"
		}
	}
	d.entries = append(d.entries, e)
	d.byKey[key] = name
	return name, nil
}

func (d *drafter) newName(slug string) string {
	base := d.o.Prefix + "." + slug
	name := base
	for i := 2; d.names[name] || d.taken(name); i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	d.names[name] = true
	return name
}

func (d *drafter) taken(name string) bool {
	if d.o.Map == nil {
		return false
	}
	_, ok := d.o.Map.Lookup(name)
	return ok
}

// markValue: the person marked one value to return.
func (d *drafter) markValue(ps *pageSteps, ev *Event) error {
	if ev.El == nil {
		return nil
	}
	t, err := d.target(ev.El, ev.Frames, "value")
	if err != nil {
		return err
	}
	into := d.output(t[strings.LastIndex(t, ".")+1:])
	if ps.dirty {
		*ps.list = append(*ps.list, newMap(false, "wait", newMap(true, "visible", t)))
		ps.dirty = false
	}
	*ps.list = append(*ps.list, newMap(false, "extract", newMap(true, "from", t, "into", into)))
	d.outputs.set(into, "${{ vars."+into+" }}")
	d.observed[into] = d.o.Redact(ev.Value)
	d.reads = append(d.reads, "the value "+label(ev.El))
	return nil
}

func (d *drafter) output(base string) string {
	if !nameRE.MatchString(base) {
		base = "value"
	}
	name := base
	for i := 2; d.outputs.vals[name] != nil; i++ {
		name = fmt.Sprintf("%s_%d", base, i)
	}
	return name
}

// rows: the marked list, read on up to max_pages pages when a next-page
// control was marked.
func (d *drafter) rows(spec *Spec, pages int, observed []map[string]any, finished bool) ([]any, error) {
	rs := spec.Rows
	rowsName := d.newName("rows")
	d.entries = append(d.entries, selsuggest.Entry{Name: rowsName, Kind: "rows", Description: fmt.Sprintf("the rows of the list (%d when recorded)", rs.Count), Many: true, Locators: rs.Locs})
	fields := newMap(true)
	var names []string
	for _, f := range rs.Fields {
		n := d.newName("row_" + f.Name)
		d.entries = append(d.entries, selsuggest.Entry{Name: n, Kind: "cell", Description: fmt.Sprintf("the %s of a row", f.Name), Within: rowsName, Locators: f.Locs})
		fields.set(f.Name, n)
		names = append(names, f.Name)
	}
	into := d.output("rows")
	extract := newMap(false, "extract", newMap(true, "from", rowsName, "list", true, "fields", fields, "into", into, "append", true))
	wait := newMap(false, "wait", newMap(true, "visible", rowsName))
	d.outputs.set(into, "${{ vars."+into+" }}")
	items := make([]any, 0, len(observed))
	for _, r := range observed {
		o := map[string]any{}
		for _, n := range names {
			v := r[n]
			if s, ok := v.(string); ok {
				v = d.o.Redact(s)
			}
			o[n] = v
		}
		items = append(items, o)
	}
	d.fieldNames[into] = names
	if finished {
		d.observed[into] = items
	}
	d.reads = append(d.reads, "the rows ("+strings.Join(names, ", ")+")")
	if spec.Next == nil {
		return []any{wait, extract}, nil
	}
	next := d.nextName // the next-page control, named when it was marked
	if next == "" {
		return nil, fmt.Errorf("the next-page control was marked but could not be named")
	}
	maxPages := d.o.MaxLoop
	if maxPages > 20 {
		maxPages = 20
	}
	if pages > maxPages {
		maxPages = pages
	}
	p := d.param("", "max_pages")
	d.params.set(p, newMap(true, "type", "integer", "description", "How many pages of results to read", "min", 1, "max", maxPages, "default", pages))
	d.args[p] = pages
	d.reads[len(d.reads)-1] += fmt.Sprintf(" of up to %s pages", p)
	return []any{newMap(false, "paginate", newMap(false, "next", next, "max_pages", "${{ params."+p+" }}", "steps", []any{wait, extract}))}, nil
}

// urlOf writes a URL as an author would: under a config var that holds
// its start (http://127.0.0.1:8000 → ${{ config.base }}/login.html), and
// without per-session tokens in its query.
func (d *drafter) urlOf(raw string) string {
	u, err := url.Parse(raw)
	if err == nil && u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			if tokenParam.MatchString(k) {
				q.Del(k)
			}
		}
		u.RawQuery = q.Encode()
		raw = u.String()
	}
	best, bestVal := "", ""
	for k, v := range d.o.Vars {
		s, ok := v.(string)
		s = strings.TrimRight(s, "/")
		if ok && strings.HasPrefix(s, "http") && len(s) > len(bestVal) && (raw == s || strings.HasPrefix(raw, s+"/") || strings.HasPrefix(raw, s+"?")) {
			best, bestVal = k, s
		}
	}
	if best != "" && nameRE.MatchString(best) {
		return "${{ config." + best + " }}" + strings.TrimPrefix(raw, bestVal)
	}
	return raw
}

var tokenParam = regexp.MustCompile(`(?i)^(csrf|xsrf|_?token|nonce|sid|session(id)?|phpsessid|jsessionid|state|code|auth|signature|sig)$`)

// files writes the workflow, the test file and the entries.
func (d *drafter) files(steps []any) (*Draft, error) {
	desc := d.o.Description
	if desc == "" {
		desc = "Recorded with toolwright record from " + d.o.StartURL + ": opens the page"
		if len(d.acts) > 0 {
			desc += ", " + strings.Join(uniq(d.acts), ", ")
		}
		if len(d.reads) > 0 {
			desc += "; returns " + strings.Join(d.reads, " and ")
		}
		desc += "."
	}
	wf := newMap(false, "name", d.o.Name, "description", d.o.Redact(desc), "risk", d.risk)
	if len(d.params.keys) > 0 {
		wf.set("params", d.params)
	}
	wf.set("steps", steps)
	if len(d.outputs.keys) > 0 {
		wf.set("output", d.outputs)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Recorded by `toolwright record %s` on %s from %s.\n# Review it: names, descriptions, and the bounds of the parameters.\n", d.o.Name, time.Now().UTC().Format("2006-01-02"), d.o.Redact(d.o.StartURL))
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(wf); err != nil {
		return nil, err
	}
	_ = enc.Close()
	dr := &Draft{Name: d.o.Name, Workflow: b.String(), Entries: d.entries, Args: d.args, Observed: d.observed, Risk: d.risk}
	if d.risk != "read" {
		dr.TaskID = "record-" + d.o.Name
	}
	c := newMap(false, "name", "as recorded", "tool", d.o.Name)
	if len(d.args) > 0 {
		args := newMap(true)
		for _, k := range d.params.keys {
			if v, ok := d.args[k]; ok {
				args.set(k, v)
			}
		}
		c.set("args", args)
	}
	if dr.TaskID != "" {
		c.set("task_id", dr.TaskID)
		c.set("grant", true)
	}
	exp := newMap(false, "ok", true)
	for _, k := range d.outputs.keys {
		v, ok := d.observed[k]
		if !ok {
			continue
		}
		if items, ok := v.([]any); ok {
			exp.set("data."+k+".count", len(items))
			rows := make([]any, len(items))
			for i, it := range items {
				o := newMap(true)
				for _, n := range d.fieldNames[k] {
					o.set(n, it.(map[string]any)[n])
				}
				rows[i] = o
			}
			exp.set("data."+k+".items", rows)
			continue
		}
		exp.set("data."+k, v)
	}
	c.set("expect", exp)
	var t strings.Builder
	fmt.Fprintf(&t, "# Recorded by `toolwright record %s`: the arguments typed and what the person saw.\n# Run with: toolwright test tests/%s.yaml\n", d.o.Name, d.o.Name)
	enc = yaml.NewEncoder(&t)
	enc.SetIndent(2)
	if err := enc.Encode(newMap(false, "cases", []any{c})); err != nil {
		return nil, err
	}
	_ = enc.Close()
	dr.Test = t.String()
	return dr, nil
}

func uniq(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
