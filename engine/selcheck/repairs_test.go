package selcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolwright/toolwright/engine/policy"
	"github.com/toolwright/toolwright/engine/repair"
	"github.com/toolwright/toolwright/engine/selector"
	"github.com/toolwright/toolwright/engine/store/sqlstore"
	"github.com/toolwright/toolwright/internal/testsite"
)

// TestCheckProposesRepairs: a check of release 1 keeps every target's
// fingerprint and proposes nothing; a check of release 2 reports, beside
// the broken targets, the repair of the renamed email field
// (#login-email, and why), "ambiguous: 2 candidates" for the two like
// "Add to cart" buttons and no proposal for "Delete account", which is
// gone — in the text and in --format json.
func TestCheckProposesRepairs(t *testing.T) {
	t.Parallel()
	site := testsite.StartDir(t, "repair")
	m, ps := selector.Load(filepath.Join(testsite.Root(), "testdata", "repair", "selectors.yaml"))
	if len(ps) > 0 {
		t.Fatal(ps.Err())
	}
	st, err := sqlstore.OpenSQLite(filepath.Join(t.TempDir(), sqlstore.FileName), sqlstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	o := Options{Map: m, Redactor: policy.NewRedactor(nil), Prints: repair.NewKeeper(st, nil)}
	tab := testsite.NewPage(t, testsite.Browser(t), "")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := Run(ctx, tab, []string{site.URL("v1.html"), site.URL("v2.html")}, o)
	if err != nil || len(res) != 2 {
		t.Fatalf("run: %v %+v", err, res)
	}
	if len(res[0].Repairs) != 0 || !res[0].OK() {
		t.Errorf("release 1: %+v", res[0])
	}
	var js bytes.Buffer
	if err := Write(&js, res, "json"); err != nil {
		t.Fatal(err)
	}
	var pages []struct {
		Repairs []struct {
			Target, Status, Message string
			Locators                []selector.Locator
			Agreed                  []string
		}
	}
	if err := json.Unmarshal(js.Bytes(), &pages); err != nil || len(pages) != 2 {
		t.Fatalf("json: %v\n%s", err, js.String())
	}
	got := map[string]string{}
	for _, r := range pages[1].Repairs {
		got[r.Target] = r.Status
		if r.Target == "acct.email" && (len(r.Locators) == 0 || r.Locators[0].Describe() != `css "#login-email"` || len(r.Agreed) == 0) {
			t.Errorf("acct.email's repair in json: %+v", r)
		}
		if r.Target == "acct.add_to_cart" && !strings.Contains(r.Message, "ambiguous: 2 candidates") {
			t.Errorf("acct.add_to_cart's message: %s", r.Message)
		}
	}
	want := map[string]string{"acct.email": "proposed", "acct.password": "proposed", "acct.signin": "proposed", "acct.add_to_cart": "ambiguous", "acct.delete_account": "none"}
	for name, status := range want {
		if got[name] != status {
			t.Errorf("%s: repair %q, want %q (all: %v)\n%s", name, got[name], status, got, js.String())
		}
	}
	var text bytes.Buffer
	if err := Write(&text, res, "text"); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"repair\tacct.email\tproposed: css \"#login-email\"", "\t| acct.email:\n", "repair\tacct.add_to_cart\tambiguous: 2 candidates"} {
		if !strings.Contains(text.String(), line) {
			t.Errorf("the text does not say %q:\n%s", line, text.String())
		}
	}
}
