package selsuggest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/internal/testsite"
)

func TestMain(m *testing.M) { testsite.Main(m) }

// TestSuggest: on a form with a web component, every field, button and link
// gets an entry whose every locator resolves to exactly that element; the
// YAML reads back as a selector map whose targets all resolve by primary.
func TestSuggest(t *testing.T) {
	srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Join("..", "..", "testdata", "suggest"))))
	defer srv.Close()
	p := testsite.NewPage(t, testsite.Browser(t), "")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	entries, err := Suggest(ctx, p, srv.URL+"/form.html", "shop.signup")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Entry{}
	for _, e := range entries {
		got[e.Name] = e
	}
	primary := func(name string) string {
		e, ok := got[name]
		if !ok {
			t.Errorf("no entry %s; got %v", name, entries)
			return ""
		}
		return e.Locators[0].Describe()
	}
	for name, want := range map[string]string{
		"shop.signup.email_address":  `css "#email"`, // a stable id first
		"shop.signup.password":       `css "input[name=\"password\"]"`,
		"shop.signup.nickname":       `css "input[name=\"nickname\"]"`, // react-4821 is not stable
		"shop.signup.country":        `css "select[name=\"country\"]"`,
		"shop.signup.create_account": `css "[data-testid=\"signup-submit\"]"`,
		"shop.signup.terms_of_use":   `css "a[href=\"/terms.html\"]"`,
		"shop.signup.pay_now":        `role "button" name "Pay now"`, // inside an open shadow root
	} {
		if d := primary(name); d != "" && d != want {
			t.Errorf("%s: primary %s, want %s", name, d, want)
		}
	}
	if e := got["shop.signup.email_address"]; len(e.Locators) < 2 || e.Locators[1].Strategy != selector.Label {
		t.Errorf("email: want a label fallback, got %v", e.Locators)
	}
	// Two "Delete" buttons: no locator is unique, so no entry is proposed.
	for name := range got {
		if strings.Contains(name, "delete") {
			t.Errorf("ambiguous element proposed: %s %v", name, got[name].Locators)
		}
	}
	var yml strings.Builder
	if err := WriteYAML(&yml, srv.URL+"/form.html", entries); err != nil {
		t.Fatal(err)
	}
	m, ps := selector.Parse("suggested.yaml", []byte(yml.String()))
	if len(ps) > 0 {
		t.Fatalf("the proposal does not parse:\n%s\n%v", yml.String(), ps.Err())
	}
	hs := selector.Check(ctx, p, m, nil)
	for _, h := range hs {
		if h.Status != selector.StatusPrimary || h.Count != 1 {
			t.Errorf("%s: %s %s", h.Name, h.Status, h.Message)
		}
	}
	if len(hs) != len(entries) || len(hs) < 7 {
		t.Errorf("%d entries checked, %d proposed:\n%s", len(hs), len(entries), yml.String())
	}
}
