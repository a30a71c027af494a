package selector

import (
	"strings"
	"testing"
)

// TestPagesOf: pages: on an entry that only names a prefix (no target),
// on a target, inherited by the names that continue it and by within
// children; an empty list is a problem.
func TestPagesOf(t *testing.T) {
	m, ps := Parse("s.yaml", []byte(`acme.login:
  pages: ["/login.html*"]
acme.login.email: {css: "#email"}
acme.orders.rows: {css: "tr", many: true, pages: ["*/orders*"]}
acme.orders.row_id: {css: td, within: acme.orders.rows}
acme.row_any: {css: td, within: acme.orders.rows}
acme.heading: {css: h1}
`))
	if len(ps) > 0 {
		t.Fatal(ps.Err())
	}
	if _, ok := m.Lookup("acme.login"); ok {
		t.Error("an entry with only pages: is a target")
	}
	for name, want := range map[string]string{"acme.login.email": "acme.login", "acme.orders.row_id": "acme.orders.rows", "acme.row_any": "acme.orders.rows", "acme.heading": ""} {
		if _, from := m.PagesOf(name); from != want {
			t.Errorf("PagesOf(%s) from %q, want %q", name, from, want)
		}
	}
	if !m.OnPage("acme.login.email", "http://h/login.html?next=x") || m.OnPage("acme.login.email", "http://h/orders.html") || !m.OnPage("acme.heading", "http://h/x") {
		t.Error("OnPage")
	}
	_, ps = Parse("s.yaml", []byte("acme.x: {css: a, pages: []}\n"))
	if len(ps) != 1 || !strings.Contains(ps[0].Message, "acme.x.pages must list at least one page") {
		t.Errorf("empty pages: %v", ps)
	}
}
