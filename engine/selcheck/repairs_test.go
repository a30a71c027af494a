package selcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
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

// TestReportBoxesTheProposal: the --report of release 2 boxes, for the
// email field not found, the element its repair proposal found
// (#login-email), drawn as proposed and labelled with the proposed
// locator, beside the boxes of the targets that still resolve; the row
// says what was proposed and why. A target with no proposal (Delete
// account, gone) has no box.
func TestReportBoxesTheProposal(t *testing.T) {
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
	dir := t.TempDir()
	o := Options{Map: m, Redactor: policy.NewRedactor(nil), Prints: repair.NewKeeper(st, nil), ReportDir: dir}
	tab := testsite.NewPage(t, testsite.Browser(t), "")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if _, err := Run(ctx, tab, []string{site.URL("v1.html"), site.URL("v2.html")}, o); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := html.UnescapeString(string(b))
	v2 := page[strings.Index(page, `id="page-1"`):]
	box := regexp.MustCompile(`<div class="box box-proposed" data-target="acct.email" data-status="proposed" title="acct.email · proposed: css "#login-email"" style="left:([0-9.]+)px;top:([0-9.]+)px;width:([0-9.]+)px;height:([0-9.]+)px"`).FindStringSubmatch(v2)
	if box == nil {
		t.Fatalf("no proposed box for acct.email on release 2:\n%s", v2)
	}
	// The box is where #login-email is on the page.
	testsite.Goto(t, tab, site.URL("v2.html"))
	r, err := tab.Eval(`() => { const r = document.querySelector('#login-email').getBoundingClientRect(); return [r.left + scrollX, r.top + scrollY, r.width, r.height]; }`)
	if err != nil {
		t.Fatal(err)
	}
	var want []float64
	_ = r.Value.Unmarshal(&want)
	for i, s := range box[1:] {
		got, _ := strconv.ParseFloat(s, 64)
		if math.Abs(got-want[i]) > 2 {
			t.Errorf("the proposed box %v, #login-email is at %v", box[1:], want)
			break
		}
	}
	for _, w := range []string{
		`class="label label-proposed" data-target="acct.email" data-status="proposed"`,
		`<span class="proposed">proposed: css "#login-email"</span>`,
		`Repair proposed: css "#login-email", then label "Email"`,
		`class="box box-primary" data-target="acct.bio"`,
	} {
		if !strings.Contains(v2, w) {
			t.Errorf("release 2's report lacks %s", w)
		}
	}
	if strings.Contains(v2, `data-target="acct.delete_account" data-status="proposed"`) || strings.Contains(v2, `box-not_found" data-target="acct.delete_account"`) {
		t.Errorf("a box for acct.delete_account, which is gone")
	}
}
