package selector_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toolwright/toolwright/engine/selector"
)

func TestParse(t *testing.T) {
	src := `
acme.login.submit:
  description: The sign-in button
  css: "#login-form button[type=submit]"
  fallbacks:
    - role: button
      name: Sign in
    - text: /^Sign\s+in$/
acme.catalog.rows:
  css: "#results tbody tr"
  many: true
acme.catalog.row_sku:
  within: acme.catalog.rows
  xpath: ./td[1]
acme.product.add:
  label: Add to cart
  effect: write
`
	m, ps := selector.Parse("s.yaml", []byte(src))
	if len(ps) > 0 {
		t.Fatal(ps.Err())
	}
	if diff := cmp.Diff([]string{"acme.catalog.row_sku", "acme.catalog.rows", "acme.login.submit", "acme.product.add"}, m.Names()); diff != "" {
		t.Error(diff)
	}
	sub, _ := m.Lookup("acme.login.submit")
	if len(sub.Locators) != 3 || sub.Locators[1].Describe() != `role "button" name "Sign in"` || sub.Locators[2].ValueRE == nil {
		t.Errorf("submit locators: %+v", sub.Locators)
	}
	rows, _ := m.Lookup("acme.catalog.rows")
	sku, _ := m.Lookup("acme.catalog.row_sku")
	add, _ := m.Lookup("acme.product.add")
	if !rows.Many || sku.Within != "acme.catalog.rows" || !add.Writes() || sub.Writes() {
		t.Errorf("flags: rows many %v, sku within %q, add writes %v", rows.Many, sku.Within, add.Writes())
	}
	if got := m.WithPrefix("acme.catalog."); len(got) != 2 {
		t.Errorf("WithPrefix = %v", got)
	}
}

func TestParseProblems(t *testing.T) {
	src := `
Acme.Bad:
  css: a
acme.two:
  css: a
  xpath: //a
acme.none:
  description: no locator
acme.within:
  within: acme.nope
  css: a
acme.loop.a:
  within: acme.loop.b
  css: a
acme.loop.b:
  within: acme.loop.a
  css: b
acme.typo:
  csss: a
acme.name:
  text: Save
  name: Save
acme.regex:
  text: /([/
`
	_, ps := selector.Parse("s.yaml", []byte(src))
	var got []string
	for _, p := range ps {
		got = append(got, p.String())
	}
	want := []string{
		`s.yaml:2:1: target name "Acme.Bad" must be dotted lowercase words, like acme.login.submit`,
		`s.yaml:6:3: acme.two: give one strategy per locator, found "xpath" after "css" (put the others under fallbacks)`,
		`s.yaml:7:1: acme.none has no locator: give one of css, xpath, text, label or role`,
		`s.yaml:19:3: acme.typo: unknown key "csss" (did you mean "css"?)`,
		`s.yaml:22:3: acme.name: name goes with role, not with text`,
		"s.yaml:24:9: acme.regex: bad regular expression /([/: error parsing regexp: missing closing ]: `[`",
		`s.yaml:12:1: target "acme.loop.a": within forms a loop: acme.loop.a → acme.loop.b → acme.loop.a`,
		`s.yaml:15:1: target "acme.loop.b": within forms a loop: acme.loop.b → acme.loop.a → acme.loop.b`,
		`s.yaml:9:1: target "acme.within": within names unknown target "acme.nope" (did you mean "acme.none"?)`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

func TestMatchText(t *testing.T) {
	for _, tc := range []struct {
		want, got string
		re        bool
		match     bool
	}{
		{"Sign in", "  Sign \n in ", false, true},
		{"Sign in", "Sign in to Acme", false, false},
		{"/Sign in/", "Sign in to Acme", true, true},
	} {
		m, ps := selector.Parse("s.yaml", []byte("x.y:\n  text: \""+tc.want+"\"\n"))
		if len(ps) > 0 {
			t.Fatal(ps.Err())
		}
		l := m.Targets["x.y"].Locators[0]
		if got := selector.MatchText(l.Value, l.ValueRE, tc.got); got != tc.match || (l.ValueRE != nil) != tc.re {
			t.Errorf("%q vs %q: %v", tc.want, tc.got, got)
		}
	}
	if !strings.Contains(selector.Normalize(" a \t b "), "a b") {
		t.Error("Normalize")
	}
}
