// Package selector decodes the selector map (semantic target name → locators)
// and resolves targets to elements on a live page.
package selector

import (
	"fmt"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/yamlx"
	"gopkg.in/yaml.v3"
)

// Strategies, in the order DESIGN.md lists them.
const (
	CSS   = "css"
	XPath = "xpath"
	Text  = "text"
	Label = "label"
	Role  = "role"
)

// Strategies is every locator strategy.
var Strategies = []string{CSS, XPath, Text, Label, Role}

// Locator is one way to find a target.
type Locator struct {
	Strategy string `json:"strategy"`
	Value    string `json:"value"`          // the css, xpath, text, label or role
	Name     string `json:"name,omitempty"` // accessible name, with Role
	// ValueRE and NameRE are set when the text was written as /regex/:
	// it then matches part of the text instead of all of it.
	ValueRE *regexp.Regexp `json:"-"`
	NameRE  *regexp.Regexp `json:"-"`
}

// Describe is a short human form, such as `css "#login button"`.
func (l Locator) Describe() string {
	if l.Strategy == Role && l.Name != "" {
		return fmt.Sprintf("role %q name %q", l.Value, l.Name)
	}
	return fmt.Sprintf("%s %q", l.Strategy, l.Value)
}

// Target is one named entry of the selector map.
type Target struct {
	Name        string    `json:"name"`
	Description string    `json:"description,omitempty"`
	Locators    []Locator `json:"locators"` // primary first, then fallbacks
	Many        bool      `json:"many,omitempty"`
	Within      string    `json:"within,omitempty"`
	Effect      string    `json:"effect,omitempty"` // "" or "write"
	Pos         lint.Pos  `json:"-"`
}

// Writes reports whether acting on the target changes something on the site.
func (t *Target) Writes() bool { return t.Effect == "write" }

// Map is the whole selector map.
type Map struct {
	File    string
	Targets map[string]*Target
	names   []string
}

// Lookup finds a target by name.
func (m *Map) Lookup(name string) (*Target, bool) {
	if m == nil {
		return nil, false
	}
	t, ok := m.Targets[name]
	return t, ok
}

// Names returns every target name, sorted.
func (m *Map) Names() []string {
	if m == nil {
		return nil
	}
	return m.names
}

// WithPrefix returns the sorted names that start with prefix.
func (m *Map) WithPrefix(prefix string) []string {
	var out []string
	for _, n := range m.Names() {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$`)

// Load reads and decodes a selector map file.
func Load(path string) (*Map, lint.Problems) {
	data, err := os.ReadFile(path)
	if err != nil {
		var ps lint.Problems
		ps.Addf(lint.Pos{File: path}, lint.Missing, "cannot read the selector map: %v", err)
		return &Map{File: path, Targets: map[string]*Target{}}, ps
	}
	return Parse(path, data)
}

// Parse decodes a selector map, collecting every problem.
func Parse(file string, data []byte) (*Map, lint.Problems) {
	var ps lint.Problems
	m := &Map{File: file, Targets: map[string]*Target{}}
	root := yamlx.Doc(file, data, &ps)
	if root == nil {
		return m, ps
	}
	if yamlx.IsNull(root) {
		return m, ps
	}
	kvs, ok := yamlx.Map(file, root, "the selector map", &ps)
	if !ok {
		return m, ps
	}
	for _, kv := range kvs {
		if !nameRE.MatchString(kv.Key) {
			ps.Addf(lint.At(file, kv.KeyN), lint.BadName, "target name %q must be dotted lowercase words, like acme.login.submit", kv.Key)
			continue
		}
		if t := decodeTarget(file, kv, &ps); t != nil {
			m.Targets[t.Name] = t
			m.names = append(m.names, t.Name)
		}
	}
	sort.Strings(m.names)
	m.check(&ps)
	return m, ps
}

var targetKeys = []string{"description", "css", "xpath", "text", "label", "role", "name", "fallbacks", "many", "within", "effect"}

func decodeTarget(file string, kv yamlx.KV, ps *lint.Problems) *Target {
	where := fmt.Sprintf("target %q", kv.Key)
	t := &Target{Name: kv.Key, Pos: lint.At(file, kv.KeyN)}
	kvs, ok := yamlx.Map(file, kv.Value, where, ps)
	if !ok {
		return nil
	}
	yamlx.Known(file, kvs, targetKeys, where, ps)
	var strategyKVs []yamlx.KV
	for _, f := range kvs {
		switch f.Key {
		case "description":
			t.Description, _ = yamlx.String(file, f.Value, where+" description", ps)
		case "many":
			t.Many, _ = yamlx.Bool(file, f.Value, where+" many", ps)
		case "within":
			t.Within, _ = yamlx.String(file, f.Value, where+" within", ps)
		case "effect":
			if s, ok := yamlx.String(file, f.Value, where+" effect", ps); ok {
				if s != "write" && s != "read" {
					ps.Addf(lint.At(file, f.Value), lint.BadValue, "%s: effect must be write or read, found %q", where, s)
				} else if s == "write" {
					t.Effect = s
				}
			}
		case "fallbacks":
			n := yamlx.Resolve(f.Value)
			if n == nil || n.Kind != yaml.SequenceNode {
				ps.Addf(lint.At(file, f.Value), lint.BadValue, "%s fallbacks must be a list of locators, found %s", where, yamlx.Describe(f.Value))
				continue
			}
			for i, c := range n.Content {
				fw := fmt.Sprintf("%s fallback %d", where, i+1)
				ckvs, ok := yamlx.Map(file, c, fw, ps)
				if !ok {
					continue
				}
				yamlx.Known(file, ckvs, []string{"css", "xpath", "text", "label", "role", "name"}, fw, ps)
				if l, ok := decodeLocator(file, c, ckvs, fw, ps); ok {
					t.Locators = append(t.Locators, l)
				}
			}
		default:
			strategyKVs = append(strategyKVs, f)
		}
	}
	primary, ok := decodeLocator(file, kv.KeyN, strategyKVs, where, ps)
	if !ok {
		return nil
	}
	t.Locators = append([]Locator{primary}, t.Locators...)
	return t
}

// decodeLocator reads exactly one strategy (role may carry a name).
func decodeLocator(file string, at *yaml.Node, kvs []yamlx.KV, where string, ps *lint.Problems) (Locator, bool) {
	var l Locator
	var name *yamlx.KV
	found := 0
	for i := range kvs {
		kv := kvs[i]
		switch kv.Key {
		case CSS, XPath, Text, Label, Role:
			found++
			if found > 1 {
				ps.Addf(lint.At(file, kv.KeyN), lint.BadValue, "%s: give one strategy per locator, found %q after %q (put the others under fallbacks)", where, kv.Key, l.Strategy)
				continue
			}
			l.Strategy = kv.Key
			v, ok := yamlx.String(file, kv.Value, where+" "+kv.Key, ps)
			if !ok {
				return l, false
			}
			if strings.TrimSpace(v) == "" {
				ps.Addf(lint.At(file, kv.Value), lint.BadValue, "%s: %s must not be empty", where, kv.Key)
				return l, false
			}
			l.Value = v
		case "name":
			name = &kvs[i]
		}
	}
	if found == 0 {
		ps.Addf(lint.At(file, at), lint.Missing, "%s has no locator: give one of css, xpath, text, label or role", where)
		return l, false
	}
	if name != nil {
		if l.Strategy != Role {
			ps.Addf(lint.At(file, name.KeyN), lint.UnknownKey, "%s: name goes with role, not with %s", where, l.Strategy)
		} else if v, ok := yamlx.String(file, name.Value, where+" name", ps); ok {
			l.Name = v
		}
	}
	var ok bool
	if l.Strategy == Text || l.Strategy == Label {
		if l.ValueRE, ok = regexpOf(l.Value, file, at, where, ps); !ok {
			return l, false
		}
	}
	if l.Name != "" {
		if l.NameRE, ok = regexpOf(l.Name, file, at, where, ps); !ok {
			return l, false
		}
	}
	if l.Strategy == CSS && strings.ContainsAny(l.Value, "{}") {
		ps.Addf(lint.At(file, at), lint.BadValue, "%s: css %q contains braces; is a template in the wrong place?", where, l.Value)
		return l, false
	}
	return l, true
}

// regexpOf compiles /regex/ text forms; plain text gives nil.
func regexpOf(s, file string, at *yaml.Node, where string, ps *lint.Problems) (*regexp.Regexp, bool) {
	if len(s) < 2 || s[0] != '/' || s[len(s)-1] != '/' {
		return nil, true
	}
	re, err := regexp.Compile(s[1 : len(s)-1])
	if err != nil {
		ps.Addf(lint.At(file, at), lint.BadValue, "%s: bad regular expression %s: %v", where, s, err)
		return nil, false
	}
	return re, true
}

// check validates references between targets: `within` names a known
// target and never loops.
func (m *Map) check(ps *lint.Problems) {
	for _, name := range m.names {
		t := m.Targets[name]
		if t.Within == "" {
			continue
		}
		if _, ok := m.Targets[t.Within]; !ok {
			ps.Addf(t.Pos, lint.UnknownRef, "target %q: within names unknown target %q%s", name, t.Within, lint.Suggest(t.Within, m.names))
			continue
		}
		chain := []string{name}
		for cur := m.Targets[t.Within]; cur != nil; cur = m.Targets[cur.Within] {
			chain = append(chain, cur.Name)
			if cur.Name == name {
				ps.Addf(t.Pos, lint.Cycle, "target %q: within forms a loop: %s", name, strings.Join(chain, " → "))
				break
			}
			if cur.Within == "" || len(chain) > len(m.names) {
				break
			}
		}
	}
}

// Normalize trims text and collapses white space, as text matching does.
func Normalize(s string) string { return strings.Join(strings.Fields(s), " ") }

// MatchText reports whether visible text matches a locator's text: the whole
// normalized text, or part of it for /regex/.
func MatchText(want string, re *regexp.Regexp, got string) bool {
	got = Normalize(got)
	if re != nil {
		return re.MatchString(got)
	}
	return got == Normalize(want)
}
