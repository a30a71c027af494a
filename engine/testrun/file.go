package testrun

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/toolwright/toolwright/engine/decl"
	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/yamlx"
	"gopkg.in/yaml.v3"
)

// File is one decoded test file.
type File struct {
	Path      string   // the file, as given
	Serve     string   // the folder served for its cases; "" for none
	Workflows []string // workflow files or folders; empty: the config's
	Selectors string   // the selector map; "": the config's
	Cases     []*Case

	vars       []namedValue      // over the config's vars:, in written order
	secrets    map[string]string // test values of secrets
	secretsPos lint.Pos          // where secrets: is, for problems about them
}

type namedValue struct {
	name  string
	value any // may hold templates
}

// Case is one call and what its envelope must hold.
type Case struct {
	Name   string
	ID     string // "" when no later case uses it
	Tool   string
	TaskID string
	Grant  bool

	args     map[string]any // may hold templates
	argKeys  []yamlx.KV
	expect   []*check
	needs    []int // indexes of the earlier cases it uses
	pos      lint.Pos
	toolPos  lint.Pos
	grantPos lint.Pos
	refs     []*ref
}

var idRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// FileDecl declares a test file's keys.
var FileDecl = &decl.Object{
	Name: "test file", Title: "toolwright test file",
	Doc: "Test cases for workflows: each calls a tool with arguments and names the envelope fields it must return. Paths are relative to this file's folder.",
	Fields: []decl.Field{
		{Name: "serve", Type: decl.String, Doc: "a folder served on loopback for the cases; its address is ${{ site.url }}"},
		// Raw: one path or a list of paths, each checked to exist.
		{Name: "workflows", Type: decl.String, Raw: true, Doc: "workflow files or folders (one path or a list); default: the config's",
			Schema: func() *decl.Obj {
				return decl.NewObj("anyOf", []any{decl.NewObj("type", "string"), decl.NewObj("type", "array", "items", decl.NewObj("type", "string"))})
			}},
		{Name: "selectors", Type: decl.String, Doc: "the selector map; default: the config's"},
		{Name: "vars", Type: decl.Map, Elem: &decl.Field{Type: decl.Any}, Doc: "values over the config's vars:, visible as config.NAME (templates may use site.url)"},
		{Name: "secrets", Type: decl.Map, Elem: &decl.Field{Type: decl.String}, Doc: "test values of the config's secrets"},
		// Raw: each case is decoded with CaseDecl under its own name.
		{Name: "cases", Type: decl.List, Raw: true, Required: true, Elem: &decl.Field{Type: decl.Nested, Obj: CaseDecl}, Doc: "the calls, run in order: a list of {name, tool, args, expect}"},
	},
}

// CaseDecl declares one test case.
var CaseDecl = &decl.Object{
	Name: "case", Title: "test case",
	Doc: "One call of a tool and what its envelope must hold.",
	Fields: []decl.Field{
		{Name: "name", Type: decl.String, Required: true, Doc: "what the case shows"},
		{Name: "id", Type: decl.String, Pattern: idRE.String(), PatDoc: "lowercase letters, digits and _, starting with a letter", Doc: "a name later cases use to read this case's envelope: ${{ cases.ID.data.x }}"},
		{Name: "tool", Type: decl.String, Required: true, Doc: "the tool to call"},
		{Name: "args", Type: decl.Map, Elem: &decl.Field{Type: decl.Any}, Doc: "the arguments (templates may use site.url and cases.ID)"},
		{Name: "task_id", Type: decl.String, Doc: "the call's task_id"},
		{Name: "grant", Type: decl.Bool, Default: false, Doc: "grant the tool for this task_id before the call"},
		// Raw: a map of dotted paths, each a value or matchers (want).
		{Name: "expect", Type: decl.Map, Raw: true, Required: true, Elem: &decl.Field{Type: decl.Any, Schema: matcherSchema},
			Doc: "envelope fields, as dotted paths (ok, code, data.rows.count), and the value each must have or a matcher: equals, contains, matches, len, exists; at least one, as in {ok: true}"},
	},
}

func matcherSchema() *decl.Obj {
	return decl.NewObj("description", "a value to equal, or a map of matchers: "+strings.Join(matcherKeys, ", "))
}

// MatcherDecl declares the matchers of an expect value written as a map
// holding at least one of them (a map without one is a value to equal).
var MatcherDecl = &decl.Object{
	Name: "matcher",
	Fields: []decl.Field{
		// Raw: values to compare, which may hold templates (value).
		{Name: "equals", Type: decl.Any, Raw: true, Doc: "a value the field must equal"},
		{Name: "contains", Type: decl.Any, Raw: true, Doc: "text the field contains, an item of a list, or a part of a map"},
		{Name: "matches", Type: decl.String, Doc: "an RE2 regular expression the text matches"},
		{Name: "len", Type: decl.Int, Doc: "the length of a list, a map or a text (0 or more)"},
		{Name: "exists", Type: decl.Bool, Doc: "whether the field is there (exists: false goes alone)"},
	},
	Path: func(where, key string) string { return where + " " + key },
}

func init() {
	MatcherDecl.Elsewhere = func(where, key string) string {
		return fmt.Sprintf("%s: unknown matcher %q%s (matchers: %s); to compare a whole map, write {equals: {...}}",
			where, key, lint.Suggest(key, matcherKeys), strings.Join(matcherKeys, ", "))
	}
}

type decoder struct {
	file string
	dir  string
	ps   *lint.Problems
}

func (d *decoder) at(n *yaml.Node) lint.Pos { return lint.At(d.file, n) }

// Decode reads a test file; paths in it are relative to its folder. Every
// problem is collected, with its position.
func Decode(file string, data []byte) (*File, lint.Problems) {
	var ps lint.Problems
	d := &decoder{file: file, dir: filepath.Dir(file), ps: &ps}
	f := &File{Path: file, secrets: map[string]string{}, secretsPos: lint.Pos{File: file, Line: 1, Col: 1}}
	root := yamlx.Doc(file, data, &ps)
	if root == nil {
		return f, ps.Sort()
	}
	v := FileDecl.Decode(file, root, "", &ps)
	if v == nil {
		return f, ps.Sort()
	}
	if v.OK("serve") {
		f.Serve = d.path(v.Str("serve", ""), v.Pos("serve"), "serve", true)
	}
	if n := v.Node("workflows"); n != nil {
		f.Workflows = d.workflows(n)
	}
	if v.OK("selectors") {
		f.Selectors = d.path(v.Str("selectors", ""), v.Pos("selectors"), "selectors", false)
	}
	f.vars = d.vars(v.Pairs("vars"))
	if v.Has("secrets") {
		f.secretsPos = v.KeyPos("secrets")
		d.secrets(v.Map("secrets"), f.secrets)
	}
	cases := v.Node("cases")
	if cases == nil {
		return f, ps.Sort() // reported by the declaration
	}
	f.Cases = d.cases(cases)
	d.checkRefs(f)
	return f, ps.Sort()
}

// path makes a path relative to the file's folder absolute and checks
// that it exists (as a folder when dir); at is where it is written.
func (d *decoder) path(s string, at lint.Pos, where string, dir bool) string {
	if s == "" {
		d.ps.Addf(at, lint.BadValue, "%s: give a path", where)
		return ""
	}
	p := s
	if !filepath.IsAbs(p) {
		p = filepath.Join(d.dir, p)
	}
	info, err := os.Stat(p)
	switch {
	case err != nil:
		d.ps.Addf(at, lint.Missing, "%s: %s does not exist (paths are relative to the test file's folder)", where, p)
		return ""
	case dir && !info.IsDir():
		d.ps.Addf(at, lint.BadValue, "%s: %s is not a folder", where, p)
		return ""
	}
	return p
}

// workflows reads one path or a list of paths.
func (d *decoder) workflows(n *yaml.Node) []string {
	items, where := []*yaml.Node{n}, "workflows"
	if rn := yamlx.Resolve(n); rn != nil && rn.Kind == yaml.SequenceNode {
		items, where = rn.Content, "workflows item"
	}
	var out []string
	for _, c := range items {
		if s, ok := yamlx.String(d.file, c, where, d.ps); ok {
			if p := d.path(s, d.at(c), where, false); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

func (d *decoder) vars(kvs []yamlx.KV) []namedValue {
	out := make([]namedValue, 0, len(kvs))
	for _, kv := range kvs {
		v := d.value(kv.Value)
		for _, r := range refsIn(v) {
			if !r.site {
				d.ps.Addf(r.pos, lint.UnknownRef, "vars %s: ${{ %s }}: vars can use only site.url (no case has run yet)", kv.Key, r.text)
			}
		}
		out = append(out, namedValue{kv.Key, v})
	}
	return out
}

// secrets keeps the test values (each a single value, by the declaration).
func (d *decoder) secrets(entries []decl.Entry, into map[string]string) {
	for _, e := range entries {
		s := yamlx.Resolve(e.Value).Value
		if s == "" {
			d.ps.Addf(d.at(e.Value), lint.BadValue, "secret %s: give a test value", e.Key)
			continue
		}
		into[e.Key] = s
	}
}

// value decodes any YAML value to plain values; strings with ${{ }} become
// *template.
func (d *decoder) value(n *yaml.Node) any {
	n = yamlx.Resolve(n)
	if n == nil {
		return nil
	}
	switch n.Kind {
	case yaml.ScalarNode:
		v := yamlx.Value(n)
		s, ok := v.(string)
		if !ok {
			return v
		}
		t, err := parseString(s, d.at(n))
		if err != nil {
			d.ps.Addf(d.at(n), lint.Expression, "%v", err)
			return s
		}
		return t
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			out = append(out, d.value(c))
		}
		return out
	case yaml.MappingNode:
		kvs, _ := yamlx.Map(d.file, n, "a map", d.ps)
		out := make(map[string]any, len(kvs))
		for _, kv := range kvs {
			out[kv.Key] = d.value(kv.Value)
		}
		return out
	}
	return nil
}

func (d *decoder) cases(n *yaml.Node) []*Case {
	n = yamlx.Resolve(n)
	if n == nil || n.Kind != yaml.SequenceNode {
		d.ps.Addf(d.at(n), lint.BadValue, "cases must be a list, found %s", yamlx.Describe(n))
		return nil
	}
	if len(n.Content) == 0 {
		d.ps.Addf(d.at(n), lint.Missing, "cases: the list is empty")
		return nil
	}
	names := map[string]int{} // name → line
	ids := map[string]int{}
	var out []*Case
	for i, cn := range n.Content {
		c := d.caseOf(cn, i)
		if c == nil {
			continue
		}
		if c.Name != "" {
			if line, dup := names[c.Name]; dup {
				d.ps.Addf(c.pos, lint.Duplicate, "case name %q is used twice (also on line %d)", c.Name, line)
			}
			names[c.Name] = c.pos.Line
		}
		if c.ID != "" {
			if line, dup := ids[c.ID]; dup {
				d.ps.Addf(c.pos, lint.Duplicate, "case id %q is used twice (also on line %d)", c.ID, line)
			}
			ids[c.ID] = c.pos.Line
		}
		out = append(out, c)
	}
	return out
}

func (d *decoder) caseOf(n *yaml.Node, i int) *Case {
	where := fmt.Sprintf("case %d", i+1)
	c := &Case{pos: d.at(yamlx.Resolve(n)), toolPos: d.at(yamlx.Resolve(n))}
	// Its name first, so every message can use it.
	if name := strings.TrimSpace(CaseDecl.Decode(d.file, n, where, &lint.Problems{}).Str("name", "")); name != "" {
		where = fmt.Sprintf("case %q", name)
	}
	v := CaseDecl.Decode(d.file, n, where, d.ps)
	if v == nil {
		return nil
	}
	c.Name = strings.TrimSpace(v.Str("name", ""))
	if v.OK("name") && c.Name == "" {
		d.ps.Addf(v.Pos("name"), lint.BadValue, "%s: name must not be empty", where)
	}
	c.ID = v.Str("id", "")
	c.Tool, c.TaskID, c.Grant = v.Str("tool", ""), v.Str("task_id", ""), v.Bool("grant", false)
	if v.Has("tool") {
		c.toolPos = v.Pos("tool")
	}
	c.grantPos = v.Pos("grant")
	if c.Grant && c.TaskID == "" {
		d.ps.Addf(c.grantPos, lint.Missing, "%s: grant: true needs a task_id (a grant is for one tool and one task_id)", where)
	}
	if v.Has("args") {
		c.args = map[string]any{}
	}
	for _, a := range v.Pairs("args") {
		if a.Key == TaskIDArg {
			d.ps.Addf(d.at(a.KeyN), lint.BadValue, "%s: write task_id as a key of the case (task_id: %s), not in args", where, a.Value.Value)
			continue
		}
		c.args[a.Key] = d.value(a.Value)
		c.argKeys = append(c.argKeys, a)
	}
	if n := v.Node("expect"); n != nil {
		c.expect = d.expect(n, where)
	}
	for _, v := range c.args {
		c.refs = append(c.refs, refsIn(v)...)
	}
	for _, ch := range c.expect {
		c.refs = append(c.refs, refsIn(ch.want.equals)...)
		c.refs = append(c.refs, refsIn(ch.want.contains)...)
	}
	return c
}

// TaskIDArg is the argument toolwright adds (a case's task_id key gives it).
const TaskIDArg = "task_id"

func (d *decoder) expect(n *yaml.Node, where string) []*check {
	kvs, ok := yamlx.Map(d.file, n, where+" expect", d.ps)
	if !ok {
		return nil
	}
	if len(kvs) == 0 {
		d.ps.Addf(d.at(n), lint.Missing, "%s: expect is empty; name at least one envelope field, as in {ok: true}", where)
		return nil
	}
	var out []*check
	for _, kv := range kvs {
		c := &check{path: kv.Key, segs: strings.Split(kv.Key, "."), pos: d.at(kv.KeyN)}
		if !d.checkPath(c, where) {
			continue
		}
		c.want = d.want(kv.Value, where+" expect "+kv.Key)
		out = append(out, c)
	}
	return out
}

// checkPath checks the envelope side of a path: the first name is an
// envelope field, and only data has fields.
func (d *decoder) checkPath(c *check, where string) bool {
	for _, s := range c.segs {
		if s == "" {
			d.ps.Addf(c.pos, lint.BadValue, "%s expect: %q has an empty name between dots", where, c.path)
			return false
		}
	}
	head := c.segs[0]
	if !slices.Contains(envelopeFields, head) {
		d.ps.Addf(c.pos, lint.UnknownKey, "%s expect: unknown envelope field %q%s (expect keys are dotted paths into the envelope: %s)",
			where, head, lint.Suggest(head, envelopeFields), strings.Join(envelopeFields, ", "))
		return false
	}
	if len(c.segs) > 1 && head != "data" {
		d.ps.Addf(c.pos, lint.BadValue, "%s expect: %s has no fields (only data has): write %s: VALUE", where, head, head)
		return false
	}
	return true
}

func (d *decoder) want(n *yaml.Node, where string) want {
	n = yamlx.Resolve(n)
	var w want
	if n == nil || n.Kind != yaml.MappingNode || len(n.Content) == 0 {
		w.equals, w.hasEquals = d.value(n), true
		return w
	}
	kvs, _ := yamlx.Map(d.file, n, where, &lint.Problems{}) // reported below
	matchers := 0
	for _, kv := range kvs {
		if slices.Contains(matcherKeys, kv.Key) {
			matchers++
		}
	}
	if matchers == 0 {
		if len(kvs) == 1 {
			if s := lint.Suggest(kvs[0].Key, matcherKeys); s != "" {
				d.ps.Addf(d.at(kvs[0].KeyN), lint.UnknownKey, "%s: unknown matcher %q%s; to compare a whole map, write {equals: {...}}", where, kvs[0].Key, s)
				return w
			}
		}
		w.equals, w.hasEquals = d.value(n), true
		return w
	}
	v := MatcherDecl.Decode(d.file, n, where, d.ps)
	d.matchers(&w, v, where)
	if w.exists != nil && !*w.exists && len(kvs) > 1 {
		d.ps.Addf(d.at(n), lint.BadValue, "%s: exists: false cannot go with other matchers", where)
	}
	return w
}

// matchers reads the matchers MatcherDecl decoded into w.
func (d *decoder) matchers(w *want, v *decl.Values, where string) {
	if v.Has("equals") {
		w.equals, w.hasEquals = d.value(v.Node("equals")), true
	}
	if v.Has("contains") {
		w.contains, w.hasContains = d.value(v.Node("contains")), true
		if yamlx.IsNull(v.Node("contains")) {
			d.ps.Addf(v.Pos("contains"), lint.BadValue, "%s: contains needs a value", where)
		}
	}
	if v.OK("matches") {
		s := v.Str("matches", "")
		re, err := regexp.Compile(s)
		if err != nil {
			d.ps.Addf(v.Pos("matches"), lint.BadValue, "%s: matches: %q is not a regular expression (RE2): %v", where, s, err)
		} else {
			w.matches = re
		}
	}
	if v.OK("len") {
		if n := v.Int("len", 0); n < 0 {
			d.ps.Addf(v.Pos("len"), lint.BadValue, "%s: len must be 0 or more, found %d", where, n)
		} else {
			w.length = &n
		}
	}
	if v.OK("exists") {
		b := v.Bool("exists", false)
		w.exists = &b
	}
}

// checkRefs checks every reference of the cases: site.url needs serve:, and
// cases.ID names an earlier case.
func (d *decoder) checkRefs(f *File) {
	index := map[string]int{}
	for i, c := range f.Cases {
		if c.ID != "" {
			if _, dup := index[c.ID]; !dup {
				index[c.ID] = i
			}
		}
	}
	siteUsed := func(r *ref) {
		if f.Serve == "" {
			d.ps.Addf(r.pos, lint.UnknownRef, "${{ site.url }} needs serve: a folder to serve for the cases")
		}
	}
	for _, nv := range f.vars {
		for _, r := range refsIn(nv.value) {
			if r.site {
				siteUsed(r)
			}
		}
	}
	for i, c := range f.Cases {
		seen := map[int]bool{}
		where := fmt.Sprintf("case %q: ", c.Name)
		for _, r := range c.refs {
			if r.site {
				siteUsed(r)
				continue
			}
			j, ok := index[r.caseID]
			switch {
			case !ok:
				var earlier []string
				for _, e := range f.Cases[:i] {
					if e.ID != "" {
						earlier = append(earlier, e.ID)
					}
				}
				hint := lint.Suggest(r.caseID, earlier)
				if hint == "" {
					hint = " (give the earlier case an id: to use its envelope)"
				}
				d.ps.Addf(r.pos, lint.UnknownRef, "%s${{ %s }}: no earlier case has id %q%s", where, r.text, r.caseID, hint)
			case j == i:
				d.ps.Addf(r.pos, lint.UnknownRef, "%s${{ %s }}: a case cannot use its own envelope", where, r.text)
			case j > i:
				d.ps.Addf(r.pos, lint.UnknownRef, "%s${{ %s }}: case %q comes later; a case can use only earlier cases", where, r.text, r.caseID)
			case !seen[j]:
				seen[j] = true
				c.needs = append(c.needs, j)
			}
		}
		sort.Ints(c.needs)
	}
}

// FileSchema is the JSON Schema of a test file, from FileDecl.
func FileSchema() *decl.Obj { return decl.FileSchema("test", FileDecl.Schema()) }
