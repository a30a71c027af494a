package repair_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/toolwright/toolwright/engine/repair"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/store/sqlstore"
	"github.com/toolwright/toolwright/internal/testsite"
)

func TestMain(m *testing.M) { testsite.Main(m) }

// release1 reads every target of testdata/repair/selectors.yaml on v1.html
// (release 1) into a keeper, as calls would, and returns the map, the
// keeper and a page.
func release1(t *testing.T, ctx context.Context) (*selector.Map, *repair.Keeper, *rod.Page, *testsite.Site) {
	t.Helper()
	site := testsite.StartDir(t, "repair")
	m, ps := selector.Load(filepath.Join(testsite.Root(), "testdata", "repair", "selectors.yaml"))
	if len(ps) > 0 {
		t.Fatal(ps.Err())
	}
	st, err := sqlstore.OpenSQLite(filepath.Join(t.TempDir(), sqlstore.FileName), sqlstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	k := repair.NewKeeper(st, nil)
	p := testsite.NewPage(t, testsite.Browser(t), site.URL("v1.html"))
	for _, name := range m.Names() {
		mt, err := m.Resolve(ctx, p, name, selector.Options{Once: true})
		if err != nil {
			t.Fatalf("release 1: %v", err)
		}
		pr, err := repair.Read(ctx, mt.Element(), false)
		if err != nil {
			t.Fatal(err)
		}
		if err := k.Keep(ctx, name, "/v1.html", pr); err != nil {
			t.Fatal(err)
		}
	}
	return m, k, p, site
}

// TestProposals: on release 2 of the page, a target whose id was renamed
// is proposed the renamed element's id (the same element: its name, label
// and placeholder agree); two like "Add to cart" buttons where one was
// are no proposal, said ambiguous; "Delete account", gone, is never
// proposed as "Delete all posts", which stands where it stood.
func TestProposals(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	m, k, p, site := release1(t, ctx)
	testsite.Goto(t, p, site.URL("v2.html"))
	propose := func(name string) *repair.Proposal {
		t.Helper()
		if _, err := m.Resolve(ctx, p, name, selector.Options{Once: true}); err == nil {
			t.Fatalf("%s still resolves on release 2", name)
		}
		last, _, err := k.Last(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		pr, err := repair.Propose(ctx, p, name, last, nil)
		if err != nil {
			t.Fatal(err)
		}
		return pr
	}
	email := propose("acct.email")
	if email.Status != repair.Proposed || len(email.Locators) == 0 || email.Locators[0].Describe() != `css "#login-email"` {
		t.Errorf("acct.email: %+v, want #login-email proposed", email)
	}
	for _, f := range []string{"name", "label", "placeholder"} {
		if !slices.Contains(email.Agreed, f) {
			t.Errorf("acct.email agreed on %v: %s missing", email.Agreed, f)
		}
	}
	if y := email.YAML(); !strings.Contains(y, "acct.email:\n") || !strings.Contains(y, `css: '#login-email'`) {
		t.Errorf("acct.email as YAML:\n%s", y)
	}
	signin := propose("acct.signin")
	if signin.Status != repair.Proposed || signin.Locators[0].Describe() != `css "#login-submit"` {
		t.Errorf("acct.signin: %+v, want #login-submit", signin)
	}
	add := propose("acct.add_to_cart")
	if add.Status != repair.Ambiguous || len(add.Locators) != 0 || !strings.Contains(add.Message, "ambiguous: 2 candidates") {
		t.Errorf("acct.add_to_cart: %+v, want ambiguous: 2 candidates", add)
	}
	del := propose("acct.delete_account")
	if del.Status != repair.None || len(del.Locators) != 0 {
		t.Errorf("acct.delete_account (gone) was proposed: %+v", del)
	}
	// The proposal's locators match the element on the page, and nothing
	// was left marked.
	if v, err := p.Eval(`() => document.querySelectorAll('[data-tw-suggest]').length`); err != nil || v.Value.Int() != 0 {
		t.Errorf("marks left on the page: %v, %v", v, err)
	}
}

// TestFingerprintHoldsNoValue: what a field holds (typed text, a
// password) is never in its fingerprint, a label far longer than the bound
// is cut so the fingerprint stays within MaxBytes, and a secret shown on
// the page is redacted before it is kept.
func TestFingerprintHoldsNoValue(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	site := testsite.StartDir(t, "repair")
	p := testsite.NewPage(t, testsite.Browser(t), site.URL("v1.html"))
	if _, err := p.Eval(`() => { document.querySelector('#email').value = 'typed-by-agent@example.com';
		document.querySelector('#password').value = 'hunter2-typed';
		document.querySelector('#bio').value = 'my private story'; }`); err != nil {
		t.Fatal(err)
	}
	redact := func(s string) string { return strings.ReplaceAll(s, "alice-in-wonderland-7", "[redacted]") }
	for _, sel := range []string{"#email", "#password", "#bio", "#account-link"} {
		el, err := p.Context(ctx).Element(sel)
		if err != nil {
			t.Fatal(err)
		}
		pr, err := repair.Read(ctx, el, false)
		if err != nil {
			t.Fatal(err)
		}
		data, hash := pr.Seal(redact)
		s := string(data)
		if len(data) > repair.MaxBytes || hash == "" {
			t.Errorf("%s: %d bytes (bound %d), hash %q", sel, len(data), repair.MaxBytes, hash)
		}
		for _, v := range []string{"typed-by-agent", "hunter2", "private story", "alice-in-wonderland"} {
			if strings.Contains(s, v) {
				t.Errorf("%s: the fingerprint holds %q: %s", sel, v, s)
			}
		}
		if sel == "#bio" && !strings.Contains(s, `"label":"About you: tell us more`) {
			t.Errorf("#bio: the label was not kept (cut): %s", s)
		}
		if sel == "#account-link" && (!strings.Contains(s, `"href":"/account"`) || !strings.Contains(s, "[redacted]")) {
			t.Errorf("#account-link: %s", s)
		}
	}
}
