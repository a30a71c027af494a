package decl_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/toolwright/toolwright/engine/decl"
	"github.com/toolwright/toolwright/engine/lint"
	"github.com/toolwright/toolwright/engine/yamlx"
)

var limits = &decl.Object{Name: "limits", Fields: []decl.Field{
	{Name: "max_loop", Type: decl.Int, Min: decl.F(1), Default: 100, Doc: "loop bound"},
	{Name: "max_deadline", Type: decl.Duration, Doc: "deadline"},
}}

var root = &decl.Object{Name: "config", Fields: []decl.Field{
	{Name: "name", Type: decl.String, Required: true, Doc: "the name", Pattern: `^[a-z]+$`, PatDoc: "lowercase letters"},
	{Name: "mode", Type: decl.Enum, Enum: []string{"grant", "enabled"}},
	{Name: "hosts", Type: decl.List, Elem: &decl.Field{Type: decl.String}},
	{Name: "limits", Type: decl.Nested, Obj: limits},
	{Name: "max", Type: decl.Number},
}}

func decode(t *testing.T, src string) (*decl.Values, []string) {
	t.Helper()
	var ps lint.Problems
	n := yamlx.Doc("f.yaml", []byte(src), &ps)
	v := root.Decode("f.yaml", n, "", &ps)
	var out []string
	for _, p := range ps.Sort() {
		out = append(out, p.String())
	}
	return v, out
}

func TestDecodeValues(t *testing.T) {
	v, ps := decode(t, "name: abc\nmode: grant\nhosts: [a, b]\nlimits: {max_loop: 5, max_deadline: 2m}\n")
	if len(ps) > 0 {
		t.Fatal(ps)
	}
	if v.Str("name", "") != "abc" || v.Str("mode", "") != "grant" || !cmp.Equal(v.Strings("hosts"), []string{"a", "b"}) {
		t.Errorf("values: %q %q %v", v.Str("name", ""), v.Str("mode", ""), v.Strings("hosts"))
	}
	if l := v.Sub("limits"); l.Int("max_loop", 0) != 5 || l.Dur("max_deadline", 0) != 2*time.Minute {
		t.Errorf("limits: %d %s", l.Int("max_loop", 0), l.Dur("max_deadline", 0))
	}
}

func TestDecodeProblems(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"name: ABC\n", `f.yaml:1:7: name "ABC" must be lowercase letters`},
		{"name: a\nmode: granted\n", `f.yaml:2:7: mode must be grant or enabled, found "granted" (did you mean "grant"?)`},
		{"name: a\nmax_loop: 3\n", `f.yaml:2:1: config: unknown key "max_loop" (max_loop belongs under limits: write it one level down)`},
		{"name: a\nlimits: {name: x}\n", `f.yaml:2:10: limits: unknown key "name" (name belongs one level up, beside the keys of config)`},
		{"name: a\nmaximum: 3\n", `f.yaml:2:1: config: unknown key "maximum" (did you mean "max"?)`},
		{"name: a\nlimits: {maxLoop: 3}\n", `f.yaml:2:10: limits: unknown key "maxLoop" (did you mean "max_loop"?)`},
		{"name: a\nlimits: {max_loop: 0}\n", `f.yaml:2:20: limits.max_loop must be at least 1, found 0`},
		{"mode: grant\n", `f.yaml:1:1: config: missing name (the name)`},
		{"nmae: a\n", `f.yaml:1:1: config: unknown key "nmae" (did you mean "name"?)`}, // and no "missing name"
		{"name: a\nzzz: 1\n", `f.yaml:2:1: config: unknown key "zzz" (known keys: name, mode, hosts, limits, max)`},
	} {
		_, got := decode(t, c.src)
		if diff := cmp.Diff([]string{c.want}, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", c.src, diff)
		}
	}
}

func TestUndeclaredReadPanics(t *testing.T) {
	v, _ := decode(t, "name: a\n")
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), `no declared key "nope"`) {
			t.Errorf("recover() = %v", r)
		}
	}()
	v.Str("nope", "")
}

func TestSchemaAndMarkdown(t *testing.T) {
	b, err := root.Schema().MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"required":["name"]`, `"additionalProperties":false`, `"enum":["grant","enabled"]`, `"minimum":1`, `"default":100`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("schema lacks %s: %s", want, b)
		}
	}
	var md strings.Builder
	if err := root.WriteMarkdown(&md, "##"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| `name` | string |", "### `limits`", "| `max_loop` | integer | 100 | loop bound |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
}
