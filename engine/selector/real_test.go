package selector

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/google/go-cmp/cmp"
	"github.com/toolwright/toolwright/engine/errs"
	"github.com/toolwright/toolwright/internal/testsite"
)

// realMap names targets of the pages in testdata/real/resolve.
const realMap = `
real.shadow.email:
  css: "#s-email"
real.shadow.password:
  label: Password
real.shadow.submit:
  css: "#shadow-form button[type=submit]"
real.shadow.deep:
  css: "#deep-action"
real.shadow.items:
  css: li.item
  many: true
real.shadow.item_name:
  within: real.shadow.items
  css: .name
real.frame.same:
  css: "#same-frame"
real.frame.card:
  css: "#card-frame"
real.frame.missing:
  css: "#no-such-frame"
real.same.coupon:
  frame: real.frame.same
  label: Coupon
real.same.text:
  frame: real.frame.same
  text: Inside the same-origin frame
real.card.form:
  frame: real.frame.card
  css: "#card-form"
real.card.fields:
  frame: real.frame.card
  css: .field
  many: true
real.card.field_input:
  within: real.card.fields
  css: input
real.card.number:
  frame: real.frame.card
  css: "#card-number"
  fallbacks:
    - label: Card number
real.card.number_in_form:
  frame: real.frame.card
  within: real.card.form
  css: input[name=number]
real.card.pay:
  within: real.card.form
  role: button
  name: Pay
real.card.lost:
  frame: real.frame.missing
  css: "#card-number"
`

// openReal serves testdata/real/resolve and opens path in a fresh page.
func openReal(t testing.TB, path string) (*testsite.Site, *rod.Page) {
	t.Helper()
	site := testsite.StartDir(t, "real/resolve")
	p := testsite.NewPage(t, testsite.Browser(t), site.URL(path))
	return site, p
}

func TestResolveShadowDOM(t *testing.T) {
	t.Parallel()
	_, p := openReal(t, "/shadow.html")
	tests := []struct {
		target string
		want   want
	}{
		{"css: \"#s-email\"", want{IDs: []string{"s-email"}, Strategy: "css", Count: 1}},
		{"css: \"#shadow-form button[type=submit]\"", want{IDs: []string{"s-submit"}, Strategy: "css", Count: 1}},
		{"text: Sign in", want{IDs: []string{"s-submit"}, Strategy: "text", Count: 1}},
		{"label: Email", want{IDs: []string{"s-email"}, Strategy: "label", Count: 1}},
		{"label: Password", want{IDs: []string{"s-password"}, Strategy: "label", Count: 1}},
		{"role: button\n  name: Sign in", want{IDs: []string{"s-submit"}, Strategy: "role", Count: 1}},
		// Two shadow roots deep.
		{"css: \"#deep-action\"", want{IDs: []string{"deep-action"}, Strategy: "css", Count: 1}},
		{"label: Deep action", want{IDs: []string{"deep-action"}, Strategy: "label", Count: 1}},
		{"text: Outer shadow text", want{IDs: []string{"Outer shadow text"}, Strategy: "text", Count: 1}},
		{"role: button\n  name: Deep action", want{IDs: []string{"deep-action"}, Strategy: "role", Count: 1}},
		{"css: li.item\n  many: true", want{IDs: []string{"D-1 One", "D-2 Two", "D-3 Three"}, Strategy: "css", Count: 3}},
		// Light DOM first in document order, shadow after its host.
		{"css: button\n  many: true", want{IDs: []string{"light-button", "s-submit", "deep-action"}, Strategy: "css", Count: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			m := mustResolve(t, p, nil, target(t, tt.target))
			if diff := cmp.Diff(tt.want, got(t, m)); diff != "" {
				t.Errorf("match (-want +got):\n%s", diff)
			}
		})
	}
	// xpath does not pierce shadow roots.
	if _, err := resolveIn(t, p, nil, target(t, `xpath: "//button[@id='deep-action']"`), 200*time.Millisecond, Options{}); errs.CodeOf(err) != errs.TargetNotFound {
		t.Errorf("xpath into a shadow root: got %v, want target_not_found", err)
	}
	// within a match inside a shadow root, and Map.Resolve through within.
	m := loadMap(t, realMap)
	items := mustResolve(t, p, nil, m.Targets["real.shadow.items"])
	name := mustResolve(t, p, items.Elements[1], m.Targets["real.shadow.item_name"])
	if diff := cmp.Diff([]string{"Two"}, ids(t, name)); diff != "" {
		t.Errorf("name within the second shadow item (-want +got):\n%s", diff)
	}
}

func TestResolveFrames(t *testing.T) {
	t.Parallel()
	site, p := openReal(t, "/frames.html")
	m := loadMap(t, realMap)
	resolve := func(name string) *Match {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		got, err := m.Resolve(ctx, p, name, Options{Visible: true})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return got
	}
	for name, want := range map[string]want{
		"real.same.coupon":         {IDs: []string{"coupon"}, Strategy: "label", Count: 1},
		"real.same.text":           {IDs: []string{"same-text"}, Strategy: "text", Count: 1},
		"real.card.number":         {IDs: []string{"card-number"}, Strategy: "css", Count: 1},
		"real.card.number_in_form": {IDs: []string{"card-number"}, Strategy: "css", Count: 1},
		"real.card.pay":            {IDs: []string{"pay"}, Strategy: "role", Count: 1},
		"real.card.fields":         {IDs: []string{"Card number", "Name on card"}, Strategy: "css", Count: 2},
		"real.card.field_input":    {IDs: []string{"card-number"}, Strategy: "css", Count: 1},
	} {
		if diff := cmp.Diff(want, got(t, resolve(name))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
	// The card frame really is another process: its element lives in
	// another page (target) than the top page.
	card := resolve("real.card.number").Element()
	if card.Page().TargetID == p.TargetID {
		t.Errorf("the cross-site frame was resolved in the top page's target: not out of process")
	}
	// The same-origin frame's elements are reached from the top page.
	if coupon := resolve("real.same.coupon").Element(); coupon.Page().TargetID != p.TargetID {
		t.Errorf("the same-origin frame got a target of its own")
	}
	// Acting inside the out-of-process frame works with rod's element API.
	card.MustInput("4242424242424242")
	resolve("real.card.pay").Element().MustClick()
	status, err := m.Resolve(context.Background(), p, "real.card.form", Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := status.Element().MustEval(`() => document.getElementById("card-status").textContent`).Str()
	if st != "Card ending 4242" {
		t.Errorf("card status after pay: %q", st)
	}

	// A frame that is missing fails clearly, naming the frame.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err = m.Resolve(ctx, p, "real.card.lost", Options{})
	e := errs.As(err)
	if e == nil || e.Code != errs.TargetNotFound || !strings.Contains(e.Message, "target real.card.lost not found: its frame real.frame.missing not found on /frames.html after 300ms") {
		t.Errorf("missing frame: got %v", err)
	}
	// The same page gone to a document without the card frame: the frame
	// page found before is not used again.
	testsite.Goto(t, p, site.URL("/frames.html?nocard=1"))
	ctx3, cancel3 := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel3()
	if _, err := m.Resolve(ctx3, p, "real.card.number", Options{}); errs.CodeOf(err) != errs.TargetNotFound {
		t.Errorf("after leaving the page with the frame: got %v, want target_not_found", err)
	}
	// A page without the card frame: the target inside it is not found, and
	// the message names the frame.
	_, p2 := openReal(t, "/frames.html?nocard=1")
	ctx2, cancel2 := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel2()
	_, err = m.Resolve(ctx2, p2, "real.card.number", Options{})
	if e := errs.As(err); e == nil || e.Code != errs.TargetNotFound || !strings.Contains(e.Message, "its frame real.frame.card not found") {
		t.Errorf("page without the frame: got %v", err)
	}
	_ = site
}

func TestCheckShadowAndFrames(t *testing.T) {
	t.Parallel()
	m := loadMap(t, realMap)
	_, p := openReal(t, "/frames.html")
	hs := Check(context.Background(), p, m, []string{"real.same.coupon", "real.card.number", "real.card.field_input", "real.card.lost"})
	want := []Health{
		{Name: "real.same.coupon", Status: "primary", Strategy: "label", Count: 1, Message: `label "Coupon" matched 1 element in frame real.frame.same`},
		{Name: "real.card.number", Status: "primary", Strategy: "css", Count: 1, Message: `css "#card-number" matched 1 element in frame real.frame.card`},
		{Name: "real.card.field_input", Status: "primary", Strategy: "css", Count: 1, Message: `css "input" matched 1 element`},
		{Name: "real.card.lost", Status: "not_found", Message: "frame real.frame.missing not found"},
	}
	if diff := cmp.Diff(want, hs); diff != "" {
		t.Errorf("frames.html (-want +got):\n%s", diff)
	}
	_, sp := openReal(t, "/shadow.html")
	hs = Check(context.Background(), sp, m, []string{"real.shadow.deep", "real.shadow.items", "real.shadow.item_name"})
	want = []Health{
		{Name: "real.shadow.deep", Status: "primary", Strategy: "css", Count: 1, Message: `css "#deep-action" matched 1 element`},
		{Name: "real.shadow.items", Status: "primary", Strategy: "css", Count: 3, Message: `css "li.item" matched 3 elements`},
		{Name: "real.shadow.item_name", Status: "primary", Strategy: "css", Count: 1, Message: `css ".name" matched 1 element`},
	}
	if diff := cmp.Diff(want, hs); diff != "" {
		t.Errorf("shadow.html (-want +got):\n%s", diff)
	}
}

func TestParseFrame(t *testing.T) {
	_, ps := Parse("s.yaml", []byte(`
a.frame:
  css: iframe
a.inner:
  frame: a.frame
  css: input
a.bad:
  frame: a.nope
  css: input
a.loop1:
  frame: a.loop2
  css: iframe
a.loop2:
  within: a.loop1
  css: iframe
`))
	var got []string
	for _, p := range ps {
		got = append(got, p.String())
	}
	want := []string{
		`s.yaml:7:1: target "a.bad": frame names unknown target "a.nope"`,
		`s.yaml:10:1: target "a.loop1": within and frame form a loop: a.loop1 → a.loop2 → a.loop1`,
		`s.yaml:13:1: target "a.loop2": within and frame form a loop: a.loop2 → a.loop1 → a.loop2`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

func TestExtractFramesShadowAndRoles(t *testing.T) {
	t.Parallel()
	m := loadMap(t, realMap+`
real.card.field_box:
  within: real.card.fields
  role: textbox
real.card.field_label:
  within: real.card.fields
  css: label.nope
  fallbacks:
    - css: label
real.shadow.item_sku:
  within: real.shadow.items
  css: .sku
`)
	_, fp := openReal(t, "/frames.html")
	_, sp := openReal(t, "/shadow.html")
	fp.MustElement("#card-frame") // the card frame is there
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// A role field: read element by element (the accessibility tree), in the
	// cross-site frame, with a fallback traced.
	if _, err := m.Resolve(ctx, fp, "real.card.number", Options{Visible: true}); err != nil {
		t.Fatal(err)
	}
	ex, err := m.Extract(ctx, fp, ExtractSpec{From: "real.card.fields", List: true, Attr: "id",
		Fields: []FieldSpec{{Name: "box", Target: "real.card.field_box"}, {Name: "label", Target: "real.card.field_label"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := []any{map[string]any{"box": "card-number", "label": nil}, map[string]any{"box": "card-name", "label": nil}}
	if diff := cmp.Diff(want, ex.Items); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	if ex.Match != "css" || len(ex.Fields) != 1 || ex.Fields[0] != "label: fallback 1 (css)" {
		t.Errorf("strategies: %q %q", ex.Match, ex.Fields)
	}
	// One round trip through nested shadow roots.
	ex, err = m.Extract(ctx, sp, ExtractSpec{From: "real.shadow.items", List: true, Limit: 2,
		Fields: []FieldSpec{{Name: "sku", Target: "real.shadow.item_sku"}, {Name: "name", Target: "real.shadow.item_name"}}})
	if err != nil {
		t.Fatal(err)
	}
	want = []any{map[string]any{"sku": "D-1", "name": "One"}, map[string]any{"sku": "D-2", "name": "Two"}}
	if diff := cmp.Diff(want, ex.Items); diff != "" || ex.Count != 3 || !ex.Truncated() {
		t.Errorf("shadow items (-want +got):\n%s count %d", diff, ex.Count)
	}
	// A password input reads as "" whatever attr asks.
	pe, err := m.Resolve(ctx, sp, "real.shadow.password", Options{Visible: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := Fill(ctx, pe.Element(), "s3cret", ActOptions{Name: "real.shadow.password"}); err != nil {
		t.Fatal(err)
	}
	if v := pe.Element().MustEval(`() => this.value`).Str(); v != "s3cret" {
		t.Fatalf("the fill did not type: %q", v)
	}
	pw, err := m.Extract(ctx, sp, ExtractSpec{From: "real.shadow.password", Attr: "value"})
	if err != nil || len(pw.Items) != 1 || pw.Items[0] != "" {
		t.Errorf("password: %v %v", pw, err)
	}
}
