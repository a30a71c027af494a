package run_test

import (
	"context"
	"strings"
	"testing"

	"github.com/toolwright/toolwright/engine/store"
	"github.com/toolwright/toolwright/internal/harness"
	"github.com/toolwright/toolwright/internal/testsite"
)

// repairSite is testdata/repair (release 1 and 2 of one page) with its
// selector map, written for release 1.
var repairSite = harness.Fixture{
	Start:     func(tb testing.TB) *testsite.Site { return testsite.StartDir(tb, "repair") },
	Selectors: "testdata/repair/selectors.yaml",
	Workflows: "testdata/repair/workflows-none",
}

const typeEmail = `name: type_email
description: Type an email address into the sign-in form of a release of the page.
risk: read
params:
  release: {type: string, description: v1 or v2, pattern: "^v[12]$", max_length: 2, required: true}
steps:
  - goto: ${{ config.shop_base }}/${{ params.release }}.html
  - fill: {target: acct.email, value: "someone-typed@example.com"}
    timeout: 1s
`

// TestRepairInTheTraceNotTheEnvelope: a call on release 1 keeps the
// fingerprint of the field it fills (without what it typed); on release
// 2, where the field's id was renamed, the call fails target_not_found as
// before, its failed step's record in the trace holds the repair proposal
// (#login-email, with why: name, label, placeholder agreed), and the
// envelope the agent gets says nothing of it.
func TestRepairInTheTraceNotTheEnvelope(t *testing.T) {
	t.Parallel()
	h := harness.NewColdOn(t, repairSite, map[string]string{"type_email": typeEmail}, nil)
	h.BrowserUp()
	h.OK(h.Call("type_email", `{"release": "v1"}`))
	fp, err := h.St.GetFingerprint(context.Background(), "acct.email")
	if err != nil {
		t.Fatalf("no fingerprint kept for acct.email: %v", err)
	}
	if s := string(fp.Data); !strings.Contains(s, `"label":"Email"`) || strings.Contains(s, "someone-typed") || fp.Page != "/v1.html" {
		t.Errorf("the fingerprint of acct.email on %s: %s", fp.Page, s)
	}
	env := h.Code(h.Call("type_email", `{"release": "v2"}`), "target_not_found", "acct.email")
	for _, leak := range []string{"login-email", "repair", "propos", "fingerprint"} {
		if strings.Contains(strings.ToLower(string(env.JSON())), leak) {
			t.Errorf("the envelope mentions %q: %s", leak, env.JSON())
		}
	}
	tr := h.Trace(env)
	var failed *store.StepRecord
	for i := range tr.Steps {
		if tr.Steps[i].Code == "target_not_found" {
			failed = &tr.Steps[i]
		}
	}
	if failed == nil || failed.Repair == nil {
		t.Fatalf("no repair in the failed step's record: %+v", tr.Steps)
	}
	rp := failed.Repair
	if rp.Status != "proposed" || len(rp.Locators) == 0 || rp.Locators[0] != `css "#login-email"` ||
		!strings.Contains(rp.YAML, "acct.email:") || !strings.Contains(rp.Message, "name, label, placeholder") {
		t.Errorf("the repair in the trace: %+v", rp)
	}
	if strings.Contains(string(tr.Envelope), "login-email") {
		t.Errorf("the envelope kept in the trace mentions the repair: %s", tr.Envelope)
	}
	t.Logf("the repair took %d ms: %s", rp.DurationMS, rp.Message)
}
